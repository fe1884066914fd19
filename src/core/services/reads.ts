/**
 * Read services for search and chunks: search_code, vector_search, get_chunk (the file read now, under
 * the walk's containment rules) and what search caches of the index (vectors, the file table) until
 * the next write or reload.
 */
import picomatch from 'picomatch';
import { realpathSync } from 'node:fs';
import { searchCode, vectorSearch, type SearchFilter, type SearchPage, type VectorIndex, type CodeSearchPage } from '../search/search';
import { HASH_VECTOR_DIMS } from '../search/hashvec';
import { passes, type FileIndex } from '../search/files';
import type { IndexFile } from '../indexfile';
import type { Workspace } from '../workspace';
import type { IndexSettings } from '../settings';
import type { ChunkRow } from '../store/store';
import { FTS_COLUMNS } from '../store/files';
import { SightlineError } from '../errors';
import { readContainedSync } from '../util/contained';
import { sha1 } from '../util/hash';
import { chunkIdOfSymbolId } from '../util/ids';

export interface ChunkText {
  chunk_id: string; repo_id: string; path: string; language: string; start_line: number; end_line: number;
  symbol_path: string | null; kind: string; text: string; stale: boolean; file_hash: string;
}

/** A search whose answer is thrown away (a live engine's preparation): common words, so it reads the usual paths. */
export const WARM_QUERY: SearchRequest = { query: 'return value error handler', limit: 3, offset: 0, vector: false };

export interface SearchRequest {
  query: string; limit: number; offset: number; vector: boolean; repo?: string; language?: string; file_kind?: string;
  group?: 'file' | 'chunk'; include_tests?: boolean; path?: string; chunks_per_file?: number;
}

export class ReadService {
  private vectorCache: VectorIndex | null = null;
  private fileIndexCache: FileIndex | null = null;
  private lengthsCache: Uint32Array | null = null;

  constructor(private readonly file: IndexFile, private readonly workspace: Workspace, private readonly settings: IndexSettings) {}

  /**
   * What search cached of the index is stale: after a reload all of it; after a write, with `fileIds`, only
   * those files' rows — the file table is patched in place (a one-file edit in a large index then costs that
   * file, not a re-read of every chunk's file), and the vectors are read again when a vector search asks.
   */
  invalidate(fileIds?: readonly number[]): void {
    this.vectorCache = null;
    const c = this.fileIndexCache;
    if (!fileIds || !c) { this.fileIndexCache = null; this.lengthsCache = null; return; }
    if (!fileIds.length) return;
    if (this.lengthsCache) {
      let len = this.lengthsCache;
      const pairs = this.file.store.files.chunkLengths(fileIds);
      const need = (pairs.reduce((m, [rowid]) => Math.max(m, rowid), 0) + 1) * FTS_COLUMNS;
      if (need > len.length) { const grown = new Uint32Array(Math.max(need, Math.ceil(len.length * 1.25))); grown.set(len); len = grown; }
      for (const [rowid, l] of pairs) len.set(l, rowid * FTS_COLUMNS);
      this.lengthsCache = len;
    }
    const rows = this.file.store.files.fileTable(fileIds);
    let total = c.total_lines;
    for (const id of fileIds) {
      total -= c.files.get(id)?.line_count ?? 0;
      c.files.delete(id);
      const row = rows.get(id);
      if (row) { c.files.set(id, row); total += row.line_count; }
    }
    const mark = new Uint8Array(fileIds.reduce((m, id) => Math.max(m, id), 0) + 1); // a bitmap: the scan is a typed-array pass
    for (const id of fileIds) mark[id] = 1;
    let chunkFile = c.chunk_file;
    for (let i = 0; i < chunkFile.length; i++) { const f = chunkFile[i]!; if (f < mark.length && mark[f]) chunkFile[i] = 0; }
    const chunks = this.file.store.files.chunkFiles(fileIds);
    const max = chunks.reduce((m, [rowid]) => Math.max(m, rowid), 0);
    if (max >= chunkFile.length) { const grown = new Int32Array(Math.max(max + 1, Math.ceil(chunkFile.length * 1.25))); grown.set(chunkFile); chunkFile = grown; }
    for (const [rowid, fileId] of chunks) chunkFile[rowid] = fileId;
    // a new object: what search derives from the table (its basename index) is derived again
    this.fileIndexCache = { files: c.files, total_lines: total, chunk_file: chunkFile, chunk_lengths: this.lengths };
  }

  /** every chunk's full-text column lengths, read once and then patched like the file table */
  private lengths = (): Uint32Array => (this.lengthsCache ??= this.file.store.files.chunkLengths());

