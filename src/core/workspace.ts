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

  /**
   * Resolves a `repo` argument to a root: a repo_id, a root's folder name (when one root has it), or an
   * existing path inside a root. Anything else is an error, never silently "all repositories".
   */
  resolveRepo(repo: string | undefined): Root | undefined {
    if (repo === undefined || repo === '') return undefined;
    const byId = this.roots.find(r => r.repo_id === repo);
    if (byId) return byId;
    const byName = this.roots.filter(r => r.name === repo);
    if (byName.length === 1) return byName[0];
    const root = this.rootOf(repo);
    const known = { roots: this.roots.map(r => r.root), repo_ids: this.roots.map(r => r.repo_id) };
    if (!root) throw new SightlineError('path_outside_workspace', `${repo} is neither a repo_id nor a path inside the workspace`, known);
    const abs = isAbsolute(repo) ? resolve(repo) : resolve(this.roots[0]!.root, repo);
    if (!existsSync(abs)) {
      const names = this.roots.map(r => `${r.name} (${r.repo_id})`).join(', ');
      throw new SightlineError('not_found', `no repository ${repo}: not a repo_id, a root's name or an existing path; the workspace has ${names}`, known);
    }
    return root;
  }

  /**
   * A changed path as (root, path relative to it) by where it is, not where a link in it points: a file
   * that became a link out of the workspace is still that root's file (to be dropped), not an error.
   */
  changedPath(path: string): { root: Root; rel: string } {
    const abs = isAbsolute(path) ? resolve(path) : resolve(this.roots[0]!.root, path);
    const root = this.roots.find(r => abs === r.root || abs.startsWith(r.root + sep));
    return root ? { root, rel: relative(root.root, abs).split(sep).join('/') } : this.relativeToRoot(path);
  }

  /** The root holding a path (absolute, or relative to the first root), whether or not it exists. */
  private rootOf(path: string): Root | undefined {
    const abs = isAbsolute(path) ? resolve(path) : resolve(this.roots[0]!.root, path);
    let real = abs;
    try { real = realpathSync(abs); } catch { /* may not exist */ }
    return this.roots.find(r => real === r.root || real.startsWith(r.root + sep));
  }

  /** Repo filter for graph lookups: a repo_id or path inside a root, or none. */
  repoFilter(repo?: string): string | undefined { return this.resolveRepo(repo)?.repo_id; }

  /** Workspace-relative path check used by tools that accept paths. */
  relativeToRoot(path: string): { root: Root; rel: string } {
    const root = this.rootOf(path);
    if (!root) throw new SightlineError('path_outside_workspace', `${path} is not inside the workspace`, { roots: this.roots.map(r => r.root) });
    return { root, rel: relative(root.root, isAbsolute(path) ? path : resolve(this.roots[0]!.root, path)).split(sep).join('/') };
  }

  /**
   * A path glob as the index stores paths (relative to a root, `/`-separated): an absolute glob must lie
   * inside a root and is made relative to it.
   */
  relativeGlob(glob: string): string {
    const unix = glob.split(sep).join('/');
    if (!isAbsolute(glob)) return unix.replace(/^\.\//, '');
    const root = this.roots.find(r => unix === r.root || unix.startsWith(r.root.split(sep).join('/') + '/'));
    const roots = { roots: this.roots.map(r => r.root) };
    if (!root) throw new SightlineError('path_outside_workspace', `path ${glob} is not inside the workspace (paths are relative to a root, like src/**)`, roots);
    return unix.slice(root.root.length + 1) || '**';
  }

  byId(repoId: string): Root | undefined { return this.roots.find(r => r.repo_id === repoId); }
}
