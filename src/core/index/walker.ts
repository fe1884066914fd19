/**
 * Walks one workspace root: honours nested .gitignore files, .git/info/exclude, the default excludes
 * and user excludes (gitignore syntax). Never throws for one bad entry: problems become diagnostics.
 * Symlinks are followed only while their real path stays inside the root (util/contained.ts, the same
 * rule every later read of a file applies).
 */
import { promises as fs, readFileSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { fileLanguageFor, isLanguageId, languageForPath, type FileLanguage, type LanguageId, type NotIndexedReason } from '../languages';
import { isInside, resolveInside } from '../util/contained';

/** Folders that hold dependencies, build output, caches or vendored code. */
export const DEFAULT_EXCLUDES = [
  'node_modules/', '.git/', '.hg/', '.svn/', 'bower_components/', 'jspm_packages/', 'vendor/', 'third_party/',
  'dist/', 'build/', 'out/', 'target/', 'obj/', '.next/', '.nuxt/', '.svelte-kit/', '.turbo/', '.cache/', 'coverage/',
  '.venv/', 'venv/', '__pycache__/', '.tox/', '.nox/', '.mypy_cache/', '.pytest_cache/', '.ruff_cache/', '.gradle/',
  '.idea/', '.vscode-test/', '.sightline/', '*.min.js', '*.bundle.js',
];

export interface WalkOptions {
  excludes: readonly string[];
  languages: ReadonlySet<LanguageId> | null;
  /** index text files of no language (docs, configuration, data, scripts); default true */
  textFiles?: boolean;
  maxFileBytes: number;
  signal?: AbortSignal;
  /** called for each file as soon as it is found (parsing can start before the walk ends) */
  onFile?: (file: WalkedFile) => void;
  /** files of no language to report apart (config files the links phase reads), by path */
  extra?: (path: string) => boolean;
}

export interface WalkedFile { path: string; abs: string; language: FileLanguage; size: number; mtime_ms: number }
export interface WalkDiagnostic { path: string; code: string; message: string }
export interface WalkedExtra { path: string; abs: string; size: number; mtime_ms: number }
export interface WalkResult {
  files: WalkedFile[]; diagnostics: WalkDiagnostic[]; nested_repos: string[]; extras: WalkedExtra[];
  /** files not ignored but not indexed, by why (their names say binary or lock file; a language or text files turned off) */
  not_indexed: NotIndexed;
}

/** Files not indexed by why: how many, and the first few paths. */
export type NotIndexed = Record<string, { files: number; examples: string[] }>;

/** Counts a file not indexed under its reason, keeping the first three paths as examples. */
export function countNotIndexed(into: NotIndexed, reason: string, path: string): void {
  const e = (into[reason] ??= { files: 0, examples: [] });
  e.files++;
  if (e.examples.length < 3) e.examples.push(path);
}

/** A path's language, or why it is not indexed (`fileLanguageFor` with the walk's options). */
const classify = (rel: string, opts: WalkOptions) => fileLanguageFor(rel, opts.languages, opts.textFiles ?? true);
const REASONS: ReadonlySet<string> = new Set<NotIndexedReason>(['binary_type', 'lock_file', 'language_off', 'text_off']);
const isReason = (v: FileLanguage | NotIndexedReason): v is NotIndexedReason => REASONS.has(v);

interface Level { base: string; ig: Ignore }

/** The rules of a whole root: the default excludes, the user's, and `.git/info/exclude`. */
function rootRules(root: string, excludes: readonly string[]): Ignore {
  const base = ignore({ allowRelativePaths: true }).add(DEFAULT_EXCLUDES as string[]).add(excludes as string[]);
  const infoExclude = readIgnoreSync(join(root, '.git', 'info', 'exclude'));
  if (infoExclude) base.add(infoExclude);
  return base;
}

/** Whether a root-relative path is excluded by the root's rules or by a `.gitignore` of a folder above it. */
function isIgnored(base: Ignore, levels: readonly Level[], rel: string, isDir: boolean): boolean {
  const probe = isDir ? `${rel}/` : rel;
  if (base.ignores(probe)) return true;
  for (const l of levels) {
    const sub = l.base ? probe.slice(l.base.length + 1) : probe;
    if (sub && l.ig.ignores(sub)) return true;
  }
  return false;
}

/**
 * A synchronous check for a file watcher: the root's rules without `.gitignore` files (those are applied
 * to each changed path by `walkPaths`), so excluded folders (dependencies, build output) are never watched.
 */
/** What a special file is, for its diagnostic. */
function specialKind(e: Dirent): string {
  return e.isFIFO() ? 'a FIFO (named pipe)' : e.isSocket() ? 'a socket' : 'a device';
}

/** A file that cannot be stat-ed; a name that is not valid UTF-8 reads back with U+FFFD and is not found. */
function unreadable(rel: string, err: Error): { path: string; code: string; message: string } {
  if ((err as NodeJS.ErrnoException).code === 'ENOENT' && rel.includes('\uFFFD')) {
    return { path: rel, code: 'invalid_file_name', message: 'the file name is not valid UTF-8 (shown with \uFFFD); rename it to index it' };
  }
  return { path: rel, code: 'unreadable', message: err.message };
}

export async function watchRules(root: string, excludes: readonly string[]): Promise<(rel: string, isDir: boolean) => boolean> {
  const base = rootRules(root, excludes);
  return (rel, isDir) => rel === '.git' || rel.startsWith('.git/') || isIgnored(base, [], rel, isDir);
}

async function readIgnore(file: string): Promise<string | null> {
  try { return await fs.readFile(file, 'utf8'); } catch { return null; }
}

function readIgnoreSync(file: string): string | null {
  try { return readFileSync(file, 'utf8'); } catch { return null; }
}

export async function walk(root: string, opts: WalkOptions): Promise<WalkResult> {
  const files: WalkedFile[] = [];
  const diagnostics: WalkDiagnostic[] = [];
  const nested: string[] = [];
  const extras: WalkedExtra[] = [];
  const notIndexed: NotIndexed = {};
  const rootReal = await fs.realpath(root);
  const visited = new Set<string>([rootReal]);
  const base = rootRules(root, opts.excludes);
  const ignored = (levels: Level[], rel: string, isDir: boolean): boolean => isIgnored(base, levels, rel, isDir);

  async function visit(dirAbs: string, dirRel: string, levels: Level[]): Promise<void> {
    if (opts.signal?.aborted) return;
    let entries: Dirent[];
    try { entries = await fs.readdir(dirAbs, { withFileTypes: true }); }
    catch (e) { diagnostics.push({ path: dirRel || '.', code: 'unreadable', message: `cannot read folder: ${(e as Error).message}` }); return; }
    const gi = entries.some(e => e.name === '.gitignore') ? await readIgnore(join(dirAbs, '.gitignore')) : null;
    const here = gi ? [...levels, { base: dirRel, ig: ignore({ allowRelativePaths: true }).add(gi) }] : levels;
    if (dirRel && entries.some(e => e.name === '.git')) nested.push(dirRel);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: [string, string][] = [];
    // Candidate files of this folder, stat-ed together below (one round trip per folder, not per file).
    const candidates: { rel: string; abs: string; language: FileLanguage | null; extra: boolean }[] = [];
    for (const e of entries) {
      const rel = dirRel ? `${dirRel}/${e.name}` : e.name;
      const abs = join(dirAbs, e.name);
      let isDir = e.isDirectory(); let isFile = e.isFile();
      if (e.isSymbolicLink()) {
        try {
          const { real, inside } = await resolveInside(rootReal, abs);
          const st = await fs.stat(real);
          if (!inside) {
            if (!ignored(here, rel, st.isDirectory()) && (st.isDirectory() || languageForPath(rel))) diagnostics.push({ path: rel, code: 'outside_workspace', message: `symlink points outside the workspace (${real}); skipped` });
            continue;
          }
          if (st.isDirectory()) {
            if (visited.has(real)) { diagnostics.push({ path: rel, code: 'symlink_loop', message: 'symlink to a folder already walked (loop or duplicate); skipped' }); continue; }
            isDir = true;
          } else isFile = st.isFile();
        } catch (err) {
          diagnostics.push({ path: rel, code: 'broken_symlink', message: `cannot follow symlink: ${(err as Error).message}` });
          continue;
        }
      }
      if (!isDir && !isFile && (e.isFIFO() || e.isSocket() || e.isCharacterDevice() || e.isBlockDevice())) {
        // reading one would block or never end: said, never read
        if (languageForPath(rel) && !ignored(here, rel, false)) {
          diagnostics.push({ path: rel, code: 'not_a_file', message: `${specialKind(e)}, not a regular file; skipped` });
        }
        continue;
      }
      if (isDir) {
        if (ignored(here, rel, true)) continue;
        subdirs.push([abs, rel]);
      } else if (isFile) {
        if (ignored(here, rel, false)) continue;
        const language = classify(rel, opts);
        const extra = !isLanguageId(language) && !!opts.extra?.(rel);
        if (isReason(language)) countNotIndexed(notIndexed, language, rel);
        if (!isReason(language) || extra) candidates.push({ rel, abs, language: isReason(language) ? null : language, extra });
      }
    }
    const stats = await Promise.all(candidates.map(c => fs.stat(c.abs).then(st => st, (err: Error) => err)));
    candidates.forEach((c, i) => {
      const st = stats[i]!;
      const fits = !(st instanceof Error) && st.isFile() && st.size <= opts.maxFileBytes;
      if (c.extra && fits) extras.push({ path: c.rel, abs: c.abs, size: st.size, mtime_ms: st.mtimeMs });
      if (!c.language) return;
      if (st instanceof Error) { diagnostics.push(unreadable(c.rel, st)); return; }
      if (st.size > opts.maxFileBytes) {
        diagnostics.push({ path: c.rel, code: 'too_large', message: `${st.size} bytes is over the ${opts.maxFileBytes}-byte limit; not indexed` });
        return;
      }
      const file: WalkedFile = { path: c.rel, abs: c.abs, language: c.language, size: st.size, mtime_ms: st.mtimeMs };
      files.push(file);
      opts.onFile?.(file);
    });
    for (const [abs, rel] of subdirs) {
      try { const real = await fs.realpath(abs); if (visited.has(real) && real !== abs) continue; visited.add(real); } catch { /* reported on read */ }
      await visit(abs, rel, here);
    }
  }

  await visit(root, '', []);
  return { files, diagnostics, nested_repos: nested, extras, not_indexed: notIndexed };
}

/** What a look at named paths found (no walk): the files to index among them, and the paths that are not. */
export interface PathsResult {
  files: WalkedFile[]; extras: WalkedExtra[];
  /** paths with nothing indexable now (deleted, ignored, unreadable, too large, not a language): what was indexed there goes */
  absent: string[];
  diagnostics: WalkDiagnostic[];
  /** set when these paths cannot be judged one by one (a folder appeared, ignore rules changed): walk the root */
  needs_walk: string | null;
}

/**
 * The walk's rules applied to some root-relative paths only (a watcher's or the editor's changed files):
 * the same excludes, `.gitignore` files of every ancestor folder, `.git/info/exclude`, symlink containment,
 * languages and size limit, without reading any other folder. Its reads are synchronous: a few paths, each
 * a handful of system calls of microseconds, where each asynchronous one waits for a thread-pool turn (on a
 * busy machine, a wait of milliseconds each: 10-180 ms per edit in the editor's engine at 5M lines).
 */
export function walkPaths(root: string, rels: readonly string[], opts: WalkOptions): PathsResult {
  const out: PathsResult = { files: [], extras: [], absent: [], diagnostics: [], needs_walk: null };
  const rootReal = realpathSync(root);
  const base = rootRules(root, opts.excludes);
  const levelCache = new Map<string, Ignore | null>();
  const levelOf = (dir: string) => {
    let ig = levelCache.get(dir);
    if (ig === undefined) { const t = readIgnoreSync(join(root, dir, '.gitignore')); ig = t === null ? null : ignore({ allowRelativePaths: true }).add(t); levelCache.set(dir, ig); }
    return ig;
  };
  for (const rel of [...new Set(rels)].sort()) {
    const parts = rel.split('/');
    if (parts[parts.length - 1] === '.gitignore' || rel === '.git/info/exclude') { out.needs_walk = `ignore rules changed (${rel})`; return out; }
    if (parts[0] === '.git') continue; // git's own files: the history phase reads HEAD itself
    // ignored when the path or any folder above it is, by the root's rules or a .gitignore above it
    const levels: Level[] = [];
    let ignored = false;
    for (let i = 0; i < parts.length && !ignored; i++) {
      const dir = parts.slice(0, i).join('/');
      const ig = levelOf(dir);
      if (ig) levels.push({ base: dir, ig });
      ignored = isIgnored(base, levels, parts.slice(0, i + 1).join('/'), i < parts.length - 1);
    }
    if (ignored) { out.absent.push(rel); continue; }
    const abs = join(root, rel);
    let st;
    try {
      const real = realpathSync(abs);
      if (!isInside(rootReal, real)) {
        if (languageForPath(rel)) out.diagnostics.push({ path: rel, code: 'outside_workspace', message: `symlink points outside the workspace (${real}); skipped` });
        out.absent.push(rel); continue;
      }
      st = statSync(real);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' && (e as NodeJS.ErrnoException).code !== 'ENOTDIR') out.diagnostics.push({ path: rel, code: 'unreadable', message: (e as Error).message });
      out.absent.push(rel); continue;
    }
    if (st.isDirectory()) { out.needs_walk = `a folder changed (${rel})`; return out; }
    if (!st.isFile()) { out.absent.push(rel); continue; }
    const language = classify(rel, opts);
    const extra = !isLanguageId(language) && !!opts.extra?.(rel) && st.size <= opts.maxFileBytes;
    if (extra) out.extras.push({ path: rel, abs, size: st.size, mtime_ms: st.mtimeMs });
    if (isReason(language)) { if (!extra) out.absent.push(rel); continue; }
    if (st.size > opts.maxFileBytes) {
      out.diagnostics.push({ path: rel, code: 'too_large', message: `${st.size} bytes is over the ${opts.maxFileBytes}-byte limit; not indexed` });
      out.absent.push(rel); continue;
    }
    out.files.push({ path: rel, abs, language, size: st.size, mtime_ms: st.mtimeMs });
  }
  return out;
}
