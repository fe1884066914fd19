/**
 * Safety: what the engine does when the files, the index file, the lock, the processes it starts or the
 * clients it serves misbehave. Engine tests run in-process; the CLI and MCP tests run the built dist/
 * (needs `npm run build`).
 */
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Engine } from '../src/core/engine';
import { SightlineError } from '../src/core/errors';
import { processFile } from '../src/core/index/process';
import { LockLostError, WriterLock, inspectLock } from '../src/core/store/persist';
import initSqlJs from 'sql.js';
import { defaultDbPath } from '../src/core/settings';
import { tempWorkspace, SAMPLE_FILES, type TempWorkspace } from './helpers/workspace';
import { invokeTool } from '../src/core/tools/contract';
import { TOOLS } from '../src/core/tools/registry';
import { CLI_JS, MCP_JS, INITIALIZE_REQUEST, rawPost, requireBuilt, startHttpServer } from './helpers/mcp';

const open = (ws: TempWorkspace, extra: Partial<Parameters<typeof Engine.open>[0]> = {}) =>
  Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0, ...extra });

const SECRET = 'root:x:0:0:the secret outside the workspace\n';
const HOST_TAG = hostname().replace(/[^A-Za-z0-9-]/g, '_');
/** A pid that is not running (a process that has exited). */
const deadPid = () => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString());
const ago = (path: string, ms: number) => { const t = new Date(Date.now() - ms); utimesSync(path, t, t); };
const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));

