/**
 * find_similar: chunks built the same way as a symbol or a snippet. Candidates come from the stored
 * MinHash signatures (store/shapes.ts) through LSH banding (LSH_BANDS bands of LSH_ROWS slots, kept in
 * memory until the next write or reload), backed by a scan of every signature when the banding alone
 * cannot fill the page with near-certain matches; the best VERIFY_MAX by estimate are then compared
 * exactly: their text is read from the files now (each chunk's own lines, as indexed) and the score is
 * the Jaccard similarity of the two shingle sets (similar/shape.ts). A file that cannot be read or
 * changed since indexing keeps the estimate, marked `estimated`.
 */
import { realpathSync } from 'node:fs';
import type { IndexFile } from '../indexfile';
import type { Workspace } from '../workspace';
import type { IndexSettings } from '../settings';
import type { Store } from '../store/store';
import type { Boundary } from '../graph/query';
import { isTestPath } from '../languages';
import { readContainedSync } from '../util/contained';
import { sha1 } from '../util/hash';
import { chunkId, nodeIdOfChunkId } from '../util/ids';
import { ENTRY_BYTES, LSH_BANDS, MIN_SHINGLES, NAME_SLOTS, SIG_SLOTS, bandKey, estimate, generatedReason, identifierSet, jaccard, shingleSet, signature, unpackShapes } from '../similar/shape';

/** Chunks compared exactly at most (by estimate, best first). */
export const VERIFY_MAX = 400;
/** Estimated similarity above which banding finds a chunk almost surely (98.8% at 0.7): below it, every signature is scanned. */
export const LSH_SURE = 0.7;
/** How far below min_score an estimate may be and still be compared exactly (the estimate's error at 64 slots). */
const SLACK = 0.12;

export interface SimilarTarget {
  repo_id: string; path: string; file_id: number; symbol_path: string | null; kind: string; start_line: number; end_line: number; language: string;
  /** the ranges of the rest of its overload set in the same file (left out of the matches as well) */
  also?: { start_line: number; end_line: number }[];
}
export interface SimilarRequest {
  target?: SimilarTarget; snippet?: string;
  repo_id?: string; language?: string; include_tests: boolean; min_score: number; limit: number; offset: number;
  /** benchmarks: 'lsh' never scans, 'scan' skips the banding */
  mode?: 'auto' | 'lsh' | 'scan';
}
export interface SimilarMatch {
  chunk_id: string; repo_id: string; path: string; start_line: number; end_line: number;
  symbol_path: string | null; kind: string; score: number; estimated: boolean; test: boolean; generated: boolean; generated_reason: 'path' | 'header' | null; stale: boolean;
  head: string | null;
  shared: { estimated_jaccard: number; shingles_shared: number; shingles_query: number; shingles_match: number; identifier_overlap: number; same_identifiers: string[] };
}
export interface SimilarResult {
  query: { kind: 'symbol' | 'snippet'; tokens: number; shingles: number; identifiers: number };
  matches: SimilarMatch[]; total: number;
  search: { indexed_chunks: number; lsh_candidates: number; scanned: boolean; compared: number };
  tests_left_out: number; boundaries: Boundary[]; warnings: string[];
}

interface ShapeIndex {
  n: number; rowid: Int32Array; file: Int32Array; count: Uint16Array; sigs: Uint16Array; names: Uint16Array;
  files: Map<number, { repo_id: string; path: string; language: string; test: boolean }>;
  bands: { head: Int32Array; next: Int32Array; key: Uint32Array }[]; mask: number;
}

interface ChunkInfo { rowid: number; key: string; symbol_path: string | null; kind: string; start_line: number; end_line: number; head: string | null }

export class SimilarService {
  private cache: { store: Store; mark: number; index: ShapeIndex } | null = null;

  constructor(private readonly file: IndexFile, private readonly workspace: Workspace, private readonly settings: IndexSettings) {}

  private index(): ShapeIndex {
    const store = this.file.store;
    const mark = store.shapes.changeMark();
    if (this.cache?.store === store && this.cache.mark === mark) return this.cache.index;
    const index = buildIndex(store);
    this.cache = { store, mark, index };
    return index;
  }

