/**
 * The one sql.js database handle every store module shares: cached prepared statements, row helpers,
 * transactions. Store modules (files.ts, graph.ts, provider-edges.ts, meta.ts) each own their tables
 * (see tables.ts) and reach SQLite only through this.
 */
import type { Database, SqlJsStatic, Statement, SqlValue } from 'sql.js';
import { PagedBuffer, capacityFor, changeCounter, declaredPageSize, reserved } from './image';
import type { SaveImage } from './pagelog';
import { appendAll } from '../util/arrays';

/**
 * The remaining rows of a statement as objects. Like sql.js's getAsObject, but the column names are read
 * once per statement, not once per row (each name is a call into SQLite and a string decode).
 */
export function collect<T>(s: Statement): T[] {
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

export class Db {
  private stmts = new Map<string, Statement>();
  private readonly openHooks: ((raw: Database) => void)[] = [];
  /** how many times the database moved to a new buffer (a state key must not repeat across moves) */
  rebases = 0;
  /**
   * `backing`: the buffer the database file is a view of (image.ts), while SQLite's writes still land in
   * it; null when unknown or lost (saves then take sql.js's copy).
   */
  constructor(public raw: Database, private backing: PagedBuffer | null, private readonly sql: SqlJsStatic) {}

  /** A database over `image` in a new buffer of ours (its written pages unknown: the first save compares every page). */
  static over(sql: SqlJsStatic, image: Uint8Array, capacity = capacityFor(image.length)): { raw: Database; backing: PagedBuffer } {
    const backing = new PagedBuffer(reserved(image, capacity), declaredPageSize(image) || 4096, false);
    return { raw: new sql.Database(backing.file), backing };
  }

  /** Runs `fn` on the connection now and on every connection after a move (custom SQL functions). */
  onOpen(fn: (raw: Database) => void): void { this.openHooks.push(fn); fn(this.raw); }

  /** The database's size in bytes (its pages, not the file's, which has room beyond them). */
  pageBytes(): number {
    const r = this.raw.exec('PRAGMA page_count; PRAGMA page_size');
    return Number(r[0]!.values[0]![0]) * Number(r[1]!.values[0]![0]);
  }

  /** The buffer's size, null when the database is not (or no longer known to be) in a buffer of ours. */
  get capacity(): number | null { return this.backing?.buf.length ?? null; }

  /**
   * Commits `write` (one write transaction) and returns the database image as a view of the buffer when
   * that commit is seen in it (SQLite advanced the change counter there): the buffer is still the file.
   * Null otherwise (the file system let go of the buffer; from now on the store's saves take copies until
   * it moves to a new buffer).
   */
  commitAndView(write: () => void): SaveImage | null {
    const b = this.backing;
    const before = b ? changeCounter(b.buf) : 0;
    write();
    if (!b) return null;
    const size = this.pageBytes();
    if (changeCounter(b.buf) !== ((before + 1) >>> 0) || size > b.buf.length) { this.letGo(); return null; }
    return { bytes: b.buf.subarray(0, size), written: b.writtenPages(), load: (start, end) => b.load(start, end) };
  }

  /** The image handed out last was persisted: nothing is written since. */
  saved(): void { this.backing?.saved(); }

  private letGo(): void { this.backing?.lost(); this.backing?.release(); this.backing = null; }

  /**
   * Serves the database from a new buffer holding `image` (sql.js's copy of it, the buffer being let go).
   * Cached statements are dropped and custom functions registered again; callers must not be inside a
   * transaction or an open statement.
   */
  rebase(image: Uint8Array): void {
    this.reopen(() => Db.over(this.sql, image));
  }

  /** Moves the database (`size` bytes, its buffer still the file) to a buffer of `capacity` bytes, keeping what it knows of written pages. */
  move(size: number, capacity = capacityFor(size)): void {
    const b = this.backing;
    if (!b) return;
    const next = b.moved(size, capacity);
    this.reopen(() => ({ raw: new this.sql.Database(next.file), backing: next }));
  }

  private reopen(open: () => { raw: Database; backing: PagedBuffer }): void {
    this.freeStatements();
    this.raw.close(); // the old file is removed from the file system; its buffer stays ours
    this.backing?.release();
    const { raw, backing } = open();
    this.raw = raw; this.backing = backing;
    this.rebases++;
    for (const fn of this.openHooks) fn(this.raw);
  }

  /** Drops the cached statements (sql.js export() frees them). */
  freeStatements(): void {
    for (const s of this.stmts.values()) s.free();
    this.stmts.clear();
  }

  close(): void { this.freeStatements(); this.raw.close(); this.backing?.release(); this.backing = null; }

  export(): Uint8Array { this.freeStatements(); return this.raw.export(); }

  stmt(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) { s = this.raw.prepare(sql); this.stmts.set(sql, s); }
    return s;
  }

  all<T>(sql: string, params: SqlValue[] = []): T[] {
    const s = this.stmt(sql);
    s.bind(params);
    try { return collect<T>(s); } finally { s.reset(); }
  }

  one<T>(sql: string, params: SqlValue[] = []): T | undefined {
    const s = this.stmt(sql);
    s.bind(params);
    try { return s.step() ? (s.getAsObject() as T) : undefined; } finally { s.reset(); }
  }

  exec(sql: string, params: SqlValue[] = []): void {
    this.stmt(sql).run(params);
  }

  /** Runs SQL text (several statements allowed, no parameters, not cached). */
  run(sql: string): void { this.raw.run(sql); }

  /** Variable-arity statements are not cached (their SQL differs per call). */
  rows<T>(sql: string, params: SqlValue[]): T[] {
    const st = this.raw.prepare(sql);
    try { st.bind(params); return collect<T>(st); } finally { st.free(); }
  }

  /** Runs a query whose `IN (…)` list is `values`, in batches that stay under SQLite's parameter limit. */
  inBatches<T>(values: readonly SqlValue[], sql: (marks: string) => string, after: SqlValue[] = []): T[] {
    const out: T[] = [];
    for (let i = 0; i < values.length; i += 300) {
      const part = values.slice(i, i + 300);
      appendAll(out, this.rows<T>(sql(part.map(() => '?').join(',')), [...part, ...after]));
    }
    return out;
  }

  count(sql: string, params: SqlValue[] = []): number { return this.one<{ n: number }>(sql, params)!.n; }

  transaction<T>(fn: () => T): T {
    this.raw.run('BEGIN');
    try { const r = fn(); this.raw.run('COMMIT'); return r; } catch (e) { this.raw.run('ROLLBACK'); throw e; }
  }
}
