/**
 * Project memories: the record (the seed's shape plus what reconciling needs), fingerprints of the
 * anchored code and of its surroundings, and the pure reconcile function over (memory, the file now).
 *
 * Statuses: `current` (the exact anchor still resolves), `relocated` (the anchor moved: found again
 * nearby by fingerprint, else by best context match; the new location is recorded, and the status stays
 * until the memory is re-anchored), `stale` (the file
 * remains, the symbol/span no longer resolves), `gone` (the file is no longer indexed).
 */
import { sha1 } from '../util/hash';

export const ANCHOR_KINDS = ['repo', 'file', 'symbol', 'span'] as const;
export type AnchorKind = (typeof ANCHOR_KINDS)[number];
export const MEMORY_STATUSES = ['current', 'relocated', 'stale', 'gone'] as const;
export type MemoryStatus = (typeof MEMORY_STATUSES)[number];
export const MEMORY_SCOPES = ['user', 'repo'] as const;
export type MemoryScope = (typeof MEMORY_SCOPES)[number];

/** Lines of surroundings kept on each side of the anchored lines. */
export const CONTEXT_LINES = 3;
/** How far (lines) a relocated anchor may be searched from its last place; beyond, the whole file. */
export const NEARBY_LINES = 200;

export interface MemoryFingerprint {
  /** sha1 of the anchored lines (whitespace-trimmed, blank lines dropped) */
  anchor: string;
  /** sha1 of the CONTEXT_LINES lines before and after */
  context: string;
  /** short hash per anchored line, and per context line before / after (best context match) */
  lines: string[];
  before: string[];
  after: string[];
}

export interface MemoryRecord {
  id: string;
  repo_id: string;
  anchor_kind: AnchorKind;
  /** symbol: its symbol_path; span / file: the path; repo: the repo_id */
  anchor_id: string;
  /** the file (null for a repo anchor) */
  anchor_path: string | null;
  start_line: number | null;
  end_line: number | null;
  text: string;
  source: string;
  confidence: number;
  status: MemoryStatus;
  created_at_ms: number;
  updated_at_ms: number;
  // ---- reconciling -------------------------------------------------------------------------
  scope: MemoryScope;
  fingerprint: MemoryFingerprint | null;
  /** the git commit (HEAD) when it was created, null outside git */
  created_commit: string | null;
  /** who or what created it (a user name, an agent, a tool) */
  created_by: string;
  /** sha1 of the anchored file's text at the last check (null: not checked, or no file) */
  checked_file_hash: string | null;
  checked_at_ms: number;
}

export interface MemoryDocument { version: 1; memories: MemoryRecord[] }
export const emptyDocument = (): MemoryDocument => ({ version: 1, memories: [] });

const norm = (l: string) => l.trim();
const lineHash = (l: string) => sha1(norm(l)).slice(0, 10);
const joinHash = (ls: string[]) => sha1(ls.map(norm).filter(Boolean).join('\n'));

export function splitLines(text: string): string[] { return text.split(/\r?\n/); }
export const fileHash = (text: string) => sha1(text);

/** The fingerprint of lines start..end (1-based, inclusive) of a file. */
export function fingerprint(lines: readonly string[], start: number, end: number): MemoryFingerprint {
  const anchored = lines.slice(start - 1, end);
  const before = lines.slice(Math.max(0, start - 1 - CONTEXT_LINES), start - 1);
  const after = lines.slice(end, end + CONTEXT_LINES);
  return { anchor: joinHash(anchored), context: joinHash([...before, ...after]), lines: anchored.map(lineHash), before: before.map(lineHash), after: after.map(lineHash) };
}

/** A memory's id: `memory:<repo_id>:<hash>` of its anchor, text and creation time. */
export function memoryId(m: Pick<MemoryRecord, 'repo_id' | 'anchor_kind' | 'anchor_id' | 'anchor_path' | 'text' | 'created_at_ms'>, salt = ''): string {
  return `memory:${m.repo_id}:${sha1(`${m.anchor_kind}\n${m.anchor_path ?? ''}\n${m.anchor_id}\n${m.text}\n${m.created_at_ms}\n${salt}`).slice(0, 12)}`;
}

/** Near-identical texts (for duplicate reports): same words, case and punctuation aside. */
export function sameText(a: string, b: string): boolean {
  const w = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  return w(a) === w(b);
}

export interface SymbolSpan { symbol_path: string; start_line: number; end_line: number }

/** The file as it is now: null when it is no longer indexed (or unreadable). */
export interface FileNow {
  text: string;
  /** its definitions, when the index is up to date with `text` (else null: matched by fingerprint only) */
  symbols: SymbolSpan[] | null;
}

