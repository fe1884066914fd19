/** Row shapes of the index tables (what the store modules read and write). */
import type { LinkSite } from '../links/types';
export interface RepoRow {
  repo_id: string; root: string; name: string; indexed_at: number | null; indexed_commit: string | null;
  branch: string | null; dirty: number | null; nested_repos: string | null; last_run: string | null;
}
/** A file's repository, language (or text format) and path. */
export interface FileLanguageRow { repo_id: string; language: string; path: string }
export interface FileMeta { file_id: number; path: string; hash: string; size: number; mtime_ms: number }
export interface FileRow extends FileMeta { repo_id: string; language: string; line_count: number; syntax_errors: number; indexed_at: number }
export interface ChunkRow {
  rowid: number; chunk_id: string; file_id: number; symbol_path: string | null; kind: string;
  start_line: number; end_line: number; est_tokens: number; path: string; language: string; repo_id: string; hash: string;
  /** the chunk's first non-blank line when it was indexed */
  head: string | null;
}
export interface NewChunk {
  /** symbol_path, `<symbol_path>#N` for a later part, or `<top>#N`: the last segment of the chunk id */
  key: string; symbol_path: string | null; kind: string; start_line: number; end_line: number; est_tokens: number;
  head: string | null;
  vec: Int8Array | null;
  /** full-text tokens of the name and body (the file's path tokens are in FileContent.fts_path) */
  fts_name: string; fts_body: string;
}
export interface NewSymbol {
  name: string; symbol_path: string; kind: string; start_line: number; start_col: number;
  end_line: number; end_col: number; parent_path: string | null; chunk_key: string | null;
}
export interface NewEdge { from_id: string; to_id: string; kind: string; provider: string; confidence: number; evidence: string }
export interface Diagnostic { repo_id: string; path: string; code: string; message: string }

export interface FileContent {
  repo_id: string; path: string; language: string; hash: string; size: number; mtime_ms: number; line_count: number;
  syntax_errors: number; chunks: NewChunk[]; symbols: NewSymbol[];
  /** hash of the file's definitions, imports and base classes: equal hashes mean only bodies changed */
  shape_hash: string;
  /** full-text tokens of the path, and the deflated token text of the file (see packFtsText) */
  fts_path: string; fts_text: Uint8Array;
  /** raw occurrences, packed by encodeOccurrences (see occurrences.ts) */
  occurrences: Uint8Array; occurrence_count: number; edges: NewEdge[];
  /** the occurrences other files' resolution reads (CROSS_FILE_KINDS: imports, bases), packed apart; null when none */
  cross_occurrences: Uint8Array | null;
  /** cross-boundary link sites (links/extract.ts), stored by the scan beside the file */
  link_sites?: LinkSite[];
  /** the chunks' MinHash signatures, packed by packShapes (similar/shape.ts); null when no chunk is large enough */
  shapes?: Uint8Array | null;
}

export interface GraphEdgeRow { from_node: number; to_node: number; kind: string; confidence: number; evidence: string; file_id: number; line: number }
export interface ProviderEdgeRow { from_id: string; to_id: string; kind: string; provider: string; confidence: number; evidence: string; file_id: number | null }
export interface ProviderCheckRow { symbol_id: string; provider: string; file_hash: string; checked_at: number; results: number; complete: number }
export interface NodeRow {
  node: number; repo_id: string; path: string; language: string; name: string; symbol_path: string | null; kind: string;
  start_line: number; start_col: number; end_line: number; end_col: number; parent_path: string | null; file_id: number; chunk_key: string | null;
}
