/**
 * search_code and vector_search over the store. BM25 (FTS4 + matchinfo) is the primary signal; the
 * local hash vector may only reorder exact BM25 ties and backfill after the BM25 hits run out.
 */
import type { Store, ChunkRow } from '../store/store';
import { queryTerms } from '../util/tokens';
import { HASH_VECTOR_DIMS, queryVector } from './hashvec';
import { passes, searchFiles, TEST_FACTOR, TEST_FACTOR_MENTIONED, type FileIndex } from './files';
export { FIELD_WEIGHTS, CANDIDATE_BUDGET, pruneCommonTerms } from './files';
import type { QueryPlan } from './query';

/** Words that carry no signal in natural-language queries; dropped unless the query has nothing else. */
export const STOPWORDS = new Set(('a an and are as at be but by for from has have if in into is it its of on or so that the their then there these this '
  + 'to was were when where which while will with not no do does did can could should would we you i our your use used using').split(' '));

export interface SearchFilter {
  repo_id?: string; language?: string;
  /** `code`, or a text file's kind (doc, config, data, script, markup, style) */
  file_kind?: string;
}
export interface SearchHit {
  chunk_id: string; repo_id: string; path: string; start_line: number; end_line: number; symbol_path: string | null; kind: string;
  score: number; signals: string[];
  /** the chunk's first non-blank line when it was indexed */
  snippet: string | null;
}
export interface SearchPage { results: SearchHit[]; total: number; terms: string[] }

export function toHit(row: ChunkRow, score: number, signals: string[]): SearchHit {
  return {
    chunk_id: row.chunk_id,
    repo_id: row.repo_id, path: row.path, start_line: row.start_line, end_line: row.end_line, symbol_path: row.symbol_path, kind: row.kind, score: Math.round(score * 10000) / 10000, signals, snippet: row.head,
  };
}


export interface VectorIndex {
  rowids: Int32Array; vectors: Int8Array; files: Int32Array;
  fileMeta: Map<number, { repo_id: string; language: string; path: string }>;
}

function vectorRank(vi: VectorIndex, query: string, filter: SearchFilter, limit: number): { top: { rowid: number; sim: number }[]; total: number } {
  const q = queryVector(query);
  const n = vi.rowids.length;
  const sims = new Float32Array(n);
  const D = HASH_VECTOR_DIMS;
  for (let i = 0; i < n; i++) {
    let dot = 0; const off = i * D;
    for (let k = 0; k < D; k++) dot += q[k]! * vi.vectors[off + k]!;
    sims[i] = dot / (127 * 127);
  }
  const idx: number[] = [];
  for (let i = 0; i < n; i++) {
    if (sims[i]! <= 0) continue;
    if (filter.repo_id || filter.language || filter.file_kind) {
      const m = vi.fileMeta.get(vi.files[i]!);
      if (!m || !passes(filter, m)) continue;
    }
    idx.push(i);
  }
  idx.sort((a, b) => sims[b]! - sims[a]! || vi.rowids[a]! - vi.rowids[b]!);
  return { top: idx.slice(0, limit).map(i => ({ rowid: vi.rowids[i]!, sim: sims[i]! })), total: idx.length };
}

export interface CodeSearchOptions {
  limit: number; offset: number; vector: boolean; filter: SearchFilter;
  /** file: rank files (each with its best chunks); chunk: rank chunks */
  group: 'file' | 'chunk'; include_tests: boolean; path_glob?: string; chunks_per_file: number;
}
export interface FileHit { repo_id: string; path: string; language: string; score: number; signals: string[]; test: boolean; chunks: SearchHit[] }
export interface CodeSearchPage {
  files: FileHit[]; results: SearchHit[]; total: number; terms: string[]; plan: QueryPlan;
  /** files in the index (within no filter): 0 means nothing was indexed yet */
  indexed_files: number;
  /** with a path glob and no hit: how many indexed files the glob (and the other filters) keeps */
  path_matches?: number;
}

/**
 * search_code: files ranked by the fusion in files.ts (group file), or their chunks ranked by BM25
 * (group chunk). The local hash vector (vector: true) only orders exact ties and backfills when the
 * lexical hits run out.
 */
