/**
 * Files, chunks and the full-text index (FTS4 over chunks, its token text in file_text), and the packed
 * occurrences of each file: what the scan phase writes and search reads.
 */
import { keptSymbolIds } from './symbol-ids';
import type { SqlValue } from 'sql.js';
import type { Db } from './db';
import type { TableSpec } from './tables';
import type { ChunkRow, FileContent, FileLanguageRow, FileMeta, FileRow, NewEdge } from './rows';
import { CROSS_FILE_KINDS, type Occurrence, type OccurrenceKind } from '../parse/occurrence';
import { decodeOccurrences } from './occurrences';
import { unpackFtsText } from './ftstext';
import { sqlId, parseId, pathKeySplits } from '../util/ids';
import { writeChunks, chunkSpans, type ChunkSpan } from './chunks';
import { writeShapes } from './shapes';
import { LANGUAGE_IDS } from '../languages/types';

export const FILE_TABLES: TableSpec[] = [
  { name: 'files', owner: 'files', clear: db => db.run('DELETE FROM files'), localText: ['path', 'language', 'hash', 'shape_hash'] }, // a file's own row goes last (FileTables.deleteFile)
  // FTS4 deletes a chunk's terms by reading its token text back (chunks_fts_src): before chunks and file_text.
  { name: 'chunks_fts', owner: 'files', replacedByOwner: 'writeFile keeps the chunks whose key and token text are unchanged (their full-text terms stay), replacing only the others',
    // one statement per file: FTS4 looks each docid of the IN list up (its docid index), no statement per chunk
    deleteFile: (db, fileId) => db.exec('DELETE FROM chunks_fts WHERE docid IN (SELECT rowid FROM chunks WHERE file_id = ?)', [fileId]),
    // emptied last, once chunks is empty: a rebuild resets the index at once instead of deleting every chunk's terms
    clear: db => db.run("INSERT INTO chunks_fts (chunks_fts) VALUES ('rebuild')") },
  { name: 'chunks', owner: 'files', deleteFile: (db, fileId) => db.exec('DELETE FROM chunks WHERE file_id = ?', [fileId]), clear: db => db.run('DELETE FROM chunks'),
    replacedByOwner: 'writeFile keeps the chunks whose key and token text are unchanged (their full-text terms stay), replacing only the others', localText: ['key', 'symbol_path', 'kind', 'head'] },
  { name: 'file_text', owner: 'files', deleteFile: (db, fileId) => db.exec('DELETE FROM file_text WHERE file_id = ?', [fileId]), clear: db => db.run('DELETE FROM file_text'),
    replacedByOwner: 'writeFile keeps the chunks whose key and token text are unchanged (their full-text terms stay), replacing only the others' },
  { name: 'symbols', owner: 'files', deleteFile: (db, fileId, keepSymbols) => { if (!keepSymbols) db.exec('DELETE FROM symbols WHERE file_id = ?', [fileId]); },
    clear: db => db.run('DELETE FROM symbols'), localText: ['name', 'symbol_path', 'kind', 'parent_path', 'chunk_key'] },
  { name: 'file_occurrences', owner: 'files', deleteFile: (db, fileId) => db.exec('DELETE FROM file_occurrences WHERE file_id = ?', [fileId]),
    clear: db => db.run('DELETE FROM file_occurrences') },
];

/** Columns of a ChunkRow, for `FROM chunks c JOIN files f`. */
const CHUNK_COLS = `c.rowid AS rowid, ${sqlId.chunk('f.repo_id', 'f.path', 'c.key')} AS chunk_id, c.file_id AS file_id, c.symbol_path AS symbol_path, c.kind AS kind,
    c.start_line AS start_line, c.end_line AS end_line, c.est_tokens AS est_tokens, c.head AS head, f.path AS path, f.language AS language, f.repo_id AS repo_id, f.hash AS hash`;

export interface FileTablesDeps {
  /** every table's rows of a file but its own row (the registry walk; see tables.ts); `rewrite`: new content follows */
  deleteContent: (fileId: number, keepSymbols: boolean, rewrite: boolean) => void;
  /** edges a parser emits with a file (stored with the provider edges) */
  insertFileEdges: (fileId: number, edges: readonly NewEdge[]) => void;
}

