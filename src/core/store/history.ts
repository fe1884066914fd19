/**
 * Git history of each repository (the `history` phase writes it, the history service reads it):
 * per git repository of a root (the root's own and each nested one, `git_path` relative to the root,
 * '' for the root) the state of its last mine (head, shallow, status, the mined commits kept deflated
 * for the next incremental mine); per repository (root) the counted commits, per-file churn and
 * commits, co-change pairs and per-symbol commits. Paths are the index's (rebased onto the root).
 * Everything here is recomputable from git: the index is a cache.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Db } from './db';
import type { TableSpec } from './tables';
import type { MinedCommit } from '../history/mine';
import { ftsText } from '../util/tokens';

const HISTORY_TABLE_NAMES = ['history_symbols', 'history_pairs', 'history_files', 'history_commits', 'history_repos'] as const;

export const HISTORY_TABLES: TableSpec[] = HISTORY_TABLE_NAMES.map(name => ({
  name, owner: 'history' as const,
  clear: (db: Db) => db.exec(`DELETE FROM ${name}`),
  deleteRepo: (db: Db, repoId: string) => db.exec(`DELETE FROM ${name} WHERE repo_id = ?`, [repoId]),
}));

/** Why a git repository has (or has no) history. */
export type HistoryStatus = 'ok' | 'not_a_repository' | 'no_commits' | 'git_missing' | 'failed';

export interface HistoryRepoState {
  repo_id: string;
  /** the git repository's folder relative to the root ('' for the root itself) */
  git_path: string;
  /** its top-level folder (absolute) */
  top: string | null;
  status: HistoryStatus;
  message: string | null;
  /** the last mined commit (HEAD at the mine) */
  head: string | null;
  branch: string | null;
  shallow: boolean;
  commits_mined: number;
  commits_counted: number;
  files: number;
  pairs: number;
  /** the mine reached its limit (older history exists) */
  truncated: boolean;
  mined_at: number | null;
}

export interface HistoryCommitRow { sha: string; time: number; author: string; subject: string }
export interface HistoryFileRow { path: string; churn: number; commits: string[]; former_paths: string[] }
export interface HistoryPartnerRow { path: string; together_count: number; coupling: number }

/** A root's history as the file ranking reads it (see HistoryTables.searchHistory). */
export interface FileHistoryIndex {
  since: ReadonlyMap<string, number>; commits: ReadonlyMap<string, number>;
  postings: ReadonlyMap<string, ReadonlyMap<string, number>>; avg_commits: number;
}

interface RawState extends Omit<HistoryRepoState, 'shallow' | 'truncated'> { shallow: number; truncated: number }

const MINED_MEMO_REPOS = 16;

export class HistoryTables {
  /** the mined commits last read, per git repository of a root (see `mined`) */
  private readonly minedMemo = new Map<string, { stamp: string; value: readonly MinedCommit[] }>();
  /** per root, the last `searchHistory` read */
  private readonly searchMemo = new Map<string, { stamp: string; value: FileHistoryIndex }>();
  constructor(private readonly db: Db) {}

  states(repoId?: string): HistoryRepoState[] {
    const rows = repoId
      ? this.db.all<RawState>('SELECT repo_id, git_path, top, status, message, head, branch, shallow, commits_mined, commits_counted, files, pairs, truncated, mined_at FROM history_repos WHERE repo_id = ? ORDER BY git_path', [repoId])
      : this.db.all<RawState>('SELECT repo_id, git_path, top, status, message, head, branch, shallow, commits_mined, commits_counted, files, pairs, truncated, mined_at FROM history_repos ORDER BY repo_id, git_path');
    return rows.map(r => ({ ...r, shallow: !!r.shallow, truncated: !!r.truncated }));
  }

  /** The commits kept from the last mine of one git repository (newest first), for an incremental mine. */
  mined(repoId: string, gitPath: string): readonly MinedCommit[] {
    // An edit of bodies reads them to move its symbols' commits: inflating and parsing hundreds of commits'
    // hunks on every edit cost tens of milliseconds. The last one read is kept while its row says the same
    // (head and blob size: a rolled-back or rewritten mine changes one or the other).
    const r = this.db.one<{ head: string | null; n: number | null }>('SELECT head, length(mined) AS n FROM history_repos WHERE repo_id = ? AND git_path = ?', [repoId, gitPath]);
    if (!r?.n) return [];
    const key = `${repoId}\0${gitPath}`; const stamp = `${r.head}\0${r.n}`;
    const memo = this.minedMemo.get(key);
    if (memo?.stamp === stamp) { this.minedMemo.delete(key); this.minedMemo.set(key, memo); return memo.value; }
    const blob = this.db.one<{ mined: Uint8Array }>('SELECT mined FROM history_repos WHERE repo_id = ? AND git_path = ?', [repoId, gitPath])!.mined;
    const value = JSON.parse(inflateRawSync(blob).toString('utf8')) as MinedCommit[];
    // a workspace of many git repositories keeps those edited lately (edits move between them)
    this.minedMemo.delete(key);
    if (this.minedMemo.size >= MINED_MEMO_REPOS) this.minedMemo.delete(this.minedMemo.keys().next().value!);
    this.minedMemo.set(key, { stamp, value });
    return value;
  }

