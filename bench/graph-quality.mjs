#!/usr/bin/env node
// Graph quality: precision and recall of the heuristic `calls` / `references` edges (provider
// "heuristic", src/core/graph/resolve.ts) against a compiler-grade ground truth — the first-party
// TypeScript language-service adapter (`sightline provider typescript`) on TypeScript repositories and
// the pyright adapter (`sightline provider python`) on Python ones — and the recall/precision of the
// `impact` tool before and after the adapter's edges are stored (live-server enrichment).
//
// usage: npm run bench:graph [-- --repo NAME=DIR]... [--only a,b] [--seed 1] [--targets 500] [--none 100]
//                               [--depth 3] [--timeout-ms 1200000] [--examples 8] [--json FILE] [--keep] [--no-results]
// Writes the confidence-by-tier table into bench/RESULTS.md (not with --no-results).
// Repositories (default: ../benchdata/NAME beside the checkout): zod, yup (TypeScript), httpx (Python).
// --repo NAME=DIR overrides one of them or adds one (language from the indexed lines); --only picks.
//
// Method (per repository):
//  1. Index with the engine into a fresh temporary index file (index_repo, no providers): the heuristic graph.
//  2. Copy that index file and run index_repo on the copy with one reference provider: the adapter as a
//     real child process, exactly as index_repo runs any provider (`node dist/cli.js provider
//     typescript|python --timeout-ms N`, protocol JSON on stdin, repository root as cwd, compiler_grade).
//     The command is wrapped in bench/lib/graph-tee.mjs, which passes stdin/stdout through and keeps a
//     copy of both: the input is the symbol table to sample from, the output the ground-truth edges T as
//     (from symbol id, to symbol id, kind). The engine stores the same edges in the copy (checked per
//     target against find_references on the copy): that is the enriched index. Left out of T: recursion
//     (from = to), edges between two definitions of one name (`f` ↔ `f~2`: overloads, property
//     accessors) and references from inside the referenced definition (a method naming its own class):
//     the heuristic skips these by design and impact ignores them.
//  3. Targets: functions, methods and classes of the adapter's languages, drawn with a seeded PRNG:
//     --targets with at least one incoming ground-truth calls/references edge and --none without any.
//     Per target, the heuristic's incoming edges H come from find_references on the heuristic index
//     (kinds calls, references, extends, implements). Edges from a file node (top-level code) are left
//     out and counted: the adapters skip references that lie in no symbol, so T cannot contain them.
//     Precision = |H ∩ T| / |H|, recall = |H ∩ T| / |T| over sets of `from` ids per target, micro-
//     averaged (summed over targets): "calls" (calls vs calls), "refs" (references vs references) and
//     "calls+refs" (the (from, to) pair, kind ignored: the adapters classify `new X()`, decorators, JSX,
//     Python `X()` … slightly differently from the parser). Also at heuristic confidence ≥ 0.5 and
//     ≥ 0.75 (tiers: src/core/graph/tiers.ts), with 95% bootstrap intervals over targets (a few targets with many
//     callers weigh a lot).
//  4. Impact: the ground-truth impact set of a target is the reverse closure (depth --depth, default 3)
//     over ground-truth calls/references/extends/implements edges (heritage clauses are their own kinds
//     in the adapters; impact follows them too), without test-file nodes (impact lists those under
//     related_tests), nodes nested in the target, and — for a method or function, which impact also
//     seeds with its containers — its containers (by source range). The `impact` tool (every page) is
//     called on the heuristic index and on the enriched one; its set is the affected symbols that reach
//     the target itself (via_container false; file nodes dropped). Recall and precision against the
//     ground-truth set, micro-averaged. Enriched recall should be 1.0 (every ground-truth edge is in the
//     enriched graph) modulo aggregation: impact never walks through the target's own members and
//     reaches a container's dependents only as via_container, so the "excl. aggregation" column
//     measures against the closure that does not walk through those either. The remaining misses are
//     classified in the details (labelled via_container although they reach the target, or not found).
//  5. One table, then PASS/FAIL lines: heuristic calls precision ≥ 0.9 at recall ≥ 0.8 (at any of the
//     three confidence thresholds), and enriched impact recall = the ground truth's (1.0, excl. aggregation).
//
// Exit code: 0 (it is a report) unless something crashed (1) or a repository is missing (2).
// Progress goes to stderr, the report to stdout.
import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir, cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { PR, fmt, pr, rng, sample, reverseClosure, within } from './lib/graph-metrics.mjs';
import { writeCalibration } from './lib/calibration.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const PROJECT = resolve(here, '..');
const DIST = resolve(process.env.SIGHTLINE_DIST ?? join(PROJECT, 'dist'));

// ---------------------------------------------------------------- options
const DEFAULT_REPOS = [
  { name: 'zod', language: 'typescript', dir: resolve(here, '..', '..', 'benchdata', 'zod'), source: 'https://github.com/colinhacks/zod' },
  { name: 'yup', language: 'typescript', dir: resolve(here, '..', '..', 'benchdata', 'yup'), source: 'https://github.com/jquense/yup' },
  { name: 'httpx', language: 'python', dir: resolve(here, '..', '..', 'benchdata', 'httpx'), source: 'https://github.com/encode/httpx' },
];
const ADAPTERS = {
  typescript: { provider: 'typescript', adapter: 'typescript', languages: ['typescript', 'tsx', 'javascript'], label: 'TypeScript language service' },
  python: { provider: 'pyright', adapter: 'python', languages: ['python'], label: 'pyright' },
};

