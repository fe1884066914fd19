/**
 * Dependency cycles: strongly connected components (graphology-components, Tarjan-style) of the file
 * import graph or the symbol call graph. A cycle is a claim of certainty, so only binds above the
 * guessing tiers take part: confidence ≥ CYCLE_MIN_CONFIDENCE (0.7: exact provider edges, local, self,
 * same-file, import and receiver binds), never a guess at the receiver's type (`scope_type`: the one
 * class the calling scope names with that method — `Integer.toString(d)` is no call of the
 * repository's `toString`; `self_chain`), a bind by a name unique in a folder or the repository
 * (`same_dir`, `unique`), `method_name` (receiver type unknown) nor `ambiguous` (a name several
 * definitions share). `self.m()`
 * binds to the enclosing class's own method (tier `self`), so mutual recursion between methods stays.
 *
 * file level: `imports` edges between files, and file → symbol imports counted as file → its file.
 * symbol level: `calls` edges between definitions.
 */
import { DirectedGraph } from 'graphology';
import { stronglyConnectedComponents } from 'graphology-components';
import type { ModelEdge, RepoModel } from '../services/analytics';
import type { Tier } from '../graph/tiers';

export const CYCLE_MIN_CONFIDENCE = 0.7;
/** Tiers that bind by a name alone: they never close a cycle, whatever their confidence. */
// `fixture` (0.7) is a guess at a test receiver's type, like scope_type: it closes no cycle either
export const NAME_ONLY_TIERS: ReadonlySet<Tier> = new Set<Tier>(['method_name', 'ambiguous', 'naming', 'fixture', 'assigned', 'outside', 'run_time']);
export type CycleLevel = 'file' | 'symbol';

export interface Cycle {
  repo_id: string;
  /** member nodes, by path then line */
  members: number[];
  /** edges between members, strongest first */
  edges: ModelEdge[];
  /** one closed walk through the first member: members in order, the first again at the end */
  cycle: number[];
  /** edges entering the component from outside it (how much depends on it) */
  fan_in: number;
}

export const cycleEdge = (e: ModelEdge): boolean => e.confidence >= CYCLE_MIN_CONFIDENCE && !(e.tier && NAME_ONLY_TIERS.has(e.tier));

/** Edges of a level, projected onto its nodes (file level: an import of a symbol counts as an import of its file). */
export function levelEdges(m: RepoModel, level: CycleLevel, keep: (node: number) => boolean): ModelEdge[] {
  const out: ModelEdge[] = [];
  for (const e of m.edges) {
    if (level === 'file') {
      if (e.kind !== 'imports' || e.from >= 0) continue;
      const toNode = m.nodes.get(e.to); if (!toNode) continue;
      const to = -toNode.file_id;
      if (to === e.from || !keep(e.from) || !keep(to)) continue;
      out.push(to === e.to ? e : { ...e, to });
    } else {
      if (e.kind !== 'calls' || e.from <= 0 || e.to <= 0 || !keep(e.from) || !keep(e.to)) continue;
      out.push(e);
    }
  }
  return out;
}

export interface CycleReport { cycles: Cycle[]; excluded_name_only: number; nodes: number; edges: number }

export function findCycles(m: RepoModel, level: CycleLevel, keep: (node: number) => boolean, minSize: number): CycleReport {
  const all = levelEdges(m, level, keep);
  const used = all.filter(cycleEdge);
  // strongest edge per ordered pair (several providers or sites may report the same dependency)
  const best = new Map<string, ModelEdge>();
  for (const e of used) { const k = `${e.from}>${e.to}`; const b = best.get(k); if (!b || e.confidence > b.confidence) best.set(k, e); }
  const g = new DirectedGraph({ allowSelfLoops: true });
  const order = (a: number, b: number) => { const x = m.nodes.get(a)!, y = m.nodes.get(b)!; return x.path.localeCompare(y.path) || x.start_line - y.start_line || a - b; };
  const nodes = [...new Set([...best.values()].flatMap(e => [e.from, e.to]))].sort(order);
  for (const n of nodes) g.addNode(String(n));
  for (const e of best.values()) g.addDirectedEdge(String(e.from), String(e.to));
  const comps = stronglyConnectedComponents(g).map(c => c.map(Number).sort(order))
    .filter(c => c.length >= Math.max(1, minSize) && (c.length > 1 || best.has(`${c[0]}>${c[0]}`)));
  const compOf = new Map<number, number>();
  comps.forEach((c, i) => { for (const n of c) compOf.set(n, i); });
  const inner: ModelEdge[][] = comps.map(() => []); const fanIn = comps.map(() => 0);
  for (const e of best.values()) {
    const a = compOf.get(e.from); const b = compOf.get(e.to);
    if (b === undefined) continue;
    if (a === b) inner[b]!.push(e); else fanIn[b]!++;
  }
  // name-only edges that run between nodes of the graph: left out on purpose, reported as a boundary
  const excluded = all.filter(e => !cycleEdge(e) && e.from !== e.to).length;
  const cycles = comps.map((c, i) => ({
    repo_id: m.repo_id, members: c, edges: inner[i]!.sort((x, y) => y.confidence - x.confidence || order(x.from, y.from) || order(x.to, y.to)),
    cycle: closedWalk(c[0]!, inner[i]!), fan_in: fanIn[i]!,
  }));
  cycles.sort((x, y) => y.members.length - x.members.length || y.fan_in - x.fan_in || order(x.members[0]!, y.members[0]!));
  return { cycles, excluded_name_only: excluded, nodes: g.order, edges: g.size };
}

/** The shortest closed walk from `start` back to it over the component's edges (breadth first). */
function closedWalk(start: number, edges: ModelEdge[]): number[] {
  const out = new Map<number, number[]>();
  for (const e of edges) (out.get(e.from) ?? out.set(e.from, []).get(e.from)!).push(e.to);
  const prev = new Map<number, number>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const n = queue[i]!;
    for (const t of out.get(n) ?? []) {
      if (t === start) {
        const path = [start]; let p = n;
        while (p !== start) { path.push(p); p = prev.get(p)!; }
        return [start, ...path.slice(1).reverse(), start];
      }
      if (!prev.has(t)) { prev.set(t, n); queue.push(t); }
    }
  }
  return [start];
}
