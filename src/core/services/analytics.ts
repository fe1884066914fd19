/**
 * Whole-repository reads for the `analytics` tool (cycles, communities, dead code, hotspots): a
 * repository's nodes and edges from every provider as one in-memory model, its chunks and their token
 * text, its churn, and the boundaries that make a whole-repository view a lower bound. Loaded once a
 * call and a repository; the algorithms live in `src/core/analytics/`.
 */
import type { Store, NodeRow } from '../store/store';
import { GraphReader, resolutionOf, type Boundary, type Resolution, type StaleFiles } from '../graph/query';
import { parseEvidence, type Tier } from '../graph/tiers';
import { fileNodeId, symbolId } from '../util/ids';
import { HistoryReader, type HistoryAvailability } from './history';
import type { Occurrence } from '../parse/occurrence';

/** One edge of the model: integer nodes (symbol rowid, or -file_id for a file), from any provider. */
export interface ModelEdge {
  from: number; to: number; kind: string; provider: string; confidence: number;
  /** the heuristic tier (from the stored evidence code); null for other providers */
  tier: Tier | null;
  /** the stored evidence code (heuristic) or the provider's evidence text */
  code: string;
  line: number | null;
}

export interface RepoModel {
  repo_id: string;
  /** every symbol by rowid and every file by -file_id */
  nodes: Map<number, NodeRow>;
  edges: ModelEdge[];
  ids: Map<number, string>;
}

export interface ChunkInfo { file_id: number; key: string; symbol_path: string | null; kind: string; start_line: number; end_line: number; head: string | null; ord: number }

export class AnalyticsSource {
  private readonly reader: GraphReader;
  private readonly models = new Map<string, RepoModel>();
  readonly historyReader: HistoryReader;
  constructor(private readonly store: Store, private readonly staleFiles?: StaleFiles) {
    this.reader = new GraphReader(store);
    this.historyReader = new HistoryReader(store);
  }

  /** Indexed repositories (all, or the one of a filter). */
  repos(filter?: string): string[] {
    const all = this.store.meta.repos().map(r => r.repo_id).sort();
    return filter ? all.filter(r => r === filter) : all;
  }

  /** A repository's nodes and edges (heuristic and every other provider), loaded once per source. */
  model(repoId: string): RepoModel {
    let m = this.models.get(repoId);
    if (m) return m;
    const nodes = new Map<number, NodeRow>();
    const ids = new Map<number, string>();
    const byId = new Map<string, number>();
    for (const n of this.store.symbols.repoNodes(repoId)) { nodes.set(n.node, n); const id = symbolId(repoId, n.path, n.symbol_path!); ids.set(n.node, id); byId.set(id, n.node); }
    const files = this.store.files.graphFiles(repoId);
    const fileNodes = this.store.symbols.nodes(files.map(f => -f.id));
    for (const [k, n] of fileNodes) { nodes.set(k, n); const id = fileNodeId(repoId, n.path); ids.set(k, id); byId.set(id, k); }
    const edges: ModelEdge[] = this.store.graph.repoEdges(repoId).map(e => ({
      from: e.from_node, to: e.to_node, kind: e.kind, provider: 'heuristic', confidence: e.confidence, tier: parseEvidence(e.evidence).tier, code: e.evidence, line: e.line,
    }));
    for (const e of this.store.providerEdges.repoEdges(repoId)) {
      const from = byId.get(e.from_id); const to = byId.get(e.to_id);
      if (from !== undefined && to !== undefined) edges.push({ from, to, kind: e.kind, provider: e.provider, confidence: e.confidence, tier: null, code: e.evidence, line: null });
    }
    m = { repo_id: repoId, nodes, edges, ids };
    this.models.set(repoId, m);
    return m;
  }

  /** An edge of the model as an answer's edge (ids, resolution, evidence sentence). */
  edgeOut(m: RepoModel, e: ModelEdge): { from: string; to: string; kind: string; provider: string; confidence: number; resolution: Resolution; evidence: string; path: string | null; line: number | null } {
    const from = m.nodes.get(e.from)!; const to = m.nodes.get(e.to)!;
    return {
      from: m.ids.get(e.from)!, to: m.ids.get(e.to)!, kind: e.kind, provider: e.provider, confidence: e.confidence, resolution: resolutionOf(e.confidence),
      evidence: e.provider === 'heuristic' ? this.reader.evidence(e.kind, e.code, from, to, e.line ?? 0) : e.code, path: from.path, line: e.line,
    };
  }

  chunks(repoId: string): ChunkInfo[] { return this.store.files.repoChunks(repoId); }
  /** [path, then name and body tokens of each chunk in ord order] of one file. */
  tokenText(fileId: number): string[] | null { return this.store.files.tokenText(fileId); }
  chunksWithTerm(term: string, limit: number): { file_id: number; key: string }[] { return this.store.files.chunksWithTerm(term, limit); }
  /** the stored occurrences of one file (calls, identifiers, imports, bases) */
  occurrences(fileId: number): Occurrence[] { return this.store.files.occurrences(fileId); }
  unboundNames(repoId: string): Set<string> { return this.store.graph.unboundNames(repoId); }
  churn(repoId: string): { files: Map<string, number>; symbols: Map<string, number> } { return this.store.history.repoChurn(repoId); }
  history(repoId: string): HistoryAvailability { return this.historyReader.availability(repoId); }
  /** Files of the repository that were not parsed (skipped), from its diagnostics. */
  skippedFiles(repoId: string): number { return this.store.meta.skippedFiles(repoId); }

  /** What limits any whole-repository view of a repository: provider coverage, unparsed and changed files, a pending graph. */
  boundaries(repoId: string): Boundary[] {
    const out: Boundary[] = [];
    const m = this.model(repoId);
    if (!m.edges.some(e => e.confidence >= 0.9)) out.push({ kind: 'heuristic_only', detail: `${repoId}: no compiler-grade edges (language server or external provider); the graph is the heuristic one, which misses some calls` });
    const skipped = this.skippedFiles(repoId);
    if (skipped) out.push({ kind: 'unparsed_files', detail: `${skipped} file(s) of ${repoId} were not parsed (see index_status diagnostics)` });
    if (this.store.graph.graphPending(repoId)) out.push({ kind: 'stale_graph', detail: `files of ${repoId} changed after its heuristic graph was built; the next index run rebuilds it` });
    const stale = this.staleFiles?.(repoId);
    if (stale?.paths.length) out.push({ kind: 'stale_files', detail: `${stale.complete ? '' : 'at least '}${stale.paths.length} indexed file(s) of ${repoId} changed on disk since indexing (${stale.paths.slice(0, 5).join(', ')}${stale.paths.length > 5 ? ', …' : ''}); run index_repo` });
    return out;
  }
}
