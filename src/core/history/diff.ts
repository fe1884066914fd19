/**
 * The diff input of `post_change_impact` / `context_for_change`: unified diff text → changed files and
 * line ranges. Pure (never runs git) and tolerant (never throws; what it cannot read becomes a
 * diagnostic and the rest is still reported).
 *
 * Split of work: jsdiff (`parsePatch` from the `diff` package) parses and checks each hunk (line
 * kinds, counts against the header, `\ No newline` notes, zero-length sides). It is handed one hunk
 * at a time, because on a whole patch it throws at the first bad line and it does not know git's
 * extended headers (a rename or binary section with no `---` would swallow the next file). What this
 * file adds: splitting the text into file sections (`diff --git`, `diff --cc`, plain `---`/`+++`),
 * git's extended headers (new/deleted file, rename/copy from/to, modes, index, similarity), C-quoted
 * paths (`"a\tb.py"`, octal UTF-8 `"caf\303\251.md"`), binary sections (`Binary files … differ`,
 * `GIT binary patch`), CRLF input, and finding where a malformed hunk ends so it alone is skipped.
 *
 * Ranges are the lines actually added (new side) or removed (old side), not the context. A change
 * block with nothing on one side (a pure deletion: `+12,0`; a pure addition: `-7,0`) gives that side an
 * `anchor` range: the one line just before the change (line 1 at the top of the file), so the symbol
 * that held the deleted lines is still found. Added files have no old ranges, deleted files no new ones.
 */
import { parsePatch } from 'diff';
import { headerName, splitGitHeader, stripPrefixes, unquotePath } from './paths';

export interface DiffRange { start_line: number; end_line: number; /** Nothing changed on this side: the line next to the change. */ anchor?: true }

export type DiffStatus = 'added' | 'deleted' | 'modified' | 'renamed' | 'binary';

export interface DiffFile {
  /** The path after the change (for a deletion: the deleted path). */
  path: string;
  /** The path before the change: the old name of a rename or copy source, `path` for edits and deletions, null for additions. */
  old_path: string | null;
  status: DiffStatus;
  /** For a binary file only: what happened to it (added, deleted, modified, renamed). */
  binary_change?: Exclude<DiffStatus, 'binary'>;
  new_ranges: DiffRange[];
  old_ranges: DiffRange[];
}

export interface DiffDiagnostic { /** 1-based line of the input. */ line: number; message: string; path?: string }

export interface ParsedDiff { files: DiffFile[]; diagnostics: DiffDiagnostic[] }