  async find(q: SimilarRequest): Promise<SimilarResult> {
    await this.file.refresh();
    const store = this.file.store;
    const idx = this.index();
    const boundaries: Boundary[] = []; const warnings: string[] = [];
    const stalePaths = new Set<string>(); const unreadable = new Set<string>();
    // The query's text: the snippet, or the symbol's own lines read from its file now.
    let text = q.snippet ?? '';
    if (q.target) {
      const t = q.target;
      const read = this.readFile(store, t.repo_id, t.path, t.file_id);
      if (!read) { unreadable.add(t.path); text = ''; }
      else {
        if (read.stale) stalePaths.add(t.path);
        text = symbolText(store, t, read.lines);
      }
    }
    const qs = shingleSet(text, q.target?.language ?? q.language);
    const query = { kind: q.target ? 'symbol' as const : 'snippet' as const, tokens: qs.tokens, shingles: qs.set.length, identifiers: new Set(qs.identifiers).size };
    const empty = (extra: string[]): SimilarResult => ({ query, matches: [], total: 0, search: { indexed_chunks: idx.n, lsh_candidates: 0, scanned: false, compared: 0 }, tests_left_out: 0, boundaries, warnings: [...warnings, ...extra] });
    if (q.target && unreadable.size) return empty([`${q.target.path} could not be read now; run index_repo`]);
    if (qs.set.length < MIN_SHINGLES) return empty([`the query has ${qs.set.length} distinct shape shingle(s); similarity needs at least ${MIN_SHINGLES} (a few lines of code): give a larger symbol or snippet`]);
    if (!idx.n) return empty([store.counts().files ? 'no chunk of the index is large enough to compare (or the index predates find_similar: run index_repo with force)' : 'the index is empty: run index_repo']);

    const qsig = signature(qs.set);
    let testsLeftOut = 0;
    const floor = Math.max(0, q.min_score - SLACK);
    const est = new Map<number, number>();
    /** Estimates chunk i and keeps it when it may reach min_score (a test left out by include_tests is counted). */
    const consider = (i: number) => {
      const f = idx.files.get(idx.file[i]!)!;
      if (q.repo_id && f.repo_id !== q.repo_id) return;
      if (q.language && f.language !== q.language) return;
      if (q.target && idx.file[i] === q.target.file_id && this.inside(store, idx.rowid[i]!, q.target)) return;
      const e = estimate(qsig, idx.sigs, i * SIG_SLOTS);
      if (e < floor) return;
      if (!q.include_tests && f.test) { if (e >= q.min_score) testsLeftOut++; return; }
      est.set(i, e);
    };
    let lshCandidates = 0;
    const mode = q.mode ?? 'auto';
    const seen = new Uint8Array(idx.n);
    if (mode !== 'scan') {
      for (let b = 0; b < LSH_BANDS; b++) {
        const key = bandKey(qsig, b); const band = idx.bands[b]!;
        for (let i = band.head[key & idx.mask]!; i >= 0; i = band.next[i]!) {
          if (band.key[i] !== key || seen[i]) continue;
          seen[i] = 1; lshCandidates++;
          consider(i);
        }
      }
    }
    const want = q.offset + q.limit;
    let sure = 0; for (const e of est.values()) if (e >= LSH_SURE) sure++;
    const scanned = mode === 'scan' || (mode === 'auto' && sure < want && q.min_score < LSH_SURE);
    if (scanned) for (let i = 0; i < idx.n; i++) if (!seen[i]) consider(i);
    // Equal shapes (common in a codebase) are ordered by their identifiers: a copy before a look-alike.
    const qnames = signature(identifierSet(qs.identifiers), NAME_SLOTS);
    const nameEst = (i: number) => estimate(qnames, idx.names, i * NAME_SLOTS, NAME_SLOTS);
    const pool = [...est].map(([i, e]) => [i, e, e + 0.05 * nameEst(i)] as [number, number, number]).sort((a, b) => b[2] - a[2] || a[0] - b[0]);
    // candidates tied with the last one chosen are verified too (up to VERIFY_MAX): which of many equal
    // estimates makes the cut must not depend on the limit asked for
    let verifyN = Math.min(VERIFY_MAX, Math.max(3 * want, 60), pool.length);
    while (verifyN < pool.length && verifyN < VERIFY_MAX && pool[verifyN]![2] >= pool[verifyN - 1]![2]) verifyN++;
    const chosen = pool.slice(0, verifyN);

    // Exact comparison: each chosen chunk's own lines, read from its file now (one read a file).
    const byFile = new Map<number, { i: number; e: number }[]>();
    for (const [i, e] of chosen) (byFile.get(idx.file[i]!) ?? byFile.set(idx.file[i]!, []).get(idx.file[i]!)!).push({ i, e });
    const qIds = new Set(qs.identifiers);
    const out: SimilarMatch[] = [];
    for (const [fileId, list] of byFile) {
      const f = idx.files.get(fileId)!;
      const read = this.readFile(store, f.repo_id, f.path, fileId);
      if (read?.stale) stalePaths.add(f.path);
      if (!read) unreadable.add(f.path);
      const chunks = chunkInfos(store, fileId);
      const byRow = new Map(chunks.map(c => [c.rowid, c]));
      const gen = generatedReason(f.path, read?.lines.slice(0, 5).join('\n'));
      for (const { i, e } of list) {
        const c = byRow.get(idx.rowid[i]!); if (!c) continue;
        let score = e; let estimated = true; let shared = Math.round(e * idx.count[i]!); let mCount = idx.count[i]!; let same: string[] = []; let idOverlap = 0;
        if (read && !read.stale) {
          const m = shingleSet(ownText(chunks, c, read.lines), f.language);
          const j = jaccard(qs.set, m.set);
          score = j.jaccard; estimated = false; shared = j.shared; mCount = m.set.length;
          const mIds = new Set(m.identifiers);
          same = [...qIds].filter(x => mIds.has(x)).sort();
          const union = new Set([...qIds, ...mIds]).size;
          idOverlap = union ? round(same.length / union) : 0;
        }
        if (score < q.min_score) continue;
        out.push({
          chunk_id: chunkId(f.repo_id, f.path, c.key), repo_id: f.repo_id, path: f.path, start_line: c.start_line, end_line: c.end_line,
          symbol_path: c.symbol_path, kind: c.kind, score: round(score), estimated, test: f.test, generated: gen !== null, generated_reason: gen, stale: !!read?.stale,
          head: c.head,
          shared: { estimated_jaccard: round(e), shingles_shared: shared, shingles_query: qs.set.length, shingles_match: mCount, identifier_overlap: idOverlap, same_identifiers: same.slice(0, 20) },
        });
      }
    }
    out.sort((a, b) => b.score - a.score || b.shared.identifier_overlap - a.shared.identifier_overlap || a.path.localeCompare(b.path) || a.start_line - b.start_line);
    // a long definition split in parts: one row, its best part
    const seenIds = new Set<string>();
    const definition = (m: SimilarMatch) => (m.symbol_path ? nodeIdOfChunkId(m.chunk_id) : m.chunk_id);
    const matches = out.filter(m => !seenIds.has(definition(m)) && !!seenIds.add(definition(m)));
    // Chunks left uncompared matter only when their estimate could put them on this page.
    const cut = pool[verifyN]?.[1];
    const lastOnPage = matches.length >= want ? matches[want - 1]!.score : q.min_score;
    if (cut !== undefined && cut + SLACK >= lastOnPage) boundaries.push({ kind: 'depth_limit', detail: `${pool.length} chunks came near by estimate; the ${verifyN} with the highest estimates were compared exactly, the next one estimated at ${round(cut)} (raise min_score or narrow repo/language)` });
    if (stalePaths.size) boundaries.push({ kind: 'stale_files', detail: `${stalePaths.size} file(s) changed on disk since indexing (${[...stalePaths].slice(0, 5).join(', ')}): their scores are estimates from the indexed version; run index_repo` });
    if (unreadable.size) boundaries.push({ kind: 'stale_files', detail: `${unreadable.size} file(s) could not be read now (${[...unreadable].slice(0, 5).join(', ')}): their scores are estimates; run index_repo` });
    const skipped = q.repo_id ? store.meta.skippedFiles(q.repo_id) : store.meta.skippedFiles();
    if (skipped) boundaries.push({ kind: 'unparsed_files', detail: `${skipped} file(s) were not parsed (see index_status diagnostics): their code is not compared` });
    return { query, matches: matches.slice(q.offset, q.offset + q.limit), total: matches.length,
      search: { indexed_chunks: idx.n, lsh_candidates: lshCandidates, scanned, compared: chosen.length }, tests_left_out: testsLeftOut, boundaries, warnings };
  }