  private vectors = (): VectorIndex => {
    if (!this.vectorCache) this.vectorCache = { ...this.file.store.files.allVectors(HASH_VECTOR_DIMS), fileMeta: this.file.store.files.fileLanguages() };
    return this.vectorCache;
  };

  private fileIndex = (): FileIndex => {
    if (!this.fileIndexCache) {
      const files = this.file.store.files.fileTable();
      let total = 0; for (const f of files.values()) total += f.line_count;
      this.fileIndexCache = { files, total_lines: total, chunk_file: this.file.store.files.chunkFileTable(), chunk_lengths: this.lengths };
    }
    return this.fileIndexCache;
  };

  private filter(repo?: string, language?: string, fileKind?: string): SearchFilter {
    const root = this.workspace.resolveRepo(repo);
    return { ...(root ? { repo_id: root.repo_id } : {}), ...(language ? { language } : {}), ...(fileKind ? { file_kind: fileKind } : {}) };
  }

  async search(q: SearchRequest): Promise<CodeSearchPage> {
    await this.file.refresh();
    const filter = this.filter(q.repo, q.language, q.file_kind);
    const pathGlob = q.path === undefined ? undefined : this.workspace.relativeGlob(q.path);
    const page = searchCode(this.file.store, this.vectors, this.fileIndex, q.query, { limit: q.limit, offset: q.offset, vector: q.vector, filter,
      group: q.group ?? 'chunk', include_tests: q.include_tests ?? true, path_glob: pathGlob, chunks_per_file: q.chunks_per_file ?? 3 });
    if (pathGlob === undefined || page.total > 0) return page;
    // nothing found under a path: say whether the path keeps any file at all
    const keep = picomatch(pathGlob, { dot: true });
    let path_matches = 0;
    for (const f of this.fileIndex().files.values()) {
      if (passes(filter, f) && keep(f.path)) path_matches++;
    }
    return { ...page, path_matches };
  }

  async vectorSearch(q: { query: string; limit: number; offset: number; repo?: string; language?: string }): Promise<SearchPage> {
    await this.file.refresh();
    return vectorSearch(this.file.store, this.vectors, q.query, { limit: q.limit, offset: q.offset, filter: this.filter(q.repo, q.language) });
  }

  /** The stored row of a chunk id (no file read). */
  async getChunkRow(id: string): Promise<ChunkRow | undefined> { await this.file.refresh(); return this.file.store.files.chunkById(id); }

  /** Exact source text of a chunk, read from the file; `stale` when the file changed since it was indexed. */
  async getChunk(chunkIdArg: string): Promise<ChunkText> {
    await this.file.refresh();
    // A symbol id names the definition's (first) chunk.
    const row = this.file.store.files.chunkById(chunkIdOfSymbolId(chunkIdArg));
    if (!row) throw new SightlineError('not_found', `no chunk with id ${chunkIdArg}; use search_code to find chunk ids`);
    const root = this.workspace.byId(row.repo_id);
    const repoRow = root ? undefined : this.file.store.meta.repo(row.repo_id);
    const base = root?.root ?? repoRow?.root;
    if (!base) throw new SightlineError('not_found', `chunk ${chunkIdArg} belongs to repository ${row.repo_id}, which is not part of this workspace`);
    // The file is read now, under the walk's containment rules: it may have become a link out of the
    // root since it was indexed.
    let baseReal: string;
    try { baseReal = realpathSync(base); } catch { throw new SightlineError('not_found', `the root ${base} of ${row.path} is no longer readable; run index_repo to refresh the index`); }
    const read = readContainedSync(baseReal, row.path, this.settings.max_file_bytes);
    if (!read.ok) {
      if (read.code === 'outside_workspace') {
        throw new SightlineError('path_outside_workspace', `${row.path} now resolves outside the workspace root ${baseReal} (it became a symlink leading out after it was indexed); it was not read. Run index_repo to refresh the index`, { repo_id: row.repo_id, path: row.path, chunk_id: row.chunk_id });
      }
      throw new SightlineError('not_found', `${row.path} is no longer readable (${read.message}); run index_repo to refresh the index`, { repo_id: row.repo_id, path: row.path, reason: read.code });
    }
    const bytes = read.bytes;
    const stale = sha1(bytes) !== row.hash;
    const lines = new TextDecoder('utf-8').decode(bytes).split('\n');
    const text = lines.slice(row.start_line - 1, row.end_line).join('\n');
    return {
      chunk_id: row.chunk_id, repo_id: row.repo_id, path: row.path, language: row.language, start_line: row.start_line, end_line: row.end_line,
      symbol_path: row.symbol_path, kind: row.kind, text, stale, file_hash: row.hash,
    };
  }
}
