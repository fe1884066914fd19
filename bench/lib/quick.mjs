// bench:quality's quick mode: a fixed subset of the cases whose figures track the full run.
//
// The subset is chosen from a full run's recorded ranking signals (`bench/fusion-replay.mjs --select-quick N`):
// per kind, N cases stratified by repository (each in proportion to its cases), the one of many seeded draws
// whose MRR comes closest to all cases' under the engine's ranking and under each of several changed
// rankings, so that it tracks a change rather than one ranking. It is kept in bench/quick-cases.json.
// `--quick` then runs only those cases; every full run prints the subset's figures beside its own.
import { existsSync, readFileSync } from 'node:fs';
import { summarize } from './retrieval.mjs';

/** The stored subset: { kinds: { commit: [ids], issue: [ids] }, fit, of: { kind: cases chosen from } }, or null. */
export function loadQuick(file) {
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
}

/** One draw: per repository, its share of `n` cases, at random. */
export function draw(byRepo, total, n, rand) {
  const out = [];
  for (const rows of byRepo.values()) {
    const k = Math.max(1, Math.round((n * rows.length) / total));
    const a = rows.slice();
    for (let i = a.length - 1; i > 0; i--) { const j = Math.floor(rand() * (i + 1)); [a[i], a[j]] = [a[j], a[i]]; }
    out.push(...a.slice(0, k));
  }
  return out;
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
