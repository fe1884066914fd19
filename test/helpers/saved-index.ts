/** Reads an index file as saved on disk, with sql.js and nothing of the engine (what another process would see). */
import { readFileSync } from 'node:fs';
import initSqlJs, { type Database } from 'sql.js';

export async function readSavedIndex<T>(dbPath: string, read: (db: Database) => T): Promise<T> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(dbPath));
  try { return read(db); } finally { db.close(); }
}
