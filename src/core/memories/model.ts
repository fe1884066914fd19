/**
 * Project memories: the record (the seed's shape plus what reconciling needs), fingerprints of the
 * anchored code and of its surroundings, and the pure reconcile function over (memory, the file now).
 *
 * Statuses say where the anchor is: `current` (the exact anchor still resolves: a symbol by its
 * qualified path, wherever it now is in the file), `relocated` (the exact id moved: a renamed symbol found
 * by its code, or a span found again by fingerprint, else by best context match; the new location is
 * recorded, and a span stays relocated until it is re-anchored), `stale` (the file remains, the
 * symbol/span no longer resolves), `gone` (the file is no longer indexed).
 *
 * Apart from the status, `code_change` says whether the anchored code changed since the memory was
 * written or last confirmed (a line diff of the anchored lines; for a file anchor, the file's text):
 * a memory about code that changed may no longer hold. Confirming (or editing) the memory clears it.
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
  // ---- confirmation (absent in documents written before it: the first check sets it) -------------
  /** the anchored lines as they were when the memory was written or last confirmed */
  confirmed_fingerprint?: MemoryFingerprint | null;
  /** the anchored file's hash then (file anchors) */
  confirmed_file_hash?: string | null;
  confirmed_at_ms?: number;
  /** the anchored code changed since it was confirmed (null: it did not, or it cannot be told) */
  code_change?: CodeChange | null;
}

/** How the anchored code differs from when the memory was written or last confirmed. */
export interface CodeChange {
  since_ms: number;
  /** lines added and removed in the anchored code (null for a file anchor: the file's text differs) */
  lines_added: number | null;
  lines_removed: number | null;
  summary: string;
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
  code_change: CodeChange | null;
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
  const r = locateAnchor(m, file, repoIndexed);
  return { ...r, code_change: codeChange(m, r, file) };
}

/** What a memory's confirmed code and the code at its anchor now differ by (null: nothing, or unknown). */
export function codeChange(m: MemoryRecord, now: Omit<Reconciled, 'code_change'>, file: FileNow | null): CodeChange | null {
  if (now.status === 'stale' || now.status === 'gone' || !file) return null;
  const since_ms = m.confirmed_at_ms ?? m.created_at_ms;
  if (m.anchor_kind === 'file') {
    const then = m.confirmed_file_hash ?? m.checked_file_hash;
    return then && now.checked_file_hash && then !== now.checked_file_hash
      ? { since_ms, lines_added: null, lines_removed: null, summary: 'the file changed since the memory was confirmed' } : null;
  }
  const then = m.confirmed_fingerprint ?? m.fingerprint;
  if (!then || !now.fingerprint || then.anchor === now.fingerprint.anchor) return null;
  const { added, removed } = lineDiff(then.lines, now.fingerprint.lines);
  if (!added && !removed) return null; // whitespace only
  const parts = [added ? `${added} line${added === 1 ? '' : 's'} added` : '', removed ? `${removed} removed` : ''].filter(Boolean);
  return { since_ms, lines_added: added, lines_removed: removed, summary: `the anchored code changed: ${parts.join(', ')}` };
}

/** Lines added and removed between two lists of line hashes (blank lines aside), by longest common subsequence. */
function lineDiff(before: readonly string[], after: readonly string[]): { added: number; removed: number } {
  const blank = lineHash('');
  const a = before.filter(h => h !== blank); const b = after.filter(h => h !== blank);
  if (a.length * b.length > 4_000_000) return { added: b.length, removed: a.length }; // too long to align: all of it
  let prev = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const row = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) row[j] = a[i - 1] === b[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, row[j - 1]!);
    prev = row;
  }
  const common = prev[b.length]!;
  return { added: b.length - common, removed: a.length - common };
}

/** Where the anchor is now and its status (model of the seed's four statuses). */
function locateAnchor(m: MemoryRecord, file: FileNow | null, repoIndexed: boolean): Omit<Reconciled, 'code_change'> {
  const keep = { anchor_id: m.anchor_id, start_line: m.start_line, end_line: m.end_line, fingerprint: m.fingerprint };
  if (m.anchor_kind === 'repo') return { ...keep, status: repoIndexed ? 'current' : 'gone', checked_file_hash: null };
  if (!file) return { ...keep, status: 'gone', checked_file_hash: null };
  const lines = splitLines(file.text);
  const hash = fileHash(file.text);
  if (m.anchor_kind === 'file') return { ...keep, status: 'current', checked_file_hash: hash };
  const start = m.start_line ?? 1, end = m.end_line ?? start, len = end - start + 1;
  // once relocated, a span says so until it is re-anchored (found again at its new place: still relocated)
  const exact: MemoryStatus = m.status === 'relocated' && m.anchor_kind === 'span' ? 'relocated' : 'current';
  const moved = (s: number, l: number, status: MemoryStatus, anchor_id = m.anchor_id): Omit<Reconciled, 'code_change'> =>
    ({ status, anchor_id, start_line: s, end_line: s + l - 1, fingerprint: fingerprint(lines, s, s + l - 1), checked_file_hash: hash });
  if (m.anchor_kind === 'symbol') {
    if (file.symbols) {
      const same = file.symbols.find(s => s.symbol_path === m.anchor_id);
      // the exact id resolves: current, wherever it now is (its recorded lines follow it)
      if (same) return moved(same.start_line, same.end_line - same.start_line + 1, 'current');
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
  // found where it was (its code edited: see code_change), else moved
  if (found) return moved(found.start, len, found.start === start ? exact : 'relocated');
  return { ...keep, status: 'stale', checked_file_hash: hash };
}
