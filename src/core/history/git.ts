/**
 * The git runner of the history module: the `git` CLI by argv (never a shell), with a deadline, an
 * output cap, `-c core.quotepath=off` (paths come out as raw UTF-8, only control characters, `"` and
 * `\` stay C-quoted) and `GIT_OPTIONAL_LOCKS=0` (a read never takes the index lock an editor's git
 * may want). Nothing here throws for a git condition: every failure is a typed `GitFailure`.
 *
 * Two ways to run: `runGit` buffers a small answer; `streamGit` hands stdout to a callback chunk by
 * chunk (the miner parses `git log -p` as it arrives and keeps no patch text).
 */
import { execFile, spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

export type GitErrorCode =
  | 'git_missing' // no `git` executable on PATH
  | 'not_a_repository'
  | 'no_commits' // a repository whose HEAD points at an unborn branch
  | 'bad_revision' // a commit asked for is not in the repository (e.g. a mined commit gc'd after a rewrite)
  | 'timeout'
  | 'output_too_large'
  | 'failed'; // any other non-zero exit

export interface GitFailure { ok: false; code: GitErrorCode; message: string; stderr?: string }
export type GitResult<T> = { ok: true; value: T } | GitFailure;

export interface GitOptions {
  /** Kill git after this long (default 10 s for `runGit`, 120 s for `streamGit`). */
  timeoutMs?: number;
  /** Stop and fail with `output_too_large` past this many bytes of stdout (default 16 MiB / 1 GiB). */
  maxBytes?: number;
  /** The git executable (tests point it at a missing one). */
  gitPath?: string;
}

export const GIT_BASE_ARGS = ['-c', 'core.quotepath=off', '-c', 'color.ui=false', '-c', 'log.showSignature=false'];

export function gitEnv(): NodeJS.ProcessEnv {
  return { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', LC_ALL: 'C', LANG: 'C' };
}

function classify(stderr: string, fallback: GitErrorCode = 'failed'): GitErrorCode {
  const s = stderr.toLowerCase();
  if (s.includes('not a git repository')) return 'not_a_repository';
  if (s.includes('does not have any commits') || s.includes("ambiguous argument 'head'")) return 'no_commits';
  if (s.includes('bad object') || s.includes('bad revision') || s.includes('unknown revision') || s.includes('not a valid object name') || s.includes('invalid upstream') || s.includes('no such commit')) return 'bad_revision';
  return fallback;
}

/** The git command of an argv (its first word that is neither an option nor a `-c` value). */
function verb(args: string[]): string {
  for (let i = 0; i < args.length; i++) { if (args[i] === '-c') { i++; continue; } if (!args[i]!.startsWith('-')) return args[i]!; }
  return 'git';
}

function fail(code: GitErrorCode, message: string, stderr?: string): GitFailure {
  return { ok: false, code, message, ...(stderr ? { stderr: stderr.slice(0, 2000) } : {}) };
}

/** Run git in `cwd` with `args` (after the base `-c` options) and buffer stdout as UTF-8. */
export function runGit(cwd: string, args: string[], opts: GitOptions = {}): Promise<GitResult<string>> {
  const timeout = opts.timeoutMs ?? 10_000, maxBuffer = opts.maxBytes ?? 16 * 1024 * 1024;
  return new Promise(resolve => {
    execFile(opts.gitPath ?? 'git', [...GIT_BASE_ARGS, ...args], { cwd, timeout, maxBuffer, windowsHide: true, env: gitEnv(), encoding: 'buffer', killSignal: 'SIGKILL' },
      (err, stdout, stderrBuf) => {
        const stderr = stderrBuf ? stderrBuf.toString('utf8') : '';
        if (!err) return resolve({ ok: true, value: stdout.toString('utf8') });
        const e = err as NodeJS.ErrnoException & { killed?: boolean; signal?: string | null; code?: string | number };
        if (e.code === 'ENOENT' || e.code === 'ENOTDIR') {
          return resolve(existsDirSync(cwd) ? fail('git_missing', `git not found (${opts.gitPath ?? 'git'})`) : fail('not_a_repository', `no such folder: ${cwd}`));
        }
        if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') return resolve(fail('output_too_large', `git ${verb(args)}: more than ${maxBuffer} bytes of output`));
        if (e.killed || e.signal === 'SIGKILL') return resolve(fail('timeout', `git ${verb(args)}: no answer within ${timeout} ms`));
        resolve(fail(classify(stderr), `git ${verb(args)} failed: ${stderr.trim().split('\n')[0] ?? e.message}`, stderr));
      });
  });
}

/**
 * Run git and hand each stdout chunk to `onData` as it arrives (returning false stops git early and
 * still resolves ok: the caller has what it wanted). Resolves with the bytes seen.
 */
export function streamGit(cwd: string, args: string[], onData: (chunk: Buffer) => boolean | void, opts: GitOptions = {}): Promise<GitResult<number>> {
  const timeout = opts.timeoutMs ?? 120_000, maxBytes = opts.maxBytes ?? 1024 * 1024 * 1024;
  return new Promise(resolve => {
    let child;
    try {
      child = spawn(opts.gitPath ?? 'git', [...GIT_BASE_ARGS, ...args], { cwd, windowsHide: true, env: gitEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      return resolve(fail('failed', `cannot start git: ${(e as Error).message}`));
    }
    let bytes = 0, stderr = '', outcome: GitFailure | 'stopped' | null = null, settled = false;
    const finish = (r: GitResult<number>) => { if (!settled) { settled = true; clearTimeout(timer); resolve(r); } };
    const timer = setTimeout(() => { outcome = fail('timeout', `git ${verb(args)}: not done within ${timeout} ms`); child.kill('SIGKILL'); }, timeout);
    child.stdout.on('data', (chunk: Buffer) => {
      if (outcome) return;
      bytes += chunk.length;
      if (bytes > maxBytes) { outcome = fail('output_too_large', `git ${verb(args)}: more than ${maxBytes} bytes of output`); child.kill('SIGKILL'); return; }
      let more: boolean | void;
      try { more = onData(chunk); } catch (e) { outcome = fail('failed', `parsing git ${verb(args)} output: ${(e as Error).message}`); child.kill('SIGKILL'); return; }
      if (more === false) { outcome = 'stopped'; child.kill('SIGKILL'); }
    });
    child.stderr.on('data', (chunk: Buffer) => { if (stderr.length < 64 * 1024) stderr += chunk.toString('utf8'); });
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') finish(fail(existsDirSync(cwd) ? 'git_missing' : 'not_a_repository', existsDirSync(cwd) ? `git not found (${opts.gitPath ?? 'git'})` : `no such folder: ${cwd}`));
      else finish(fail('failed', `git ${verb(args)}: ${e.message}`));
    });
    child.on('close', (code) => {
      if (outcome === 'stopped') return finish({ ok: true, value: bytes });
      if (outcome) return finish(outcome);
      if (code === 0) return finish({ ok: true, value: bytes });
      finish(fail(classify(stderr), `git ${verb(args)} failed: ${stderr.trim().split('\n')[0] ?? `exit ${code}`}`, stderr));
    });
  });
}

function existsDirSync(p: string): boolean {
  try { return statSync(p).isDirectory(); } catch { return false; }
}

/** What the miner needs to know about a repository before reading its log. */
export interface RepoProbe {
  /** The repository's top-level folder (absolute, as git prints it). */
  top: string;
  /** HEAD's commit. */
  head: string;
  /** The branch HEAD is on, or null when HEAD is detached (a fine state: the log is HEAD's). */
  branch: string | null;
  detached: boolean;
  /** A shallow clone: history stops at graft points, and those boundary commits must not count. */
  shallow: boolean;
}

/** Probe `cwd`: 3 short git calls. `no_commits`, `not_a_repository`, `git_missing` come back typed. */
export async function probeRepository(cwd: string, opts: GitOptions = {}): Promise<GitResult<RepoProbe>> {
  const top = await runGit(cwd, ['rev-parse', '--show-toplevel', '--is-shallow-repository'], opts);
  if (!top.ok) return top;
  const [topLine, shallowLine] = top.value.split('\n');
  if (!topLine) return fail('not_a_repository', `${cwd} is not inside a work tree (bare repository?)`);
  const head = await headCommit(cwd, opts);
  if (!head.ok) return head;
  const branch = await runGit(cwd, ['symbolic-ref', '-q', '--short', 'HEAD'], opts);
  const name = branch.ok ? branch.value.trim() || null : null;
  return { ok: true, value: { top: topLine.trim(), head: head.value, branch: name, detached: name === null, shallow: shallowLine?.trim() === 'true' } };
}

/** HEAD's commit sha; `no_commits` in a repository with no commit yet. */
export async function headCommit(cwd: string, opts: GitOptions = {}): Promise<GitResult<string>> {
  const r = await runGit(cwd, ['rev-parse', '--verify', '-q', 'HEAD^{commit}'], opts);
  if (r.ok) return { ok: true, value: r.value.trim() };
  if (r.code === 'failed' || r.code === 'bad_revision') {
    // `--verify -q` says nothing on an unborn HEAD: tell "no commits" from "not a repository".
    const inside = await runGit(cwd, ['rev-parse', '--git-dir'], opts);
    if (!inside.ok) return inside;
    return fail('no_commits', `${cwd}: the repository has no commits yet`);
  }
  return r;
}

/** Is commit `old` an ancestor of (or equal to) `next`? false when `old` is unknown (gc'd after a rewrite). */
export async function isAncestor(cwd: string, old: string, next: string, opts: GitOptions = {}): Promise<GitResult<boolean>> {
  if (old === next) return { ok: true, value: true };
  if (!/^[0-9a-f]{4,64}$/i.test(old)) return { ok: true, value: false }; // never an option or a ref expression
  // Exit 0: ancestor; 1: not; anything else (e.g. 128 for a missing object): an error we map to false.
  const r = await runGit(cwd, ['merge-base', '--is-ancestor', old, next], opts);
  if (r.ok) return { ok: true, value: true };
  if (r.code === 'git_missing' || r.code === 'not_a_repository' || r.code === 'timeout') return r;
  return { ok: true, value: false };
}

/**
 * HEAD's commit read from the repository's files, with no git process: `.git` (a folder, or a
 * `gitdir:` file for worktrees and submodules), `HEAD`, the loose ref, `packed-refs` (in the common
 * folder of a worktree). So a warm restart can see "no new commit" without spawning git. Returns null
 * whenever anything is unusual (no commits, a reftable repository, a symbolic ref chain, unreadable
 * files): then ask `headCommit`.
 */
export function readHeadNoSpawn(top: string): { head: string; branch: string | null } | null {
  try {
    let gitDir = join(top, '.git');
    if (!statSync(gitDir).isDirectory()) {
      const m = /^gitdir: (.+?)\r?\n?$/.exec(readFileSync(gitDir, 'utf8'));
      if (!m) return null;
      gitDir = isAbsolute(m[1]!) ? m[1]! : resolve(top, m[1]!);
    }
    let common = gitDir;
    try { const c = readFileSync(join(gitDir, 'commondir'), 'utf8').trim(); if (c) common = isAbsolute(c) ? c : resolve(gitDir, c); } catch { /* not a worktree */ }
    try { if (/^\s*format\s*=\s*reftable/m.test(readFileSync(join(common, 'config'), 'utf8'))) return null; } catch { /* no config: fine */ }
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
    if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(head)) return { head, branch: null };
    const ref = /^ref: (refs\/\S+)$/.exec(head)?.[1];
    if (!ref) return null;
    const branch = ref.startsWith('refs/heads/') ? ref.slice(11) : null;
    for (const dir of ref.startsWith('refs/bisect/') || ref.startsWith('refs/worktree/') ? [gitDir] : [gitDir, common]) {
      try {
        const v = readFileSync(join(dir, ref), 'utf8').trim();
        if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(v)) return { head: v, branch };
        return null; // a symbolic ref or junk
      } catch { /* not loose here */ }
    }
    let packed: string;
    try { packed = readFileSync(join(common, 'packed-refs'), 'utf8'); } catch { return null; }
    for (const line of packed.split('\n')) {
      const sp = line.indexOf(' ');
      if (sp > 0 && line.slice(sp + 1).replace(/\r$/, '') === ref && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(line.slice(0, sp))) return { head: line.slice(0, sp), branch };
    }
    return null; // unborn branch
  } catch {
    return null;
  }
}

