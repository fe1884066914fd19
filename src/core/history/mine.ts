/**
 * The log miner: one repository's recent history in one `git log` call, parsed as it streams.
 *
 *   git -c core.quotepath=off -c diff.interHunkContext=0 log --no-merges --topo-order -M -p -U0
 *       --no-color --no-ext-diff --no-textconv --src-prefix=a/ --dst-prefix=b/
 *       --encoding=UTF-8 -n <limit>
 *       --format=%x00%H%x00%P%x00%at%x00%aN%x00%s [<since>..]HEAD --
 *
 * Choices:
 * - **No merges.** A merge's diff against its first parent repeats the changes of every commit it
 *   brings in, which are mined themselves (the walk follows all parents); counting both would double
 *   each co-change and make most merges sweeping. What is lost: conflict resolutions made inside a
 *   merge. `limit` counts non-merge commits.
 * - **Topological order**, newest first: no commit before one of its children, which the line
 *   mapping (`lines.ts`) needs to carry line numbers back commit by commit.
 * - **`-U0`**: hunk headers give exactly the changed lines; the patch text is read past, never kept.
 * - **No `--diff-filter`**: it would also drop commits that change no file (`--allow-empty`), which
 *   then would not count toward `limit`; they are listed with no files and count as touching nothing.
 * - **Sweeping commits** (more than `sweepLimit` = 50 files for which `isIndexed` holds) are kept in
 *   the list with `sweeping: true` and their hunks, so the line mapping can shift line numbers
 *   through a reformat, but `cochange.ts` and `lines.ts` never count them as touching anything.
 * - **Shallow clones**: the commits at the graft point look like root commits whose diff adds every
 *   file; they come back with `boundary: true` and are never counted (nor mapped through).
 * - **Incremental**: with `since` (the newest commit mined before), only `since..HEAD` is read when
 *   `since` is still an ancestor of HEAD; otherwise the answer is `rewritten` (rebase, amend, reset,
 *   branch switch) and the caller mines again without `since`. New commits followed by the old list
 *   is still a topological order; with merged branches the 500 kept may differ slightly from a
 *   fresh mine's (the side branch's older commits come in by topology, not date).
 */
import { isAncestor, probeRepository, streamGit, type GitOptions, type GitResult } from './git';
import { headerName, parseHunkHeader, splitGitHeader, stripPrefixes, unquotePath } from './paths';

export interface Hunk { old_start: number; old_lines: number; new_start: number; new_lines: number }

export type ChangeStatus = 'added' | 'modified' | 'deleted' | 'renamed' | 'copied';

export interface FileChange {
  status: ChangeStatus;
  /** Path after the commit (for a deletion: the deleted path), repository-relative, `/`-separated. */
  path: string;
  /** Path before the commit when it differs (renames, copies), else null. */
  old_path: string | null;
  binary: boolean;
  /** `-U0` hunks in file order; empty for binary files, mode-only changes and pure renames. */
  hunks: Hunk[];
}

export interface MinedCommit {
  sha: string;
  parents: string[];
  /** Author time, seconds since the epoch. */
  time: number;
  author: string;
  subject: string;
  files: FileChange[];
  /** Files of this commit for which `isIndexed` held. */
  indexed_files: number;
  /** Touched more than `sweepLimit` indexed files: never counted as touching. */
  sweeping: boolean;
  /** A shallow clone's graft point (its diff adds the whole tree): never counted, never mapped through. */
  boundary: boolean;
}

export interface MineOptions extends GitOptions {
  /** How many non-merge commits to read (default 500). */
  limit?: number;
  /** The newest commit mined before: read only the commits after it when it is still HEAD's ancestor. */
  since?: string | null;
  /** Which repository-relative paths are indexed (default: all). Decides what counts for `sweeping`. */
  isIndexed?: (path: string) => boolean;
  /** More indexed files than this and a commit is sweeping (default 50). */
  sweepLimit?: number;
}

