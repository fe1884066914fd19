/**
 * End-to-end tests of the `sightline` command: the built dist/cli.js runs as a real child process on a
 * temporary workspace (needs `npm run build`). Checks stdout JSON, stderr messages and exit codes.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempWorkspace, SAMPLE_FILES, type TempWorkspace } from './helpers/workspace';
import { CLI_JS, requireBuilt } from './helpers/mcp';
import { TOOL_NAMES, TOOLS } from '../src/core/tools/registry';
import { searchCodeOutput } from '../src/core/tools/search_code';

/** Fixture files Sightline indexes: its sources, and README.md as a doc. */
const SOURCE_FILES = Object.keys(SAMPLE_FILES);

interface Run { status: number | null; stdout: string; stderr: string }

function cli(args: string[], cwd?: string): Run {
  const r = spawnSync(process.execPath, [CLI_JS, ...args], { encoding: 'utf8', cwd, timeout: 60000, env: { ...process.env, NO_COLOR: '1' } });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function json<T = Record<string, unknown>>(r: Run): T {
  try { return JSON.parse(r.stdout) as T; } catch (e) { throw new Error(`stdout is not JSON (${(e as Error).message}):\n${r.stdout}\nstderr:\n${r.stderr}`); }
}

function ok(r: Run): Run {
  assert.equal(r.status, 0, `exit ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return r;
}

interface Totals { files_seen: number; files_parsed: number; files_unchanged: number; files_deleted: number; files_skipped: number }
interface Hit { chunk_id: string; path?: string; symbol_path: string | null; start_line: number; end_line: number }

describe('sightline CLI (dist/cli.js)', function () {
  this.timeout(60000);
  let ws: TempWorkspace;

  before(() => {
    requireBuilt();
    ws = tempWorkspace(SAMPLE_FILES);
  });
  after(() => ws?.remove());

  it('index DIR --db F --json indexes every supported source file', () => {
    const r = ok(cli(['index', ws.root, '--db', ws.db, '--json']));
    const data = json<{ totals: Totals; db_path: string; repos: { root: string }[] }>(r);
    assert.equal(data.totals.files_parsed, SOURCE_FILES.length);
    assert.equal(data.totals.files_seen, SOURCE_FILES.length);
    assert.equal(data.totals.files_unchanged, 0);
    assert.equal(data.db_path, ws.db);
    assert.deepEqual(data.repos.map(x => x.root), [ws.root]);
    assert.ok(existsSync(ws.db), 'the index file was written where --db says');
  });

  it('index runs the bundled TypeScript service and pyright afterwards (not with --no-compiler-edges)', () => {
    const own = tempWorkspace({ 'src/pay.py': 'def pay(o):\n    return o\n\ndef run():\n    return pay(1)\n', 'web/a.ts': 'export const a = () => 1;\n' });
    try {
      const servers = () => json<{ roots: { language_servers: { provider: string; symbols_current: number }[] }[] }>(
        ok(cli(['status', '--db', own.db, '--json']))).roots[0]!.language_servers.map(l => `${l.provider}:${l.symbols_current}`).sort();
      const off = ok(cli(['index', own.root, '--db', own.db, '--json', '--no-compiler-edges']));
      assert.doesNotMatch(off.stderr, /compiler-grade edges/);
      assert.deepEqual(servers(), []);
      const on = ok(cli(['index', own.root, '--db', own.db, '--json']));
      assert.match(on.stderr, /compiler-grade edges: python on .* started/);
      assert.deepEqual(servers(), ['python:2', 'typescript:1']);
      const again = ok(cli(['index', own.root, '--db', own.db, '--json']));
      assert.doesNotMatch(again.stderr, /compiler-grade edges/, 'nothing unchecked: nothing runs');
    } finally { own.remove(); }
  });

  it('a second index run re-parses nothing', () => {
    const data = json<{ totals: Totals }>(ok(cli(['index', ws.root, '--db', ws.db, '--json'])));
    assert.equal(data.totals.files_parsed, 0);
    assert.ok(data.totals.files_unchanged > 0);
    assert.equal(data.totals.files_unchanged, SOURCE_FILES.length);
  });

  it('search QUERY --json puts the expected file first', () => {
    const users = json<{ results: Hit[] }>(ok(cli(['search', 'getUserName', '--db', ws.db, '--json', '--group', 'chunk'])));
    assert.ok(Array.isArray(users.results) && users.results.length > 0);
    assert.equal(users.results[0]!.path, 'src/users.ts');
    assert.equal(users.results[0]!.symbol_path, 'UserService.getUserName');
    const retry = json<{ results: Hit[] }>(ok(cli(['search', 'retry', 'payment', '--db', ws.db, '--json', '--group', 'chunk'])));
    assert.equal(retry.results[0]!.path, 'src/payments/retry.py');
  });

  it('search marks a listed file that changed on disk since indexing, and says so', () => {
    const own = tempWorkspace({ 'src/pay.py': 'def retry_failed_payment(order):\n    return order\n', 'src/other.py': 'def unrelated():\n    return 1\n' });
    try {
      ok(cli(['index', own.root, '--db', own.db, '--json', '--no-compiler-edges']));
      const fresh = json<{ files: { path: string; changed_on_disk?: boolean }[]; warnings: string[] }>(ok(cli(['search', 'retry', 'payment', '--db', own.db, '--json'])));
      assert.equal(fresh.files[0]!.path, 'src/pay.py');
      assert.equal(fresh.files[0]!.changed_on_disk, undefined);
      assert.ok(!fresh.warnings.some(w => /changed on disk/.test(w)));
      writeFileSync(join(own.root, 'src/pay.py'), 'def retry_failed_payment(order):\n    return order\n\ndef refund_payment(order):\n    return None\n');
      const after = json<{ files: { path: string; changed_on_disk?: boolean }[]; warnings: string[] }>(ok(cli(['search', 'retry', 'payment', '--db', own.db, '--json'])));
      assert.equal(after.files[0]!.changed_on_disk, true);
      assert.ok(after.warnings.some(w => /1 listed file\(s\) changed on disk since indexing \(src\/pay\.py\)/.test(w)), after.warnings.join('\n'));
      assert.match(ok(cli(['search', 'retry', 'payment', '--db', own.db])).stdout, /changed on disk/);
      // a function appended since indexing is in no listed file: the answer still says what changed
      const missing = json<{ files: unknown[]; warnings: string[] }>(ok(cli(['search', 'refund', '--db', own.db, '--json'])));
      assert.equal(missing.files.length, 0);
      assert.ok(missing.warnings.some(w => /1 indexed file\(s\) changed on disk since indexing \(src\/pay\.py\)/.test(w)), missing.warnings.join('\n'));
    } finally { own.remove(); }
  });

  it('search honours --limit and --language', () => {
    const data = json<{ files: { path: string; chunks: Hit[] }[]; results: Hit[]; limit: number }>(ok(cli(['search', 'name', '--db', ws.db, '--json', '--limit', '1'])));
    assert.equal(data.files.length, 1, 'limit counts files');
    assert.ok(data.files[0]!.chunks.length > 0 && data.files[0]!.chunks.every(h => h.path === undefined), 'the chunks listed under a file do not repeat its path');
    assert.deepEqual(data.results, [], 'group=file: the chunks are in their files, not repeated');
    assert.equal(data.limit, 1);
    const chunks = json<{ files: unknown[]; results: Hit[] }>(ok(cli(['search', 'name', '--db', ws.db, '--json', '--limit', '1', '--group', 'chunk'])));
    assert.equal(chunks.results.length, 1);
    assert.equal(chunks.files.length, 0);
    const py = json<{ results: Hit[] }>(ok(cli(['search', 'retry', '--language', 'python', '--db', ws.db, '--json', '--group', 'chunk'])));
    assert.ok(py.results.length > 0);
    assert.ok(py.results.every(h => h.path!.endsWith('.py')), JSON.stringify(py.results.map(h => h.path)));
  });

  it('search without --json prints Markdown naming the file', () => {
    const r = ok(cli(['search', 'getUserName', '--db', ws.db]));
    assert.match(r.stdout, /\*\*search_code\*\*/);
    assert.ok(r.stdout.includes('src/users.ts'));
    assert.throws(() => JSON.parse(r.stdout));
  });

  it('call search_code --args JSON prints the structured result', () => {
    const r = ok(cli(['call', 'search_code', '--args', '{"query":"retry payment","group":"chunk"}', '--db', ws.db]));
    const data = json<{ query: string; results: Hit[] }>(r);
    assert.doesNotThrow(() => searchCodeOutput.strict().parse(data));
    assert.equal(data.query, 'retry payment');
    assert.equal(data.results[0]!.path, 'src/payments/retry.py');
  });

  it('call get_chunk returns the real lines of a search hit', () => {
    const hit = json<{ results: Hit[] }>(ok(cli(['search', 'getUserName', '--db', ws.db, '--json', '--group', 'chunk']))).results[0]!;
    const data = json<{ text: string; path: string; start_line: number; end_line: number }>(ok(cli(['call', 'get_chunk', '--args', JSON.stringify({ chunk_id: hit.chunk_id }), '--db', ws.db])));
    const lines = readFileSync(join(ws.root, hit.path!), 'utf8').split('\n').slice(data.start_line - 1, data.end_line).join('\n');
    assert.equal(data.path, hit.path);
    assert.equal(data.text, lines);
    assert.ok(data.text.includes('getUserName'));
  });

  it('call with --args that is not JSON is a usage error (exit 2)', () => {
    const r = cli(['call', 'search_code', '--args', 'not json', '--db', ws.db]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /--args is not valid JSON/);
  });

  it('call get_chunk with an unknown id exits 1 with an error JSON on stdout', () => {
    const r = cli(['call', 'get_chunk', '--args', '{"chunk_id":"nope"}', '--db', ws.db]);
    assert.equal(r.status, 1, r.stderr);
    const e = json<{ error: { code: string; message: string } }>(r);
    assert.equal(e.error.code, 'not_found');
    assert.ok(e.error.message.includes('nope'));
    assert.match(r.stderr, /not_found/);
  });

  it('call with invalid arguments exits 2 with invalid_arguments', () => {
    const r = cli(['call', 'search_code', '--args', '{"query":"x","limit":"ten"}', '--db', ws.db]);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(json<{ error: { code: string } }>(r).error.code, 'invalid_arguments');
  });

  it('--untrusted-workspace wins over --allow-reference-providers: no provider command runs, and it says why', () => {
    const marker = join(ws.root, 'provider-ran');
    const provider = { name: 'evil', command: process.execPath, args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x'); process.stdout.write('{"edges":[]}')`] };
    const args = JSON.stringify({ reference_providers: [provider] });
    const r = cli(['call', 'index_repo', '--args', args, '--db', ws.db, '--workspace', ws.root, '--allow-reference-providers', '--untrusted-workspace']);
    assert.equal(json<{ error: { code: string } }>(r).error.code, 'providers_not_allowed', r.stderr);
    assert.match(r.stderr, /--allow-reference-providers is ignored: the workspace is untrusted/);
    assert.ok(!existsSync(marker), 'the provider command ran');
  });

  it('call with a repo outside the workspace exits 2 with path_outside_workspace', () => {
    const r = cli(['call', 'search_code', '--args', '{"query":"x","repo":"/etc"}', '--db', ws.db]);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(json<{ error: { code: string } }>(r).error.code, 'path_outside_workspace');
  });

  it('call with an unknown tool is a usage error (exit 2)', () => {
    const r = cli(['call', 'no_such_tool', '--args', '{}', '--db', ws.db]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /unknown tool no_such_tool/);
  });

  it('status --db F --json reports file_count', () => {
    const data = json<{ file_count: number; db_path: string; roots: { path: string }[] }>(ok(cli(['status', '--db', ws.db, '--json'])));
    assert.equal(data.file_count, SOURCE_FILES.length);
    assert.equal(data.db_path, ws.db);
    assert.deepEqual(data.roots.map(r => r.path), [ws.root], 'roots are read back from the index file');
  });

  it('an unknown command exits 2 with usage on stderr', () => {
    const r = cli(['frobnicate']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /unknown command frobnicate/);
    assert.match(r.stderr, /usage:/);
    assert.equal(r.stdout, '');
  });

  it('an unknown option exits 2', () => {
    const r = cli(['status', '--db', ws.db, '--no-such-option']);
    assert.equal(r.status, 2, r.stderr);
  });

  it('tools --json lists the registry tools with schemas', () => {
    const list = json<{ name: string; annotations: { read_only: boolean }; input_schema: { type: string }; output_schema: { type: string } }[]>(ok(cli(['tools', '--json'])));
    assert.deepEqual(list.map(t => t.name), [...TOOL_NAMES]);
    for (const t of list) {
      assert.equal(t.input_schema.type, 'object');
      assert.equal(t.output_schema.type, 'object');
      assert.equal(t.annotations.read_only, TOOLS[t.name as keyof typeof TOOLS].annotations.read_only);
    }
    const plain = ok(cli(['tools']));
    for (const n of TOOL_NAMES) assert.match(plain.stdout, new RegExp(`^${n}\\b`, 'm'));
  });
});

