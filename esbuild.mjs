// Bundles the three entry points (extension, CLI, MCP server) plus the parser worker and the engine
// library, and copies only the runtime assets they load: the tree-sitter runtime, the grammars of the
// language table, the query files and sql.js. The webview scripts (src/webview, browser code) are
// bundled apart into dist/webview/ with their style sheets.
import { build } from 'esbuild';
import { cpSync, mkdirSync, readdirSync, existsSync, writeFileSync, chmodSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const watch = process.argv.includes('--watch');
const out = 'dist';
// No wipe: a concurrent process (a benchmark, the MCP server) may be running from dist/; files are overwritten in place.
mkdirSync(join(out, 'grammars'), { recursive: true });
mkdirSync(join(out, 'queries'), { recursive: true });
mkdirSync(join(out, 'webview'), { recursive: true });

// web-tree-sitter reads import.meta.url; in a CommonJS bundle that becomes the bundle's own file URL.
const common = {
  bundle: true, platform: 'node', target: 'node20', format: 'cjs', sourcemap: 'linked', logLevel: 'warning', legalComments: 'none',
  define: { 'import.meta.url': '__sightline_import_meta_url' },
  banner: { js: 'const __sightline_import_meta_url = require("url").pathToFileURL(__filename).href;' },
};
await Promise.all([
  build({ ...common, entryPoints: { extension: 'src/extension/extension.ts' }, outdir: out, external: ['vscode'] }),
  // typescript and pyright are loaded at run time by `sightline provider` (the analysed repo's copy first).
  build({ ...common, entryPoints: { 'cli-main': 'src/bin/sightline.ts' }, outdir: out, external: ['typescript', 'pyright'] }),
  build({ ...common, entryPoints: { 'mcp-main': 'src/bin/mcp.ts' }, outdir: out }),
  build({ ...common, entryPoints: { worker: 'src/core/index/worker.ts' }, outdir: out }),
  build({ ...common, entryPoints: { core: 'src/core/index.ts' }, outdir: out }),
  // The webviews: browser scripts, one IIFE each, no source map (nothing loads from outside dist/webview).
  build({ entryPoints: { impact: 'src/webview/impact.ts', memory: 'src/webview/memory.ts' }, outdir: join(out, 'webview'), bundle: true, platform: 'browser', format: 'iife',
    target: 'es2022', tsconfig: 'src/webview/tsconfig.json', logLevel: 'warning', legalComments: 'none', minify: false }),
]);

// The commands people and editors run (dist/cli.js, dist/mcp.js) are small entries that turn on V8's
// compile cache where Node has one (22.1+) before loading their bundle: a later start skips compiling it.
const entry = (bundle, what) => `#!/usr/bin/env node
// ${what}: loads ${bundle} with V8's compile cache on (Node 22.1+; older Node has none and compiles it).
try { require('node:module').enableCompileCache?.(); } catch { /* no cache: compiled as usual */ }
require('./${bundle}');
`;
for (const [name, bundle, what] of [['cli.js', 'cli-main.js', 'The sightline command'], ['mcp.js', 'mcp-main.js', 'The MCP server']]) {
  writeFileSync(join(out, name), entry(bundle, what));
  chmodSync(join(out, name), 0o755);
}
for (const css of readdirSync('src/webview').filter(f => f.endsWith('.css'))) cpSync(join('src/webview', css), join(out, 'webview', css));

// Runtime assets: only what the language table names.
const { GRAMMAR_SOURCES } = await import('./dist/core.js').then(m => m.default ?? m);
for (const [file, source] of Object.entries(GRAMMAR_SOURCES)) cpSync(require.resolve(source), join(out, 'grammars', file));
for (const q of readdirSync('src/core/languages/queries')) cpSync(join('src/core/languages/queries', q), join(out, 'queries', q));
cpSync(join(dirname(require.resolve('web-tree-sitter')), 'web-tree-sitter.wasm'), join(out, 'web-tree-sitter.wasm'));
cpSync(join(dirname(require.resolve('sql.js')), 'sql-wasm.wasm'), join(out, 'sql-wasm.wasm'));
if (!existsSync(join(out, 'sql-wasm.wasm'))) throw new Error('sql-wasm.wasm missing');
console.log('built dist/ (extension, cli, mcp, worker, core, webview + assets)');