const argv = process.argv.slice(2);
const USAGE = 'usage: node bench/graph-quality.mjs [--repo NAME=DIR]... [--only a,b] [--seed N] [--targets N] [--none N] [--depth N] [--timeout-ms N] [--examples N] [--json FILE] [--keep]';
const opts = { seed: 1, targets: 500, none: 100, depth: 3, timeoutMs: 1_200_000, examples: 8, json: null, keep: false, only: null, results: true };
const repos = DEFAULT_REPOS.map(r => ({ ...r }));
for (let i = 0; i < argv.length; i++) {
  const a = argv[i]; const v = () => { const x = argv[++i]; if (x === undefined) usage(`${a} needs a value`); return x; };
  const int = (name) => { const n = Number(v()); if (!Number.isInteger(n) || n < 0) usage(`${name} must be a non-negative integer`); return n; };
  if (a === '--repo') {
    const s = v(); const eq = s.indexOf('=');
    if (eq <= 0) usage(`--repo takes NAME=DIR, got ${s}`);
    const name = s.slice(0, eq); const dir = resolve(s.slice(eq + 1));
    const known = repos.find(r => r.name === name);
    if (known) known.dir = dir; else repos.push({ name, language: null, dir, source: dir });
  } else if (a === '--only') opts.only = new Set(v().split(',').filter(Boolean));
  else if (a === '--seed') opts.seed = int('--seed');
  else if (a === '--targets') opts.targets = int('--targets');
  else if (a === '--none') opts.none = int('--none');
  else if (a === '--depth') { opts.depth = int('--depth'); if (opts.depth < 1 || opts.depth > 6) usage('--depth must be 1..6 (the impact tool\'s range)'); }
  else if (a === '--timeout-ms') opts.timeoutMs = int('--timeout-ms');
  else if (a === '--examples') opts.examples = int('--examples');
  else if (a === '--json') opts.json = resolve(v());
  else if (a === '--keep') opts.keep = true;
  else if (a === '--no-results') opts.results = false;
  else if (a === '--help' || a === '-h') { console.log(USAGE); process.exit(0); }
  else usage(`unknown argument ${a}`);
}
function usage(msg) { console.error(`bench:graph: ${msg}\n${USAGE}`); process.exit(2); }

const selected = repos.filter(r => !opts.only || opts.only.has(r.name));
if (opts.only) for (const n of opts.only) if (!repos.some(r => r.name === n)) usage(`--only names an unknown repository ${n} (known: ${repos.map(r => r.name).join(', ')})`);
for (const r of selected) {
  if (!existsSync(r.dir) || !statSync(r.dir).isDirectory()) {
    console.error(`bench:graph: repository ${r.name} not found at ${r.dir}\n  fetch it (see bench/README.md, "Graph quality") or pass --repo ${r.name}=DIR (or --only to skip it)`);
    process.exit(2);
  }
}
if (!existsSync(join(DIST, 'core.js')) || !existsSync(join(DIST, 'cli.js'))) {
  console.error(`bench:graph: ${DIST}/core.js or cli.js is missing; run "npm run build" (npm run bench:graph does it)`);
  process.exit(2);
}

// ---------------------------------------------------------------- dist snapshot
// A concurrent `npm run build` wipes dist/: work from a copy. The adapters resolve `typescript` /
// `pyright` from the analysed repository first, then next to cli.js: node_modules beside the copy
// points at the project's.
const work = mkdtempSync(join(tmpdir(), 'sightline-graph-'));
const snap = join(work, 'dist');
cpSync(DIST, snap, { recursive: true, filter: (src) => !src.endsWith('.map') });
const projectModules = join(PROJECT, 'node_modules');
if (existsSync(projectModules)) symlinkSync(projectModules, join(work, 'node_modules'), 'dir');
const CLI = join(snap, 'cli.js');
const TEE = join(here, 'lib', 'graph-tee.mjs');
const core = createRequire(import.meta.url)(join(snap, 'core.js'));
if (!opts.keep) process.on('exit', () => rmSync(work, { recursive: true, force: true }));

const log = (msg) => process.stderr.write(`[graph] ${msg}\n`);
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

async function call(engine, name, args) {
  const r = await core.invokeTool(core.TOOLS[name], args, { engine });
  if (!r.ok) throw new Error(`${name}(${JSON.stringify(args).slice(0, 200)}) failed: ${r.error?.code}: ${r.error?.message}`);
  return r.data;
}

/** Every stored incoming edge of `id` (kinds), one per provider and kind: what precision per kind is measured on. */
async function incoming(engine, id, kinds) {
  const g = await engine.graph();
  const node = g.lookup(id)[0];
  if (!node) throw new Error(`no node ${id}`);
  return g.edges(node, 'in', kinds).map(({ neighbour, edge }) => ({ edge, from: core.toNodeRef(neighbour) }));
}

/** find_references as an agent calls it (default kinds), all pages: the using definitions' ids. */
async function referencesTool(engine, id) {
  const out = [];
  for (let offset = 0; ;) {
    const d = await call(engine, 'find_references', { symbol: id, limit: 500, offset });
    if (!d.resolved.length) throw new Error(`find_references did not resolve ${id} (${d.ambiguous.length} ambiguous)`);
    out.push(...d.references);
    if (d.next_offset === null || d.next_offset === undefined) break;
    offset = d.next_offset;
  }
  return new Set(out.filter(x => x.from.kind !== 'file').map(x => x.from.id));
}

