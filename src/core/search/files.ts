/**
 * search_code's file ranking: an agent decides per file, so `limit: 10` names ten files. One pass over
 * every chunk that matches any query term (a single FTS4 query with `matchinfo`) gives, per file:
 *   - bm25_file:  Okapi BM25 of the file's whole text (its chunks' bodies summed: chunks partition the
 *                 file's lines), with document frequencies over files;
 *   - bm25_chunk: the best chunk's BM25 with definition names and paths weighted above bodies;
 *   - name:       query terms that name a definition in the file;
 *   - path:       query terms in the file's path, and paths the text names (a traceback's frames,
 *                 `pkg/mod.py`), matched by suffix;
 *   - recency:    how few commits ago the file last changed (git history, exp(−n / RECENCY_COMMITS));
 *   - commit_subjects: BM25 of the query terms over the subjects of the commits that changed the file
 *                 (a file's past commits describe what it does in the words issues and commits use);
 * fused as a weighted sum of the signals, each normalised by its best value among the candidates. Test
 * files rank below source unless the query is about tests or `include_tests` asks for them. Each file
 * comes with its best chunks, so one call shows where in the file to look.
 */
import picomatch from 'picomatch';
import type { Store } from '../store/store';
import type { FileHistoryIndex } from '../store/history';
import { BM25_B, BM25_K1 } from '../store/bm25';
import { isTestPath } from '../languages';
import { fileKindOf, isTextFormatId } from '../languages/text';
import { analyseQuery, type QueryPlan } from './query';
import { codeStats } from './code-stats';
import { FTS_COLUMNS } from '../store/files';
import type { SearchFilter } from './search';

/** Column weights for (definition name, path, body): names and paths count above bodies. */
export const FIELD_WEIGHTS: [number, number, number] = [4, 2, 1];

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
  const { df } = store.files.documentFrequencies(terms.map(t => t.term), CANDIDATE_BUDGET);
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

export interface FileIndex {
  files: Map<number, { repo_id: string; path: string; language: string; line_count: number }>; total_lines: number; chunk_file: Int32Array;
  /** every chunk's full-text column lengths (built on first use): lets a search of many rows skip FTS4's per-row length lookups */
  chunk_lengths?: () => Uint32Array;
}
/** From how many candidate rows (summed document frequencies) a search reads the column lengths from `chunk_lengths`. */
export const LENGTHS_FROM_ROWS = 4000;

export interface RankedChunk { rowid: number; score: number }
export interface RankedFile {
  file_id: number; repo_id: string; path: string; language: string; score: number; signals: string[];
  chunks: RankedChunk[]; test: boolean;
}
export interface FileSearch { files: RankedFile[]; total: number; plan: QueryPlan; terms: string[]; chunks: RankedChunk[]; candidates: number }

/** What a benchmark may read of each ranking (the normalised signals of every candidate file); unset in use. */
/** One candidate file's signals, as a benchmark reads them (normalised; `raw`: before normalising). */
export interface SignalRow {
  path: string; test: boolean; lines: number; body: number; chunk: number; name: number; path_terms: number; hint: number;
  wants_tests: boolean; text: boolean; text_mode: 'asked' | 'mentioned' | 'no';
  raw: { tf: number[]; dl: number; names: number[]; paths: number[]; chunks: number[]; recent: number; history: number };
}
export type SignalSink = (files: SignalRow[], meta: { terms: string[]; weights: number[]; idf: number[]; avgdl: number; n: number }) => void;
let signalSink: SignalSink | null = null;
export function setSignalSink(sink: SignalSink | null): void { signalSink = sink; }

/** Weights of the fused signals (each normalised to 0..1 over the candidates). */
export const FUSION = { bm25_file: 1.0, bm25_chunk: 0.7, name: 0.2, path: 0.25, path_hint: 1.0, recency: 0.5, commit_subjects: 0.4 };
/**
 * The recency signal: exp(−n / RECENCY_COMMITS), n = commits of the file's repository newer than its
 * latest change (work goes on where it was; a file never changed in the mined history gets 0). With
 * commit_subjects (the file's past commit subjects against the query, the "similar past changes" signal
 * of history-aware bug localisation), measured on bench:quality on both halves of the cases.
 */
