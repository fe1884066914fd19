#!/usr/bin/env node
/**
 * Federated search benchmark: what adapters add to search_code, measured against search_code without
 * adapters on the same index in the same run.
 *
 *   node bench/adapters.mjs [REPO_DIR] [--queries N]   (default: the httpx folder of the benchmark data
 *   beside the checkout, ../benchdata/httpx, or $SIGHTLINE_BENCH_REPO)
 *
 * Peers are HTTP servers on loopback made here: `fast` answers at once, `slow50` after 50 ms, `hung`
 * never (timeout_ms 500). Scenarios, each over the same queries (identifiers and phrases taken from the
 * repository's own definitions):
 *   local      no adapter (the baseline)
 *   fast       one peer answering at once             — target: p50 within 15 ms of local
 *   slow50     one peer answering in 50 ms            — target: p50 within 50 + 15 ms of local
 *   fast+hung  the fast peer and a hung one           — target: the first query within 500 + 300 ms,
 *                                                        later ones within 15 ms of local (cooling down)
 * Exit 1 when a target is missed.
 */
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCore, PROJECT_DIR } from './lib/common.mjs';

const { Engine, invokeTool, TOOLS } = loadCore();
const args = process.argv.slice(2);
const nIdx = args.indexOf('--queries');
const N = nIdx >= 0 ? Number(args[nIdx + 1]) : 60;
const REPO = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--queries') ?? process.env.SIGHTLINE_BENCH_REPO ?? join(PROJECT_DIR, '..', 'benchdata', 'httpx');
if (!existsSync(REPO)) { console.error(`bench:adapters: no repository at ${REPO}`); process.exit(2); }

const listen = handler => new Promise(res => { const s = createServer(handler); s.listen(0, '127.0.0.1', () => res({ s, url: `http://127.0.0.1:${s.address().port}` })); });
const answer = (res, q) => { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ results: Array.from({ length: 5 }, (_, i) => ({ title: `note ${i} on ${q}`, url: `notes://${i}`, summary: 'a decision' })) })); };
const body = req => new Promise(r => { let b = ''; req.on('data', d => { b += d; }); req.on('end', () => r(b)); });
const fast = await listen(async (req, res) => answer(res, JSON.parse((await body(req)) || '{}').q));
const slow = await listen(async (req, res) => { const q = JSON.parse((await body(req)) || '{}').q; setTimeout(() => answer(res, q), 50); });
const hung = await listen(() => { /* never answers */ });
const peer = (url, extra = {}) => ({ driver: 'http', base_url: url, ...extra, ops: { search: { path: '/search', body: { q: '{{query}}' } } } });

const tmp = mkdtempSync(join(tmpdir(), 'sightline-adapters-bench-'));
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const round = x => Math.round(x * 10) / 10;
try {
  const db = join(tmp, 'index.sqlite');
  const base = await Engine.open({ roots: [REPO], dbPath: db });
  await base.index({});
  // queries: names of definitions and two-word phrases from them
  const names = [];
  for (const f of (await invokeTool(TOOLS.search_code, { query: 'def class function', limit: 50, external: false }, { engine: base })).data.files) for (const c of f.chunks) if (c.symbol_path) names.push(c.symbol_path.split('.').pop());
  const queries = Array.from({ length: N }, (_, i) => (i % 2 ? names[i % names.length] : `${names[i % names.length]} ${names[(i * 7) % names.length]}`));
  base.close();

  const scenarios = [
    ['local', undefined],
    ['fast', { fast: peer(fast.url) }],
    ['slow50', { slow: peer(slow.url) }],
    ['fast+hung', { fast: peer(fast.url), hung: peer(hung.url, { timeout_ms: 500 }) }],
  ];
  const rows = []; const ms = {};
  for (const [name, settings] of scenarios) {
    const engine = await Engine.open({ roots: [REPO], dbPath: db, adapters: { settings: settings ?? {}, userConfigPath: null } });
    const times = []; let external = 0;
    for (const q of queries) {
      const t = performance.now();
      const r = await invokeTool(TOOLS.search_code, { query: q, limit: 10 }, { engine });
      times.push(performance.now() - t);
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      external += r.data.external.length;
    }
    engine.close();
    ms[name] = times;
    rows.push({ scenario: name, queries: times.length, first_ms: round(times[0]), p50_ms: round(pct(times, 0.5)), p95_ms: round(pct(times, 0.95)), p50_rest_ms: round(pct(times.slice(1), 0.5)), external_results: external });
  }
  const local = pct(ms.local, 0.5);
  for (const r of rows) r.added_p50_ms = round(r.p50_ms - local);
  console.log(`\nFederated search_code on ${REPO.split('/').pop()} (${N} queries; local p50 ${round(local)} ms)`);
  console.table(rows);
  const checks = [
    ['fast adds ≤ 15 ms (p50)', pct(ms.fast, 0.5) - local <= 15],
    ['slow50 adds ≤ 65 ms (p50)', pct(ms.slow50, 0.5) - local <= 65],
    ['hung: first query ≤ 800 ms', ms['fast+hung'][0] <= 800],
    ['hung: later queries add ≤ 15 ms (p50, cooling down)', pct(ms['fast+hung'].slice(1), 0.5) - local <= 15],
  ];
  for (const [what, ok] of checks) console.log(`${ok ? 'ok  ' : 'MISS'} ${what}`);
  process.exitCode = checks.every(c => c[1]) ? 0 : 1;
} finally {
  for (const p of [fast, slow, hung]) { p.s.closeAllConnections?.(); p.s.close(); }
  rmSync(tmp, { recursive: true, force: true });
}
