/**
 * Reads an index file as saved on disk (the snapshot with its change log replayed, as the next process to
 * open it would), with sql.js and nothing else of the engine.
 */
import initSqlJs, { type Database } from 'sql.js';
import { initPageLog, readImage } from '../../src/core/store/pagelog';
import { unpackFtsText } from '../../src/core/store/ftstext';

export async function readSavedIndex<T>(dbPath: string, read: (db: Database) => T): Promise<T> {
  const SQL = await initSqlJs();
  await initPageLog();
  const db = new SQL.Database(readImage(dbPath).bytes ?? undefined);
  try { return read(db); } finally { db.close(); }
}

/** Reads a saved index with sql.js: FTS4's own integrity check and its statistics (row count, average column lengths). */
export async function ftsState(db: string, term = 'src'): Promise<{ integrity: string; stats: number[]; docs: number }> {
  return readSavedIndex(db, d => {
    d.create_function('fts_text', (fileId: number, i: number) => {
      const data = d.exec('SELECT data FROM file_text WHERE file_id = ?', [fileId])[0]?.values[0]?.[0] as Uint8Array | undefined;
      return data ? unpackFtsText(data)[i] ?? '' : '';
    });
    let integrity = 'ok';
    try { d.run("INSERT INTO chunks_fts (chunks_fts) VALUES ('integrity-check')"); } catch (err) { integrity = String(err); }
    const mi = d.exec("SELECT matchinfo(chunks_fts, 'na') FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 1", [term])[0]!.values[0]![0] as Uint8Array;
    const stats = [...new Uint32Array(mi.buffer, mi.byteOffset, mi.byteLength / 4)];
    const docs = d.exec('SELECT count(*) FROM chunks')[0]!.values[0]![0] as number;
    return { integrity, stats, docs };
  });
}

/** A saved index's chunk rows by file path and order, without row ids (what a fresh index of the same tree must equal). */
export async function chunkRows(db: string): Promise<string[]> {
  return readSavedIndex(db, d => (d.exec(`SELECT f.path, c.ord, c.key, c.symbol_path, c.kind, c.start_line, c.end_line, c.est_tokens, c.head, hex(c.vec)
    FROM chunks c JOIN files f USING (file_id) ORDER BY f.path, c.ord`)[0]?.values ?? []).map(r => JSON.stringify(r)));
}
