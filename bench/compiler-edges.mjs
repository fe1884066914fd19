#!/usr/bin/env node
// Compiler-grade edges in the background (src/surface/compiler-edges.ts), through the real surface: a
// standalone MCP server (dist/mcp.js) driven by the MCP SDK client. Per project: index_repo, then the
// time until the bundled provider (pyright for Python, the TypeScript service for TS/JS) has checked
// every symbol of its language (cold); then one function appended to one file and the time until the
// watcher has re-indexed it and the provider has checked again (incremental: how many symbols it was
// asked about, out of how many). Peak resident memory of the provider's process tree is sampled.
// Writes its table into bench/RESULTS.md (not with --no-results).
//
// usage: npm run bench:compiler-edges [-- --only a,b] [--no-results]
// Projects: the bench:stake checkouts (click, jinja, starlette) and zod (../benchdata/zod).
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { BENCH_DIR, DIST_DIR, PROJECT_DIR } from './lib/common.mjs';
import { writeResults } from './lib/results.mjs';

const require = createRequire(join(PROJECT_DIR, 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

const DATA = resolve(BENCH_DIR, '..', '..', 'benchdata');
const PROJECTS = [
  { name: 'click', dir: join(DATA, 'stake', 'click'), provider: 'python', edit: 'src/click/utils.py' },
  { name: 'jinja', dir: join(DATA, 'stake', 'jinja'), provider: 'python', edit: 'src/jinja2/utils.py' },
  { name: 'starlette', dir: join(DATA, 'stake', 'starlette'), provider: 'python', edit: 'starlette/datastructures.py' },
  { name: 'zod', dir: join(DATA, 'zod'), provider: 'typescript', edit: 'packages/zod/src/v4/core/util.ts' },
];
const APPEND = {
  python: '\n\ndef bench_appended_helper(value):\n    return str(value).strip()\n',
  typescript: '\n\nexport function benchAppendedHelper(value: unknown): string {\n  return String(value).trim();\n}\n',
};

const args = process.argv.slice(2);
const only = args.includes('--only') ? new Set(args[args.indexOf('--only') + 1].split(',')) : null;
const writeOut = !args.includes('--no-results');
const log = (m) => process.stderr.write(`[compiler-edges] ${m}\n`);
const sleep = (ms) => new Promise(r => setTimeout(r, ms));

/** Peak RSS (MiB) of the processes below `pid`, sampled until `stop()` is called. */
function sampleTree(pid) {
  let peak = 0; let on = true;
  const tick = () => {
    if (!on) return;
    try {
      const out = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,rss='], { encoding: 'utf8' });
      const rows = out.trim().split('\n').map(l => l.trim().split(/\s+/).map(Number));
      const kids = new Set([pid]); let grew = true;
      while (grew) { grew = false; for (const [p, pp] of rows) if (kids.has(pp) && !kids.has(p)) { kids.add(p); grew = true; } }
      kids.delete(pid);
      const rss = rows.filter(([p]) => kids.has(p)).reduce((a, r) => a + r[2], 0) / 1024;
      peak = Math.max(peak, rss);
    } catch { /* ps missing */ }
    setTimeout(tick, 250);
  };
  tick();
  return { stop: () => { on = false; return peak; } };
}

/** Waits for the server's `n`-th finished run of the provider (its log line), or a failure. */
async function finishedRun(log, provider, n, limitMs) {
  const t0 = performance.now();
  const done = new RegExp(`compiler-grade edges: ${provider} on .* \\((?:(\\d+) of )?(\\d+) symbols\\): (\\d+) edges in`, 'g');
  for (;;) {
    const runs = [...log().matchAll(done)];
    if (runs.length >= n) { const m = runs[n - 1]; return { ms: performance.now() - t0, asked: Number(m[1] ?? m[2]), symbols: Number(m[2]), edges: Number(m[3]) }; }
    if (new RegExp(`compiler-grade edges: ${provider} on .* failed`).test(log())) throw new Error(`the ${provider} run failed: ${log().split('\n').filter(l => /failed/.test(l)).pop()}`);
    if (performance.now() - t0 > limitMs) throw new Error(`no ${provider} run finished within ${limitMs / 1000} s`);
    await sleep(250);
  }
}

async function runProject(p) {
  const work = mkdtempSync(join(tmpdir(), `sightline-ce-${p.name}-`));
  const file = join(p.dir, p.edit);
  const original = readFileSync(file, 'utf8');
  let stderr = '';
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(DIST_DIR, 'mcp.js'), '--workspace', p.dir, '--db', join(work, 'index.sqlite'), '--compiler-edges-after', '1'], stderr: 'pipe' });
  transport.stderr?.on('data', d => { stderr += d.toString(); });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  try {
    const t0 = performance.now();
    await client.callTool({ name: 'index_repo', arguments: {} });
    const indexMs = performance.now() - t0;
    const mem = sampleTree(transport.pid);
    const cold = await finishedRun(() => stderr, p.provider, 1, 1_800_000);
    const coldPeak = mem.stop();
    log(`${p.name}: index ${(indexMs / 1000).toFixed(1)} s; ${p.provider} on ${cold.symbols} symbols in ${(cold.ms / 1000).toFixed(1)} s, ${cold.edges} edges, peak ${coldPeak.toFixed(0)} MiB`);
    appendFileSync(file, APPEND[p.provider]);
    const mem2 = sampleTree(transport.pid);
    const inc = await finishedRun(() => stderr, p.provider, 2, 1_800_000);
    const incPeak = mem2.stop();
    log(`${p.name}: after one appended function: caught up in ${(inc.ms / 1000).toFixed(1)} s, asked ${inc.asked} of ${inc.symbols} symbols`);
    return { name: p.name, provider: p.provider, symbols: cold.symbols, indexMs, coldMs: cold.ms, edges: cold.edges, coldPeak, incMs: inc.ms, asked: inc.asked, incPeak };
  } finally {
    writeFileSync(file, original);
    await client.close().catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  }
}

const rows = [];
for (const p of PROJECTS) {
  if (only && !only.has(p.name)) continue;
  try { rows.push(await runProject(p)); } catch (e) { log(`${p.name} failed: ${e.stack ?? e}`); }
}
const s = (ms) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : 'did not finish');
const table = [
  '| project | provider | symbols | index | compiler-grade, cold | edges | peak MiB | after one appended function | symbols asked | peak MiB |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ...rows.map(r => `| ${r.name} | ${r.provider} | ${r.symbols} | ${s(r.indexMs)} | ${s(r.coldMs)} | ${r.edges} | ${r.coldPeak.toFixed(0)} | ${s(r.incMs)} | ${r.asked} | ${r.incPeak.toFixed(0)} |`),
].join('\n');
console.log(table);
if (writeOut && rows.length) log(`wrote ${writeResults('compiler-edges', 'Compiler-grade edges in the background (bench:compiler-edges)', [
  'A standalone MCP server (SDK client): index_repo, then the time until the bundled provider has checked every',
  'symbol of its language; then one function appended to one file, and the time until the watcher and the provider',
  'have caught up (symbols asked: the incremental run). Peak memory of the provider\'s process tree.',
  '', table].join('\n'))}`);