/** related_tests as an agent calls it, all pages: the test symbols' ids (test-file bodies left out: the adapters see no file nodes). */
async function testsTool(engine, id) {
  const out = [];
  for (let offset = 0; ;) {
    const d = await call(engine, 'related_tests', { symbol: id, limit: 200, offset });
    out.push(...d.tests);
    if (d.next_offset === null || d.next_offset === undefined) break;
    offset = d.next_offset;
  }
  return new Set(out.filter(x => x.node.kind !== 'file').map(x => x.node.id));
}
const isTestPath = core.isTestPath;

/** The impact tool's affected list of `id`, all pages. */
async function impactOf(engine, id, depth) {
  const out = [];
  let first = null;
  for (let offset = 0; ;) {
    const d = await call(engine, 'impact', { symbol: id, depth, limit: 500, offset });
    if (!d.resolved.length) throw new Error(`impact did not resolve ${id}`);
    first ??= d;
    out.push(...d.affected);
    if (d.next_offset === null) break;
    offset = d.next_offset;
  }
  return { affected: out, total: first.total_affected, complete: first.complete, boundaries: first.boundaries.map(b => b.kind) };
}

const THRESHOLDS = [0, 0.5, 0.75];
const GT_IMPACT_KINDS = new Set(['calls', 'references', 'extends', 'implements']);
const TARGET_KINDS = new Set(['function', 'method', 'class']);

