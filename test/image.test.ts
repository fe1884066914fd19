/**
 * The database in a buffer of ours (store/image.ts): a save reads the pages where SQLite wrote them (no
 * copy of the database), and whenever the file system let go of the buffer — the database outgrew it, a
 * rolled-back transaction or VACUUM truncated the file — the save notices and takes sql.js's copy, so no
 * write is ever lost.
 */
import { strict as assert } from 'node:assert';
import { Store } from '../src/core/store/store';
import { FULL_SHARE, MIN_CAPACITY, capacityFor, changeCounter } from '../src/core/store/image';
import { IndexFile } from '../src/core/indexfile';
import { readImage } from '../src/core/store/pagelog';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

const quiet = () => undefined;

describe('the database buffer', () => {
  let ws: TempWorkspace;
  beforeEach(() => { ws = tempWorkspace({}); });
  afterEach(() => ws.remove());

  /** Rows of `bytes` random bytes each, one transaction; a scratch table, not one of the index's. */
  const fill = (store: Store, rows: number, bytes: number) => {
    store.transaction(() => {
      store['db'].run('CREATE TABLE IF NOT EXISTS scratch (id INTEGER PRIMARY KEY, body BLOB)');
      for (let i = 0; i < rows; i++) store['db'].exec('INSERT INTO scratch (body) VALUES (randomblob(?))', [bytes]);
    });
  };
  const scratchRows = (store: Store) => store['db'].count('SELECT count(*) AS n FROM scratch');
  const reopen = async () => { const f = await IndexFile.open(ws.db, true, quiet); return f; };

  it('a save of an opened index reads its pages from the buffer SQLite writes to, and they are the database', async () => {
    let f = await reopen();
    f.acquireLock(); fill(f.store, 50, 1000); f.save(); f.close();
    f = await reopen();
    f.acquireLock();
    fill(f.store, 20, 1000);
    const counter = (f.store['db'] as unknown as { backing: Buffer }).backing;
    const before = changeCounter(counter);
    f.save();
    assert.equal(f.store.lastImage, 'view', 'the save took the pages from the buffer');
    assert.equal(changeCounter(counter), (before + 1) >>> 0, 'the save\'s commit advanced the counter in the buffer');
    f.close();
    // what was saved from the view is the database: every row is back in a new process
    f = await reopen();
    assert.equal(scratchRows(f.store), 70);
    f.close();
  });

  it('a database that outgrows its buffer inside one transaction is saved from sql.js\'s copy, loses nothing, and moves to a new buffer', async () => {
    let f = await reopen();
    f.acquireLock();
    assert.equal(f.store['db'].capacity, MIN_CAPACITY, 'a new index starts in the smallest buffer');
    fill(f.store, 1200, 16 * 1024); // ~19 MB in one transaction: past the 16 MB buffer, no chance to move
    f.save();
    assert.equal(f.store.lastImage, 'copy', 'the buffer was no longer the file');
    assert.ok((f.store['db'].capacity ?? 0) >= capacityFor(19 * 1024 * 1024) * 0.9, `moved to a buffer of ${f.store['db'].capacity}`);
    fill(f.store, 10, 1000);
    f.save();
    assert.equal(f.store.lastImage, 'view', 'after the move, saves read the new buffer');
    f.close();
    f = await reopen();
    assert.equal(scratchRows(f.store), 1210);
    f.close();
  });

  it('a rolled-back transaction and VACUUM (both may truncate the file) never make a save persist a stale buffer', async () => {
    let f = await reopen();
    f.acquireLock(); fill(f.store, 100, 1000); f.save();
    // a transaction that grows the file, then fails: SQLite rolls it back and may truncate the file
    assert.throws(() => f.store.transaction(() => { insertRows(f.store, 400); throw new Error('boom'); }), /boom/);
    fill(f.store, 5, 1000);
    f.save();
    f.store.vacuum();
    fill(f.store, 7, 1000);
    f.save();
    f.close();
    f = await reopen();
    assert.equal(scratchRows(f.store), 112, 'every committed row is back, the rolled-back ones are not');
    f.close();
  });

  it('keepRoom moves a database that fills its buffer to one twice its size, between writes', async () => {
    const f = await reopen();
    f.acquireLock();
    fill(f.store, 900, 16 * 1024); // ~14.5 MB of 16 MB
    const size = f.store['db'].pageBytes();
    assert.ok(size > FULL_SHARE * MIN_CAPACITY && size < MIN_CAPACITY, `size ${size}`);
    f.store.keepRoom();
    assert.equal(f.store['db'].capacity, capacityFor(f.store['db'].pageBytes()));
    fill(f.store, 100, 16 * 1024); // past the old buffer's end
    f.save();
    assert.equal(f.store.lastImage, 'view');
    const size2 = f.store['db'].pageBytes();
    f.close();
    assert.equal(readImage(ws.db).bytes!.length, size2, 'the saved image is the database, not its buffer');
    const g = await reopen();
    assert.equal(scratchRows(g.store), 1000);
    g.close();
  });
});

function insertRows(store: Store, rows: number): void {
  for (let i = 0; i < rows; i++) store['db'].exec('INSERT INTO scratch (body) VALUES (randomblob(4000))');
}
