#!/usr/bin/env node
// Freshness at scale: how soon an edit is visible, what a save writes, and what a new process pays, on
// workspaces of ~1M, ~5M and ~10M lines (each indexed as one root), beside the cold index of each.
//
//   npm run bench:scale -- [--workspace NAME=DIR]... [--edits N] [--seed N] [--json FILE] [--skip-mcp]
//
// Defaults: ws-1m, ws-5m and ws-10m of the benchdata folder beside the checkout, those that exist
// (bench/README.md says how they are made from public repositories). Every measurement runs in a fresh
// child process (bench/lib/scale-child.mjs): cold (with the engine's heap once built, after a full
// collection), a new process editing one file (walk / named path),
// a long-lived engine (notified / watched), and a real MCP client session over stdio.
// Targets: edit → visible p95 ≤ 200 ms in a long-lived engine at 1M and 5M lines; a new process's one-file
// edit ≤ 1.5 s at 5M lines; a one-file edit writes a small share of the index; peak RSS ≤ 3 GB at 10M lines.
// Exit code: 0 when the report was produced (even if targets FAIL), 2 on usage errors or missing data.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { DIST_DIR, MB, round } from './lib/common.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const CHILD = join(here, 'lib', 'scale-child.mjs');
const BENCH_DATA = resolve(here, '..', '..', 'benchdata');
const LANGUAGES = ['python', 'typescript', 'javascript', 'go', 'rust', 'java', 'ruby'];
const TARGETS = { visible_p95_ms: 200, newproc_5m_s: 1.5, rss_10m_mb: 3 * 1024, written_share: 0.02 };

function usage(msg) {
  if (msg) console.error(`bench:scale: ${msg}`);
  console.error('usage: node bench/scale.mjs [--workspace NAME=DIR]... [--edits N] [--seed N] [--json FILE] [--skip-mcp]');
  process.exit(2);
}
const argv = process.argv.slice(2);
const o = { workspaces: [], edits: 20, seed: 1, json: null, mcp: true };
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const val = () => { if (i + 1 >= argv.length) usage(`missing value for ${a}`); return argv[++i]; };
  if (a === '--workspace') { const v = val(); const eq = v.indexOf('='); if (eq <= 0) usage(`--workspace wants NAME=DIR, got ${v}`); o.workspaces.push([v.slice(0, eq), resolve(v.slice(eq + 1))]); }
  else if (a === '--edits') { o.edits = Number(val()); if (!Number.isInteger(o.edits) || o.edits < 2) usage('--edits wants a whole number ≥ 2'); }
  else if (a === '--seed') o.seed = Number(val());
  else if (a === '--json') o.json = resolve(val());
  else if (a === '--skip-mcp') o.mcp = false;
  else if (a === '-h' || a === '--help') usage();
  else usage(`unknown argument ${a}`);
}
if (!o.workspaces.length) o.workspaces = ['ws-1m', 'ws-5m', 'ws-10m'].map(n => [n, join(BENCH_DATA, n)]).filter(([, d]) => existsSync(d));
if (!o.workspaces.length) usage(`no workspace: none of ws-1m, ws-5m, ws-10m in ${BENCH_DATA} (see bench/README.md), and no --workspace given`);
for (const [n, d] of o.workspaces) if (!existsSync(d)) usage(`workspace ${n}: ${d} does not exist`);
if (!existsSync(join(DIST_DIR, 'core.js'))) usage(`${DIST_DIR}/core.js is missing: run "npm run build"`);

// a snapshot of dist/: a build during the run must not change the engine half-way
const dist = mkdtempSync(join(tmpdir(), 'sightline-scale-dist-'));
cpSync(DIST_DIR, dist, { recursive: true, filter: s => !s.endsWith('.map') });
process.on('exit', () => rmSync(dist, { recursive: true, force: true }));
const core = createRequire(import.meta.url)(join(dist, 'core.js'));

