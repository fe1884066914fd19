/**
 * Centrality: PageRank over the graph's symbol and file nodes, by power iteration over a compressed
 * adjacency (typed arrays; no graph library: the whole algorithm is the loop below, and a graphology
 * graph of the ~1M-line benchmark's 65k nodes would cost more to build than the ranks cost to compute,
 * see docs/overview.md).
 *
 * Weights are absolute, not only relative: a node passes on at most its edges' summed weight (at most
 * all of its rank), the rest goes back to the teleport vector. So a function whose one outgoing edge is
 * a name-only binding (confidence 0.3, × NAME_ONLY_FACTOR) hands that callee a small share of its rank
 * instead of all of it, which plain normalised PageRank would do.
 *
 * Personalised ranks use the same graph with the teleport vector concentrated on the focus nodes;
 * `transpose` ranks what leads *to* the focus (its callers, the entry points that reach it).
 */

export const DAMPING = 0.85;
export const MAX_ITERATIONS = 100;
/** L1 change between two iterations below which the ranks are taken as converged. */
export const TOLERANCE = 1e-7;

/** Edge kinds that carry rank, and how much one edge of each kind weighs (times its confidence). */
export const RANK_KINDS = ['calls', 'references', 'extends', 'implements', 'imports'] as const;
export const KIND_WEIGHT: Record<(typeof RANK_KINDS)[number], number> = { calls: 1, references: 0.7, extends: 0.8, implements: 0.8, imports: 0.5 };
/** Edges bound by a name only (confidence below NAME_ONLY, receiver type unknown) count this much less. */
export const NAME_ONLY_FACTOR = 0.25;
/** Test code teleports this much less: what tests call is not what the code depends on. */
export const TEST_TELEPORT = 0.1;

export function edgeWeight(kind: string, confidence: number, nameOnlyBelow: number): number {
  const k = KIND_WEIGHT[kind as keyof typeof KIND_WEIGHT] ?? 0;
  return k * confidence * (confidence < nameOnlyBelow ? NAME_ONLY_FACTOR : 1);
}

/** A directed weighted graph in compressed sparse rows, both directions. Nodes are 0..n-1. */
export interface RankGraph {
  n: number;
  edges: number;
  outStart: Int32Array; outTo: Int32Array; outW: Float64Array; outSum: Float64Array;
  inStart: Int32Array; inFrom: Int32Array; inW: Float64Array; inSum: Float64Array;
}

/** Builds the graph from edge columns (node indexes); self-loops are dropped, parallel edges add up. */
export function buildRankGraph(n: number, from: ArrayLike<number>, to: ArrayLike<number>, weight: ArrayLike<number>, length: number): RankGraph {
  const outStart = new Int32Array(n + 1); const inStart = new Int32Array(n + 1);
  let m = 0;
  for (let i = 0; i < length; i++) { if (from[i] === to[i] || !(weight[i]! > 0)) continue; outStart[from[i]! + 1]!++; inStart[to[i]! + 1]!++; m++; }
  for (let i = 0; i < n; i++) { outStart[i + 1]! += outStart[i]!; inStart[i + 1]! += inStart[i]!; }
  const outTo = new Int32Array(m); const outW = new Float64Array(m); const inFrom = new Int32Array(m); const inW = new Float64Array(m);
  const outSum = new Float64Array(n); const inSum = new Float64Array(n);
  const oPos = outStart.slice(0, n); const iPos = inStart.slice(0, n);
  for (let i = 0; i < length; i++) {
    const f = from[i]!; const t = to[i]!; const w = weight[i]!;
    if (f === t || !(w > 0)) continue;
    const o = oPos[f]!++; outTo[o] = t; outW[o] = w; outSum[f]! += w;
    const k = iPos[t]!++; inFrom[k] = f; inW[k] = w; inSum[t]! += w;
  }
  return { n, edges: m, outStart, outTo, outW, outSum, inStart, inFrom, inW, inSum };
}

export interface RankResult { ranks: Float64Array; iterations: number; ms: number }

/**
 * PageRank by power iteration. `teleport` (non-negative, any scale; default uniform) is where the random
 * walk restarts: uniform gives global centrality, a focus gives personalised ranks. `transpose` walks
 * the edges backwards. Ranks sum to 1.
 */
export function pageRank(g: RankGraph, opts: { teleport?: Float64Array; transpose?: boolean; damping?: number } = {}): RankResult {
  const t0 = performance.now();
  const { n } = g;
  const d = opts.damping ?? DAMPING;
  const start = opts.transpose ? g.inStart : g.outStart;
  const nbr = opts.transpose ? g.inFrom : g.outTo;
  const w = opts.transpose ? g.inW : g.outW;
  const sum = opts.transpose ? g.inSum : g.outSum;
  const p = new Float64Array(n);
  if (opts.teleport) {
    let s = 0; for (let i = 0; i < n; i++) s += opts.teleport[i]!;
    if (s > 0) for (let i = 0; i < n; i++) p[i] = opts.teleport[i]! / s;
    else p.fill(1 / n);
  } else p.fill(1 / n);
  // what a node passes on per unit of its rank, per unit of edge weight
  const scale = new Float64Array(n);
  for (let i = 0; i < n; i++) scale[i] = sum[i]! > 0 ? 1 / Math.max(sum[i]!, 1) : 0;
  let r = Float64Array.from(p); let next = new Float64Array(n);
  let iterations = 0;
  for (; iterations < MAX_ITERATIONS && n > 0; iterations++) {
    next.fill(0);
    let passed = 0;
    for (let u = 0; u < n; u++) {
      const ru = r[u]!; if (ru === 0 || scale[u] === 0) continue;
      const share = d * ru * scale[u]!;
      for (let e = start[u]!, end = start[u + 1]!; e < end; e++) { const x = share * w[e]!; next[nbr[e]!]! += x; passed += x; }
    }
    // what was not passed along an edge (teleport, dangling nodes, weak edges) restarts at p
    const restart = 1 - passed;
    let diff = 0;
    for (let i = 0; i < n; i++) { const v = next[i]! + restart * p[i]!; next[i] = v; diff += Math.abs(v - r[i]!); }
    [r, next] = [next, r];
    if (diff < TOLERANCE) { iterations++; break; }
  }
  return { ranks: r, iterations, ms: performance.now() - t0 };
}
