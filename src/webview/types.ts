/**
 * The shapes the webviews receive, as the engine's tools answer them (impact, memory_list). Declared
 * here rather than imported: the webview is browser code and never compiles the engine.
 */
/** A node as answers list it, plus what its id spells (the extension adds repo_id and symbol_path). */
export interface NodeRef { id: string; path: string; kind: string; line: number; repo_id: string; symbol_path: string | null }
export type Resolution = 'exact' | 'best_effort';
export interface Affected {
  node: NodeRef; distance: number; resolution: Resolution; confidence: number;
  via_container: boolean; name_only: boolean; via: string; provider: string;
}
export interface TestRef { node: NodeRef; distance: number; reason: string; resolution: Resolution; confidence: number; via: string[] }
export interface Boundary { kind: string; detail: string }
export type MemoryStatus = 'current' | 'relocated' | 'stale' | 'gone';
export interface Memory {
  id: string; repo_id: string; anchor_kind: 'repo' | 'file' | 'symbol' | 'span'; anchor_id: string; anchor_path: string | null;
  start_line: number | null; end_line: number | null; text: string; source: string; confidence: number; status: MemoryStatus;
  created_at_ms: number; updated_at_ms: number; scope: 'user' | 'repo'; created_commit?: string | null; created_by?: string; checked_at_ms?: number;
}
export interface ImpactResult {
  target: string; resolved: NodeRef[]; ambiguous: NodeRef[];
  affected: Affected[]; affected_by_module: Record<string, number>; affected_entry_points: NodeRef[];
  related_tests: TestRef[]; total_affected: number; total_direct: number; total_affected_files: number;
  total_related_tests: number; total_via_container?: number; truncated?: boolean; complete: boolean; boundaries: Boundary[];
  /** Memories anchored to the target, when the engine adds them to the answer. */
  memories?: Memory[];
}

/** Messages from the extension to a webview. */
export type ToView =
  | { type: 'impact'; result: ImpactResult }
  | { type: 'memory'; memory: Memory }
  | { type: 'status'; ok: boolean; message: string }
  | { type: 'deleted'; id: string }
  | { type: 'error'; message: string };

/** Messages from a webview to the extension. */
export type FromView =
  | { type: 'ready' }
  | { type: 'open'; path: string; repo_id: string; line: number }
  | { type: 'edit_memory'; id: string }
  | { type: 'memory_save'; id: string; text: string }
  | { type: 'memory_delete'; id: string }
  | { type: 'memory_reanchor'; id: string };
