/** The invariants ARCHITECTURE.md states, checked. */
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { LANGUAGES, GRAMMAR_SOURCES } from '../src/core/languages';
import { LANGUAGE_IDS } from '../src/core/languages/types';

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

  it('the engine does not depend on a surface (MCP SDK, CLI, extension)', () => {
    for (const f of files(join(ROOT, 'src/core'))) {
      for (const i of imports(f)) {
        assert.ok(!i.startsWith('@modelcontextprotocol/'), `${relative(ROOT, f)} imports the MCP SDK`);
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

  it('one writer: only the engine writes the index file, through the lock and atomic save', () => {
    const writers = files(join(ROOT, 'src')).filter(f => /atomicWrite\(/.test(readFileSync(f, 'utf8')));
    assert.deepEqual(writers.map(f => relative(ROOT, f)).sort(), ['src/core/engine.ts', 'src/core/store/persist.ts']);
  });

  it('languages are data: each has a grammar source and a query file', () => {
    for (const id of LANGUAGE_IDS) {
      const spec = LANGUAGES[id];
      assert.ok(GRAMMAR_SOURCES[spec.wasm], `${id}: grammar ${spec.wasm} has no source`);
      for (const q of typeof spec.query === 'string' ? [spec.query] : spec.query) assert.ok(existsSync(join(ROOT, 'src/core/languages/queries', q)), `${id}: query ${q} missing`);
    }
  });

  it('ARCHITECTURE.md states the invariants this suite checks', () => {
    const doc = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
    for (const phrase of ['never imports `vscode`', 'one registry', 'one writer', 'atomic']) assert.ok(doc.toLowerCase().includes(phrase.toLowerCase()), `ARCHITECTURE.md should state: ${phrase}`);
    for (const dir of ['src/core', 'src/mcp', 'src/cli', 'src/extension', 'test', 'bench']) assert.ok(doc.includes(dir), `ARCHITECTURE.md maps ${dir}`);
  });
});
