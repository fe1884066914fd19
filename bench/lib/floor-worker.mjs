// Worker thread of the parse-only floor. For each file: read, decode, tree-sitter parse, run the
// language's tags query. No chunking, hashing, vectors or database.
//   mode 'extract': dist/core.js extractSource (parse + query + definition/occurrence/chunk building;
//                   slightly pessimistic, used because dist/core.js does not export loadLanguage)
//   mode 'raw':     parser.parse + query.matches, nothing else (the true floor): through dist/core.js
//                   loadLanguage when it is exported, else the same web-tree-sitter package, grammar .wasm
//                   and .scm query files as dist/, driven directly
import { parentPort, workerData } from 'node:worker_threads';
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST_DIR, loadCore, loadTreeSitter } from './common.mjs';

const tl = performance.now();
const core = loadCore();
const mode = workerData.mode;
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const lenient = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });

let ts = null;
const loaded = new Map();
async function rawLanguage(id) {
  // Prefer the engine's own loader when dist/core.js exports it (then this is exactly the engine's parser + query).
  if (typeof core.loadLanguage === 'function') return core.loadLanguage(id);
  let p = loaded.get(id);
  if (!p) {
    p = (async () => {
      if (!ts) {
        ts = loadTreeSitter();
        await ts.Parser.init({ locateFile: () => join(DIST_DIR, 'web-tree-sitter.wasm') });
      }
      const spec = core.LANGUAGES[id];
      const language = await ts.Language.load(join(DIST_DIR, 'grammars', spec.wasm));
      const query = new ts.Query(language, readFileSync(join(DIST_DIR, 'queries', spec.query), 'utf8'));
      const parser = new ts.Parser();
      parser.setLanguage(language);
      return { parser, query };
    })();
    loaded.set(id, p);
  }
  return p;
}

const stats = { loader: mode === 'raw' ? (typeof core.loadLanguage === 'function' ? 'dist/core.js loadLanguage' : 'web-tree-sitter direct (loadLanguage not exported)') : 'dist/core.js extractSource', busy_ms: 0, load_ms: performance.now() - tl, files: 0, lines: 0, bytes: 0, failed: 0, first_failure: null };

async function one(f) {
  const bytes = await readFile(f.abs);
  let text;
  try { text = strict.decode(bytes); } catch { text = lenient.decode(bytes); }
  stats.bytes += bytes.length;
  if (mode === 'raw') {
    const { parser, query } = await rawLanguage(f.language);
    const tree = parser.parse(text);
    try { query.matches(tree.rootNode); } finally { tree.delete(); }
    let n = 0; for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
    stats.lines += text.length === 0 ? 0 : text.endsWith('\n') ? n : n + 1;
  } else {
    const ex = await core.extractSource(f.language, text);
    stats.lines += ex.line_count;
  }
}

parentPort.on('message', async (m) => {
  if (m.done) { parentPort.postMessage({ final: stats }); return; }
  const t = performance.now();
  for (const f of m.files) {
    try { await one(f); stats.files++; }
    catch (e) { stats.failed++; stats.first_failure ??= `${f.path}: ${e?.message ?? e}`; }
  }
  stats.busy_ms += performance.now() - t;
  parentPort.postMessage({ batchDone: true });
});
parentPort.postMessage({ ready: true });