/**
 * Diff text for `context_for_change(base)`: the working tree against `base` (tracked files; untracked
 * ones are not in `git diff`), or with `branch` the branch against its merge base with `base`
 * (`base...branch`, as a pull request shows it). `bad_revision` when the repository lacks a ref,
 * so the caller can skip that repository and say so. Feed the text to `parseDiff`.
 */
export async function diffAgainst(cwd: string, base: string, opts: GitOptions & { branch?: string } = {}): Promise<GitResult<string>> {
  for (const ref of opts.branch ? [base, opts.branch] : [base]) {
    if (ref.startsWith('-')) return fail('bad_revision', `not a revision: ${ref}`);
    const r = await runGit(cwd, ['rev-parse', '--verify', '-q', `${ref}^{commit}`], opts);
    if (!r.ok) return r.code === 'failed' ? fail('bad_revision', `${cwd}: no commit ${ref}`) : r;
  }
  const range = opts.branch ? [`${base}...${opts.branch}`] : [base];
  return runGit(cwd, ['diff', '--no-color', '--no-ext-diff', '--no-textconv', '-M', '--src-prefix=a/', '--dst-prefix=b/', '-U0', ...range, '--'], { maxBytes: 64 * 1024 * 1024, timeoutMs: 30_000, ...opts });
}
