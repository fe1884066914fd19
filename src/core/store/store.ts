/**
 * The index file's database: opening and checking it, and the store modules over it, one per concept
 * (each owns its tables, listed in tables.ts):
 *
 *   meta            meta rows, repositories, diagnostics                       (meta.ts)
 *   files           files, chunks, full-text index, occurrences                (files.ts)
 *   symbols         definitions as graph nodes                                 (symbols.ts)
 *   graph           heuristic edges, unbound calls, the graph-pending mark     (graph.ts)
 *   providerEdges   every other provider's edges and checks                    (provider-edges.ts)
 *   history         git commits, churn, co-change, symbol commits per repository (history.ts)
 *   shapes          MinHash signatures of chunks, for find_similar             (shapes.ts)
 *
 * The whole database lives in memory (sql.js) and is written to disk atomically by the index file
 * (indexfile.ts) after each indexing run; the schema is versioned. The index is a cache: nothing here
 * may be the only copy of something a user wrote (that goes to the durable store, durable/).
 */
import initSqlJs, { type Database, type SqlJsStatic } from 'sql.js';
import { initPageLog, readImage, type DiskImage, type SaveImage } from './pagelog';
import { assetPath } from '../assets';
import { SCHEMA_SQL, SCHEMA_VERSION } from './schema';
import { Db } from './db';
import { FULL_SHARE, MAX_CAPACITY, MIN_CAPACITY, capacityFor, type PagedBuffer } from './image';
import { MetaTables } from './meta';
import { FileTables, type FtsCandidates } from './files';
import { SymbolTables } from './symbols';
import { GraphTables } from './graph';
import { ProviderEdgeTables } from './provider-edges';
import { HistoryTables } from './history';
import { LinkTables } from './links';
import { ShapeTables } from './shapes';
import { TABLES } from './tables';
import type { ChunkRow } from './rows';

export type {
  RepoRow, FileMeta, FileRow, ChunkRow, NewChunk, NewSymbol, NewEdge, Diagnostic, FileContent,
  GraphEdgeRow, ProviderEdgeRow, ProviderCheckRow, NodeRow,
} from './rows';
export type { ChunkSpan } from './chunks';

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

export interface OpenOptions {
  /** an index file at least this large is read as SQLite asks for its pages (default LAZY_MIN_BYTES, image.ts) */
  lazyMinBytes?: number;
}

export class Store {
  private readonly db: Db;
  readonly meta: MetaTables;
  readonly files: FileTables;
  readonly symbols: SymbolTables;
  readonly graph: GraphTables;
  readonly providerEdges: ProviderEdgeTables;
  readonly history: HistoryTables;
  readonly links: LinkTables;
  readonly shapes: ShapeTables;

  private constructor(raw: Database, backing: PagedBuffer | null, SQL: SqlJsStatic) {
    const db = this.db = new Db(raw, backing, SQL);
    this.meta = new MetaTables(db);
    this.providerEdges = new ProviderEdgeTables(db);
    this.files = new FileTables(db, {
      deleteContent: (fileId, keepSymbols, rewrite) => { for (const t of TABLES) if (!(rewrite && t.replacedByOwner)) t.deleteFile?.(db, fileId, keepSymbols); },
      insertFileEdges: (fileId, edges) => this.providerEdges.insertFileEdges(fileId, edges),
    });
    this.symbols = new SymbolTables(db);
    this.graph = new GraphTables(db, this.meta);
    this.history = new HistoryTables(db);
    this.links = new LinkTables(db);
    this.shapes = new ShapeTables(db);
  }

  /**
   * Opens an index file (or an empty index). A Sightline index of another schema version yields an empty
   * index (`rebuilt`); a file that is not a readable Sightline index — not SQLite, another application's
   * database, truncated — is reported as `problem` (with an empty index; the engine decides whether to
   * serve it or refuse the file). A missing or zero-byte file is no index yet.
   */
  static async open(path: string | null, opts: OpenOptions = {}): Promise<{ store: Store; rebuilt: boolean; problem: IndexFileProblem | null; image: DiskImage | null }> {
    const SQL = await sqlJs();
    await initPageLog();
    // read into a buffer with room to grow: the database file is a view of it (image.ts); a large index is
    // read as SQLite asks for its pages
    const image = path ? readImage(path, capacityFor, { lazy: true, lazyMinBytes: opts.lazyMinBytes }) : null;
    if (image?.bytes) return { ...Store.fromImage(SQL, image.bytes, image.paged), image };
    return { store: Store.fresh(SQL), rebuilt: false, problem: null, image };
  }

