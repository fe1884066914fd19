#!/usr/bin/env node
// What is at stake, against what really runs (npm run bench:stake).
//
// For each project: its own test suite runs under a tracer, offline (bench/lib/stake-truth.mjs), and
// records every project caller → callee call and, per test function, the project functions it
// executed. The project is indexed into a fresh index; functions outside the tests that ran are
// sampled (seeded, stratified by how many direct callers they had), and the tools are asked as an
// agent asks them, with default arguments and every page:
//   find_references  direct callers found / direct callers that ran
//   impact depth 2,3 callers within that many calls found (outside test files; via_container not counted)
//   related_tests    test functions that executed the function found; precision = found tests that ran it
//                    / tests listed. "reachable" = tests whose calls reach the function through project
//                    code alone (no library frame, no other thread on the way).
//                    "likely": the same for the tests the answer marks likely (listed first).
// and counts answers that say none (no reference, no test) while the truth has some, and answers that
// claim complete while they miss truth. Dynamic truth is a lower bound of what the code can do, so recall
// is the headline and precision indicative.
//
// usage: npm run bench:stake [-- --only a,b] [--seed N] [--samples N] [--python PATH] [--data DIR]
//                               [--providers] [--label TEXT] [--json FILE] [--no-results]
//   --providers  index with the reference providers on (pyright for Python)
//   --data       where the projects are checked out (default ../benchdata/stake beside the checkout)
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { PROJECT_DIR, loadCore, rng } from './lib/common.mjs';
import { sample } from './lib/graph-metrics.mjs';
import { callersWithin, mapToNodes, readTruth, runTracer } from './lib/stake-truth.mjs';
import { writeResults } from './lib/results.mjs';
import { calibrationTable } from './lib/calibration.mjs';

const USAGE = 'usage: node bench/stake.mjs [--only a,b] [--seed N] [--samples N] [--python PATH] '
  + '[--data DIR] [--providers] [--label TEXT] [--json FILE] [--no-results]';

const PROJECTS = [
  { name: 'click', kind: 'python', repo: 'pallets/click', commit: '2c8cd3ac958a7eb316d67f2d316c27086c4c0369',
    pythonPath: ['src'], testArgs: ['tests'], about: 'command-line toolkit' },
  { name: 'jinja', kind: 'python', repo: 'pallets/jinja', commit: '5ef70112a1ff19c05324ff889dd30405b1002044',
    pythonPath: ['src'], testArgs: ['tests'], about: 'template engine' },
  { name: 'starlette', kind: 'python', repo: 'encode/starlette', commit: 'cb8f84f5284dc301ca7a31eb732b9e140769dd48',
    pythonPath: ['.'], testArgs: ['tests', '-W', 'ignore::DeprecationWarning'], about: 'web framework' },
  { name: 'rake', kind: 'ruby', repo: 'ruby/rake', commit: '474500ab2eec41ef28068e18e30f84fa412a098f',
    testArgs: ['-Ilib', '-Itest', '-e', 'Dir["test/test_*.rb"].sort.each { |f| require File.expand_path(f) }'],
    about: 'build tool' },
];

const opts = parseArgs(process.argv.slice(2));
const core = loadCore();
const log = (msg) => process.stderr.write(`[stake] ${msg}\n`);

function parseArgs(argv) {
  const o = { seed: 1, samples: 160, only: null, providers: false, label: null, json: null, results: true,
    data: resolve(PROJECT_DIR, '..', 'benchdata', 'stake'), python: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => argv[++i] ?? usage(`${a} needs a value`);
    if (a === '--only') o.only = new Set(v().split(','));
    else if (a === '--seed') o.seed = Number(v());
    else if (a === '--samples') o.samples = Number(v());
    else if (a === '--python') o.python = resolve(v());
    else if (a === '--data') o.data = resolve(v());
    else if (a === '--providers') o.providers = true;
    else if (a === '--label') o.label = v();
    else if (a === '--json') o.json = resolve(v());
    else if (a === '--no-results') o.results = false;
    else usage(a === '--help' ? '' : `unknown argument ${a}`);
  }
  o.python ??= join(o.data, '.venv', 'bin', 'python');
  return o;
}

function usage(msg) {
  console.error(`${msg ? `bench:stake: ${msg}\n` : ''}${USAGE}`);
  process.exit(msg ? 2 : 0);
}

async function call(engine, name, args) {
  const r = await core.invokeTool(core.TOOLS[name], args, { engine });
  if (!r.ok) throw new Error(`${name}(${JSON.stringify(args).slice(0, 200)}): ${r.error?.code}: ${r.error?.message}`);
  return r.data;
}

