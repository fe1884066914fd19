/**
 * First-party reference providers (`sightline provider …`), run as real child processes of the built
 * dist/cli.js (needs `npm run build`) with protocol JSON on stdin, on small fixture projects:
 *   - test/fixtures/adapters/ts-project: a renamed import alias (`connect as openDb`), a method call
 *     through an interface (`this.store.find`), `new`, `super.find`, implements/extends, a function
 *     passed as a value;
 *   - test/fixtures/adapters/py-project: a class, methods, callers in other modules through
 *     `from x import y as z` and `import m as n`, a base class through an alias.
 * The input symbols come from Sightline's own extractor, so ids and ranges are the ones the index has.
 * The TypeScript adapter uses the real TypeScript language service, the Python adapter a real pyright
 * language server, and the SCIP adapter an index written here by @sourcegraph/scip-typescript.
 */
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { CLI_JS, requireBuilt } from './helpers/mcp';
import { extractSource } from '../src/core/parse/extract';
import { languageForPath } from '../src/core/languages';
import { parseScipIndex, parseScipSymbol, scipSymbolName, SYMBOL_ROLE_DEFINITION } from '../src/core/providers/adapters/scip';

const FIXTURES = join(__dirname, 'fixtures', 'adapters');
const TS_PROJECT = join(FIXTURES, 'ts-project');
const PY_PROJECT = join(FIXTURES, 'py-project');
const REPO_ID = 'fixture-0123abcd';

interface Sym { id: string; path: string; name: string; symbol_path: string; kind: string; language: string; start_line: number; start_col: number; end_line: number; end_col: number }
interface Edge { from_id: string; to_id: string; kind: string; confidence: number; evidence: string }
interface Output { edges: Edge[]; diagnostics: string[] }
interface Run { status: number | null; stdout: string; stderr: string; ms: number }

function filesUnder(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir).sort()) {
      if (e === 'node_modules' || e.startsWith('.')) continue;
      const p = join(dir, e);
      if (statSync(p).isDirectory()) walk(p); else out.push(relative(root, p).split('\\').join('/'));
    }
  };
  walk(root);
  return out;
}

/** The protocol input Sightline would send for `root`: every definition its extractor finds. */
async function buildInput(root: string, provider: string): Promise<{ input: Record<string, unknown>; symbols: Sym[] }> {
  const symbols: Sym[] = [];
  const chunks: unknown[] = [];
  for (const rel of filesUnder(root)) {
    const language = languageForPath(rel);
    if (!language) continue;
    const ex = await extractSource(language, readFileSync(join(root, rel), 'utf8'));
    for (const d of ex.definitions) {
      symbols.push({ id: `symbol:${REPO_ID}:${rel}:${d.symbol_path}`, path: rel, name: d.name, symbol_path: d.symbol_path, kind: d.kind, language,
        start_line: d.start_line, start_col: d.start_col, end_line: d.end_line, end_col: d.end_col });
    }
    for (const c of ex.chunks) chunks.push({ id: `chunk:${REPO_ID}:${rel}:${c.key}`, path: rel, language, start_line: c.start_line, end_line: c.end_line, symbol_path: c.symbol_path, kind: c.kind });
  }
  return { input: { protocol_version: 1, repo: root, repo_id: REPO_ID, provider, compiler_grade: true, symbols, chunks }, symbols };
}

function run(cli: string, args: string[], stdin: string, env: NodeJS.ProcessEnv = process.env, timeoutMs = 110000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = ''; let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString('utf8'); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString('utf8'); });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', status => { clearTimeout(timer); resolve({ status, stdout, stderr, ms: Date.now() - started }); });
    child.stdin.on('error', () => undefined);
    child.stdin.end(stdin);
  });
}

const provider = (name: string, input: unknown, extra: string[] = [], env?: NodeJS.ProcessEnv) =>
  run(CLI_JS, ['provider', name, ...extra], JSON.stringify(input), env);