/** How far compactFullText moves the full-text segments up (edits fill level 16 after 16^16 of them), and FTS4's highest level. */
const FTS_RETIRE_STEP = 16;
const FTS_MAX_LEVEL = 1023;

const CODE_FILE = `language IN (${LANGUAGE_IDS.map(l => `'${l}'`).join(', ')})`; // a code file's (a text file's rows are chunks alone)

export class FileTables {
  private ftsCache: { fileId: number; parts: string[] } | null = null;
  private dfCache = new Map<string, { n: number; exact: boolean }>();
  private chunkTotal: number | null = null;

  constructor(private readonly db: Db, private readonly deps: FileTablesDeps) {
    // FTS4 reads a chunk's token text back (view chunks_fts_src) only when it deletes the chunk's terms,
    // chunk after chunk of one file: the file's text is read and inflated once (the function takes the
    // file id, not the blob: sql.js copies a blob argument into JavaScript on every call).
    db.onOpen(raw => raw.create_function('fts_text', (fileId: number, i: number) => {
      if (this.ftsCache?.fileId !== fileId) {
        const data = this.db.one<{ data: Uint8Array }>('SELECT data FROM file_text WHERE file_id = ?', [fileId])?.data;
        this.ftsCache = { fileId, parts: data ? unpackFtsText(data) : [] };
      }
      return this.ftsCache.parts[i] ?? '';
    }));
  }
  /** Forget what was read of the tables (after a write or a delete: a file id may be given to a new file). */
  invalidate(): void { this.dfCache.clear(); this.chunkTotal = null; this.ftsCache = null; }

  // ---- writes ------------------------------------------------------------------------------------
  /** A repository's files (or, with `only`, the named paths and everything under the named folders). */
  fileMetas(repoId: string, only?: { paths: readonly string[]; folders: readonly string[] }): Map<string, FileMeta> {
    const m = new Map<string, FileMeta>();
    const sql = 'SELECT file_id, path, hash, size, mtime_ms FROM files WHERE repo_id = ?';
    if (!only) { for (const r of this.db.all<FileMeta>(sql, [repoId])) m.set(r.path, r); return m; }
    for (const r of this.db.all<FileMeta>(`${sql} AND path IN (SELECT value FROM json_each(?))`, [repoId, JSON.stringify(only.paths)])) m.set(r.path, r);
    // a folder's files by the (repo_id, path) index: 'dir/' ≤ path < 'dir0' ('0' follows '/')
    for (const d of only.folders) for (const r of this.db.all<FileMeta>(`${sql} AND path >= ? AND path < ?`, [repoId, `${d}/`, `${d}0`])) m.set(r.path, r);
    return m;
  }
  /** A file's shape hash (its definitions, imports and base classes: `writeFile` compares them). */
  shapeHash(fileId: number): string | undefined { return this.db.one<{ shape_hash: string }>('SELECT shape_hash FROM files WHERE file_id = ?', [fileId])?.shape_hash; }
  fileCount(repoId: string): number { return this.db.count('SELECT count(*) AS n FROM files WHERE repo_id = ?', [repoId]); }
  touchFile(fileId: number, mtimeMs: number, size: number): void {
    this.db.exec('UPDATE files SET mtime_ms = ?, size = ? WHERE file_id = ?', [mtimeMs, size, fileId]);
  }
  deleteFile(fileId: number): void {
    this.deleteContent(fileId, false);
    this.db.exec('DELETE FROM files WHERE file_id = ?', [fileId]);
  }
  /** Everything stored for a file but its row (the registry walk), and the caches that read it. */
  private deleteContent(fileId: number, keepSymbols: boolean, rewrite = false): void {
    this.invalidate();
    this.deps.deleteContent(fileId, keepSymbols, rewrite);
    this.invalidate(); // the full-text delete read this file's text; its id may be given to a new file
  }
  filesOfRepo(repoId: string): number[] {
    return this.db.all<{ file_id: number }>('SELECT file_id FROM files WHERE repo_id = ?', [repoId]).map(r => r.file_id);
  }
  /** Whether another repository has files (deleting the only one empties the tables at once). */
  othersHaveFiles(repoId: string): boolean { return this.db.count('SELECT count(*) AS n FROM files WHERE repo_id <> ?', [repoId]) > 0; }