export const RECENCY_COMMITS = 5;
/**
 * A prior for larger files, added as SIZE_PRIOR × ln(1 + lines) / 10 (0.2 for a 800-line file): changes
 * concentrate in the big, central files of a project. Measured on bench:quality with a held-out half
 * (tuned on the even cases, checked on the odd ones): MRR +0.04 on both halves. File fan-in from the
 * graph (a centrality) and a file's git churn (commits touching it, from the history phase) were
 * measured the same way and added nothing beside it (churn: within ±0.006 MRR on 237 commit cases), so
 * neither is used.
 */
export const SIZE_PRIOR = 0.3;
/** Score factor of test files when the query does not ask for tests. */
export const TEST_FACTOR = 0.55;
/** … and when it mentions tests (an issue that says "the test fails" is still fixed in source). */
export const TEST_FACTOR_MENTIONED = 0.7;
/**
 * Score factor of files beside the product code — tooling and project configuration (`noxfile.py`,
 * `*.config.js`, dot-folders and dot-files), documentation and examples (`docs/`, `examples/`), benchmarks
 * and bundled output (`out.js`, `*.min.js`) — unless the query names the file. An issue or a commit is
 * rarely fixed there (4 of 547 gold files on bench:quality), yet their prose-like text often matches it
 * best. Measured on the commit cases: hit@1 0.573 → 0.590.
 */
export const AUXILIARY_FACTOR = 0.7;
/**
 * Score factor of text files (docs, configuration, data, scripts, markup, styles: languages/text.ts) when
 * the query does not ask about them (query.ts textWording): a question about code is answered in code
 * first, and a README that mentions everything does not crowd it out. A query that asks about docs or
 * configuration ranks them as code. Measured with bench/fusion-replay.mjs on bench:quality's commit cases
 * (code gold; seeds 1 and 3) and doc/config cases (seeds 1 and 2): 0.45 → 0.7 lifts the doc/config MRR
 * by 0.03–0.04 and costs the code cases 0.003–0.007 (what is left of the gap to text files off is queries
 * that ask about docs while the commit changed code).
 */
export const TEXT_FACTOR = 0.7;
/** … and when it mentions them without asking (a commit that also updates the docs). */
export const TEXT_FACTOR_MENTIONED = 0.8;
/**
 * … and of release notes besides (`CHANGELOG.md`, `CHANGES`, `HISTORY.rst`, `NEWS`): they name every
 * feature a commit touches without being where it is done.
 */
export const RELEASE_NOTES_FACTOR = 0.7;
const RELEASE_NOTES = /(?:^|\/)(?:CHANGELOG|CHANGES|HISTORY|NEWS|RELEASE[-_]?NOTES)(?:\.[\w]+)?$/i;
const AUXILIARY = /(^|\/)(\.[^/]+|docs?|examples?|benchmarks?|bench|website|site|playground)(\/|$)|(^|\/)(noxfile|conftest|fabfile|gulpfile|gruntfile|[a-z]+\.config)\.[a-z]+$|(^|\/)(out|bundle)\.js$|\.min\.js$/i;
/** Whether a path is beside the product code (see AUXILIARY_FACTOR). */
export const isAuxiliaryPath = (path: string): boolean => AUXILIARY.test(path);
const COL_NAME = 0, COL_PATH = 1, COL_BODY = 2;

export interface FileSearchOptions {
  filter: SearchFilter; include_tests: boolean; path_glob?: string; chunks_per_file: number;
  /** also return every candidate chunk, ranked (for group chunk) */
  rank_chunks?: boolean;
}