export interface Reconciled {
  status: MemoryStatus;
  anchor_id: string;
  start_line: number | null;
  end_line: number | null;
  fingerprint: MemoryFingerprint | null;
  checked_file_hash: string | null;
}

/** Where a fingerprinted range of `len` lines is in `lines` now: exact fingerprint first, then the best context match. */
export function locate(fp: MemoryFingerprint, lines: readonly string[], oldStart: number, len: number): { start: number; exact: boolean } | null {
  const hashes = lines.map(lineHash);
  const near = (s: number) => Math.abs(s - oldStart);
  const order: number[] = [];
  for (let s = 1; s + len - 1 <= lines.length; s++) order.push(s);
  order.sort((a, b) => near(a) - near(b) || a - b);
  const window = (s: number) => joinHash(lines.slice(s - 1, s - 1 + len) as string[]);
  for (const s of order) if (near(s) <= NEARBY_LINES && window(s) === fp.anchor) return { start: s, exact: true };
  for (const s of order) if (near(s) > NEARBY_LINES && window(s) === fp.anchor) return { start: s, exact: true };
  // best context match: anchored lines and surroundings that still match, at least half of the anchored lines
  let best: { start: number; score: number } | null = null;
  for (const s of order) {
    let inside = 0;
    for (let i = 0; i < len; i++) if (hashes[s - 1 + i] === fp.lines[i]) inside++;
    if (inside * 2 < Math.max(1, fp.lines.filter(h => h !== lineHash('')).length)) continue;
    let ctx = 0;
    fp.before.forEach((h, i) => { if (hashes[s - 1 - fp.before.length + i] === h) ctx++; });
    fp.after.forEach((h, i) => { if (hashes[s - 1 + len + i] === h) ctx++; });
    const score = inside * 2 + ctx;
    if (!best || score > best.score) best = { start: s, score };
  }
  return best ? { start: best.start, exact: false } : null;
}

/**
 * Reconciles one memory against its file now (null: the file is no longer indexed). Pure: the caller
 * reads the file and the index.
 */
export function reconcile(m: MemoryRecord, file: FileNow | null, repoIndexed = true): Reconciled {
  const keep = { anchor_id: m.anchor_id, start_line: m.start_line, end_line: m.end_line, fingerprint: m.fingerprint };
  if (m.anchor_kind === 'repo') return { ...keep, status: repoIndexed ? 'current' : 'gone', checked_file_hash: null };
  if (!file) return { ...keep, status: 'gone', checked_file_hash: null };
  const lines = splitLines(file.text);
  const hash = fileHash(file.text);
  if (m.anchor_kind === 'file') return { ...keep, status: 'current', checked_file_hash: hash };
  const start = m.start_line ?? 1, end = m.end_line ?? start, len = end - start + 1;
  // once relocated, a memory says so until it is re-anchored (found again at its new place: still relocated)
  const exact: MemoryStatus = m.status === 'relocated' ? 'relocated' : 'current';
  const moved = (s: number, l: number, status: MemoryStatus, anchor_id = m.anchor_id): Reconciled =>
    ({ status, anchor_id, start_line: s, end_line: s + l - 1, fingerprint: fingerprint(lines, s, s + l - 1), checked_file_hash: hash });
  if (m.anchor_kind === 'symbol') {
    if (file.symbols) {
      const same = file.symbols.find(s => s.symbol_path === m.anchor_id);
      // the exact id resolves: current (its recorded lines follow it)
      if (same) return moved(same.start_line, same.end_line - same.start_line + 1, same.start_line === start && same.end_line === end ? exact : 'relocated');
      // renamed: a definition whose code has the anchored fingerprint
      if (m.fingerprint) {
        const renamed = file.symbols.filter(s => fingerprint(lines, s.start_line, s.end_line).anchor === m.fingerprint!.anchor)
          .sort((a, b) => Math.abs(a.start_line - start) - Math.abs(b.start_line - start))[0];
        if (renamed) return moved(renamed.start_line, renamed.end_line - renamed.start_line + 1, 'relocated', renamed.symbol_path);
      }
      return { ...keep, status: 'stale', checked_file_hash: hash };
    }
    // the index is behind the file: only the fingerprint can tell
  }
  if (!m.fingerprint) return { ...keep, status: 'stale', checked_file_hash: hash };
  if (end <= lines.length && joinHash(lines.slice(start - 1, end)) === m.fingerprint.anchor) {
    const ctxSame = fingerprint(lines, start, end).context === m.fingerprint.context;
    return { ...moved(start, len, exact), fingerprint: ctxSame ? m.fingerprint : fingerprint(lines, start, end) };
  }
  const found = locate(m.fingerprint, lines, start, len);
  if (found) return moved(found.start, len, 'relocated');
  return { ...keep, status: 'stale', checked_file_hash: hash };
}