// ---------------------------------------------------------------- one repository
async function runRepo(repo) {
  const t0 = performance.now();
  const dir = mkdtempSync(join(work, `${repo.name}-`));
  const dbH = join(dir, 'heuristic.sqlite'); const dbE = join(dir, 'enriched.sqlite');

  // 1. heuristic index
  log(`${repo.name}: indexing ${repo.dir}`);
  const eH = await core.Engine.open({ roots: [repo.dir], dbPath: dbH });
  const ix = await call(eH, 'index_repo', {});
  const indexMs = performance.now() - t0;
  const status = await call(eH, 'index_status', {});
  if (!repo.language) {
    const lines = (ids) => status.languages.filter(l => ids.includes(l.language)).reduce((a, l) => a + l.lines, 0);
    repo.language = lines(ADAPTERS.typescript.languages) >= lines(ADAPTERS.python.languages) ? 'typescript' : 'python';
  }
  const ad = ADAPTERS[repo.language];
  const langLines = status.languages.filter(l => ad.languages.includes(l.language)).reduce((a, l) => a + l.lines, 0);
  log(`${repo.name}: ${ix.totals.files_seen} files, ${langLines} ${repo.language} lines indexed in ${secs(indexMs)}; heuristic edges ${ix.repos[0].edges_written}`);

  // 2. ground truth + enriched index: the adapter through index_repo, on a copy of the index
  eH.close();
  copyFileSync(dbH, dbE);
  const eHeur = await core.Engine.open({ roots: [repo.dir], dbPath: dbH });
  const eEnr = await core.Engine.open({ roots: [repo.dir], dbPath: dbE, allowReferenceProviders: true });
  const prefix = join(dir, ad.provider);
  const spec = {
    name: ad.provider, command: process.execPath,
    args: [TEE, prefix, '--', process.execPath, CLI, 'provider', ad.adapter, '--timeout-ms', String(opts.timeoutMs)],
    languages: ad.languages, compiler_grade: true, strict: false, timeout_ms: Math.min(opts.timeoutMs + 60_000, 3_600_000),
  };
  log(`${repo.name}: running the ${ad.label} adapter (node dist/cli.js provider ${ad.adapter} --timeout-ms ${opts.timeoutMs}) through index_repo`);
  const tp = performance.now();
  const ixE = await call(eEnr, 'index_repo', { reference_providers: [spec] });
  const providerMs = performance.now() - tp;
  const prep = ixE.providers[0];
  if (!prep?.ok) throw new Error(`${ad.label} adapter failed on ${repo.name}: ${prep?.error ?? 'no provider report'}\n${ixE.provider_diagnostics.map(d => `  ${d.message}`).join('\n')}`);
  log(`${repo.name}: adapter stored ${prep.edges} edges (${prep.skipped_edges} skipped, ${prep.invalid_edges} invalid) in ${secs(providerMs)}`);
  const input = JSON.parse(readFileSync(`${prefix}.in.json`, 'utf8'));
  const output = JSON.parse(readFileSync(`${prefix}.out.json`, 'utf8'));
  const symbols = new Map(input.symbols.map(s => [s.id, s]));
  const byName = new Map();
  for (const s of input.symbols) byName.set(s.name, (byName.get(s.name) ?? 0) + 1);

  // Ground truth: to → from → kind → evidence
  const gtIn = new Map();
  const gtKinds = {};
  const gtDropped = { self: 0, sibling: 0, inner: 0, examples: [] };
  const sameName = (a, b) => a.replace(/~\d+$/, '') === b.replace(/~\d+$/, '');
  for (const e of output.edges) {
    if (!symbols.has(e.from_id) || !symbols.has(e.to_id)) continue;
    // Recursion is no dependency (the heuristic never emits self edges), and a reference between two
    // definitions of one name (overloads, property getter/setter: `f` ↔ `f~2`) is the adapter seeing the
    // other accessor's own declaration (pyright), not a use.
    if (e.from_id === e.to_id) { gtDropped.self++; continue; }
    if (sameName(e.from_id, e.to_id)) { gtDropped.sibling++; if (gtDropped.examples.length < 3) gtDropped.examples.push(e.evidence); continue; }
    // A definition mentioning its own name inside its body (a method's return type naming its class):
    // the heuristic skips these by design and impact never counts what is nested in the target.
    if (e.kind === 'references' && within(symbols.get(e.from_id), symbols.get(e.to_id))) { gtDropped.inner++; continue; }
    gtKinds[e.kind] = (gtKinds[e.kind] ?? 0) + 1;
    let m = gtIn.get(e.to_id); if (!m) gtIn.set(e.to_id, m = new Map());
    let k = m.get(e.from_id); if (!k) m.set(e.from_id, k = new Map());
    k.set(e.kind, e.evidence);
  }
  const gtImpactIn = new Map();
  for (const [to, m] of gtIn) gtImpactIn.set(to, new Set([...m].filter(([, k]) => [...k.keys()].some(x => GT_IMPACT_KINDS.has(x))).map(([f]) => f)));
  const hasCR = (id) => [...(gtIn.get(id)?.values() ?? [])].some(k => k.has('calls') || k.has('references'));

  // 3. targets
  const candidates = input.symbols.filter(s => TARGET_KINDS.has(s.kind)).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const withT = candidates.filter(s => hasCR(s.id)); const withoutT = candidates.filter(s => !hasCR(s.id));
  const targets = [
    ...sample(withT, opts.targets, rng(opts.seed)).map(s => ({ s, pool: 'with' })),
    ...sample(withoutT, opts.none, rng(opts.seed + 1)).map(s => ({ s, pool: 'none' })),
  ];
  log(`${repo.name}: ${targets.length} targets (${Math.min(opts.targets, withT.length)} of ${withT.length} with ground-truth edges, ${Math.min(opts.none, withoutT.length)} of ${withoutT.length} without)`);

  const views = {};
  for (const v of ['calls', 'refs', 'merged', 'heritage']) views[v] = Object.fromEntries(THRESHOLDS.map(t => [t, new PR()]));
  const tiers = {}; // tier → { calls: {n,tp}, merged: {n,tp} }
  const fnReasons = { calls: {}, merged: {} };
  const fps = []; const fns = [];
  let topLevelH = 0; let storedMismatch = 0; let storedChecked = 0;
  const imp = { heur: new PR(), enr: new PR(), heurAll: new PR(), enrAll: new PR(), heurAgg: new PR(), enrAgg: new PR() };
  const agent = { refsHeur: new PR(), refsEnr: new PR(), testsHeur: new PR(), testsEnr: new PR() };
  const enrMiss = { examples: [] };
  const heurMissByReason = {};
  let impactMs = 0; let maxImpact = { ms: 0, id: null };

  let done = 0;
  const perTarget = [];
  for (const { s, pool } of targets) {
    const id = s.id;
    // heuristic incoming edges
    const hEdges = (await incoming(eHeur, id, ['calls', 'references', 'extends', 'implements'])).filter(x => x.edge.provider === 'heuristic');
    const hBy = new Map(); // from → kind → {confidence, evidence, line, path}
    for (const x of hEdges) {
      if (x.from.kind === 'file' || !x.edge.from.startsWith('symbol:')) { topLevelH++; continue; }
      let k = hBy.get(x.edge.from); if (!k) hBy.set(x.edge.from, k = new Map());
      const prev = k.get(x.edge.kind);
      if (!prev || prev.confidence < x.edge.confidence) k.set(x.edge.kind, { confidence: x.edge.confidence, evidence: x.edge.evidence, tier: x.edge.tier ?? 'other', line: x.edge.line, path: x.edge.path });
    }
    const tBy = gtIn.get(id) ?? new Map();

    // the stored provider edges must be the adapter's output (reading them back through the index)
    const stored = (await incoming(eEnr, id, ['calls', 'references', 'extends', 'implements'])).filter(x => x.edge.provider === ad.provider);
    const storedKeys = new Set(stored.map(x => `${x.edge.from}\0${x.edge.kind}`));
    const rawKeys = new Set([...tBy].flatMap(([f, k]) => [...k.keys()].map(kind => `${f}\0${kind}`)));
    storedChecked++;
    if (storedKeys.size !== rawKeys.size || [...rawKeys].some(k => !storedKeys.has(k))) storedMismatch++;

    const hSet = (kinds, t) => new Set([...hBy].filter(([, k]) => kinds.some(kind => (k.get(kind)?.confidence ?? -1) >= t)).map(([f]) => f));
    const tSet = (kinds) => new Set([...tBy].filter(([, k]) => kinds.some(kind => k.has(kind))).map(([f]) => f));
    const VIEW_KINDS = { calls: ['calls'], refs: ['references'], merged: ['calls', 'references'], heritage: ['extends', 'implements'] };
    const rec = { id, pool, views: {}, impact: {} };
    perTarget.push(rec);
    for (const [v, kinds] of Object.entries(VIEW_KINDS)) {
      const T = tSet(kinds);
      for (const t of THRESHOLDS) {
        const H = hSet(kinds, t);
        rec.views[`${v}@${t}`] = [views[v][t].add(H, T), H.size, T.size];
      }
    }
    // tiers, false positives and negatives
    const Tc = tSet(['calls']); const Tm = tSet(['calls', 'references']);
    for (const [f, k] of hBy) {
      for (const [kind, e] of k) {
        if (kind !== 'calls' && kind !== 'references') continue;
        const tier = (tiers[e.tier] ??= { calls: { n: 0, tp: 0 }, merged: { n: 0, tp: 0 } });
        if (kind === 'calls') { tier.calls.n++; if (Tc.has(f)) tier.calls.tp++; }
        tier.merged.n++; if (Tm.has(f)) tier.merged.tp++;
        if (!Tm.has(f)) fps.push({ target: id, from: f, kind, ...e });
      }
    }
    for (const [view, T, kinds] of [['calls', Tc, ['calls']], ['merged', Tm, ['calls', 'references']]]) {
      for (const f of T) {
        const hk = hBy.get(f);
        if (hk && kinds.some(k => hk.has(k))) continue;
        let reason;
        if (hk) reason = `heuristic has it as ${[...hk.keys()].join('+')}`;
        else {
          const fs = symbols.get(f);
          const near = fs && [...hBy.keys()].some(h => { const hs = symbols.get(h); return hs && hs.path === fs.path && (hs.symbol_path.startsWith(`${fs.symbol_path}.`) || fs.symbol_path.startsWith(`${hs.symbol_path}.`)); });
          reason = near ? 'attributed to an enclosing/nested symbol' : 'no heuristic edge';
          if (!near) reason += (byName.get(s.name) ?? 0) > 3 ? ` (name shared by > 3 definitions: left unbound)` : ` (name shared by ≤ 3 definitions)`;
        }
        fnReasons[view][reason] = (fnReasons[view][reason] ?? 0) + 1;
        if (view === 'merged' && reason.startsWith('no heuristic edge')) {
          const ev = tBy.get(f);
          fns.push({ target: id, from: f, kind: [...ev.keys()].join('+'), evidence: [...ev.values()][0] });
        }
      }
    }

    // 3b. what an agent gets: find_references with default arguments, related_tests
    agent.refsHeur.add(await referencesTool(eHeur, id), tSet(['calls', 'references', 'extends', 'implements']));
    agent.refsEnr.add(await referencesTool(eEnr, id), tSet(['calls', 'references', 'extends', 'implements']));
    // Ground-truth tests: test cases (the engine's rule) in the reverse closure of the ground-truth edges.
    const asNode = (x) => ({ ...x, parent_path: x.symbol_path.includes('.') ? x.symbol_path.slice(0, x.symbol_path.lastIndexOf('.')) : null });
    const gtTests = new Set([...reverseClosure(id, gtImpactIn, core.TESTS_MAX_DEPTH).keys()].filter(n => symbols.has(n) && core.isTestCase(asNode(symbols.get(n)))));
    agent.testsHeur.add(await testsTool(eHeur, id), gtTests);
    agent.testsEnr.add(await testsTool(eEnr, id), gtTests);

    // 4. impact
    const ti = performance.now();
    const [ih, ie] = [await impactOf(eHeur, id, opts.depth), await impactOf(eEnr, id, opts.depth)];
    const took = performance.now() - ti;
    impactMs += took; if (took > maxImpact.ms) maxImpact = { ms: took, id };
    // Nested in the target / a container of it: by source range (overloads: `f~3` holds `f.inner`) or by
    // symbol path, as impact decides (merged declarations: `interface X` members are `X.m` of `class X`).
    const containerSeeds = s.kind === 'method' || s.kind === 'function';
    const spInside = (a, b) => a.path === b.path && a.symbol_path.startsWith(`${b.symbol_path}.`);
    const nested = (n) => { const x = symbols.get(n); return !!x && (within(x, s) || spInside(x, s)); };
    const container = (n) => { const x = symbols.get(n); return containerSeeds && !!x && x.id !== s.id && (within(s, x) || spInside(s, x)); };
    const gtDist = reverseClosure(id, gtImpactIn, opts.depth);
    // The target's own overload set (`f`, `f~2`, …) is the target itself (impact resolves a name to the whole set).
    const G = new Set([...gtDist.keys()].filter(n => !isTestPath(symbols.get(n)?.path ?? '') && !nested(n) && !container(n) && !sameName(n, id)));
    // The same closure without walking through the target's members or its container seeds: impact
    // reaches dependents of a container only as via_container, and never walks through the target's members.
    const Gagg = reverseClosure(id, new Map([...gtImpactIn].filter(([to]) => to === id || (!nested(to) && !container(to)))), opts.depth);
    const sets = (r) => {
      const sym = r.affected.filter(a => a.node.kind !== 'file');
      return { direct: new Set(sym.filter(a => !a.via_container).map(a => a.node.id)), all: new Set(sym.map(a => a.node.id)), byId: new Map(sym.map(a => [a.node.id, a])) };
    };
    const sh = sets(ih); const se = sets(ie);
    const GA = new Set([...G].filter(n => Gagg.has(n)));
    rec.impact.heur = [imp.heur.add(sh.direct, G), sh.direct.size, G.size];
    rec.impact.enr = [imp.enr.add(se.direct, G), se.direct.size, G.size];
    imp.heurAll.add(sh.all, G); imp.enrAll.add(se.all, G);
    imp.heurAgg.add(sh.direct, GA); imp.enrAgg.add(se.direct, GA); // recall only
    for (const n of G) {
      if (!se.direct.has(n)) {
        const a = se.byId.get(n);
        const agg = !Gagg.has(n);
        const key = agg ? (a ? 'aggregation_labelled' : 'aggregation') : a ? (a.distance < gtDist.get(n) ? 'via_container_nearer' : 'via_container_same_distance') : 'missing';
        enrMiss[key] = (enrMiss[key] ?? 0) + 1;
        const reason = agg ? `every ground-truth path within depth runs through a member or a container seed of the target (${a ? `labelled via_container at distance ${a.distance}` : 'not in affected'})`
          : a ? `labelled via_container (impact distance ${a.distance}, via ${a.via})` : 'not in affected (unexplained)';
        const ex = enrMiss.examples;
        if (ex.filter(x => x.key === key).length < 6) ex.push({ key, target: id, node: n, gt_distance: gtDist.get(n), reason });
      }
      if (!sh.direct.has(n)) {
        const reason = sh.all.has(n) ? 'labelled via_container' : gtDist.get(n) === 1 ? 'direct dependent missing' : 'transitive dependent missing';
        heurMissByReason[reason] = (heurMissByReason[reason] ?? 0) + 1;
      }
    }
    if (++done % 25 === 0) log(`${repo.name}: ${done}/${targets.length} targets`);
  }
  eHeur.close(); eEnr.close();

  return {
    name: repo.name, language: repo.language, dir: repo.dir, source: repo.source, adapter: ad.label, provider: ad.provider,
    files: ix.totals.files_seen, lines: langLines, heuristic_edges_total: ix.repos[0].edges_written,
    provider_report: prep, gt_dropped: gtDropped, provider_diagnostics: ixE.provider_diagnostics.map(d => d.message), gt_edges_total: output.edges.length, gt_kinds: gtKinds,
    candidates: { with: withT.length, without: withoutT.length }, targets: { with: Math.min(opts.targets, withT.length), none: Math.min(opts.none, withoutT.length) },
    views, tiers, fn_reasons: fnReasons, top_level_heuristic_edges: topLevelH, stored_check: { checked: storedChecked, mismatched: storedMismatch },
    per_target: perTarget, ci: bootstrap(perTarget, opts.seed),
    impact: imp, agent, enriched_misses: enrMiss, heuristic_impact_misses: heurMissByReason,
    examples: { fp: pick(fps, opts.examples, 'tier', opts.seed), fn: pick(fns, opts.examples, 'kind', opts.seed) },
    timings: { index_ms: indexMs, provider_ms: providerMs, impact_ms: impactMs, slowest_impact: maxImpact, total_ms: performance.now() - t0 },
  };
}

