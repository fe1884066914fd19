#!/usr/bin/env node
// What a one-shot CLI `search` costs against the size of the index it opens: each workspace is indexed once
// (kept in the cache folder given, reused when present), then `sightline search QUERY --db FILE` is run
// as a whole process, alternately with a baseline build when one is given, and its wall time taken (median
// of --runs after one warm-up). Beside it, in one process: loading the bundle, opening the index and the
// first and second search, to say where the time goes.
//
//   npm run bench:cli-open -- --workspace NAME=DIR... [--query Q] [--runs N] [--baseline-dist DIR]
//                             [--cache DIR] [--no-write]
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DIST_DIR, PROJECT_DIR, percentile, round } from './lib/common.mjs';
import { writeResults } from './lib/results.mjs';

const argv = process.argv.slice(2);
const o = { workspaces: [], query: 'parse the configuration file', runs: 7, baseline: null, cache: resolve(PROJECT_DIR, '..', 'benchdata', 'cli-open'), write: true };
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const val = () => argv[++i];
  if (a === '--workspace') { const [n, d] = val().split('='); o.workspaces.push({ name: n, dir: resolve(d) }); }
  else if (a === '--query') o.query = val();
  else if (a === '--runs') o.runs = Number(val());
  else if (a === '--baseline-dist') o.baseline = resolve(val());
  else if (a === '--cache') o.cache = resolve(val());
  else if (a === '--no-write') o.write = false;
  else { console.error(`bench:cli-open: unknown option ${a}`); process.exit(2); }
}
if (!o.workspaces.length) { console.error('bench:cli-open: give at least one --workspace NAME=DIR'); process.exit(2); }
mkdirSync(o.cache, { recursive: true });

const cli = dist => join(dist, 'cli.js');
/** Wall milliseconds of one whole `search` process. */
function timedSearch(dist, db) {
  const t = performance.now();
  const r = spawnSync(process.execPath, [cli(dist), 'search', o.query, '--db', db, '--limit', '5'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`search failed (${dist}): ${r.stderr.slice(0, 300)}`);
  return performance.now() - t;
}

/** In one process: bundle load, index open, first and second search (ms). */
function breakdown(db, root) {
  const probe = `
    const t0 = performance.now(); const core = require(${JSON.stringify(join(DIST_DIR, 'core.js'))}); const t1 = performance.now();
    (async () => {
      const e = await core.Engine.open({ roots: [], fallbackRoots: [${JSON.stringify(root)}], dbPath: ${JSON.stringify(db)}, threads: 0 });
      const t2 = performance.now();
      const ask = q => core.invokeTool(core.TOOLS.search_code, { query: q, limit: 5 }, { engine: e });
      await ask(${JSON.stringify(o.query)}); const t3 = performance.now();
      await ask(${JSON.stringify(`${o.query} error`)}); const t4 = performance.now();
      e.close();
      console.log(JSON.stringify({ load: t1 - t0, open: t2 - t1, first: t3 - t2, second: t4 - t3 }));
    })();`;
  return JSON.parse(execFileSync(process.execPath, ['-e', probe], { encoding: 'utf8' }).trim().split('\n').pop());
}

const rows = [];
for (const w of o.workspaces) {
  const db = join(o.cache, `${w.name}.sqlite`);
  if (!existsSync(db)) execFileSync(process.execPath, [cli(DIST_DIR), 'index', w.dir, '--db', db, '--no-compiler-edges'], { stdio: 'ignore' });
  const ours = [], base = [];
  timedSearch(DIST_DIR, db);
  if (o.baseline) timedSearch(o.baseline, db);
  for (let i = 0; i < o.runs; i++) {
    ours.push(timedSearch(DIST_DIR, db));
    if (o.baseline) base.push(timedSearch(o.baseline, db));
  }
  const parts = [0, 1, 2].map(() => breakdown(db, w.dir));
  const med = k => percentile(parts.map(p => p[k]).sort((a, b) => a - b), 50);
  const mid = xs => percentile([...xs].sort((a, b) => a - b), 50);
  rows.push({ name: w.name, mb: statSync(db).size / 2 ** 20, ours: mid(ours), base: o.baseline ? mid(base) : null,
    load: med('load'), open: med('open'), first: med('first'), second: med('second') });
  console.error(`[cli-open] ${w.name}: ${round(rows.at(-1).ours, 0)} ms`);
}

const out = [];
out.push(`One-shot \`sightline search "${o.query}" --db FILE\` as a whole process: median wall time of ${o.runs} runs after a warm-up${o.baseline ? ', alternating with the baseline build' : ''}; where the time goes, in one process (medians of 3): loading the bundle, opening the index, the first search, a second one.`);
out.push('');
out.push(`| workspace | index MB | CLI search ms${o.baseline ? ' | baseline build ms' : ''} | bundle load ms | open ms | first search ms | second search ms |`);
out.push(`| --- | --- | ---${o.baseline ? ' | ---' : ''} | --- | --- | --- | --- |`);
for (const r of rows) {
  out.push(`| ${r.name} | ${round(r.mb, 1)} | ${round(r.ours, 0)}${o.baseline ? ` | ${round(r.base, 0)}` : ''} | ${round(r.load, 0)} | ${round(r.open, 0)} | ${round(r.first, 0)} | ${round(r.second, 0)} |`);
}
out.push('');
const text = out.join('\n');
console.log(text);
if (o.write) console.error(`bench:cli-open: wrote ${writeResults('cli-open', 'One-shot CLI search against the index size (bench:cli-open)', text)}`);
