// One measurement of the scale benchmark (bench/scale.mjs) in its own process (peak RSS is its own).
//   node bench/lib/scale-child.mjs <job> <config.json> <result.json>
// Jobs:
//   cold      Engine.open + index() into a fresh index file
//   newproc   a new process: open the index, append a comment to one file, then index() (walk) or
//             index({ paths }) (the editor or a watcher names the file); the file is restored after
//   live      a long-lived engine: per edit, a comment with a unique word is appended to a file, and the
//             time until search_code names that file is measured — notified (the editor names the path:
//             live.notify + settle) and watched (the engine's own file watcher; settle + search polled);
//             also a function appended to a file, and a new file beside a source file then deleted (notified)
//   mcp       the same through a real MCP client over stdio (dist/mcp.js, its file watcher)
// Every edited file is restored (bytes and times) before the job ends, also on SIGINT/SIGTERM.
import { readFileSync, writeFileSync, statSync, utimesSync, existsSync, unlinkSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { loadCore, peakRssBytes, cpuSecondsSince, percentile, rng, MB, round, DIST_DIR, PROJECT_DIR, runJob } from './common.mjs';

const [job, configFile, resultFile] = process.argv.slice(2);
const cfg = JSON.parse(readFileSync(configFile, 'utf8'));
const log = (msg) => process.stderr.write(`    [${job}] ${msg}\n`);
const COMMENT = { python: '#', ruby: '#' };
/** A new top-level function in each language an edit may add one to. */
const DEFINE = {
  python: w => `\ndef ${w}():\n    return 1\n`, ruby: w => `def ${w}\n  1\nend\n`, go: w => `func ${w}() int { return 1 }\n`,
  rust: w => `fn ${w}() -> u8 { 1 }\n`, typescript: w => `export function ${w}(): number { return 1; }\n`, javascript: w => `function ${w}() { return 1; }\n`,
};
const sleep = (ms) => new Promise(r => setTimeout(r, ms));

function indexBytes(db) {
  const size = p => { try { return statSync(p).size; } catch { return 0; } };
  return { snapshot: size(db), changes: size(`${db}.changes`) };
}

/** Remembers files' bytes and times and puts them back, and removes the files it made (at the end, or on a signal). */
function restorers() {
  const saved = new Map();
  const made = new Set();
  const put = () => {
    for (const file of made) { try { if (existsSync(file)) unlinkSync(file); } catch (e) { log(`could not remove ${file}: ${e.message}`); } }
    for (const [file, { bytes, st }] of saved) {
      try { writeFileSync(file, bytes); utimesSync(file, Number(st.atimeNs) / 1e9, Number(st.mtimeNs) / 1e9); } catch (e) { log(`could not restore ${file}: ${e.message}`); }
    }
  };
  const onSignal = (sig) => { put(); process.exit(sig === 'SIGINT' ? 130 : 143); };
  process.once('SIGINT', onSignal); process.once('SIGTERM', onSignal);
  return {
    /** appends a comment holding `word` to `file` (its language's line comment) */
    edit(file, language, word) {
      if (!saved.has(file)) saved.set(file, { bytes: readFileSync(file), st: statSync(file, { bigint: true }) });
      writeFileSync(file, Buffer.concat([saved.get(file).bytes, Buffer.from(`\n${COMMENT[language] ?? '//'} ${word} an edit by the Sightline benchmark\n`)]));
    },
    /** appends a new top-level function named `word` to `file` (a definition added: the file's shape changes) */
    define(file, language, word) {
      if (!saved.has(file)) saved.set(file, { bytes: readFileSync(file), st: statSync(file, { bigint: true }) });
      writeFileSync(file, Buffer.concat([saved.get(file).bytes, Buffer.from(`\n${DEFINE[language](word)}\n`)]));
    },
    /** writes a new file (removed at the end) */
    create(file, text) { made.add(file); writeFileSync(file, text); },
    restore: put,
  };
}

/** A word no file holds: letters only (one full-text token), from the edit's number. */
const wordFor = (k, salt) => { let s = 'zq'; let x = k * 7919 + salt * 104729 + 12345; for (let i = 0; i < 8; i++) { s += String.fromCharCode(97 + (x % 26)); x = Math.floor(x / 26) + 31 * (i + 1); } return s; };

/** The seeded sample of files to edit (a spread of sizes). */
function sample(files, n, seed) {
  const r = rng(seed);
  const pool = files.filter(f => cfg.languages.includes(f.language));
  const out = [];
  const seen = new Set();
  while (out.length < Math.min(n, pool.length)) { const f = pool[Math.floor(r() * pool.length)]; if (!seen.has(f.abs)) { seen.add(f.abs); out.push(f); } }
  return out;
}

const names = (data, path) => [...(data?.files ?? []), ...(data?.results ?? [])].some(h => h.path === path);

async function coldJob() {
  const core = loadCore();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const engine = await core.Engine.open({ roots: [cfg.root], dbPath: cfg.dbPath });
  // time to first search: while the index runs, search_code is asked every 250 ms (as an agent would be
  // answered between the run's batches) until it names a file
  let first_search_ms = null; let polls = 0; let done = false;
  const poll = (async () => {
    while (!done && first_search_ms === null) {
      await new Promise(r => setTimeout(r, 250));
      if (done) break;
      polls++;
      const out = await core.invokeTool(core.TOOLS.search_code, { query: cfg.firstQuery ?? 'return value', limit: 5 }, { engine });
      if (out.ok && (out.data.files?.length || out.data.results?.length)) first_search_ms = performance.now() - t0;
    }
  })();
  const report = await engine.index();
  done = true; await poll;
  const wall_ms = performance.now() - t0;
  // the engine's JavaScript heap once the index is built (what a long-lived engine carries into its edits:
  // the resolver tables it keeps, read caches), after a full collection (the child runs with --expose-gc)
  globalThis.gc?.();
  const heap_mb = round(process.memoryUsage().heapUsed / MB, 1);
  const status = await engine.status();
  engine.close();
  return { wall_ms: round(wall_ms, 1), first_search_ms: first_search_ms === null ? null : round(first_search_ms, 1), search_polls: polls, cpu: cpuSecondsSince(c0), timings: report.timings, totals: report.totals, files: status.file_count, chunks: status.chunk_count,
    lines: status.languages.reduce((s, l) => s + (l.lines ?? 0), 0), peak_rss_mb: round(peakRssBytes() / MB, 1), heap_after_index_mb: heap_mb, bytes: indexBytes(cfg.dbPath) };
}

async function newprocJob() {
  const core = loadCore();
  const files = JSON.parse(readFileSync(cfg.filesFile, 'utf8'));
  const [f] = sample(files, 1, cfg.seed);
  const r = restorers();
  const t0 = performance.now();
  const engine = await core.Engine.open({ roots: [cfg.root], dbPath: cfg.dbPath });
  const open_ms = performance.now() - t0;
  try {
    // a word of its own per mode: the walk job's edit is in the index, the same bytes again would be no change
    r.edit(f.abs, f.language, wordFor(cfg.mode === 'paths' ? 2 : 1, cfg.seed));
    const before = indexBytes(cfg.dbPath);
    const ti = performance.now();
    const report = await engine.index(cfg.mode === 'paths' ? { paths: [f.abs] } : {});
    const index_ms = performance.now() - ti;
    const after = indexBytes(cfg.dbPath);
    return { mode: cfg.mode, path: f.path, open_ms: round(open_ms, 1), index_ms: round(index_ms, 1), wall_ms: round(performance.now() - t0, 1), timings: report.timings,
      files_parsed: report.totals.files_parsed, graph_update: report.repos[0]?.graph_update, written_bytes: after.changes - before.changes + (after.snapshot !== before.snapshot ? after.snapshot : 0),
      snapshot_rewritten: after.snapshot !== before.snapshot, index_bytes: after, peak_rss_mb: round(peakRssBytes() / MB, 1) };
  } finally { engine.close(); r.restore(); }
}

async function liveJob() {
  const core = loadCore();
  const files = JSON.parse(readFileSync(cfg.filesFile, 'utf8'));
  const picks = sample(files, cfg.edits * 2, cfg.seed + 1);
  const r = restorers();
  const engine = await core.Engine.open({ roots: [cfg.root], dbPath: cfg.dbPath });
  const search = async (word) => (await core.invokeTool(core.TOOLS.search_code, { query: word, limit: 10 }, { engine })).data;
  const notified = []; const watched = []; const runs = []; const misses = []; const slow = []; const defined = []; const rebuilt = [];
  const added = []; const deleted = []; const addRebuilt = [];
  try {
    await engine.index(); // the files earlier jobs restored
    await engine.live.prepare(); // grammars and resolver tables, as the editor's engine process prepares them at start
    const before = indexBytes(cfg.dbPath);
    /** one edit the engine is told of (as the editor tells it), timed until search_code names the file */
    const notifiedEdit = async (f, word, write, tag) => {
      const t0 = performance.now();
      write(f.abs, f.language, word);
      engine.live.notify([f.abs]);
      await engine.live.settle();
      if (!names(await search(word), f.path)) misses.push(f.path);
      const ms = performance.now() - t0;
      if (ms > 500) slow.push({ path: f.path, ms: round(ms, 1), run: engine.live.stats.last_run, ...tag });
      return ms;
    };
    for (const [k, f] of picks.slice(0, cfg.edits).entries()) {
      notified.push(await notifiedEdit(f, wordFor(100 + k, cfg.seed), r.edit, {}));
      runs.push(engine.live.stats.last_run_ms);
    }
    // a function added to a file (its definitions change: the graph is brought up to date around it)
    const definedPicks = sample(files.filter(f => DEFINE[f.language] && !picks.includes(f)), cfg.edits, cfg.seed + 3);
    for (const [k, f] of definedPicks.entries()) {
      defined.push(await notifiedEdit(f, wordFor(300 + k, cfg.seed), r.define, { defined: true }));
      if ((engine.live.stats.last_run?.graph_update ?? []).includes('full')) rebuilt.push(f.path);
    }
    // a new file beside a source file, holding one new function (a definition the graph must take), then
    // the same file deleted: each timed until search_code names it, or no longer does
    const addPicks = sample(files.filter(f => DEFINE[f.language] && !picks.includes(f) && !definedPicks.includes(f)), cfg.edits, cfg.seed + 4);
    const newFiles = [];
    for (const [k, f] of addPicks.entries()) {
      const word = wordFor(400 + k, cfg.seed);
      const abs = join(dirname(f.abs), `${word}${extname(f.abs)}`); const path = join(dirname(f.path), `${word}${extname(f.path)}`);
      const head = f.language === 'go' ? `${/^package \w+/m.exec(readFileSync(f.abs, 'utf8'))?.[0] ?? 'package main'}\n\n` : '';
      const t0 = performance.now();
      r.create(abs, head + DEFINE[f.language](word));
      engine.live.notify([abs]);
      await engine.live.settle();
      if (!names(await search(word), path)) misses.push(path);
      added.push(performance.now() - t0);
      if ((engine.live.stats.last_run?.graph_update ?? []).includes('full')) addRebuilt.push(path);
      newFiles.push({ abs, path, word });
    }
    for (const { abs, path, word } of newFiles) {
      const t0 = performance.now();
      unlinkSync(abs);
      engine.live.notify([abs]);
      await engine.live.settle();
      if (names(await search(word), path)) misses.push(`${path} (deleted)`);
      deleted.push(performance.now() - t0);
      if ((engine.live.stats.last_run?.graph_update ?? []).includes('full')) addRebuilt.push(`${path} (deleted)`);
    }
    await engine.live.watch();
    for (const [k, f] of picks.slice(cfg.edits).entries()) {
      const word = wordFor(200 + k, cfg.seed);
      const t0 = performance.now();
      r.edit(f.abs, f.language, word);
      let ok = false;
      while (!ok && performance.now() - t0 < 10_000) { await engine.live.settle(); ok = names(await search(word), f.path); if (!ok) await sleep(2); }
      if (!ok) misses.push(f.path);
      watched.push(performance.now() - t0);
      if (performance.now() - t0 > 500) slow.push({ path: f.path, ms: round(performance.now() - t0, 1), run: engine.live.stats.last_run, watched: true });
    }
    // the deferred save: close() writes what is pending
    const tc = performance.now();
    await engine.live.close();
    engine.close();
    const close_ms = performance.now() - tc;
    const after = indexBytes(cfg.dbPath);
    const q = xs => { const s = [...xs].sort((a, b) => a - b); return { n: s.length, p50_ms: round(percentile(s, 50), 1), p95_ms: round(percentile(s, 95), 1), max_ms: round(s[s.length - 1], 1) }; };
    return { notified: q(notified), watched: q(watched), defined: q(defined), defined_rebuilt: rebuilt, added: q(added), deleted: q(deleted), added_rebuilt: addRebuilt, index_run: q(runs), misses, slow, close_save_ms: round(close_ms, 1),
      written_bytes: after.changes - before.changes + (after.snapshot !== before.snapshot ? after.snapshot : 0), snapshot_rewritten: after.snapshot !== before.snapshot,
      stats: engine.live.stats, peak_rss_mb: round(peakRssBytes() / MB, 1) };
  } finally { r.restore(); }
}

async function mcpJob() {
  const require = createRequire(join(PROJECT_DIR, 'package.json'));
  const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
  const files = JSON.parse(readFileSync(cfg.filesFile, 'utf8'));
  const picks = sample(files, cfg.edits, cfg.seed + 2);
  const r = restorers();
  const mcp = join(DIST_DIR, 'mcp.js');
  if (!existsSync(mcp)) throw new Error(`${mcp} is missing`);
  const transport = new StdioClientTransport({ command: process.execPath, args: [mcp, '--workspace', cfg.root, '--db', cfg.dbPath], stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', d => { stderr += d.toString('utf8'); });
  const client = new Client({ name: 'sightline-bench', version: '0.0.0' });
  await client.connect(transport);
  const times = []; const misses = []; const slow = [];
  try {
    const first = await client.callTool({ name: 'index_repo', arguments: {} }, undefined, { timeout: 600_000 });
    if (first.isError) throw new Error(`index_repo failed: ${first.content?.[0]?.text}`);
    const t = performance.now();
    while (!stderr.includes('watching the workspace') && performance.now() - t < 120_000) await sleep(50);
    if (!stderr.includes('watching the workspace')) throw new Error(`the server is not watching: ${stderr.slice(-500)}`);
    for (const [k, f] of picks.entries()) {
      const word = wordFor(300 + k, cfg.seed);
      const from = stderr.length;
      const t0 = performance.now();
      r.edit(f.abs, f.language, word);
      let ok = false; let calls = 0;
      while (!ok && performance.now() - t0 < 10_000) {
        const res = await client.callTool({ name: 'search_code', arguments: { query: word, limit: 10 } });
        ok = names(res.structuredContent, f.path); calls++;
        if (!ok) await sleep(2);
      }
      if (!ok) misses.push(f.path);
      const ms = performance.now() - t0;
      times.push(ms);
      // what the server said meanwhile (its applied-changes lines), for the slow ones
      if (ms > 200) slow.push({ path: f.path, ms: round(ms, 1), calls, server: stderr.slice(from).trim().split('\n').slice(-3) });
    }
  } finally {
    await client.close().catch(() => undefined);
    r.restore();
  }
  const s = [...times].sort((a, b) => a - b);
  return { n: s.length, p50_ms: round(percentile(s, 50), 1), p95_ms: round(percentile(s, 95), 1), max_ms: round(s[s.length - 1], 1), misses, slow };
}

const jobs = { cold: coldJob, newproc: newprocJob, live: liveJob, mcp: mcpJob };
await runJob(jobs, job, resultFile, log);
