/**
 * Code shapes for find_similar: per file, one blob of its chunks' MinHash signatures (see
 * similar/shape.ts: entries of chunk ord, distinct shingle count and signature). Written with the file
 * (FileTables.writeFile, from what the parser worker computed), deleted with it: a file that did not
 * change keeps its row, so nothing is recomputed for it.
 */
import type { Db } from './db';
import type { TableSpec } from './tables';

export const SHAPE_TABLES: TableSpec[] = [
  { name: 'chunk_shapes', owner: 'shapes', deleteFile: (db, fileId) => db.exec('DELETE FROM chunk_shapes WHERE file_id = ?', [fileId]), clear: db => db.run('DELETE FROM chunk_shapes') },
];

/** Stores a file's packed signatures (inside writeFile's transaction). */
export function writeShapes(db: Db, fileId: number, data: Uint8Array | null | undefined): void {
  if (data?.byteLength) db.stmt('INSERT INTO chunk_shapes (file_id, data) VALUES (?, ?)').run([fileId, data]);
}

export interface ShapeFileRow { file_id: number; repo_id: string; path: string; language: string; data: Uint8Array }

export class ShapeTables {
  constructor(private readonly db: Db) {}

  /** Every file's blob with its identity, in file order. */
  allShapes(): ShapeFileRow[] {
    return this.db.all<ShapeFileRow>('SELECT s.file_id AS file_id, f.repo_id AS repo_id, f.path AS path, f.language AS language, s.data AS data FROM chunk_shapes s JOIN files f USING (file_id) ORDER BY s.file_id');
  }

  /** Chunk rowids by (file_id, ord), as `file_id:ord`-keyed lookups: every chunk of the index. */
  chunkOrds(): Map<number, Int32Array> {
    const m = new Map<number, number[]>();
    const s = this.db.stmt('SELECT file_id, ord, rowid FROM chunks ORDER BY file_id, ord');
    try {
      while (s.step()) {
        const r = s.get() as number[];
        let l = m.get(r[0]!); if (!l) m.set(r[0]!, l = []);
        l[r[1]!] = r[2]!;
      }
    } finally { s.reset(); }
    return new Map([...m].map(([k, v]) => [k, Int32Array.from(v, x => x ?? 0)]));
  }

  /** The chunks of a file (key and range), for rebuilding each chunk's own lines. */
  fileChunks(fileId: number): { rowid: number; key: string; start_line: number; end_line: number }[] {
    return this.db.all('SELECT rowid, key, start_line, end_line FROM chunks WHERE file_id = ? ORDER BY ord', [fileId]);
  }

  /** Size of the stored signatures, in bytes. */
  bytes(): number { return this.db.one<{ n: number | null }>('SELECT sum(length(data)) AS n FROM chunk_shapes')?.n ?? 0; }

  /** A cheap change mark of the database: total changes on this connection. */
  changeMark(): number { return this.db.one<{ n: number }>('SELECT total_changes() AS n')!.n; }
}
