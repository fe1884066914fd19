/**
 * The storage port and its sql.js implementation. The whole database lives in memory (sql.js) and is
 * written to disk atomically by the engine after each indexing run; the schema is versioned.
 */
import initSqlJs, { type Database, type SqlJsStatic, type Statement, type SqlValue } from 'sql.js';
import { readFileSync, existsSync } from 'node:fs';
import { assetPath } from '../assets';
import { SCHEMA_SQL, SCHEMA_VERSION } from './schema';
import { decodeOccurrences } from './occurrences';
import type { Occurrence } from '../parse/occurrence';
import { unpackFtsText } from './ftstext';

export interface RepoRow {
  repo_id: string; root: string; name: string; indexed_at: number | null; indexed_commit: string | null;
  branch: string | null; dirty: number | null; nested_repos: string | null; last_run: string | null;
}
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
}

export interface GraphEdgeRow { from_node: number; to_node: number; kind: string; confidence: number; evidence: string; file_id: number; line: number }
export interface ProviderEdgeRow { from_id: string; to_id: string; kind: string; provider: string; confidence: number; evidence: string; file_id: number | null }
export interface ProviderCheckRow { symbol_id: string; provider: string; file_hash: string; checked_at: number; results: number; complete: number }
export interface NodeRow {
  node: number; repo_id: string; path: string; language: string; name: string; symbol_path: string | null; kind: string;
  start_line: number; start_col: number; end_line: number; end_col: number; parent_path: string | null; file_id: number; chunk_key: string | null;
}

let sqlPromise: Promise<SqlJsStatic> | undefined;
function sqlJs(): Promise<SqlJsStatic> {
  sqlPromise ??= initSqlJs({ locateFile: (f: string) => assetPath(f) });
  return sqlPromise;
}

export class SchemaMismatch extends Error {}

/** Why a file is not a readable Sightline index. */
export interface IndexFileProblem { kind: 'foreign' | 'corrupt'; reason: string }

/** SQLite application_id of Sightline index files ("SGHL"); files of earlier versions have 0. */
export const APPLICATION_ID = 0x5347484c;
/** Tables every Sightline index has had (files with application_id 0 must have them). */
const SIGHTLINE_TABLES = ['meta', 'repos', 'files', 'chunks'];
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** Checks the SQLite header of a file: not SQLite at all, or shorter than the pages it declares. */
export function checkHeader(bytes: Uint8Array): IndexFileProblem | null {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length < 100) {
    return SQLITE_HEADER.subarray(0, Math.min(16, b.length)).equals(b.subarray(0, Math.min(16, b.length)))
      ? { kind: 'corrupt', reason: `truncated: ${b.length} bytes, shorter than an SQLite header` }
      : { kind: 'foreign', reason: 'not an SQLite database' };
  }
  if (!b.subarray(0, 16).equals(SQLITE_HEADER)) return { kind: 'foreign', reason: 'not an SQLite database' };
  const raw = b.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) return { kind: 'corrupt', reason: `invalid page size ${raw} in the header` };
  if (b.length % pageSize !== 0) return { kind: 'corrupt', reason: `truncated: ${b.length} bytes is not a whole number of ${pageSize}-byte pages` };
  // The page count in the header is valid when its version-valid-for number matches the change counter.
  const pages = b.readUInt32BE(28);
  if (pages > 0 && b.readUInt32BE(92) === b.readUInt32BE(24) && b.length < pages * pageSize) {
    return { kind: 'corrupt', reason: `truncated: ${b.length} of ${pages * pageSize} bytes` };
  }
  return null;
}

/**
 * The remaining rows of a statement as objects. Like sql.js's getAsObject, but the column names are read
 * once per statement, not once per row (each name is a call into SQLite and a string decode).
 */
function collect<T>(s: Statement): T[] {
  const rows: T[] = [];
  let names: string[] | null = null;
  while (s.step()) {
    names ??= s.getColumnNames();
    const values = s.get();
    const row: Record<string, SqlValue> = {};
    for (let i = 0; i < names.length; i++) row[names[i]!] = values[i]!;
    rows.push(row as T);
  }
  return rows;
}

export class Store {
  private stmts = new Map<string, Statement>();
  private constructor(private db: Database) {
    // FTS4 reads a chunk's token text back (view chunks_fts_src) only when it deletes the chunk's terms,
    // chunk after chunk of one file: the file's text is read and inflated once (the function takes the
    // file id, not the blob: sql.js copies a blob argument into JavaScript on every call).
    db.create_function('fts_text', (fileId: number, i: number) => {
      if (this.ftsCache?.fileId !== fileId) {
        const data = this.one<{ data: Uint8Array }>('SELECT data FROM file_text WHERE file_id = ?', [fileId])?.data;
        this.ftsCache = { fileId, parts: data ? unpackFtsText(data) : [] };
      }
      return this.ftsCache.parts[i] ?? '';
    });
  }
  private ftsCache: { fileId: number; parts: string[] } | null = null;

