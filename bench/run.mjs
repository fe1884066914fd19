#!/usr/bin/env node
// Sightline speed/memory benchmark. See bench/README.md.
//
//   npm run bench -- [--repo DIR] [--workspace DIR] [--only repo|workspace] [--queries N] [--json FILE]
//                    [--seed N] [--keep]
//
// For each target (a 100k+-line repository and a ~1M-line workspace folder indexed as ONE root), every
// measurement runs in a fresh child process (bench/lib/child.mjs) so that its peak RSS is its own:
//   cold     Engine.open + index() into a fresh temp index file, default worker threads
//   restart  a new process opens the same index and runs index() again (must re-parse nothing)
//   query    N search_code calls through invokeTool (the real tool path) after 10 warm-up calls
//   floor    the same walked files: read + decode + tree-sitter parse + tags query in 2 worker threads
//            (extractSource from dist/core.js, and the raw web-tree-sitter parse + query.matches)
// Exit code: 0 when the report was produced (even if targets FAIL), 2 on usage errors / missing data.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, statSync, mkdtempSync, rmSync, writeFileSync, readFileSync, realpathSync, mkdirSync, utimesSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIST_DIR, MB, round } from './lib/common.mjs';
import { makeQueries, makeLongQueries } from './lib/queries.mjs';

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'lib', 'child.mjs');
/** Benchmark data lives outside the repository, in a benchdata folder beside the checkout (bench/README.md). */
const BENCH_DATA = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'benchdata');
const WARMUP = 10;
const REFERENCE = [
  { name: 'native-C code-graph indexer', wall_s: 60, rss_mb: 2.3 * 1024 },
  { name: 'TypeScript code-graph indexer', wall_s: 200, rss_mb: 1.9 * 1024 },
];
const TARGETS = {
  cold_vs_floor: 1.5, restart_s: 2, query_p95_ms: 50, query_min_chunks: 100_000, long_query_p95_ms: 300, long_query_chars: 10_000, long_queries: 40, workspace_rss_mb: 600, cpu_per_wall: 1.3,
  // a one-file edit must stay incremental: a partial graph update, in a small share of the cold index's time
  edit_vs_cold: 0.25,
};

function usage(msg) {
  if (msg) console.error(`bench: ${msg}`);
  console.error('usage: node bench/run.mjs [--repo DIR] [--workspace DIR] [--large DIR] [--only repo|workspace|large] [--queries N] [--json FILE] [--seed N] [--keep] [--scale]');
  console.error('  --scale adds the freshness-at-scale section (bench/scale.mjs) on ws-1m, ws-5m and ws-10m where they exist');
  console.error('  defaults (a benchdata folder beside the checkout): --repo $SIGHTLINE_BENCH_REPO or ../benchdata/sqlalchemy,');
  console.error('  --workspace $SIGHTLINE_BENCH_WORKSPACE or ../benchdata/ws-1m, --large $SIGHTLINE_BENCH_LARGE or ../benchdata/ws-large (≥ 100k chunks, query latency)');
  console.error('  the benchmark repositories are fetched separately (see bench/README.md), never committed');
  process.exit(2);
}

function parseArgs(argv) {
  const o = {
    repo: process.env.SIGHTLINE_BENCH_REPO ?? join(BENCH_DATA, 'sqlalchemy'),
    workspace: process.env.SIGHTLINE_BENCH_WORKSPACE ?? join(BENCH_DATA, 'ws-1m'),
    large: process.env.SIGHTLINE_BENCH_LARGE ?? join(BENCH_DATA, 'ws-large'),
    only: null, queries: 200, json: null, seed: 1, keep: false, scale: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => { if (i + 1 >= argv.length) usage(`missing value for ${a}`); return argv[++i]; };
    const int = (v) => { const n = Number(v); if (!Number.isInteger(n) || n < 1) usage(`${a} needs a positive integer, got ${v}`); return n; };
    switch (a) {
      case '--repo': o.repo = val(); break;
      case '--workspace': o.workspace = val(); break;
      case '--large': o.large = val(); break;
      case '--only': o.only = val(); if (!['repo', 'workspace', 'large'].includes(o.only)) usage(`--only must be repo, workspace or large, got ${o.only}`); break;
      case '--queries': o.queries = int(val()); break;
      case '--json': o.json = resolve(val()); break;
      case '--seed': o.seed = int(val()); break;
      case '--keep': o.keep = true; break;
      case '--scale': o.scale = true; break;
      case '-h': case '--help': usage(); break;
      default: usage(`unknown argument ${a}`);
    }
  }
  return o;
}

