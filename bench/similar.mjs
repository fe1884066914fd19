#!/usr/bin/env node
/**
 * find_similar benchmark: recall@5 of a known clone for the MinHash signatures (find_similar) against
 * the local hash vectors (cosine of the stored chunk vectors, the vector_search signal), measured in
 * the same run on the same index; query latency p50/p95; what the signatures add to indexing.
 *
 *   node bench/similar.mjs [REPO_DIR] [--queries N]   (default: the zod mirror beside the checkout,
 *   ../.mirror/colinhacks+zod/repo or $SIGHTLINE_BENCH_MIRRORS, checked out at the last commit that
 *   still had its deno/lib/ copy of src/)
 *
 * Ground truth: chunks whose text, white space folded, stands exactly twice in the repository, in two
 * files (a definition and its copy). Two tracks:
 *   copies   query = the definition (a symbol query); hit = its copy in the top 5.
 *   renamed  query = the definition with its identifiers renamed (not the members after a dot), its
 *            numbers and strings changed (a snippet query); hit = either copy in the top 5.
 * The baseline gets the same inputs: the query chunk's stored vector (copies) or the vector of the
 * renamed text (renamed), ranked by cosine over every chunk vector, the query's own chunks left out.
 * Index cost: the signatures' CPU time (packShapes over every chunk, one thread), their bytes, and the
 * index file's size with and without them (the table emptied and the database vacuumed).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCore, BENCH_DIR } from './lib/common.mjs';

const core = loadCore();
const { Engine, invokeTool, TOOLS, extractSource, languageForPath, packShapes, shingleSet, MIN_SHINGLES, ENTRY_BYTES, queryVector, similarity, HASH_VECTOR_DIMS } = core;

const RESERVED = /(hono|flask|gson|gin-gonic|ripgrep|rack\+rack|psf\+requests|pytest|pylint|seaborn|sphinx)/i;
const argv = process.argv.slice(2);
const qi = argv.indexOf('--queries');
const QUERIES = qi >= 0 ? Number(argv[qi + 1]) : 200;
const positional = argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--queries');
const MIRRORS = process.env.SIGHTLINE_BENCH_MIRRORS ?? join(BENCH_DIR, '..', '..', '.mirror');
const tmp = mkdtempSync(join(tmpdir(), 'sl-similar-'));
const K = 5;

function checkout() {
  if (positional[0]) return { dir: positional[0], label: positional[0].split('/').slice(-2).join('/') };
  const mirror = join(MIRRORS, 'colinhacks+zod', 'repo');
  if (!existsSync(mirror)) throw new Error(`no repository given and no zod mirror at ${mirror}`);
  const dir = join(tmp, 'zod');
  execFileSync('git', ['clone', '-q', mirror, dir]);
  const gone = execFileSync('git', ['log', '--diff-filter=D', '-1', '--format=%H', '--', 'deno/lib/types.ts'], { cwd: dir }).toString().trim();
  const rev = gone ? `${gone}~1` : 'HEAD';
  execFileSync('git', ['checkout', '-q', rev], { cwd: dir });
  return { dir, label: `colinhacks/zod@${execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: dir }).toString().trim()}` };
}

const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : 0; };
const norm = t => t.replace(/\s+/g, ' ').trim();
const KEYWORDS = new Set('abstract as async await break case catch class const continue default delete do else enum export extends false finally for from function if implements import in instanceof interface let new null of private protected public readonly return static super switch this throw true try type typeof undefined var void while yield keyof infer never unknown any string number boolean object symbol bigint'.split(' '));

/** The definition as a renamed clone: identifiers (not members after a dot, not keywords or built-in types) renamed consistently, literals changed. */
function renamed(text) {
  const names = new Map();
  return text
    .replace(/(["'`])(?:\\.|(?!\1)[^\\\n])*\1/g, q => `${q[0]}x${q.length}${q[0]}`)
    .replace(/\b\d+(\.\d+)?\b/g, n => String(Number(n) + 7))
    .replace(/(\.\s*)?\b([A-Za-z_$][\w$]*)\b/g, (m, dot, w) => {
      if (dot || KEYWORDS.has(w)) return m;
      if (!names.has(w)) names.set(w, `n${names.size}q`);
      return names.get(w);
    });
}

async function main() {
  const { dir, label } = checkout();
  if (RESERVED.test(label) || RESERVED.test(dir)) throw new Error(`${label} is reserved`);
  const db = join(tmp, 'index.sqlite');
  const engine = await Engine.open({ roots: [dir], dbPath: db, threads: 2 });
  const t0 = performance.now();
  const report = await engine.index();
  const coldMs = performance.now() - t0;
  const store = engine.file.store;
  const repoId = engine.roots[0].repo_id;

  // ---- every chunk's text (as the index cut it) and the signatures' CPU time ----------------------
  const files = store.files.graphFiles(repoId);
  let shapeMs = 0; let chunkCount = 0; let signed = 0;
  const chunks = []; // { path, key, symbol_path, text, language }
  for (const f of files) {
    const text = readFileSync(join(dir, f.path), 'utf8');
    const ex = await extractSource(f.language, text);
    const t = performance.now();
    const packed = packShapes(ex.chunks.map(c => c.text), f.language);
    shapeMs += performance.now() - t;
    chunkCount += ex.chunks.length; signed += packed ? packed.byteLength / ENTRY_BYTES : 0;
    for (const c of ex.chunks) chunks.push({ path: f.path, key: c.key, symbol_path: c.symbol_path, text: c.text, language: f.language });
  }
  // ---- ground truth: chunks standing exactly twice, in two files ---------------------------------
  const byText = new Map();
  for (const c of chunks) { const k = norm(c.text); (byText.get(k) ?? byText.set(k, []).get(k)).push(c); }
  let pairs = [];
  for (const list of byText.values()) {
    if (list.length !== 2 || list[0].path === list[1].path) continue;
    const [a, b] = list;
    if (!a.symbol_path || a.key !== a.symbol_path || !b.symbol_path || b.key !== b.symbol_path) continue;
    if (shingleSet(a.text, a.language).set.length < MIN_SHINGLES) continue;
    pairs.push([a, b], [b, a]);
  }
  // a member of an overload set stands for its implementation (SymbolLookup.resolve): only pairs of chunks that are their own target
  const graph = await engine.graph();
  const self = c => graph.resolveOne(`symbol:${repoId}:${c.path}:${c.symbol_path}`).target?.symbol_path === c.symbol_path;
  pairs = pairs.filter(([a, b]) => self(a) && self(b));
  pairs.sort((x, y) => (x[0].path + x[0].key).localeCompare(y[0].path + y[0].key));
  const step = Math.max(1, Math.floor(pairs.length / QUERIES));
  const sample = pairs.filter((_, i) => i % step === 0).slice(0, QUERIES);

  // ---- the baseline's vectors ---------------------------------------------------------------------
  const vi = store.files.allVectors(HASH_VECTOR_DIMS);
  const rowOf = c => store.files.chunkById(`chunk:${repoId}:${c.path}:${c.key}`)?.rowid;
  const rowMeta = new Map(); for (const r of store.db.all('SELECT c.rowid AS rowid, f.path AS path, c.key AS key FROM chunks c JOIN files f USING (file_id)')) rowMeta.set(r.rowid, r);
  const vecTop = (q, excludePath, excludeRow) => {
    const scored = [];
    for (let i = 0; i < vi.rowids.length; i++) {
      const r = vi.rowids[i];
      if (r === excludeRow) continue;
      scored.push([r, similarity(q, vi.vectors, i * HASH_VECTOR_DIMS)]);
    }
    scored.sort((a, b) => b[1] - a[1]);
    return scored.slice(0, K).map(([r]) => r);
  };
  const vecOfRow = r => { const i = vi.rowids.indexOf(r); return vi.vectors.subarray(i * HASH_VECTOR_DIMS, (i + 1) * HASH_VECTOR_DIMS); };

  const targetOf = c => {
    const res = graph.resolveOne(`symbol:${repoId}:${c.path}:${c.symbol_path}`); const n = res.target;
    return { also: res.group.filter(g => g.file_id === n.file_id && g !== n).map(g => ({ start_line: g.start_line, end_line: g.end_line })), repo_id: n.repo_id, path: n.path, file_id: n.file_id, symbol_path: n.symbol_path, kind: n.kind, start_line: n.start_line, end_line: n.end_line, language: n.language };
  };
  const idOf = c => `symbol:${repoId}:${c.path}:${c.symbol_path}`;
  const acc = {
    copies: { minhash: 0, minhash_lsh: 0, minhash_scan: 0, vector: 0, n: 0, lat: [], lat_lsh: [], lat_scan: [] },
    renamed: { minhash: 0, vector: 0, n: 0, lat: [] },
  };
  const base = { include_tests: true, min_score: 0.3, limit: K, offset: 0 };
  for (const [a, b] of sample) {
    // copies: the tool itself (symbol query), and the service's two candidate modes
    let t = performance.now();
    const out = await invokeTool(TOOLS.find_similar, { symbol: idOf(a), limit: K }, { engine });
    acc.copies.lat.push(performance.now() - t);
    if (!out.ok) throw new Error(JSON.stringify(out));
    acc.copies.n++;
    if (out.data.matches.some(m => m.id === idOf(b))) acc.copies.minhash++;
    else if (process.env.SIMILAR_DEBUG) console.error('miss', idOf(a), '→', idOf(b), JSON.stringify(out.data.matches.map(m => [m.id, m.score, m.shared.identifier_overlap])), out.data.warnings, out.data.method);
    for (const mode of ['lsh', 'scan']) {
      t = performance.now();
      const r = await engine.similar({ ...base, target: targetOf(a), mode });
      acc.copies[`lat_${mode}`].push(performance.now() - t);
      if (r.matches.some(m => m.id === idOf(b))) acc.copies[`minhash_${mode}`]++;
    }
    const ra = rowOf(a); const rb = rowOf(b);
    if (vecTop(vecOfRow(ra), a.path, ra).includes(rb)) acc.copies.vector++;
    // renamed: a snippet query; either copy counts
    const snippet = renamed(a.text);
    t = performance.now();
    const r2 = await engine.similar({ ...base, snippet, language: a.language });
    acc.renamed.lat.push(performance.now() - t);
    acc.renamed.n++;
    if (r2.matches.some(m => m.id === idOf(a) || m.id === idOf(b))) acc.renamed.minhash++;
    const top = vecTop(queryVector(snippet), null, -1);
    if (top.includes(ra) || top.includes(rb)) acc.renamed.vector++;
  }

  // ---- index size with and without the signatures ----------------------------------------------------
  const shapeBytes = store.shapes.bytes();
  const withBytes = store.db.export().byteLength;
  store.db.run('DELETE FROM chunk_shapes'); store.db.run('VACUUM');
  const withoutBytes = store.db.export().byteLength;
  engine.close();

  const r3 = x => Math.round(x * 1000) / 1000;
  const rows = [
    ['track', 'queries', 'MinHash recall@5', 'hash-vector recall@5', 'latency p50 / p95 ms'],
    ['copies (symbol query)', acc.copies.n, r3(acc.copies.minhash / acc.copies.n), r3(acc.copies.vector / acc.copies.n), `${pct(acc.copies.lat, 0.5).toFixed(1)} / ${pct(acc.copies.lat, 0.95).toFixed(1)}`],
    ['  candidates: LSH only', acc.copies.n, r3(acc.copies.minhash_lsh / acc.copies.n), '', `${pct(acc.copies.lat_lsh, 0.5).toFixed(1)} / ${pct(acc.copies.lat_lsh, 0.95).toFixed(1)}`],
    ['  candidates: full scan', acc.copies.n, r3(acc.copies.minhash_scan / acc.copies.n), '', `${pct(acc.copies.lat_scan, 0.5).toFixed(1)} / ${pct(acc.copies.lat_scan, 0.95).toFixed(1)}`],
    ['renamed (snippet query)', acc.renamed.n, r3(acc.renamed.minhash / acc.renamed.n), r3(acc.renamed.vector / acc.renamed.n), `${pct(acc.renamed.lat, 0.5).toFixed(1)} / ${pct(acc.renamed.lat, 0.95).toFixed(1)}`],
  ];
  const w = rows[0].map((_, i) => Math.max(...rows.map(r => String(r[i]).length)));
  console.log(`\nfind_similar on ${label}: ${files.length} files, ${report.repos[0].chunks_written} chunks (${Math.round(signed)} with a signature), ${pairs.length / 2} clone pairs, ${sample.length} queries`);
  for (const r of rows) console.log(r.map((c, i) => String(c).padEnd(w[i])).join('  '));
  const mb = b => (b / 1048576).toFixed(2);
  console.log(`\nindex: cold ${Math.round(coldMs)} ms (2 parser threads); signatures ${Math.round(shapeMs)} ms of CPU in one thread (${(100 * shapeMs / coldMs).toFixed(1)}% of the cold time)`);
  console.log(`size: ${mb(withBytes)} MB with the signatures, ${mb(withoutBytes)} MB without (+${(100 * (withBytes - withoutBytes) / withoutBytes).toFixed(1)}%); signature blobs ${mb(shapeBytes)} MB (${ENTRY_BYTES} bytes a chunk; hash vectors ${HASH_VECTOR_DIMS} bytes a chunk)`);
  console.log(JSON.stringify({ label, files: files.length, chunks: chunkCount, signed, pairs: pairs.length / 2, queries: sample.length,
    copies: { minhash: r3(acc.copies.minhash / acc.copies.n), minhash_lsh: r3(acc.copies.minhash_lsh / acc.copies.n), minhash_scan: r3(acc.copies.minhash_scan / acc.copies.n), vector: r3(acc.copies.vector / acc.copies.n),
      p50_ms: r3(pct(acc.copies.lat, 0.5)), p95_ms: r3(pct(acc.copies.lat, 0.95)) },
    renamed: { minhash: r3(acc.renamed.minhash / acc.renamed.n), vector: r3(acc.renamed.vector / acc.renamed.n), p50_ms: r3(pct(acc.renamed.lat, 0.5)), p95_ms: r3(pct(acc.renamed.lat, 0.95)) },
    cold_ms: Math.round(coldMs), shapes_cpu_ms: Math.round(shapeMs), db_bytes: withBytes, db_bytes_without: withoutBytes, shape_bytes: shapeBytes }));
  const floor = acc.copies.minhash / acc.copies.n >= acc.copies.vector / acc.copies.n && acc.renamed.minhash / acc.renamed.n > acc.renamed.vector / acc.renamed.n;
  console.log(floor ? 'ok: MinHash at or above the hash-vector baseline on both tracks' : 'BELOW BASELINE: MinHash recall under the hash vectors on a track');
  process.exitCode = floor ? 0 : 1;
}

main().catch(e => { console.error(e); process.exitCode = 1; }).finally(() => rmSync(tmp, { recursive: true, force: true }));