/** Every page of a paged tool's list `key`; the first page's answer is returned beside the items. */
async function allPages(engine, name, args, key, limit) {
  const items = [];
  let first = null;
  for (let offset = 0; ;) {
    const d = await call(engine, name, { ...args, limit, offset });
    first ??= d;
    items.push(...d[key]);
    if (d.next_offset === null || d.next_offset === undefined) break;
    offset = d.next_offset;
  }
  return { first, items };
}

/** The compiler-grade provider of the project's language, run as index_repo runs any provider. */
function providerSpecs(p) {
  if (p.kind !== 'python') return [];
  const cli = join(PROJECT_DIR, 'dist', 'cli.js');
  return [{ name: 'pyright', command: process.execPath, args: [cli, 'provider', 'python', '--timeout-ms', '1200000'],
    languages: ['python'], compiler_grade: true, strict: false, timeout_ms: 1_300_000 }];
}

// ---------------------------------------------------------------- one project
/** A short hash of the tracer's source: a changed tracer records its traces anew. */
function tracerVersion(kind) {
  const file = join(PROJECT_DIR, 'bench', 'lib', kind === 'python' ? 'stake_trace.py' : 'stake_trace.rb');
  return createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 8);
}

async function runProject(p) {
  const dir = join(opts.data, p.name);
  if (!existsSync(dir)) throw new Error(`${p.name} not found at ${dir} (see bench/README.md, "What is at stake")`);
  const project = { ...p, dir, python: opts.python };
  const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim();
  const traceFile = join(opts.data, '.traces', `${p.name}-${commit.slice(0, 12)}-${tracerVersion(p.kind)}.json`);
  if (!existsSync(traceFile)) runTracer(project, traceFile, log);
  const truth = readTruth(traceFile);

  const work = mkdtempSync(join(tmpdir(), `sightline-stake-${p.name}-`));
  try {
    const engine = await core.Engine.open({ roots: [dir], dbPath: join(work, 'index.sqlite'),
      allowReferenceProviders: opts.providers });
    const t0 = performance.now();
    const ix = await call(engine, 'index_repo', opts.providers ? { reference_providers: providerSpecs(p) } : {});
    const indexSeconds = (performance.now() - t0) / 1000;
    const out = await measure(engine, truth, project);
    await engine.close?.();
    return { name: p.name, about: p.about, commit, kind: p.kind, indexSeconds, files: ix.totals.files_seen, ...out };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function measure(engine, truth, project) {
  const g = await engine.graph();
  const status = await call(engine, 'index_status', {});
  const repoId = status.roots[0].repo_id;
  const symbolsOf = (path) => g.symbolsAt(repoId, path)?.map(located) ?? null;
  const fileNodeId = (path) => `file:${repoId}:${path}`;
  const ids = mapToNodes(truth.functions, symbolsOf, fileNodeId);
  const isTest = (i) => truth.functions[i].isTest || core.isTestPath(truth.functions[i].path);
  const targets = pickTargets(truth, ids, isTest);
  log(`${project.name}: ${truth.functions.length} functions ran, ${ids.size} found in the index; `
    + `${targets.length} sampled`);
  const m = newMetrics();
  for (const t of targets) await measureOne(engine, truth, ids, isTest, t, m);
  const tiers = tierPrecision(g, truth, ids);
  return { ...summarise(m), tiers, functions: truth.functions.length, mapped: ids.size, own: ids.own.size, testCount: truth.tests };
}

/**
 * Each heuristic tier's precision against what runs: call edges between two functions that both ran,
 * counted right when the traced caller called the callee. A lower bound (a call site in a branch the
 * tests never took counts as wrong), comparable across tiers of one project.
 */
function tierPrecision(g, truth, ids) {
  const byNodeId = new Map([...ids].map(([i, id]) => [id, i]));
  const rows = [...ids.values()].map(id => g.lookup(id)[0]).filter(Boolean);
  const out = g.edgesOfMany(rows, 'out', ['calls']);
  const tiers = {};
  for (const n of rows) {
    const caller = byNodeId.get(core.toNodeRef(n).id);
    for (const { neighbour, edge } of out.get(n.node) ?? []) {
      const callee = byNodeId.get(core.toNodeRef(neighbour).id);
      if (callee === undefined || callee === caller || !edge.tier) continue;
      const x = (tiers[edge.tier] ??= { merged: { n: 0, tp: 0 } }).merged;
      x.n++;
      if (truth.callersOf.get(callee)?.has(caller)) x.tp++;
    }
  }
  // the tiers read at query time (overrides, patches, callable types, callbacks) are incoming edges only
  const incoming = g.edgesOfMany(rows, 'in', ['calls']);
  for (const n of rows) {
    const callee = byNodeId.get(core.toNodeRef(n).id);
    for (const { neighbour, edge } of incoming.get(n.node) ?? []) {
      const caller = byNodeId.get(core.toNodeRef(neighbour).id);
      if (caller === undefined || callee === caller || !QUERY_TIME_TIERS.has(edge.tier)) continue;
      const x = (tiers[edge.tier] ??= { merged: { n: 0, tp: 0 } }).merged;
      x.n++;
      if (truth.callersOf.get(callee)?.has(caller)) x.tp++;
      else if (process.env.STAKE_WRONG === edge.tier) process.stderr.write(`wrong ${edge.tier}: ${edge.evidence}\n`);
    }
  }
  return tiers;
}

const QUERY_TIME_TIERS = new Set(['dispatch', 'patch', 'protocol', 'callback']);

/** A definition as the truth mapping reads it: its answer id, names and lines. */
const located = (n) => ({ id: core.toNodeRef(n).id, path: n.path, name: n.name, symbol_path: n.symbol_path, kind: n.kind, start_line: n.start_line, end_line: n.end_line });

/**
 * Non-test functions that some project code called or some test executed, stratified by direct callers:
 * those with a function or method symbol of their own (`ids.own`), one per symbol.
 */
function pickTargets(truth, ids, isTest) {
  const strata = [[], [], [], []];
  const symbols = new Set();
  for (const f of truth.functions) {
    if (isTest(f.i) || !ids.own.has(f.i) || symbols.has(ids.get(f.i))) continue;
    symbols.add(ids.get(f.i));
    const callers = truth.callersOf.get(f.i)?.size ?? 0;
    if (!callers && !truth.testsOf.get(f.i)?.size) continue;
    strata[callers === 0 ? 0 : callers === 1 ? 1 : callers <= 4 ? 2 : 3].push(f.i);
  }
  const rand = rng(opts.seed);
  const per = Math.ceil(opts.samples / strata.length);
  const picked = strata.flatMap(s => sample(s, per, rand));
  const rest = strata.flat().filter(i => !picked.includes(i));
  return [...picked, ...sample(rest, Math.max(0, opts.samples - picked.length), rand)];
}

// ---------------------------------------------------------------- per target
const ratio = (a, b) => (b ? a / b : NaN);

class Recall {
  constructor() { this.found = 0; this.truth = 0; this.listed = 0; this.right = 0; this.none = 0; this.falseComplete = 0; this.asked = 0; }
  /** One answer: `got` (ids listed), `truth` (ids that ran), whether it claimed complete. */
  add(got, truth, complete) {
    this.asked++;
    let found = 0;
    for (const x of truth) if (got.has(x)) found++;
    let right = 0;
    for (const x of got) if (truth.has(x)) right++;
    this.found += found; this.truth += truth.size; this.listed += got.size; this.right += right;
    if (truth.size && !got.size) this.none++;
    if (complete && found < truth.size) this.falseComplete++;
  }
  get recall() { return ratio(this.found, this.truth); }
  get precision() { return ratio(this.right, this.listed); }
}

function newMetrics() {
  return { refs: new Recall(), impact2: new Recall(), impact3: new Recall(), tests: new Recall(), testsThatRan: new Recall(),
    reachable: new Recall(), likely: { reachable: new Recall(), ran: new Recall() }, testsWithin: Object.fromEntries([1, 2, 3].map(k => [k, { reachable: new Recall(), ran: new Recall() }])),
    targets: 0, withCallers: 0, withTests: 0, examples: [], details: [] };
}

const ranTestMemo = new WeakMap();
/** Node ids of every test function the suite ran. */
function ranTestIds(truth, ids) {
  if (!ranTestMemo.has(truth)) ranTestMemo.set(truth, idsOf(truth, ids, truth.testsRan));
  return ranTestMemo.get(truth);
}

const idsOf = (truth, ids, set, keep = () => true) => new Set([...set].filter(keep).map(i => ids.get(i)).filter(Boolean));

async function measureOne(engine, truth, ids, isTest, t, m) {
  const id = ids.get(t);
  m.targets++;
  const drop = (s) => { s.delete(id); return s; };
  const direct = drop(idsOf(truth, ids, truth.callersOf.get(t) ?? []));
  const refs = await allPages(engine, 'find_references', { symbol: id }, 'references', 500);
  m.refs.add(new Set(refs.items.map(r => r.from.id)), direct, refs.first.complete);
  if (direct.size) m.withCallers++;

  let impactMissed = [];
  for (const depth of [2, 3]) {
    const want = drop(idsOf(truth, ids, callersWithin(truth.callersOf, t, depth), i => !isTest(i)));
    const got = await allPages(engine, 'impact', { symbol: id, depth }, 'affected', 500);
    const listed = new Set(got.items.filter(a => !a.via_container).map(a => a.node.id));
    m[`impact${depth}`].add(listed, want, got.first.complete);
    if (depth === 3) impactMissed = [...want].filter(x => !listed.has(x));
  }

  const ran = idsOf(truth, ids, truth.testsOf.get(t) ?? [], isTest);
  const reach = callersWithin(truth.callersOf, t, Infinity);
  const reachable = idsOf(truth, ids, truth.testsOf.get(t) ?? [], i => isTest(i) && reach.has(i));
  const tests = await allPages(engine, 'related_tests', { symbol: id }, 'tests', 200);
  const listed = new Set(tests.items.map(x => x.node.id));
  m.tests.add(listed, ran, tests.first.complete);
  // a listed test the suite never ran (skipped, deselected, a helper named like a test) says nothing either way
  const suiteRan = ranTestIds(truth, ids);
  m.testsThatRan.add(new Set([...listed].filter(x => suiteRan.has(x))), ran, false);
  for (const [cut, r] of Object.entries(m.testsWithin)) {
    const near = new Set(tests.items.filter(x => x.distance <= Number(cut)).map(x => x.node.id));
    r.reachable.add(near, reachable, false);
    r.ran.add(near, ran, false);
  }
  m.reachable.add(listed, reachable, tests.first.complete);
  const likely = new Set(tests.items.filter(x => x.likely).map(x => x.node.id));
  m.likely.reachable.add(likely, reachable, false);
  m.likely.ran.add(likely, ran, false);
  if (ran.size) m.withTests++;
  const hits = (got, want) => [...want].filter(x => got.has(x)).length;
  const listedCallers = new Set(refs.items.map(r => r.from.id));
  m.details.push({ id, callers: [hits(listedCallers, direct), direct.size],
    missed_callers: [...direct].filter(x => !listedCallers.has(x)), missed_impact3: impactMissed,
    tests: [hits(listed, ran), ran.size, listed.size], complete: { refs: refs.first.complete, tests: tests.first.complete },
    likely: [hits(likely, ran), likely.size], likely_wrong: tests.items.filter(x => x.likely && !ran.has(x.node.id)
      && suiteRan.has(x.node.id)).slice(0, 4).map(x => `${x.node.id} ← ${x.via.join(" < ")} :: ${x.reason}`),
    likely_missed: tests.items.filter(x => !x.likely && ran.has(x.node.id)).slice(0, 3).map(x => `${x.node.id} ← ${x.via.join(" < ")}`) });
  if (m.examples.length < 12 && direct.size && refs.items.length < direct.size) {
    const missed = [...direct].filter(x => !refs.items.some(r => r.from.id === x)).slice(0, 3);
    m.examples.push(`${id}: ${refs.items.length} reference(s) listed, ${direct.size} caller(s) ran; missed ${missed.join(', ')}`);
  }
}

function summarise(m) {
  const r = (x) => ({ recall: x.recall, precision: x.precision, none: x.none, falseComplete: x.falseComplete,
    found: x.found, truth: x.truth, asked: x.asked });
  return { testsListed: m.tests.listed, targets: m.targets, withCallers: m.withCallers, withTests: m.withTests, refs: r(m.refs),
    impact2: r(m.impact2), impact3: r(m.impact3), tests: r(m.tests), testsThatRan: r(m.testsThatRan), reachable: r(m.reachable),
    testsWithin: Object.fromEntries(Object.entries(m.testsWithin).map(([k, v]) => [k, { recall: v.reachable.recall,
      precision: v.ran.precision }])),
    likely: { recall: m.likely.reachable.recall, precision: m.likely.ran.precision, listed: m.likely.ran.listed,
      none: m.likely.ran.none },
    examples: m.examples,
    details: m.details };
}

// ---------------------------------------------------------------- report
const pct = (x) => (Number.isFinite(x) ? `${Math.round(x * 100)}%` : '—');

function report(results) {
  const mode = opts.providers ? 'with the reference providers (pyright)' : 'heuristic graph (default arguments)';
  const lines = [
    `Index: ${mode}${opts.label ? `; ${opts.label}` : ''}. ${opts.samples} functions sampled per project `
      + `(seed ${opts.seed}), stratified by direct callers that ran (0, 1, 2–4, 5+), one per function or method symbol `
      + '(functions with no symbol of their own, such as methods a class defines at run time, are not asked about).',
    '',
    '| project | kind | functions ran / in index / own symbol | direct callers (find_references) | impact ≤2 | impact ≤3 '
      + '| related_tests recall (reachable) | related_tests precision (of listed tests the suite ran) | "none" while some ran: refs / tests '
      + '| "complete" while missing: refs / impact≤3 / tests | index s |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const x of results) {
    if (x.error) { lines.push(`| ${x.name} | — | failed: ${x.error} | | | | | | | | |`); continue; }
    lines.push(`| ${x.name} (${x.about}) | ${x.kind} | ${x.functions} / ${x.mapped} / ${x.own} | ${pct(x.refs.recall)} `
      + `(${x.refs.found}/${x.refs.truth}) | ${pct(x.impact2.recall)} | ${pct(x.impact3.recall)} `
      + `| ${pct(x.tests.recall)} (${pct(x.reachable.recall)}) | ${pct(x.tests.precision)} (${pct(x.testsThatRan.precision)}) `
      + `| ${x.refs.none} / ${x.tests.none} of ${x.targets} `
      + `| ${x.refs.falseComplete} / ${x.impact3.falseComplete} / ${x.tests.falseComplete} | ${x.indexSeconds.toFixed(1)} |`);
  }
  lines.push('', 'Targets: done means direct callers ≥ 95%, impact ≤3 ≥ 90%, related_tests recall (reachable) ≥ 80% '
    + 'at precision ≥ 70%, no "none" answer while some ran.');
  lines.push('', 'related_tests by distance (tests listed at most that many calls from the function): recall of the '
    + 'project-reachable tests / precision against the tests that ran it.', '',
  '| project | ≤ 1 call | ≤ 2 calls | ≤ 3 calls | all |', '| --- | --- | --- | --- | --- |');
  for (const x of results) {
    if (x.error) continue;
    const cell = (r) => `${pct(r.recall)} / ${pct(r.precision)}`;
    lines.push(`| ${x.name} | ${[1, 2, 3].map(k => cell(x.testsWithin[k])).join(' | ')} | ${pct(x.reachable.recall)} / `
      + `${pct(x.tests.precision)} |`);
  }
  lines.push('', 'related_tests, the tests it marks likely (listed first): recall of the project-reachable tests / precision '
    + 'against the tests that ran it / tests listed as likely / answers with no likely test while some ran.', '',
  '| project | likely: recall | likely: precision | likely listed | all listed | no likely test while some ran |',
  '| --- | --- | --- | --- | --- | --- |');
  for (const x of results) {
    if (x.error) continue;
    lines.push(`| ${x.name} | ${pct(x.likely.recall)} | ${pct(x.likely.precision)} | ${x.likely.listed} | ${x.testsListed} `
      + `| ${x.likely.none} of ${x.targets} |`);
  }
  lines.push('', 'Confidence by tier against what runs: heuristic call edges between two functions that both ran, '
    + 'counted right when the traced caller called the callee (a lower bound: a call in a branch the tests never '
    + 'took counts as wrong).', '');
  lines.push(calibrationTable(results.filter(x => !x.error).map(x => ({ ...x, language: x.kind })), core.TIERS,
    core.FAMILY_CONFIDENCE));
  lines.push('', 'Projects (public, at the commit shown):', '');
  for (const x of results) if (!x.error) lines.push(`- ${x.name}: ${PROJECTS.find(p => p.name === x.name).repo} \`${x.commit.slice(0, 12)}\``);
  return lines.join('\n');
}

// ---------------------------------------------------------------- main
const chosen = PROJECTS.filter(p => !opts.only || opts.only.has(p.name));
const results = [];
for (const p of chosen) {
  try {
    results.push(await runProject(p));
  } catch (e) {
    log(`${p.name}: ${e.message}`);
    results.push({ name: p.name, error: e.message.split('\n')[0].slice(0, 160) });
  }
}
const text = report(results);
console.log(text);
for (const x of results) for (const e of x.examples ?? []) log(`${x.name} example: ${e}`);
if (opts.json) writeFileSync(opts.json, JSON.stringify(results, null, 1));
if (opts.results) {
  const section = opts.providers ? 'stake-providers' : 'stake';
  const title = opts.providers ? 'What is at stake, with reference providers (bench:stake --providers)' : 'What is at stake (bench:stake)';
  log(`wrote ${writeResults(section, title, text)}`);
}
process.exit(results.some(x => x.error) ? 1 : 0);
