/**
 * One file in, everything the store needs out. Runs in worker threads (and in-thread for the
 * parse-floor benchmark and tests). Never throws for bad content: it returns a diagnostic instead.
 */
import { readContainedSync } from '../util/contained';
import { extractSource, type Extraction } from '../parse/extract';
import { hashVectorFromTokens } from '../search/hashvec';
import { sha1 } from '../util/hash';
import { ftsFromTokens, tokenize } from '../util/tokens';
import { encodeOccurrences } from '../store/occurrences';
import { CROSS_FILE_KINDS } from '../parse/occurrence';
import { packFtsText } from '../store/ftstext';
import { extractLinkSites } from '../links/extract';
import { packShapes } from '../similar/shape';
import type { LanguageId } from '../languages/types';
import type { FileContent, NewChunk, NewSymbol, NewEdge } from '../store/store';

export interface FileTask {
  /** real path of the repository root: the file is read under its containment rules (util/contained.ts) */
  root: string;
  repo_id: string; abs: string; path: string; language: LanguageId; size: number; mtime_ms: number;
  /** hash already stored for this path: when the content still has it, nothing is parsed */
  known_hash: string | null;
  max_file_bytes: number;
  /**
   * After an imported index: the stored chunks' lines and first lines, checked against the file even when
   * its hash matches (an artifact's rows are not trusted for being named with the right hash).
   */
  verify_chunks?: [start_line: number, end_line: number, head: string | null][];
}

export type FileOutcome =
  | { status: 'indexed'; content: FileContent; diagnostics: { code: string; message: string }[]; parse_ms: number }
  | { status: 'unchanged'; hash: string; size: number; mtime_ms: number }
  | { status: 'skipped'; diagnostics: { code: string; message: string }[] };

const BINARY_SNIFF = 8000;

export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, BINARY_SNIFF);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const lenient = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });

export async function processFile(task: FileTask): Promise<FileOutcome> {
  // The walk checked the file; it is checked again as it is opened (it may have become a link out since).
  const read = readContainedSync(task.root, task.path, task.max_file_bytes);
  if (!read.ok) {
    const message = read.code === 'too_large' ? `${read.size} bytes is over the ${task.max_file_bytes}-byte limit; not indexed` : read.message;
    return { status: 'skipped', diagnostics: [{ code: read.code === 'not_a_file' ? 'unreadable' : read.code, message }] };
  }
  const bytes: Uint8Array = read.bytes;
  if (looksBinary(bytes)) return { status: 'skipped', diagnostics: [{ code: 'binary', message: 'binary content (NUL bytes); not indexed' }] };
  const hash = sha1(bytes);
  const same = task.known_hash === hash && (!task.verify_chunks || chunksMatch(bytes, task.verify_chunks));
  if (same) return { status: 'unchanged', hash, size: bytes.length, mtime_ms: task.mtime_ms };
  const diagnostics: { code: string; message: string }[] = [];
  let text: string;
  try { text = strict.decode(bytes); }
  catch { text = lenient.decode(bytes); diagnostics.push({ code: 'invalid_utf8', message: 'invalid UTF-8 byte sequences were replaced with U+FFFD' }); }
  const t0 = performance.now();
  let ex: Extraction;
  try { ex = await extractSource(task.language, text); }
  catch (e) { return { status: 'skipped', diagnostics: [{ code: 'parse_failed', message: `parser failed: ${(e as Error).message}` }] }; }
  const parse_ms = performance.now() - t0;
  if (ex.syntax_errors > 0) diagnostics.push({ code: 'syntax_errors', message: syntaxErrorMessage(ex) });
  const content = toContent(task, hash, bytes.length, ex);
  content.link_sites = extractLinkSites(task.language, task.path, text, ex.definitions);
  return { status: 'indexed', content, diagnostics, parse_ms };
}

/** The syntax_errors diagnostic: the error count and the declarations the errors cost (named, with lines, up to five). */
export function syntaxErrorMessage(ex: Pick<Extraction, 'syntax_errors' | 'lost_declarations'>): string {
  const lost = ex.lost_declarations;
  if (!lost.length) return `${ex.syntax_errors} syntax error node(s); indexed what could be recovered`;
  const named = lost.slice(0, 5).map(d => `${d.name} (line ${d.line})`).join(', ') + (lost.length > 5 ? `, … ${lost.length - 5} more` : '');
  return `${ex.syntax_errors} syntax error node(s); ${lost.length} declaration(s) inside the error regions were not indexed: ${named}`;
}

