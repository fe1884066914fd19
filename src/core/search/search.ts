/**
 * search_code and vector_search over the store. BM25 (FTS4 + matchinfo) is the primary signal; the
 * local hash vector may only reorder exact BM25 ties and backfill after the BM25 hits run out.
 */
import type { Store, ChunkRow } from '../store/store';
import { queryTerms, weightedQueryTerms } from '../util/tokens';
import { symbolId } from '../util/ids';
import { HASH_VECTOR_DIMS, queryVector } from './hashvec';

/** Column weights for (definition name, path, body): names and paths count above bodies. */
export const FIELD_WEIGHTS: [number, number, number] = [4, 2, 1];

/** Words that carry no signal in natural-language queries; dropped unless the query has nothing else. */
export const STOPWORDS = new Set(('a an and are as at be but by for from has have if in into is it its of on or so that the their then there these this '
  + 'to was were when where which while will with not no do does did can could should would we you i our your use used using').split(' '));

export interface SearchFilter { repo_id?: string; language?: string }
export interface SearchHit {
  chunk_id: string; id: string; repo_id: string; path: string; language: string; start_line: number; end_line: number;
  range: { start_line: number; end_line: number }; symbol_path: string | null; qualified_name: string | null; kind: string;
  score: number; signals: string[];
}
export interface SearchPage { results: SearchHit[]; total: number; terms: string[] }

export function toHit(row: ChunkRow, score: number, signals: string[]): SearchHit {
  return {
    chunk_id: row.chunk_id,
    id: row.symbol_path ? symbolId(row.repo_id, row.path, row.symbol_path) : row.chunk_id,
    repo_id: row.repo_id, path: row.path, language: row.language, start_line: row.start_line, end_line: row.end_line,
    range: { start_line: row.start_line, end_line: row.end_line }, symbol_path: row.symbol_path, qualified_name: row.symbol_path,
    kind: row.kind, score: Math.round(score * 10000) / 10000, signals,
  };
}

export function searchTerms(query: string): { term: string; weight: number }[] {
  const all = weightedQueryTerms(query);
  const kept = all.filter(t => !STOPWORDS.has(t.term));
  return (kept.length ? kept : all).slice(0, 64);
}

/**
 * Scoring runs BM25 for every chunk that contains any query term, so a query whose terms together
 * match most of a large index (a project's own name, `self`, `return`) would touch every row. When
 * the summed document frequencies exceed this budget, the most common terms are dropped, one at a
 * time, while at least one term remains. Common terms carry the least information, and small or
 * specific queries are never changed.
 */
export const CANDIDATE_BUDGET = Number(process.env.SIGHTLINE_CANDIDATE_BUDGET ?? 20000);

export function pruneCommonTerms(store: Store, terms: { term: string; weight: number }[]): { term: string; weight: number }[] {
  if (terms.length < 2) return terms;
  const { df } = store.documentFrequencies(terms.map(t => t.term));
  const kept = [...terms];
  let sum = kept.reduce((a, t) => a + (df.get(t.term) ?? 0), 0);
  while (sum > CANDIDATE_BUDGET && kept.length > 1) {
    let worst = 0;
    for (let i = 1; i < kept.length; i++) if ((df.get(kept[i]!.term) ?? 0) > (df.get(kept[worst]!.term) ?? 0)) worst = i;
    sum -= df.get(kept[worst]!.term) ?? 0;
    kept.splice(worst, 1);
  }
  return kept;
}

export interface VectorIndex { rowids: Int32Array; vectors: Int8Array; files: Int32Array; fileMeta: Map<number, { repo_id: string; language: string }> }

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
    if (filter.repo_id || filter.language) {
      const m = vi.fileMeta.get(vi.files[i]!);
      if (!m || (filter.repo_id && m.repo_id !== filter.repo_id) || (filter.language && m.language !== filter.language)) continue;
    }
    idx.push(i);
  }
  idx.sort((a, b) => sims[b]! - sims[a]! || vi.rowids[a]! - vi.rowids[b]!);
  return { top: idx.slice(0, limit).map(i => ({ rowid: vi.rowids[i]!, sim: sims[i]! })), total: idx.length };
}

export function searchCode(store: Store, vectors: () => VectorIndex, query: string, opts: { limit: number; offset: number; vector: boolean; filter: SearchFilter }): SearchPage {
  const weighted = pruneCommonTerms(store, searchTerms(query));
  const terms = weighted.map(t => t.term);
  if (!terms.length) return { results: [], total: 0, terms };
  const want = opts.offset + opts.limit;
  const { hits, total } = store.ftsSearch(terms.join(' OR '), FIELD_WEIGHTS, weighted.map(t => t.weight), opts.filter, opts.vector ? Math.max(want * 4, 200) : want);
  let ordered: { rowid: number; score: number; signals: string[] }[] = hits.map(h => ({ rowid: h.rowid, score: h.score, signals: ['bm25'] }));
  let fullTotal = total;
  if (opts.vector) {
    const vi = vectors();
    const vrank = vectorRank(vi, query, opts.filter, Math.max(want * 4, 200)).top;
    const sim = new Map(vrank.map(v => [v.rowid, v.sim]));
    const simOf = (rowid: number) => sim.get(rowid) ?? 0;
    // Lexicographic: BM25 score first; the vector only orders exact ties.
    ordered.sort((a, b) => b.score - a.score || simOf(b.rowid) - simOf(a.rowid) || a.rowid - b.rowid);
    for (const o of ordered) if (sim.has(o.rowid)) o.signals = ['bm25', 'local_hash_vector'];
    if (ordered.length < want) {
      const have = new Set(ordered.map(o => o.rowid));
      for (const v of vrank) {
        if (ordered.length >= want) break;
        if (have.has(v.rowid)) continue;
        ordered.push({ rowid: v.rowid, score: v.sim, signals: ['local_hash_vector'] });
        fullTotal++;
      }
    }
  }
  const page = ordered.slice(opts.offset, want);
  const rows = store.chunksByRowids(page.map(p => p.rowid));
  const results = page.flatMap(p => { const r = rows.get(p.rowid); return r ? [toHit(r, p.score, p.signals)] : []; });
  return { results, total: fullTotal, terms };
}

export function vectorSearch(store: Store, vectors: () => VectorIndex, query: string, opts: { limit: number; offset: number; filter: SearchFilter }): SearchPage {
  const vi = vectors();
  const { top, total } = vectorRank(vi, query, opts.filter, opts.offset + opts.limit);
  const page = top.slice(opts.offset);
  const rows = store.chunksByRowids(page.map(p => p.rowid));
  const results = page.flatMap(p => { const r = rows.get(p.rowid); return r ? [toHit(r, p.sim, ['local_hash_vector'])] : []; });
  return { results, total, terms: queryTerms(query) };
}