function runChild(job, config, dir) {
  const cfgFile = join(dir, `${job}-${config.mode ?? 'x'}.config.json`);
  const resFile = join(dir, `${job}-${config.mode ?? 'x'}.result.json`);
  writeFileSync(cfgFile, JSON.stringify(config));
  const started = performance.now();
  return new Promise((res) => {
    const child = spawn(process.execPath, [CHILD, job, cfgFile, resFile], { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', (code, signal) => {
      const child_wall_ms = round(performance.now() - started, 1);
      if (code !== 0) { res({ error: `child ${job} exited with ${signal ?? code}`, child_wall_ms }); return; }
      try { res({ ...JSON.parse(readFileSync(resFile, 'utf8')), child_wall_ms }); }
      catch (e) { res({ error: `child ${job} wrote no result: ${e.message}`, child_wall_ms }); }
    });
  });
}

async function benchTarget(name, dir, opts, core) {
  const root = realpathSync(dir);
  const tmp = mkdtempSync(join(tmpdir(), `sightline-bench-${name}-`));
  const dbPath = join(tmp, 'index.sqlite');
  const out = { target: name, root, db_path: dbPath };
  try {
    console.error(`\n== ${name}: ${root}  (index file ${dbPath})`);
    // Walk with the engine's default settings: the file set of the floor and of the queries.
    const tw = performance.now();
    const walked = await core.walk(root, { excludes: core.DEFAULT_SETTINGS.excludes, languages: null, maxFileBytes: core.DEFAULT_SETTINGS.max_file_bytes });
    out.walk = { ms: round(performance.now() - tw, 1), files: walked.files.length, diagnostics: walked.diagnostics.length };
    const files = walked.files.map(f => ({ abs: f.abs, path: f.path, language: f.language, size: f.size }));
    out.bytes = files.reduce((s, f) => s + f.size, 0);
    // Warm the page cache once so that no job pays the first disk read and the others not.
    for (const f of files) { try { readFileSync(f.abs); } catch { /* the engine reports it */ } }
    const filesFile = join(tmp, 'files.json');
    writeFileSync(filesFile, JSON.stringify(files));
    const queriesFile = join(tmp, 'queries.json');
    const queries = makeQueries(files, opts.queries + WARMUP, opts.seed);
    writeFileSync(queriesFile, JSON.stringify(queries));
    const longQueriesFile = join(tmp, 'long-queries.json');
    if (name === 'large') writeFileSync(longQueriesFile, JSON.stringify(makeLongQueries(files, TARGETS.long_queries + 2, TARGETS.long_query_chars, opts.seed)));
    out.queries_generated = queries.length;
    console.error(`  walked ${files.length} files, ${round(out.bytes / MB, 1)} MB in ${out.walk.ms} ms; ${queries.length} queries (seed ${opts.seed})`);

    console.error('  cold index …');
    out.cold = await runChild('cold', { root, dbPath }, tmp);
    console.error(`    ${out.cold.error ?? `${round(out.cold.wall_ms / 1000, 1)} s, peak RSS ${out.cold.memory.peak_rss_mb} MB`}`);
    console.error('  warm restart …');
    out.restart = out.cold.error ? { error: 'skipped: cold index failed' } : await runChild('restart', { root, dbPath }, tmp);
    console.error(`    ${out.restart.error ?? `${round(out.restart.wall_ms / 1000, 2)} s, parsed ${out.restart.totals.files_parsed}`}`);
    console.error(`  query latency (${opts.queries} + ${WARMUP} warm-up) …`);
    out.query = out.cold.error ? { error: 'skipped: cold index failed' } : await runChild('query', { root, dbPath, queriesFile, warmup: WARMUP, longQueriesFile: name === 'large' ? longQueriesFile : null }, tmp);
    console.error(`    ${out.query.error ?? `p50 ${out.query.p50_ms} ms, p95 ${out.query.p95_ms} ms over ${out.query.chunks} chunks`}`);
    if (name === 'large') return out; // only the query latency target is measured here
    // The largest file with a line-comment syntax gets a comment appended (restored afterwards).
    const COMMENT = { python: '#', ruby: '#' };
    const edit = files.filter(f => f.language !== 'php').sort((a, b) => b.size - a.size || (a.path < b.path ? -1 : 1))[0];
    if (edit && ok(out.cold)) {
      console.error(`  one file edited (${edit.path}) …`);
      // The child restores the file; so does this process, after the child and on an interrupt.
      const restore = restorer(edit.abs);
      try { out.edit = await runChild('edit', { root, dbPath, editFile: edit.abs, comment: COMMENT[edit.language] ?? '//' }, tmp); }
      finally { restore(); }
      out.edit.path = edit.path;
      console.error(`    ${out.edit.error ?? `${round(out.edit.wall_ms / 1000, 2)} s, graph ${out.edit.graph_update}`}`);
    }
    console.error('  parse floor (extractSource, 2 threads) …');
    out.floor = await runChild('floor', { filesFile, threads: 2, mode: 'extract' }, tmp);
    console.error(`    ${out.floor.error ?? `${round(out.floor.wall_ms / 1000, 1)} s`}`);
    console.error('  parse floor (raw parse + query.matches, 2 threads) …');
    out.floor_raw = await runChild('floor', { filesFile, threads: 2, mode: 'raw' }, tmp);
    console.error(`    ${out.floor_raw.error ?? `${round(out.floor_raw.wall_ms / 1000, 1)} s`}`);
  } finally {
    if (opts.keep) console.error(`  kept ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  }
  return out;
}

/** Remembers a file's bytes and times; the returned function puts them back (also on SIGINT/SIGTERM meanwhile). */
function restorer(file) {
  const bytes = readFileSync(file);
  const st = statSync(file, { bigint: true });
  const put = () => {
    try {
      if (!readFileSync(file).equals(bytes)) writeFileSync(file, bytes);
      utimesSync(file, Number(st.atimeNs) / 1e9, Number(st.mtimeNs) / 1e9);
    } catch (e) { console.error(`bench: could not restore ${file}: ${e.message}`); }
  };
  const onSignal = (sig) => { put(); process.exit(sig === 'SIGINT' ? 130 : 143); };
  process.once('SIGINT', onSignal); process.once('SIGTERM', onSignal);
  return () => { process.off('SIGINT', onSignal); process.off('SIGTERM', onSignal); put(); };
}

// ---- report ------------------------------------------------------------------------------------
const s = (ms, d = 1) => (Number.isFinite(ms) ? (ms / 1000).toFixed(d) : '—');
const n = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : '—');
const ok = (r) => r && !r.error;

function row(t) {
  const c = ok(t.cold) ? t.cold : null; const f = ok(t.floor) ? t.floor : null; const r = ok(t.restart) ? t.restart : null; const q = ok(t.query) ? t.query : null;
  const fr = ok(t.floor_raw) ? t.floor_raw : null;
  const wall = c ? c.wall_ms / 1000 : NaN;
  return [
    `${t.target} (${basename(t.root)})`, c ? c.lines.toLocaleString('en-US') : '—', c ? String(c.files) : '—', s(c?.wall_ms), c ? c.cpu.total_s.toFixed(1) : '—',
    c ? n(c.files / wall) : '—', c ? n(t.bytes / MB / wall, 2) : '—', c ? n(c.memory.peak_rss_mb) : '—', c ? n(c.db_bytes / MB, 1) : '—',
    `${s(f?.wall_ms)}*`, c && f ? n(c.wall_ms / f.wall_ms, 2) : '—', s(fr?.wall_ms), c && fr ? n(c.wall_ms / fr.wall_ms, 2) : '—',
    s(r?.wall_ms, 2), r ? String(r.totals.files_parsed) : '—', q ? n(q.p50_ms, 1) : '—', q ? n(q.p95_ms, 1) : '—',
    ok(t.edit) ? `${s(t.edit.wall_ms, 2)} (${t.edit.graph_update})` : '—',
  ];
}

function table(results) {
  const head = ['target', 'lines', 'files', 'cold wall s', 'CPU s', 'files/s', 'MB/s', 'peak RSS MB', 'DB MB', 'floor s (2 thr)', 'cold/floor',
    'raw floor s', 'cold/raw', 'restart s', 're-parsed', 'q p50 ms', 'q p95 ms', 'edit 1 file s (graph)'];
  const lines = [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`];
  for (const t of results) lines.push(`| ${row(t).join(' | ')} |`);
  return lines.join('\n');
}

function verdicts(results) {
  const out = [];
  const v = (pass, text) => out.push(`${pass === null ? 'N/A ' : pass ? 'PASS' : 'FAIL'}  ${text}`);
  for (const t of results) {
    const c = ok(t.cold) ? t.cold : null; const f = ok(t.floor) ? t.floor : null; const fr = ok(t.floor_raw) ? t.floor_raw : null;
    const r = ok(t.restart) ? t.restart : null; const q = ok(t.query) ? t.query : null;
    const tag = `[${t.target}]`;
    if (t.target === 'workspace') {
      // The formal floor is extractSource unless dist/core.js exports loadLanguage (then the raw floor is the engine's own parse + query).
      const exact = fr && fr.loader === 'dist/core.js loadLanguage';
      const formal = exact ? fr : f;
      if (c && formal) v(c.wall_ms <= TARGETS.cold_vs_floor * formal.wall_ms, `${tag} cold index of ~1M lines ≤ ${TARGETS.cold_vs_floor}× parse floor: ${s(c.wall_ms)} s vs floor ${s(formal.wall_ms)} s (${exact ? 'parse + query via loadLanguage' : 'extractSource floor'}) = ${n(c.wall_ms / formal.wall_ms, 2)}×`
        + (!exact && fr ? `; vs raw parse+query floor ${s(fr.wall_ms)} s = ${n(c.wall_ms / fr.wall_ms, 2)}× (informational)` : ''));
      else v(false, `${tag} cold index vs floor: not measured (${t.cold.error ?? t.floor.error})`);
      if (c && formal) {
        // What must follow the last parsed file, one thread at a time: the graph needs every file's
        // definitions, the save needs the finished database.
        const serial = c.timings.graph_ms + c.timings.save_ms;
        out.push(`info  ${tag} after parsing, serial: graph ${s(c.timings.graph_ms, 2)} s + save ${s(c.timings.save_ms, 2)} s; floor + these alone = ${s(formal.wall_ms + serial)} s = ${n((formal.wall_ms + serial) / formal.wall_ms, 2)}× the floor`
          + ` (the ${TARGETS.cold_vs_floor}× target leaves ${s((TARGETS.cold_vs_floor - 1) * formal.wall_ms, 2)} s beyond the floor)`);
      }
    } else if (c && f) out.push(`info  ${tag} cold/floor ${n(c.wall_ms / f.wall_ms, 2)}× (extractSource floor)${fr ? `, ${n(c.wall_ms / fr.wall_ms, 2)}× (raw floor)` : ''} — the ≤ ${TARGETS.cold_vs_floor}× target applies to the ~1M-line workspace`);
    if (c && c.timings.history_ms !== undefined) {
      const git = job => (job?.repos ?? []).reduce((a, x) => a + (x.history_git_calls ?? 0), 0);
      const ed = ok(t.edit) ? t.edit : null;
      out.push(`info  ${tag} history phase (git log of each repository, last 500 commits): cold ${s(c.timings.history_ms, 2)} s (${git(c)} git processes), restart ${r ? `${r.timings.history_ms} ms (${git(r)} git processes)` : '—'}`
        + `${ed?.timings?.history_ms !== undefined ? `, one file edited ${ed.timings.history_ms} ms` : ''}`);
    }
    if (r) {
      v(r.wall_ms <= TARGETS.restart_s * 1000, `${tag} restart ≤ ${TARGETS.restart_s} s: ${s(r.wall_ms, 2)} s (open ${s(r.open_ms, 2)} s + index ${s(r.wall_ms - r.open_ms, 2)} s; ${s(r.since_process_start_ms, 2)} s since process start)`);
      v(r.totals.files_parsed === 0, `${tag} files re-parsed on restart = 0: ${r.totals.files_parsed} parsed, ${r.totals.files_unchanged} unchanged${r.rebuilt_from_scratch ? ' (index was REBUILT from scratch)' : ''}`);
    } else v(false, `${tag} restart: not measured (${t.restart?.error})`);
    if (q) {
      const enough = q.chunks >= TARGETS.query_min_chunks;
      v(q.p95_ms <= TARGETS.query_p95_ms, `${tag} search_code p95 ≤ ${TARGETS.query_p95_ms} ms at ≥ ${TARGETS.query_min_chunks.toLocaleString('en-US')} chunks: p95 ${n(q.p95_ms, 1)} ms (p50 ${n(q.p50_ms, 1)}, max ${n(q.max_ms, 1)}) over ${q.chunks.toLocaleString('en-US')} chunks`
        + (enough ? '' : ` — NOTE: only ${q.chunks.toLocaleString('en-US')} chunks, fewer than ${TARGETS.query_min_chunks.toLocaleString('en-US')}; the target is not really exercised`)
        + (q.errors ? ` — ${q.errors} queries FAILED: ${q.first_error}` : ''));
      if (q.long) v(q.long.p95_ms <= TARGETS.long_query_p95_ms, `${tag} search_code p95 ≤ ${TARGETS.long_query_p95_ms} ms for pasted issues of ~${TARGETS.long_query_chars.toLocaleString('en-US')} characters: p95 ${n(q.long.p95_ms, 1)} ms (p50 ${n(q.long.p50_ms, 1)}, max ${n(q.long.max_ms, 1)}; ${q.long.n} queries of ${q.long.chars.toLocaleString('en-US')} characters on average)`);
    } else v(false, `${tag} query latency: not measured (${t.query?.error})`);
    if (c) {
      const ratio = c.cpu.total_s / (c.wall_ms / 1000);
      const avail = f ? f.cpu.total_s / (f.wall_ms / 1000) : NaN;
      v(ratio > TARGETS.cpu_per_wall, `${tag} CPU time / wall > ${TARGETS.cpu_per_wall} (uses both cores): ${c.cpu.total_s.toFixed(1)} s / ${s(c.wall_ms)} s = ${ratio.toFixed(2)}`
        + (Number.isFinite(avail) ? ` (the 2-thread floor got ${avail.toFixed(2)} cores${avail < TARGETS.cpu_per_wall ? ': the machine was busy, this verdict is unreliable' : ''})` : ''));
      if (t.target === 'workspace') {
        const jobs = [['cold', c], ['restart', r], ['query', q]].filter(([, x]) => x);
        const [worst, wj] = jobs.reduce((m, j) => (j[1].memory.peak_rss_mb > m[1].memory.peak_rss_mb ? j : m));
        v(wj.memory.peak_rss_mb <= TARGETS.workspace_rss_mb, `${tag} peak RSS ≤ ${TARGETS.workspace_rss_mb} MB for the ~1M-line workspace: highest ${n(wj.memory.peak_rss_mb)} MB (${worst}); `
          + jobs.map(([k, x]) => `${k} ${n(x.memory.peak_rss_mb)}`).join(', '));
      }
    } else v(false, `${tag} cold index failed: ${t.cold.error}`);
    const ed = t.edit;
    if (ed && c) {
      if (ed.error) v(false, `${tag} one-file edit: not measured (${ed.error})`);
      else v(ed.graph_update === 'partial' && ed.files_parsed === 1 && ed.wall_ms <= TARGETS.edit_vs_cold * c.wall_ms,
        `${tag} one-file edit is incremental (1 file parsed, graph partial, ≤ ${TARGETS.edit_vs_cold}× the cold index): ${ed.files_parsed} parsed, graph ${ed.graph_update}, ${s(ed.wall_ms, 2)} s = ${n(ed.wall_ms / c.wall_ms, 2)}× cold`);
    }
  }
  if (!results.some(t => t.target === 'workspace')) out.push('N/A   ~1M-line workspace targets (cold ≤ 1.5× floor, peak RSS ≤ 600 MB): workspace not run');
  return out;
}

function details(t) {
  const out = [`${t.target} (${t.root}): walk ${t.walk.files} files / ${round(t.bytes / MB, 1)} MB in ${t.walk.ms} ms (bench process)`];
  const c = t.cold;
  if (ok(c)) {
    const tm = c.timings;
    out.push(`  cold: open ${c.open_ms} ms; index timings walk ${tm.walk_ms} (parsing starts meanwhile) / parse ${tm.parse_ms} / write ${tm.write_ms} / graph ${tm.graph_ms} / history ${tm.history_ms} / save ${tm.save_ms} / total ${tm.total_ms} ms`
      + `; CPU user ${c.cpu.user_s.toFixed(1)} s + sys ${c.cpu.system_s.toFixed(1)} s`);
    out.push(`        parsed ${c.totals.files_parsed}, skipped ${c.totals.files_skipped}; ${c.chunks.toLocaleString('en-US')} chunks, ${c.symbols.toLocaleString('en-US')} symbols, ${c.occurrences.toLocaleString('en-US')} occurrences; diagnostics ${JSON.stringify(c.diagnostics_by_code)}`);
    out.push(`        memory at end: rss ${c.memory.rss_mb} MB, heap ${c.memory.heap_used_mb} MB, external ${c.memory.external_mb} MB (array buffers ${c.memory.array_buffers_mb}); `
      + `RSS at phase ends ${JSON.stringify(c.rss.rss_mb_at_phase_end)}; highest sampled ${c.rss.max_sampled_rss_mb} MB in '${c.rss.max_sampled_in_phase}' (samples miss synchronous phases; VmHWM ${c.memory.peak_rss_mb} MB)`);
    out.push(`        languages ${c.languages.map(l => `${l.language} ${l.files}f/${l.lines}l`).join(', ')}`);
  } else out.push(`  cold: ${c?.error}`);
  const r = t.restart;
  if (ok(r)) out.push(`  restart: open ${r.open_ms} ms + index ${round(r.wall_ms - r.open_ms, 1)} ms (timings ${JSON.stringify(r.timings)}); ${r.since_process_start_ms} ms since process start; peak RSS ${r.memory.peak_rss_mb} MB`);
  const ed = t.edit;
  if (ok(ed)) out.push(`  edit: ${ed.path} (a comment line appended) → ${ed.files_parsed} parsed, graph ${ed.graph_update} (${ed.edges_written} edges) in ${ed.wall_ms} ms (timings ${JSON.stringify(ed.timings)}); peak RSS ${ed.memory.peak_rss_mb} MB`);
  else if (ed) out.push(`  edit: ${ed.error}`);
  const q = t.query;
  if (ok(q)) {
    out.push(`  query: open ${q.open_ms} ms; ${q.n} queries after ${q.warmup} warm-up (${q.warmup_ms} ms); mean ${q.mean_ms} / p50 ${q.p50_ms} / p95 ${q.p95_ms} / p99 ${q.p99_ms} / max ${q.max_ms} ms; ${q.zero_hit} with no hits; peak RSS ${q.memory.peak_rss_mb} MB`);
    if (q.long) out.push(`  long queries: ${q.long.n} of ~${q.long.chars} characters: p50 ${q.long.p50_ms} / p95 ${q.long.p95_ms} / max ${q.long.max_ms} ms`);
    out.push(`         slowest: ${q.slowest.map(x => `${JSON.stringify(x.query)} ${x.ms} ms (${x.total} hits)`).join('; ')}`);
  }
  for (const [label, f] of [['floor (extractSource)', t.floor], ['floor (raw parse+query)', t.floor_raw]]) {
    if (ok(f)) out.push(`  ${label}: 2 threads ${f.wall_ms} ms wall; single-thread CPU sum (process CPU, both workers) ${f.cpu.total_s.toFixed(1)} s = ${n(f.cpu.total_s / (f.wall_ms / 1000), 2)} cores busy; `
      + `per-worker busy wall ${f.per_worker_busy_ms.join(' + ')} ms (incl. grammar load ${f.load_sum_ms} ms); `
      + `${f.files} files, ${f.lines.toLocaleString('en-US')} lines${f.failed ? `, ${f.failed} FAILED (${f.first_failure})` : ''}; peak RSS ${f.memory.peak_rss_mb} MB`);
    else out.push(`  ${label}: ${f?.error}`);
  }
  return out.join('\n');
}

// ---- main --------------------------------------------------------------------------------------
const opts = parseArgs(process.argv.slice(2));
// `large` (≥ 100k chunks) exists for the search latency target; it is run when its folder exists.
const wanted = [['repo', opts.repo], ['workspace', opts.workspace], ['large', opts.large]]
  .filter(([k, dir]) => (opts.only ? opts.only === k : k !== 'large' || existsSync(dir)));
for (const [k, dir] of wanted) {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    console.error(`bench: the ${k} folder ${resolve(dir)} does not exist.`);
    console.error(`  Pass --${k} DIR (or set SIGHTLINE_BENCH_${k.toUpperCase()}); bench/README.md lists the public repositories and commits to fetch.`);
    process.exit(2);
  }
}
if (!existsSync(join(DIST_DIR, 'core.js')) || !existsSync(join(DIST_DIR, 'worker.js'))) {
  console.error(`bench: ${DIST_DIR}/core.js or worker.js is missing; run "npm run build" (npm run bench does it).`);
  process.exit(2);
}
// Snapshot dist/ so that a concurrent `npm run build` (which wipes dist/) cannot break a long run;
// every child loads the snapshot (SIGHTLINE_DIST), which is deleted at the end.
const distSnapshot = mkdtempSync(join(tmpdir(), 'sightline-bench-dist-'));
cpSync(DIST_DIR, distSnapshot, { recursive: true, filter: (src) => !src.endsWith('.map') });
process.env.SIGHTLINE_DIST = distSnapshot;
process.on('exit', () => rmSync(distSnapshot, { recursive: true, force: true }));
const { createRequire } = await import('node:module');
const core = createRequire(import.meta.url)(join(distSnapshot, 'core.js'));