/** Maps an extraction to store rows with the public ids (`chunk:<repo>:<path>:<symbol_path>`). */
export function toContent(task: FileTask, hash: string, size: number, ex: Extraction): FileContent {
  const pathTokens = tokenize(task.path.replace(/\.[^./]+$/, ''));
  const pathFts = ftsFromTokens(pathTokens);
  const chunkOf = new Map<string, string>();
  const chunks: NewChunk[] = ex.chunks.map(c => {
    if (c.symbol_path && !chunkOf.has(c.symbol_path)) chunkOf.set(c.symbol_path, c.key);
    const nameText = c.symbol_path ?? '';
    // One tokenisation per field feeds both the full-text row and the hash vector.
    const nameTokens = tokenize(nameText); const bodyTokens = tokenize(c.text);
    return {
      key: c.key, symbol_path: c.symbol_path, kind: c.kind, start_line: c.start_line, end_line: c.end_line,
      est_tokens: c.est_tokens, head: firstLine(c.text),
      vec: hashVectorFromTokens(nameTokens, pathTokens, bodyTokens),
      fts_name: ftsFromTokens(nameTokens), fts_body: ftsFromTokens(bodyTokens),
    };
  });
  const symbols: NewSymbol[] = [];
  const edges: NewEdge[] = [];
  const parentOf = new Map(ex.definitions.map(d => [d.symbol_path, d.parent_path] as const));
  for (const d of ex.definitions) {
    // A definition nested in a function shares its parent's chunk.
    let owner: string | undefined; let p: string | null = d.symbol_path;
    while (p && !(owner = chunkOf.get(p))) p = parentOf.get(p) ?? null;
    symbols.push({ name: d.name, symbol_path: d.symbol_path, kind: d.kind, start_line: d.start_line, start_col: d.start_col,
      end_line: d.end_line, end_col: d.end_col, parent_path: d.parent_path, chunk_key: owner ?? null });
  }
  return {
    repo_id: task.repo_id, path: task.path, language: task.language, hash, size, mtime_ms: task.mtime_ms, line_count: ex.line_count,
    syntax_errors: ex.syntax_errors, chunks, symbols, shape_hash: shapeHash(symbols, ex), fts_path: pathFts, fts_text: packFtsText(pathFts, chunks), occurrences: encodeOccurrences(ex.occurrences), occurrence_count: ex.occurrences.length, edges,
    cross_occurrences: packCrossOccurrences(ex),
    shapes: packShapes(ex.chunks.map(c => c.text), task.language),
  };
}

/** The imports and base classes, packed apart: building the resolver's tables reads them of every file. */
function packCrossOccurrences(ex: Extraction): Uint8Array | null {
  const cross = ex.occurrences.filter(o => CROSS_FILE_KINDS.has(o.kind));
  return cross.length ? encodeOccurrences(cross) : null;
}

/**
 * What other files' graph resolution can see of this file: its definitions (path, name, kind, parent, in
 * order) and its imports and base classes. Two versions with the same hash differ only in bodies.
 */
function shapeHash(symbols: readonly NewSymbol[], ex: Extraction): string {
  const defs = symbols.map(s => [s.symbol_path, s.name, s.kind, s.parent_path]);
  const refs = ex.occurrences.filter(o => CROSS_FILE_KINDS.has(o.kind)).map(o => [o.kind, o.name, o.scope, o.receiver, o.source, o.alias]);
  return sha1(JSON.stringify([defs, refs]));
}

/** Whether stored chunks (lines, first line) are what the file's text says: else its rows are derived again. */
function chunksMatch(bytes: Uint8Array, chunks: readonly [number, number, string | null][]): boolean {
  const lines = lenient.decode(bytes).split('\n');
  return chunks.every(([start, end, head]) => start >= 1 && end >= start && end <= lines.length
    && (head === null || firstLine(lines.slice(start - 1, end).join('\n').replace(/\r/g, '')) === head));
}

/** A chunk's first non-blank line (its signature, usually), trimmed and at most 160 characters: search hits show it. */
export function firstLine(text: string): string | null {
  for (let i = 0; i < text.length;) {
    let j = text.indexOf('\n', i); if (j < 0) j = text.length;
    const t = text.slice(i, j).trim();
    if (t) return t.length > 160 ? `${t.slice(0, 157)}…` : t;
    i = j + 1;
  }
  return null;
}