export type MineResult =
  | { kind: 'mined'; head: string; branch: string | null; detached: boolean; shallow: boolean; incremental: boolean; commits: MinedCommit[]; truncated: boolean;
      /** Lines of the log the parser could not place (at most 20; empty on every git we know). */
      diagnostics: string[] }
  /** `since` is HEAD: nothing new (one git call spent, `rev-parse`). */
  | { kind: 'unchanged'; head: string; branch: string | null; detached: boolean; shallow: boolean; commits: [] }
  /** `since` is no longer an ancestor of HEAD: mine again from scratch. */
  | { kind: 'rewritten'; head: string; branch: string | null; detached: boolean; shallow: boolean; since: string; commits: [] };

export const DEFAULT_LIMIT = 500;
export const DEFAULT_SWEEP_LIMIT = 50;

export const LOG_FORMAT = '%x00%H%x00%P%x00%at%x00%aN%x00%s';

export function logArgs(limit: number, range: string): string[] {
  // -c diff.interHunkContext=0: a user's setting would otherwise merge nearby -U0 hunks with context
  // lines between them; explicit prefixes override diff.noprefix / diff.mnemonicPrefix.
  return ['-c', 'diff.interHunkContext=0', 'log', '--no-merges', '--topo-order', '-M', '-p', '-U0', '--no-color', '--no-ext-diff', '--no-textconv',
    '--src-prefix=a/', '--dst-prefix=b/',
    '--encoding=UTF-8', `-n${limit}`, `--format=${LOG_FORMAT}`, range, '--'];
}

/** Mine one repository (cwd: anywhere inside its work tree; paths come back relative to its top). */
export async function mineRepository(cwd: string, opts: MineOptions = {}): Promise<GitResult<MineResult>> {
  const probe = await probeRepository(cwd, opts);
  if (!probe.ok) return probe;
  const { head, branch, detached, shallow, top } = probe.value;
  const base = { head, branch, detached, shallow };
  let range = 'HEAD', incremental = false;
  if (opts.since) {
    if (opts.since === head) return { ok: true, value: { kind: 'unchanged', ...base, commits: [] } };
    const anc = await isAncestor(top, opts.since, head, opts);
    if (!anc.ok) return anc;
    if (!anc.value) return { ok: true, value: { kind: 'rewritten', ...base, since: opts.since, commits: [] } };
    range = `${opts.since}..HEAD`;
    incremental = true;
  }
  const limit = Math.max(1, opts.limit ?? DEFAULT_LIMIT);
  const parser = new LogParser();
  const run = await streamGit(top, logArgs(limit, range), chunk => { parser.push(chunk); }, { timeoutMs: 300_000, ...opts });
  if (!run.ok) return run;
  const commits = parser.end();
  finishCommits(commits, { shallow, isIndexed: opts.isIndexed, sweepLimit: opts.sweepLimit });
  return { ok: true, value: { kind: 'mined', ...base, incremental, commits, truncated: commits.length >= limit, diagnostics: parser.unknown.slice(0, 20) } };
}

/**
 * The commits to keep after an incremental mine: the new ones (newest first) before the ones kept
 * from last time, at most `limit`. (Both lists are topological, and none of the old commits descends
 * from a new one, so the result is topological too.)
 */
export function mergeMined(newer: readonly MinedCommit[], older: readonly MinedCommit[], limit = DEFAULT_LIMIT): MinedCommit[] {
  const seen = new Set(newer.map(c => c.sha));
  return [...newer, ...older.filter(c => !seen.has(c.sha))].slice(0, limit);
}

/** Mark sweeping and boundary commits (exported for tests and for callers that parse a log themselves). */
export function finishCommits(commits: MinedCommit[], o: { shallow: boolean; isIndexed?: (path: string) => boolean; sweepLimit?: number }): void {
  const sweep = o.sweepLimit ?? DEFAULT_SWEEP_LIMIT, indexed = o.isIndexed ?? (() => true);
  for (const c of commits) {
    c.indexed_files = c.files.filter(f => indexed(f.path)).length;
    c.sweeping = c.indexed_files > sweep;
    c.boundary = o.shallow && c.parents.length === 0;
  }
}