  /** Records a git repository's state; `mined`: the commits to keep for the next mine, null for none, 'keep' to leave the stored ones. */
  /** Forgets where each git repository's top folder is (found again by the next run's probe): an exported index names no machine's folders. */
  forgetTops(): void { this.db.exec('UPDATE history_repos SET top = NULL'); }

  setState(s: HistoryRepoState, mined: readonly MinedCommit[] | null | 'keep'): void {
    const vals = [s.repo_id, s.git_path, s.top, s.status, s.message, s.head, s.branch, s.shallow ? 1 : 0, s.commits_mined, s.commits_counted, s.files, s.pairs, s.truncated ? 1 : 0, s.mined_at];
    const cols = 'repo_id, git_path, top, status, message, head, branch, shallow, commits_mined, commits_counted, files, pairs, truncated, mined_at';
    if (mined === 'keep') {
      this.db.exec(`INSERT INTO history_repos (${cols}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(repo_id, git_path) DO UPDATE SET top = excluded.top, status = excluded.status, message = excluded.message, head = excluded.head, branch = excluded.branch,
        shallow = excluded.shallow, commits_mined = excluded.commits_mined, commits_counted = excluded.commits_counted, files = excluded.files, pairs = excluded.pairs,
        truncated = excluded.truncated, mined_at = excluded.mined_at`, vals);
      return;
    }
    this.minedMemo.clear();
    const blob = mined && mined.length ? deflateRawSync(Buffer.from(JSON.stringify(mined), 'utf8'), { level: 1 }) : null;
    const order = (mined ?? []).map(c => c.sha).join(',');
    const marks = [...vals, blob, order].map(() => '?').join(', ');
    this.db.exec(`INSERT OR REPLACE INTO history_repos (${cols}, mined, order_shas) VALUES (${marks})`, [...vals, blob, order]);
  }

  /** Drops the state of git repositories no longer found in the root. */
  keepStates(repoId: string, gitPaths: readonly string[]): void {
    for (const s of this.states(repoId)) if (!gitPaths.includes(s.git_path)) this.db.exec('DELETE FROM history_repos WHERE repo_id = ? AND git_path = ?', [repoId, s.git_path]);
  }

  /** Replaces a repository's derived history (commits, files, pairs, symbols). */
  replaceDerived(repoId: string, d: {
    commits: HistoryCommitRow[]; files: HistoryFileRow[]; pairs: { a: string; b: string; together_count: number; coupling: number }[]; symbols: Map<string, string[]>;
  }): void {
    this.searchMemo.delete(repoId);
    for (const t of ['history_commits', 'history_files', 'history_pairs', 'history_symbols']) this.db.exec(`DELETE FROM ${t} WHERE repo_id = ?`, [repoId]);
    const ic = this.db.stmt('INSERT OR REPLACE INTO history_commits (repo_id, sha, time, author, subject) VALUES (?, ?, ?, ?, ?)');
    for (const c of d.commits) ic.run([repoId, c.sha, c.time, c.author, c.subject]);
    const iff = this.db.stmt('INSERT OR REPLACE INTO history_files (repo_id, path, churn, commits, former_paths) VALUES (?, ?, ?, ?, ?)');
    for (const f of d.files) iff.run([repoId, f.path, f.churn, f.commits.join(','), JSON.stringify(f.former_paths)]);
    const ip = this.db.stmt('INSERT OR REPLACE INTO history_pairs (repo_id, a, b, together_count, coupling) VALUES (?, ?, ?, ?, ?)');
    for (const p of d.pairs) ip.run([repoId, p.a, p.b, p.together_count, p.coupling]);
    const is = this.db.stmt('INSERT OR REPLACE INTO history_symbols (repo_id, symbol_id, commits) VALUES (?, ?, ?)');
    for (const [id, shas] of d.symbols) if (shas.length) is.run([repoId, id, shas.join(',')]);
  }

  /** Replaces the commits of some symbols (`ids`: every symbol whose row goes; `symbols`: the new rows). */
  replaceSymbols(repoId: string, ids: readonly string[], symbols: Map<string, string[]>): void {
    const del = this.db.stmt('DELETE FROM history_symbols WHERE symbol_id = ?');
    for (const id of ids) del.run([id]);
    const is = this.db.stmt('INSERT OR REPLACE INTO history_symbols (repo_id, symbol_id, commits) VALUES (?, ?, ?)');
    for (const [id, shas] of symbols) if (shas.length) is.run([repoId, id, shas.join(',')]);
  }

  file(repoId: string, path: string): HistoryFileRow | undefined {
    const r = this.db.one<{ path: string; churn: number; commits: string; former_paths: string }>('SELECT path, churn, commits, former_paths FROM history_files WHERE repo_id = ? AND path = ?', [repoId, path]);
    return r ? { path: r.path, churn: r.churn, commits: r.commits ? r.commits.split(',') : [], former_paths: JSON.parse(r.former_paths || '[]') } : undefined;
  }