export function searchFiles(store: Store, index: () => FileIndex, query: string, opts: FileSearchOptions): FileSearch {
  const plan = analyseQuery(query, (terms, cap) => store.files.documentFrequencies(terms, cap));
  const weighted = pruneCommonTerms(store, plan.terms);
  const terms = weighted.map(t => t.term);
  const empty: FileSearch = { files: [], total: 0, plan, terms, chunks: [], candidates: 0 };
  if (!terms.length && !plan.paths.length) return empty;
  const fi = index();
  // text not asked for: code is ranked on the statistics of code alone (code-stats.ts)
  const textDown = !plan.wants_text && !opts.filter.file_kind;
  const codeOnly = textDown ? codeStats(fi, FTS_COLUMNS) : null;
  const glob = opts.path_glob ? picomatch(opts.path_glob, { dot: true }) : null;
  const kept = new Map<number, boolean>();
  const keep = (fileId: number) => {
    let k = kept.get(fileId);
    if (k === undefined) {
      const f = fi.files.get(fileId);
      k = !!f && passes(opts.filter, f) && (!glob || glob(f.path));
      kept.set(fileId, k);
    }
    return k;
  };
  interface Acc { file_id: number; tf: Float64Array; name: Set<number>; path: Set<number>; chunks: RankedChunk[] }
  const acc = new Map<number, Acc>();
  let candidates = 0;
  let avgBodyPerChunk = 0; let chunkCount = 0;
  const p = terms.length;
  const pw = weighted.map(t => t.weight);
  let idfChunk: Float64Array[] = [];
  if (p) {
    let rows = 0;
    if (fi.chunk_lengths) for (const n of store.files.documentFrequencies(terms, CANDIDATE_BUDGET).df.values()) rows += n;
    const fts = store.files.ftsCandidates(terms.join(' OR '), p, rows >= LENGTHS_FROM_ROWS ? fi.chunk_lengths!() : undefined);
    if (fts) {
      const { rowids, mi, stride, count, c } = fts;
      const n = codeOnly?.chunks ?? fts.n;
      const avg = (c === FTS_COLUMNS && codeOnly?.avg) || fts.avg;
      candidates = count;
      chunkCount = n;
      // Per row: l (c column lengths), then y (hits per term and column).
      const df = new Uint32Array(p * c); // rows with hits, per term and column
      for (let r = 0; r < count; r++) {
        if (codeOnly?.text_file[fi.chunk_file[rowids[r]!] ?? 0]) continue;
        const o = r * stride + c;
        for (let k = 0; k < p * c; k++) if (mi[o + k]) df[k]!++;
      }
      idfChunk = Array.from({ length: p }, (_, i) => Float64Array.from({ length: c }, (_, j) => {
        const d = df[i * c + j]!;
        return Math.max(0.01, Math.log((n - d + 0.5) / (d + 0.5) + 1));
      }));
      avgBodyPerChunk = avg[COL_BODY]!;
      const kOf = new Float64Array(c); // BM25 length norm: K1 * (1 - B) + K1 * B * len / avg
      for (let j = 0; j < c; j++) kOf[j] = BM25_K1 * BM25_B / (avg[j]! || 1);
      const k0 = BM25_K1 * (1 - BM25_B);
      const w = Float64Array.from({ length: p * c }, (_, k) => pw[Math.floor(k / c)]! * FIELD_WEIGHTS[k % c]! * idfChunk[Math.floor(k / c)]![k % c]! * (BM25_K1 + 1));
      for (let r = 0; r < count; r++) {
        const rowid = rowids[r]!;
        const fileId = fi.chunk_file[rowid] ?? 0;
        if (!fileId || !keep(fileId)) continue;
        const o = r * stride;
        let score = 0;
        let a = acc.get(fileId);
        if (!a) { a = { file_id: fileId, tf: new Float64Array(p), name: new Set(), path: new Set(), chunks: [] }; acc.set(fileId, a); }
        for (let i = 0; i < p; i++) {
          for (let j = 0; j < c; j++) {
            const k = i * c + j;
            const tf = mi[o + c + k]!;
            if (!tf) continue;
            score += w[k]! * tf / (tf + k0 + kOf[j]! * mi[o + j]!);
            if (j === COL_BODY) a.tf[i] = a.tf[i]! + tf;
            else if (j === COL_NAME) a.name.add(i);
            else if (j === COL_PATH) a.path.add(i);
          }
        }
        a.chunks.push({ rowid, score });
      }
    }
  }
  // Files the text names by path (a traceback's frames): candidates even when no term matched them.
  const hinted = new Map<number, number>();
  if (plan.paths.length) {
    // A hint can only point at a file of the same name: look up those, not every file.
    const byBase = basenameIndex(fi);
    const named = new Set<number>();
    for (const h of plan.paths) for (const id of byBase.get(h.slice(h.lastIndexOf('/') + 1)) ?? []) named.add(id);
    for (const id of named) {
      const f = fi.files.get(id)!;
      if (!passes(opts.filter, f) || (glob && !glob(f.path))) continue;
      const h = pathHint(f.path, plan.paths);
      if (h > 0) { hinted.set(id, h); if (!acc.has(id)) acc.set(id, { file_id: id, tf: new Float64Array(p), name: new Set(), path: new Set(), chunks: [] }); }
    }
  }
  if (!acc.size) return empty;

  // Whole-file BM25 over the bodies: document frequency over files, file length from its lines.
  const N = Math.max(1, codeOnly?.files ?? fi.files.size);
  const totalLines = codeOnly?.lines ?? fi.total_lines;
  const tokensPerLine = chunkCount && totalLines ? (avgBodyPerChunk * chunkCount) / totalLines : 8;
  const avgdl = Math.max(1, (avgBodyPerChunk * chunkCount) / N);
  const dfFile = new Float64Array(p);
  for (const a of acc.values()) {
    if (codeOnly?.text_file[a.file_id]) continue;
    for (let i = 0; i < p; i++) if (a.tf[i]! > 0) dfFile[i] = dfFile[i]! + 1;
  }
  const idfFile = Array.from(dfFile, d => Math.max(0.01, Math.log((N - d + 0.5) / (d + 0.5) + 1)));
  interface Scored { a: Acc; body: number; chunk: number; name: number; path: number; hint: number; recent: number; history: number }
  const scored: Scored[] = [];
  const historyOf = new Map<string, { h: FileHistoryIndex; idf: Float64Array; postings: (ReadonlyMap<string, number> | undefined)[] }>();
  for (const a of acc.values()) {
    const f = fi.files.get(a.file_id)!;
    let hist = historyOf.get(f.repo_id);
    if (!hist) {
      const h = store.history.searchHistory(f.repo_id);
      const postings = terms.map(t => h.postings.get(t));
      const idf = Float64Array.from(postings, q => Math.max(0.01, Math.log((h.commits.size - (q?.size ?? 0) + 0.5) / ((q?.size ?? 0) + 0.5) + 1)));
      historyOf.set(f.repo_id, hist = { h, idf, postings });
    }
    const since = hist.h.since.get(f.path);
    const touched = hist.h.commits.get(f.path) ?? 0;
    let history = 0;
    if (touched) {
      const norm = BM25_K1 * (1 - BM25_B + BM25_B * touched / (hist.h.avg_commits || 1));
      for (let i = 0; i < p; i++) { const tf = hist.postings[i]?.get(f.path); if (tf) history += pw[i]! * hist.idf[i]! * tf * (BM25_K1 + 1) / (tf + norm); }
    }
    const dl = Math.max(1, f.line_count * tokensPerLine);
    let body = 0; let name = 0; let path = 0;
    for (let i = 0; i < p; i++) {
      const tf = a.tf[i]!;
      if (tf) body += pw[i]! * idfFile[i]! * (tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * dl / avgdl));
      if (a.name.has(i)) name += pw[i]! * idfFile[i]!;
      if (a.path.has(i)) path += pw[i]! * idfFile[i]!;
    }
    a.chunks.sort((x, y) => y.score - x.score || x.rowid - y.rowid);
    const chunk = (a.chunks[0]?.score ?? 0) + 0.25 * (a.chunks[1]?.score ?? 0);
    scored.push({ a, body, chunk, name, path, hint: hinted.get(a.file_id) ?? 0, recent: since === undefined ? 0 : Math.exp(-since / RECENCY_COMMITS), history });
  }
  // Each signal is scaled by its largest value among the files that rank at full weight: text files that
  // are pushed down (not asked for) neither set the scale code is measured on nor go beyond it.
  const isText = (s: Scored) => isTextFormatId(fi.files.get(s.a.file_id)!.language);
  const scale = textDown && scored.some(s => !isText(s)) ? scored.filter(s => !isText(s)) : scored;
  const max = (k: keyof Omit<Scored, 'a' | 'recent'>) => { let m = 1e-9; for (const s of scale) if (s[k] > m) m = s[k]; return m; };
  const mBody = max('body'), mChunk = max('chunk'), mName = max('name'), mPath = max('path'), mHistory = max('history');
  const testFactor = opts.include_tests ? 1 : plan.wants_tests ? TEST_FACTOR_MENTIONED : TEST_FACTOR;
  if (signalSink) {
    const textMode = plan.wants_text || opts.filter.file_kind ? 'asked' : plan.mentions_text ? 'mentioned' : 'no';
    signalSink(scored.map((s): SignalRow => {
      const f = fi.files.get(s.a.file_id)!;
      const raw = {
        tf: Array.from(s.a.tf), dl: Math.max(1, f.line_count * tokensPerLine), names: [...s.a.name], paths: [...s.a.path],
        chunks: s.a.chunks.slice(0, 3).map(c => c.score), recent: s.recent, history: s.history / mHistory,
      };
      return {
        path: f.path, test: isTestPath(f.path), lines: f.line_count, body: s.body / mBody, chunk: s.chunk / mChunk,
        name: s.name / mName, path_terms: s.path / mPath, hint: s.hint, wants_tests: plan.wants_tests, text: isText(s), text_mode: textMode, raw,
      };
    }), { terms, weights: pw, idf: idfFile, avgdl, n: N });
  }
  const files: RankedFile[] = scored.map(s => {
    const f = fi.files.get(s.a.file_id)!;
    const test = isTestPath(f.path);
    const signals: string[] = [];
    if (s.body) signals.push('bm25_file');
    if (s.chunk) signals.push('bm25_chunk');
    if (s.name) signals.push('name');
    if (s.path) signals.push('path');
    if (s.hint) signals.push('path_hint');
    if (s.recent >= 0.05) signals.push('recency');
    if (s.history) signals.push('commit_subjects');
    const text = isTextFormatId(f.language);
    const of = (v: number, m: number) => (text && textDown ? Math.min(1, v / m) : v / m);
    let score = FUSION.bm25_file * of(s.body, mBody) + FUSION.bm25_chunk * of(s.chunk, mChunk) + FUSION.name * of(s.name, mName)
      + FUSION.path * of(s.path, mPath) + FUSION.path_hint * s.hint + FUSION.recency * s.recent + FUSION.commit_subjects * of(s.history, mHistory)
      + SIZE_PRIOR * Math.log1p(f.line_count) / 10;
    if (test) score *= testFactor;
    // docs and CI configuration live in auxiliary places (docs/, .github/): not pushed down when named
    else if (!s.hint && isAuxiliaryPath(f.path) && !(text && (plan.wants_text || plan.mentions_text))) score *= AUXILIARY_FACTOR;
    if (!s.hint && textDown && text) {
      score *= (plan.mentions_text ? TEXT_FACTOR_MENTIONED : TEXT_FACTOR) * (RELEASE_NOTES.test(f.path) ? RELEASE_NOTES_FACTOR : 1);
    }
    return { file_id: s.a.file_id, repo_id: f.repo_id, path: f.path, language: f.language, score: Math.round(score * 10000) / 10000, signals, chunks: s.a.chunks.slice(0, opts.chunks_per_file), test };
  });
  files.sort((x, y) => y.score - x.score || x.path.localeCompare(y.path));
  // Every candidate chunk in order: only the chunk ranking (group chunk) needs them.
  const chunks = opts.rank_chunks ? [...acc.values()].flatMap(a => a.chunks).sort((x, y) => y.score - x.score || x.rowid - y.rowid) : [];
  return { files, total: files.length, plan, terms, chunks, candidates };
}