  /**
   * Stores a file's new content (call inside a transaction). A file already indexed keeps its id;
   * `same_shape` says whether its definitions, imports and base classes are unchanged (equal shape
   * hashes): its symbols then keep their ids too, and other files' graph edges stay valid.
   */
  writeFile(f: FileContent, existing: FileMeta | undefined): { file_id: number; same_shape: boolean } {
    const db = this.db;
    this.invalidate();
    let fileId: number; let sameShape = false;
    if (existing) {
      fileId = existing.file_id;
      sameShape = this.shapeHash(fileId) === f.shape_hash;
      this.deleteContent(fileId, true, true); // its symbol rows are kept, or replaced, below
      db.exec(`UPDATE files SET language = ?, hash = ?, size = ?, mtime_ms = ?, line_count = ?, syntax_errors = ?, occurrence_count = ?, indexed_at = ?, shape_hash = ?
        WHERE file_id = ?`, [f.language, f.hash, f.size, f.mtime_ms, f.line_count, f.syntax_errors, f.occurrence_count, Date.now(), f.shape_hash, fileId]);
    } else {
      db.exec(`INSERT INTO files (repo_id, path, language, hash, size, mtime_ms, line_count, syntax_errors, occurrence_count, indexed_at, shape_hash)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [f.repo_id, f.path, f.language, f.hash, f.size, f.mtime_ms, f.line_count, f.syntax_errors, f.occurrence_count, Date.now(), f.shape_hash]);
      fileId = db.one<{ id: number }>('SELECT last_insert_rowid() AS id')!.id;
    }
    writeChunks(this.db, fileId, f, !!existing, () => this.invalidate());
    const insSym = db.stmt(`INSERT INTO symbols (file_id, name, symbol_path, kind, start_line, start_col, end_line, end_col, parent_path, chunk_key)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const upd = db.stmt('UPDATE symbols SET start_line = ?, start_col = ?, end_line = ?, end_col = ?, chunk_key = ?, parent_path = ? WHERE rowid = ?');
    {
      // Definitions that stay keep their row ids (other files' edges into them stay valid), when that keeps
      // the parser's order among definitions of one name (the graph takes the first of tied candidates);
      // otherwise every definition of the file is numbered again. Matched by qualified path and kind, never
      // by position: row ids follow the order definitions were first stored in, not the file's order (a
      // definition added above the others is stored after them), so a file of the same shape is matched too.
      const old = existing ? db.all<{ rowid: number; symbol_path: string; kind: string }>('SELECT rowid, symbol_path, kind FROM symbols WHERE file_id = ? ORDER BY rowid', [fileId]) : [];
      const ids = keptSymbolIds(old, f.symbols);
      const keep = new Set(ids.filter((x): x is number => x !== null));
      for (const o of old) if (!keep.has(o.rowid)) db.exec('DELETE FROM symbols WHERE rowid = ?', [o.rowid]);
      f.symbols.forEach((s, i) => {
        const id = ids[i] ?? null;
        if (id !== null) upd.run([s.start_line, s.start_col, s.end_line, s.end_col, s.chunk_key, s.parent_path, id]);
        else insSym.run([fileId, s.name, s.symbol_path, s.kind, s.start_line, s.start_col, s.end_line, s.end_col, s.parent_path, s.chunk_key]);
      });
    }
    writeShapes(db, fileId, f.shapes);
    if (f.occurrence_count) db.stmt('INSERT INTO file_occurrences (file_id, data, cross_data) VALUES (?, ?, ?)').run([fileId, f.occurrences, f.cross_occurrences]);
    this.deps.insertFileEdges(fileId, f.edges);
    return { file_id: fileId, same_shape: sameShape };
  }

  // ---- reads -------------------------------------------------------------------------------------
  file(repoId: string, path: string): FileRow | undefined {
    return this.db.one<FileRow>('SELECT * FROM files WHERE repo_id = ? AND path = ?', [repoId, path]);
  }
  fileByPath(repoId: string, path: string): { file_id: number; language: string; hash: string; line_count: number } | undefined {
    return this.db.one('SELECT file_id, language, hash, line_count FROM files WHERE repo_id = ? AND path = ?', [repoId, path]);
  }
  fileById(fileId: number): { file_id: number; repo_id: string; path: string; language: string; hash: string } | undefined {
    return this.db.one('SELECT file_id, repo_id, path, language, hash FROM files WHERE file_id = ?', [fileId]);
  }
  /** Files whose path (without its extension) is `stem` or ends with `/stem` (module files of a dotted name). */
  filesByStem(stem: string, limit = 50): { file_id: number; repo_id: string; path: string }[] {
    return this.db.all<{ file_id: number; repo_id: string; path: string }>(`SELECT file_id, repo_id, path FROM files WHERE path LIKE ? OR path LIKE ? LIMIT ?`, [`${stem}.%`, `%/${stem}.%`, limit]);
  }
  /** One indexed file of each language, the one whose size is nearest `bytes` (a live engine parses them once at start to warm its parse path). */
  sampleFiles(bytes: number): { repo_id: string; path: string; language: string; size: number }[] {
    return this.db.all(`SELECT repo_id, path, language, size FROM (SELECT repo_id, path, language, size, row_number() OVER (PARTITION BY language ORDER BY abs(size - ?), path) AS k FROM files) WHERE k = 1 ORDER BY language`, [bytes]);
  }
  pathsAndLinesOf(languages: readonly string[]): { language: string; path: string; line_count: number }[] {
    return this.db.all('SELECT language, path, line_count FROM files WHERE language IN (SELECT value FROM json_each(?))', [JSON.stringify(languages)]);
  }
  languageCounts(): { language: string; files: number; lines: number }[] {
    return this.db.all('SELECT language, count(*) AS files, sum(line_count) AS lines FROM files GROUP BY language ORDER BY files DESC');
  }
  /** Every file's identity and size (or only these files'), for file-level ranking (kept by the engine, patched after writes). */
  fileTable(fileIds?: readonly number[]): Map<number, { repo_id: string; path: string; language: string; line_count: number; hash: string }> {
    const m = new Map<number, { repo_id: string; path: string; language: string; line_count: number; hash: string }>();
    const sql = 'SELECT file_id, repo_id, path, language, line_count, hash FROM files';
    for (const r of this.db.all<{ file_id: number; repo_id: string; path: string; language: string; line_count: number; hash: string }>(
      fileIds ? `${sql} WHERE file_id IN (SELECT value FROM json_each(?))` : sql, fileIds ? [JSON.stringify(fileIds)] : [])) m.set(r.file_id, r);
    return m;
  }
  /**
   * Full-text column lengths (tokens) of chunks, from FTS4's docsize table: of every chunk as one array
   * (`FTS_COLUMNS` numbers per rowid), or of the chunks of some files as [rowid, lengths] pairs.
   */
  chunkLengths(): Uint32Array;
  chunkLengths(fileIds: readonly number[]): [number, number[]][];
  chunkLengths(fileIds?: readonly number[]): Uint32Array | [number, number[]][] {
    const decode = (b: Uint8Array): number[] => {
      const out: number[] = []; let o = 0;
      for (let j = 0; j < FTS_COLUMNS; j++) { let v = 0, shift = 0, x = 0; do { x = b[o++] ?? 0; v += (x & 127) * 2 ** shift; shift += 7; } while (x & 128); out.push(v); }
      return out;
    };
    if (fileIds) {
      return this.db.all<{ docid: number; size: Uint8Array }>('SELECT docid, size FROM chunks_fts_docsize WHERE docid IN (SELECT rowid FROM chunks WHERE file_id IN (SELECT value FROM json_each(?)))', [JSON.stringify(fileIds)])
        .map(r => [r.docid, decode(r.size)]);
    }
    const max = this.db.one<{ m: number | null }>('SELECT max(docid) AS m FROM chunks_fts_docsize')?.m ?? 0;
    const out = new Uint32Array((max + 1) * FTS_COLUMNS);
    const s = this.db.stmt('SELECT docid, size FROM chunks_fts_docsize');
    try { while (s.step()) { const r = s.get(); const l = decode(r[1] as Uint8Array); out.set(l, (r[0] as number) * FTS_COLUMNS); } } finally { s.reset(); }
    return out;
  }

  /** [chunk rowid, file id] of these files' chunks. */
  chunkFiles(fileIds: readonly number[]): [number, number][] {
    return this.db.all<{ rowid: number; file_id: number }>('SELECT rowid, file_id FROM chunks WHERE file_id IN (SELECT value FROM json_each(?))', [JSON.stringify(fileIds)])
      .map(r => [r.rowid, r.file_id]);
  }
  fileLanguages(): Map<number, FileLanguageRow> {
    const m = new Map<number, FileLanguageRow>();
    for (const r of this.db.all<FileLanguageRow & { file_id: number }>('SELECT file_id, repo_id, language, path FROM files')) m.set(r.file_id, r);
    return m;
  }
  /** A repository's files in path order (the graph resolver's input). */
  graphFiles(repoId: string): { id: number; path: string; language: string }[] {
    return this.db.all(`SELECT file_id AS id, path, language FROM files WHERE repo_id = ? AND ${CODE_FILE} ORDER BY path`, [repoId]);
  }
  /** One file as graphFiles lists it (none for a text file). */
  graphFile(fileId: number): { id: number; path: string; language: string } | undefined {
    return this.db.one(`SELECT file_id AS id, path, language FROM files WHERE file_id = ? AND ${CODE_FILE}`, [fileId]);
  }
  /** The full-text index's segments per level (FTS4's merge tree), lowest level first. */
  fullTextLevels(): { level: number; segments: number }[] {
    return this.db.all('SELECT level, count(*) AS segments FROM chunks_fts_segdir GROUP BY level ORDER BY level');
  }
  /** How many chunks the index holds. */
  chunkCount(): number { return this.chunkTotal ??= this.db.count('SELECT count(*) AS n FROM chunks'); }
  /**
   * Files the full-text index's segments above every level edits reach. FTS4 adds a segment per
   * transaction at level 0 and, when a level holds 16, merges them into one at the next level: after a
   * large run, its batches' segments sit at levels 0–2 and the edits that follow would merge them, one
   * edit paying seconds at millions of lines. Every segment moves up FTS_RETIRE_STEP levels: their order
   * (a higher level is older; within a level, a lower idx) is kept, so answers are the same, and the merges
   * that edits cause never reach them (16^16 edits). When the levels run out (FTS4 allows up to 1023),
   * everything is merged into one segment (`optimize`) and filed at FTS_RETIRE_STEP.
   */
  compactFullText(): void {
    const max = this.db.one<{ m: number | null }>('SELECT max(level) AS m FROM chunks_fts_segdir')?.m ?? null;
    if (max === null) return;
    this.db.transaction(() => {
      if (max + FTS_RETIRE_STEP <= FTS_MAX_LEVEL) {
        // through negative levels: no row takes a (level, idx) another still holds
        this.db.exec('UPDATE chunks_fts_segdir SET level = -(level + ?)', [FTS_RETIRE_STEP]);
        this.db.exec('UPDATE chunks_fts_segdir SET level = -level');
      } else {
        this.db.run("INSERT INTO chunks_fts (chunks_fts) VALUES ('optimize')");
        this.db.exec('UPDATE chunks_fts_segdir SET level = ?', [FTS_RETIRE_STEP]);
      }
    });
  }
  /** Every file's packed imports and bases in a repository (null: none), for building the resolver's tables. */
  crossOccurrences(repoId: string): Map<number, Uint8Array | null> {
    const m = new Map<number, Uint8Array | null>();
    const s = this.db.stmt('SELECT o.file_id, o.cross_data FROM file_occurrences o JOIN files f ON f.file_id = o.file_id WHERE f.repo_id = ?');
    s.bind([repoId]);
    try { while (s.step()) { const r = s.get(); m.set(r[0] as number, (r[1] as Uint8Array | null) ?? null); } } finally { s.reset(); }
    return m;
  }
  /** Raw occurrences of one file (decoded). */
  occurrences(fileId: number, kinds?: ReadonlySet<string>): Occurrence[] {
    // imports and bases alone (every file's, when the resolver's tables are built) are read from their own column
    if (kinds && [...kinds].every(k => CROSS_FILE_KINDS.has(k as OccurrenceKind))) {
      const row = this.db.one<{ cross_data: Uint8Array | null }>('SELECT cross_data FROM file_occurrences WHERE file_id = ?', [fileId]);
      return row?.cross_data ? decodeOccurrences(row.cross_data, kinds) : [];
    }
    const row = this.db.one<{ data: Uint8Array }>('SELECT data FROM file_occurrences WHERE file_id = ?', [fileId]);
    return row ? decodeOccurrences(row.data, kinds) : [];
  }

  /** Resolves a public chunk id (`chunk:<repo_id>:<path>:<key>`); a path or key may itself contain ':'. */
  chunkById(chunkId: string): ChunkRow | undefined {
    const id = parseId(chunkId);
    if (id?.type !== 'chunk') return undefined;
    for (const { path, key } of pathKeySplits(id.rest)) {
      const row = this.db.one<ChunkRow>(`SELECT ${CHUNK_COLS} FROM files f JOIN chunks c USING (file_id) WHERE f.repo_id = ? AND f.path = ? AND c.key = ?`, [id.repo_id, path, key]);
      if (row) return row;
    }
    return undefined;
  }
  chunksByRowids(rowids: number[]): Map<number, ChunkRow> {
    const m = new Map<number, ChunkRow>();
    for (let i = 0; i < rowids.length; i += 200) {
      const part = rowids.slice(i, i + 200);
      const rows = this.db.raw.exec(`SELECT ${CHUNK_COLS} FROM chunks c JOIN files f USING (file_id) WHERE c.rowid IN (${part.map(() => '?').join(',')})`, part);
      if (!rows.length) continue;
      const cols = rows[0]!.columns;
      for (const v of rows[0]!.values) {
        const o: Record<string, unknown> = {};
        cols.forEach((c, k) => { o[c] = v[k]; });
        m.set(o.rowid as number, o as unknown as ChunkRow);
      }
    }
    return m;
  }

  /**
   * Chunks containing each term. With `cap`, counting stops at `cap` rows (FTS4 reads a long doclist
   * incrementally, so a capped count of a common term costs the cap, not the term's whole doclist): a
   * value ≥ `cap` then means "at least that many". Counts are cached until the next write.
   */
  documentFrequencies(terms: string[], cap = Infinity): { total: number; df: Map<string, number> } {
    this.chunkTotal ??= this.db.count('SELECT count(*) AS n FROM chunks');
    const df = new Map<string, number>();
    for (const t of terms) {
      let e = this.dfCache.get(t);
      if (!e || (!e.exact && e.n < cap)) {
        const n = Number.isFinite(cap)
          ? this.db.one<{ n: number }>('SELECT count(*) AS n FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)', [t, cap])?.n ?? 0
          : this.db.one<{ n: number }>('SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?', [t])?.n ?? 0;
        e = { n, exact: n < cap };
        if (this.dfCache.size > 20000) this.dfCache.clear();
        this.dfCache.set(t, e);
      }
      df.set(t, e.n);
    }
    return { total: this.chunkTotal, df };
  }

  /** All chunk vectors, packed, with their rowids (for brute-force vector search). */
  allVectors(dims: number): { rowids: Int32Array; vectors: Int8Array; files: Int32Array } {
    const n = this.db.count('SELECT count(*) AS n FROM chunks WHERE vec IS NOT NULL');
    const rowids = new Int32Array(n); const files = new Int32Array(n); const vectors = new Int8Array(n * dims);
    const s = this.db.stmt('SELECT rowid, file_id, vec FROM chunks WHERE vec IS NOT NULL ORDER BY rowid');
    let i = 0;
    try {
      while (s.step() && i < n) {
        const row = s.get();
        rowids[i] = row[0] as number; files[i] = row[1] as number;
        const v = row[2] as Uint8Array;
        vectors.set(new Int8Array(v.buffer, v.byteOffset, Math.min(v.byteLength, dims)), i * dims);
        i++;
      }
    } finally { s.reset(); }
    return { rowids, vectors, files };
  }

  /** Every chunk's file, indexed by chunk rowid (0: no such chunk). */
  chunkFileTable(): Int32Array {
    const max = this.db.one<{ m: number | null }>('SELECT max(rowid) AS m FROM chunks')?.m ?? 0;
    const out = new Int32Array(max + 1);
    const s = this.db.stmt('SELECT rowid, file_id FROM chunks');
    try { while (s.step()) { const r = s.get(); out[r[0] as number] = r[1] as number; } } finally { s.reset(); }
    return out;
  }

  /**
   * Every chunk matching `match`, with FTS4 `matchinfo` 'ly' per row (column lengths, then hits per
   * phrase and column) packed into one array (`stride` numbers a row), and the index's constants read
   * once: `c` columns, `n` rows, `avg` column lengths. Document frequencies follow from the rows (a
   * column's hits > 0), so neither 'x' (which makes FTS4 load every doclist whole before the first row)
   * nor per-row 'n'/'a' lookups are needed. With `lengths` (every chunk's column lengths, from
   * `chunkLengths`), only 'y' is asked and the lengths are copied in: 'l' costs a docsize lookup a row,
   * more than half the time of a common word's thousands of rows. Should a row with hits in a column have
   * no length there (the lengths are older than the row), the rows are read again with 'ly'.
   */
  ftsCandidates(match: string, phrases: number, lengths?: Uint32Array): FtsCandidates | null {
    const head = this.db.one<{ mi: Uint8Array }>(`SELECT matchinfo(chunks_fts, 'cna') AS mi FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 1`, [match]);
    if (!head) return null;
    const h = new Uint32Array(head.mi.buffer, head.mi.byteOffset, head.mi.byteLength >> 2);
    const c = h[0]!, n = h[1]!;
    if (c !== FTS_COLUMNS) lengths = undefined; // the lengths array is laid out for the table's own columns
    const avg = h.slice(2, 2 + c);
    const stride = c + phrases * c;
    let cap = 1024;
    let rowids = new Int32Array(cap);
    let mi = new Uint32Array(cap * stride);
    let count = 0;
    const s = this.db.stmt(`SELECT docid, matchinfo(chunks_fts, '${lengths ? 'y' : 'ly'}') FROM chunks_fts WHERE chunks_fts MATCH ?`);
    const from = lengths ? c : 0; // where the blob's words go in a row
    try {
      s.bind([match]);
      while (s.step()) {
        const r = s.get();
        const b = r[1] as Uint8Array;
        if (count === cap) {
          cap *= 2;
          const ids = new Int32Array(cap); ids.set(rowids); rowids = ids;
          const m = new Uint32Array(cap * stride); m.set(mi); mi = m;
        }
        const rowid = r[0] as number;
        rowids[count] = rowid;
        // Little-endian 32-bit words, read without a typed-array view per row.
        const o = count * stride;
        for (let k = from, q = 0; k < stride; k++, q += 4) mi[o + k] = b[q]! | (b[q + 1]! << 8) | (b[q + 2]! << 16) | (b[q + 3]! << 24) >>> 0;
        if (lengths) {
          for (let j = 0; j < c; j++) {
            const l = lengths[rowid * c + j] ?? 0;
            if (!l) for (let k = c + j; k < stride; k += c) if (mi[o + k]) return this.ftsCandidates(match, phrases);
            mi[o + j] = l;
          }
        }
        count++;
      }
    } finally { s.reset(); }
    return { rowids, mi, stride, count, c, n, avg };
  }

  /** Every symbol and chunk of a repository, in the external provider protocol's shape. */
  providerInput(repoId: string): { symbols: ProviderInputSymbol[]; chunks: ProviderInputChunk[] } {
    const symbols = this.db.rows<ProviderInputSymbol>(
      `SELECT ${sqlId.symbol('f.repo_id', 'f.path', 's.symbol_path')} AS id, f.path AS path, s.name AS name, s.symbol_path AS symbol_path, s.kind AS kind, f.language AS language,
        s.start_line AS start_line, s.start_col AS start_col, s.end_line AS end_line, s.end_col AS end_col, f.file_id AS file_id, f.hash AS hash
       FROM symbols s JOIN files f USING (file_id) WHERE f.repo_id = ? ORDER BY f.path, s.start_line`, [repoId]);
    const chunks = this.db.rows<ProviderInputChunk>(
      `SELECT ${sqlId.chunk('f.repo_id', 'f.path', 'c.key')} AS id, f.path AS path, f.language AS language, c.start_line AS start_line, c.end_line AS end_line, c.symbol_path AS symbol_path, c.kind AS kind
       FROM chunks c JOIN files f USING (file_id) WHERE f.repo_id = ? ORDER BY f.path, c.start_line`, [repoId]);
    return { symbols, chunks };
  }

  /** Rows of one repository (or all) in the files, chunks and symbols tables, and their occurrences. */
  counts(repoId?: string): { files: number; chunks: number; symbols: number; occurrences: number } {
    const where = repoId ? ' WHERE f.repo_id = ?' : '';
    const p: SqlValue[] = repoId ? [repoId] : [];
    const n = (sql: string) => this.db.count(sql, p);
    return {
      files: n(`SELECT count(*) AS n FROM files f${where}`),
      chunks: n(`SELECT count(*) AS n FROM chunks c JOIN files f USING (file_id)${where}`),
      symbols: n(`SELECT count(*) AS n FROM symbols s JOIN files f USING (file_id)${where}`),
      occurrences: n(`SELECT coalesce(sum(occurrence_count), 0) AS n FROM files f${where}`),
    };
  }
  /** Every chunk of a repository (no text), by file then order (whole-repository views: analytics). */
  repoChunks(repoId: string): { file_id: number; key: string; symbol_path: string | null; kind: string; start_line: number; end_line: number; head: string | null; ord: number }[] {
    return this.db.all(`SELECT c.file_id AS file_id, c.key AS key, c.symbol_path AS symbol_path, c.kind AS kind, c.start_line AS start_line,
      c.end_line AS end_line, c.head AS head, c.ord AS ord FROM chunks c JOIN files f USING (file_id) WHERE f.repo_id = ? ORDER BY f.path, c.ord`, [repoId]);
  }
  /** The full-text token text of one file: [path, then name and body of each chunk in ord order] (unpackFtsText). */
  tokenText(fileId: number): string[] | null {
    const r = this.db.one<{ data: Uint8Array }>('SELECT data FROM file_text WHERE file_id = ?', [fileId]);
    return r ? unpackFtsText(r.data) : null;
  }
  chunkSpans(fileId: number): ChunkSpan[] { return chunkSpans(this.db, fileId); }
  /**
   * Files of a repository whose text holds any of the full-text terms (each a whole identifier as
   * util/tokens.ts writes it: lower case, without `_` and `$`): every file whose code names one of them,
   * and perhaps a few more.
   */
  filesWithTerms(repoId: string, terms: readonly string[]): number[] {
    if (!terms.length) return [];
    // the matching chunks first, then their files (CROSS JOIN keeps that order: the planner would otherwise
    // walk every file of the repository and test its chunks against the match, seconds for a common name)
    return this.db.all<{ file_id: number }>(`SELECT DISTINCT c.file_id AS file_id FROM (SELECT docid FROM chunks_fts WHERE chunks_fts MATCH ?) m
      CROSS JOIN chunks c ON c.rowid = m.docid CROSS JOIN files f ON f.file_id = c.file_id WHERE f.repo_id = ?`, [terms.join(' OR '), repoId]).map(r => r.file_id);
  }
  /** Chunks whose full text holds a term (its file and key), at most `limit`. */
  chunksWithTerm(term: string, limit: number): { file_id: number; key: string }[] {
    return this.db.all(`SELECT c.file_id AS file_id, c.key AS key FROM chunks c WHERE c.rowid IN (SELECT docid FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)`, [term, limit]);
  }
}

export interface ProviderInputSymbol { id: string; path: string; name: string; symbol_path: string; kind: string; language: string; start_line: number; start_col: number; end_line: number; end_col: number; file_id: number; hash: string }
export interface ProviderInputChunk { id: string; path: string; language: string; start_line: number; end_line: number; symbol_path: string | null; kind: string }
/** Columns of the full-text table: name, path, body. */
export const FTS_COLUMNS = 3;

export interface FtsCandidates { rowids: Int32Array; mi: Uint32Array; stride: number; count: number; c: number; n: number; avg: Uint32Array }
