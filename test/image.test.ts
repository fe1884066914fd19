/**
 * The database in a buffer of ours (store/image.ts): a save reads the pages where SQLite wrote them (no
 * copy of the database), and whenever the file system let go of the buffer — the database outgrew it, a
 * rolled-back transaction or VACUUM truncated the file — the save notices and takes sql.js's copy, so no
 * write is ever lost.
 */
import { strict as assert } from 'node:assert';
import { Store } from '../src/core/store/store';
import { FULL_SHARE, LOAD_BLOCK, MIN_CAPACITY, capacityFor, changeCounter, type PagedBuffer } from '../src/core/store/image';
import { IndexFile } from '../src/core/indexfile';
import { hashesPath, readImage, type PageLog } from '../src/core/store/pagelog';
import { rmSync, statSync } from 'node:fs';
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
    const counter = (f.store['db'] as unknown as { backing: { buf: Buffer } }).backing.buf;
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

describe('an index read as SQLite asks for its pages', () => {
  let ws: TempWorkspace;
  beforeEach(() => { ws = tempWorkspace({}); });
  afterEach(() => ws.remove());

  const ROWS = 3000;
  /** Every index here is read lazily, whatever its size (the default is large indexes only). */
  const open = (lazy = true) => IndexFile.open(ws.db, true, quiet, { lazyMinBytes: lazy ? 0 : Number.POSITIVE_INFINITY });
  const paged = (f: IndexFile) => (f.store['db'] as unknown as { backing: PagedBuffer }).backing;
  const hashed = (f: IndexFile) => (f as unknown as { pages: PageLog }).pages.lastHashed;
  /** A scratch table of ROWS rows of ~1.5 KB (body i), saved, then rows 5, 1500 and 2990 changed and saved again (a record in the log). */
  const build = async () => {
    const f = await open(false);
    f.acquireLock();
    f.store.transaction(() => {
      f.store['db'].run('CREATE TABLE scratch (id INTEGER PRIMARY KEY, body TEXT)');
      for (let i = 0; i < ROWS; i++) f.store['db'].exec('INSERT INTO scratch VALUES (?, ?)', [i, body(i)]);
    });
    f.save();
    f.store.transaction(() => { for (const i of [5, 1500, 2990]) f.store['db'].exec('UPDATE scratch SET body = ? WHERE id = ?', [`changed ${i}`, i]); });
    f.save();
    f.close();
  };
  const body = (i: number) => `row ${i} `.padEnd(1500, String.fromCharCode(97 + (i % 26)));
  /** What the table holds, as the test wrote it. */
  const expected = (changed: Map<number, string>) => Array.from({ length: ROWS }, (_, i) => changed.get(i) ?? body(i));
  const rows = (f: IndexFile) => f.store['db'].all<{ id: number; body: string }>('SELECT id, body FROM scratch ORDER BY id').map(r => r.body);
  const changed0 = new Map([[5, 'changed 5'], [1500, 'changed 1500'], [2990, 'changed 2990']]);

  it('opens reading a small share of the file, answers as the whole file would (the change log included), and lets go of the file once all is read', async () => {
    await build();
    const size = statSync(ws.db).size;
    const f = await open();
    const pb = paged(f);
    assert.ok(pb.lazyBytes < size / 10, `open read ${pb.lazyBytes} of ${size} bytes`);
    // a lookup reads its pages, not the table
    assert.equal(f.store['db'].one<{ body: string }>('SELECT body FROM scratch WHERE id = 1500')!.body, 'changed 1500');
    assert.equal(f.store['db'].one<{ body: string }>('SELECT body FROM scratch WHERE id = 1501')!.body, body(1501));
    assert.ok(pb.lazyBytes < size / 5, `two lookups read ${pb.lazyBytes} of ${size} bytes`);
    // a scan reads the rest ahead, in far fewer reads than blocks, and sees what the whole file holds
    assert.deepEqual(rows(f), expected(changed0));
    assert.ok(pb.lazyReads < size / LOAD_BLOCK / 8, `${pb.lazyReads} reads for ${Math.ceil(size / LOAD_BLOCK)} blocks`);
    f.store['db'].all('SELECT * FROM sqlite_master'); f.store['db'].run('PRAGMA integrity_check');
    pb.loadAll();
    assert.equal(pb['fd'], null, 'the file is closed once every block is held');
    f.close();
  });

  it('a save hashes only the pages SQLite wrote since the last one, and what it persists is the database', async () => {
    await build();
    let f = await open();
    f.acquireLock();
    const pages = f.store['db'].pageBytes() / 4096;
    f.store.transaction(() => f.store['db'].exec('UPDATE scratch SET body = ? WHERE id = ?', ['again 7', 7]));
    f.save();
    assert.ok(hashed(f) > 0 && hashed(f) < 12, `hashed ${hashed(f)} of ${pages} pages`);
    assert.ok(paged(f).lazyBytes < statSync(ws.db).size / 5, 'the save read no more of the file');
    // the next save starts again from nothing written, and a save without the page hashes beside the
    // index compares every page (and is as right)
    f.store.transaction(() => f.store['db'].exec('UPDATE scratch SET body = ? WHERE id = ?', ['again 2000', 2000]));
    f.save();
    assert.ok(hashed(f) < 12, `hashed ${hashed(f)}`);
    f.close();
    rmSync(hashesPath(ws.db));
    f = await open();
    f.acquireLock();
    f.store.transaction(() => f.store['db'].exec('UPDATE scratch SET body = ? WHERE id = ?', ['again 10', 10]));
    f.save();
    f.close();
    const g = await open(false);
    assert.deepEqual(rows(g), expected(new Map([...changed0, [7, 'again 7'], [2000, 'again 2000'], [10, 'again 10']])));
    g.close();
  });

  it('a save that writes a new snapshot, and a move to a larger buffer, read the rest of the file first', async () => {
    await build();
    let f = await open();
    f.acquireLock();
    // rows appended (new pages written, the old ones not read) make most of a save: it writes a whole snapshot
    let n = ROWS;
    f.store.transaction(() => { for (; n < 2 * ROWS; n++) f.store['db'].exec('INSERT INTO scratch VALUES (?, ?)', [n, body(n)]); });
    const read = paged(f).lazyBytes;
    f.save();
    assert.ok(read < statSync(ws.db).size / 5, `the inserts read ${read} bytes`);
    f.close();
    const changed = new Map(changed0);
    f = await open(false);
    let all = rows(f);
    assert.equal(all.length, n);
    assert.deepEqual(all.slice(0, ROWS), expected(changed));
    f.close();
    // a lazily read index that grows past its buffer's share moves to a new one holding every page
    f = await open();
    f.acquireLock();
    const cap = f.store['db'].capacity!;
    while (f.store['db'].pageBytes() <= FULL_SHARE * cap) {
      f.store.transaction(() => { for (let k = 0; k < 200; k++, n++) f.store['db'].exec('INSERT INTO scratch VALUES (?, ?)', [n, body(n)]); });
    }
    f.store.keepRoom();
    assert.ok(f.store['db'].capacity! > cap, 'moved');
    f.save();
    f.close();
    f = await open(false);
    all = rows(f);
    assert.equal(all.length, n);
    assert.deepEqual(all.slice(0, ROWS), expected(changed));
    f.close();
  });
});

function insertRows(store: Store, rows: number): void {
  for (let i = 0; i < rows; i++) store['db'].exec('INSERT INTO scratch (body) VALUES (randomblob(4000))');
}