/**
 * 95% bootstrap intervals (1000 resamples of the targets, seeded) of the micro-averaged figures: a few
 * targets with many callers weigh a lot, so the sample matters.
 */
function bootstrap(per, seed) {
  const rand = rng(seed + 13);
  const keys = ['calls@0', 'calls@0.5', 'calls@0.75', 'merged@0', 'merged@0.75'];
  const acc = Object.fromEntries([...keys, 'impact.heur', 'impact.enr'].map(k => [k, { p: [], r: [] }]));
  const get = (x, k) => (k.startsWith('impact.') ? x.impact[k.slice(7)] : x.views[k]);
  for (let b = 0; b < 1000; b++) {
    const tot = Object.fromEntries(Object.keys(acc).map(k => [k, [0, 0, 0]]));
    for (let i = 0; i < per.length; i++) {
      const x = per[Math.floor(rand() * per.length)];
      for (const k of Object.keys(acc)) { const c = get(x, k); tot[k][0] += c[0]; tot[k][1] += c[1]; tot[k][2] += c[2]; }
    }
    for (const k of Object.keys(acc)) { const [tp, h, t] = tot[k]; if (h) acc[k].p.push(tp / h); if (t) acc[k].r.push(tp / t); }
  }
  const q = (a, f) => { const s = [...a].sort((x, y) => x - y); return s.length ? s[Math.min(s.length - 1, Math.floor(f * s.length))] : NaN; };
  return Object.fromEntries(Object.entries(acc).map(([k, v]) => [k, { p: [q(v.p, 0.025), q(v.p, 0.975)], r: [q(v.r, 0.025), q(v.r, 0.975)] }]));
}

