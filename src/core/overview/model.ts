/**
 * The overview's model of one index state: every file and definition as a node, the rank graph over
 * every provider's edges, and the global (un-personalised) ranks. Built once per index generation
 * (`Store.generation()`) and kept by the overview service; a focus only re-runs the power iteration.
 */
import type { Store } from '../store/store';
import { isInlineTest, isTestPath } from '../languages';
import { NAME_ONLY } from '../graph/tests';
import { fileNodeId, symbolId } from '../util/ids';
import { RANK_KINDS, TEST_TELEPORT, buildRankGraph, edgeWeight, pageRank, type RankGraph, type RankResult } from './rank';

/** A Rust symbol inside a `tests` module (what `isTestCase` counts as test code in a source file). */

export interface FileInfo { file_id: number; repo_id: string; path: string; language: string; line_count: number; hash: string; test: boolean }

export interface OverviewModel {
  generation: string;
  /** node count: files first (indexes 0..files-1), then definitions */
  n: number;
  /** node index → graph node (symbol rowid > 0, -file_id for a file) */
  node: Int32Array;
  index: Map<number, number>;
  /** node index → file_id */
  fileOf: Int32Array;
  files: Map<number, FileInfo>;
  /** per node: kind (file for files), name, qualified path (null for files), lines */
  kind: string[]; name: string[]; symbolPath: (string | null)[]; parent: (string | null)[];
  start: Int32Array; end: Int32Array;
  test: Uint8Array;
  /** distinct non-test nodes with an edge into this one (callers, referrers, importers) */
  dependents: Int32Array;
  /** distinct nodes this one has an edge to */
  dependencies: Int32Array;
  graph: RankGraph;
  /** the uniform teleport vector (test code weighted TEST_TELEPORT), reused by personalised runs */
  baseTeleport: Float64Array;
  global: RankResult;
  /** providers whose edges took part (heuristic always) */
  providers: string[];
  timings: { load_ms: number; graph_ms: number; rank_ms: number };
}

export function buildModel(store: Store): OverviewModel {
  const t0 = performance.now();
  const generation = store.generation();
  const fileRows = store.files.fileTable();
  const syms = store.symbols.allSymbols();
  const files = new Map<number, FileInfo>();
  for (const [id, f] of fileRows) files.set(id, { file_id: id, repo_id: f.repo_id, path: f.path, language: f.language, line_count: f.line_count, hash: f.hash, test: isTestPath(f.path) });
  const n = files.size + syms.length;
  const node = new Int32Array(n); const fileOf = new Int32Array(n); const start = new Int32Array(n); const end = new Int32Array(n); const test = new Uint8Array(n);
  const kind: string[] = new Array(n); const name: string[] = new Array(n); const symbolPath: (string | null)[] = new Array(n); const parent: (string | null)[] = new Array(n);
  const index = new Map<number, number>();
  let i = 0;
  for (const f of files.values()) {
    node[i] = -f.file_id; fileOf[i] = f.file_id; kind[i] = 'file'; name[i] = f.path.slice(f.path.lastIndexOf('/') + 1); symbolPath[i] = null; parent[i] = null;
    start[i] = 1; end[i] = Math.max(1, f.line_count); test[i] = f.test ? 1 : 0; index.set(-f.file_id, i); i++;
  }
  for (const s of syms) {
    node[i] = s.id; fileOf[i] = s.fileId; kind[i] = s.kind; name[i] = s.name; symbolPath[i] = s.sp; parent[i] = s.parent;
    start[i] = s.start; end[i] = s.end; index.set(s.id, i);
    // test code: a test file, or tests inside a source file (a Rust `mod tests`)
    const f = files.get(s.fileId);
    test[i] = f && (f.test || isInlineTest(f.language, f.path, s.sp)) ? 1 : 0; i++;
  }
  const e = store.graph.edgeColumns(RANK_KINDS);
  const provider = store.providerEdges.allEdges(RANK_KINDS);
  const load = performance.now();
  const m = e.length + provider.length;
  const from = new Int32Array(m); const to = new Int32Array(m); const weight = new Float64Array(m);
  let k = 0;
  for (let j = 0; j < e.length; j++) {
    const f = index.get(e.from[j]!); const t = index.get(e.to[j]!);
    if (f === undefined || t === undefined) continue;
    from[k] = f; to[k] = t; weight[k] = edgeWeight(RANK_KINDS[e.kind[j]!]!, e.confidence[j]!, NAME_ONLY); k++;
  }
  const providers = new Set<string>(['heuristic']);
  if (provider.length) {
    // provider edges name their ends by public id
    const byId = new Map<string, number>();
    for (let j = 0; j < n; j++) {
      const f = files.get(fileOf[j]!)!;
      byId.set(kind[j] === 'file' ? fileNodeId(f.repo_id, f.path) : symbolId(f.repo_id, f.path, symbolPath[j]!), j);
    }
    for (const pe of provider) {
      const f = byId.get(pe.from_id); const t = byId.get(pe.to_id);
      if (f === undefined || t === undefined) continue;
      from[k] = f; to[k] = t; weight[k] = edgeWeight(pe.kind, pe.confidence, NAME_ONLY); k++;
      providers.add(pe.provider);
    }
  }
  const graph = buildRankGraph(n, from, to, weight, k);
  // distinct neighbours, both ways (test code does not make a dependent)
  const dependents = new Int32Array(n); const dependencies = new Int32Array(n);
  const seen = new Int32Array(n).fill(-1);
  for (let v = 0; v < n; v++) {
    for (let x = graph.inStart[v]!; x < graph.inStart[v + 1]!; x++) { const u = graph.inFrom[x]!; if (seen[u] !== v && !test[u]) { seen[u] = v; dependents[v]!++; } }
  }
  seen.fill(-1);
  for (let u = 0; u < n; u++) {
    for (let x = graph.outStart[u]!; x < graph.outStart[u + 1]!; x++) { const v = graph.outTo[x]!; if (seen[v] !== u) { seen[v] = u; dependencies[u]!++; } }
  }
  const built = performance.now();
  const baseTeleport = new Float64Array(n);
  for (let j = 0; j < n; j++) baseTeleport[j] = test[j] ? TEST_TELEPORT : 1;
  const global = pageRank(graph, { teleport: baseTeleport });
  return {
    generation, n, node, index, fileOf, files, kind, name, symbolPath, parent, start, end, test, dependents, dependencies, graph, baseTeleport, global,
    providers: [...providers], timings: { load_ms: Math.round(load - t0), graph_ms: Math.round(built - load), rank_ms: Math.round(global.ms) },
  };
}

/** The public id of a node index. */
export function nodeId(m: OverviewModel, i: number): string {
  const f = m.files.get(m.fileOf[i]!)!;
  return m.kind[i] === 'file' ? fileNodeId(f.repo_id, f.path) : symbolId(f.repo_id, f.path, m.symbolPath[i]!);
}
