/** Read-only git facts about a root (commit, branch, dirty). No network; every call has a deadline. */
import { execFile } from 'node:child_process';

function git(cwd: string, args: string[], timeoutMs = 5000): Promise<string | null> {
  return new Promise(resolve => {
    execFile('git', args, { cwd, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, windowsHide: true,
      env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' } },
    (err, stdout) => resolve(err ? null : stdout.toString()));
  });
}

export interface GitState { commit: string | null; branch: string | null; dirty: boolean | null; is_repo: boolean }

export async function gitState(root: string): Promise<GitState> {
  const top = await git(root, ['rev-parse', '--show-toplevel']);
  if (top === null) return { commit: null, branch: null, dirty: null, is_repo: false };
  const [commit, branch, status] = await Promise.all([
    git(root, ['rev-parse', '--verify', '-q', 'HEAD']),
    git(root, ['symbolic-ref', '--short', '-q', 'HEAD']),
    git(root, ['status', '--porcelain', '--untracked-files=normal', '--', '.'], 15000),
  ]);
  return { commit: commit?.trim() || null, branch: branch?.trim() || null, dirty: status === null ? null : status.trim().length > 0, is_repo: true };
}