  private insideCache = new Map<number, { s: number; e: number }>();
  /** Whether a chunk lies within the query symbol's range (the query itself, its parts, what it nests). */
  private inside(store: Store, rowid: number, t: SimilarTarget): boolean {
    let r = this.insideCache.get(rowid);
    if (!r) {
      const c = store.shapes.fileChunks(t.file_id).find(x => x.rowid === rowid);
      r = { s: c?.start_line ?? 0, e: c?.end_line ?? 0 };
      if (this.insideCache.size > 10_000) this.insideCache.clear();
      this.insideCache.set(rowid, r);
    }
    const within = (a: { start_line: number; end_line: number }) => r!.s >= a.start_line && r!.e <= a.end_line;
    return t.kind === 'file' || within(t) || (t.also ?? []).some(within);
  }

  /** A file's lines now, under the walk's containment rules; `stale` when its content is not the indexed one. */
  private readFile(store: Store, repoId: string, path: string, fileId: number): { lines: string[]; stale: boolean } | null {
    const base = this.workspace.byId(repoId)?.root ?? store.meta.repo(repoId)?.root;
    if (!base) return null;
    let real: string;
    try { real = realpathSync(base); } catch { return null; }
    const read = readContainedSync(real, path, this.settings.max_file_bytes);
    if (!read.ok) return null;
    const hash = store.files.fileById(fileId)?.hash;
    return { lines: new TextDecoder('utf-8').decode(read.bytes).split('\n'), stale: sha1(read.bytes) !== hash };
  }
}