function output(r: Run): Output {
  assert.equal(r.status, 0, `exit ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  try { return JSON.parse(r.stdout) as Output; } catch (e) { throw new Error(`stdout is not JSON (${(e as Error).message}):\n${r.stdout}\nstderr:\n${r.stderr}`); }
}

/** Checks the protocol rules every provider must keep; returns edges as `from kind to` (path:symbol_path). */
function checkEdges(out: Output, symbols: Sym[], tool: RegExp): Map<string, Edge> {
  const byId = new Map(symbols.map(s => [s.id, s]));
  const named = new Map<string, Edge>();
  const seen = new Set<string>();
  for (const e of out.edges) {
    const from = byId.get(e.from_id); const to = byId.get(e.to_id);
    assert.ok(from, `from_id ${e.from_id} is not an input symbol`);
    assert.ok(to, `to_id ${e.to_id} is not an input symbol`);
    assert.ok(['calls', 'references', 'implements', 'extends'].includes(e.kind), `bad kind ${e.kind}`);
    assert.equal(e.confidence, 1);
    assert.match(e.evidence, tool);
    assert.ok(e.evidence.includes(from.symbol_path) && e.evidence.includes(to.symbol_path), `evidence names both ends: ${e.evidence}`);
    const key = `${e.from_id}|${e.to_id}|${e.kind}`;
    assert.ok(!seen.has(key), `duplicate edge ${key}`);
    seen.add(key);
    named.set(`${from.path}:${from.symbol_path} ${e.kind} ${to.path}:${to.symbol_path}`, e);
  }
  return named;
}

function expectEdges(edges: Map<string, Edge>, expected: string[], absent: string[] = []): void {
  const missing = expected.filter(e => !edges.has(e));
  assert.deepEqual(missing, [], `missing edges; got:\n  ${[...edges.keys()].join('\n  ')}`);
  const unexpected = absent.filter(e => edges.has(e));
  assert.deepEqual(unexpected, [], `unexpected edges; got:\n  ${[...edges.keys()].join('\n  ')}`);
}

function tempDir(): string { return realpathSync(mkdtempSync(join(tmpdir(), 'sightline-adapters-'))); }

/** Edges shared by every TypeScript-capable provider on ts-project. */
const TS_EXPECTED = [
  'src/worker.ts:main calls src/db.ts:connect', // through `import { connect as openDb }`
  'src/worker.ts:main calls src/worker.ts:Worker.run',
  'src/worker.ts:Worker.run calls src/db.ts:Store.find', // this.store.find(…) with store: Store
  'src/worker.ts:Worker.run calls src/format.ts:formatMissing',
  'src/worker.ts:pickFormatter references src/format.ts:formatMissing',
  'src/worker.ts:Worker.constructor references src/db.ts:Store',
  'src/db.ts:connect calls src/db.ts:Db.put',
  'src/db.ts:CachedDb.find calls src/db.ts:Db.find', // super.find(…)
];
const TS_ABSENT = [
  'src/worker.ts:Worker.run calls src/db.ts:Db.find', // the call goes through the interface
  'src/worker.ts:pickFormatter calls src/format.ts:formatMissing', // passed as a value, not called
];

describe('reference provider adapters (dist/cli.js provider …)', function () {
  this.timeout(120000);

  before(async () => {
    requireBuilt();
    const help = await run(CLI_JS, ['provider', '--help'], '');
    assert.equal(help.status, 0, `dist/cli.js has no provider command (run "npm run build"): ${help.stderr}`);
    assert.match(help.stdout, /rust-analyzer-scip/);
  });

  describe('protocol handling', () => {
    it('rejects invalid JSON, a wrong protocol_version and unknown providers with exit code 2', async () => {
      const bad = await run(CLI_JS, ['provider', 'typescript'], '{not json');
      assert.equal(bad.status, 2); assert.match(bad.stderr, /not valid JSON/);
      const version = await run(CLI_JS, ['provider', 'typescript'], JSON.stringify({ protocol_version: 2, repo: TS_PROJECT, symbols: [] }));
      assert.equal(version.status, 2); assert.match(version.stderr, /protocol_version 2/);
      const unknown = await run(CLI_JS, ['provider', 'cobol'], '{}');
      assert.equal(unknown.status, 2); assert.match(unknown.stderr, /unknown provider cobol/);
      const scipWithoutFile = await run(CLI_JS, ['provider', 'scip'], '{}');
      assert.equal(scipWithoutFile.status, 2); assert.match(scipWithoutFile.stderr, /--scip FILE/);
    });
  });

  describe('typescript (TypeScript language service)', () => {
    let symbols: Sym[]; let out: Output; let edges: Map<string, Edge>;
    before(async () => {
      const built = await buildInput(TS_PROJECT, 'typescript');
      symbols = built.symbols;
      const r = await provider('typescript', built.input);
      out = output(r);
      edges = checkEdges(out, symbols, /^TypeScript language service: /);
      process.stdout.write(`      (typescript provider: ${symbols.length} symbols, ${out.edges.length} edges in ${r.ms} ms)\n`);
    });

    it('resolves callers and callees across files, a renamed import alias and a call through an interface', () => {
      expectEdges(edges, [
        ...TS_EXPECTED,
        'src/worker.ts:main calls src/worker.ts:Worker', // new Worker(db)
        'src/db.ts:connect calls src/db.ts:Db', // new Db()
        'src/db.ts:connect references src/db.ts:Db', // return type
      ], TS_ABSENT);
      const alias = edges.get('src/worker.ts:main calls src/db.ts:connect')!;
      assert.match(alias.evidence, /main calls connect at src\/worker\.ts:13 \(call expression\)/);
      assert.match(edges.get('src/worker.ts:main calls src/worker.ts:Worker')!.evidence, /new expression/);
    });

    it('classifies heritage clauses as implements / extends', () => {
      expectEdges(edges, ['src/db.ts:Db implements src/db.ts:Store', 'src/db.ts:CachedDb extends src/db.ts:Db'],
        ['src/db.ts:Db references src/db.ts:Store', 'src/db.ts:CachedDb references src/db.ts:Db']);
    });

    it('skips top-level references, declarations and targets outside the input', () => {
      // `export const exported = openDb;` is top-level code: no enclosing input symbol.
      assert.ok(!out.edges.some(e => /worker\.ts:22\b/.test(e.evidence)), 'a top-level reference became an edge');
      // An overriding declaration is not a use of the overridden method.
      assert.ok(!out.edges.some(e => e.from_id === e.to_id), `self edges: ${out.edges.filter(e => e.from_id === e.to_id).map(e => e.evidence).join('; ')}`);
      assert.ok(out.diagnostics.some(d => /TypeScript diagnostics \(tsc --noEmit --strict\): 0 /.test(d)), out.diagnostics.join('\n'));
      assert.match(out.diagnostics[0]!, /^TypeScript \d+\.\d+\.\d+ from the repository/); // /work/…/node_modules above the fixture
    });

    it('without a tsconfig.json builds the program from the input files and does not fail on type errors', async () => {
      const dir = tempDir();
      try {
        writeFileSync(join(dir, 'lib.ts'), 'export function add(a: number, b: number): number {\n  return a + b;\n}\n');
        writeFileSync(join(dir, 'app.ts'), "import { add as plus } from './lib';\n\nexport function total(): number {\n  const wrong: string = plus(1, 2);\n  return Number(wrong);\n}\n");
        writeFileSync(join(dir, 'util.js'), "const { add } = require('./lib');\n\nfunction twice(x) {\n  return add(x, x);\n}\nmodule.exports = { twice };\n");
        const built = await buildInput(dir, 'typescript');
        const o = output(await provider('typescript', built.input));
        const e = checkEdges(o, built.symbols, /^TypeScript language service: /);
        expectEdges(e, ['app.ts:total calls lib.ts:add']);
        assert.ok(o.diagnostics.some(d => /no tsconfig\.json: program from the 3 input files/.test(d)), o.diagnostics.join('\n'));
        const count = /TypeScript diagnostics \(tsc --noEmit --strict\): (\d+)/.exec(o.diagnostics.join('\n'));
        assert.ok(count && Number(count[1]) >= 1, `the type error is counted: ${o.diagnostics.join('\n')}`);
      } finally { rmSync(dir, { recursive: true, force: true }); }
    });

    it('handles ~1000 symbols in reasonable time, and --timeout-ms stops it', async function () {
      // 48 modules, each a class with 10 methods and 10 functions calling into the previous module.
      const dir = tempDir();
      try {
        const FILES = 48; const N = 10;
        writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', module: 'commonjs' }, include: ['src'] }));
        mkdirSync(join(dir, 'src'));
        for (let i = 0; i < FILES; i++) {
          const lines: string[] = [];
          if (i > 0) lines.push(`import * as prev from './m${i - 1}';`, '');
          lines.push(`export class C${i} {`);
          for (let j = 0; j < N; j++) lines.push(`  m${j}(): number {`, `    return ${j};`, '  }');
          lines.push('}', '');
          for (let j = 0; j < N; j++) {
            lines.push(`export function fn${i}_${j}(): number {`);
            lines.push(i > 0 ? `  return new prev.C${i - 1}().m${j}() + prev.fn${i - 1}_${j}();` : `  return ${j};`);
            lines.push('}', '');
          }
          writeFileSync(join(dir, 'src', `m${i}.ts`), lines.join('\n'));
        }
        const built = await buildInput(dir, 'typescript');
        assert.equal(built.symbols.length, FILES * (1 + 2 * N));
        const r = await provider('typescript', built.input);
        const edges = checkEdges(output(r), built.symbols, /^TypeScript language service: /);
        const expected: string[] = [];
        for (let i = 1; i < FILES; i++) {
          for (let j = 0; j < N; j++) {
            const from = `src/m${i}.ts:fn${i}_${j}`;
            expected.push(`${from} calls src/m${i - 1}.ts:C${i - 1}`, `${from} calls src/m${i - 1}.ts:C${i - 1}.m${j}`, `${from} calls src/m${i - 1}.ts:fn${i - 1}_${j}`);
          }
        }
        expectEdges(edges, expected);
        assert.equal(edges.size, expected.length);
        process.stdout.write(`      (${built.symbols.length} symbols, ${edges.size} edges in ${r.ms} ms)\n`);
        assert.ok(r.ms < 60000, `took ${r.ms} ms`);
        const limited = await provider('typescript', built.input, ['--timeout-ms', String(Math.max(50, Math.floor(r.ms / 4)))]);
        assert.equal(limited.status, 1, limited.stderr);
        assert.match(limited.stderr, /timed out after \d+ ms/);
        assert.equal(limited.stdout, '');
      } finally { rmSync(dir, { recursive: true, force: true }); }
    });

    it('exits non-zero with a clear message when no typescript package can be found', async () => {
      // A copy of the bundle outside any node_modules, on a repository without typescript.
      const dir = tempDir();
      try {
        copyFileSync(CLI_JS, join(dir, 'cli.js'));
        copyFileSync(join(dirname(CLI_JS), 'cli-main.js'), join(dir, 'cli-main.js')); // the bundle the entry loads
        mkdirSync(join(dir, 'repo'));
        writeFileSync(join(dir, 'repo', 'a.ts'), 'export function a() { return 1; }\n');
        const built = await buildInput(join(dir, 'repo'), 'typescript');
        const r = await run(join(dir, 'cli.js'), ['provider', 'typescript'], JSON.stringify(built.input));
        assert.equal(r.status, 1, r.stderr);
        assert.match(r.stderr, /"typescript" package was found neither in .*repo.* nor in Sightline's installation/);
        assert.equal(r.stdout, '');
      } finally { rmSync(dir, { recursive: true, force: true }); }
    });
  });

  describe('python (pyright language server over LSP)', () => {
    let symbols: Sym[]; let input: Record<string, unknown>; let out: Output; let edges: Map<string, Edge>;
    before(async () => {
      const built = await buildInput(PY_PROJECT, 'python');
      symbols = built.symbols; input = built.input;
      const r = await provider('python', input);
      out = output(r);
      edges = checkEdges(out, symbols, /^pyright language server: /);
      process.stdout.write(`      (python provider: ${symbols.length} symbols, ${out.edges.length} edges in ${r.ms} ms; ${out.diagnostics.find(d => /ready after/.test(d))})\n`);
    });

    it('resolves methods, classes and callers in other modules, through `from x import y as z`', () => {
      expectEdges(edges, [
        'shop/service.py:Service.lookup calls shop/store.py:Store.find', // self.backend: Backend (= Store)
        'shop/service.py:run calls shop/store.py:make_store', // build() with `make_store as build`
        'shop/service.py:run calls shop/service.py:Service',
        'shop/service.py:run calls shop/service.py:Service.lookup',
        'shop/service.py:run calls shop/store.py:Store.put',
        'shop/service.py:factory references shop/store.py:Store', // `return Backend`
        'shop/service.py:Service.__init__ references shop/store.py:Store', // annotation
        'shop/service.py:SpecialStore extends shop/store.py:Store', // class SpecialStore(Backend)
        'shop/service.py:SpecialStore.find calls shop/store.py:Store.find', // super().find
        'shop/store.py:make_store calls shop/store.py:Store',
        'shop/cli.py:main calls shop/service.py:run',
        'shop/cli.py:main calls shop/store.py:make_store', // st.make_store() with `import shop.store as st`
        'shop/service.py:Service.count references shop/store.py:Store.size', // a property read is no call expression
      ], [
        'shop/service.py:factory calls shop/store.py:Store',
        'shop/service.py:Service.count calls shop/store.py:Store.size',
        'shop/service.py:Service.lookup calls shop/service.py:SpecialStore.find',
        // a property's setter `def size(` is a declaration, not a call of the getter (nor the reverse)
        'shop/store.py:Store.size~2 calls shop/store.py:Store.size',
        'shop/store.py:Store.size calls shop/store.py:Store.size~2',
      ]);
      assert.match(edges.get('shop/service.py:run calls shop/store.py:make_store')!.evidence,
        /^pyright language server: run calls make_store at shop\/service\.py:21 \(call: the reference is followed by '\('\) via import alias build \(shop\/service\.py:1\)$/);
    });

    it('--call-hierarchy adds implicit calls (a property getter) from callHierarchy/incomingCalls', async () => {
      const r = await provider('python', input, ['--call-hierarchy']);
      const withHierarchy = checkEdges(output(r), symbols, /^pyright language server: /);
      const getter = withHierarchy.get('shop/service.py:Service.count calls shop/store.py:Store.size');
      assert.ok(getter, `no implicit call edge; got:\n  ${[...withHierarchy.keys()].join('\n  ')}`);
      assert.match(getter.evidence, /implicit call from pyright's call hierarchy/);
      assert.match(withHierarchy.get('shop/service.py:Service.lookup calls shop/store.py:Store.find')!.evidence, /in pyright's call hierarchy/);
      // Everything else is classified the same way.
      const rest = (m: Map<string, Edge>) => [...m.keys()].filter(k => !k.includes('Store.size')).sort();
      assert.deepEqual(rest(withHierarchy), rest(edges));
    });

    it('reports readiness, diagnostics and skipped top-level references', () => {
      const text = out.diagnostics.join('\n');
      assert.match(text, /^pyright \d+\.\d+\.\d+ language server/m);
      assert.match(text, /pyright ready after \d+ ms \(\d+ reference polls/);
      assert.match(text, /pyright diagnostics: \d+ in 3 open files/);
      // The import lines themselves are top level: counted as skipped, never edges.
      assert.match(text, /[1-9]\d* at top level or outside any symbol/);
      assert.ok(!out.edges.some(e => / at shop\/service\.py:1\b/.test(e.evidence)), 'an import line became an edge');
    });

    it('honours --lsp-startup-delay-ms and gives the same edges', async () => {
      const r = await provider('python', input, ['--lsp-startup-delay-ms', '300']);
      const again = output(r);
      assert.match(again.diagnostics.join('\n'), /startup delay 300 ms/);
      assert.ok(r.ms >= 300);
      assert.deepEqual(again.edges.map(e => `${e.from_id} ${e.kind} ${e.to_id}`), out.edges.map(e => `${e.from_id} ${e.kind} ${e.to_id}`));
    });

    it('--timeout-ms kills the language server and exits non-zero', async () => {
      const marker = `sightline-adapter-test-${process.pid}-${Date.now()}`;
      const r = await provider('python', input, ['--timeout-ms', '300'], { ...process.env, SIGHTLINE_ADAPTER_TEST_MARKER: marker });
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, /timed out after 300 ms/);
      assert.equal(r.stdout, '');
      assert.ok(r.ms < 10000, `took ${r.ms} ms`);
      if (existsSync('/proc/self/environ')) {
        await new Promise(res => setTimeout(res, 300));
        const survivors = readdirSync('/proc').filter(p => /^\d+$/.test(p)).filter(pid => {
          try { return readFileSync(`/proc/${pid}/environ`, 'utf8').includes(marker); } catch { return false; }
        });
        assert.deepEqual(survivors, [], 'processes started by the provider survived the timeout');
      }
    });
  });

  describe('SCIP (index written here by @sourcegraph/scip-typescript)', () => {
    let dir: string; let scipFile: string; let symbols: Sym[]; let input: Record<string, unknown>;
    before(async function () {
      dir = tempDir();
      scipFile = join(dir, 'index.scip');
      const pkg = require.resolve('@sourcegraph/scip-typescript/package.json');
      const main = join(dirname(pkg), (JSON.parse(readFileSync(pkg, 'utf8')) as { bin: string }).bin);
      const r = await run(main, ['index', '--cwd', TS_PROJECT, '--output', scipFile, '--no-progress-bar'], '');
      assert.equal(r.status, 0, `scip-typescript failed:\n${r.stdout}\n${r.stderr}`);
      assert.ok(existsSync(scipFile), 'scip-typescript wrote no index');
      const built = await buildInput(TS_PROJECT, 'scip');
      symbols = built.symbols; input = built.input;
    });
    after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

    it('decodes the protobuf index: metadata, documents, occurrences and symbol strings', () => {
      const index = parseScipIndex(readFileSync(scipFile));
      assert.equal(index.metadata?.tool_info?.name, 'scip-typescript');
      assert.deepEqual(index.documents.map(d => d.relative_path).sort(), ['src/db.ts', 'src/format.ts', 'src/worker.ts']);
      const worker = index.documents.find(d => d.relative_path === 'src/worker.ts')!;
      const runDef = worker.occurrences.find(o => o.symbol_roles & SYMBOL_ROLE_DEFINITION && scipSymbolName(o.symbol) === 'run');
      assert.ok(runDef, 'definition occurrence of Worker#run()');
      assert.deepEqual(runDef.range, [6, 2, 5]); // line 7 (0-based 6), `run` at columns 2..5
      const parsed = parseScipSymbol(runDef.symbol);
      assert.deepEqual(parsed.descriptors.map(d => [d.name, d.suffix]), [['src', 'namespace'], ['worker.ts', 'namespace'], ['Worker', 'type'], ['run', 'method']]);
      assert.equal(scipSymbolName('scip-typescript npm . . src/`worker.ts`/Worker#`<constructor>`().'), 'constructor');
      assert.equal(parseScipSymbol('local 7').local, true);
      const db = index.documents.find(d => d.relative_path === 'src/db.ts')!;
      assert.ok(db.symbols.some(s => s.relationships.some(r => r.is_implementation && scipSymbolName(r.symbol) === 'Store')), 'Db# implements Store#');
    });

    it('maps occurrences onto the input symbols as calls/references edges (`provider scip --scip FILE`)', async () => {
      const out = output(await provider('scip', input, ['--scip', scipFile]));
      const edges = checkEdges(out, symbols, /^SCIP index \(scip-typescript [\d.]+\): /);
      expectEdges(edges, [
        ...TS_EXPECTED,
        'src/worker.ts:main calls src/worker.ts:Worker.constructor', // new Worker(db): scip-typescript points at the constructor
        'src/db.ts:Db implements src/db.ts:Store', // is_implementation relationship
        'src/db.ts:CachedDb extends src/db.ts:Db',
        'src/db.ts:Db.find implements src/db.ts:Store.find',
      ], TS_ABSENT);
      assert.match(edges.get('src/worker.ts:Worker.run calls src/db.ts:Store.find')!.evidence, /at src\/worker\.ts:8 \(call: the reference is followed by '\(' in the source line\)/);
      assert.ok(!out.edges.some(e => /worker\.ts:22\b/.test(e.evidence)), 'a top-level reference became an edge');
      assert.match(out.diagnostics.join('\n'), /14 SCIP symbols tied to input symbols/);
    });

    it('java-scip and rust-analyzer-scip take --scip FILE instead of running their indexer', async () => {
      for (const name of ['java-scip', 'rust-analyzer-scip']) {
        const out = output(await provider(name, input, ['--scip', scipFile]));
        expectEdges(checkEdges(out, symbols, /^SCIP index /), ['src/worker.ts:main calls src/db.ts:connect']);
        assert.match(out.diagnostics[0]!, /indexer not run/);
      }
    });

    it('says "not found on PATH" when the indexer is missing, and rejects a broken index', async () => {
      const env = { ...process.env, PATH: dirname(process.execPath) };
      const java = await provider('java-scip', input, [], env);
      assert.equal(java.status, 1);
      assert.match(java.stderr, /scip-java not found on PATH/);
      const rust = await provider('rust-analyzer-scip', input, [], env);
      assert.equal(rust.status, 1);
      assert.match(rust.stderr, /rust-analyzer not found on PATH/);
      const broken = join(dir, 'broken.scip');
      writeFileSync(broken, readFileSync(scipFile).subarray(0, 200));
      const r = await provider('scip', input, ['--scip', broken]);
      assert.equal(r.status, 1);
      assert.match(r.stderr, /not a SCIP index/);
    });

    it('agrees with the TypeScript adapter on the shared call graph', async () => {
      const ts = checkEdges(output(await provider('typescript', { ...input, provider: 'typescript' })), symbols, /TypeScript/);
      const scip = checkEdges(output(await provider('scip', input, ['--scip', scipFile])), symbols, /SCIP/);
      const calls = (m: Map<string, Edge>) => new Set([...m.keys()].filter(k => / calls /.test(k) && !/Worker(\.constructor)?$/.test(k)));
      assert.deepEqual([...calls(scip)].sort(), [...calls(ts)].sort());
    });
  });

  describe('typescript package resolution', () => {
    it("falls back to Sightline's own typescript for a repository without one", async () => {
      const dir = tempDir();
      try {
        cpSync(TS_PROJECT, join(dir, 'other'), { recursive: true });
        const built = await buildInput(join(dir, 'other'), 'typescript');
        const out = output(await provider('typescript', built.input));
        assert.match(out.diagnostics[0]!, /^TypeScript [\d.]+ from Sightline's installation/);
        expectEdges(checkEdges(out, built.symbols, /TypeScript/), TS_EXPECTED, TS_ABSENT);
      } finally { rmSync(dir, { recursive: true, force: true }); }
    });
  });
});