  /**
   * Opens an index file (or an empty index). A Sightline index of another schema version yields an empty
   * index (`rebuilt`); a file that is not a readable Sightline index — not SQLite, another application's
   * database, truncated — is reported as `problem` (with an empty index; the engine decides whether to
   * serve it or refuse the file). A missing or zero-byte file is no index yet.
   */
  static async open(path: string | null): Promise<{ store: Store; rebuilt: boolean; problem: IndexFileProblem | null }> {
    const SQL = await sqlJs();
    if (path && existsSync(path)) {
      const bytes = readFileSync(path);
      if (bytes.length === 0) return { store: Store.fresh(SQL), rebuilt: false, problem: null };
      let problem = checkHeader(bytes);
      if (!problem) {
        let db: Database | undefined;
        try {
          db = new SQL.Database(bytes);
          const appId = Number(db.exec('PRAGMA application_id')[0]?.values[0]?.[0] ?? 0);
          const tables = new Set((db.exec("SELECT name FROM sqlite_master WHERE type = 'table'")[0]?.values ?? []).map(r => String(r[0])));
          const ours = appId === APPLICATION_ID || (appId === 0 && SIGHTLINE_TABLES.every(t => tables.has(t)));
          const version = ours ? Store.readVersion(db) : null;
          if (!ours) problem = { kind: 'foreign', reason: appId ? `an SQLite database of another application (application_id ${appId})` : 'an SQLite database without the tables of a Sightline index' };
          else if (version === null) problem = { kind: 'foreign', reason: 'an SQLite database without a Sightline schema version' };
          else if (version === SCHEMA_VERSION) {
            // a first read of the main tables: a damaged file fails here rather than on a later query
            for (const t of ['files', 'chunks', 'repos']) db.exec(`SELECT 1 FROM ${t} LIMIT 1`);
            return { store: new Store(db), rebuilt: false, problem: null };
          }
          db.close(); db = undefined;
          if (!problem) return { store: Store.fresh(SQL), rebuilt: true, problem: null }; // another schema version
        } catch (e) {
          try { db?.close(); } catch { /* already closed */ }
          problem = { kind: 'corrupt', reason: `SQLite cannot read it (${(e as Error).message})` };
        }
      }
      return { store: Store.fresh(SQL), rebuilt: true, problem };
    }
    return { store: Store.fresh(SQL), rebuilt: false, problem: null };
  }

  private static fresh(SQL: SqlJsStatic): Store {
    const db = new SQL.Database();
    db.run(`PRAGMA application_id = ${APPLICATION_ID}`);
    db.run(SCHEMA_SQL);
    db.run('INSERT INTO meta (key, value) VALUES (?, ?)', ['schema_version', String(SCHEMA_VERSION)]);
    return new Store(db);
  }

  private static readVersion(db: Database): number | null {
    try {
      const r = db.exec("SELECT value FROM meta WHERE key = 'schema_version'");
      return r.length ? Number(r[0]!.values[0]![0]) : null;
    } catch { return null; }
  }

  close(): void {
    for (const s of this.stmts.values()) s.free();
    this.stmts.clear();
    this.db.close();
  }

  export(): Uint8Array {
    // sql.js export() frees prepared statements; drop our cache first.
    for (const s of this.stmts.values()) s.free();
    this.stmts.clear();
    return this.db.export();
  }