/** `n` examples spread over the values of `key` (round robin), seeded. */
function pick(list, n, key, seed) {
  const groups = new Map();
  for (const x of sample(list, list.length, rng(seed + 7))) { const g = groups.get(x[key]) ?? []; g.push(x); groups.set(x[key], g); }
  const out = [];
  const gs = [...groups.values()];
  for (let i = 0; out.length < n && gs.some(g => g.length > i); i++) for (const g of gs) if (g[i] && out.length < n) out.push(g[i]);
  return out;
}

// ---------------------------------------------------------------- run
const started = performance.now();
log(`${selected.map(r => r.name).join(', ')}; seed ${opts.seed}, ${opts.targets}+${opts.none} targets per repository, impact depth ${opts.depth}; ${cpus().length} cores, load ${loadavg().map(x => x.toFixed(2)).join(' ')}`);
const results = [];
let crashed = false;
for (const repo of selected) {
  try { results.push(await runRepo(repo)); }
  catch (e) { crashed = true; console.error(`bench:graph: ${repo.name} crashed: ${e.stack ?? e}`); results.push({ name: repo.name, error: String(e.message ?? e) }); }
}

// ---------------------------------------------------------------- report
const out = [];
const P = (s = '') => out.push(s);
P('## Graph quality: heuristic edges vs compiler-grade ground truth');
P();
P(`seed ${opts.seed}; per repository ${opts.targets} targets with ≥ 1 ground-truth calls/references edge + ${opts.none} without (functions, methods, classes); impact depth ${opts.depth}; P / R = micro-averaged precision / recall of incoming edges per target.`);
P();
P('| repo | language | targets (with T / none) | H calls | T calls | calls P / R | H c+r | T c+r | calls+refs P / R | calls P / R ≥0.5 | calls P / R ≥0.75 | c+r P / R ≥0.75 | impact recall heur → enriched | same, excl. aggregation | impact precision heur → enriched |');
P('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of results) {
  if (r.error) { P(`| ${r.name} | — | crashed: ${r.error.split('\n')[0]} | | | | | | | | | | | | |`); continue; }
  const v = r.views;
  P(`| ${r.name} | ${r.language} (${r.provider}) | ${r.targets.with + r.targets.none} (${r.targets.with} / ${r.targets.none}) | ${v.calls[0].h} | ${v.calls[0].t} | ${pr(v.calls[0])} | ${v.merged[0].h} | ${v.merged[0].t} | ${pr(v.merged[0])} | ${pr(v.calls[0.5])} | ${pr(v.calls[0.75])} | ${pr(v.merged[0.75])} | ${fmt(r.impact.heur.recall)} → ${fmt(r.impact.enr.recall)} | ${fmt(r.impact.heurAgg.recall)} → ${fmt(r.impact.enrAgg.recall)} | ${fmt(r.impact.heur.precision)} → ${fmt(r.impact.enr.precision)} |`);
}
P();
P('What an agent gets by default (recall against the ground truth; precision in parentheses): find_references with default arguments (every kind of use), and related_tests (test cases reaching the target through the language server\'s call graph, any depth), on the heuristic index and with the language server\'s edges.');
P();
P('| repo | find_references recall, heuristic → with language-server edges | related_tests recall, heuristic → with language-server edges | ground-truth tests |');
P('| --- | --- | --- | --- |');
for (const r of results) {
  if (r.error) continue;
  const a = r.agent;
  P(`| ${r.name} | ${fmt(a.refsHeur.recall)} (${fmt(a.refsHeur.precision)}) → ${fmt(a.refsEnr.recall)} (${fmt(a.refsEnr.precision)}) | ${fmt(a.testsHeur.recall)} (${fmt(a.testsHeur.precision)}) → ${fmt(a.testsEnr.recall)} (${fmt(a.testsEnr.precision)}) | ${a.testsHeur.t} |`);
}
P();
for (const r of results) {
  if (r.error) { P(`FAIL  ${r.name}: crashed (${r.error.split('\n')[0]})`); continue; }
  const ok = THRESHOLDS.filter(t => r.views.calls[t].precision >= 0.9 && r.views.calls[t].recall >= 0.8);
  const pts = THRESHOLDS.map(t => `${t ? `≥${t}` : 'all'} ${pr(r.views.calls[t])}`).join(', ');
  P(`${ok.length ? 'PASS' : 'FAIL'}  ${r.name}: heuristic calls precision ≥ 0.9 at recall ≥ 0.8 — ${ok.length ? `met at ${ok.map(t => (t ? `confidence ≥ ${t}` : 'all edges')).join(', ')}` : 'not met'} (P / R: ${pts})`);
  const m = r.enriched_misses; const n = (k) => m[k] ?? 0;
  const er = r.impact.enrAgg.recall;
  P(`${er >= 0.9999 || (!Number.isFinite(er) && r.impact.enrAgg.t === 0) ? 'PASS' : 'FAIL'}  ${r.name}: enriched impact recall = ground truth's (1.00), modulo depth/aggregation — ${fmt(er, 3)} (${r.impact.enrAgg.tp}/${r.impact.enrAgg.t}); raw ${fmt(r.impact.enr.recall, 3)} (${r.impact.enr.tp}/${r.impact.enr.t}). Misses: ${n('via_container_nearer')} labelled via_container because a container reaches them sooner, ${n('via_container_same_distance')} labelled via_container at the same distance, ${n('missing')} not found; aggregation (only through the target's members or container seeds): ${n('aggregation') + n('aggregation_labelled')}`);
}
P();
P('### Details');
for (const r of results) {
  if (r.error) continue;
  const v = r.views;
  P();
  P(`#### ${r.name} (${r.source}) — ${r.files} files, ${r.lines} ${r.language} lines`);
  P(`- time: index ${secs(r.timings.index_ms)}, ${r.adapter} adapter ${secs(r.timings.provider_ms)}, impact ${secs(r.timings.impact_ms)} for ${(r.targets.with + r.targets.none) * 2} calls (slowest ${secs(r.timings.slowest_impact.ms)}: ${r.timings.slowest_impact.id}), total ${secs(r.timings.total_ms)}`);
  P(`- graph: ${r.heuristic_edges_total} heuristic edges (all kinds); ground truth ${r.gt_edges_total} edges (${Object.entries(r.gt_kinds).map(([k, n]) => `${k} ${n}`).join(', ')}); stored ${r.provider_report.edges}, skipped ${r.provider_report.skipped_edges}, invalid ${r.provider_report.invalid_edges}`);
  for (const d of r.provider_diagnostics) P(`  - adapter: ${d}`);
  P(`- ground-truth edges left out: ${r.gt_dropped.self} recursive (from = to), ${r.gt_dropped.sibling} between two definitions of one name (overloads / property accessors), ${r.gt_dropped.inner} references from inside the referenced definition${r.gt_dropped.examples.length ? `, e.g. ${r.gt_dropped.examples[0]}` : ''}`);
  P(`- candidates: ${r.candidates.with} with ground-truth calls/references edges, ${r.candidates.without} without`);
  P(`- stored provider edges read back through find_references equal the adapter's output for ${r.stored_check.checked - r.stored_check.mismatched}/${r.stored_check.checked} targets`);
  P(`- heuristic edges from top-level code (file nodes) left out: ${r.top_level_heuristic_edges} (the adapters skip references outside every symbol)`);
  P(`- P / R by kind (all / ≥0.5 / ≥0.75): calls ${THRESHOLDS.map(t => pr(v.calls[t])).join(' · ')}; references ${THRESHOLDS.map(t => pr(v.refs[t])).join(' · ')}; calls+refs ${THRESHOLDS.map(t => pr(v.merged[t])).join(' · ')}; extends+implements ${THRESHOLDS.map(t => pr(v.heritage[t])).join(' · ')}`);
  const ci = (k) => `P ${fmt(r.ci[k].p[0])}–${fmt(r.ci[k].p[1])}, R ${fmt(r.ci[k].r[0])}–${fmt(r.ci[k].r[1])}`;
  P(`- 95% bootstrap intervals over targets: calls ${ci('calls@0')}; calls ≥0.5 ${ci('calls@0.5')}; calls ≥0.75 ${ci('calls@0.75')}; calls+refs ${ci('merged@0')}; impact heuristic ${ci('impact.heur')}, enriched ${ci('impact.enr')}`);
  const heavy = [...r.per_target].sort((a, b) => b.views['calls@0'][2] - a.views['calls@0'][2]).slice(0, 3);
  P(`- targets with the most ground-truth callers: ${heavy.map(x => `${x.id.split(':').slice(2).join(':')} (T ${x.views['calls@0'][2]}, H ${x.views['calls@0'][1]}, both ${x.views['calls@0'][0]})`).join('; ')}`);
  P(`- heuristic edges by tier (calls: edges, precision | calls+refs: edges, precision): ${Object.entries(r.tiers).sort((a, b) => b[1].merged.n - a[1].merged.n).map(([t, x]) => `${t} ${x.calls.n}, ${fmt(x.calls.n ? x.calls.tp / x.calls.n : NaN)} | ${x.merged.n}, ${fmt(x.merged.n ? x.merged.tp / x.merged.n : NaN)}`).join('; ')}`);
  P(`- false negatives, calls: ${Object.entries(r.fn_reasons.calls).map(([k, n]) => `${k} ${n}`).join('; ') || 'none'}`);
  P(`- false negatives, calls+refs: ${Object.entries(r.fn_reasons.merged).map(([k, n]) => `${k} ${n}`).join('; ') || 'none'}`);
  P(`- impact (affected with via_container false vs ground truth): heuristic P / R ${pr(r.impact.heur)} (${r.impact.heur.h} found, ${r.impact.heur.t} true), enriched ${pr(r.impact.enr)} (${r.impact.enr.h} found); counting via_container dependents too: heuristic ${pr(r.impact.heurAll)}, enriched ${pr(r.impact.enrAll)}`);
  P(`- heuristic impact misses: ${Object.entries(r.heuristic_impact_misses).map(([k, n]) => `${k} ${n}`).join('; ') || 'none'}`);
  if (r.enriched_misses.examples.length) {
    P(`- enriched impact misses (up to 6 per kind):`);
    for (const m of r.enriched_misses.examples) P(`  - [${m.key}] ${m.target} ← ${m.node} (ground-truth distance ${m.gt_distance}): ${m.reason}`);
  }
  P(`- false positives (heuristic edge with no ground-truth calls/references edge for the pair):`);
  for (const e of r.examples.fp) P(`  - [${e.tier}, ${e.confidence}] ${e.kind} ${e.from} → ${e.target}: ${e.evidence}`);
  P(`- false negatives (ground-truth edge, no heuristic calls/references edge for the pair):`);
  for (const e of r.examples.fn) P(`  - [${e.kind}] ${e.from} → ${e.target}: ${e.evidence}`);
}
P();
P(`total ${secs(performance.now() - started)}${opts.keep ? `; index files and adapter input/output kept in ${work}` : ''}`);
console.log(out.join('\n'));
if (opts.json) {
  mkdirSync(dirname(opts.json), { recursive: true });
  writeFileSync(opts.json, JSON.stringify({ options: { ...opts, only: opts.only ? [...opts.only] : null }, results }, null, 1));
  log(`wrote ${opts.json}`);
}
if (opts.results) {
  const sampled = `${opts.targets} with ground truth and ${opts.none} without per repository, seed ${opts.seed}`;
  log(`wrote ${writeCalibration(results, core.TIERS, sampled, core.FAMILY_CONFIDENCE)}`);
}
process.exitCode = crashed ? 1 : 0;
