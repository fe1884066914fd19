/** The invariants ARCHITECTURE.md states, checked. */
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
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
