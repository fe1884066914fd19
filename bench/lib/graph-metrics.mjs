// Pure helpers of bench/graph-quality.mjs: seeded sampling, precision/recall bookkeeping, the
// reverse closure over ground-truth edges.
import { rng } from './common.mjs';

export { rng };

/** `n` items of `list` drawn without replacement with `rand` (list order must be deterministic). */
export function sample(list, n, rand) {
  const a = [...list];
  const k = Math.min(n, a.length);
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(rand() * (a.length - i));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a.slice(0, k);
}

/** Micro-averaged precision/recall: add per-target counts, read the ratios at the end. */
export class PR {
  constructor() { this.tp = 0; this.h = 0; this.t = 0; }
  add(hSet, tSet) {
    let tp = 0;
    for (const x of hSet) if (tSet.has(x)) tp++;
    this.tp += tp; this.h += hSet.size; this.t += tSet.size;
    return tp;
  }
  get precision() { return this.h ? this.tp / this.h : NaN; }
  get recall() { return this.t ? this.tp / this.t : NaN; }
  get f1() { const p = this.precision, r = this.recall; return p + r ? (2 * p * r) / (p + r) : NaN; }
  toJSON() { return { tp: this.tp, h: this.h, t: this.t, precision: this.precision, recall: this.recall }; }
}

/**
 * Reverse closure: every node that reaches `target` over `inEdges` (to → Set(from)) in at most `depth`
 * edges, with its distance. The target itself is not part of it.
 */
export function reverseClosure(target, inEdges, depth) {
  const dist = new Map([[target, 0]]);
  let frontier = [target];
  for (let d = 1; d <= depth && frontier.length; d++) {
    const next = [];
    for (const n of frontier) {
      for (const f of inEdges.get(n) ?? []) {
        if (dist.has(f)) continue;
        dist.set(f, d); next.push(f);
      }
    }
    frontier = next;
  }
  dist.delete(target);
  return dist;
}

/** Symbol `a` lies within symbol `b` (same file, range inside or equal), as the adapters decide "innermost". */
export function within(a, b) {
  if (a.path !== b.path) return false;
  const as = a.start_line * 1e6 + a.start_col, ae = a.end_line * 1e6 + a.end_col;
  const bs = b.start_line * 1e6 + b.start_col, be = b.end_line * 1e6 + b.end_col;
  return as >= bs && ae <= be;
}

export const fmt = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '—');
export const pr = (m) => `${fmt(m.precision)} / ${fmt(m.recall)}`;