/** Parse `git log` output in the `logArgs` shape, fed as byte chunks; content lines are never decoded. */
export class LogParser {
  private rest: Buffer | null = null;
  private commits: MinedCommit[] = [];
  private commit: MinedCommit | null = null;
  private file: (FileChange & { _old: string | null; _new: string | null; _hdrOld: string | null; _hdrNew: string | null; _renameFrom: string | null; _renameTo: string | null; _deleted: boolean; _added: boolean; _copy: boolean }) | null = null;
  /** Lines of the current hunk still to skip: old ('-') and new ('+'). */
  private oldLeft = 0;
  private newLeft = 0;
  /** Lines that could not be read (kept for diagnostics, at most 100; the miner never throws on them). */
  readonly unknown: string[] = [];
  private note(text: string): void { if (this.unknown.length < 100) this.unknown.push(text.slice(0, 200)); }

  /** The first byte of a hunk line cut by a chunk end, whose bytes were dropped (-1: none). */
  private cutHunkLine = -1;

  push(chunk: Buffer): void {
    let start = 0;
    if (this.cutHunkLine >= 0) {
      // The rest of a long content line (minified code): find its end without keeping its bytes.
      const nl = chunk.indexOf(10);
      if (nl < 0) return;
      this.hunkLine(this.cutHunkLine);
      this.cutHunkLine = -1;
      start = nl + 1;
    }
    const buf = this.rest ? Buffer.concat([this.rest, chunk.subarray(start)]) : chunk;
    if (this.rest) start = 0;
    for (let nl = buf.indexOf(10, start); nl >= 0; nl = buf.indexOf(10, start)) {
      this.line(buf, start, nl);
      start = nl + 1;
    }
    this.rest = null;
    if (start < buf.length) {
      const first = buf[start]!;
      if (this.inHunkLine(first)) this.cutHunkLine = first;
      else this.rest = Buffer.from(buf.subarray(start));
    }
  }

  /** Would a line starting with this byte be one of the current hunk's lines? */
  private inHunkLine(first: number): boolean {
    return (first === 45 && this.oldLeft > 0) || (first === 43 && this.newLeft > 0) || (first === 32 && this.oldLeft > 0 && this.newLeft > 0);
  }

  private hunkLine(first: number): void {
    if (first === 45) this.oldLeft--;
    else if (first === 43) this.newLeft--;
    else { this.oldLeft--; this.newLeft--; }
  }

  end(): MinedCommit[] {
    if (this.cutHunkLine >= 0) { this.hunkLine(this.cutHunkLine); this.cutHunkLine = -1; }
    if (this.rest) { const r = this.rest; this.rest = null; this.line(r, 0, r.length); }
    this.closeFile();
    this.closeCommit();
    return this.commits;
  }

  private line(buf: Buffer, start: number, end: number): void {
    const first = end > start ? buf[start]! : -1;
    if (this.oldLeft > 0 || this.newLeft > 0) {
      // Inside a -U0 hunk: '-' lines, then '+' lines, and '\ No newline' notes; skip without decoding.
      if (this.inHunkLine(first)) { this.hunkLine(first); return; }
      if (first === 92 /* \ */) return;
      // The hunk ended early (should not happen with git): fall through and read the line as a header.
      this.oldLeft = this.newLeft = 0;
    }
    if (first === 92) return; // '\ No newline at end of file' after the last line of a hunk
    let text = buf.toString('utf8', start, end);
    if (text.endsWith('\r')) text = text.slice(0, -1); // a header's CR is never part of a path (git quotes CR)
    if (first === 0) return this.commitLine(text);
    if (text === '') return;
    if (text.startsWith('diff --git ')) return this.openFile(text.slice(11));
    const f = this.file;
    if (!f) { if (this.commit) this.note(text); return; }
    if (text.startsWith('@@ ')) {
      const h = parseHunkHeader(text);
      if (!h) { this.note(text); return; }
      f.hunks.push(h);
      this.oldLeft = h.old_lines;
      this.newLeft = h.new_lines;
      return;
    }
    if (text.startsWith('--- ')) { f._hdrOld = headerName(text.slice(4)); return; }
    if (text.startsWith('+++ ')) { f._hdrNew = headerName(text.slice(4)); return; }
    if (text.startsWith('rename from ')) { f._renameFrom = unquotePath(text.slice(12)); return; }
    if (text.startsWith('rename to ')) { f._renameTo = unquotePath(text.slice(10)); return; }
    if (text.startsWith('copy from ')) { f._renameFrom = unquotePath(text.slice(10)); f._copy = true; return; }
    if (text.startsWith('copy to ')) { f._renameTo = unquotePath(text.slice(8)); f._copy = true; return; }
    if (text.startsWith('new file mode ')) { f._added = true; return; }
    if (text.startsWith('deleted file mode ')) { f._deleted = true; return; }
    if (text.startsWith('Binary files ') || text === 'GIT binary patch') { f.binary = true; return; }
    if (/^(index |old mode |new mode |similarity index |dissimilarity index )/.test(text)) return;
    if (/^(literal|delta) \d+$/.test(text) || f.binary) return; // base85 lines of a binary patch
    this.note(text);
  }