interface Section {
  line: number;
  gitOld: string | null; gitNew: string | null; git: boolean; combined: boolean;
  hdrOld: string | null; hdrNew: string | null; sawOld: boolean; sawNew: boolean;
  renameFrom: string | null; renameTo: string | null; copy: boolean;
  added: boolean; deleted: boolean; binary: boolean; hunks: number;
  newRanges: DiffRange[]; oldRanges: DiffRange[];
  /** After a binary patch header: its data lines are skipped. */
  inBinaryData: boolean;
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
const COMBINED_HUNK = /^@@@+ (?:-\d+(?:,\d+)? )+\+(\d+)(?:,(\d+))? @@@+/;

export function parseDiff(input: string): ParsedDiff {
  const text = typeof input === 'string' ? input : '';
  const lines = text.split('\n').map(l => l.endsWith('\r') ? l.slice(0, -1) : l);
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  const files: DiffFile[] = [], diagnostics: DiffDiagnostic[] = [];
  let sec = null as Section | null;
  let signature = false; // after a format-patch "-- " line, until the next section
  const open = (line: number, git: boolean, combined: boolean): Section => {
    close();
    return sec = { line, gitOld: null, gitNew: null, git, combined, hdrOld: null, hdrNew: null, sawOld: false, sawNew: false, renameFrom: null, renameTo: null, copy: false, added: false, deleted: false, binary: false, hunks: 0, newRanges: [], oldRanges: [], inBinaryData: false };
  };
  const close = () => {
    if (!sec) return;
    const f = finish(sec, diagnostics);
    if (f) files.push(f);
    sec = null;
  };
  const diag = (i: number, message: string) => diagnostics.push({ line: i + 1, message, ...(sec ? { path: currentPath(sec) ?? undefined } : {}) });

  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.startsWith('diff --git ')) {
      signature = false;
      const s = open(i + 1, true, false);
      const names = splitGitHeader(l.slice(11));
      if (names) { s.gitOld = names[0]; s.gitNew = names[1]; } else diag(i, 'cannot read the file names of this diff --git line');
      continue;
    }
    if (/^diff --(cc|combined) /.test(l)) {
      signature = false;
      const s = open(i + 1, true, true);
      const name = unquotePath(l.replace(/^diff --(cc|combined) /, ''));
      s.gitOld = s.gitNew = name;
      continue;
    }
    if (signature) continue;
    // A plain unified diff (no git header) starts at a "--- " line followed by "+++ ".
    if (l.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ') && (!sec || sec.sawOld || sec.hunks > 0 || !sec.git)) {
      const s = open(i + 1, false, false);
      s.hdrOld = headerName(l.slice(4)); s.sawOld = true;
      continue;
    }
    if (!sec) {
      if (HUNK.test(l)) diag(i, 'a hunk with no file header before it: skipped');
      continue; // mail headers, commit messages, "Index:" lines of other tools
    }
    const s: Section = sec;
    if (s.inBinaryData) {
      if (l === '') continue; // between the forward and the reverse data
      if (/^(literal|delta) \d+$/.test(l) || /^[A-Za-z][0-9A-Za-z!#$%&()*+\-;<=>?@^_`{|}~]*$/.test(l)) continue;
      s.inBinaryData = false;
    }
    if (l.startsWith('@@@')) {
      const m = COMBINED_HUNK.exec(l);
      const end = skipCombined(lines, i + 1);
      if (m && s.combined) {
        const start = +m[1]!, len = m[2] === undefined ? 1 : +m[2];
        if (len > 0) s.newRanges.push({ start_line: start, end_line: start + len - 1 });
        s.hunks++;
        diag(i, 'combined (merge) diff: the whole hunk range is reported, context included');
      } else diag(i, 'malformed combined hunk header: skipped');
      i = end - 1;
      continue;
    }
    if (l.startsWith('@@')) {
      const end = hunkEnd(lines, i);
      const body = lines.slice(i, end);
      i = end - 1;
      const bad = readHunk(body, s);
      if (bad) diag(i - body.length + 1, `malformed hunk skipped: ${bad}`);
      continue;
    }
    if (s.hunks === 0 && !s.combined) {
      if (l.startsWith('--- ')) { s.hdrOld = headerName(l.slice(4)); s.sawOld = true; continue; }
      if (l.startsWith('+++ ')) { s.hdrNew = headerName(l.slice(4)); s.sawNew = true; continue; }
      if (l.startsWith('rename from ') || l.startsWith('rename old ')) { s.renameFrom = unquotePath(l.slice(l.startsWith('rename from ') ? 12 : 11)); continue; }
      if (l.startsWith('rename to ') || l.startsWith('rename new ')) { s.renameTo = unquotePath(l.slice(l.startsWith('rename to ') ? 10 : 11)); continue; }
      if (l.startsWith('copy from ')) { s.renameFrom = unquotePath(l.slice(10)); s.copy = true; continue; }
      if (l.startsWith('copy to ')) { s.renameTo = unquotePath(l.slice(8)); s.copy = true; continue; }
      if (l.startsWith('new file mode ')) { s.added = true; continue; }
      if (l.startsWith('deleted file mode ')) { s.deleted = true; continue; }
      if (/^(index |old mode |new mode |similarity index |dissimilarity index )/.test(l)) continue;
    }
    if (l.startsWith('Binary files ') && / differ$/.test(l)) { s.binary = true; continue; }
    if (l === 'GIT binary patch') { s.binary = true; s.inBinaryData = true; continue; }
    if (s.combined && /^(index |mode |new file mode |deleted file mode |--- |\+\+\+ )/.test(l)) continue;
    if (l === '-- ') { signature = true; close(); continue; } // format-patch signature: the patch is over
    if (l === '') continue;
    if (/^[-+ ]/.test(l) && s.hunks > 0) { diag(i, 'a line outside any hunk (the hunk above has more lines than its header says?): ignored'); continue; }
    diag(i, `unrecognised line in a file section: ${JSON.stringify(l.slice(0, 80))}`);
  }
  close();
  return { files, diagnostics };
}

/** Where the hunk starting at `lines[at]` (its `@@` line) ends: by its header's counts, stopping early at a line that cannot be a hunk line. */
function hunkEnd(lines: string[], at: number): number {
  const m = HUNK.exec(lines[at]!);
  let i = at + 1;
  if (!m) {
    // An unreadable header: its body is whatever looks like hunk lines.
    while (i < lines.length && /^[-+ \\]/.test(lines[i]!) && !isSectionStart(lines, i)) i++;
    return i;
  }
  let oldLeft = m[2] === undefined ? 1 : +m[2], newLeft = m[4] === undefined ? 1 : +m[4];
  while (i < lines.length) {
    const l = lines[i]!;
    if (l.startsWith('\\')) { i++; continue; }
    if (oldLeft <= 0 && newLeft <= 0) break;
    if (l.startsWith('diff --git ') || l.startsWith('@@')) break;
    const c = l[0];
    if (c === '-' && oldLeft > 0) oldLeft--;
    else if (c === '+' && newLeft > 0) newLeft--;
    else if ((c === ' ' || l === '') && oldLeft > 0 && newLeft > 0) { oldLeft--; newLeft--; }
    else break;
    i++;
  }
  // Lines that still look like this hunk's (more than the header counts): take them, so the hunk is judged malformed as a whole.
  while (i < lines.length && /^[-+]/.test(lines[i]!) && !isSectionStart(lines, i)) i++;
  return i;
}

function isSectionStart(lines: string[], i: number): boolean {
  const l = lines[i]!;
  return l.startsWith('diff --') || (l.startsWith('--- ') && !!lines[i + 1]?.startsWith('+++ ')) || l === '-- ';
}

function skipCombined(lines: string[], i: number): number {
  while (i < lines.length && /^[-+ ]/.test(lines[i]!) && !lines[i]!.startsWith('diff --')) i++;
  return i;
}

/** Parse one hunk with jsdiff and add its ranges to the section; returns why it was skipped, if it was. */
function readHunk(body: string[], s: Section): string | null {
  if (!HUNK.test(body[0]!)) return `unreadable header ${JSON.stringify(body[0]!.slice(0, 60))}`;
  const last = body.length - 1;
  if (last > 0 && body[last] === '') body = [...body.slice(0, last), ' '];
  let hunk;
  try {
    const parsed = parsePatch(body.join('\n'));
    if (parsed.length !== 1 || parsed[0]!.hunks.length !== 1) return 'its lines do not match its header';
    hunk = parsed[0]!.hunks[0]!;
  } catch (e) {
    return (e as Error).message;
  }
  s.hunks++;
  let oldLine = hunk.oldStart, newLine = hunk.newStart;
  let blockOld: [number, number] | null = null, blockNew: [number, number] | null = null;
  const flush = () => {
    if (!blockOld && !blockNew) return;
    if (blockNew) s.newRanges.push({ start_line: blockNew[0], end_line: blockNew[1] });
    else s.newRanges.push({ start_line: Math.max(1, newLine - 1), end_line: Math.max(1, newLine - 1), anchor: true });
    if (blockOld) s.oldRanges.push({ start_line: blockOld[0], end_line: blockOld[1] });
    else s.oldRanges.push({ start_line: Math.max(1, oldLine - 1), end_line: Math.max(1, oldLine - 1), anchor: true });
    blockOld = blockNew = null;
  };
  for (const l of hunk.lines) {
    const c = l[0];
    if (c === '+') { blockNew = blockNew ? [blockNew[0], newLine] : [newLine, newLine]; newLine++; }
    else if (c === '-') { blockOld = blockOld ? [blockOld[0], oldLine] : [oldLine, oldLine]; oldLine++; }
    else if (c === ' ') { flush(); oldLine++; newLine++; }
  }
  flush();
  return null;
}

function currentPath(s: Section): string | null {
  const r = resolve(s);
  return r ? r.path : null;
}

function resolve(s: Section): { path: string; old_path: string | null; kind: 'added' | 'deleted' | 'modified' | 'renamed' } | null {
  let [oldP, newP] = stripPrefixes(s.gitOld, s.gitNew);
  if (s.sawOld || s.sawNew) {
    const [hOld, hNew] = stripPrefixes(s.sawOld ? s.hdrOld : s.gitOld, s.sawNew ? s.hdrNew : s.gitNew);
    if (s.sawOld) oldP = hOld;
    if (s.sawNew) newP = hNew;
  }
  if (s.renameFrom !== null && s.renameTo !== null) return { path: s.renameTo, old_path: s.renameFrom, kind: s.copy ? 'added' : 'renamed' };
  if (s.added) oldP = null;
  if (s.deleted) newP = null;
  if (oldP === null && newP !== null) return { path: newP, old_path: null, kind: 'added' };
  if (newP === null && oldP !== null) return { path: oldP, old_path: oldP, kind: 'deleted' };
  if (newP === null) return null;
  return { path: newP, old_path: oldP ?? newP, kind: 'modified' };
}

function finish(s: Section, diagnostics: DiffDiagnostic[]): DiffFile | null {
  const r = resolve(s);
  if (!r) { diagnostics.push({ line: s.line, message: 'a file section with no readable path: skipped' }); return null; }
  const status: DiffStatus = s.binary ? 'binary' : r.kind;
  return {
    path: r.path, old_path: r.old_path, status, ...(s.binary ? { binary_change: r.kind } : {}),
    new_ranges: r.kind === 'deleted' ? [] : merge(s.newRanges),
    old_ranges: r.kind === 'added' ? [] : merge(s.oldRanges),
  };
}

/** Sort and join touching ranges (an anchor joins only anchors). */
function merge(ranges: DiffRange[]): DiffRange[] {
  const sorted = [...ranges].sort((a, b) => a.start_line - b.start_line || a.end_line - b.end_line);
  const out: DiffRange[] = [];
  for (const r of sorted) {
    const prev = out[out.length - 1];
    if (prev && !!prev.anchor === !!r.anchor && r.start_line <= prev.end_line + 1) prev.end_line = Math.max(prev.end_line, r.end_line);
    else if (prev && r.anchor && r.start_line >= prev.start_line && r.end_line <= prev.end_line) continue; // covered by a real range
    else out.push({ ...r });
  }
  return out;
}
