#!/usr/bin/env node
// First contact over MCP, as an agent's client sees it: the official SDK client spawns the server over
// stdio on a warm index, initializes, lists the tools (the client compiles every output schema) and asks
// one search_code question. Also: what the tools list weighs, and how much structured JSON each answer
// carries next to its Markdown (VS Code hands both to the model).
//
//   npm run bench:first-contact -- [--workspace DIR] [--symbol S] [--runs N] [--baseline-dist DIR] [--node PATH] [--no-write]
//
// --baseline-dist measures another build (a dist/ folder of an earlier commit) in the same run, as the
// "before" column. Targets: tools/list output schemas ≤ 40 KB in all; spawn → first answer ≤ 1 s (p50);
// structured JSON ≤ 2× the Markdown for every answer.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DIST_DIR, PROJECT_DIR, percentile, round } from './lib/common.mjs';
import { writeResults } from './lib/results.mjs';

const require = createRequire(join(PROJECT_DIR, 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

const argv = process.argv.slice(2);
const o = { workspace: resolve(PROJECT_DIR, '..', 'benchdata', 'httpx'), symbol: 'Client.send', runs: 10, baseline: null, write: true, node: process.execPath };
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const val = () => argv[++i];
  if (a === '--workspace') o.workspace = resolve(val());
  else if (a === '--symbol') o.symbol = val();
  else if (a === '--runs') o.runs = Number(val());
  else if (a === '--baseline-dist') o.baseline = resolve(val());
  else if (a === '--no-write') o.write = false;
  else if (a === '--node') o.node = resolve(val());
  else { console.error(`bench:first-contact: unknown option ${a}`); process.exit(2); }
}
if (!existsSync(o.workspace)) { console.error(`bench:first-contact: no workspace at ${o.workspace}`); process.exit(2); }

/**
 * Questions an agent asks, one per tool with a list answer; structured/Markdown size is measured on
 * each. `(chunk)` stands for the definition find_references resolved (get_chunk and expand_context).
 */
const QUESTIONS = [
  ['search_code', { query: 'follow redirects when sending a request' }],
  ['overview', {}],
  ['find_references', { symbol: o.symbol }],
  ['impact', { symbol: o.symbol }],
  ['related_tests', { symbol: o.symbol }],
  ['history', { symbol: o.symbol }],
  ['index_status', {}],
  ['get_chunk', { chunk_id: '(chunk)' }],
  ['expand_context', { chunk_ids: ['(chunk)'] }],
  ['pre_change_context', { query: 'add a limit to the number of redirects followed' }],
  ['impact_analysis', { changed_symbols: [o.symbol] }],
  ['find_similar', { symbol: o.symbol }],
  ['links', {}],
  ['analytics', { kind: 'communities' }],
  ['analytics', { kind: 'cycles' }],
  ['analytics', { kind: 'hotspots' }],
  ['vector_search', { query: 'redirect limit' }],
];
const label = ([name, args]) => (name === 'analytics' ? `analytics ${args.kind}` : name);

async function connect(dist, db) {
  const transport = new StdioClientTransport({
    command: o.node,
    args: [join(dist, 'mcp.js'), '--workspace', o.workspace, '--db', db, '--no-watch', '--no-compiler-edges'],
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', d => { err += d; });
  const client = new Client({ name: 'bench-first-contact', version: '1' });
  await client.connect(transport);
  client.serverLog = () => err;
  return client;
}

/** The server's own account of its start (`ready N ms after start (bundle B ms, index open O ms)`), when it gives one. */
function phases(log) {
  const m = /ready (\d+) ms after start \(bundle (\d+) ms, index open (\d+) ms\)/.exec(log);
  return m ? { ready: Number(m[1]), bundle: Number(m[2]), open: Number(m[3]) } : null;
}

/** One cold start: spawn + initialize, tools/list (in the client), the first search_code answer. */
async function startOnce(dist, db) {
  const t0 = performance.now();
  const client = await connect(dist, db);
  const t1 = performance.now();
  const listed = await client.listTools();
  const t2 = performance.now();
  await client.callTool({ name: 'search_code', arguments: { query: 'timeout' } });
  const t3 = performance.now();
  const p = phases(client.serverLog());
  await client.close();
  return { initialize: t1 - t0, list: t2 - t1, first: t3 - t2, total: t3 - t0, tools: listed.tools,
    bundle: p?.bundle ?? NaN, open: p?.open ?? NaN, ready: p?.ready ?? NaN };
}

function sizes(tools) {
  const own = tools.filter(t => t.outputSchema);
  const len = v => JSON.stringify(v ?? null).length;
  return {
    list_bytes: len(tools),
    output: own.reduce((s, t) => s + len(t.outputSchema), 0),
    visible: tools.reduce((s, t) => s + t.name.length + (t.description ?? '').length + len(t.inputSchema), 0),
  };
}

async function ratios(dist, db) {
  const client = await connect(dist, db);
  const rows = [];
  let chunk = null;
  for (const [name, args] of QUESTIONS) {
    const withChunk = JSON.parse(JSON.stringify(args).replaceAll('"(chunk)"', JSON.stringify(chunk ?? '')));
    const r = await client.callTool({ name, arguments: withChunk });
    // the definition's first chunk has its symbol id's key
    if (name === 'find_references') chunk = r.structuredContent?.resolved?.[0]?.id?.replace(/^symbol:/, 'chunk:') ?? null;
    const text = (r.content ?? []).map(c => c.text ?? '').join('\n').length;
    const json = r.structuredContent ? JSON.stringify(r.structuredContent).length : 0;
    rows.push({ name, text, json, error: !!r.isError });
  }
  await client.close();
  return rows;
}

async function measure(dist) {
  const dir = mkdtempSync(join(tmpdir(), 'sl-first-'));
  const db = join(dir, 'index.sqlite');
  try {
    execFileSync(process.execPath, [join(dist, 'cli.js'), 'index', o.workspace, '--db', db, '--no-compiler-edges'], { stdio: 'ignore' });
    await startOnce(dist, db); // warm the file cache once; not counted
    const runs = [];
    for (let i = 0; i < o.runs; i++) runs.push(await startOnce(dist, db));
    const p50 = k => round(percentile(runs.map(r => r[k]).sort((a, b) => a - b), 50), 0);
    return { initialize: p50('initialize'), list: p50('list'), first: p50('first'), total: p50('total'), bundle: p50('bundle'), open: p50('open'),
      ...sizes(runs[0].tools), ratios: await ratios(dist, db) };
  } finally { rmSync(dir, { recursive: true, force: true }); }
}

const builds = [...(o.baseline ? [['before', o.baseline]] : []), [o.baseline ? 'after' : 'this build', DIST_DIR]];
const results = [];
for (const [label, dist] of builds) {
  console.error(`bench:first-contact: ${label} (${dist}) on ${o.workspace}, ${o.runs} runs`);
  results.push([label, await measure(dist)]);
}

const kb = n => `${round(n / 1024, 1)} KB`;
const head = `| | ${results.map(([l]) => l).join(' | ')} |\n| --- | ${results.map(() => '---').join(' | ')} |`;
const row = (name, f) => `| ${name} | ${results.map(([, r]) => f(r)).join(' | ')} |`;
const ratioRows = QUESTIONS.map((q, i) => row(`\`${label(q)}\` JSON / Markdown`, r => {
  const x = r.ratios[i];
  if (!x) return 'not asked';
  return x.error ? 'error' : `${round(x.json / Math.max(1, x.text), 1)}× (${kb(x.json)} / ${kb(x.text)})`;
}));
const body = [
  `Workspace: ${basename(o.workspace)}; warm index; the SDK client over stdio; the server on Node ${execFileSync(o.node, ['--version'], { encoding: 'utf8' }).trim()}; p50 of ${o.runs} starts (after one unmeasured).`,
  '',
  head,
  row('spawn + initialize', r => `${r.initialize} ms`),
  row('… of which node and the bundle loaded (server log)', r => (Number.isFinite(r.bundle) ? `${r.bundle} ms` : 'not logged')),
  row('… of which the index opened (server log)', r => (Number.isFinite(r.open) ? `${r.open} ms` : 'not logged')),
  row('tools/list in the client', r => `${r.list} ms`),
  row('first search_code answer', r => `${r.first} ms`),
  row('**spawn → first answer**', r => `**${r.total} ms**`),
  row('tools list (JSON)', r => kb(r.list_bytes)),
  row('output schemas', r => kb(r.output)),
  row('model-visible part (names, descriptions, input schemas)', r => kb(r.visible)),
  ...ratioRows,
  '',
  'Targets: output schemas ≤ 40 KB in all; spawn → first answer ≤ 1 s; structured JSON ≤ 2× the Markdown.',
].join('\n');
console.log(body);
if (o.write) console.error(`bench:first-contact: wrote ${writeResults('first-contact', 'First contact over MCP (bench:first-contact)', body)}`);
