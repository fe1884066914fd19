/**
 * The workspace: its roots (each a repository with a stable repo_id) and how a `repo` or path argument
 * names one of them.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import { repoIdFor } from './util/ids';
import { SightlineError } from './errors';

export interface Root { repo_id: string; root: string; name: string }

export class Workspace {
  readonly roots: Root[];

  constructor(roots: readonly string[]) {
    if (!roots.length) throw new SightlineError('invalid_arguments', 'at least one workspace root is required');
    this.roots = roots.map(r => {
      const abs = resolve(r);
      if (!existsSync(abs) || !statSync(abs).isDirectory()) throw new SightlineError('not_found', `workspace root ${abs} is not a folder`);
      const real = realpathSync(abs);
      return { repo_id: repoIdFor(real), root: real, name: basename(real) };
    });
  }

  /** Resolves a `repo` argument (repo_id, root path, or a path inside a root) to a root. */
  resolveRepo(repo: string | undefined): Root | undefined {
    if (repo === undefined || repo === '') return undefined;
    const byId = this.roots.find(r => r.repo_id === repo);
    if (byId) return byId;
    const abs = isAbsolute(repo) ? resolve(repo) : resolve(this.roots[0]!.root, repo);
    let real = abs;
    try { real = realpathSync(abs); } catch { /* may not exist */ }
    const root = this.roots.find(r => real === r.root || real.startsWith(r.root + sep));
    if (!root) throw new SightlineError('path_outside_workspace', `${repo} is neither a repo_id nor a path inside the workspace`, { roots: this.roots.map(r => r.root), repo_ids: this.roots.map(r => r.repo_id) });
    return root;
  }

  /** Repo filter for graph lookups: a repo_id or path inside a root, or none. */
  repoFilter(repo?: string): string | undefined { return this.resolveRepo(repo)?.repo_id; }

  /** Workspace-relative path check used by tools that accept paths. */
  relativeToRoot(path: string): { root: Root; rel: string } {
    const root = this.resolveRepo(path)!;
    return { root, rel: relative(root.root, isAbsolute(path) ? path : resolve(this.roots[0]!.root, path)).split(sep).join('/') };
  }

  byId(repoId: string): Root | undefined { return this.roots.find(r => r.repo_id === repoId); }
}