function child(jobName, config, dir) {
  const cfgFile = join(dir, `${jobName}-${config.mode ?? 'x'}.json`); const resFile = `${cfgFile}.result`;
  writeFileSync(cfgFile, JSON.stringify(config));
  return new Promise(res => {
    const c = spawn(process.execPath, ['--max-old-space-size=8192', '--expose-gc', CHILD, jobName, cfgFile, resFile], { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, SIGHTLINE_DIST: dist } });
    c.on('exit', (code, sig) => {
      if (code !== 0) return res({ error: `${jobName} exited with ${sig ?? code}` });
      try { res(JSON.parse(readFileSync(resFile, 'utf8'))); } catch (e) { res({ error: `${jobName} wrote no result: ${e.message}` }); }
    });
  });
}

const ok = r => r && !r.error;
const results = [];
console.error(`Sightline scale bench — ${cpus().length} × ${cpus()[0]?.model}, ${round(totalmem() / 1024 ** 3, 1)} GB, Node ${process.version}, load ${loadavg().map(x => x.toFixed(2)).join(' ')}`);
for (const [name, dir] of o.workspaces) {
  const root = realpathSync(dir);
  const tmp = mkdtempSync(join(tmpdir(), `sightline-scale-${name}-`));
  const dbPath = join(tmp, 'index.sqlite');
  const out = { name, root };
  try {
    console.error(`\n== ${name}: ${root}`);
    const walked = await core.walk(root, { excludes: core.DEFAULT_SETTINGS.excludes, languages: null, maxFileBytes: core.DEFAULT_SETTINGS.max_file_bytes });
    const files = walked.files.map(f => ({ abs: f.abs, path: f.path, language: f.language, size: f.size }));
    for (const f of files) { try { readFileSync(f.abs); } catch { /* reported by the engine */ } } // warm the page cache for every job alike
    const filesFile = join(tmp, 'files.json');
    writeFileSync(filesFile, JSON.stringify(files));
    const base = { root, dbPath, filesFile, seed: o.seed, edits: o.edits, languages: LANGUAGES };
    console.error(`  ${files.length} files; cold index …`);
    out.cold = await child('cold', base, tmp);
    console.error(`    ${out.cold.error ?? `${(out.cold.wall_ms / 1000).toFixed(1)} s (first search answered at ${out.cold.first_search_ms === null ? '—' : `${(out.cold.first_search_ms / 1000).toFixed(1)} s`}), ${out.cold.lines.toLocaleString('en-US')} lines, peak RSS ${out.cold.peak_rss_mb} MB`}`);
    if (!ok(out.cold)) { results.push(out); continue; }
    for (const mode of ['walk', 'paths']) {
      console.error(`  new process, one file edited (${mode}) …`);
      out[`newproc_${mode}`] = await child('newproc', { ...base, mode }, tmp);
      const r = out[`newproc_${mode}`];
      console.error(`    ${r.error ?? `${(r.wall_ms / 1000).toFixed(2)} s (open ${(r.open_ms / 1000).toFixed(2)} s, index ${(r.index_ms / 1000).toFixed(2)} s: ${r.files_parsed} parsed, graph ${r.graph_update}, timings ${JSON.stringify(r.timings)}), wrote ${(r.written_bytes / 1024).toFixed(0)} KB`}`);
    }
    console.error(`  long-lived engine, ${o.edits} edits notified + ${o.edits} watched …`);
    out.live = await child('live', base, tmp);
    console.error(`    ${out.live.error ?? `notified p50/p95 ${out.live.notified.p50_ms}/${out.live.notified.p95_ms} ms, watched ${out.live.watched.p50_ms}/${out.live.watched.p95_ms} ms, a function added ${out.live.defined.p50_ms}/${out.live.defined.p95_ms} ms, a file added ${out.live.added?.p50_ms}/${out.live.added?.p95_ms} ms, deleted ${out.live.deleted?.p50_ms}/${out.live.deleted?.p95_ms} ms`}`);
    if (o.mcp) {
      console.error(`  MCP client over stdio, ${o.edits} edits (the server's watcher) …`);
      out.mcp = await child('mcp', base, tmp);
      console.error(`    ${out.mcp.error ?? `p50/p95 ${out.mcp.p50_ms}/${out.mcp.p95_ms} ms${out.mcp.slow?.length ? `; over 200 ms: ${JSON.stringify(out.mcp.slow)}` : ''}`}`);
    }
  } finally { rmSync(tmp, { recursive: true, force: true }); }
  results.push(out);
}

