// One benchmark measurement in its own process, so that peak RSS is this job's alone.
//   node bench/lib/child.mjs <job> <config.json> <result.json>
// Jobs: cold | restart | query | edit | floor. The result (JSON) is written to <result.json>.
import { readFileSync, writeFileSync, statSync, utimesSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { loadCore, peakRssBytes, currentRssBytes, cpuSecondsSince, percentile, MB, round, runJob } from './common.mjs';

const [job, configFile, resultFile] = process.argv.slice(2);
const cfg = JSON.parse(readFileSync(configFile, 'utf8'));
const log = (msg) => process.stderr.write(`    [${job}] ${msg}\n`);

function memory() {
  const m = process.memoryUsage();
  return { peak_rss_mb: round(peakRssBytes() / MB, 1), rss_mb: round(m.rss / MB, 1), heap_used_mb: round(m.heapUsed / MB, 1),
    external_mb: round(m.external / MB, 1), array_buffers_mb: round(m.arrayBuffers / MB, 1) };
}

/** Samples RSS while the event loop is free; remembers the phase of the highest sample. */
function rssSampler() {
  let phase = 'open'; let max = 0; let maxPhase = phase; const atPhase = {};
  const sample = () => { const r = currentRssBytes(); if (r > max) { max = r; maxPhase = phase; } return r; };
  const timer = setInterval(sample, 100);
  return {
    phase(p) { if (p !== phase) { atPhase[`${phase}_end`] = round(sample() / MB, 1); phase = p; } },
    stop() { clearInterval(timer); atPhase[`${phase}_end`] = round(sample() / MB, 1); return { rss_mb_at_phase_end: atPhase, max_sampled_rss_mb: round(max / MB, 1), max_sampled_in_phase: maxPhase }; },
  };
}

async function indexJob(kind) {
  const tl = performance.now();
  const core = loadCore();
  const load_ms = performance.now() - tl;
  const sampler = rssSampler();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const engine = await core.Engine.open({ roots: [cfg.root], dbPath: cfg.dbPath });
  const open_ms = performance.now() - t0;
  sampler.phase('walk');
  const report = await engine.index({ onProgress: (p) => sampler.phase(p.phase) });
  const wall_ms = performance.now() - t0;
  const since_process_start_ms = performance.now(); // performance.timeOrigin is the process start
  const cpu = cpuSecondsSince(c0);
  const rss = sampler.stop();
  const mem = memory();
  const status = await engine.status();
  const rebuilt = engine.rebuiltFromScratch;
  engine.close();
  const lines = status.languages.reduce((s, l) => s + (l.lines ?? 0), 0);
  const diagCodes = {};
  for (const d of report.diagnostics) diagCodes[d.code] = (diagCodes[d.code] ?? 0) + 1;
  return {
    kind, load_core_ms: round(load_ms, 1), open_ms: round(open_ms, 1), wall_ms: round(wall_ms, 1), since_process_start_ms: round(since_process_start_ms, 1),
    cpu, threads_default: true, totals: report.totals, timings: report.timings, repos: report.repos.map(r => ({ chunks_written: r.chunks_written, symbols_written: r.symbols_written, history_update: r.history_update ?? null, history_git_calls: r.history_git_calls ?? null })),
    diagnostics_by_code: diagCodes, rebuilt_from_scratch: rebuilt,
    files: status.file_count, lines, chunks: status.chunk_count, symbols: status.symbol_count, occurrences: status.occurrence_count,
    languages: status.languages, db_bytes: statSync(cfg.dbPath).size, memory: mem, rss,
  };
}

async function queryJob() {
  const core = loadCore();
  const queries = JSON.parse(readFileSync(cfg.queriesFile, 'utf8'));
  const t0 = performance.now();
  const engine = await core.Engine.open({ roots: [cfg.root], dbPath: cfg.dbPath });
  const open_ms = performance.now() - t0;
  const status = await engine.status();
  const ctx = { engine };
  const run = async (query) => {
    const t = performance.now();
    const out = await core.invokeTool(core.TOOLS.search_code, { query, limit: 10 }, ctx);
    const ms = performance.now() - t;
    return { ms, ok: out.ok, hits: out.ok ? out.data.files.length : 0, total: out.ok ? out.data.total : 0, error: out.ok ? null : out.error?.message ?? out.markdown };
  };
  const warm = queries.slice(0, cfg.warmup);
  const measured = queries.slice(cfg.warmup);
  const tw = performance.now();
  for (const q of warm) await run(q);
  const warmup_ms = performance.now() - tw;
  const samples = [];
  for (const q of measured) samples.push({ query: q, ...(await run(q)) });
  // Long queries (a pasted issue of ~10k characters), when the run asked for them.
  const longQueries = cfg.longQueriesFile ? JSON.parse(readFileSync(cfg.longQueriesFile, 'utf8')) : [];
  const longMs = [];
  for (const [i, q] of longQueries.entries()) { const s = await run(q); if (i >= 2) longMs.push(s.ms); if (!s.ok) samples.push({ query: q.slice(0, 80), ...s }); }
  longMs.sort((a, b) => a - b);
  const mem = memory();
  engine.close();
  const ms = samples.map(s => s.ms).sort((a, b) => a - b);
  const slowest = [...samples].sort((a, b) => b.ms - a.ms).slice(0, 5).map(s => ({ query: s.query, ms: round(s.ms, 1), total: s.total }));
  return {
    open_ms: round(open_ms, 1), warmup: warm.length, warmup_ms: round(warmup_ms, 1), n: samples.length, chunks: status.chunk_count,
    p50_ms: round(percentile(ms, 50), 2), p95_ms: round(percentile(ms, 95), 2), p99_ms: round(percentile(ms, 99), 2), max_ms: round(ms[ms.length - 1], 2),
    mean_ms: round(ms.reduce((a, b) => a + b, 0) / Math.max(1, ms.length), 2),
    errors: samples.filter(s => !s.ok).length, first_error: samples.find(s => !s.ok)?.error ?? null, zero_hit: samples.filter(s => s.ok && s.hits === 0).length,
    slowest, memory: mem,
    long: longMs.length ? { n: longMs.length, chars: Math.round(longQueries.reduce((a, q) => a + q.length, 0) / longQueries.length), p50_ms: round(percentile(longMs, 50), 2), p95_ms: round(percentile(longMs, 95), 2), max_ms: round(longMs[longMs.length - 1], 2) } : null,
  };
}

/**
 * One file edited (a comment line appended: its definitions, imports and base classes stay the same),
 * then an incremental index. The file's bytes and times are restored afterwards, whatever happens.
 */
async function editJob() {
  const core = loadCore();
  const original = readFileSync(cfg.editFile);
  const st = statSync(cfg.editFile, { bigint: true });
  const restore = () => { writeFileSync(cfg.editFile, original); utimesSync(cfg.editFile, Number(st.atimeNs) / 1e9, Number(st.mtimeNs) / 1e9); };
  const onSignal = (sig) => { restore(); process.exit(sig === 'SIGINT' ? 130 : 143); };
  process.once('SIGINT', onSignal); process.once('SIGTERM', onSignal);
  const engine = await core.Engine.open({ roots: [cfg.root], dbPath: cfg.dbPath });
  try {
    writeFileSync(cfg.editFile, Buffer.concat([original, Buffer.from(`\n${cfg.comment} an edit by the Sightline benchmark\n`)]));
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const report = await engine.index();
    const wall_ms = performance.now() - t0;
    const repo = report.repos[0];
    return { wall_ms: round(wall_ms, 1), cpu: cpuSecondsSince(c0), timings: report.timings, files_parsed: report.totals.files_parsed,
      graph_update: repo.graph_update, edges_written: repo.edges_written, memory: memory() };
  } finally {
    engine.close();
    restore();
  }
}

/** Parse + tags query over the walked files with `threads` worker threads; files handed out in small batches. */
async function floorJob() {
  const files = JSON.parse(readFileSync(cfg.filesFile, 'utf8'));
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const BATCH = 8;
  let next = 0;
  const results = await Promise.all(Array.from({ length: cfg.threads }, () => new Promise((resolveW, rejectW) => {
    const w = new Worker(new URL('./floor-worker.mjs', import.meta.url), { workerData: { mode: cfg.mode } });
    const give = () => {
      if (next >= files.length) { w.postMessage({ done: true }); return; }
      const batch = files.slice(next, next + BATCH); next += BATCH;
      w.postMessage({ files: batch });
    };
    w.on('message', (m) => { if (m.ready || m.batchDone) give(); else if (m.final) { resolveW(m.final); w.terminate(); } });
    w.on('error', rejectW);
  })));
  const wall_ms = performance.now() - t0;
  const cpu = cpuSecondsSince(c0);
  const sum = (k) => results.reduce((s, r) => s + r[k], 0);
  return {
    mode: cfg.mode, loader: results[0]?.loader, threads: cfg.threads, wall_ms: round(wall_ms, 1), cpu,
    // Per-thread busy time (read + decode + parse + query) summed over workers: the single-thread cost.
    busy_sum_ms: round(sum('busy_ms'), 1), load_sum_ms: round(sum('load_ms'), 1), per_worker_busy_ms: results.map(r => round(r.busy_ms, 1)),
    files: sum('files'), lines: sum('lines'), bytes: sum('bytes'), failed: sum('failed'), first_failure: results.find(r => r.first_failure)?.first_failure ?? null,
    memory: memory(),
  };
}

const jobs = { cold: () => indexJob('cold'), restart: () => indexJob('restart'), query: queryJob, edit: editJob, floor: floorJob };
await runJob(jobs, job, resultFile, log);
