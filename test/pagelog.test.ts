/**
 * The index on disk as a snapshot plus a change log of pages (store/pagelog.ts): a save writes what
 * changed, a restart reads back exactly the last complete save, and a crash or a damaged log never
 * yields a state that was not saved.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import initSqlJs, { type Database, type SqlJsStatic } from 'sql.js';
import { PageLog, changesPath, hashesPath, initPageLog, readImage, COMPACT_RATIO } from '../src/core/store/pagelog';
import { Engine } from '../src/core/engine';
import { invokeTool } from '../src/core/tools/contract';
import { TOOLS } from '../src/core/tools/registry';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

const same = (a: Uint8Array | null, b: Uint8Array) => a !== null && Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;

describe('page log persistence', () => {
  let SQL: SqlJsStatic;
  const cleanup: (() => void)[] = [];
  before(async () => { SQL = await initSqlJs(); await initPageLog(); });
  afterEach(() => { while (cleanup.length) cleanup.pop()!(); });
  const make = (files: Record<string, string> = {}) => { const ws = tempWorkspace(files); cleanup.push(ws.remove); return ws; };
  /** A database with `rows` rows of ~200 bytes. */
  const database = (rows: number): Database => {
    const db = new SQL.Database();
    db.run('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)');
    db.run('BEGIN');
    for (let i = 0; i < rows; i++) db.run('INSERT INTO t VALUES (?, ?)', [i, `row ${i} `.padEnd(200, String.fromCharCode(97 + (i % 26)))]);
    db.run('COMMIT');
    return db;
  };

  it('a small change is appended as a record of the changed pages; reading back gives the saved image byte for byte', () => {
    const ws = make();
    const db = database(5000);
    const log = new PageLog(ws.db);
    const first = db.export();
    assert.equal(log.commit(first).mode, 'snapshot');
    const snapshotStamp = statSync(ws.db).mtimeMs;
    let last = first;
    for (let k = 0; k < 5; k++) {
      db.run('UPDATE t SET body = ? WHERE id = ?', [`edited ${k}`, 100 * k + 7]);
      last = db.export();
      const r = log.commit(last);
      assert.equal(r.mode, 'record');
      assert.ok(r.pages >= 1 && r.pages <= 4, `pages ${r.pages}`);
      assert.ok(r.bytes_written < last.length / 50, `${r.bytes_written} bytes of ${last.length}`);
    }
    assert.equal(statSync(ws.db).mtimeMs, snapshotStamp, 'the snapshot is not rewritten');
    const back = readImage(ws.db);
    assert.equal(back.records, 5);
    assert.equal(back.ignored, null);
    assert.ok(same(back.bytes, last));
    // the image opens and holds the edit
    const again = new SQL.Database(back.bytes!);
    assert.equal(again.exec('SELECT body FROM t WHERE id = 407')[0]!.values[0]![0], 'edited 4');
    again.close(); db.close();
  });

  it('an unchanged image writes nothing; growth and a new process (no hashes in memory) still append', () => {
    const ws = make();
    const db = database(2000);
    new PageLog(ws.db).commit(db.export());
    const log = new PageLog(ws.db); // another process: it knows nothing of the files yet
    assert.equal(log.commit(db.export()).mode, 'none');
    db.run('BEGIN');
    for (let i = 2000; i < 2060; i++) db.run('INSERT INTO t VALUES (?, ?)', [i, 'x'.repeat(300)]);
    db.run('COMMIT');
    const grown = db.export();
    const r = log.commit(grown);
    assert.equal(r.mode, 'record');
    assert.ok(same(readImage(ws.db).bytes, grown));
    db.close();
  });

  it('a new process\'s first save uses the page hashes the last save left, and never trusts stale or damaged ones', () => {
    const ws = make();
    const db = database(3000);
    new PageLog(ws.db).commit(db.export());
    assert.ok(existsSync(hashesPath(ws.db)));
    db.run("UPDATE t SET body = 'by a second process' WHERE id = 11");
    let last = db.export();
    assert.equal(new PageLog(ws.db).commit(last).mode, 'record');
    assert.ok(same(readImage(ws.db).bytes, last));
    // another writer appends without leaving hashes (ours are now stale: the log changed)
    const stale = readFileSync(hashesPath(ws.db));
    db.run("UPDATE t SET body = 'third' WHERE id = 2500");
    new PageLog(ws.db).commit(db.export());
    writeFileSync(hashesPath(ws.db), stale);
    db.run("UPDATE t SET body = 'fourth' WHERE id = 12");
    last = db.export();
    assert.equal(new PageLog(ws.db).commit(last).mode, 'record');
    assert.ok(same(readImage(ws.db).bytes, last), 'stale hashes were not used');
    // damaged hashes
    const h = readFileSync(hashesPath(ws.db)); h[40] = h[40]! ^ 0xff; writeFileSync(hashesPath(ws.db), h);
    db.run("UPDATE t SET body = 'fifth' WHERE id = 13");
    last = db.export();
    new PageLog(ws.db).commit(last);
    assert.ok(same(readImage(ws.db).bytes, last), 'damaged hashes were not used');
    db.close();
  });

  it('a torn or damaged last record is ignored (the previous save is the state); the next save cuts it and appends', () => {
    const ws = make();
    const db = database(3000);
    const log = new PageLog(ws.db);
    log.commit(db.export());
    db.run("UPDATE t SET body = 'one' WHERE id = 1");
    const one = db.export(); log.commit(one);
    db.run("UPDATE t SET body = 'two' WHERE id = 2900");
    const two = db.export(); log.commit(two);
    const full = statSync(changesPath(ws.db)).size;
    // a crash in the middle of appending the second record
    truncateSync(changesPath(ws.db), full - 1000);
    let back = readImage(ws.db);
    assert.ok(same(back.bytes, one), 'the state of the last complete save');
    assert.match(back.ignored ?? '', /incomplete/);
    // a flipped byte inside the first (complete) record: nothing after the snapshot is trusted
    const bytes = readFileSync(changesPath(ws.db));
    bytes[64 + 100] = bytes[64 + 100]! ^ 0xff;
    writeFileSync(changesPath(ws.db), bytes);
    back = readImage(ws.db);
    assert.match(back.ignored ?? '', /checksum/);
    assert.equal(back.records, 0);
    // garbage after a valid log
    const fresh = new PageLog(ws.db);
    db.run("UPDATE t SET body = 'three' WHERE id = 5");
    const three = db.export();
    assert.equal(fresh.commit(three).mode, 'record');
    assert.ok(same(readImage(ws.db).bytes, three));
    appendFileSync(changesPath(ws.db), Buffer.alloc(37, 9));
    back = readImage(ws.db);
    assert.ok(same(back.bytes, three));
    assert.match(back.ignored ?? '', /not a complete record/);
    db.close();
  });

  it('a log bound to another snapshot (a crash between a new snapshot and its log) is ignored', () => {
    const ws = make();
    const db = database(2000);
    const log = new PageLog(ws.db);
    log.commit(db.export());
    db.run("UPDATE t SET body = 'later' WHERE id = 3");
    log.commit(db.export());
    const other = database(1500).export();
    writeFileSync(ws.db, other);
    const back = readImage(ws.db);
    assert.ok(same(back.bytes, other));
    assert.match(back.ignored ?? '', /another snapshot/);
    db.close();
  });

  it('the log is compacted into a new snapshot before it passes its share of the image; big changes write a snapshot', () => {
    const ws = make();
    const db = database(4000);
    const log = new PageLog(ws.db);
    log.commit(db.export());
    let modes: string[] = []; let last!: Uint8Array;
    for (let k = 0; k < 400 && !modes.includes('snapshot'); k++) {
      db.run('UPDATE t SET body = ? WHERE id % 997 = ?', [`round ${k}`.padEnd(200, 'z'), k % 997]);
      last = db.export();
      modes.push(log.commit(last).mode);
    }
    assert.ok(modes.includes('record') && modes.at(-1) === 'snapshot', modes.join(','));
    assert.ok(statSync(changesPath(ws.db)).size < 100, 'a new, empty log');
    assert.ok(same(readImage(ws.db).bytes, last));
    db.run("UPDATE t SET body = 'all'");
    last = db.export();
    modes = [log.commit(last).mode];
    assert.deepEqual(modes, ['snapshot']);
    assert.ok(same(readImage(ws.db).bytes, last));
    assert.ok(COMPACT_RATIO > 0 && COMPACT_RATIO < 1);
    db.close();
  });

  it('a process killed in the middle of appending a record leaves the index at its previous save', async () => {
    const ws = make();
    const db = database(3000);
    new PageLog(ws.db).commit(db.export());
    db.run("UPDATE t SET body = 'saved' WHERE id = 10");
    const saved = db.export();
    new PageLog(ws.db).commit(saved);
    db.run("UPDATE t SET body = 'never saved' WHERE id = 2000");
    const image = join(dirname(ws.db), 'next.img');
    writeFileSync(image, db.export());
    // a real process writes half of the record, then dies
    const script = `const fs = require('node:fs'); const real = fs.writeSync;
      fs.writeSync = (fd, buf, off, len, pos) => { real(fd, buf, off, Math.floor(len / 2), pos); process.kill(process.pid, 'SIGKILL'); };
      const p = require(${JSON.stringify(join(__dirname, '../src/core/store/pagelog'))});
      p.initPageLog().then(() => new p.PageLog(${JSON.stringify(ws.db)}).commit(fs.readFileSync(${JSON.stringify(image)})));`;
    const child = spawnSync(process.execPath, ['-r', 'tsx/cjs', '-e', script], { cwd: join(__dirname, '..') });
    assert.equal(child.signal, 'SIGKILL', child.stderr.toString());
    const back = readImage(ws.db);
    assert.ok(same(back.bytes, saved));
    assert.ok(back.ignored);
    db.close();
  });

  describe('through the engine', () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 60; i++) files[`pkg/mod${i}.py`] = Array.from({ length: 40 }, (_, k) => `def f${i}_${k}(x):\n    return g${k}(x) + ${k}\n`).join('\n');
    const open = (ws: TempWorkspace) => Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });

    it('a one-file edit appends a record far smaller than the index; a new process sees the edit and re-parses nothing', async () => {
      const ws = make(files);
      let e = await open(ws);
      await e.index();
      const snapshot = statSync(ws.db);
      const logBefore = statSync(changesPath(ws.db)).size;
      writeFileSync(join(ws.root, 'pkg/mod7.py'), `${files['pkg/mod7.py']}\ndef zebra_unique_name(y):\n    return f7_1(y)\n`);
      const r = await e.index();
      assert.equal(r.totals.files_parsed, 1);
      const written = statSync(changesPath(ws.db)).size - logBefore;
      assert.ok(written > 0 && written < snapshot.size / 5, `${written} bytes appended for an index of ${snapshot.size}`);
      assert.equal(statSync(ws.db).mtimeMs, snapshot.mtimeMs, 'the snapshot was not rewritten');
      e.close();
      e = await open(ws);
      const again = await e.index();
      assert.equal(again.totals.files_parsed, 0);
      const out = await invokeTool(TOOLS.search_code, { query: 'zebra_unique_name' }, { engine: e });
      assert.ok(out.ok);
      assert.match(JSON.stringify(out.data), /pkg\/mod7\.py/);
      e.close();
      assert.ok(existsSync(changesPath(ws.db)));
    });

    it('a reader in another engine picks up a record another writer appended', async () => {
      const ws = make(files);
      const writer = await open(ws);
      await writer.index();
      const reader = await open(ws);
      writeFileSync(join(ws.root, 'pkg/mod3.py'), 'def walrus_only_here():\n    return 1\n');
      await writer.index();
      const out = await invokeTool(TOOLS.search_code, { query: 'walrus_only_here' }, { engine: reader });
      assert.ok(out.ok);
      assert.match(JSON.stringify(out.data), /pkg\/mod3\.py/);
      writer.close(); reader.close();
    });
  });
});