  /** A store over an SQLite file image held in memory (an imported index, say), checked as `open` checks a file. */
  static async fromBytes(bytes: Uint8Array): Promise<{ store: Store; rebuilt: boolean; problem: IndexFileProblem | null }> {
    return Store.fromImage(await sqlJs(), bytes, null);
  }

  /** `paged`: the buffer of ours `bytes` starts (read from the index file), else `bytes` is copied into one. */
  private static fromImage(SQL: SqlJsStatic, bytes: Uint8Array, paged: PagedBuffer | null): { store: Store; rebuilt: boolean; problem: IndexFileProblem | null } {
    if (bytes.length === 0) { paged?.release(); return { store: Store.fresh(SQL), rebuilt: false, problem: null }; }
    let problem = checkHeader(bytes);
    if (!problem) {
      let db: Database | undefined;
      let buf: PagedBuffer | undefined;
      try {
        if (paged) { buf = paged; db = new SQL.Database(paged.file); }
        else ({ raw: db, backing: buf } = Db.over(SQL, bytes));
        const appId = Number(db.exec('PRAGMA application_id')[0]?.values[0]?.[0] ?? 0);
        const tables = new Set((db.exec("SELECT name FROM sqlite_master WHERE type = 'table'")[0]?.values ?? []).map(r => String(r[0])));
        const ours = appId === APPLICATION_ID || (appId === 0 && SIGHTLINE_TABLES.every(t => tables.has(t)));
        const version = ours ? Store.readVersion(db) : null;
        if (!ours) problem = { kind: 'foreign', reason: appId ? `an SQLite database of another application (application_id ${appId})` : 'an SQLite database without the tables of a Sightline index' };
        else if (version === null) problem = { kind: 'foreign', reason: 'an SQLite database without a Sightline schema version' };
        else if (version === SCHEMA_VERSION) {
          // a first read of the main tables: a damaged file fails here rather than on a later query
          for (const t of ['files', 'chunks', 'repos']) db.exec(`SELECT 1 FROM ${t} LIMIT 1`);
          return { store: new Store(db, buf, SQL), rebuilt: false, problem: null };
        }
        db.close(); db = undefined; buf.release();
        if (!problem) return { store: Store.fresh(SQL), rebuilt: true, problem: null }; // another schema version
      } catch (e) {
        try { db?.close(); } catch { /* already closed */ }
        buf?.release();
        problem = { kind: 'corrupt', reason: `SQLite cannot read it (${(e as Error).message})` };
      }
    }
    paged?.release();
    return { store: Store.fresh(SQL), rebuilt: true, problem };
  }

  /** An empty index: the schema is made in a scratch database, whose image then starts a buffer of ours. */
  private static fresh(SQL: SqlJsStatic): Store {
    const scratch = new SQL.Database();
    let image: Uint8Array;
    try {
      scratch.run(`PRAGMA application_id = ${APPLICATION_ID}`);
      scratch.run(SCHEMA_SQL);
      scratch.run('INSERT INTO meta (key, value) VALUES (?, ?)', ['schema_version', String(SCHEMA_VERSION)]);
      image = scratch.export();
    } finally { scratch.close(); }
    const { raw, backing } = Db.over(SQL, image, MIN_CAPACITY);
    return new Store(raw, backing, SQL);
  }

  private static readVersion(db: Database): number | null {
    try {
      const r = db.exec("SELECT value FROM meta WHERE key = 'schema_version'");
      return r.length ? Number(r[0]!.values[0]![0]) : null;
    } catch { return null; }
  }

  close(): void { this.db.close(); }

  /** The whole database as an SQLite file image (a copy; drops cached statements: sql.js frees them). */
  export(): Uint8Array { return this.db.export(); }

  /** How the last `imageForSave` got its image: a view of the buffer, or sql.js's copy. */
  lastImage: 'view' | 'copy' | null = null;

  /**
   * Records the save time and returns the database image to persist: a view of the buffer the database
   * lives in (no copy), or, when that buffer is no longer the file (image.ts), sql.js's copy, after which
   * the database moves to a new buffer of ours. Valid until the next write.
   */
  imageForSave(savedAt: string): SaveImage {
    const view = this.db.commitAndView(() => this.meta.setMeta('saved_at', savedAt));
    if (view) { this.lastImage = 'view'; return view; }
    this.lastImage = 'copy';
    const bytes = this.db.export();
    this.db.rebase(bytes);
    return { bytes, written: null, load: () => undefined };
  }

