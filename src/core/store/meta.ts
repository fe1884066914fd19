/** Meta rows, repositories and per-repository diagnostics. */
import type { Db } from './db';
import type { TableSpec } from './tables';
import type { Diagnostic, RepoRow } from './rows';

export const META_TABLES: TableSpec[] = [
  { name: 'diagnostics', owner: 'meta', deleteRepo: (db, repoId) => db.exec('DELETE FROM diagnostics WHERE repo_id = ?', [repoId]) },
  { name: 'meta', owner: 'meta', kept: 'workspace-wide key/value rows (schema version, save time); a repository\'s graph_pending row is set again by the rebuild that follows' },
];
/** Last: a repository's row goes once everything that names it is gone. */
export const REPO_TABLES: TableSpec[] = [
  { name: 'repos', owner: 'meta', deleteRepo: (db, repoId) => db.exec('DELETE FROM repos WHERE repo_id = ?', [repoId]) },
];

/** Diagnostics of the walk and the parse that mean a file was not indexed. */
const SKIP_CODES = "('too_large','binary','unreadable','parse_failed','worker_crashed','broken_symlink','symlink_loop','not_a_file','invalid_file_name')";

export class MetaTables {
  constructor(private readonly db: Db) {}

  getMeta(key: string): string | null {
    return this.db.one<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key])?.value ?? null;
  }
  setMeta(key: string, value: string): void {
    this.db.exec('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [key, value]);
  }
  deleteMeta(key: string): void { this.db.exec('DELETE FROM meta WHERE key = ?', [key]); }

  repos(): RepoRow[] { return this.db.all<RepoRow>('SELECT * FROM repos ORDER BY root'); }
  repo(repoId: string): RepoRow | undefined { return this.db.one<RepoRow>('SELECT * FROM repos WHERE repo_id = ?', [repoId]); }
  upsertRepo(r: RepoRow): void {
    this.db.exec(`INSERT INTO repos (repo_id, root, name, indexed_at, indexed_commit, branch, dirty, nested_repos, last_run)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(repo_id) DO UPDATE SET root = excluded.root, name = excluded.name,
      indexed_at = excluded.indexed_at, indexed_commit = excluded.indexed_commit, branch = excluded.branch, dirty = excluded.dirty,
      nested_repos = excluded.nested_repos, last_run = excluded.last_run`,
    [r.repo_id, r.root, r.name, r.indexed_at, r.indexed_commit, r.branch, r.dirty, r.nested_repos, r.last_run]);
  }

  replaceDiagnostics(repoId: string, diags: Diagnostic[]): void {
    this.db.exec('DELETE FROM diagnostics WHERE repo_id = ?', [repoId]);
    for (const d of diags) this.db.exec('INSERT INTO diagnostics (repo_id, path, code, message) VALUES (?, ?, ?, ?)', [d.repo_id, d.path, d.code, d.message]);
  }
  diagnostics(repoId?: string): Diagnostic[] {
    return repoId ? this.db.all<Diagnostic>('SELECT * FROM diagnostics WHERE repo_id = ? ORDER BY path', [repoId])
      : this.db.all<Diagnostic>('SELECT * FROM diagnostics ORDER BY repo_id, path');
  }
  skippedFiles(repoId?: string): number {
    return repoId ? this.db.count(`SELECT count(*) AS n FROM diagnostics WHERE repo_id = ? AND code IN ${SKIP_CODES}`, [repoId])
      : this.db.count(`SELECT count(*) AS n FROM diagnostics WHERE code IN ${SKIP_CODES}`);
  }
}
