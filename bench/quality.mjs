#!/usr/bin/env node
// Retrieval quality of search_code, against a standard BM25 baseline computed in the same run.
//
// Two kinds of cases, each "which files should change?":
//   commit — query = a commit message, gold = the source files the commit changed (make-cases.mjs),
//            index at the parent commit; 5 repositories with their git history.
//   issue  — SWE-bench Lite instances of django, sympy, matplotlib, scikit-learn, astropy and xarray
//            (the other Lite repositories are reserved for an independent check and never used):
//            query = the whole problem statement, gold = the indexable source files the gold patch
//            changes (their paths at the base commit), index at the base commit.
// Each repository is cloned (shared, no network) into a temporary folder; per case it is checked out,
// the engine's index is updated incrementally, the baseline's in-memory index is updated with the files
// that changed, and both are asked the query. Ours: search_code (limit 100), files in order of first
// appearance (or its `files` list when it has one). Baseline: Okapi BM25 over whole files
// (bench/lib/bm25.mjs: k1 1.2, b 0.75, identifier-splitting tokens, no stop list, each distinct query
// token once), over the same files the engine walks. Scores per distinct file: R@1/5/10, MRR.
//
// usage: npm run bench:quality -- [--kinds commit,issue] [--max 60] [--max-issues N] [--seed 1]
//          [--repo NAME=GITDIR]... [--swe-repo NAME=GITDIR]... [--dataset FILE] [--json FILE]
//          [--details] [--vector] [--self-check] [--signals FILE] [--results NAME]
//          [--quick] [--cache DIR]
// --quick runs only the cases of bench/quick-cases.json (a subset chosen to track the full run: made by
// `bench/fusion-replay.mjs --select-quick N` from a full run's --signals; every full run prints the subset's
// figures beside its own). --cache DIR keeps each repository's clone and index in DIR between runs, so a
// later run updates them instead of indexing every repository from nothing (a schema change rebuilds).
// --results NAME also writes the report to bench/RESULTS.md as section quality-NAME (e.g. the new
// languages' repositories: --results languages).
// --signals FILE writes, per case, every candidate file's normalised ranking signals (JSON lines) for
// offline tuning of the fusion; it adds a fan-in computation to each search, so latency is not comparable.
// Exit code: 0 (a report, whatever the verdicts), 2 when data is missing, 1 when something crashed.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { Bm25Index, selfCheck } from './lib/bm25.mjs';
import { writeResults } from './lib/results.mjs'; // labels the run with the commit it started at
import { filesFromSearch, patchFiles, pct, readInstances, score, seededSample, summarize } from './lib/retrieval.mjs';
import { loadQuick, quickLines } from './lib/quick.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

// ---------- options ----------
const args = process.argv.slice(2);
const KNOWN = new Set(['--text-files', '--kinds', '--max', '--max-issues', '--seed', '--repo', '--swe-repo', '--dataset', '--json', '--signals', '--results',
  '--details', '--vector', '--self-check', '--quick', '--cache', '--help', '-h']);
const FLAGS = new Set(['--details', '--vector', '--self-check', '--quick', '--help', '-h']);
for (let i = 0; i < args.length; i++) {
  if (!KNOWN.has(args[i])) die(`unknown argument: ${args[i]} (see the header of bench/quality.mjs)`);
  if (!FLAGS.has(args[i])) { if (i + 1 >= args.length) die(`missing value for ${args[i]}`); i++; }
}
if (args.includes('--help') || args.includes('-h')) {
  console.log(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').filter(l => l.startsWith('//')).map(l => l.slice(3)).join('\n'));
  process.exit(0);
}
const opt = (name, d) => { const i = args.lastIndexOf(`--${name}`); return i >= 0 ? args[i + 1] : d; };
const many = name => args.flatMap((a, i) => (a === `--${name}` ? [args[i + 1]] : [])).map(s => {
  const eq = s.indexOf('=');
  if (eq <= 0) die(`--${name} wants NAME=GITDIR, got ${s}`);
  return [s.slice(0, eq), resolve(s.slice(eq + 1))];
});
const int = (name, d) => { const v = opt(name, d); const n = Number(v); if (!Number.isInteger(n) || n < 0) die(`--${name} wants a whole number, got ${v}`); return n; };

/** Per path, the positions (0 = HEAD) and ages in days of the last `n` non-merge commits touching it (for --signals). */
function recentTouches(tree, n) {
  let out;
  // a mirror snapshot may lack objects git log needs: no positions then, the case still counts
  try { out = execFileSync('git', ['-C', tree, 'log', '--no-merges', '--format=@%ct', '--name-only', '-n', String(n), 'HEAD'], { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] }); } catch { return new Map(); }
  const m = new Map();
  let i = -1, head = 0, t = 0;
  for (const line of out.split('\n')) {
    if (line.startsWith('@')) { i++; t = Number(line.slice(1)); if (i === 0) head = t; continue; }
    if (!line) continue;
    let h = m.get(line);
    if (!h) m.set(line, h = { pos: [], age_days: [] });
    h.pos.push(i); h.age_days.push(Math.round((head - t) / 8640) / 10);
  }
  return m;
}