describe('safety', () => {
  const cleanup: (() => void)[] = [];
  afterEach(() => { while (cleanup.length) cleanup.pop()!(); });
  const make = (files: Record<string, string | Uint8Array>) => { const ws = tempWorkspace(files); cleanup.push(ws.remove); return ws; };

  describe('reads at request time stay inside the root', () => {
    it('get_chunk refuses a file that became a symlink out of the root after indexing', async () => {
      const ws = make({ 'pkg/a.py': 'def alpha():\n    return 1\n', 'pkg/b.py': 'def beta():\n    return 2\n' });
      const outside = join(dirname(ws.root), 'secret.txt');
      writeFileSync(outside, SECRET);
      const e = await open(ws); cleanup.push(() => e.close());
      await e.index();
      const hit = (await e.search({ query: 'alpha', limit: 5, offset: 0, vector: false })).results.find(h => h.symbol_path === 'alpha')!;
      assert.match((await e.getChunk(hit.chunk_id)).text, /def alpha/);
      rmSync(join(ws.root, 'pkg/a.py'));
      symlinkSync(outside, join(ws.root, 'pkg/a.py'));
      await assert.rejects(e.getChunk(hit.chunk_id), (err: SightlineError) => {
        assert.equal(err.code, 'path_outside_workspace');
        assert.doesNotMatch(err.message, /secret/);
        assert.equal(err.details?.path, 'pkg/a.py');
        return true;
      });
      // a link to a file inside the root is read (and flagged stale)
      rmSync(join(ws.root, 'pkg/a.py'));
      symlinkSync(join(ws.root, 'pkg/b.py'), join(ws.root, 'pkg/a.py'));
      const c = await e.getChunk(hit.chunk_id);
      assert.equal(c.stale, true);
      assert.match(c.text, /def beta/);
      // a folder on the way that became a link out is refused too
      rmSync(join(ws.root, 'pkg'), { recursive: true });
      const outDir = join(dirname(ws.root), 'elsewhere');
      spawnSync('mkdir', ['-p', outDir]);
      writeFileSync(join(outDir, 'a.py'), SECRET);
      symlinkSync(outDir, join(ws.root, 'pkg'));
      await assert.rejects(e.getChunk(hit.chunk_id), (err: SightlineError) => err.code === 'path_outside_workspace');
    });

    it('get_chunk does not block on a file that became a FIFO', async function () {
      if (process.platform === 'win32') this.skip();
      const ws = make({ 'a.py': 'def alpha():\n    return 1\n' });
      const e = await open(ws); cleanup.push(() => e.close());
      await e.index();
      const hit = (await e.search({ query: 'alpha', limit: 5, offset: 0, vector: false })).results[0]!;
      rmSync(join(ws.root, 'a.py'));
      assert.equal(spawnSync('mkfifo', [join(ws.root, 'a.py')]).status, 0);
      await assert.rejects(e.getChunk(hit.chunk_id), (err: SightlineError) => err.code === 'not_found' && /not a regular file/.test(err.message));
    });

    it('the walk says why it skips a FIFO and a file whose name is not valid UTF-8 (not silence, not ENOENT)', async () => {
      const ws = make({ 'a.py': 'def alpha():\n    return 1\n' });
      assert.equal(spawnSync('mkfifo', [join(ws.root, 'pipe.py')]).status, 0);
      writeFileSync(Buffer.concat([Buffer.from(`${ws.root}/bad`), Buffer.from([0xff, 0xfe]), Buffer.from('.py')]), 'def bad():\n    return 0\n');
      const e = await open(ws); cleanup.push(() => e.close());
      const r = await e.index();
      assert.equal(r.totals.files_parsed, 1);
      const codes = Object.fromEntries(r.diagnostics.map(d => [d.path, d.code]));
      assert.equal(codes['pipe.py'], 'not_a_file', JSON.stringify(r.diagnostics));
      const bad = r.diagnostics.find(d => d.path.startsWith('bad'))!;
      assert.equal(bad.code, 'invalid_file_name', JSON.stringify(r.diagnostics));
      assert.match(bad.message, /not valid UTF-8/);
    });

    it('a parser worker refuses a file swapped for a link out between the walk and the read', async () => {
      const ws = make({ 'a.py': 'def alpha():\n    return 1\n' });
      const outside = join(dirname(ws.root), 'secret.py');
      writeFileSync(outside, 'def secret():\n    return 42\n');
      rmSync(join(ws.root, 'a.py'));
      symlinkSync(outside, join(ws.root, 'a.py'));
      const out = await processFile({ root: ws.root, repo_id: 'r', abs: join(ws.root, 'a.py'), path: 'a.py', language: 'python', size: 10, mtime_ms: 0, known_hash: null, max_file_bytes: 1 << 20 });
      assert.equal(out.status, 'skipped');
      assert.equal(out.status === 'skipped' && out.diagnostics[0]!.code, 'outside_workspace');
    });

    it('the editor is not handed a file that now leads out of the root', async () => {
      const ws = make({ 'a.ts': 'export function alpha() { return 1; }\nexport function beta() { return alpha(); }\n' });
      const e = await open(ws); cleanup.push(() => e.close());
      await e.index();
      assert.ok((await e.enrichmentTargets({ symbol: 'alpha', limit: 5 })).length === 1);
      const outside = join(dirname(ws.root), 'secret.ts');
      writeFileSync(outside, 'export const s = 1;\n');
      rmSync(join(ws.root, 'a.ts'));
      symlinkSync(outside, join(ws.root, 'a.ts'));
      assert.deepEqual(await e.enrichmentTargets({ symbol: 'alpha', limit: 5 }), []);
    });
  });

  describe('the writer lock', () => {
    const writeLock = (ws: TempWorkspace, info: Record<string, unknown>, ageMs = 0) => {
      const lock = `${ws.db}.lock`;
      writeFileSync(lock, JSON.stringify(info));
      if (ageMs) ago(lock, ageMs);
      return lock;
    };

    it('a lock whose pid is alive but has no heartbeat (pid reused, a container restart) is reported stale and taken over', async () => {
      const ws = make({ 'a.py': 'def alpha():\n    return 1\n' });
      const e = await open(ws); cleanup.push(() => e.close());
      const since = Date.now() - 3_600_000;
      // process.ppid is alive and is not a Sightline writer
      const lock = writeLock(ws, { pid: process.ppid, host: hostname(), since }, 60_000);
      const s = await e.status();
      assert.equal(s.writer_active, false);
      assert.deepEqual({ ...s.writer, heartbeat_at: undefined }, { pid: process.ppid, host: hostname(), since: new Date(since).toISOString(), heartbeat_at: undefined, state: 'stale', this_process: false });
      const r = await e.index();
      assert.equal(r.totals.files_parsed, 1);
      assert.ok(!existsSync(lock));
      assert.equal((await e.status()).writer, null);
    });

    it('an empty lock file (a crash between creating and writing it, or a stray touch) does not hold writers off', async () => {
      const ws = make({ 'a.py': 'def alpha():\n    return 1\n' });
      const e = await open(ws); cleanup.push(() => e.close());
      const lock = `${ws.db}.lock`;
      writeFileSync(lock, '');
      ago(lock, 1000); // a second old: long past any writer's open-then-write
      const r = await e.index();
      assert.equal(r.totals.files_parsed, 1, 'taken over at once (it held writers off for seconds)');
      assert.ok(!existsSync(lock));
    });

    it('a lock of another host blocks while its heartbeat is fresh, and is taken over once it is stale', async () => {
      const ws = make({ 'a.py': 'def alpha():\n    return 1\n' });
      const e = await open(ws); cleanup.push(() => e.close());
      writeLock(ws, { pid: 4242, host: 'elsewhere.example', since: Date.now() - 5000 });
      await assert.rejects(e.index(), (err: SightlineError) => err.code === 'index_locked' && err.details?.holder_host === 'elsewhere.example' && err.details?.holder_pid === 4242);
      let s = await e.status();
      assert.equal(s.writer?.state, 'active');
      assert.equal(s.writer_active, true);
      writeLock(ws, { pid: 4242, host: 'elsewhere.example', since: Date.now() - 120_000 }, 31_000);
      s = await e.status();
      assert.equal(s.writer?.state, 'stale');
      assert.equal((await e.index()).totals.files_parsed, 1);
    });

    it('a lock with this process\'s pid that is not its own (a previous process with the same pid) is dead, not "in progress here"', async () => {
      const ws = make({ 'a.py': 'def alpha():\n    return 1\n' });
      const e = await open(ws); cleanup.push(() => e.close());
      writeLock(ws, { pid: process.pid, host: hostname(), since: Date.now() - 1000, token: 'from-a-previous-life' });
      assert.equal((await e.status()).writer?.state, 'dead');
      assert.equal((await e.index()).totals.files_parsed, 1);
    });

    it('the holder refreshes its heartbeat from a thread of its own, and a holder that lost its lock neither saves nor removes it', async () => {
      const ws = make({});
      const path = `${ws.db}.lock`;
      const a = new WriterLock(path, { heartbeatMs: 50 });
      a.acquire();
      try {
        const info = JSON.parse(readFileSync(path, 'utf8'));
        assert.equal(info.pid, process.pid);
        ago(path, 60_000);
        const t0 = Date.now();
        while (Date.now() - statSync(path).mtimeMs > 10_000) {
          assert.ok(Date.now() - t0 < 5000, 'the heartbeat refreshed the lock');
          await sleep(25);
        }
        // the main thread blocked: the heartbeat goes on
        ago(path, 60_000);
        const until = Date.now() + 400; while (Date.now() < until) { /* busy */ }
        await sleep(150);
        assert.ok(Date.now() - statSync(path).mtimeMs < 10_000);
        assert.deepEqual({ state: inspectLock(path)!.state, mine: inspectLock(path)!.this_process }, { state: 'active', mine: true });
        // another writer takes it over (as if this one had been judged stale)
        writeFileSync(path, JSON.stringify({ pid: 4242, host: 'elsewhere.example', since: Date.now(), token: 'theirs' }));
        assert.throws(() => a.assertHeld(), LockLostError);
      } finally { a.release(); }
      assert.equal(JSON.parse(readFileSync(path, 'utf8')).token, 'theirs', 'release leaves the other writer\'s lock');
    });
  });

  describe('temp files of interrupted saves', () => {
    const tmp = (ws: TempWorkspace, host: string | null, pid: number, ageMs = 0) => {
      const p = join(dirname(ws.db), `.${basename(ws.db)}.${host === null ? '' : `${host}.`}${pid}.${Date.now()}.tmp`);
      writeFileSync(p, Buffer.alloc(256 * 1024, 1));
      if (ageMs) ago(p, ageMs);
      return p;
    };

    it('a crash during a save leaves a full-size temp file, removed when the index is next opened', async () => {
      const ws = make({ 'a.py': 'def alpha():\n    return 1\n' });
      // a real process dies between writing its temp file and renaming it
      const script = `require('node:fs').fsyncSync = () => process.kill(process.pid, 'SIGKILL');
        require(${JSON.stringify(join(__dirname, '../src/core/store/persist'))}).atomicWrite(${JSON.stringify(ws.db)}, Buffer.alloc(1 << 20, 7));`;
      const child = spawnSync(process.execPath, ['-r', 'tsx/cjs', '-e', script], { cwd: join(__dirname, '..') });
      assert.equal(child.signal, 'SIGKILL');
      const left = readdirSync(dirname(ws.db)).filter(n => n.endsWith('.tmp'));
      assert.equal(left.length, 1);
      assert.equal(statSync(join(dirname(ws.db), left[0]!)).size, 1 << 20);
      const e = await open(ws); cleanup.push(() => e.close());
      assert.deepEqual(readdirSync(dirname(ws.db)).filter(n => n.endsWith('.tmp')), []);
    });

    it('only leftovers go: a live writer\'s fresh temp file stays until it is stale; earlier versions\' names are recognised', async () => {
      const ws = make({ 'a.py': 'def alpha():\n    return 1\n' });
      const dead = tmp(ws, HOST_TAG, deadPid());
      const legacy = tmp(ws, null, deadPid());
      const live = tmp(ws, HOST_TAG, process.ppid);
      const remote = tmp(ws, 'other-host', 77);
      const unrelated = join(dirname(ws.db), '.other.sqlite.1.2.tmp'); writeFileSync(unrelated, 'x');
      const e = await open(ws); cleanup.push(() => e.close());
      assert.deepEqual([dead, legacy, live, remote].map(existsSync), [false, false, true, true]);
      ago(live, 10 * 60_000); ago(remote, 10 * 60_000);
      await e.index(); // before its save
      assert.deepEqual([live, remote, unrelated].map(existsSync), [false, false, true]);
    });
  });

  describe('a file that is not a readable Sightline index', () => {
    /** Every file beside the index, with its bytes. */
    const folder = (db: string) => Object.fromEntries(readdirSync(dirname(db)).filter(n => n !== 'ws').map(n => [n, readFileSync(join(dirname(db), n)).toString('base64')]));
    const otherSqlite = async (withMeta: boolean) => {
      const SQL = await initSqlJs();
      const d = new SQL.Database();
      d.run(withMeta ? "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('schema_version', '8'); CREATE TABLE notes (x)" : 'CREATE TABLE t (x); INSERT INTO t VALUES (1)');
      const bytes = d.export(); d.close();
      return Buffer.from(bytes);
    };
    const truncatedIndex = async (ws: TempWorkspace, db: string) => {
      const e = await Engine.open({ roots: [ws.root], dbPath: db, threads: 0 });
      await e.index(); e.close();
      const size = statSync(db).size;
      truncateSync(db, Math.floor(size / 2 / 4096) * 4096);
    };

    it('given as --db (a text file, another application\'s SQLite database, a truncated index) it is refused with index_corrupt and left byte-identical', async () => {
      const ws = make(SAMPLE_FILES);
      const cases: [string, Buffer | null][] = [['text', Buffer.from('this is not sqlite\n')], ['sqlite', await otherSqlite(false)], ['sqlite with a meta table', await otherSqlite(true)], ['truncated', null]];
      for (const [what, bytes] of cases) {
        if (bytes) writeFileSync(ws.db, bytes); else { rmSync(ws.db, { force: true }); await truncatedIndex(ws, ws.db); }
        const before = folder(ws.db);
        await assert.rejects(open(ws), (err: SightlineError) => {
          assert.equal(err.code, 'index_corrupt', what);
          assert.equal(err.details?.db_path, ws.db);
          assert.match(String(err.details?.reason), what === 'truncated' ? /truncated/ : /not an SQLite database|another application|without the tables/);
          return true;
        }, what);
        // `--db FILE` alone (the roots it records): refused the same way
        await assert.rejects(Engine.open({ roots: [], dbPath: ws.db }), (err: SightlineError) => err.code === 'index_corrupt', what);
        assert.deepEqual(folder(ws.db), before, `${what}: the file and its folder are untouched`);
      }
    });

    it('an index of an earlier schema version given as --db is still rebuilt (it is a Sightline index)', async () => {
      const ws = make(SAMPLE_FILES);
      const e = await open(ws); await e.index(); e.close();
      const SQL = await initSqlJs();
      const d = new SQL.Database(readFileSync(ws.db));
      d.run("UPDATE meta SET value = '7' WHERE key = 'schema_version'"); d.run('PRAGMA application_id = 0');
      writeFileSync(ws.db, d.export()); d.close();
      const again = await open(ws); cleanup.push(() => again.close());
      assert.equal(again.rebuiltFromScratch, true);
      assert.equal((await again.index()).totals.files_parsed, 5);
    });

    it('in the cache folder a corrupt index is rebuilt, with a diagnostic saying so until the rebuild', async () => {
      const ws = make(SAMPLE_FILES);
      const prev = process.env.SIGHTLINE_CACHE_DIR;
      process.env.SIGHTLINE_CACHE_DIR = join(dirname(ws.db), 'cache');
      cleanup.push(() => { if (prev === undefined) delete process.env.SIGHTLINE_CACHE_DIR; else process.env.SIGHTLINE_CACHE_DIR = prev; });
      const db = defaultDbPath([ws.root]);
      mkdirSync(dirname(db), { recursive: true });
      await truncatedIndex(ws, db);
      const e = await Engine.open({ roots: [ws.root], threads: 0 }); cleanup.push(() => e.close());
      assert.equal(e.dbPath, db);
      assert.equal(e.rebuiltFromScratch, true);
      const diag = e.diagnostics().find(d => d.code === 'index_corrupt');
      assert.match(diag?.message ?? '', /corrupt \(truncated: \d+ of \d+ bytes\); the index is empty until the next index run rebuilds it/);
      assert.equal((await e.status()).diagnostics_count, 1);
      const r = await e.index();
      assert.ok(r.diagnostics.some(d => d.code === 'index_corrupt'), 'the run that rebuilds it says why');
      assert.equal(r.totals.files_parsed, 5);
      assert.ok(!e.diagnostics().some(d => d.code === 'index_corrupt'));
      const reopened = await Engine.open({ roots: [ws.root], threads: 0 }); cleanup.push(() => reopened.close());
      assert.equal(reopened.rebuiltFromScratch, false);
      assert.equal((await reopened.status()).file_count, 5);
    });

    it('the CLI refuses it (exit 1, index_corrupt) for index, search and status, and leaves it byte-identical', async () => {
      requireBuilt();
      const ws = make(SAMPLE_FILES);
      for (const bytes of [Buffer.from('{"not": "an index"}\n'), await otherSqlite(false)]) {
        writeFileSync(ws.db, bytes);
        const before = folder(ws.db);
        for (const args of [['index', ws.root, '--db', ws.db, '--json'], ['search', 'user', '--db', ws.db], ['status', '--db', ws.db, '-w', ws.root]]) {
          const r = spawnSync(process.execPath, [CLI_JS, ...args], { encoding: 'utf8', timeout: 60000 });
          assert.equal(r.status, 1, `${args[0]}: ${r.stderr}`);
          assert.match(r.stderr, /is not a readable Sightline index: .*left untouched.*\(index_corrupt\)/);
          if (args.includes('--json')) assert.equal(JSON.parse(r.stdout).error.code, 'index_corrupt');
          assert.deepEqual(folder(ws.db), before, `${args[0]} left the file and its folder untouched`);
        }
      }
    });
  });

  describe('MCP transports', () => {
    it('HTTP sessions expire after the idle timeout; a session in use does not', async function () {
      requireBuilt();
      const ws = make({ 'a.py': 'def alpha():\n    return 1\n' });
      const server = await startHttpServer(['--workspace', ws.root, '--db', ws.db, '--idle-timeout', '0.8']);
      cleanup.push(() => { void server.stop(); });
      const session = async () => {
        const init = await rawPost(server.url, INITIALIZE_REQUEST);
        assert.equal(init.status, 200, init.body);
        const hdrs = { 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' };
        assert.equal((await rawPost(server.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, hdrs)).status, 202);
        return hdrs;
      };
      const list = (hdrs: Record<string, string>, id: number) => rawPost(server.url, { jsonrpc: '2.0', id, method: 'tools/list', params: {} }, hdrs);
      const idle = await session();
      const busy = await session();
      assert.equal((await list(idle, 2)).status, 200);
      const until = Date.now() + 2000;
      for (let id = 3; Date.now() < until; id++) { assert.equal((await list(busy, id)).status, 200, 'a session in use stays'); await sleep(200); }
      const expired = await list(idle, 99);
      assert.equal(expired.status, 404, expired.body);
      assert.match(expired.body, /expired after being idle/);
      assert.equal((await list(busy, 100)).status, 200);
    });

    it('a stdio message over the transport limit is logged and answered with a JSON-RPC error; the server goes on', async function () {
      requireBuilt();
      const ws = make({ 'a.py': 'def alpha():\n    return 1\n' });
      const child = spawn(process.execPath, [MCP_JS, '--workspace', ws.root, '--db', ws.db], { stdio: ['pipe', 'pipe', 'pipe'] });
      cleanup.push(() => { try { child.kill('SIGKILL'); } catch { /* gone */ } });
      let out = ''; let err = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => { out += d; });
      child.stderr!.setEncoding('utf8').on('data', (d: string) => { err += d; });
      const answer = async (id: number | null, skip = 0) => {
        const end = Date.now() + 20_000;
        for (;;) {
          const msgs = out.split('\n').filter(Boolean).map(l => JSON.parse(l) as { id?: number | null; result?: unknown; error?: { code: number; message: string } });
          const hit = msgs.filter(m => 'id' in m && m.id === id)[skip];
          if (hit) return hit;
          assert.ok(child.exitCode === null, `the server exited (${child.exitCode}); stderr:\n${err}`);
          assert.ok(Date.now() < end, `no answer to ${id}; stderr:\n${err}`);
          await sleep(20);
        }
      };
      const send = (m: unknown) => child.stdin!.write(JSON.stringify(m) + '\n');
      send(INITIALIZE_REQUEST);
      await answer(1);
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      // 11 MiB, the id last (as the SDK client writes it)
      const big = `{"method":"tools/call","params":{"name":"search_code","arguments":{"query":"${'x'.repeat(11 * 1024 * 1024)}"}},"jsonrpc":"2.0","id":7}\n`;
      child.stdin!.write(big);
      const rejected = await answer(7);
      assert.equal(rejected.error?.code, -32600);
      assert.match(rejected.error?.message ?? '', /over the 10485760-byte limit/);
      child.stdin!.write('{not json\n');
      assert.equal((await answer(null)).error?.code, -32700);
      send({ jsonrpc: '2.0', id: 8, method: 'tools/list', params: {} });
      const listed = await answer(8);
      assert.ok((listed.result as { tools: unknown[] }).tools.length > 0, 'the server still serves');
      assert.match(err, /a message of \d+ bytes is over the 10485760-byte limit of the stdio transport; it was dropped \(request id 7\)/);
    });
  });

  describe('files changed on disk since indexing', () => {
    type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const call = async (e: Engine, tool: keyof typeof TOOLS, args: Json = {}): Promise<Json> => {
      const out = await invokeTool(TOOLS[tool] as never, args, { engine: e });
      assert.ok(out.ok, JSON.stringify(out));
      return out.data as Json;
    };
    const FILES = {
      'pkg/model.py': 'class Model:\n    def save(self):\n        return 1\n',
      'pkg/service.py': 'from pkg.model import Model\n\ndef serve():\n    return Model().save()\n',
      'pkg/other.py': 'def other():\n    return 2\n',
    };
    const bump = (path: string) => { const t = new Date(Date.now() + 5000); utimesSync(path, t, t); };

    it('index_status lists modified, added and removed files (the indexer\'s size/mtime pre-filter), capped, and is clear after re-indexing', async () => {
      const ws = make(FILES);
      const e = await open(ws); cleanup.push(() => e.close());
      await e.index();
      let s = await call(e, 'index_status');
      assert.deepEqual(s.changed_since_index, { count: 0, complete: true, files: [], truncated: false });
      ws.write('pkg/service.py', FILES['pkg/service.py'] + '\n# edited\n');
      ws.write('pkg/new.py', 'def fresh():\n    return 3\n');
      rmSync(join(ws.root, 'pkg/other.py'));
      bump(join(ws.root, 'pkg/model.py')); // touched, same content: the pre-filter counts it, as index_repo would re-read it
      s = await call(e, 'index_status');
      const root = e.roots[0]!.repo_id;
      assert.equal(s.dirty, null, 'no git: dirty stays unknown');
      assert.equal(s.changed_since_index.count, 4);
      assert.deepEqual(new Set(s.changed_since_index.files.map((f: Json) => `${f.change} ${f.path}`)), new Set(['modified pkg/model.py', 'added pkg/new.py', 'modified pkg/service.py', 'removed pkg/other.py']));
      assert.ok(s.changed_since_index.files.every((f: Json) => f.repo_id === root));
      assert.equal(s.roots[0].changed_files, 4);
      assert.match((await invokeTool(TOOLS.index_status as never, {}, { engine: e }) as { markdown: string }).markdown, /4 file\(s\) changed on disk since indexing/);
      for (let i = 0; i < 25; i++) ws.write(`gen/m${i}.py`, `def f${i}():\n    return ${i}\n`);
      s = await call(e, 'index_status');
      assert.equal(s.changed_since_index.count, 29);
      assert.equal(s.changed_since_index.files.length, 20);
      assert.equal(s.changed_since_index.truncated, true);
      await e.index();
      s = await call(e, 'index_status');
      assert.deepEqual(s.changed_since_index, { count: 0, complete: true, files: [], truncated: false });
      // the check is bounded: out of budget it says so instead of guessing what is gone
      const partial = await e.changedSinceIndex({ budgetMs: 0 });
      assert.equal(partial.complete, false);
    });

    it('graph answers about a target in a changed file (or with other changed files) carry a stale_files boundary', async () => {
      const ws = make(FILES);
      const e = await open(ws); cleanup.push(() => e.close());
      await e.index();
      const boundaries = async (tool: 'find_references' | 'impact' | 'related_tests', symbol: string) =>
        ((await call(e, tool, { symbol })).boundaries as { kind: string; detail: string }[]).filter(b => b.kind === 'stale_files');
      for (const tool of ['find_references', 'impact', 'related_tests'] as const) assert.deepEqual(await boundaries(tool, 'Model.save'), [], tool);
      ws.write('pkg/model.py', FILES['pkg/model.py'] + '    def load(self):\n        return 2\n');
      for (const tool of ['find_references', 'impact', 'related_tests'] as const) {
        const b = await boundaries(tool, 'Model.save');
        assert.equal(b.length, 1, tool);
        assert.match(b[0]!.detail, /the target's file changed on disk since it was indexed \(pkg\/model\.py\)/);
        const out = await call(e, tool, { symbol: 'Model.save' });
        assert.equal(out.complete, false);
      }
      // a target whose own file is unchanged still hears that other files changed (callers may be missing)
      const other = await boundaries('find_references', 'other');
      assert.equal(other.length, 1);
      assert.match(other[0]!.detail, /1 other indexed file\(s\) of .* changed on disk since indexing \(pkg\/model\.py\)/);
      await e.index();
      assert.deepEqual(await boundaries('find_references', 'Model.save'), []);
    });

    it('a file whose mtime alone changed (a fresh checkout, an imported index) is not stale when its content hash is the indexed one', async () => {
      const ws = make(FILES);
      const e = await open(ws); cleanup.push(() => e.close());
      await e.index();
      const stale = async () => ((await call(e, 'impact', { symbol: 'Model.save' })).boundaries as { kind: string; detail: string }[]).filter(b => b.kind === 'stale_files');
      for (const p of Object.keys(FILES)) bump(join(ws.root, p));
      assert.deepEqual(await stale(), []);
      assert.deepEqual(e.staleIndexedFiles(e.roots[0]!.repo_id), { paths: [], complete: true });
      // once checked, index_status does not count them either
      assert.equal((await call(e, 'index_status')).changed_since_index.count, 0);
      // same size, new content, new mtime: stale
      ws.write('pkg/other.py', FILES['pkg/other.py'].replace('2', '3'));
      bump(join(ws.root, 'pkg/other.py'));
      const b = await stale();
      assert.equal(b.length, 1);
      assert.match(b[0]!.detail, /1 other indexed file\(s\) .*\(pkg\/other\.py\)/);
    });
  });
});