  /** Co-change partners of a file, ranked by coupling, then together_count, then path. */
  partners(repoId: string, path: string, limit = 1000): HistoryPartnerRow[] {
    return this.db.all<HistoryPartnerRow>(`SELECT path, together_count, coupling FROM (
        SELECT b AS path, together_count, coupling FROM history_pairs WHERE repo_id = ? AND a = ?
        UNION ALL SELECT a AS path, together_count, coupling FROM history_pairs WHERE repo_id = ? AND b = ?)
      ORDER BY coupling DESC, together_count DESC, path LIMIT ?`, [repoId, path, repoId, path, limit]);
  }

  symbolCommits(symbolId: string): string[] | undefined {
    const r = this.db.one<{ commits: string }>('SELECT commits FROM history_symbols WHERE symbol_id = ?', [symbolId]);
    return r ? (r.commits ? r.commits.split(',') : []) : undefined;
  }

  commits(repoId: string, shas: readonly string[]): Map<string, HistoryCommitRow> {
    const rows = this.db.inBatches<HistoryCommitRow>(shas, marks => `SELECT sha, time, author, subject FROM history_commits WHERE sha IN (${marks}) AND repo_id = ?`, [repoId]);
    return new Map(rows.map(r => [r.sha, r]));
  }

  counts(repoId?: string): { commits: number; files: number; pairs: number; symbols: number } {
    const w = repoId ? ' WHERE repo_id = ?' : '';
    const p = repoId ? [repoId] : [];
    return {
      commits: this.db.count(`SELECT count(*) AS n FROM history_commits${w}`, p), files: this.db.count(`SELECT count(*) AS n FROM history_files${w}`, p),
      pairs: this.db.count(`SELECT count(*) AS n FROM history_pairs${w}`, p), symbols: this.db.count(`SELECT count(*) AS n FROM history_symbols${w}`, p),
    };
  }

  /**
   * What the search reads of a root's history, kept while the root's mined heads stay the same (one
   * small row read per call): per path, `since` = how many commits of its git repository are newer than
   * the newest counted one touching it (0: changed in the latest commit), `commits` = counted commits
   * touching it; and
   * `postings`: per token of the commit subjects (tokenised as the full-text index is), the paths whose
   * commits' subjects hold it, with how many of those commits do.
   */
  searchHistory(repoId: string): FileHistoryIndex {
    const stamp = this.db.one<{ s: string | null }>("SELECT group_concat(git_path || ':' || ifnull(head, '') || ':' || ifnull(mined_at, ''), ' ') AS s FROM history_repos WHERE repo_id = ?", [repoId])?.s ?? '';
    const memo = this.searchMemo.get(repoId);
    if (memo?.stamp === stamp) return memo.value;
    // Positions in each git repository's mined order (git log's, newest first): author times are not in
    // that order (a rebased or squashed change keeps its author's date).
    const position = new Map<string, number>();
    for (const r of this.db.all<{ order_shas: string }>('SELECT order_shas FROM history_repos WHERE repo_id = ?', [repoId])) {
      if (r.order_shas) r.order_shas.split(',').forEach((sha, i) => position.set(sha, i));
    }
    const words = new Map<string, string[]>();
    for (const c of this.db.all<{ sha: string; subject: string }>('SELECT sha, subject FROM history_commits WHERE repo_id = ?', [repoId])) {
      words.set(c.sha, [...new Set(ftsText(c.subject).split(' ').filter(Boolean))]);
    }
    const since = new Map<string, number>(), commits = new Map<string, number>(), postings = new Map<string, Map<string, number>>();
    for (const r of this.db.all<{ path: string; commits: string }>('SELECT path, commits FROM history_files WHERE repo_id = ?', [repoId])) {
      let n = 0;
      for (const sha of r.commits ? r.commits.split(',') : []) {
        const w = words.get(sha);
        if (!w) continue;
        if (!n && position.has(sha)) since.set(r.path, position.get(sha)!);
        n++;
        for (const t of w) { let p = postings.get(t); if (!p) postings.set(t, p = new Map()); p.set(r.path, (p.get(r.path) ?? 0) + 1); }
      }
      if (n) commits.set(r.path, n);
    }
    let total = 0; for (const n of commits.values()) total += n;
    const value: FileHistoryIndex = { since, commits, postings, avg_commits: commits.size ? total / commits.size : 0 };
    this.searchMemo.set(repoId, { stamp, value });
    return value;
  }

  /** Churn of every file of a root with history, and the number of commits of every symbol (analytics: hotspots). */
  repoChurn(repoId: string): { files: Map<string, number>; symbols: Map<string, number> } {
    const files = new Map(this.db.all<{ path: string; churn: number }>('SELECT path, churn FROM history_files WHERE repo_id = ?', [repoId]).map(r => [r.path, r.churn] as const));
    const symbols = new Map(this.db.all<{ symbol_id: string; commits: string }>('SELECT symbol_id, commits FROM history_symbols WHERE repo_id = ?', [repoId])
      .map(r => [r.symbol_id, r.commits ? r.commits.split(',').length : 0] as const));
    return { files, symbols };
  }
}