function die(msg, code = 2) { console.error(`bench:quality: ${msg}`); process.exit(code); }

if (args.includes('--self-check')) {
  const fails = selfCheck();
  for (const f of fails) console.log(`FAIL ${f}`);
  console.log(fails.length ? `self-check: ${fails.length} failed` : 'self-check: tokenizer and BM25 OK');
  process.exit(fails.length ? 1 : 0);
}

/** commit: commit messages → source files; issue: SWE-bench issues → source files; text: commit messages → the docs/config files they changed */
const ALL_KINDS = ['commit', 'issue', 'text'];
const KINDS = new Set(opt('kinds', 'commit,issue').split(',').map(s => s.trim()).filter(Boolean));
for (const k of KINDS) if (!ALL_KINDS.includes(k)) die(`unknown kind ${k} (${ALL_KINDS.join(', ')})`);
// --text-files off: the engine and the baseline index source files alone (the A/B of text files on code questions)
const TEXT_FILES = opt('text-files', 'on');
if (TEXT_FILES !== 'on' && TEXT_FILES !== 'off') die(`--text-files on|off, got ${TEXT_FILES}`);
const MAX = int('max', '60');
const MAX_ISSUES = int('max-issues', String(Number.MAX_SAFE_INTEGER));
const SEED = int('seed', '1');
const VECTOR = args.includes('--vector');
const DETAILS = args.includes('--details');
const JSON_OUT = opt('json');
const SIGNALS_OUT = opt('signals');
const LIMIT = 100;
const QUICK_FILE = join(here, 'quick-cases.json');
const QUICK = args.includes('--quick') ? loadQuick(QUICK_FILE) : null;
if (args.includes('--quick') && !QUICK) die(`--quick: ${QUICK_FILE} is missing (bench/fusion-replay.mjs --select-quick N makes it)`);
const CACHE = opt('cache') ? resolve(opt('cache')) : null;
/** The cases of `kind` a --quick run keeps (all of them otherwise). */
const quickOnly = (kind, cases) => {
  if (!QUICK) return cases;
  if (!QUICK.kinds[kind]) die(`--quick: ${QUICK_FILE} has no ${kind} cases`);
  return cases.filter(c => QUICK.kinds[kind].includes(c.id));
};

const MIRRORS = process.env.SIGHTLINE_BENCH_MIRRORS ?? resolve(here, '..', '..', '.mirror');
const COMMIT_REPOS = { zod: 'colinhacks+zod', httpx: 'encode+httpx', cobra: 'spf13+cobra', clap: 'clap-rs+clap', jsoup: 'jhy+jsoup' };
/** The SWE-bench Lite repositories this benchmark may use. The others are reserved: never add them. */
const SWE_REPOS = ['django/django', 'sympy/sympy', 'matplotlib/matplotlib', 'scikit-learn/scikit-learn', 'astropy/astropy', 'pydata/xarray'];
const DATASET_MIRROR = join(MIRRORS, 'PaulRoewer+swe-bench-lite-api', 'repo');
const DATASET_PATH = 'src/main/resources/swe-bench-lite.json';

