/** The invariants ARCHITECTURE.md states, checked. */
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { LANGUAGES, GRAMMAR_SOURCES, languageForPath } from '../src/core/languages';
import { TEXT_FORMATS, TEXT_FORMAT_IDS, type TextFormat } from '../src/core/languages/text';
import { LANGUAGE_IDS } from '../src/core/languages/types';
import { PIPELINE } from '../src/core/pipeline';
import { orderPhases } from '../src/core/pipeline/runner';
import { Store } from '../src/core/store/store';
import { TABLES, isShadowTable } from '../src/core/store/tables';

const ROOT = join(__dirname, '..');
function files(dir: string): string[] {
  return readdirSync(dir).flatMap(n => { const p = join(dir, n); return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : []; });
}
const imports = (file: string) => [...readFileSync(file, 'utf8').matchAll(/(?:from\s+|require\(|import\()\s*['"]([^'"]+)['"]/g)].map(m => m[1]!);

describe('architecture invariants', () => {
  it('the engine, MCP server and CLI never import vscode; only src/extension does', () => {
    for (const dir of ['src/core', 'src/mcp', 'src/cli']) {
      for (const f of files(join(ROOT, dir))) assert.ok(!imports(f).includes('vscode'), `${relative(ROOT, f)} imports vscode`);
    }
  });

  it('the webview scripts (src/webview) are browser code: they import only each other, and set no inline style', () => {
    for (const f of files(join(ROOT, 'src/webview'))) {
      for (const i of imports(f)) assert.ok(/^\.\/[\w-]+$/.test(i), `${relative(ROOT, f)} imports ${i}: the webview bundle may use only src/webview`);
      const text = readFileSync(f, 'utf8');
      assert.ok(!/\.style\b|['"]style['"]|innerHTML|insertAdjacentHTML|\beval\(|new Function\(/.test(text), `${relative(ROOT, f)} uses inline style, HTML strings or eval (the webview CSP allows none)`);
    }
  });

  it('the engine does not depend on a surface (MCP SDK, CLI, extension)', () => {
    for (const f of files(join(ROOT, 'src/core'))) {
      for (const i of imports(f)) {
        // one exception: the mcp adapter driver is a client of other MCP servers (never the MCP surface)
        const mcpClient = relative(ROOT, f).split('\\').join('/') === 'src/core/adapters/drivers/mcp.ts' && i.startsWith('@modelcontextprotocol/sdk/client/');
        assert.ok(!i.startsWith('@modelcontextprotocol/') || mcpClient, `${relative(ROOT, f)} imports the MCP SDK`);
        assert.ok(!/\.\.\/(mcp|cli|extension)\//.test(i) && !/^\.\.\/\.\.\/(mcp|cli|extension)/.test(i), `${relative(ROOT, f)} imports a surface: ${i}`);
      }
    }
  });

  // A relative import resolved to a repository path (no extension), e.g. src/cli/main.
  const target = (file: string, spec: string) => relative(ROOT, resolve(dirname(file), spec)).split('\\').join('/');
  const SURFACES = ['src/cli', 'src/mcp', 'src/extension'];
  const surfaceOf = (path: string) => SURFACES.find(s => path === s || path.startsWith(`${s}/`));

  it('surfaces (src/cli, src/mcp, src/extension) never import each other; shared options live in src/surface', () => {
    for (const dir of [...SURFACES, 'src/surface']) {
      for (const f of files(join(ROOT, dir))) {
        const own = surfaceOf(relative(ROOT, f).split('\\').join('/'));
        for (const i of imports(f).filter(x => x.startsWith('.'))) {
          const other = surfaceOf(target(f, i));
          assert.ok(!other || other === own, `${relative(ROOT, f)} imports another surface: ${i}`);
        }
      }
    }
    // Only process entries (src/bin) compose surfaces.
    for (const f of files(join(ROOT, 'src'))) {
      const rel = relative(ROOT, f).split('\\').join('/');
      if (rel.startsWith('src/bin/') || surfaceOf(rel)) continue;
      for (const i of imports(f).filter(x => x.startsWith('.'))) assert.ok(!surfaceOf(target(f, i)), `${rel} imports a surface: ${i}`);
    }
  });

  it('provider adapters live beside the protocol, outside surfaces; a surface only starts them', () => {
    const adapters = files(join(ROOT, 'src/core/providers/adapters')).map(f => relative(ROOT, f).split('\\').join('/'));
    for (const a of ['common', 'typescript', 'python', 'scip', 'index']) assert.ok(adapters.includes(`src/core/providers/adapters/${a}.ts`), `adapter ${a} missing`);
    const ANALYSIS = ['typescript', 'pyright', 'vscode-jsonrpc', 'protobufjs'];
    for (const dir of SURFACES) {
      for (const f of files(join(ROOT, dir))) {
        const text = readFileSync(f, 'utf8');
        for (const i of imports(f)) assert.ok(!ANALYSIS.some(m => i === m || i.startsWith(`${m}/`)), `${relative(ROOT, f)} imports analysis code: ${i}`);
        assert.ok(!/function run\w+Provider\(/.test(text), `${relative(ROOT, f)} implements a provider adapter`);
      }
    }
    assert.ok(!existsSync(join(ROOT, 'src/cli/providers')), 'src/cli/providers is gone');
  });

  it('one registry: surfaces list tools only through it', () => {
    const surfaceFiles = [...files(join(ROOT, 'src/mcp')), ...files(join(ROOT, 'src/cli'))];
    for (const f of surfaceFiles) {
      const text = readFileSync(f, 'utf8');
      assert.ok(!/from '\.\.\/core\/tools\/(search_code|index_repo|get_chunk|vector_search|index_status)'/.test(text), `${relative(ROOT, f)} imports a tool directly instead of the registry`);
    }
  });

  it('one writer: only the index file lifecycle writes the index, through the lock and atomic save (and the durable store its own files)', () => {
    const writers = files(join(ROOT, 'src')).filter(f => /atomicWrite\(/.test(readFileSync(f, 'utf8')));
    // (services/portable.ts writes an exported artifact, a file the user named, never the index)
    assert.deepEqual(writers.map(f => relative(ROOT, f)).sort(), ['src/core/durable/store.ts', 'src/core/services/portable.ts', 'src/core/store/pagelog.ts', 'src/core/store/persist.ts']);
    // the index's snapshot and change log are written by the page log, which only the index file lifecycle holds
    const holders = files(join(ROOT, 'src')).filter(f => /new PageLog\(/.test(readFileSync(f, 'utf8')));
    assert.deepEqual(holders.map(f => relative(ROOT, f)), ['src/core/indexfile.ts']);
  });

  it('languages are data: each has a grammar source and a query file', () => {
    for (const id of LANGUAGE_IDS) {
      const spec = LANGUAGES[id];
      assert.ok(GRAMMAR_SOURCES[spec.wasm], `${id}: grammar ${spec.wasm} has no source`);
      for (const q of typeof spec.query === 'string' ? [spec.query] : spec.query) assert.ok(existsSync(join(ROOT, 'src/core/languages/queries', q)), `${id}: query ${q} missing`);
    }
  });

  it('text formats are data: each grammar a format names has a source, and no text format shadows a language', () => {
    for (const id of TEXT_FORMAT_IDS) {
      const spec: TextFormat = TEXT_FORMATS[id];
      if (spec.sections) assert.ok(GRAMMAR_SOURCES[spec.sections.wasm], `${id}: grammar ${spec.sections.wasm} has no source`);
      for (const ext of spec.extensions) assert.equal(languageForPath(`x${ext}`), undefined, `${id}: ${ext} belongs to a language`);
    }
  });

  it('what a language means lives in the language table: no code outside it names a language or family', () => {
    const names = [...LANGUAGE_IDS, 'js'].join('|');
    const named = new RegExp(`(language|familyOf\\([^)]*\\))\\s*[!=]==\\s*'(${names})'|\\.has\\(f\\.language\\)`);
    // a reference provider for one language's compiler is about that language by definition
    const exempt = [join('core', 'languages'), join('providers', 'adapters', 'python.ts')];
    const found: string[] = [];
    for (const f of files(join(ROOT, 'src', 'core'))) {
      if (exempt.some(e => f.includes(e))) continue;
      readFileSync(f, 'utf8').split('\n').forEach((line, i) => { if (named.test(line)) found.push(`${relative(ROOT, f)}:${i + 1}`); });
    }
    assert.deepEqual(found, [], 'move the knowledge into src/core/languages (a field of the language table)');
  });

  it('ARCHITECTURE.md states the invariants this suite checks', () => {
    const doc = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
    for (const phrase of ['never imports `vscode`', 'one registry', 'one writer', 'atomic']) assert.ok(doc.toLowerCase().includes(phrase.toLowerCase()), `ARCHITECTURE.md should state: ${phrase}`);
    for (const dir of ['src/core', 'src/mcp', 'src/cli', 'src/extension', 'test', 'bench']) assert.ok(doc.includes(dir), `ARCHITECTURE.md maps ${dir}`);
  });

  it('phases are declared: the phase table in ARCHITECTURE.md is the pipeline in the code', () => {
    const doc = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
    const table = /<!-- phases:begin -->([\s\S]*?)<!-- phases:end -->/.exec(doc)?.[1];
    assert.ok(table, 'ARCHITECTURE.md has a phase table between <!-- phases:begin --> and <!-- phases:end -->');
    const cell = (c: string) => c.split(',').map(x => x.trim().replace(/`/g, '')).filter(x => x && x !== '—');
    const rows = table.split('\n').filter(l => /^\|\s*`/.test(l)).map(l => l.split('|').slice(1, 5).map(x => x.trim()))
      .map(([name, deps, stages, file]) => ({ name: cell(name!)[0], deps: cell(deps!), stages: cell(stages!), file: cell(file!)[0] }));
    const code = orderPhases(PIPELINE).map(p => ({ name: p.name, deps: p.deps.map((d: { name: string }) => d.name), stages: p.timedByRunner ? [p.name] : [...p.stages],
      file: `src/core/pipeline/phases/${p.name}.ts` }));
    assert.deepEqual(rows, code);
    for (const r of code) assert.ok(existsSync(join(ROOT, r.file)), `${r.file} exists`);
  });

  it('the engine is a composition root: small, and importing no feature code', () => {
    const engine = join(ROOT, 'src/core/engine.ts');
    const lines = readFileSync(engine, 'utf8').split('\n').length;
    assert.ok(lines <= 200, `src/core/engine.ts has ${lines} lines (at most 200: feature logic belongs in services/ or a phase)`);
    const allowed = [/^node:(path|os)$/, /^\.\/(indexfile|workspace|settings)$/, /^\.\/util\/contained$/, /^\.\/pipeline(\/phases\/graph)?$/, /^\.\/services\//,
      /^\.\/graph\/(query|enrich)$/, /^\.\/adapters\/service$/, /^\.\/store\/store$/, /^\.\/tools\/services$/, /^\.\/search\/search$/];
    for (const i of imports(engine)) assert.ok(allowed.some(a => a.test(i)), `src/core/engine.ts imports ${i}: wire a service or a phase instead`);
  });

  it('tools see the services they call, not the engine class', () => {
    for (const f of files(join(ROOT, 'src/core/tools'))) assert.ok(!imports(f).some(i => /(^|\/)engine$/.test(i)), `${relative(ROOT, f)} imports the engine`);
  });

  it('every table of the schema is in the table registry (deleteRepo and force walk it)', async () => {
    const { store } = await Store.open(null);
    try {
      const tables = store.tableNames().filter(t => !isShadowTable(t));
      assert.deepEqual([...TABLES.map(t => t.name)].sort(), tables.sort());
      for (const t of TABLES) {
        assert.ok(t.deleteFile || t.clear || t.deleteRepo || t.kept, `${t.name}: the registry says how its rows go with a repository (or why they stay)`);
        if (t.deleteFile) assert.ok(t.clear, `${t.name}: rows deleted per file must also be cleared when the only repository goes`);
      }
    } finally { store.close(); }
  });

  it('ids are built and parsed in util/ids.ts only', () => {
    const patterns = [/'(chunk|symbol|file):'\s*\|\|/, /\/\^\(?\??:?(chunk|symbol|file)\b/, /startsWith\(['`](chunk|symbol):/, /`(chunk|symbol|file):\$\{/];
    for (const f of files(join(ROOT, 'src'))) {
      if (f.endsWith(join('util', 'ids.ts'))) continue;
      const text = readFileSync(f, 'utf8');
      for (const p of patterns) assert.ok(!p.test(text), `${relative(ROOT, f)} builds or parses an id (${p}): use src/core/util/ids.ts`);
    }
  });

  // A file that must stay long for a while (being split elsewhere) is listed here with why, until then.
  const LONG_PENDING: Record<string, string> = {};
  it('no source file is longer than ~450 lines without a reason at its top', () => {
    for (const f of files(join(ROOT, 'src'))) {
      const rel = relative(ROOT, f).split('\\').join('/');
      const text = readFileSync(f, 'utf8');
      const lines = text.split('\n').length;
      if (lines <= 460 || LONG_PENDING[rel]) continue;
      assert.match(text.split('\n').slice(0, 30).join('\n'), /Why this file is long:/, `${rel} has ${lines} lines: split it, or say at its top "Why this file is long: …"`);
    }
  });
});