export function searchCode(store: Store, vectors: () => VectorIndex, fileIndex: () => FileIndex, query: string, opts: CodeSearchOptions): CodeSearchPage {
  const fs = searchFiles(store, fileIndex, query, { filter: opts.filter, include_tests: opts.include_tests, path_glob: opts.path_glob, chunks_per_file: opts.chunks_per_file, rank_chunks: opts.group === 'chunk' });
  const want = opts.offset + opts.limit;
  const vrank = opts.vector ? vectorRank(vectors(), query, opts.filter, Math.max(want * 4, 200)).top : [];
  const sim = new Map(vrank.map(v => [v.rowid, v.sim]));
  if (opts.group === 'chunk') {
    const demote = new Set(fs.files.filter(f => f.test).map(f => f.file_id));
    const chunkFile = fileIndex().chunk_file;
    const testFactor = opts.include_tests ? 1 : fs.plan.wants_tests ? TEST_FACTOR_MENTIONED : TEST_FACTOR;
    const factor = (rowid: number) => (demote.has(chunkFile[rowid] ?? 0) ? testFactor : 1);
    let ordered = fs.chunks.map(c => ({ rowid: c.rowid, score: c.score * factor(c.rowid), signals: ['bm25'] }));
    ordered.sort((a, b) => b.score - a.score || (sim.get(b.rowid) ?? 0) - (sim.get(a.rowid) ?? 0) || a.rowid - b.rowid);
    for (const o of ordered) if (sim.has(o.rowid)) o.signals = ['bm25', 'local_hash_vector'];
    let total = ordered.length;
    if (opts.vector && ordered.length < want) {
      const have = new Set(ordered.map(o => o.rowid));
      for (const v of vrank) { if (ordered.length >= want) break; if (!have.has(v.rowid)) { ordered.push({ rowid: v.rowid, score: v.sim, signals: ['local_hash_vector'] }); total++; } }
    }
    ordered = ordered.slice(opts.offset, want);
    const rows = store.files.chunksByRowids(ordered.map(o => o.rowid));
    return { files: [], results: ordered.flatMap(o => { const r = rows.get(o.rowid); return r ? [toHit(r, o.score, o.signals)] : []; }), total, terms: fs.terms, plan: fs.plan, indexed_files: fileIndex().files.size };
  }
  const files = fs.files.slice();
  let total = files.length;
  if (opts.vector && files.length < want) {
    // Backfill: files of the chunks most similar to the query, after every lexical hit.
    const have = new Set(files.map(f => f.file_id));
    const fi = fileIndex();
    for (const v of vrank) {
      if (files.length >= want) break;
      const id = fi.chunk_file[v.rowid] || undefined;
      const meta = id === undefined ? undefined : fi.files.get(id);
      if (id === undefined || !meta || have.has(id)) continue;
      have.add(id); total++;
      files.push({ file_id: id, repo_id: meta.repo_id, path: meta.path, language: meta.language, score: Math.round(v.sim * 10000) / 10000, signals: ['local_hash_vector'], chunks: [{ rowid: v.rowid, score: v.sim }], test: false });
    }
  }
  const page = files.slice(opts.offset, want);
  const rows = store.files.chunksByRowids(page.flatMap(f => f.chunks.map(c => c.rowid)));
  const hits = page.map(f => ({
    repo_id: f.repo_id, path: f.path, language: f.language, score: f.score, signals: f.signals, test: f.test,
    chunks: f.chunks.flatMap(c => { const r = rows.get(c.rowid); return r ? [toHit(r, c.score, sim.has(c.rowid) ? ['bm25', 'local_hash_vector'] : f.signals.includes('local_hash_vector') && f.signals.length === 1 ? ['local_hash_vector'] : ['bm25'])] : []; }),
  }));
  return { files: hits, results: hits.flatMap(f => f.chunks), total, terms: fs.terms, plan: fs.plan, indexed_files: fileIndex().files.size };
}

export function vectorSearch(store: Store, vectors: () => VectorIndex, query: string, opts: { limit: number; offset: number; filter: SearchFilter }): SearchPage {
  const vi = vectors();
  const { top, total } = vectorRank(vi, query, opts.filter, opts.offset + opts.limit);
  const page = top.slice(opts.offset);
  const rows = store.files.chunksByRowids(page.map(p => p.rowid));
  const results = page.flatMap(p => { const r = rows.get(p.rowid); return r ? [toHit(r, p.sim, ['local_hash_vector'])] : []; });
  return { results, total, terms: queryTerms(query) };
}