describe('sightline CLI incremental indexing', function () {
  this.timeout(60000);
  let ws: TempWorkspace;

  before(() => {
    requireBuilt();
    ws = tempWorkspace(SAMPLE_FILES);
  });
  after(() => ws?.remove());

  it('re-parses an edited file, drops a deleted one, and search follows', () => {
    ok(cli(['index', ws.root, '--db', ws.db, '--json']));
    ws.write('src/db.ts', SAMPLE_FILES['src/db.ts'] + 'export function reconcileLedgerBalance() { return 0; }\n');
    rmSync(join(ws.root, 'cmd/main.go'));
    const data = json<{ totals: Totals }>(ok(cli(['index', ws.root, '--db', ws.db, '--json'])));
    assert.equal(data.totals.files_parsed, 1);
    assert.equal(data.totals.files_deleted, 1);
    assert.equal(data.totals.files_unchanged, SOURCE_FILES.length - 2);
    const hits = json<{ results: Hit[] }>(ok(cli(['search', 'reconcileLedgerBalance', '--db', ws.db, '--json', '--group', 'chunk']))).results;
    assert.equal(hits[0]?.path, 'src/db.ts');
    assert.equal(hits[0]?.symbol_path, 'reconcileLedgerBalance');
    const status = json<{ file_count: number }>(ok(cli(['status', '--db', ws.db, '--json'])));
    assert.equal(status.file_count, SOURCE_FILES.length - 1);
    const go = json<{ results: Hit[] }>(ok(cli(['search', 'Worker', '--language', 'go', '--db', ws.db, '--json', '--group', 'chunk']))).results;
    assert.deepEqual(go, []);
  });

  it('--force re-parses everything', () => {
    const data = json<{ totals: Totals; repos: { forced: boolean }[] }>(ok(cli(['index', ws.root, '--db', ws.db, '--json', '--force'])));
    assert.equal(data.totals.files_parsed, SOURCE_FILES.length - 1);
    assert.equal(data.repos[0]!.forced, true);
  });
});

