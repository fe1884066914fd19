// bench:quality's quick mode: a fixed subset of the cases whose figures track the full run.
//
// The subset is chosen once from a full run (`--select-quick N`): per kind, N cases stratified by repository
// (each repository in proportion to its cases), the one of many seeded draws whose MRR and R@1 — ours and
// the baseline's — come closest to the full run's. It is written to bench/quick-cases.json with the run it
// came from. `--quick` then runs only those cases; every full run prints the subset's figures beside its own,
// so whether the subset still tracks the full run is checked on each full run.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { summarize } from './retrieval.mjs';

const DRAWS = 4000;

/** The stored subset: { kinds: { commit: [ids], issue: [ids] }, from: {…} }, or null when there is none. */
export function loadQuick(file) {
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
}

/** How far a subset's figures are from the whole's: the largest gap of MRR and R@1, ours and the baseline's. */
function gap(sub, whole) {
  const a = summarize(sub.map(r => r.ours)), b = summarize(sub.map(r => r.baseline));
  return Math.max(Math.abs(a.mrr - whole.ours.mrr), Math.abs(a.r1 - whole.ours.r1), Math.abs(b.mrr - whole.base.mrr), Math.abs(b.r1 - whole.base.r1));
}

/** A seeded generator of numbers in [0, 1) (mulberry32). */
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One draw: per repository, its share of `n` cases, at random. */
function draw(byRepo, total, n, rand) {
  const out = [];
  for (const rows of byRepo.values()) {
    const k = Math.max(1, Math.round((n * rows.length) / total));
    const a = rows.slice();
    for (let i = a.length - 1; i > 0; i--) { const j = Math.floor(rand() * (i + 1)); [a[i], a[j]] = [a[j], a[i]]; }
    out.push(...a.slice(0, k));
  }
  return out;
}

/** Picks `n` cases per kind from a full run's rows (see the header) and writes them to `file`. */
export function selectQuick(rows, n, seed, file, from) {
  const kinds = {};
  const fit = {};
  for (const kind of [...new Set(rows.map(r => r.kind))]) {
    const kr = rows.filter(r => r.kind === kind);
    const whole = { ours: summarize(kr.map(r => r.ours)), base: summarize(kr.map(r => r.baseline)) };
    const byRepo = new Map();
    for (const r of kr) byRepo.set(r.repo, [...(byRepo.get(r.repo) ?? []), r]);
    const rand = rng(seed * 7919 + 13);
    let best = null, bestGap = Infinity;
    for (let i = 0; i < DRAWS; i++) {
      const sub = draw(byRepo, kr.length, n, rand);
      const g = gap(sub, whole);
      if (g < bestGap) { best = sub; bestGap = g; }
    }
    kinds[kind] = best.map(r => r.id).sort();
    fit[kind] = Number(bestGap.toFixed(4));
  }
  writeFileSync(file, JSON.stringify({ kinds, fit, from }, null, 2) + '\n');
  return fit;
}

/** Rows of the subset, per kind; the subset's figures beside the full run's as report lines. */
export function quickLines(rows, quick) {
  const lines = [];
  for (const [kind, ids] of Object.entries(quick?.kinds ?? {})) {
    const kr = rows.filter(r => r.kind === kind);
    const sub = kr.filter(r => ids.includes(r.id));
    if (!sub.length || sub.length === kr.length) continue;
    const f = x => x.toFixed(3);
    const d = (a, b) => `${a - b >= 0 ? '+' : ''}${(a - b).toFixed(3)}`;
    const o = summarize(kr.map(r => r.ours)), os = summarize(sub.map(r => r.ours));
    const b = summarize(kr.map(r => r.baseline)), bs = summarize(sub.map(r => r.baseline));
    lines.push(`| ${kind} | ${kr.length} / ${sub.length} | ${f(o.mrr)} / ${f(os.mrr)} (${d(os.mrr, o.mrr)}) | ${f(o.r1)} / ${f(os.r1)} (${d(os.r1, o.r1)}) | ${f(b.mrr)} / ${f(bs.mrr)} (${d(bs.mrr, b.mrr)}) | ${f(b.r1)} / ${f(bs.r1)} (${d(bs.r1, b.r1)}) |`);
  }
  if (!lines.length) return [];
  return [
    'Quick subset (bench/quick-cases.json, `--quick` runs only these) against this full run: full / quick (difference).',
    '',
    '| kind | cases full / quick | ours MRR | ours R@1 | baseline MRR | baseline R@1 |',
    '| --- | --- | --- | --- | --- | --- |',
    ...lines,
    '',
  ];
}