/** Whether a file passes a search's repository, language and file-kind filters. */
export function passes(filter: SearchFilter, f: { repo_id: string; language: string; path: string }): boolean {
  return (!filter.repo_id || f.repo_id === filter.repo_id) && (!filter.language || f.language === filter.language)
    && (!filter.file_kind || fileKindOf(f.language, f.path) === filter.file_kind);
}

const basenames = new WeakMap<FileIndex, Map<string, number[]>>();
/** Files by their name (the last path segment), built once per file table. */
function basenameIndex(fi: FileIndex): Map<string, number[]> {
  let m = basenames.get(fi);
  if (!m) {
    m = new Map();
    for (const [id, f] of fi.files) {
      const base = f.path.slice(f.path.lastIndexOf('/') + 1);
      const list = m.get(base);
      if (list) list.push(id); else m.set(base, [id]);
    }
    basenames.set(fi, m);
  }
  return m;
}

/** How strongly the paths a query names point at a file (0 unless the file has the hint's name): a full suffix match 1, the file's name alone 0.5. */
export function pathHint(path: string, hints: readonly string[]): number {
  let best = 0;
  const base = path.slice(path.lastIndexOf('/') + 1);
  for (const h of hints) {
    if (path === h || path.endsWith(`/${h}`) || (h.includes('/') && h.endsWith(`/${path}`))) return 1;
    if (!h.includes('/') && h === base) best = Math.max(best, 0.5);
    else if (h.includes('/')) {
      // Trailing segments in common (`lib/python3.11/site-packages/pkg/mod.py` vs `src/pkg/mod.py`).
      const a = h.split('/'), b = path.split('/');
      let k = 0;
      while (k < a.length && k < b.length && a[a.length - 1 - k] === b[b.length - 1 - k]) k++;
      if (k >= 2) best = Math.max(best, 0.9);
      else if (k === 1) best = Math.max(best, 0.4);
    }
  }
  return best;
}