const s = (ms, d = 1) => (Number.isFinite(ms) ? (ms / 1000).toFixed(d) : '—');
const lines = [];
lines.push('', `## Freshness at scale — ${new Date().toISOString()}`, `machine: ${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}; load average at the end ${loadavg().map(x => x.toFixed(2)).join(' ')}`, '');
lines.push('| workspace | lines | files | chunks | cold s | first search s | peak RSS MB | heap after cold MB | index MB | new process, 1 edit: walk s | named path s (open + index) | written per edit KB | edit → visible p50 / p95 ms (notified) | (watched) | (MCP client) | a function added: p50 / p95 ms (notified) | a file added · deleted: p50 / p95 ms (notified) | save on close ms |');
lines.push('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of results) {
  const c = ok(r.cold) ? r.cold : null; const w = ok(r.newproc_walk) ? r.newproc_walk : null; const p = ok(r.newproc_paths) ? r.newproc_paths : null;
  const l = ok(r.live) ? r.live : null; const m = ok(r.mcp) ? r.mcp : null;
  lines.push(`| ${r.name} | ${c ? c.lines.toLocaleString('en-US') : '—'} | ${c ? c.files.toLocaleString('en-US') : '—'} | ${c ? c.chunks.toLocaleString('en-US') : '—'} | ${s(c?.wall_ms)} | ${s(c?.first_search_ms ?? NaN)} | ${c?.peak_rss_mb ?? '—'} | ${c?.heap_after_index_mb ?? '—'} | ${c ? ((c.bytes.snapshot + c.bytes.changes) / MB).toFixed(0) : '—'}`
    + ` | ${s(w?.wall_ms, 2)} | ${p ? `${s(p.wall_ms, 2)} (${s(p.open_ms, 2)} + ${s(p.index_ms, 2)})` : '—'} | ${p ? (p.written_bytes / 1024).toFixed(0) : '—'}`
    + ` | ${l ? `${l.notified.p50_ms} / ${l.notified.p95_ms}` : '—'} | ${l ? `${l.watched.p50_ms} / ${l.watched.p95_ms}` : '—'} | ${m ? `${m.p50_ms} / ${m.p95_ms}` : (o.mcp ? '—' : 'skipped')} | ${l?.defined ? `${l.defined.p50_ms} / ${l.defined.p95_ms}` : '—'} | ${l?.added ? `${l.added.p50_ms} / ${l.added.p95_ms} · ${l.deleted.p50_ms} / ${l.deleted.p95_ms}` : '—'} | ${l?.close_save_ms ?? '—'} |`);
}
lines.push('');
const v = (pass, text) => lines.push(`${pass ? 'PASS' : 'FAIL'}  ${text}`);
for (const r of results) {
  const tag = `[${r.name}]`;
  for (const k of ['cold', 'newproc_walk', 'newproc_paths', 'live', 'mcp']) if (r[k]?.error) v(false, `${tag} ${k}: ${r[k].error}`);
  const c = ok(r.cold) ? r.cold : null;
  if (ok(r.live)) {
    const l = r.live;
    if (r.name !== 'ws-10m') v(l.notified.p95_ms <= TARGETS.visible_p95_ms && l.watched.p95_ms <= TARGETS.visible_p95_ms && !l.misses.length,
      `${tag} edit → visible p95 ≤ ${TARGETS.visible_p95_ms} ms in a long-lived engine: notified ${l.notified.p95_ms} ms, watched ${l.watched.p95_ms} ms (index run p50/p95 ${l.index_run.p50_ms}/${l.index_run.p95_ms} ms)${l.misses.length ? `; NOT visible: ${l.misses.join(', ')}` : ''}`);
    if (r.name !== 'ws-10m' && l.defined) v(l.defined.p95_ms <= TARGETS.visible_p95_ms && !l.misses.length,
      `${tag} a function added → visible p95 ≤ ${TARGETS.visible_p95_ms} ms in a long-lived engine: ${l.defined.p95_ms} ms (p50 ${l.defined.p50_ms}, max ${l.defined.max_ms}); ${l.defined_rebuilt.length} of ${l.defined.n} rebuilt the graph${l.defined_rebuilt.length ? ` (${l.defined_rebuilt.join(', ')})` : ''}`);
    if (r.name !== 'ws-10m' && l.added) v(Math.max(l.added.p95_ms, l.deleted.p95_ms) <= TARGETS.visible_p95_ms && !l.misses.length,
      `${tag} a file added, then deleted → visible p95 ≤ ${TARGETS.visible_p95_ms} ms in a long-lived engine: ${l.added.p95_ms} / ${l.deleted.p95_ms} ms (p50 ${l.added.p50_ms} / ${l.deleted.p50_ms}); ${l.added_rebuilt.length} of ${l.added.n + l.deleted.n} rebuilt the graph${l.added_rebuilt.length ? ` (${l.added_rebuilt.slice(0, 5).join(', ')})` : ''}`);
    if (c) {
      const size = c.bytes.snapshot + c.bytes.changes;
      const edits = l.notified.n + l.watched.n + (l.defined?.n ?? 0) + (l.added?.n ?? 0) + (l.deleted?.n ?? 0); const per = l.written_bytes / edits;
      v(per <= TARGETS.written_share * size, `${tag} saves cost what changed: ${edits} edits wrote ${(l.written_bytes / MB).toFixed(1)} MB in all (${(per / 1024).toFixed(0)} KB an edit, ${(100 * per / size).toFixed(2)}% of the ${(size / MB).toFixed(0)} MB index; a whole-file save writes 100%)${l.snapshot_rewritten ? '; a snapshot was rewritten' : ''}`);
    }
    for (const x of l.slow ?? []) lines.push(`info  ${tag} slow edit ${x.path} ${x.ms} ms${x.watched ? ' (watched)' : ''}: ${JSON.stringify(x.run)}`);
  }
  if (ok(r.mcp)) v(r.mcp.p95_ms <= TARGETS.visible_p95_ms && !r.mcp.misses.length, `${tag} MCP client: edit → visible p95 ${r.mcp.p95_ms} ms (p50 ${r.mcp.p50_ms}, max ${r.mcp.max_ms})`);
  for (const k of ['newproc_walk', 'newproc_paths']) if (ok(r[k]) && r[k].files_parsed !== 1) v(false, `${tag} ${k}: ${r[k].files_parsed} files parsed, not the 1 edited: the figure measures something else`);
  if (ok(r.newproc_paths) && r.name === 'ws-5m') v(r.newproc_paths.wall_ms <= TARGETS.newproc_5m_s * 1000, `${tag} new process, one-file edit ≤ ${TARGETS.newproc_5m_s} s: ${s(r.newproc_paths.wall_ms, 2)} s with the path named (open ${s(r.newproc_paths.open_ms, 2)} s), ${s(r.newproc_walk?.wall_ms, 2)} s with a walk`);
  if (c && r.name === 'ws-10m') v(c.peak_rss_mb <= TARGETS.rss_10m_mb, `${tag} peak RSS ≤ ${TARGETS.rss_10m_mb} MB at 10M lines: ${c.peak_rss_mb} MB`);
}
const cs = results.filter(r => ok(r.cold)).map(r => r.cold);
if (cs.length >= 2) {
  const [a, b] = [cs[0], cs[cs.length - 1]];
  lines.push(`info  cold-index slope: ${((b.wall_ms - a.wall_ms) / 1000 / ((b.lines - a.lines) / 1e6)).toFixed(1)} s per million lines between ${a.lines.toLocaleString('en-US')} and ${b.lines.toLocaleString('en-US')} lines (${cs.map(c => `${(c.wall_ms / 1000).toFixed(0)} s @ ${(c.lines / 1e6).toFixed(1)}M`).join(', ')})`);
}
console.log(lines.join('\n'));
if (o.json) writeFileSync(o.json, JSON.stringify({ targets: TARGETS, results }, null, 2));
