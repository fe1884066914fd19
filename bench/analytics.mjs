#!/usr/bin/env node
/**
 * analytics benchmark.
 *
 * 1. Time per kind on an indexed workspace (default: the ~1M-line benchmark workspace's index, built
 *    first with `sightline index DIR --db FILE`): each kind and level is one analytics call on a fresh
 *    source (so the whole-repository model is loaded every time); the floor, measured in the same run,
 *    is loading that model alone (every node and edge of every repository from the index).
 * 2. Import cycles against a compiler-grade import graph, on a TypeScript repository (default: a
 *    checkout of zod made in a temporary folder from its mirror): the repository is indexed, our file
 *    level cycles (strongly connected components of size ≥ 2) are compared with the components of the
 *    import graph the TypeScript compiler resolves (ts.createProgram over the repository's tsconfig,
 *    every import/export/require specifier of each file resolved with ts.resolveModuleName in the
 *    program's options and resolution mode), both restricted to the files both know. Reported: cycles
 *    identical in both, only ours, only the compiler's; files in a cycle by both / only one; and the
 *    import edges themselves (ours vs the compiler's).
 *
 *   node bench/analytics.mjs [--db INDEX --workspace DIR] [--ts-repo DIR | --ts-mirror GIT_DIR] [--json FILE]
 *
 * Needs `npm run build`. Heavy parts run once (2 shared cores).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const core = require(join(here, '..', 'dist', 'core.js'));
const { Engine, invokeTool, findTool } = core;
const ts = require('typescript');
const { DirectedGraph } = require('graphology');
const { stronglyConnectedComponents } = require('graphology-components');

const { values } = parseArgs({ options: {
  db: { type: 'string', default: '/tmp/analytics-bench/ws1m.sqlite' }, workspace: { type: 'string' },
  'ts-repo': { type: 'string' }, 'ts-mirror': { type: 'string', default: join(here, '..', '..', '.mirror', 'colinhacks+zod', 'repo') },
  json: { type: 'string' }, runs: { type: 'string', default: '1' },
} });
const RESERVED = /(hono|flask|gson|gin|ripgrep|rack|requests|pytest|pylint|seaborn|sphinx)/i;
const report = { timings: null, ts_comparison: null };
const ms = t0 => Math.round(performance.now() - t0);

async function callAll(engine, args) {
  // every page, no trimming: the whole answer
  const out = await invokeTool(findTool('analytics'), { ...args, limit: 100 }, { engine }, { max_chars: 50_000_000 });
  if (!out.ok) throw new Error(JSON.stringify(out));
  const results = [...out.data.results];
  for (let next = out.data.next_offset; next !== null;) {
    const p = await invokeTool(findTool('analytics'), { ...args, limit: 100, offset: next }, { engine }, { max_chars: 50_000_000 });
    results.push(...p.data.results); next = p.data.next_offset;
  }
  return { ...out.data, results };
}

// ---- 1. time per kind -----------------------------------------------------------------------------
if (existsSync(values.db)) {
  const engine = await Engine.open({ roots: values.workspace ? [values.workspace] : [], dbPath: values.db, threads: 0 });
  if (engine.roots.some(r => RESERVED.test(r.root))) throw new Error('reserved repository');
  const src = await engine.analytics();
  const repos = src.repos();
  let t0 = performance.now();
  let nodes = 0, edges = 0;
  for (const r of repos) { const m = src.model(r); nodes += m.nodes.size; edges += m.edges.length; }
  const floor = ms(t0);
  const rows = [];
  const cases = [['cycles', 'file'], ['cycles', 'symbol'], ['communities', 'file'], ['communities', 'symbol'], ['dead_code', 'symbol'], ['hotspots', 'symbol'], ['hotspots', 'file']];
  for (const [kind, level] of cases) {
    const times = [];
    let d;
    for (let i = 0; i < Number(values.runs); i++) {
      t0 = performance.now();
      const out = await invokeTool(findTool('analytics'), { kind, level, limit: 10 }, { engine });
      times.push(ms(t0)); d = out.data;
    }
    times.sort((a, b) => a - b);
    const extra = kind === 'communities' ? `modularity ${d.repos.map(x => x.modularity).join(', ')}` : kind === 'cycles' ? `largest ${d.results[0]?.size ?? 0}, name-only edges left out ${d.repos.map(x => x.excluded_name_only_edges).join(', ')}` : kind === 'hotspots' ? `ranked by ${d.ranked_by}` : '';
    rows.push({ kind, level, ms: times[Math.floor(times.length / 2)], over_floor: +(times[Math.floor(times.length / 2)] / Math.max(1, floor)).toFixed(2), results: d.total, note: extra });
  }
  engine.close();
  report.timings = { index: values.db, repos: repos.length, nodes, edges, floor_load_ms: floor, rows };
  console.log(`\n## analytics: time per kind (${nodes} nodes, ${edges} edges; floor = loading the model: ${floor} ms)\n`);
  console.log('| kind | level | ms | × floor | results | note |\n| --- | --- | --- | --- | --- | --- |');
  for (const r of rows) console.log(`| ${r.kind} | ${r.level} | ${r.ms} | ${r.over_floor} | ${r.results} | ${r.note} |`);
} else console.log(`(no index at ${values.db}: skipped the timings; build it with sightline index DIR --db ${values.db})`);

// ---- 2. import cycles vs the TypeScript compiler ----------------------------------------------------
let tmp = null;
let repo = values['ts-repo'];
if (!repo && existsSync(values['ts-mirror'])) {
  if (RESERVED.test(values['ts-mirror'])) throw new Error('reserved repository');
  tmp = mkdtempSync(join(tmpdir(), 'sl-analytics-ts-'));
  repo = join(tmp, 'repo');
  execFileSync('git', ['clone', '-q', '--shared', values['ts-mirror'], repo], { stdio: 'ignore' });
}
if (repo) {
  repo = resolve(repo);
  const db = join(tmp ?? mkdtempSync(join(tmpdir(), 'sl-analytics-ts-')), 'index.sqlite');
  const engine = await Engine.open({ roots: [repo], dbPath: db, threads: 2 });
  let t0 = performance.now();
  await engine.index({});
  const indexMs = ms(t0);
  t0 = performance.now();
  const ours = await callAll(engine, { kind: 'cycles', level: 'file', min_size: 2 });
  const oursMs = ms(t0);
  // our file import edges (for the edge comparison)
  const src = await engine.analytics();
  const m = src.model(src.repos()[0]);
  const ourFiles = new Set([...m.nodes.values()].filter(n => n.kind === 'file' && /^(typescript|tsx)$/.test(n.language)).map(n => n.path));
  const ourEdges = new Set();
  for (const e of m.edges) {
    if (e.kind !== 'imports' || e.from >= 0) continue;
    const a = m.nodes.get(e.from), b = m.nodes.get(e.to);
    if (a && b && a.path !== b.path && e.confidence >= 0.55) ourEdges.add(`${a.path}\0${b.path}`);
  }
  engine.close();

  t0 = performance.now();
  const cfgPath = ts.findConfigFile(repo, ts.sys.fileExists, 'tsconfig.json');
  const parsed = cfgPath ? ts.getParsedCommandLineOfConfigFile(cfgPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })
    : { options: { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext }, fileNames: [...ourFiles].map(f => join(repo, f)) };
  const options = { ...parsed.options, noEmit: true };
  const rootNames = [...new Set([...parsed.fileNames, ...[...ourFiles].map(f => join(repo, f))])].filter(f => !/\.d\.[cm]?ts$/.test(f));
  const program = ts.createProgram({ rootNames, options });
  const cache = ts.createModuleResolutionCache(repo, x => x, options);
  const tscEdges = new Set();
  let specifiers = 0, unresolved = 0;
  for (const sf of program.getSourceFiles()) {
    const from = relative(repo, sf.fileName).split('\\').join('/');
    if (from.startsWith('..') || from.includes('node_modules/') || !ourFiles.has(from)) continue;
    // the specifiers the compiler collected (imports, exports, require, import(), import types)
    const specs = sf.imports ?? ts.preProcessFile(sf.text, true, true).importedFiles.map(f => ({ text: f.fileName }));
    for (const s of specs) {
      specifiers++;
      const mode = program.getModeForUsageLocation ? program.getModeForUsageLocation(sf, s) : undefined;
      const r = ts.resolveModuleName(s.text, sf.fileName, options, ts.sys, cache, undefined, mode).resolvedModule;
      if (!r) { unresolved++; continue; }
      let to = relative(repo, r.resolvedFileName).split('\\').join('/');
      // a declaration file beside its source stands for the source
      if (!ourFiles.has(to)) { const alt = to.replace(/\.d\.([cm]?)ts$/, '.$1ts'); if (ourFiles.has(alt)) to = alt; }
      if (ourFiles.has(to) && to !== from) tscEdges.add(`${from}\0${to}`);
    }
  }
  const tscMs = ms(t0);
  const both = new Set([...ourFiles]);
  const sccs = edges => {
    const g = new DirectedGraph();
    for (const f of [...both].sort()) g.addNode(f);
    for (const e of edges) { const [a, b] = e.split('\0'); if (both.has(a) && both.has(b) && !g.hasEdge(a, b)) g.addEdge(a, b); }
    return stronglyConnectedComponents(g).filter(c => c.length >= 2).map(c => c.sort());
  };
  const ourCycles = ours.results.map(c => c.members.length === c.size ? c.members.map(x => x.path).sort() : null);
  // members are capped in the answer: recompute the full member sets from the same edges the tool used
  const oursFull = sccs(ourEdges);
  const tsc = sccs(tscEdges);
  const key = c => c.join('\n');
  const ok = new Set(oursFull.map(key)), tk = new Set(tsc.map(key));
  const inCycle = cs => new Set(cs.flat());
  const fo = inCycle(oursFull), ft = inCycle(tsc);
  const edgeBoth = [...ourEdges].filter(e => tscEdges.has(e)).length;
  const res = {
    repo: relative(join(here, '..', '..'), repo).startsWith('..') ? 'checkout' : repo, files: both.size, index_ms: indexMs, ours_ms: oursMs, compiler_ms: tscMs,
    tool_cycles: ours.total, tool_consistent: ourCycles.filter(Boolean).every(c => ok.has(key(c))),
    cycles: { both: [...ok].filter(k => tk.has(k)).length, only_ours: [...ok].filter(k => !tk.has(k)).length, only_compiler: [...tk].filter(k => !ok.has(k)).length },
    sizes: { ours: oursFull.map(c => c.length).sort((a, b) => b - a), compiler: tsc.map(c => c.length).sort((a, b) => b - a) },
    files_in_cycles: { both: [...fo].filter(f => ft.has(f)).length, only_ours: [...fo].filter(f => !ft.has(f)).length, only_compiler: [...ft].filter(f => !fo.has(f)).length },
    edges: { ours: ourEdges.size, compiler: tscEdges.size, both: edgeBoth, precision: +(edgeBoth / Math.max(1, ourEdges.size)).toFixed(3), recall: +(edgeBoth / Math.max(1, tscEdges.size)).toFixed(3), compiler_specifiers: specifiers, compiler_unresolved: unresolved },
  };
  report.ts_comparison = res;
  console.log(`\n## file-level import cycles vs the TypeScript compiler (${res.files} TypeScript files; index ${indexMs} ms, cycles ${oursMs} ms, compiler graph ${tscMs} ms)\n`);
  console.log('| | both | only ours | only compiler |\n| --- | --- | --- | --- |');
  console.log(`| cycles (identical member sets) | ${res.cycles.both} | ${res.cycles.only_ours} | ${res.cycles.only_compiler} |`);
  console.log(`| files in a cycle | ${res.files_in_cycles.both} | ${res.files_in_cycles.only_ours} | ${res.files_in_cycles.only_compiler} |`);
  console.log(`| import edges | ${edgeBoth} | ${ourEdges.size - edgeBoth} | ${tscEdges.size - edgeBoth} |`);
  console.log(`\ncycle sizes: ours ${JSON.stringify(res.sizes.ours)}, compiler ${JSON.stringify(res.sizes.compiler)}; the tool's answer agrees with the recomputed components: ${res.tool_consistent}`);
  console.log(`import edges: precision ${res.edges.precision}, recall ${res.edges.recall} (compiler: ${specifiers} specifiers, ${unresolved} unresolved: packages not installed)`);
}
if (tmp) rmSync(tmp, { recursive: true, force: true });
if (values.json) writeFileSync(values.json, JSON.stringify(report, null, 2));
