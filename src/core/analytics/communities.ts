/**
 * Communities: Louvain (graphology-communities-louvain) over the undirected file-level or symbol-level
 * graph, each pair weighted by the sum of its edges' confidences (every provider, every kind but test
 * naming). Deterministic: nodes and edges are added in path order and the random generator is seeded,
 * so the same index gives the same communities.
 */
import { UndirectedGraph } from 'graphology';
import louvain from 'graphology-communities-louvain';
import type { RepoModel } from '../services/analytics';
import { folderOf } from './filter';

export type CommunityLevel = 'file' | 'symbol';

export interface Community {
  repo_id: string;
  /** members, the most connected first */
  members: { node: number; degree: number }[];
  /** distinct files of the members, most members first */
  files: { path: string; members: number }[];
  /** the most common folder of the members */
  label: string;
  internal_weight: number;
  external_weight: number;
}

export interface CommunityReport { communities: Community[]; modularity: number | null; nodes: number; edges: number; isolated: number }

export const LOUVAIN_SEED = 42;

/** mulberry32: a small seeded generator, so Louvain's random order is the same every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => { a = (a + 0x6d2b79f5) >>> 0; let t = a; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
}

const SYMBOL_KINDS = new Set(['function', 'method', 'class', 'interface', 'struct', 'trait', 'enum', 'module', 'type']);

export function findCommunities(m: RepoModel, level: CommunityLevel, keep: (node: number) => boolean): CommunityReport {
  const weight = new Map<string, { a: number; b: number; w: number }>();
  const project = (n: number): number | null => {
    const row = m.nodes.get(n); if (!row) return null;
    if (level === 'file') return -row.file_id;
    return n > 0 && SYMBOL_KINDS.has(row.kind) ? n : null;
  };
  for (const e of m.edges) {
    if (e.kind === 'contains_test_for') continue;
    const a = project(e.from); const b = project(e.to);
    if (a === null || b === null || a === b || !keep(a) || !keep(b)) continue;
    const [x, y] = a < b ? [a, b] : [b, a];
    const k = `${x}:${y}`;
    const v = weight.get(k); if (v) v.w += e.confidence; else weight.set(k, { a: x, b: y, w: e.confidence });
  }
  const order = (a: number, b: number) => { const x = m.nodes.get(a)!, y = m.nodes.get(b)!; return x.path.localeCompare(y.path) || x.start_line - y.start_line || a - b; };
  const nodes = [...new Set([...weight.values()].flatMap(e => [e.a, e.b]))].sort(order);
  const candidates = [...m.nodes.keys()].filter(n => (level === 'file' ? n < 0 : n > 0 && SYMBOL_KINDS.has(m.nodes.get(n)!.kind)) && keep(n));
  const isolated = candidates.length - nodes.length;
  if (!nodes.length) return { communities: [], modularity: null, nodes: 0, edges: 0, isolated };
  const g = new UndirectedGraph();
  for (const n of nodes) g.addNode(String(n));
  const pairs = [...weight.values()].sort((p, q) => order(p.a, q.a) || order(p.b, q.b));
  for (const p of pairs) g.addEdge(String(p.a), String(p.b), { weight: p.w });
  const res = louvain.detailed(g, { getEdgeWeight: 'weight', rng: seeded(LOUVAIN_SEED) });
  const groups = new Map<number, number[]>();
  for (const n of nodes) { const c = res.communities[String(n)]!; (groups.get(c) ?? groups.set(c, []).get(c)!).push(n); }
  const comm = new Map<number, number>(); for (const n of nodes) comm.set(n, res.communities[String(n)]!);
  const degree = new Map<number, number>(); const internal = new Map<number, number>(); const external = new Map<number, number>();
  for (const p of pairs) {
    const ca = comm.get(p.a)!, cb = comm.get(p.b)!;
    if (ca === cb) { degree.set(p.a, (degree.get(p.a) ?? 0) + p.w); degree.set(p.b, (degree.get(p.b) ?? 0) + p.w); internal.set(ca, (internal.get(ca) ?? 0) + p.w); }
    else { external.set(ca, (external.get(ca) ?? 0) + p.w); external.set(cb, (external.get(cb) ?? 0) + p.w); }
  }
  const round = (x: number) => Math.round(x * 1000) / 1000;
  const communities: Community[] = [...groups.entries()].map(([c, ns]) => {
    const members = ns.map(n => ({ node: n, degree: round(degree.get(n) ?? 0) })).sort((x, y) => y.degree - x.degree || order(x.node, y.node));
    const files = new Map<string, number>(); const folders = new Map<string, number>();
    for (const n of ns) { const p = m.nodes.get(n)!.path; files.set(p, (files.get(p) ?? 0) + 1); const f = folderOf(p); folders.set(f, (folders.get(f) ?? 0) + 1); }
    const label = [...folders.entries()].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))[0]![0];
    return { repo_id: m.repo_id, members, files: [...files.entries()].map(([path, k]) => ({ path, members: k })).sort((x, y) => y.members - x.members || x.path.localeCompare(y.path)),
      label, internal_weight: round(internal.get(c) ?? 0), external_weight: round(external.get(c) ?? 0) };
  });
  communities.sort((x, y) => y.members.length - x.members.length || y.internal_weight - x.internal_weight || x.label.localeCompare(y.label));
  return { communities, modularity: round(res.modularity), nodes: g.order, edges: g.size, isolated };
}
