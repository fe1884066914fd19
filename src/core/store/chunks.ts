/**
 * Writing a file's chunks (FileTables.writeFile, inside its transaction): the chunk rows, their full-text
 * terms (FTS4, external content: the token text lives in file_text) and the token text.
 */
import type { Db } from './db';
import type { FileContent } from './rows';

/**
 * A file's chunks, their full-text terms and token text. A file written before keeps each chunk whose key
 * and token text are unchanged (its row is updated: lines, order, vector; its terms stay in the full-text
 * index): an edit of one function rewrites that function's terms, not the file's. FTS4 reads a removed
 * chunk's text back through the view to delete its terms, so removals go first, while the old text is there.
 */
export function writeChunks(db: Db, fileId: number, f: FileContent, rewrite: boolean, invalidate: () => void): void {
  const kept = new Map<number, number>(); // new ord -> kept rowid
  if (rewrite) {
    const old = db.all<{ rowid: number; key: string; path: string; name: string; body: string }>(
      'SELECT rowid, key, fts_text(file_id, 0) AS path, fts_text(file_id, 1 + 2 * ord) AS name, fts_text(file_id, 2 + 2 * ord) AS body FROM chunks WHERE file_id = ? ORDER BY ord', [fileId]);
    const byKey = new Map<string, { rowid: number; name: string; body: string }[]>();
    if (old.length && old[0]!.path === f.fts_path) for (const o of old) { const l = byKey.get(o.key); if (l) l.push(o); else byKey.set(o.key, [o]); }
    f.chunks.forEach((c, ord) => {
      const l = byKey.get(c.key);
      const i = l ? l.findIndex(o => o.name === c.fts_name && o.body === c.fts_body) : -1;
      if (i >= 0) { kept.set(ord, l![i]!.rowid); l!.splice(i, 1); }
    });
    const keptIds = new Set(kept.values());
    const gone = old.filter(o => !keptIds.has(o.rowid)).map(o => o.rowid);
    if (gone.length) {
      const list = JSON.stringify(gone);
      db.exec('DELETE FROM chunks_fts WHERE docid IN (SELECT value FROM json_each(?))', [list]);
      db.exec('DELETE FROM chunks WHERE rowid IN (SELECT value FROM json_each(?))', [list]);
    }
    db.exec('DELETE FROM file_text WHERE file_id = ?', [fileId]);
    invalidate(); // the text read above is replaced below
  }
  const vec = (c: FileContent['chunks'][number]) => (c.vec ? new Uint8Array(c.vec.buffer, c.vec.byteOffset, c.vec.byteLength) : null);
  const insChunk = db.stmt(`INSERT INTO chunks (key, file_id, symbol_path, kind, start_line, end_line, est_tokens, head, vec, ord)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const updChunk = db.stmt('UPDATE chunks SET symbol_path = ?, kind = ?, start_line = ?, end_line = ?, est_tokens = ?, head = ?, vec = ?, ord = ? WHERE rowid = ?');
  const insFts = db.stmt('INSERT INTO chunks_fts (docid, name, path, body) VALUES (last_insert_rowid(), ?, ?, ?)');
  f.chunks.forEach((c, ord) => {
    const rowid = kept.get(ord);
    if (rowid !== undefined) { updChunk.run([c.symbol_path, c.kind, c.start_line, c.end_line, c.est_tokens, c.head, vec(c), ord, rowid]); return; }
    insChunk.run([c.key, fileId, c.symbol_path, c.kind, c.start_line, c.end_line, c.est_tokens, c.head, vec(c), ord]);
    insFts.run([c.fts_name, f.fts_path, c.fts_body]);
  });
  if (f.chunks.length) db.stmt('INSERT INTO file_text (file_id, data) VALUES (?, ?)').run([fileId, f.fts_text]);
}

/** A chunk's order and lines in its file: its tokens are `FileTables.tokenText(fileId)[2 + 2 * ord]`. */
export interface ChunkSpan { ord: number; start_line: number; end_line: number }
export function chunkSpans(db: Db, fileId: number): ChunkSpan[] {
  return db.all<ChunkSpan>('SELECT ord, start_line, end_line FROM chunks WHERE file_id = ? ORDER BY ord', [fileId]);
}