// ---------- data ----------
const commitRepos = many('repo');
const commitTargets = commitRepos.length ? commitRepos : Object.entries(COMMIT_REPOS).map(([n, m]) => [n, join(MIRRORS, m, 'repo')]);
const sweDirs = new Map(SWE_REPOS.map(r => [r, join(MIRRORS, r.replace('/', '+'), 'repo')]));
for (const [name, dir] of many('swe-repo')) {
  const full = SWE_REPOS.find(r => r === name || r.split('/')[1] === name);
  if (!full) die(`--swe-repo ${name}: only ${SWE_REPOS.join(', ')} may be used (the other SWE-bench Lite repositories are reserved)`);
  if (!existsSync(dir)) die(`--swe-repo ${name}: ${dir} not found`);
  sweDirs.set(full, dir);
}
if (KINDS.has('commit') || KINDS.has('text')) {
  for (const [name, gitDir] of commitTargets) {
    if (!existsSync(gitDir)) die(`repository ${name} not found at ${gitDir} (see bench/README.md to fetch it, or pass --repo ${name}=GITDIR)`);
  }
}

if (!existsSync(join(here, '..', 'dist', 'core.js'))) die('dist/core.js is missing: run "npm run build" first');
// A build during the run (a merge, a test) must not change the engine half-way: the parser workers and
// grammars load lazily from next to core.js, so a rebuilt dist/ would mix two builds. Work from a copy.
const distCopy = mkdtempSync(join(tmpdir(), 'sightline-quality-dist-'));
cpSync(join(here, '..', 'dist'), join(distCopy, 'dist'), { recursive: true, filter: (src) => !src.endsWith('.map') });
if (existsSync(join(here, '..', 'node_modules'))) symlinkSync(join(here, '..', 'node_modules'), join(distCopy, 'node_modules'), 'dir');
process.on('exit', () => rmSync(distCopy, { recursive: true, force: true }));
const core = require(join(distCopy, 'dist', 'core.js'));
const gitIn = (dir, a, input) => execFileSync('git', ['-C', dir, ...a], { encoding: 'utf8', maxBuffer: 1 << 30, input, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
const firstLine = q => (q.split('\n').map(l => l.trim()).find(Boolean) ?? '').slice(0, 160);
const short = r => r.split('/')[1];

/** Issue cases: the Lite instances of the permitted repositories that have a mirror here. */
function issueCases() {
  let text;
  const file = opt('dataset');
  if (file) {
    if (!existsSync(file)) die(`--dataset ${file} not found`);
    text = readFileSync(file, 'utf8');
  } else {
    if (!existsSync(DATASET_MIRROR)) die(`the SWE-bench Lite data (${DATASET_PATH} of ${DATASET_MIRROR}) is missing: pass --dataset FILE or see bench/README.md`);
    text = gitIn(DATASET_MIRROR, ['show', `HEAD:${DATASET_PATH}`]);
  }
  const all = readInstances(text);
  const info = { dataset: file ?? `${DATASET_MIRROR}:${DATASET_PATH}`, instances: all.length, repos: [], unavailable: [], excluded: [] };
  const eligible = [];
  for (const repo of SWE_REPOS) {
    const inst = all.filter(i => i.repo === repo).sort((a, b) => (a.id < b.id ? -1 : 1));
    if (!inst.length) continue;
    const dir = sweDirs.get(repo);
    if (!existsSync(dir)) { info.unavailable.push({ repo, instances: inst.length, dir }); continue; }
    info.repos.push({ repo, instances: inst.length, dir });
    // Gold candidates: files the patch changes that exist at the base commit and are in a supported language.
    const cand = inst.map(i => ({ i, files: patchFiles(i.patch).before.filter(p => core.languageForPath(p)) }));
    const probes = cand.flatMap(({ i, files }) => files.map(p => `${i.base}:${p}`));
    const types = probes.length ? gitIn(dir, ['cat-file', '--batch-check=%(objecttype)'], probes.join('\n') + '\n').split('\n') : [];
    const exists = new Set(probes.filter((p, k) => types[k] === 'blob'));
    const noCommit = new Set(gitIn(dir, ['cat-file', '--batch-check=%(objecttype)'], inst.map(i => `${i.base}^{commit}`).join('\n') + '\n').split('\n').slice(0, inst.length).flatMap((t, k) => (t === 'commit' ? [] : [inst[k].id])));
    for (const { i, files } of cand) {
      const gold = files.filter(p => exists.has(`${i.base}:${p}`));
      if (noCommit.has(i.id)) info.excluded.push({ id: i.id, why: 'base commit not in the mirror' });
      else if (!gold.length) info.excluded.push({ id: i.id, why: 'the patch changes no source file in a supported language' });
      else eligible.push({ kind: 'issue', repo: short(repo), id: i.id, rev: i.base, query: i.query, gold });
    }
  }
  const picked = quickOnly('issue', seededSample(eligible, MAX_ISSUES, SEED));
  info.eligible = eligible.length;
  // Per repository, in commit order: neighbouring base commits keep each incremental re-index small.
  const byRepo = new Map();
  for (const repo of info.repos) {
    const cs = picked.filter(c => c.repo === short(repo.repo));
    if (!cs.length) continue;
    const when = new Map(gitIn(repo.dir, ['show', '-s', '--format=%H %ct', ...new Set(cs.map(c => c.rev))]).trim().split('\n').map(l => l.split(' ')).map(([h, t]) => [h, Number(t)]));
    cs.sort((a, b) => when.get(a.rev) - when.get(b.rev) || (a.id < b.id ? -1 : 1));
    byRepo.set(short(repo.repo), { dir: repo.dir, cases: cs });
  }
  return { info, byRepo };
}

/** Commit cases of one repository, mined by make-cases.mjs (same seed and sampling as always). */
function commitCases(name, gitDir, work, kind = 'commit') {
  const file = join(work, `${kind}-${name}.jsonl`);
  const gold = kind === 'text' ? ['--gold', 'text'] : [];
  try {
    execFileSync(process.execPath, [join(here, 'make-cases.mjs'), '--repo', gitDir, '--name', name, '--out', file, '--max', String(MAX), '--seed', String(SEED), ...gold],
      { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) { throw new Error(`make-cases failed for ${name}: ${e.stderr?.toString() ?? e.message}`); }
  return readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map(l => JSON.parse(l))
    .map(c => ({ kind, repo: name, id: c.commit, rev: c.parent, query: c.query, gold: c.gold }));
}

// ---------- running ----------
/** Brings the baseline's index to the walked files: re-reads only files whose git blob id changed. */
function syncBaseline(bm, tree, files) {
  const blob = new Map();
  for (const e of gitIn(tree, ['ls-files', '-s', '-z']).split('\0')) {
    const tab = e.indexOf('\t');
    if (tab > 0) blob.set(e.slice(tab + 1), e.slice(0, tab).split(' ')[1]);
  }
  const seen = new Set();
  let read = 0;
  for (const f of files) {
    seen.add(f.path);
    let key = blob.get(f.path), text = null;
    if (!key) { text = readFileSync(f.abs, 'utf8'); key = 'sha1:' + createHash('sha1').update(text).digest('hex'); }
    if (bm.keyOf(f.path) === key) continue;
    bm.set(f.path, text ?? readFileSync(f.abs, 'utf8'), key);
    read++;
  }
  for (const p of [...bm.docs.keys()]) if (!seen.has(p)) bm.remove(p);
  return read;
}

/**
 * Checks `rev` out into `tree`. A mirror snapshot may lack its largest blobs (data files); those paths
 * are left out of the checkout (sparse checkout) and returned, so a missing blob never stops the run.
 */
function checkout(tree, rev) {
  const entries = gitIn(tree, ['ls-tree', '-r', '-z', rev]).split('\0').filter(Boolean)
    .map(e => { const tab = e.indexOf('\t'); const [, type, sha] = e.slice(0, tab).split(' '); return { type, sha, path: e.slice(tab + 1) }; })
    .filter(e => e.type === 'blob');
  const state = entries.length ? gitIn(tree, ['cat-file', '--batch-check=%(objecttype)'], entries.map(e => e.sha).join('\n') + '\n').split('\n') : [];
  const missing = entries.filter((e, i) => state[i] !== 'blob').map(e => e.path);
  const sparse = join(tree, '.git', 'info', 'sparse-checkout');
  mkdirSync(dirname(sparse), { recursive: true });
  if (missing.length) {
    const esc = p => p.replace(/[\\*?[\]!# ]/g, c => `\\${c}`);
    writeFileSync(sparse, ['/*', ...missing.map(p => `!/${esc(p)}`)].join('\n') + '\n');
    gitIn(tree, ['config', 'core.sparseCheckout', 'true']);
  } else if (existsSync(sparse)) {
    writeFileSync(sparse, '/*\n');
  }
  gitIn(tree, ['checkout', '-q', '-f', '--detach', rev]);
  gitIn(tree, ['clean', '-q', '-f', '-d', '-x']);
  return missing;
}

async function runRepo(kind, name, gitDir, cases, work, rows, skipped) {
  const tree = join(work, `${kind}-${name}`);
  // a cached clone (--cache) is checked out again case by case; its index is updated, not rebuilt
  if (!existsSync(join(tree, '.git'))) execFileSync('git', ['clone', '-q', '--shared', '--no-checkout', gitDir, tree], { stdio: 'ignore' });
  const engine = await core.Engine.open({ roots: [tree], dbPath: join(work, `${kind}-${name}.sqlite`), settings: { text_files: TEXT_FILES === 'on' } });
  const s = engine.settings;
  const bm = new Bm25Index();
  const t0 = performance.now();
  let n = 0;
  try {
    for (const c of cases) {
      n++;
      let absent;
      try { absent = checkout(tree, c.rev); } catch (e) {
        skipped.push({ kind, repo: name, id: c.id, why: `checkout of ${c.rev} failed: ${String(e.stderr ?? e.message).trim().split('\n')[0]}` });
        continue;
      }
      const ti = performance.now();
      await engine.index();
      const indexS = (performance.now() - ti) / 1000;
      const walked = await core.walk(tree, { excludes: s.excludes, languages: s.languages ? new Set(s.languages) : null, textFiles: s.text_files, maxFileBytes: s.max_file_bytes });
      const tb = performance.now();
      syncBaseline(bm, tree, walked.files);
      const baselineSyncS = (performance.now() - tb) / 1000;
      const indexed = new Set(walked.files.map(f => f.path));
      const notIndexed = c.gold.filter(p => !indexed.has(p));
      // Issue gold: only files the engine indexes (commit gold stays as make-cases wrote it; counted).
      const gold = kind === 'issue' ? c.gold.filter(p => indexed.has(p)) : c.gold;
      if (!gold.length) { skipped.push({ kind, repo: name, id: c.id, why: `no gold file is indexed (${notIndexed.join(', ')})` }); continue; }

      let ours = [], error = null;
      const tq = performance.now();
      try {
        let seen = null, meta = null;
        if (SIGNALS_OUT) core.setSignalSink((files, m) => { seen = files; meta = m; });
        const out = await core.invokeTool(core.TOOLS.search_code, { query: c.query, limit: LIMIT, vector: VECTOR }, { engine });
        if (SIGNALS_OUT) {
          core.setSignalSink(null);
          const top = (seen ?? []).map(f => ({ ...f, _s: f.body + 0.7 * f.chunk + 0.35 * f.name + 0.25 * f.path_terms + f.hint })).sort((a, b) => b._s - a._s).slice(0, 400);
          const hist = recentTouches(tree, 500);
          const withHist = top.map(({ _s, ...f }) => ({ ...f, hist: hist.get(f.path) ?? null }));
          appendFileSync(SIGNALS_OUT, JSON.stringify({ kind, repo: name, id: c.id, query_chars: c.query.length, gold, files_indexed: indexed.size, meta, candidates: withHist }) + '\n');
        }
        if (out.ok) ours = filesFromSearch(out.data);
        else error = { code: out.error?.code ?? 'error', message: String(out.error?.message ?? JSON.stringify(out.error)) };
      } catch (e) { error = { code: 'exception', message: String(e?.message ?? e) }; }
      const oursMs = performance.now() - tq;
      const tr = performance.now();
      const base = bm.search(c.query, LIMIT).map(x => x.path);
      const baseMs = performance.now() - tr;
      const row = {
        kind, repo: name, id: c.id, rev: c.rev, query_chars: c.query.length, first_line: firstLine(c.query),
        gold, gold_not_indexed: notIndexed, files_indexed: indexed.size, blobs_absent: absent,
        ours: { ...score(ours, gold), ms: oursMs, error, top: ours.slice(0, 10) },
        baseline: { ...score(base, gold), ms: baseMs, top: base.slice(0, 10) },
        index_s: indexS, baseline_sync_s: baselineSyncS,
      };
      rows.push(row);
      console.error(`[${kind} ${name} ${n}/${cases.length}] ${c.id.slice(0, 40)}: index ${indexS.toFixed(1)} s, ours rank ${error ? `— (${error.code})` : (row.ours.rank ?? '>100')}, baseline rank ${row.baseline.rank ?? '>100'}`);
    }
  } finally {
    engine.close();
  }
  return (performance.now() - t0) / 1000;
}

const started = performance.now();
const load0 = loadavg()[0];
const rows = [], skipped = [], timings = [];
let issues = null;
if (KINDS.has('issue')) {
  issues = issueCases();
  const n = [...issues.byRepo.values()].reduce((a, r) => a + r.cases.length, 0);
  if (!n) die(`no issue case: none of ${SWE_REPOS.join(', ')} has a mirror here (pass --swe-repo NAME=GITDIR)`);
}
const work = CACHE ? (mkdirSync(CACHE, { recursive: true }), CACHE) : mkdtempSync(join(tmpdir(), 'sightline-quality-'));
try {
  for (const kind of ['commit', 'text'].filter(k => KINDS.has(k))) {
    for (const [name, gitDir] of commitTargets) {
      const cases = quickOnly(kind, commitCases(name, gitDir, work, kind));
      const sec = await runRepo(kind, name, gitDir, cases, work, rows, skipped);
      timings.push({ kind, repo: name, cases: cases.length, seconds: sec });
      console.error(`${kind} ${name}: ${cases.length} cases in ${sec.toFixed(1)} s`);
    }
  }
  if (issues) {
    for (const [name, { dir, cases }] of issues.byRepo) {
      const sec = await runRepo('issue', name, dir, cases, work, rows, skipped);
      timings.push({ kind: 'issue', repo: name, cases: cases.length, seconds: sec });
      console.error(`issue ${name}: ${cases.length} cases in ${sec.toFixed(1)} s`);
    }
  }
} finally {
  if (!CACHE) rmSync(work, { recursive: true, force: true });
}
const totalS = (performance.now() - started) / 1000;

// ---------- report ----------
const f3 = x => (Number.isFinite(x) ? x.toFixed(3) : '—');
const ms = x => (Number.isFinite(x) ? x.toFixed(1) : '—');
const langOf = rs => [...new Set(rs.flatMap(r => r.gold.map(p => core.fileLanguageFor(p, null, true))))].join('/');
const groups = [];
for (const kind of ALL_KINDS) {
  const kr = rows.filter(r => r.kind === kind);
  if (!kr.length) continue;
  for (const repo of [...new Set(kr.map(r => r.repo))]) groups.push({ kind, repo, rows: kr.filter(r => r.repo === repo) });
  groups.push({ kind, repo: `**all ${kind}**`, rows: kr, total: true });
}
groups.push({ kind: 'all', repo: '**all**', rows, total: true });
const table = groups.map(g => ({
  kind: g.kind, repo: g.repo, language: g.total ? '' : langOf(g.rows), total: !!g.total,
  ours: summarize(g.rows.map(r => r.ours)), baseline: summarize(g.rows.map(r => r.baseline)),
  failed: g.rows.filter(r => r.ours.error).length,
}));

const out = [];
out.push(`search_code${VECTOR ? ' (vector: true)' : ''}${TEXT_FILES === 'off' ? ' (text files off: both index source files alone)' : ''} vs Okapi BM25 over whole files (k1 1.2, b 0.75, split identifiers, no stop list) — seed ${SEED}${QUICK ? ' — quick: the cases of bench/quick-cases.json only' : ''}`);
out.push('');
out.push('| kind | repo | lang | cases | ours R@1 | R@5 | R@10 | MRR | baseline R@1 | R@5 | R@10 | MRR | ours failed |');
out.push('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const t of table) {
  const o = t.ours, b = t.baseline;
  out.push(`| ${t.kind} | ${t.repo} | ${t.language} | ${o.n} | ${f3(o.r1)} | ${f3(o.r5)} | ${f3(o.r10)} | **${f3(o.mrr)}** | ${f3(b.r1)} | ${f3(b.r5)} | ${f3(b.r10)} | ${f3(b.mrr)} | ${t.failed} |`);
}
out.push('');
if (!QUICK) out.push(...quickLines(rows, loadQuick(QUICK_FILE)));
out.push('Search latency per query (ms; ours: the search_code tool call, failed calls left out; baseline: ranking in memory):');
out.push('');
out.push('| kind | queries | ours p50 | ours p95 | baseline p50 | baseline p95 | index update per case p50 / p95 s |');
out.push('| --- | --- | --- | --- | --- | --- | --- |');
const latency = {};
for (const kind of ALL_KINDS) {
  const kr = rows.filter(r => r.kind === kind);
  if (!kr.length) continue;
  const ok = kr.filter(r => !r.ours.error).map(r => r.ours.ms), bl = kr.map(r => r.baseline.ms), ix = kr.map(r => r.index_s);
  latency[kind] = { ours_p50: pct(ok, 50), ours_p95: pct(ok, 95), baseline_p50: pct(bl, 50), baseline_p95: pct(bl, 95), index_p50_s: pct(ix, 50), index_p95_s: pct(ix, 95) };
  const l = latency[kind];
  out.push(`| ${kind} | ${kr.length} | ${ms(l.ours_p50)} | ${ms(l.ours_p95)} | ${ms(l.baseline_p50)} | ${ms(l.baseline_p95)} | ${l.index_p50_s.toFixed(2)} / ${l.index_p95_s.toFixed(2)} |`);
}
out.push('');
const failures = {};
for (const kind of ALL_KINDS) {
  const kr = rows.filter(r => r.kind === kind);
  if (!kr.length) continue;
  const bad = kr.filter(r => r.ours.error);
  const byCode = new Map();
  for (const r of bad) {
    const k = `${r.ours.error.code}: ${r.ours.error.message.replace(/\s+/g, ' ').slice(0, 200)}`;
    byCode.set(k, [...(byCode.get(k) ?? []), r]);
  }
  failures[kind] = { failed: bad.length, of: kr.length, errors: [...byCode].map(([k, rs]) => ({ error: k, count: rs.length, query_chars: rs.map(r => r.query_chars) })) };
  out.push(`Failed search_code calls, ${kind}: ${bad.length} of ${kr.length} (counted as misses)` + (bad.length ? ':' : '.'));
  for (const [k, rs] of byCode) out.push(`  ${rs.length} × ${k} (query lengths ${Math.min(...rs.map(r => r.query_chars))}–${Math.max(...rs.map(r => r.query_chars))} characters)`);
}
out.push('');

const targets = [];
for (const kind of ALL_KINDS) {
  const t = table.find(x => x.kind === kind && x.total);
  if (!t) continue;
  const pass = t.ours.mrr >= t.baseline.mrr + 0.10;
  targets.push({ target: `${kind}: ours MRR ≥ baseline MRR + 0.10`, pass, ours: t.ours.mrr, baseline: t.baseline.mrr });
  out.push(`${pass ? 'PASS' : 'FAIL'}: ${kind}: ours MRR ${f3(t.ours.mrr)} vs baseline ${f3(t.baseline.mrr)} + 0.10 = ${f3(t.baseline.mrr + 0.10)} (difference ${t.ours.mrr - t.baseline.mrr >= 0 ? '+' : ''}${f3(t.ours.mrr - t.baseline.mrr)})`);
}
{
  const t = table.find(x => x.kind === 'all');
  const pass = t.ours.r1 >= 0.5;
  targets.push({ target: 'overall: ours R@1 ≥ 0.5', pass, ours: t.ours.r1 });
  out.push(`${pass ? 'PASS' : 'FAIL'}: overall: ours R@1 ${f3(t.ours.r1)} ≥ 0.500 (${t.ours.n} cases; R@1 is recall, so a case with k gold files scores at most 1/k: the ceiling of any ranking here is ${f3(t.ours.r1_max)}; the first file is a gold file in ${f3(t.ours.hit1)} of the cases, baseline ${f3(t.baseline.hit1)})`);
}
out.push('');

// Data notes.
if (issues) {
  const i = issues.info;
  out.push(`Issue cases: ${i.dataset} (${i.instances} instances); repositories used: ${i.repos.map(r => `${r.repo} (${r.instances})`).join(', ')}; eligible ${i.eligible}, sampled ${rows.filter(r => r.kind === 'issue').length + skipped.filter(s => s.kind === 'issue').length} (--max-issues ${MAX_ISSUES === Number.MAX_SAFE_INTEGER ? 'all' : MAX_ISSUES}, seed ${SEED}).`);
  if (i.unavailable.length) out.push(`  not available here (no mirror; add with --swe-repo NAME=GITDIR): ${i.unavailable.map(r => `${r.repo} (${r.instances} instances)`).join(', ')}`);
  if (i.excluded.length) out.push(`  excluded before sampling: ${i.excluded.map(e => `${e.id} (${e.why})`).join('; ')}`);
  const dropped = rows.filter(r => r.kind === 'issue' && r.gold_not_indexed.length);
  if (dropped.length) out.push(`  gold files left out because the engine does not index them: ${dropped.map(r => `${r.id}: ${r.gold_not_indexed.join(', ')}`).join('; ')}`);
}
{
  const absent = rows.filter(r => r.blobs_absent.length);
  if (absent.length) {
    const src = [...new Set(absent.flatMap(r => r.blobs_absent.filter(p => core.languageForPath(p))))];
    out.push(`Files absent from a mirror (largest blobs of the snapshot; left out of the checkout): ${absent.length} cases, ${[...new Set(absent.flatMap(r => r.blobs_absent))].length} distinct paths (${[...new Set(absent.map(r => r.repo))].join(', ')}); in a supported language: ${src.length ? src.join(', ') : 'none'}.`);
  }
}
for (const s of skipped) out.push(`  skipped ${s.kind} case ${s.id} (${s.repo}): ${s.why}`);
const commitNotIndexed = rows.filter(r => r.kind === 'commit' && r.gold_not_indexed.length);
if (commitNotIndexed.length) out.push(`Commit cases with gold files the engine does not index (kept, as before): ${commitNotIndexed.length} (${commitNotIndexed.map(r => `${r.repo} ${r.id.slice(0, 10)}: ${r.gold_not_indexed.join(', ')}`).join('; ')})`);
out.push(`Runtime ${totalS.toFixed(0)} s (${timings.map(t => `${t.kind} ${t.repo} ${t.seconds.toFixed(0)} s`).join(', ')}); load average ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)} on ${require('node:os').cpus().length} cores.`);
out.push('');

// Failure analysis: issue cases where our first file is not gold.
const showMisses = (kind, n) => {
  const misses = rows.filter(r => r.kind === kind && r.ours.rank !== 1)
    .sort((a, b) => (b.ours.rank ?? 1e9) - (a.ours.rank ?? 1e9) || (a.id < b.id ? -1 : 1));
  if (!misses.length) return;
  const kr = rows.filter(r => r.kind === kind);
  const failedN = misses.filter(r => r.ours.error).length, outside = misses.filter(r => !r.ours.error && r.ours.rank === null).length;
  const baseFirst = misses.filter(r => r.baseline.rank === 1).length;
  out.push(`Misses, ${kind}: ${misses.length} of ${kr.length} cases have no gold file first (${failedN} failed calls, ${outside} with no gold file in our top ${LIMIT}; the baseline has a gold file first in ${baseFirst} of them). ${DETAILS ? 'All' : `The worst ${Math.min(n, misses.length)} (--details for all)`}:`);
  for (const r of DETAILS ? misses : misses.slice(0, n)) {
    out.push('');
    out.push(`- ${r.id} (${r.repo}): ours rank ${r.ours.error ? `— (${r.ours.error.code})` : (r.ours.rank ?? `>${LIMIT}`)}, baseline rank ${r.baseline.rank ?? `>${LIMIT}`}; query ${r.query_chars} characters: "${r.first_line}"`);
    out.push(`  gold: ${r.gold.join(', ')}`);
    out.push(`  ours top 5: ${r.ours.top.slice(0, 5).join(', ') || '(none)'}`);
    out.push(`  baseline top 5: ${r.baseline.top.slice(0, 5).join(', ') || '(none)'}`);
  }
  out.push('');
};
showMisses('issue', 5);
if (DETAILS) showMisses('commit', 10);

console.log(out.join('\n'));
if (opt('results')) {
  console.error(`bench:quality: wrote ${writeResults(`quality-${opt('results')}`, `Retrieval quality: ${opt('results')} (bench:quality)`, out.join('\n'))}`);
}
if (JSON_OUT) {
  writeFileSync(JSON_OUT, JSON.stringify({
    seed: SEED, vector: VECTOR, kinds: [...KINDS], max: MAX, max_issues: MAX_ISSUES === Number.MAX_SAFE_INTEGER ? null : MAX_ISSUES,
    baseline: 'Okapi BM25 over whole files: k1 1.2, b 0.75, idf ln(1 + (N - n + 0.5)/(n + 0.5)); tokens /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g lower-cased; distinct query tokens once; no stop list',
    table, latency, failures, targets, issues: issues?.info ?? null, skipped, timings, runtime_s: totalS, cases: rows,
  }, null, 2));
}
process.exitCode = 0;
