#!/usr/bin/env node
// The overview (repo map) on a real workspace: time to the first answer (cold: the graph loaded and
// ranked, entry points found), warm answers (cached ranks; with a focus, two personalised power
// iterations), the parts (graph load, global PageRank, entry points), and that the answer fits the
// token budgets 1000 / 2000 / 8000 (estimated_tokens ≤ budget, the structured answer within the
// contract's JSON allowance). Optionally compares the PageRank loop with graphology-metrics.
//
// usage: npm run bench:overview [-- --workspace DIR] [--db FILE] [--runs 5] [--json FILE]
//                                   [--graphology DIR]   (a node_modules holding graphology + graphology-metrics)
// Defaults: --workspace ../benchdata/ws-1m beside the checkout (or /work/benchdata/ws-1m), --db /tmp/ov.db;
// the index is built first (sightline index) when the file does not exist.
// Exit code: 0, or 1 when an answer does not fit its budget.
import { existsSync, writeFileSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { PROJECT_DIR, DIST_DIR, loadCore } from './lib/common.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : dflt; };
const wsDefault = [resolve(PROJECT_DIR, '../benchdata/ws-1m'), '/work/benchdata/ws-1m'].find(existsSync);
const workspace = resolve(opt('workspace', wsDefault ?? ''));
const db = resolve(opt('db', '/tmp/ov.db'));
const runs = Number(opt('runs', '5'));
const jsonOut = opt('json', null);
const graphologyDir = opt('graphology', null);
if (!existsSync(workspace)) { console.error(`workspace ${workspace} not found (--workspace DIR)`); process.exit(2); }

const cli = join(DIST_DIR, 'cli.js');
if (!existsSync(db)) {
  console.error(`indexing ${workspace} into ${db} …`);
  execFileSync(process.execPath, [cli, 'index', workspace, '--db', db], { stdio: ['ignore', 'ignore', 'inherit'] });
}

const { Engine, TOOLS, invokeTool } = loadCore();
const median = xs => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const ms = t0 => Math.round(performance.now() - t0);

let t0 = performance.now();
const engine = await Engine.open({ roots: [workspace], dbPath: db, threads: 0 });
const openMs = ms(t0);
const call = async (args, maxChars) => {
  const t = performance.now();
  const out = await invokeTool(TOOLS.overview, args, { engine }, maxChars ? { max_chars: maxChars } : {});
  if (!out.ok) throw new Error(JSON.stringify(out.error));
  return { ms: performance.now() - t, data: out.data, markdown: out.markdown };
};

// cold: the first call of this process (nothing cached)
const cold = await call({ budget: 2000 });
const warm = [];
for (let i = 0; i < runs; i++) warm.push((await call({ budget: 2000 })).ms);
const focusCases = [
  ['path', 'sqlalchemy/lib/sqlalchemy/orm/session.py'],
  ['symbol', 'Command.Execute'],
  ['text', 'parse command line flags'],
];
const focus = [];
for (const [kind, q] of focusCases) {
  const times = []; let last;
  for (let i = 0; i < runs; i++) { last = await call({ focus: q, budget: 2000 }); times.push(last.ms); }
  focus.push({ kind, focus: q, matched_as: last.data.focus.matched_as, median_ms: Math.round(median(times)), focus_ms: last.data.ranking.focus_ms,
    first: last.data.central_symbols.slice(0, 3).map(s => s.symbol_path ?? s.path) });
}
// budgets: the surface allows the budget itself (max_chars = 4 × budget), so budget_applied = budget
const budgets = [];
let failed = false;
for (const budget of [1000, 2000, 8000]) {
  const r = await call({ budget }, budget * 4);
  const d = r.data;
  const json = JSON.stringify(d).length;
  const ok = d.estimated_tokens <= budget && d.budget_applied === budget && Math.ceil(r.markdown.length / 4) === d.estimated_tokens && json <= 2 * budget * 4;
  if (!ok) failed = true;
  budgets.push({ budget, estimated_tokens: d.estimated_tokens, fits: ok, json_chars: json, modules: d.modules.length, entry_points: d.entry_points.length,
    central_symbols: d.central_symbols.length, test_suites: d.test_suites.length, left_out: Object.values(d.left_out).reduce((a, b) => a + b, 0) });
}

const rk = cold.data.ranking;
const result = {
  workspace, db, files: cold.data.totals.files, symbols: cold.data.totals.symbols, nodes: rk.nodes, edges: rk.edges,
  engine_open_ms: openMs, cold_ms: Math.round(cold.ms), warm_median_ms: Math.round(median(warm)),
  cold_parts: { model_ms: rk.model_ms, graph_load_ms: rk.load_ms, pagerank_ms: rk.rank_ms, iterations: rk.iterations, entry_points_ms: rk.entry_points_ms, files_read: rk.files_read },
  entry_points_total: cold.data.totals.entry_points,
  // among the listed ones (the service lists at most 200)
  entry_points_by_kind: Object.fromEntries(Object.entries((await call({ budget: 16000 }, 1e9)).data.entry_points.reduce((m, e) => (m[e.kind_of_entry] = (m[e.kind_of_entry] ?? 0) + 1, m), {}))),
  focus, budgets,
};

if (graphologyDir) {
  // the same weighted graph in graphology, ranked by graphology-metrics' pagerank
  const req = createRequire(join(resolve(graphologyDir), 'noop.js'));
  const Graph = req('graphology'); const pagerank = req('graphology-metrics/centrality/pagerank');
  const initSqlJs = createRequire(join(PROJECT_DIR, 'package.json'))('sql.js');
  const SQL = await initSqlJs();
  const sdb = new SQL.Database(readFileSync(db));
  const rows = sdb.exec("SELECT from_node, to_node, kind, confidence FROM graph_edges WHERE kind IN ('calls','references','extends','implements','imports')")[0].values;
  const { edgeWeight } = loadCore();
  let t = performance.now();
  const g = new Graph({ type: 'directed', multi: false });
  for (const [f, to, kind, c] of rows) {
    if (f === to) continue;
    const w = edgeWeight(kind, c, 0.5);
    if (!g.hasNode(f)) g.addNode(f); if (!g.hasNode(to)) g.addNode(to);
    if (g.hasEdge(f, to)) g.updateEdgeAttribute(f, to, 'weight', x => x + w); else g.addEdge(f, to, { weight: w });
  }
  const buildMs = ms(t);
  t = performance.now();
  pagerank(g, { alpha: 0.85, tolerance: 1e-7, maxIterations: 100, getEdgeWeight: 'weight' });
  result.graphology = { nodes: g.order, edges: g.size, build_ms: buildMs, pagerank_ms: ms(t) };
}
engine.close();

console.log(JSON.stringify(result, null, 2));
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(result, null, 2));
process.exit(failed ? 1 : 0);