const machine = { cpus: cpus().length, cpu_model: cpus()[0]?.model ?? '?', mem_gb: round(totalmem() / 1024 ** 3, 1), node: process.version, loadavg_start: loadavg().map(x => round(x, 2)) };
console.error(`Sightline bench — ${machine.cpus} × ${machine.cpu_model}, ${machine.mem_gb} GB, Node ${machine.node}, load average ${machine.loadavg_start.join(' ')}`);
const results = [];
for (const [k, dir] of wanted) results.push(await benchTarget(k, dir, opts, core));
machine.loadavg_end = loadavg().map(x => round(x, 2));

const report = [];
report.push('');
report.push(`## Sightline speed/memory benchmark — ${new Date().toISOString()}`);
report.push(`machine: ${machine.cpus} × ${machine.cpu_model}, ${machine.mem_gb} GB RAM, Node ${machine.node}; load average ${machine.loadavg_start.join(' ')} → ${machine.loadavg_end.join(' ')} (other jobs make timings noisy)`);
report.push('');
report.push(table(results));
report.push('');
const rawLoader = results.map(t => t.floor_raw?.loader).find(Boolean) ?? 'n/a';
report.push('`*` floor = read + decode + extractSource (parse + tags query + definition/occurrence/chunk building) in 2 worker threads: a slightly');
report.push('    pessimistic floor, used because dist/core.js does not export loadLanguage (src/core/parse/treesitter.ts). "raw floor" = read + decode +');
report.push(`    parser.parse + query.matches only, in 2 worker threads (${rawLoader}).`);
report.push('    lines = sum of engine.status().languages[].lines; MB/s over the walked bytes; restart s = Engine.open + index() in a new process;');
report.push('    edit 1 file s = index() after a comment line is appended to the largest file (restored afterwards), with how the graph was updated.');
report.push('');
for (const line of verdicts(results)) report.push(line);
report.push('');
const sq = results.find(t => basename(t.root).toLowerCase().includes('sqlalchemy') && ok(t.cold));
report.push('Reference (from the issue), sqlalchemy on this kind of machine:');
for (const ref of REFERENCE) report.push(`  ${ref.name.padEnd(32)} ${String(ref.wall_s).padStart(5)} s  ${(ref.rss_mb / 1024).toFixed(1)} GB`);
if (sq) report.push(`  ${'Sightline (this run)'.padEnd(32)} ${s(sq.cold.wall_ms).padStart(5)} s  ${(sq.cold.memory.peak_rss_mb / 1024).toFixed(2)} GB peak RSS`);
report.push('');
report.push('Details:');
for (const t of results) report.push(details(t));
console.log(report.join('\n'));

if (opts.json) {
  mkdirSync(dirname(opts.json), { recursive: true });
  writeFileSync(opts.json, JSON.stringify({ machine, options: { ...opts }, targets: TARGETS, reference: REFERENCE, results }, null, 2));
  console.log(`\nwrote ${opts.json}`);
}
// The "large" section: freshness at scale (bench/scale.mjs) on the 1M/5M/10M workspaces, with --scale.
if (opts.scale) {
  const code = await new Promise(res => spawn(process.execPath, [join(dirname(fileURLToPath(import.meta.url)), 'scale.mjs')], { stdio: 'inherit', env: { ...process.env, SIGHTLINE_DIST: distSnapshot } }).on('exit', c => res(c ?? 1)));
  if (code !== 0) console.error(`bench: the scale section exited with ${code}`);
}
process.exit(0);