function buildIndex(store: Store): ShapeIndex {
  const rows = store.shapes.allShapes();
  const ords = store.shapes.chunkOrds();
  let n = 0;
  for (const r of rows) n += Math.floor(r.data.byteLength / ENTRY_BYTES);
  const rowid = new Int32Array(n); const file = new Int32Array(n); const count = new Uint16Array(n); const sigs = new Uint16Array(n * SIG_SLOTS); const names = new Uint16Array(n * NAME_SLOTS);
  const files = new Map<number, { repo_id: string; path: string; language: string; test: boolean }>();
  let i = 0;
  for (const r of rows) {
    files.set(r.file_id, { repo_id: r.repo_id, path: r.path, language: r.language, test: isTestPath(r.path) });
    const o = ords.get(r.file_id);
    unpackShapes(r.data, (ord, cnt, dv, at) => {
      const id = o?.[ord];
      if (!id) return;
      rowid[i] = id; file[i] = r.file_id; count[i] = cnt;
      for (let j = 0; j < SIG_SLOTS; j++) sigs[i * SIG_SLOTS + j] = dv.getUint16(at + 2 * j, true);
      for (let j = 0; j < NAME_SLOTS; j++) names[i * NAME_SLOTS + j] = dv.getUint16(at + 2 * (SIG_SLOTS + j), true);
      i++;
    });
  }
  n = i;
  let size = 1; while (size < n) size <<= 1;
  const mask = size - 1;
  const bands = [];
  for (let b = 0; b < LSH_BANDS; b++) {
    const head = new Int32Array(size).fill(-1); const next = new Int32Array(n); const key = new Uint32Array(n);
    for (let k = 0; k < n; k++) { const h = bandKey(sigs, b, k * SIG_SLOTS); key[k] = h; next[k] = head[h & mask]!; head[h & mask] = k; }
    bands.push({ head, next, key });
  }
  return { n, rowid: rowid.subarray(0, n), file: file.subarray(0, n), count: count.subarray(0, n), sigs: sigs.subarray(0, n * SIG_SLOTS), names: names.subarray(0, n * NAME_SLOTS), files, bands, mask };
}

function chunkInfos(store: Store, fileId: number): ChunkInfo[] {
  const rows = store.files.chunksByRowids(store.shapes.fileChunks(fileId).map(c => c.rowid));
  return store.shapes.fileChunks(fileId).map(c => { const r = rows.get(c.rowid); return { ...c, symbol_path: r?.symbol_path ?? null, kind: r?.kind ?? 'top_level', head: r?.head ?? null }; });
}

/**
 * A chunk's own lines, as the index cut them: its range without the chunks nested in it (a class
 * chunk holds its lines outside its methods).
 */
function ownText(chunks: readonly { rowid: number; start_line: number; end_line: number }[], c: { rowid: number; start_line: number; end_line: number }, lines: string[]): string {
  const out: string[] = [];
  const inner = chunks.filter(d => d.rowid !== c.rowid && d.start_line >= c.start_line && d.end_line <= c.end_line && !(d.start_line === c.start_line && d.end_line === c.end_line && d.rowid < c.rowid));
  for (let l = c.start_line; l <= c.end_line; l++) if (!inner.some(d => l >= d.start_line && l <= d.end_line)) out.push(lines[l - 1] ?? '');
  return out.join('\n');
}

/** The query symbol's text: its own chunks' lines (as indexed), else its range (a definition inside a function). */
function symbolText(store: Store, t: SimilarTarget, lines: string[]): string {
  if (t.kind === 'file') return lines.join('\n');
  const chunks = store.shapes.fileChunks(t.file_id);
  const own = t.symbol_path ? chunks.filter(c => c.key === t.symbol_path || c.key.startsWith(`${t.symbol_path}#`)) : [];
  if (own.length) return own.map(c => ownText(chunks, c, lines)).join('\n');
  return lines.slice(t.start_line - 1, t.end_line).join('\n');
}

const round = (x: number) => Math.round(x * 1000) / 1000;
