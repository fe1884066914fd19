/**
 * Reads of the git history the `history` phase stored (store/history.ts): a file's churn, commits and
 * co-change partners, a symbol's commits, and per repository why there is (or is no) history.
 */
import type { Store } from '../store/store';
import type { HistoryRepoState, HistoryPartnerRow, HistoryCommitRow } from '../store/history';
import { diffAgainst } from '../history/git';
import { parseDiff, type DiffFile } from '../history/diff';
import { rebaser } from '../pipeline/phases/history';
import type { Root } from '../workspace';

export interface HistoryCommit { sha: string; date: string; author: string; subject: string }
export interface FileHistoryAnswer { path: string; churn: number; commits: HistoryCommit[]; former_paths: string[] }

/** How sure a history answer is, per repository: `ok` or why there is no history. */
export interface HistoryAvailability {
  available: boolean;
  /** null when available; else a sentence: not a git repository, no commits, not indexed yet, … */
  reason: string | null;
  shallow: boolean;
  /** older history exists than what was mined (the counts are over the last 500 commits) */
  truncated: boolean;
  last_mined_commit: string | null;
}

export class HistoryReader {
  constructor(private readonly store: Store) {}

  states(repoId?: string): HistoryRepoState[] { return this.store.history.states(repoId); }

  /** Whether the repository holding `path` (a nested git repository or the root's) has history. */
  availability(repoId: string, path?: string): HistoryAvailability {
    const states = this.store.history.states(repoId);
    const s = (path ? states.filter(x => x.git_path && path.startsWith(x.git_path + '/')).sort((a, b) => b.git_path.length - a.git_path.length)[0] : undefined)
      ?? states.find(x => x.git_path === '');
    if (!s) return { available: false, reason: 'no history mined yet: run index_repo', shallow: false, truncated: false, last_mined_commit: null };
    const reason = s.status === 'ok' ? null
      : s.status === 'not_a_repository' ? 'not a git repository'
      : s.status === 'no_commits' ? 'the git repository has no commits'
      : s.status === 'git_missing' ? 'git is not installed' : `git failed: ${s.message ?? 'unknown error'}`;
    return { available: s.status === 'ok', reason, shallow: s.shallow, truncated: s.truncated, last_mined_commit: s.head };
  }

  commits(repoId: string, shas: readonly string[]): HistoryCommit[] {
    const m = this.store.history.commits(repoId, shas);
    return shas.map(sha => m.get(sha)).filter((c): c is HistoryCommitRow => !!c).map(toCommit);
  }

  file(repoId: string, path: string): { path: string; churn: number; shas: string[]; former_paths: string[] } {
    const f = this.store.history.file(repoId, path);
    return f ? { path, churn: f.churn, shas: f.commits, former_paths: f.former_paths } : { path, churn: 0, shas: [], former_paths: [] };
  }

  /** Files that usually change with `path`, coupling rounded to 3 decimals (what answers show). */
  partners(repoId: string, path: string, limit = 10): HistoryPartnerRow[] {
    return this.store.history.partners(repoId, path, limit).map(p => ({ ...p, coupling: Math.round(p.coupling * 1000) / 1000 }));
  }

  /** A symbol's commits (shas, newest first); undefined when the symbol has no recorded touch. */
  symbolShas(symbolId: string): string[] { return this.store.history.symbolCommits(symbolId) ?? []; }

  /**
   * The working tree (or `branch`) of every git repository of a root diffed against `base`, paths
   * rebased onto the index; a repository without the ref is skipped and says so.
   */
  async diffAgainstBase(root: Root, base: string, branch?: string): Promise<{ files: (DiffFile & { repo_id: string })[]; repositories: { path: string; diffed: boolean; reason: string | null }[]; diagnostics: string[] }> {
    const states = this.store.history.states(root.repo_id).filter(s => s.top);
    const tops = states.length ? states.map(s => ({ path: s.git_path, top: s.top! })) : [{ path: '', top: root.root }];
    const out = { files: [] as (DiffFile & { repo_id: string })[], repositories: [] as { path: string; diffed: boolean; reason: string | null }[], diagnostics: [] as string[] };
    for (const t of tops) {
      const d = await diffAgainst(t.top, base, { branch });
      if (!d.ok) { out.repositories.push({ path: t.path, diffed: false, reason: d.code === 'bad_revision' ? `no ${base}${branch ? ` or ${branch}` : ''} here: skipped` : `${d.code}: ${d.message}` }); continue; }
      out.repositories.push({ path: t.path, diffed: true, reason: null });
      const parsed = parseDiff(d.value);
      const rb = rebaser(root.root, t.top);
      for (const f of parsed.files) {
        const p = rb.toIndex(f.path); if (p === null) continue;
        out.files.push({ ...f, path: p, old_path: f.old_path === null ? null : rb.toIndex(f.old_path) ?? f.old_path, repo_id: root.repo_id });
      }
      out.diagnostics.push(...parsed.diagnostics.map(x => `${t.path || '.'}: diff line ${x.line}: ${x.message}`));
    }
    return out;
  }

  counts(repoId?: string) { return this.store.history.counts(repoId); }
}

const toCommit = (c: HistoryCommitRow): HistoryCommit => ({ sha: c.sha, date: new Date(c.time * 1000).toISOString(), author: c.author, subject: c.subject });
