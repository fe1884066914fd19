/**
 * The one sql.js database handle every store module shares: cached prepared statements, row helpers,
 * transactions. Store modules (files.ts, graph.ts, provider-edges.ts, meta.ts) each own their tables
 * (see tables.ts) and reach SQLite only through this.
 */
import type { Database, Statement, SqlValue } from 'sql.js';

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
  constructor(readonly raw: Database) {}

  /** Drops the cached statements (sql.js export() frees them). */
  freeStatements(): void {
    for (const s of this.stmts.values()) s.free();
    this.stmts.clear();
  }

  close(): void { this.freeStatements(); this.raw.close(); }

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
      out.push(...this.rows<T>(sql(part.map(() => '?').join(',')), [...part, ...after]));
    }
    return out;
  }

  count(sql: string, params: SqlValue[] = []): number { return this.one<{ n: number }>(sql, params)!.n; }

  transaction<T>(fn: () => T): T {
    this.raw.run('BEGIN');
    try { const r = fn(); this.raw.run('COMMIT'); return r; } catch (e) { this.raw.run('ROLLBACK'); throw e; }
  }
}
