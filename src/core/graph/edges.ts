/**
 * The heuristic edge record and the per-run buffer resolution writes into: edges are buffered per file
 * (every edge of a file starts in that file), one per (from, to, kind) keeping the most confident
 * (the first on a tie), then handed to the sink; plus the run's unbound call sites and counts.
 */
import { evidenceCode, tierConfidence, type Tier } from './tiers';

export interface GEdge { from: number; to: number; kind: string; confidence: number; evidence: string; fileId: number; line: number }

export interface GraphStats { calls: number; bound: number; ambiguous: number; unbound: number }

export class EdgeBuffer {
  private edges: GEdge[] = [];
  private best = new Map<string, number>(); // (from,to,kind) → index in edges
  /** every edge, when there is no sink */
  readonly all: GEdge[] = [];
  /** call sites left unbound (a name with too many definitions), per calling file, by name */
  readonly unbound = new Map<number, Map<string, number>>();
  readonly stats: GraphStats = { calls: 0, bound: 0, ambiguous: 0, unbound: 0 };
  /** while set, emit records nothing (the bases pass resolves only to learn base classes) */
  muted = false;

  constructor(private readonly sink: ((edges: GEdge[]) => void) | undefined) {}

  /** the language family of the file being resolved (its tiers' confidences: tierConfidence) */
  family: string | null = null;

  emit(from: number, to: number, kind: string, tier: Tier, detail: string, fileId: number, line: number,
    confidence: number = tierConfidence(tier, this.family)): void {
    if (from === to || this.muted) return;
    // a use through an outside base is kept beside a construction of the class (graph/dispatch.ts reads it)
    const key = tier === 'outside' ? `${from},${to},${kind},outside` : `${from},${to},${kind}`;
    const i = this.best.get(key);
    const evidence = evidenceCode(tier, detail);
    if (i === undefined) { this.best.set(key, this.edges.length); this.edges.push({ from, to, kind, confidence, evidence, fileId, line }); }
    else if (this.edges[i]!.confidence < confidence) this.edges[i] = { from, to, kind, confidence, evidence, fileId, line };
  }

  /** The edges buffered for the current file (a copy). */
  current(): GEdge[] { return [...this.edges]; }

  flush(): void {
    if (this.sink) this.sink(this.edges); else for (const e of this.edges) this.all.push(e);
    this.edges = []; this.best = new Map();
  }

  countUnbound(fileId: number, name: string): void {
    const m = this.unbound.get(fileId) ?? this.unbound.set(fileId, new Map()).get(fileId)!;
    m.set(name, (m.get(name) ?? 0) + 1);
    this.stats.unbound++;
  }
}