describe('sightline CLI: history and the change loop (dist/cli.js, a real git repository)', function () {
  this.timeout(60000);
  let ws: TempWorkspace;
  before(() => {
    requireBuilt();
    ws = tempWorkspace(SAMPLE_FILES);
    ws.git('init', '-q', '-b', 'main', '.');
    ws.git('add', '-A'); ws.git('-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'first');
    ws.write('src/users.ts', readFileSync(join(ws.root, 'src/users.ts'), 'utf8').replace('return this.lookup(id).name;', 'return this.lookup(id).name.trim();'));
    ws.git('add', '-A'); ws.git('-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'trim names');
    ok(cli(['index', ws.root, '--db', ws.db, '--json']));
  });
  after(() => ws?.remove());

  it('history PATH and history SYMBOL', () => {
    const file = json<{ churn: number; commits: { subject: string }[] }>(ok(cli(['history', 'src/users.ts', '--db', ws.db, '--workspace', ws.root, '--json'])));
    assert.equal(file.churn, 2);
    const sym = json<{ commits: { subject: string }[] }>(ok(cli(['history', 'UserService.getUserName', '--db', ws.db, '--workspace', ws.root, '--json'])));
    assert.deepEqual(sym.commits.map(c => c.subject), ['trim names', 'first']);
    assert.match(ok(cli(['history', 'src/users.ts', '--db', ws.db, '--workspace', ws.root])).stdout, /\*\*history\*\* of `src\/users.ts`/);
  });

  it('post-change --diff FILE and --diff - (stdin)', () => {
    const diff = ws.git('show', '--format=', 'HEAD');
    const f = join(ws.root, '..', 'change.diff'); writeFileSync(f, diff);
    const a = json<{ changed_symbols: string[] }>(ok(cli(['post-change', '--diff', f, '--db', ws.db, '--workspace', ws.root, '--json'])));
    assert.ok(a.changed_symbols.some(s => s.endsWith(':UserService.getUserName')));
    const r = spawnSync(process.execPath, [CLI_JS, 'post-change', '--diff', '-', '--db', ws.db, '--workspace', ws.root, '--json'], { input: diff, encoding: 'utf8', timeout: 60000 });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).changed_symbols, a.changed_symbols);
    assert.equal(cli(['post-change', '--db', ws.db, '--workspace', ws.root]).status, 2, 'no --diff: usage error');
  });

  it('context-for-change --base REF', () => {
    const data = json<{ changed: { id: string }[]; repositories: { diffed: boolean }[] }>(ok(cli(['context-for-change', '--base', 'HEAD~1', '--db', ws.db, '--workspace', ws.root, '--json'])));
    assert.ok(data.changed.some(c => c.id.endsWith(':UserService.getUserName')));
    assert.deepEqual(data.repositories.map(r => r.diffed), [true]);
    // a ref no repository has is an error, not an empty context
    const missing = cli(['context-for-change', '--base', 'no-such-ref', '--db', ws.db, '--workspace', ws.root, '--json']);
    assert.equal(missing.status, 2, missing.stdout + missing.stderr);
    assert.equal(json<{ error: { code: string } }>(missing).error.code, 'invalid_arguments');
  });
});