  /** The image `imageForSave` gave was persisted (what was written before it is saved). */
  imageSaved(): void { this.db.saved(); }

  /**
   * Moves the database to a buffer twice its size when it fills FULL_SHARE of its own (one copy, between
   * writes: never inside a transaction), so that it keeps growing inside a buffer of ours.
   */
  keepRoom(): void {
    const cap = this.db.capacity;
    if (cap === null || cap >= MAX_CAPACITY) return;
    const size = this.db.pageBytes();
    if (size <= FULL_SHARE * cap) return;
    const view = this.db.commitAndView(() => this.meta.setMeta('moved_at', String(Date.now())));
    if (view) this.db.move(view.bytes.length);
  }

  transaction<T>(fn: () => T): T { return this.db.transaction(fn); }

  /**
   * Which state of the index this is, for caches derived from it (the overview's ranks): the last save's
   * time, the moves to a new buffer, and the rows changed since (SQLite's total_changes(), which a move
   * resets; the save sets saved_at first, so two states never share a key). Another store object
   * (a reload) is another state whatever its key.
   */
  generation(): string {
    return `${this.meta.getMeta('saved_at') ?? '-'}:${this.db.rebases}:${this.db.count('SELECT total_changes() AS n')}`;
  }

  /**
   * Deletes everything stored for a repository (a forced rebuild starts here), walking the table
   * registry (tables.ts): file rows table by table, then the rows keyed by repository.
   */
  deleteRepo(repoId: string): void {
    const onlyRepo = !this.files.othersHaveFiles(repoId);
    this.files.invalidate();
    if (onlyRepo) {
      // The only repository (a forced rebuild of a one-folder workspace): empty the tables at once and
      // reset the full-text index, instead of deleting every chunk's terms one by one.
      for (let i = TABLES.length - 1; i >= 0; i--) TABLES[i]!.clear?.(this.db);
    } else for (const fileId of this.files.filesOfRepo(repoId)) this.files.deleteFile(fileId);
    for (const t of TABLES) t.deleteRepo?.(this.db, repoId, onlyRepo);
  }

  /** Row counts of one repository (or all): files, chunks, definitions, edges, occurrences. */
  counts(repoId?: string): { files: number; chunks: number; symbols: number; edges: number; occurrences: number } {
    const c = this.files.counts(repoId);
    // defines edges are implicit: one per symbol (from its parent definition or its file)
    return { files: c.files, chunks: c.chunks, symbols: c.symbols,
      edges: this.providerEdges.edgeCountWithFiles(repoId) + c.symbols + this.graph.graphEdgeCount(repoId), occurrences: c.occurrences };
  }

  /**
   * Rewrites every occurrence of each `from` string as its `to` in the text columns of every registered
   * table (ids embed the repo_id, a few rows name the root): how an index moves between folders
   * (services/portable.ts). The strings must be distinctive (a root path, a repo_id, a placeholder).
   * `all`: every text column, also those a table declares `localText` (code snippets may name anything).
   */
  relocate(pairs: readonly (readonly [string, string])[], all = true): number {
    let changed = 0;
    if (!pairs.length) return 0;
    this.db.transaction(() => {
      for (const t of TABLES) {
        const cols = this.db.rows<{ name: string; type: string }>(`PRAGMA table_info(${t.name})`, [])
          .filter(c => /TEXT/i.test(c.type) && (all || !t.localText?.includes(c.name)));
        for (const { name: c } of cols) {
          // one pass over the column for all pairs (one statement per column: SQLite rewrites only the rows that match)
          const expr = pairs.reduce((e: string) => `replace(${e}, ?, ?)`, c);
          const where = pairs.map(() => `instr(${c}, ?) > 0`).join(' OR ');
          this.db.raw.run(`UPDATE ${t.name} SET ${c} = ${expr} WHERE ${where}`, [...pairs.flatMap(([f, to]) => [f, to]), ...pairs.map(([f]) => f)]);
          changed += this.db.raw.getRowsModified();
        }
      }
    });
    return changed;
  }

  /** Rewrites the database compactly (no free pages keep deleted rows). */
  vacuum(): void { this.db.freeStatements(); this.db.run('VACUUM'); } // may truncate the file: the next save copies

  /** Names of the tables (not views, not SQLite's own) in this database: the registry test reads them. */
  tableNames(): string[] {
    return this.db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map(r => r.name);
  }
}