  private commitLine(text: string): void {
    this.closeFile();
    this.closeCommit();
    const [, sha = '', parents = '', time = '0', author = '', ...subject] = text.split('\0');
    this.commit = { sha, parents: parents ? parents.split(' ') : [], time: Number(time) || 0, author, subject: subject.join('\0'), files: [], indexed_files: 0, sweeping: false, boundary: false };
  }

  private openFile(rest: string): void {
    this.closeFile();
    if (!this.commit) { this.note('diff --git ' + rest); return; }
    const names = splitGitHeader(rest);
    this.file = { status: 'modified', path: '', old_path: null, binary: false, hunks: [], _old: names?.[0] ?? null, _new: names?.[1] ?? null, _hdrOld: null, _hdrNew: null, _renameFrom: null, _renameTo: null, _deleted: false, _added: false, _copy: false };
  }

  private closeFile(): void {
    const f = this.file;
    this.file = null;
    this.oldLeft = this.newLeft = 0;
    if (!f || !this.commit) return;
    const change = resolveNames(f);
    if (change) this.commit.files.push(change);
    else this.note(`diff --git ${f._old} ${f._new}`);
  }

  private closeCommit(): void {
    if (this.commit) this.commits.push(this.commit);
    this.commit = null;
  }
}

/** Decide status and paths of a file section from the headers seen (rename lines > ---/+++ > diff --git). */
function resolveNames(f: { binary: boolean; hunks: Hunk[]; _old: string | null; _new: string | null; _hdrOld: string | null; _hdrNew: string | null; _renameFrom: string | null; _renameTo: string | null; _deleted: boolean; _added: boolean; _copy: boolean }): FileChange | null {
  const [gOld, gNew] = stripPrefixes(f._old, f._new);
  let oldP: string | null = gOld, newP: string | null = gNew;
  if (f._hdrOld !== null || f._hdrNew !== null) {
    const [hOld, hNew] = stripPrefixes(f._hdrOld ?? f._old, f._hdrNew ?? f._new);
    oldP = f._hdrOld === '/dev/null' ? null : hOld; newP = f._hdrNew === '/dev/null' ? null : hNew;
  }
  if (f._renameFrom !== null && f._renameTo !== null) { oldP = f._renameFrom; newP = f._renameTo; }
  if (f._added) oldP = null;
  if (f._deleted) newP = null;
  const base = { binary: f.binary, hunks: f.hunks };
  if (f._renameFrom !== null && f._renameTo !== null) return { status: f._copy ? 'copied' : 'renamed', path: newP!, old_path: oldP, ...base };
  if (f._added || (oldP === null && newP !== null)) return newP === null ? null : { status: 'added', path: newP, old_path: null, ...base };
  if (f._deleted || (newP === null && oldP !== null)) return oldP === null ? null : { status: 'deleted', path: oldP, old_path: null, ...base };
  if (newP === null) return null;
  return { status: 'modified', path: newP, old_path: null, ...base };
}
