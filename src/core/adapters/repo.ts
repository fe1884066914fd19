/**
 * The repository part of an adapter's template scope (`repo.*`), from a root and its git facts: `id`
 * (Sightline's repo id, util/ids.ts), `root` (real path), `dir` (the folder's name), `branch` (checked
 * out; absent when detached or not git), `remote` (origin as `host/owner/name`), `name` (the origin's
 * repository name, else the folder's), `slug` (the origin's `owner-name`, else the folder's name,
 * slugified). Git is read with a deadline and no network.
 */
import { execFile } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { repoIdFor } from '../util/ids';
import { slugify, type RepoVars } from './templates';

function git(cwd: string, args: string[]): Promise<string | undefined> {
  return new Promise(res => execFile('git', args, { cwd, timeout: 5000, windowsHide: true, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' } },
    (err, out) => res(err ? undefined : out.toString().trim() || undefined)));
}

/** `git@github.com:acme/shop.git` / `https://github.com/acme/shop` → `github.com/acme/shop`. */
export function remoteIdentity(url: string): string | undefined {
  const u = url.trim();
  let m = /^[^@/]+@([^:/]+):(.+)$/.exec(u); // scp-like
  let host: string | undefined; let path: string | undefined;
  if (m) { host = m[1]; path = m[2]; } else {
    try { const p = new URL(u); host = p.hostname; path = p.pathname; } catch { m = null; }
  }
  if (!host || !path) return undefined;
  const clean = path.replace(/^\/+|\/+$/g, '').replace(/\.git$/, '');
  return clean ? `${host.toLowerCase()}/${clean}` : undefined;
}

export async function repoVars(root: string): Promise<RepoVars> {
  let real = resolve(root);
  try { real = realpathSync(real); } catch { /* as given */ }
  const [branch, origin] = await Promise.all([git(real, ['symbolic-ref', '--short', '-q', 'HEAD']), git(real, ['config', '--get', 'remote.origin.url'])]);
  const remote = origin ? remoteIdentity(origin) : undefined;
  const remoteParts = remote?.split('/').slice(1) ?? [];
  const dir = basename(real);
  return {
    id: repoIdFor(real), root: real, dir, branch, remote,
    name: remoteParts.length ? remoteParts[remoteParts.length - 1]! : dir,
    slug: slugify(remoteParts.length ? remoteParts.join('-') : dir) || 'repo',
  };
}