  private stmt(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) { s = this.db.prepare(sql); this.stmts.set(sql, s); }
    return s;
  }

  private all<T>(sql: string, params: SqlValue[] = []): T[] {
    const s = this.stmt(sql);
    s.bind(params);
    try { return collect<T>(s); } finally { s.reset(); }
  }

  private one<T>(sql: string, params: SqlValue[] = []): T | undefined {
    const s = this.stmt(sql);
    s.bind(params);
    try { return s.step() ? (s.getAsObject() as T) : undefined; } finally { s.reset(); }
  }

  private exec(sql: string, params: SqlValue[] = []): void {
    const s = this.stmt(sql);
    s.run(params);
  }

  transaction<T>(fn: () => T): T {
    this.db.run('BEGIN');
    try { const r = fn(); this.db.run('COMMIT'); return r; } catch (e) { this.db.run('ROLLBACK'); throw e; }
  }

  // ---- meta / repos --------------------------------------------------------------------------
  getMeta(key: string): string | null {
    return this.one<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key])?.value ?? null;
  }
  setMeta(key: string, value: string): void {
    this.exec('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [key, value]);
  }

  /**
   * Whether a repository's files changed after its heuristic graph was built. Set with every file change
   * (in the same transaction), cleared by a graph build: a run stopped in between leaves it set.
   */
  graphPending(repoId: string): boolean { return this.getMeta(`graph_pending:${repoId}`) !== null; }
  setGraphPending(repoId: string, pending: boolean): void {
    if (pending) this.setMeta(`graph_pending:${repoId}`, '1');
    else this.exec('DELETE FROM meta WHERE key = ?', [`graph_pending:${repoId}`]);
  }
  repos(): RepoRow[] { return this.all<RepoRow>('SELECT * FROM repos ORDER BY root'); }
  repo(repoId: string): RepoRow | undefined { return this.one<RepoRow>('SELECT * FROM repos WHERE repo_id = ?', [repoId]); }
  upsertRepo(r: RepoRow): void {
    this.exec(`INSERT INTO repos (repo_id, root, name, indexed_at, indexed_commit, branch, dirty, nested_repos, last_run)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(repo_id) DO UPDATE SET root = excluded.root, name = excluded.name,
      indexed_at = excluded.indexed_at, indexed_commit = excluded.indexed_commit, branch = excluded.branch, dirty = excluded.dirty,
      nested_repos = excluded.nested_repos, last_run = excluded.last_run`,
    [r.repo_id, r.root, r.name, r.indexed_at, r.indexed_commit, r.branch, r.dirty, r.nested_repos, r.last_run]);
  }

  // ---- files ---------------------------------------------------------------------------------
  fileMetas(repoId: string): Map<string, FileMeta> {
    const m = new Map<string, FileMeta>();
    for (const r of this.all<FileMeta>('SELECT file_id, path, hash, size, mtime_ms FROM files WHERE repo_id = ?', [repoId])) m.set(r.path, r);
    return m;
  }
  file(repoId: string, path: string): FileRow | undefined {
    return this.one<FileRow>('SELECT * FROM files WHERE repo_id = ? AND path = ?', [repoId, path]);
  }
  touchFile(fileId: number, mtimeMs: number, size: number): void {
    this.exec('UPDATE files SET mtime_ms = ?, size = ? WHERE file_id = ?', [mtimeMs, size, fileId]);
  }

  deleteFile(fileId: number): void {
    this.deleteContent(fileId, false);
    this.exec('DELETE FROM files WHERE file_id = ?', [fileId]);
  }

  /** Everything stored for a file but its row (and, with keepSymbols, its symbol rows). */
  private deleteContent(fileId: number, keepSymbols: boolean): void {
    this.invalidateStats();
    const rowids = this.all<{ rowid: number }>('SELECT rowid FROM chunks WHERE file_id = ?', [fileId]);
    for (const r of rowids) this.exec('DELETE FROM chunks_fts WHERE docid = ?', [r.rowid]);
    this.exec('DELETE FROM chunks WHERE file_id = ?', [fileId]);
    this.exec('DELETE FROM file_text WHERE file_id = ?', [fileId]);
    this.ftsCache = null; // the file id may be given to a new file
    if (!keepSymbols) this.exec('DELETE FROM symbols WHERE file_id = ?', [fileId]);
    this.exec('DELETE FROM file_occurrences WHERE file_id = ?', [fileId]);
    this.exec('DELETE FROM edges WHERE file_id = ?', [fileId]);
  }

  deleteRepo(repoId: string): void {
    if (this.one<{ n: number }>('SELECT count(*) AS n FROM files WHERE repo_id <> ?', [repoId])!.n === 0) {
      // The only repository (a forced rebuild of a one-folder workspace): empty the tables at once and
      // reset the full-text index, instead of deleting every chunk's terms one by one.
      this.invalidateStats(); this.ftsCache = null;
      this.db.run(`DELETE FROM edges WHERE file_id IN (SELECT file_id FROM files); DELETE FROM chunks; DELETE FROM file_text;
        DELETE FROM symbols; DELETE FROM file_occurrences; DELETE FROM files; INSERT INTO chunks_fts (chunks_fts) VALUES ('rebuild');`);
    } else for (const f of this.all<{ file_id: number }>('SELECT file_id FROM files WHERE repo_id = ?', [repoId])) this.deleteFile(f.file_id);
    this.exec('DELETE FROM diagnostics WHERE repo_id = ?', [repoId]);
    this.exec('DELETE FROM graph_edges WHERE repo_id = ?', [repoId]);
    this.exec('DELETE FROM unbound_calls WHERE repo_id = ?', [repoId]);
    // A whole repository's graph is written at once: building the indexes afterwards (one sort each)
    // is several times faster than maintaining them row by row.
    this.db.run('DROP INDEX IF EXISTS graph_edges_to; DROP INDEX IF EXISTS graph_edges_from;');
    this.exec('DELETE FROM repos WHERE repo_id = ?', [repoId]);
  }

  private invalidateStats(): void { this.dfCache.clear(); this.chunkTotal = null; }

  /**
   * Stores a file's new content (call inside a transaction). A file already indexed keeps its id;
   * `same_shape` says whether its definitions, imports and base classes are unchanged (equal shape
   * hashes): its symbols then keep their ids too, and other files' graph edges stay valid.
   */
  writeFile(f: FileContent, existing: FileMeta | undefined): { file_id: number; same_shape: boolean } {
    this.invalidateStats();
    let fileId: number; let sameShape = false;
    if (existing) {
      fileId = existing.file_id;
      sameShape = this.one<{ shape_hash: string }>('SELECT shape_hash FROM files WHERE file_id = ?', [fileId])?.shape_hash === f.shape_hash;
      this.deleteContent(fileId, sameShape);
      this.exec(`UPDATE files SET language = ?, hash = ?, size = ?, mtime_ms = ?, line_count = ?, syntax_errors = ?, occurrence_count = ?, indexed_at = ?, shape_hash = ?
        WHERE file_id = ?`, [f.language, f.hash, f.size, f.mtime_ms, f.line_count, f.syntax_errors, f.occurrence_count, Date.now(), f.shape_hash, fileId]);
    } else {
      this.exec(`INSERT INTO files (repo_id, path, language, hash, size, mtime_ms, line_count, syntax_errors, occurrence_count, indexed_at, shape_hash)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [f.repo_id, f.path, f.language, f.hash, f.size, f.mtime_ms, f.line_count, f.syntax_errors, f.occurrence_count, Date.now(), f.shape_hash]);
      fileId = this.one<{ id: number }>('SELECT last_insert_rowid() AS id')!.id;
    }
    const insChunk = this.stmt(`INSERT INTO chunks (key, file_id, symbol_path, kind, start_line, end_line, est_tokens, head, vec, ord)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const insFts = this.stmt('INSERT INTO chunks_fts (docid, name, path, body) VALUES (last_insert_rowid(), ?, ?, ?)');
    f.chunks.forEach((c, ord) => {
      insChunk.run([c.key, fileId, c.symbol_path, c.kind, c.start_line, c.end_line, c.est_tokens, c.head,
        c.vec ? new Uint8Array(c.vec.buffer, c.vec.byteOffset, c.vec.byteLength) : null, ord]);
      insFts.run([c.fts_name, f.fts_path, c.fts_body]);
    });
    if (f.chunks.length) this.stmt('INSERT INTO file_text (file_id, data) VALUES (?, ?)').run([fileId, f.fts_text]);
    if (sameShape) {
      const ids = this.all<{ rowid: number }>('SELECT rowid FROM symbols WHERE file_id = ? ORDER BY rowid', [fileId]);
      const upd = this.stmt('UPDATE symbols SET start_line = ?, start_col = ?, end_line = ?, end_col = ?, chunk_key = ? WHERE rowid = ?');
      f.symbols.forEach((s, i) => upd.run([s.start_line, s.start_col, s.end_line, s.end_col, s.chunk_key, ids[i]!.rowid]));
    } else {
      const insSym = this.stmt(`INSERT INTO symbols (file_id, name, symbol_path, kind, start_line, start_col, end_line, end_col, parent_path, chunk_key)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
      for (const s of f.symbols) insSym.run([fileId, s.name, s.symbol_path, s.kind, s.start_line, s.start_col, s.end_line, s.end_col, s.parent_path, s.chunk_key]);
    }
    if (f.occurrence_count) this.stmt('INSERT INTO file_occurrences (file_id, data) VALUES (?, ?)').run([fileId, f.occurrences]);
    const insEdge = this.stmt(`INSERT OR REPLACE INTO edges (from_id, to_id, kind, provider, confidence, evidence, file_id) VALUES (?, ?, ?, ?, ?, ?, ?)`);
    for (const e of f.edges) insEdge.run([e.from_id, e.to_id, e.kind, e.provider, e.confidence, e.evidence, fileId]);
    return { file_id: fileId, same_shape: sameShape };
  }

  replaceDiagnostics(repoId: string, diags: Diagnostic[]): void {
    this.exec('DELETE FROM diagnostics WHERE repo_id = ?', [repoId]);
    for (const d of diags) this.exec('INSERT INTO diagnostics (repo_id, path, code, message) VALUES (?, ?, ?, ?)', [d.repo_id, d.path, d.code, d.message]);
  }
  diagnostics(repoId?: string): Diagnostic[] {
    return repoId ? this.all<Diagnostic>('SELECT * FROM diagnostics WHERE repo_id = ? ORDER BY path', [repoId])
      : this.all<Diagnostic>('SELECT * FROM diagnostics ORDER BY repo_id, path');
  }

  // ---- reads ---------------------------------------------------------------------------------
  counts(repoId?: string): { files: number; chunks: number; symbols: number; edges: number; occurrences: number } {
    const where = repoId ? ' WHERE f.repo_id = ?' : '';
    const p = repoId ? [repoId] : [];
    const n = (sql: string) => this.one<{ n: number }>(sql, p)!.n;
    return {
      files: n(`SELECT count(*) AS n FROM files f${where}`),
      chunks: n(`SELECT count(*) AS n FROM chunks c JOIN files f USING (file_id)${where}`),
      symbols: n(`SELECT count(*) AS n FROM symbols s JOIN files f USING (file_id)${where}`),
      // defines edges are implicit: one per symbol (from its parent definition or its file)
      edges: n(`SELECT count(*) AS n FROM edges e JOIN files f USING (file_id)${where}`) + n(`SELECT count(*) AS n FROM symbols s JOIN files f USING (file_id)${where}`)
        + (repoId ? this.graphEdgeCount(repoId) : this.graphEdgeCount()),
      occurrences: n(`SELECT coalesce(sum(occurrence_count), 0) AS n FROM files f${where}`),
    };
  }
  languageCounts(): { language: string; files: number; lines: number }[] {
    return this.all('SELECT language, count(*) AS files, sum(line_count) AS lines FROM files GROUP BY language ORDER BY files DESC');
  }

  /** Columns of a NodeRow (a symbol with its file), for `FROM symbols s JOIN files f`. */
  private static readonly NODE_COLS = `s.rowid AS rowid, f.repo_id AS repo_id, f.path AS path, f.language AS language, s.name AS name,
    s.symbol_path AS symbol_path, s.kind AS kind, s.start_line AS start_line, s.start_col AS start_col, s.end_line AS end_line,
    s.end_col AS end_col, s.parent_path AS parent_path, s.file_id AS file_id, s.chunk_key AS chunk_key`;

  private static readonly CHUNK_COLS = `c.rowid AS rowid, 'chunk:' || f.repo_id || ':' || f.path || ':' || c.key AS chunk_id, c.file_id AS file_id, c.symbol_path AS symbol_path, c.kind AS kind,
    c.start_line AS start_line, c.end_line AS end_line, c.est_tokens AS est_tokens, c.head AS head, f.path AS path, f.language AS language, f.repo_id AS repo_id, f.hash AS hash`;

  /** Resolves a public chunk id (`chunk:<repo_id>:<path>:<key>`); a path or key may itself contain ':'. */
  chunkById(chunkId: string): ChunkRow | undefined {
    const m = /^chunk:([^:]+):(.+)$/.exec(chunkId);
    if (!m) return undefined;
    const [, repoId, rest] = m as unknown as [string, string, string];
    for (let i = rest.indexOf(':'); i > 0; i = rest.indexOf(':', i + 1)) {
      const row = this.one<ChunkRow>(`SELECT ${Store.CHUNK_COLS} FROM files f JOIN chunks c USING (file_id) WHERE f.repo_id = ? AND f.path = ? AND c.key = ?`,
        [repoId, rest.slice(0, i), rest.slice(i + 1)]);
      if (row) return row;
    }
    return undefined;
  }
  chunksByRowids(rowids: number[]): Map<number, ChunkRow> {
    const m = new Map<number, ChunkRow>();
    for (let i = 0; i < rowids.length; i += 200) {
      const part = rowids.slice(i, i + 200);
      const rows = this.db.exec(`SELECT ${Store.CHUNK_COLS} FROM chunks c JOIN files f USING (file_id) WHERE c.rowid IN (${part.map(() => '?').join(',')})`, part);
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


  private dfCache = new Map<string, { n: number; exact: boolean }>();
  private chunkTotal: number | null = null;

  /** Number of chunks, and of chunks containing each term (cached until the next write). */
  /**
   * Chunks containing each term. With `cap`, counting stops at `cap` rows (FTS4 reads a long doclist
   * incrementally, so a capped count of a common term costs the cap, not the term's whole doclist): a
   * value ≥ `cap` then means "at least that many". Counts are cached until the next write.
   */
  documentFrequencies(terms: string[], cap = Infinity): { total: number; df: Map<string, number> } {
    this.chunkTotal ??= this.one<{ n: number }>('SELECT count(*) AS n FROM chunks')!.n;
    const df = new Map<string, number>();
    for (const t of terms) {
      let e = this.dfCache.get(t);
      if (!e || (!e.exact && e.n < cap)) {
        const n = Number.isFinite(cap)
          ? this.one<{ n: number }>('SELECT count(*) AS n FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)', [t, cap])?.n ?? 0
          : this.one<{ n: number }>('SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?', [t])?.n ?? 0;
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
    const n = this.one<{ n: number }>('SELECT count(*) AS n FROM chunks WHERE vec IS NOT NULL')!.n;
    const rowids = new Int32Array(n); const files = new Int32Array(n); const vectors = new Int8Array(n * dims);
    const s = this.stmt('SELECT rowid, file_id, vec FROM chunks WHERE vec IS NOT NULL ORDER BY rowid');
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
    const max = this.one<{ m: number | null }>('SELECT max(rowid) AS m FROM chunks')?.m ?? 0;
    const out = new Int32Array(max + 1);
    const s = this.stmt('SELECT rowid, file_id FROM chunks');
    try { while (s.step()) { const r = s.get(); out[r[0] as number] = r[1] as number; } } finally { s.reset(); }
    return out;
  }
  /** Every file's identity and size, for file-level ranking (kept by the engine until the next write). */
  fileTable(): Map<number, { repo_id: string; path: string; language: string; line_count: number }> {
    const m = new Map<number, { repo_id: string; path: string; language: string; line_count: number }>();
    for (const r of this.all<{ file_id: number; repo_id: string; path: string; language: string; line_count: number }>('SELECT file_id, repo_id, path, language, line_count FROM files')) m.set(r.file_id, r);
    return m;
  }

  /**
   * Every chunk matching an FTS query, with its file and per-row statistics (`matchinfo 'pcnaly'`:
   * phrases, columns, rows, average and own column lengths, hits per phrase and column), plus the
   * per-phrase, per-column document counts (`x`, the same for every row) read once.
   */
  /**
   * Every chunk matching `match`, with FTS4 `matchinfo` 'ly' per row (column lengths, then hits per
   * phrase and column) packed into one array (`stride` numbers a row), and the index's constants read
   * once: `c` columns, `n` rows, `avg` column lengths. Document frequencies follow from the rows (a
   * column's hits > 0), so neither 'x' (which makes FTS4 load every doclist whole before the first row)
   * nor per-row 'n'/'a' lookups are needed.
   */
  ftsCandidates(match: string, phrases: number): { rowids: Int32Array; mi: Uint32Array; stride: number; count: number; c: number; n: number; avg: Uint32Array } | null {
    const head = this.one<{ mi: Uint8Array }>(`SELECT matchinfo(chunks_fts, 'cna') AS mi FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 1`, [match]);
    if (!head) return null;
    const h = new Uint32Array(head.mi.buffer, head.mi.byteOffset, head.mi.byteLength >> 2);
    const c = h[0]!, n = h[1]!;
    const avg = h.slice(2, 2 + c);
    const stride = c + phrases * c;
    let cap = 1024;
    let rowids = new Int32Array(cap);
    let mi = new Uint32Array(cap * stride);
    let count = 0;
    const s = this.stmt(`SELECT docid, matchinfo(chunks_fts, 'ly') FROM chunks_fts WHERE chunks_fts MATCH ?`);
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
        rowids[count] = r[0] as number;
        // Little-endian 32-bit words, read without a typed-array view per row.
        const o = count * stride;
        for (let k = 0, q = 0; k < stride; k++, q += 4) mi[o + k] = b[q]! | (b[q + 1]! << 8) | (b[q + 2]! << 16) | (b[q + 3]! << 24) >>> 0;
        count++;
      }
    } finally { s.reset(); }
    return { rowids, mi, stride, count, c, n, avg };
  }

  /**
   * Per file, how many other files use it through the heuristic graph (calls, references, imports,
   * extends, implements at confidence ≥ 0.5; test links left out): a cheap centrality. Two scans (symbol
   * → file, then the edges) and a set of (target file, source file) pairs, no SQL join.
   */
  fileFanIn(): Map<number, number> {
    const maxSym = this.one<{ m: number | null }>('SELECT max(rowid) AS m FROM symbols')?.m ?? 0;
    const symFile = new Int32Array(maxSym + 1);
    const a = this.stmt('SELECT rowid, file_id FROM symbols');
    try { while (a.step()) { const r = a.get(); symFile[r[0] as number] = r[1] as number; } } finally { a.reset(); }
    const pairs = new Set<number>();
    const m = new Map<number, number>();
    const b = this.stmt(`SELECT to_node, file_id FROM graph_edges WHERE kind <> 'contains_test_for' AND confidence >= 0.5`);
    try {
      while (b.step()) {
        const r = b.get();
        const to = r[0] as number; const src = r[1] as number;
        const f = to < 0 ? -to : symFile[to] ?? 0;
        if (!f || f === src) continue;
        const key = f * 4194304 + src; // file ids stay far below 2^22
        if (pairs.has(key)) continue;
        pairs.add(key);
        m.set(f, (m.get(f) ?? 0) + 1);
      }
    } finally { b.reset(); }
    return m;
  }

  fileLanguages(): Map<number, { repo_id: string; language: string }> {
    const m = new Map<number, { repo_id: string; language: string }>();
    for (const r of this.all<{ file_id: number; repo_id: string; language: string }>('SELECT file_id, repo_id, language FROM files')) m.set(r.file_id, r);
    return m;
  }

  // ---- graph -----------------------------------------------------------------------------------
  graphFiles(repoId: string): { id: number; path: string; language: string }[] {
    return this.all('SELECT file_id AS id, path, language FROM files WHERE repo_id = ? ORDER BY path', [repoId]);
  }
  /**
   * Symbols in a stable order (by path, then in the order the parser found them): where two candidates
   * tie, the graph takes the first, and the order files finish parsing in must not change which.
   */
  graphSymbols(repoId: string): { id: number; fileId: number; name: string; sp: string; kind: string; parent: string | null; line: number }[] {
    return this.all(`SELECT s.rowid AS id, s.file_id AS fileId, s.name AS name, s.symbol_path AS sp, s.kind AS kind, s.parent_path AS parent, s.start_line AS line
      FROM symbols s JOIN files f USING (file_id) WHERE f.repo_id = ? ORDER BY f.path, s.rowid`, [repoId]);
  }
  /**
   * Starts rewriting a repository's graph: all of it, or with `files` only the edges and unbound call
   * counts that those files' occurrences produced. A whole graph drops the node indexes until finishGraph.
   */
  beginGraph(repoId: string, files?: readonly number[]): void {
    if (files) {
      // One pass over each table, however many files (graph_edges has no file index: a full build drops
      // and rebuilds its indexes, and this scan takes milliseconds).
      const list = JSON.stringify(files);
      this.exec('DELETE FROM graph_edges WHERE repo_id = ? AND file_id IN (SELECT value FROM json_each(?))', [repoId, list]);
      this.exec('DELETE FROM unbound_calls WHERE repo_id = ? AND file_id IN (SELECT value FROM json_each(?))', [repoId, list]);
      return;
    }
    // A whole repository's graph is written at once: building the indexes afterwards (one sort each)
    // is several times faster than maintaining them row by row, and so is deleting without them.
    this.db.run('DROP INDEX IF EXISTS graph_edges_to; DROP INDEX IF EXISTS graph_edges_from;');
    // The only repository: an unconditional DELETE empties the table at once.
    if (this.one<{ n: number }>('SELECT count(*) AS n FROM repos WHERE repo_id <> ?', [repoId])!.n === 0) this.db.run('DELETE FROM graph_edges');
    else this.exec('DELETE FROM graph_edges WHERE repo_id = ?', [repoId]);
    this.exec('DELETE FROM unbound_calls WHERE repo_id = ?', [repoId]);
  }

  insertGraphEdges(repoId: string, edges: readonly { from: number; to: number; kind: string; confidence: number; evidence: string; fileId: number; line: number }[]): void {
    // Many rows per statement: the per-call cost of sql.js dominates single-row inserts.
    const ROWS = 64;
    const many = this.stmt(`INSERT INTO graph_edges (repo_id, from_node, to_node, kind, confidence, evidence, file_id, line) VALUES ${Array(ROWS).fill('(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`);
    const one = this.stmt('INSERT INTO graph_edges (repo_id, from_node, to_node, kind, confidence, evidence, file_id, line) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    let i = 0;
    for (; i + ROWS <= edges.length; i += ROWS) {
      const params: SqlValue[] = [];
      for (let k = i; k < i + ROWS; k++) { const e = edges[k]!; params.push(repoId, e.from, e.to, e.kind, e.confidence, e.evidence, e.fileId, e.line); }
      many.run(params);
    }
    for (; i < edges.length; i++) { const e = edges[i]!; one.run([repoId, e.from, e.to, e.kind, e.confidence, e.evidence, e.fileId, e.line]); }
  }

  /** Stores the unbound call counts (per calling file) and rebuilds the node indexes. */
  finishGraph(repoId: string, unbound: ReadonlyMap<number, ReadonlyMap<string, number>>): void {
    const insU = this.stmt('INSERT INTO unbound_calls (repo_id, name, file_id, sites) VALUES (?, ?, ?, ?)');
    for (const [fileId, names] of unbound) for (const [name, sites] of names) insU.run([repoId, name, fileId, sites]);
    this.db.run('CREATE INDEX IF NOT EXISTS graph_edges_to ON graph_edges (to_node, kind); CREATE INDEX IF NOT EXISTS graph_edges_from ON graph_edges (from_node, kind);');
  }

  graphEdgeCount(repoId?: string): number {
    return repoId ? this.one<{ n: number }>('SELECT count(*) AS n FROM graph_edges WHERE repo_id = ?', [repoId])!.n
      : this.one<{ n: number }>('SELECT count(*) AS n FROM graph_edges')!.n;
  }

  /** Heuristic edges into (dir 'in') or out of (dir 'out') the given nodes. */
  graphEdges(nodes: number[], dir: 'in' | 'out', kinds: readonly string[]): GraphEdgeRow[] {
    const col = dir === 'in' ? 'to_node' : 'from_node';
    return this.inBatches<GraphEdgeRow>(nodes, marks => `SELECT from_node, to_node, kind, confidence, evidence, file_id, line FROM graph_edges
      WHERE ${col} IN (${marks}) AND kind IN (${kinds.map(() => '?').join(',')})`, [...kinds]);
  }

  /** Runs a query whose `IN (…)` list is `values`, in batches that stay under SQLite's parameter limit. */
  private inBatches<T>(values: readonly SqlValue[], sql: (marks: string) => string, after: SqlValue[] = []): T[] {
    const out: T[] = [];
    for (let i = 0; i < values.length; i += 300) {
      const part = values.slice(i, i + 300);
      out.push(...this.rows<T>(sql(part.map(() => '?').join(',')), [...part, ...after]));
    }
    return out;
  }

  /** Public identity and location of graph nodes (symbols by rowid, files by -file_id). */
  nodes(nodes: number[]): Map<number, NodeRow> {
    const m = new Map<number, NodeRow>();
    const syms = nodes.filter(n => n > 0); const files = nodes.filter(n => n < 0).map(n => -n);
    for (const r of this.inBatches<NodeRow & { rowid: number }>(syms, marks => `SELECT ${Store.NODE_COLS}
        FROM symbols s JOIN files f USING (file_id) WHERE s.rowid IN (${marks})`)) m.set(r.rowid, { ...r, node: r.rowid });
    for (const r of this.inBatches<{ file_id: number; repo_id: string; path: string; language: string; line_count: number }>(files,
      marks => `SELECT file_id, repo_id, path, language, line_count FROM files WHERE file_id IN (${marks})`)) {
      m.set(-r.file_id, { node: -r.file_id, repo_id: r.repo_id, path: r.path, language: r.language, name: r.path.slice(r.path.lastIndexOf('/') + 1), symbol_path: null, kind: 'file',
        start_line: 1, start_col: 0, end_line: Math.max(1, r.line_count), end_col: 0, parent_path: null, file_id: r.file_id, chunk_key: null });
    }
    return m;
  }

  /** Symbols matching a name or qualified path, optionally narrowed by repo and path. */
  findSymbols(q: { repo_id?: string; path?: string; symbol_path?: string; name?: string }, limit = 50): NodeRow[] {
    const conds: string[] = []; const params: SqlValue[] = [];
    if (q.repo_id) { conds.push('f.repo_id = ?'); params.push(q.repo_id); }
    if (q.path) { conds.push('f.path = ?'); params.push(q.path); }
    if (q.symbol_path) { conds.push('s.symbol_path = ?'); params.push(q.symbol_path); }
    if (q.name) { conds.push('s.name = ?'); params.push(q.name); }
    const rows = this.rows<NodeRow & { rowid: number }>(`SELECT ${Store.NODE_COLS}
      FROM symbols s JOIN files f USING (file_id) ${conds.length ? `WHERE ${conds.join(' AND ')}` : ''} ORDER BY f.path, s.start_line LIMIT ?`, [...params, limit]);
    return rows.map(r => ({ ...r, node: r.rowid }));
  }
  /**
   * Symbols by (repo, path, symbol_path), many at once (provider edges name their ends by id): two
   * batched queries instead of one or more per id. Keys that match nothing are absent from the map.
   */
  symbolsByKeys(keys: { repo_id: string; path: string; symbol_path: string }[]): Map<string, NodeRow> {
    const out = new Map<string, NodeRow>();
    const byRepo = new Map<string, Set<string>>();
    for (const k of keys) (byRepo.get(k.repo_id) ?? byRepo.set(k.repo_id, new Set()).get(k.repo_id)!).add(k.path);
    const fileIds: number[] = [];
    for (const [repo, paths] of byRepo) {
      for (const r of this.inBatches<{ file_id: number }>([...paths], marks => `SELECT file_id FROM files WHERE path IN (${marks}) AND repo_id = ?`, [repo])) fileIds.push(r.file_id);
    }
    if (!fileIds.length) return out;
    const wanted = new Set(keys.map(k => `${k.repo_id}\0${k.path}\0${k.symbol_path}`));
    const sps = [...new Set(keys.map(k => k.symbol_path))];
    for (let i = 0; i < fileIds.length; i += 300) {
      const part = fileIds.slice(i, i + 300);
      for (const r of this.inBatches<NodeRow & { rowid: number }>(sps, marks => `SELECT ${Store.NODE_COLS}
          FROM symbols s JOIN files f USING (file_id) WHERE s.symbol_path IN (${marks}) AND s.file_id IN (${part.map(() => '?').join(',')})`, part)) {
        const key = `${r.repo_id}\0${r.path}\0${r.symbol_path}`;
        if (wanted.has(key) && !out.has(key)) out.set(key, { ...r, node: r.rowid });
      }
    }
    return out;
  }
  /** Files whose path (without its extension) is `stem` or ends with `/stem` (module files of a dotted name). */
  filesByStem(stem: string, limit = 50): { file_id: number; repo_id: string; path: string }[] {
    return this.all<{ file_id: number; repo_id: string; path: string }>(`SELECT file_id, repo_id, path FROM files WHERE path LIKE ? OR path LIKE ? LIMIT ?`, [`${stem}.%`, `%/${stem}.%`, limit]);
  }
  /** Distinct definition names matching a LIKE pattern (case-insensitive for ASCII), for "did you mean" suggestions. */
  symbolNames(like: string, repoId: string | undefined, limit: number): string[] {
    return this.rows<{ name: string }>(`SELECT DISTINCT s.name AS name FROM symbols s${repoId ? ' JOIN files f USING (file_id) WHERE f.repo_id = ? AND' : ' WHERE'} s.name LIKE ? LIMIT ?`,
      repoId ? [repoId, like, limit] : [like, limit]).map(r => r.name);
  }
  fileByPath(repoId: string, path: string): { file_id: number; language: string; hash: string; line_count: number } | undefined {
    return this.one('SELECT file_id, language, hash, line_count FROM files WHERE repo_id = ? AND path = ?', [repoId, path]);
  }
  fileById(fileId: number): { file_id: number; repo_id: string; path: string; language: string; hash: string } | undefined {
    return this.one('SELECT file_id, repo_id, path, language, hash FROM files WHERE file_id = ?', [fileId]);
  }
  symbolsInFile(fileId: number): NodeRow[] {
    return this.rows<NodeRow & { rowid: number }>(`SELECT ${Store.NODE_COLS}
      FROM symbols s JOIN files f USING (file_id) WHERE s.file_id = ? ORDER BY s.start_line`, [fileId]).map(r => ({ ...r, node: r.rowid }));
  }
  /** Symbols a language server checked against a file content that has changed since. */
  staleLspChecks(limit: number): string[] {
    return this.rows<{ symbol_id: string }>(`SELECT pc.symbol_id AS symbol_id FROM provider_checks pc
      JOIN files f ON pc.symbol_id LIKE 'symbol:' || f.repo_id || ':' || f.path || ':%'
      WHERE pc.provider LIKE 'lsp:%' AND pc.file_hash <> f.hash ORDER BY pc.checked_at LIMIT ?`, [limit]).map(r => r.symbol_id);
  }

  /** Symbols with the most incoming heuristic edges (functions, methods, classes): the best to verify first. */
  centralSymbols(limit: number): NodeRow[] {
    return this.rows<NodeRow & { rowid: number }>(`SELECT ${Store.NODE_COLS}
      FROM (SELECT to_node, count(*) AS n FROM graph_edges WHERE to_node > 0 AND kind IN ('calls', 'references') GROUP BY to_node ORDER BY n DESC LIMIT ?) top
      JOIN symbols s ON s.rowid = top.to_node JOIN files f ON f.file_id = s.file_id
      WHERE s.kind IN ('function', 'method', 'class', 'interface', 'struct', 'trait') ORDER BY top.n DESC`, [limit]).map(r => ({ ...r, node: r.rowid }));
  }

  unboundSites(repoId: string, names: string[]): Map<string, number> {
    const m = new Map<string, number>();
    for (const n of names) { const r = this.one<{ sites: number | null }>('SELECT sum(sites) AS sites FROM unbound_calls WHERE repo_id = ? AND name = ?', [repoId, n]); if (r?.sites) m.set(n, r.sites); }
    return m;
  }
  skippedFiles(repoId?: string): number {
    const codes = "('too_large','binary','unreadable','parse_failed','worker_crashed','broken_symlink','symlink_loop')";
    return repoId ? this.one<{ n: number }>(`SELECT count(*) AS n FROM diagnostics WHERE repo_id = ? AND code IN ${codes}`, [repoId])!.n
      : this.one<{ n: number }>(`SELECT count(*) AS n FROM diagnostics WHERE code IN ${codes}`)!.n;
  }

  /** Every symbol and chunk of a repository, in the external provider protocol's shape. */
  providerInput(repoId: string): { symbols: { id: string; path: string; name: string; symbol_path: string; kind: string; language: string; start_line: number; start_col: number; end_line: number; end_col: number; file_id: number; hash: string }[];
    chunks: { id: string; path: string; language: string; start_line: number; end_line: number; symbol_path: string | null; kind: string }[] } {
    const symbols = this.rows<{ id: string; path: string; name: string; symbol_path: string; kind: string; language: string; start_line: number; start_col: number; end_line: number; end_col: number; file_id: number; hash: string }>(
      `SELECT 'symbol:' || f.repo_id || ':' || f.path || ':' || s.symbol_path AS id, f.path AS path, s.name AS name, s.symbol_path AS symbol_path, s.kind AS kind, f.language AS language,
        s.start_line AS start_line, s.start_col AS start_col, s.end_line AS end_line, s.end_col AS end_col, f.file_id AS file_id, f.hash AS hash
       FROM symbols s JOIN files f USING (file_id) WHERE f.repo_id = ? ORDER BY f.path, s.start_line`, [repoId]);
    const chunks = this.rows<{ id: string; path: string; language: string; start_line: number; end_line: number; symbol_path: string | null; kind: string }>(
      `SELECT 'chunk:' || f.repo_id || ':' || f.path || ':' || c.key AS id, f.path AS path, f.language AS language, c.start_line AS start_line, c.end_line AS end_line, c.symbol_path AS symbol_path, c.kind AS kind
       FROM chunks c JOIN files f USING (file_id) WHERE f.repo_id = ? ORDER BY f.path, c.start_line`, [repoId]);
    return { symbols, chunks };
  }

  // ---- provider edges (language servers, external providers) -----------------------------------
  providerEdges(ids: string[], dir: 'in' | 'out', kinds: readonly string[]): ProviderEdgeRow[] {
    const col = dir === 'in' ? 'to_id' : 'from_id';
    return this.inBatches<ProviderEdgeRow>(ids, marks => `SELECT from_id, to_id, kind, provider, confidence, evidence, file_id FROM edges
      WHERE ${col} IN (${marks}) AND kind IN (${kinds.map(() => '?').join(',')})`, [...kinds]);
  }
  addProviderEdges(edges: (NewEdge & { file_id: number | null })[]): void {
    const ins = this.stmt('INSERT OR REPLACE INTO edges (from_id, to_id, kind, provider, confidence, evidence, file_id) VALUES (?, ?, ?, ?, ?, ?, ?)');
    for (const e of edges) ins.run([e.from_id, e.to_id, e.kind, e.provider, e.confidence, e.evidence, e.file_id]);
  }
  removeProviderEdges(provider: string, toIds: string[]): void {
    for (const id of toIds) this.exec('DELETE FROM edges WHERE provider = ? AND to_id = ?', [provider, id]);
  }
  removeProviderEdgesFrom(provider: string, fromId: string, kind: string): void {
    this.exec('DELETE FROM edges WHERE provider = ? AND from_id = ? AND kind = ?', [provider, fromId, kind]);
  }
  removeProviderEdgesOf(provider: string, repoId: string): void {
    this.exec('DELETE FROM edges WHERE provider = ? AND (file_id IS NULL OR file_id IN (SELECT file_id FROM files WHERE repo_id = ?))', [provider, repoId]);
    this.exec("DELETE FROM provider_checks WHERE provider = ? AND symbol_id LIKE ?", [provider, `symbol:${repoId}:%`]);
  }
  providerChecks(symbolIds: string[]): ProviderCheckRow[] {
    return this.inBatches<ProviderCheckRow>(symbolIds, marks => `SELECT * FROM provider_checks WHERE symbol_id IN (${marks})`);
  }
  setProviderCheck(c: ProviderCheckRow): void {
    this.exec(`INSERT INTO provider_checks (symbol_id, provider, file_hash, checked_at, results, complete) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT(symbol_id, provider) DO UPDATE SET file_hash = excluded.file_hash, checked_at = excluded.checked_at, results = excluded.results, complete = excluded.complete`,
    [c.symbol_id, c.provider, c.file_hash, c.checked_at, c.results, c.complete]);
  }
  providerEdgeCount(): number { return this.one<{ n: number }>('SELECT count(*) AS n FROM edges')!.n; }

  private rows<T>(sql: string, params: SqlValue[]): T[] {
    // Variable-arity statements are not cached (their SQL differs per call).
    const st = this.db.prepare(sql);
    try { st.bind(params); return collect<T>(st); } finally { st.free(); }
  }

  /** Raw occurrences of one file (decoded). */
  occurrences(fileId: number, kinds?: ReadonlySet<string>): Occurrence[] {
    const row = this.one<{ data: Uint8Array }>('SELECT data FROM file_occurrences WHERE file_id = ?', [fileId]);
    return row ? decodeOccurrences(row.data, kinds) : [];
  }

}
