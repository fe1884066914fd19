/**
 * The code files' share of the search statistics. When text files are pushed down (the query does not ask
 * about docs or configuration), code is ranked on statistics of code alone — document frequencies, the
 * number of chunks, files and lines, average column lengths — so that indexing docs and configuration
 * changes no code file's score against another's: text files only come in below and among them.
 */
import { isTextFormatId } from '../languages/text';
import type { FileIndex } from './files';

export interface CodeStats {
  /** per file id: 1 for a text file */
  text_file: Uint8Array;
  files: number;
  lines: number;
  chunks: number;
  /** per full-text column, the average length of a code chunk in whole tokens, as the full-text table
   * gives its own; null when the index has no length table */
  avg: Uint32Array | null;
}

const cache = new WeakMap<FileIndex, CodeStats | null>();

/** The code part of a file table, derived once per table; null when it has no text file (nothing to leave out). */
export function codeStats(fi: FileIndex, columns: number): CodeStats | null {
  if (cache.has(fi)) return cache.get(fi)!;
  let maxId = 0;
  for (const id of fi.files.keys()) if (id > maxId) maxId = id;
  const textFile = new Uint8Array(maxId + 1);
  let files = 0, lines = 0, texts = 0;
  for (const [id, f] of fi.files) {
    if (isTextFormatId(f.language)) { textFile[id] = 1; texts++; } else { files++; lines += f.line_count; }
  }
  let stats: CodeStats | null = null;
  if (texts) {
    const lengths = fi.chunk_lengths?.() ?? null;
    const sums = new Float64Array(columns);
    let chunks = 0;
    for (let rowid = 0; rowid < fi.chunk_file.length; rowid++) {
      const id = fi.chunk_file[rowid]!;
      if (!id || textFile[id]) continue;
      chunks++;
      if (lengths) for (let j = 0; j < columns; j++) sums[j] = sums[j]! + (lengths[rowid * columns + j] ?? 0);
    }
    // rounded as SQLite's FTS4 rounds its own ('a' of matchinfo: (tokens + rows / 2) / rows, in integers)
    const avg = lengths && chunks ? Uint32Array.from(sums, s => Math.floor((s + Math.floor(chunks / 2)) / chunks)) : null;
    stats = { text_file: textFile, files, lines, chunks, avg };
  }
  cache.set(fi, stats);
  return stats;
}
