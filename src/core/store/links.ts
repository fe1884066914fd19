/**
 * Cross-boundary links (the `links` phase writes them, the links service reads them): the link sites
 * of each code file (written with the file by the scan, from the parser worker's extraction; they go
 * with the file), the config files the links phase read with their sites (per repository, by size and
 * mtime), each source's match groups (`link_groups`), the groups whose sites changed since the last
 * match (`link_dirty`: every write or delete of a source marks its old and new groups), and the matched
 * links of the whole workspace, each row in its group (the phase re-matches only the dirty groups).
 */
import type { Db } from './db';
import type { TableSpec } from './tables';
import type { LinkSite } from '../links/types';
import { siteGroups, type LinkRow, type PlacedSite } from '../links/match';

const fileSrc = (fileId: number) => `f:${fileId}`;
const configSrc = (repoId: string, path: string) => `c:${JSON.stringify([repoId, path])}`;
const configPrefix = (repoId: string) => `c:${JSON.stringify([repoId]).slice(0, -1)},`;
/** a source's groups become dirty and go (its sites are being replaced or deleted) */
function dropGroups(db: Db, where: string, params: string[]): void {
  db.exec(`INSERT OR IGNORE INTO link_dirty (grp) SELECT DISTINCT grp FROM link_groups WHERE ${where}`, params);
  db.exec(`DELETE FROM link_groups WHERE ${where}`, params);
}

export const LINK_TABLES: TableSpec[] = [
  { name: 'link_groups', owner: 'links', clear: db => db.run('DELETE FROM link_groups'),
    deleteFile: (db, fileId) => dropGroups(db, 'src = ?', [fileSrc(fileId)]), replacedByOwner: 'writeSites compares a rewritten file\'s sites and marks only changed ones dirty',
    deleteRepo: (db, repoId) => { const p = configPrefix(repoId); dropGroups(db, 'substr(src, 1, length(?)) = ?', [p, p]); } },
  { name: 'link_dirty', owner: 'links', clear: db => db.run('DELETE FROM link_dirty'), kept: 'groups to match again: a repository that goes leaves its groups dirty for the next match' },
  { name: 'link_sites', owner: 'links', deleteFile: (db, fileId) => db.exec('DELETE FROM link_sites WHERE file_id = ?', [fileId]), clear: db => db.run('DELETE FROM link_sites'),
    replacedByOwner: 'writeSites compares a rewritten file\'s sites and marks only changed ones dirty' },
  { name: 'link_config_files', owner: 'links', clear: db => db.run('DELETE FROM link_config_files'), deleteRepo: (db, repoId) => db.exec('DELETE FROM link_config_files WHERE repo_id = ?', [repoId]) },
  { name: 'links', owner: 'links', clear: db => db.run('DELETE FROM links'),
    deleteRepo: (db, repoId) => db.exec('DELETE FROM links WHERE repo_id = ? OR to_repo_id = ?', [repoId, repoId]) },
];

export interface ConfigFileRow { repo_id: string; path: string; size: number; mtime_ms: number }

const LINK_COLS = 'kind, key, from_id, to_id, matched, confidence, evidence, repo_id, path, line, col, end_line, end_col, to_repo_id, to_path, to_line, to_col, to_end_line, to_end_col';

export interface LinkQuery {
  kind?: string; repo_id?: string; matched?: boolean;
  /** links from or to these node ids */
  ids?: string[];
  /** links whose either site lies in this file (and line range) */
  at?: { repo_id: string; path: string; start_line: number; end_line: number };
  /** links of this key (the label, as `key` is stored) */
  key?: string;
}

export class LinkTables {
  constructor(private readonly db: Db) {}

  /** A code file's sites, replacing its previous ones (the scan calls it with the file's content). */
  writeSites(fileId: number, repoId: string, sites: readonly LinkSite[] | undefined): void {
    // the same sites at the same places (an edit elsewhere in the file): nothing to match again
    const data = sites?.length ? JSON.stringify(sites) : null;
    if ((this.db.one<{ data: string }>('SELECT data FROM link_sites WHERE file_id = ?', [fileId])?.data ?? null) === data) return;
    dropGroups(this.db, 'src = ?', [fileSrc(fileId)]);
    this.db.exec('DELETE FROM link_sites WHERE file_id = ?', [fileId]);
    if (sites?.length) {
      this.db.exec('INSERT INTO link_sites (file_id, repo_id, data) VALUES (?, ?, ?)', [fileId, repoId, data]);
      this.addGroups(fileSrc(fileId), repoId, sites!);
    }
  }
  private addGroups(src: string, repoId: string, sites: readonly LinkSite[]): void {
    const groups = new Set<string>();
    for (const s of sites) for (const g of siteGroups(s, repoId)) groups.add(g);
    const ins = this.db.stmt('INSERT OR IGNORE INTO link_groups (src, grp) VALUES (?, ?)');
    const dirty = this.db.stmt('INSERT OR IGNORE INTO link_dirty (grp) VALUES (?)');
    for (const g of groups) { ins.run([src, g]); dirty.run([g]); }
  }
  configFiles(repoId: string): Map<string, ConfigFileRow> {
    return new Map(this.db.all<ConfigFileRow>('SELECT repo_id, path, size, mtime_ms FROM link_config_files WHERE repo_id = ?', [repoId]).map(r => [r.path, r]));
  }
  writeConfigFile(f: ConfigFileRow, sites: readonly LinkSite[]): void {
    const src = configSrc(f.repo_id, f.path);
    const same = this.db.one<{ data: string }>('SELECT data FROM link_config_files WHERE repo_id = ? AND path = ?', [f.repo_id, f.path])?.data === JSON.stringify(sites);
    if (!same) { dropGroups(this.db, 'src = ?', [src]); this.addGroups(src, f.repo_id, sites); }
    this.db.exec('INSERT OR REPLACE INTO link_config_files (repo_id, path, size, mtime_ms, data) VALUES (?, ?, ?, ?, ?)', [f.repo_id, f.path, f.size, f.mtime_ms, JSON.stringify(sites)]);
  }
  deleteConfigFile(repoId: string, path: string): void {
    dropGroups(this.db, 'src = ?', [configSrc(repoId, path)]);
    this.db.exec('DELETE FROM link_config_files WHERE repo_id = ? AND path = ?', [repoId, path]); }

  /** Every site of the workspace, code and config, with its repository and path. */
  allSites(): PlacedSite[] {
    const out: PlacedSite[] = [];
    for (const r of this.db.all<{ repo_id: string; path: string; data: string }>('SELECT s.repo_id AS repo_id, f.path AS path, s.data AS data FROM link_sites s JOIN files f USING (file_id) ORDER BY f.repo_id, f.path')) {
      for (const s of JSON.parse(r.data) as LinkSite[]) out.push({ ...s, repo_id: r.repo_id, path: r.path });
    }
    for (const r of this.db.all<{ repo_id: string; path: string; data: string }>('SELECT repo_id, path, data FROM link_config_files ORDER BY repo_id, path')) {
      for (const s of JSON.parse(r.data) as LinkSite[]) out.push({ ...s, repo_id: r.repo_id, path: r.path });
    }
    return out;
  }
  /** The groups whose sites changed since the last match, and forgetting them. */
  dirtyGroups(): Set<string> { return new Set(this.db.all<{ grp: string }>('SELECT grp FROM link_dirty').map(r => r.grp)); }
  clearDirty(): void { this.db.run('DELETE FROM link_dirty'); }
  /** Every group that starts with a prefix (`http:`), as sources have them now. */
  groupsWithPrefix(prefix: string): string[] {
    return this.db.all<{ grp: string }>('SELECT DISTINCT grp FROM link_groups WHERE substr(grp, 1, length(?)) = ?', [prefix, prefix]).map(r => r.grp);
  }
  /** The sites of every source that has one of these groups, kept when `keep` says so. */
  sitesOfGroups(groups: Iterable<string>, keep: (s: PlacedSite) => boolean): PlacedSite[] {
    const srcs = new Set<string>();
    for (const r of this.db.inBatches<{ src: string }>([...groups], marks => `SELECT DISTINCT src FROM link_groups WHERE grp IN (${marks})`)) srcs.add(r.src);
    const files: number[] = []; const configs: [string, string][] = [];
    for (const s of srcs) if (s.startsWith('f:')) files.push(Number(s.slice(2))); else configs.push(JSON.parse(s.slice(2)) as [string, string]);
    const out: PlacedSite[] = [];
    const add = (repo_id: string, path: string, data: string) => { for (const s of JSON.parse(data) as LinkSite[]) { const p = { ...s, repo_id, path }; if (keep(p)) out.push(p); } };
    for (const r of this.db.inBatches<{ repo_id: string; path: string; data: string }>(files, marks => `SELECT s.repo_id AS repo_id, f.path AS path, s.data AS data FROM link_sites s JOIN files f USING (file_id) WHERE s.file_id IN (${marks})`)) add(r.repo_id, r.path, r.data);
    for (const [repo, path] of configs) { const r = this.db.one<{ data: string }>('SELECT data FROM link_config_files WHERE repo_id = ? AND path = ?', [repo, path]); if (r) add(repo, path, r.data); }
    return out.sort((a, b) => a.repo_id < b.repo_id ? -1 : a.repo_id > b.repo_id ? 1 : a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  }
  /** The node ids the stored links give a provider site (the matched links' targets, or its unmatched row's source). */
  providerIds(p: PlacedSite): string[] {
    return this.db.all<{ id: string }>(`SELECT to_id AS id FROM links WHERE matched = 1 AND to_repo_id = ? AND to_path = ? AND to_line = ? AND to_col = ?
      UNION SELECT from_id AS id FROM links WHERE matched = 0 AND repo_id = ? AND path = ? AND line = ? AND col = ?`, [p.repo_id, p.path, p.line, p.col, p.repo_id, p.path, p.line, p.col]).map(r => r.id);
  }
  /** Whether a provider site is the target of a matched link outside these groups. */
  matchedOutside(p: PlacedSite, groups: ReadonlySet<string>): boolean {
    const rows = this.db.all<{ grp: string }>('SELECT grp FROM links WHERE matched = 1 AND to_repo_id = ? AND to_path = ? AND to_line = ? AND to_col = ?', [p.repo_id, p.path, p.line, p.col]);
    return rows.some(r => !groups.has(r.grp));
  }
  siteCount(): number { return this.db.count('SELECT COUNT(*) AS n FROM link_sites'); }
  linkCount(): number { return this.db.count('SELECT COUNT(*) AS n FROM links'); }

  /** Replaces every link (`groups` absent) or the links of these groups. */
  replaceLinks(rows: readonly LinkRow[], groups?: ReadonlySet<string>): void {
    if (!groups) this.db.run('DELETE FROM links');
    else for (const g of groups) this.db.exec('DELETE FROM links WHERE grp = ?', [g]);
    const ins = this.db.stmt(`INSERT INTO links (grp, ${LINK_COLS}) VALUES (?, ${LINK_COLS.split(',').map(() => '?').join(', ')})`);
    for (const l of rows) ins.run([l.grp, l.kind, l.key, l.from_id, l.to_id, l.matched ? 1 : 0, l.confidence, l.evidence, l.repo_id, l.path, l.line, l.col, l.end_line, l.end_col, l.to_repo_id, l.to_path, l.to_line, l.to_col, l.to_end_line, l.to_end_col]);
  }
  linksBuilt(): boolean { return this.db.one<{ value: string }>("SELECT value FROM meta WHERE key = 'links_built'")?.value === '1'; }
  setLinksBuilt(): void { this.db.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('links_built', '1')"); }

  /** Links matching a query, strongest first, then by place. */
  links(q: LinkQuery): LinkRow[] {
    const conds: string[] = []; const params: (string | number)[] = [];
    if (q.kind) { conds.push('kind = ?'); params.push(q.kind); }
    if (q.repo_id) { conds.push('(repo_id = ? OR to_repo_id = ?)'); params.push(q.repo_id, q.repo_id); }
    if (q.matched !== undefined) { conds.push('matched = ?'); params.push(q.matched ? 1 : 0); }
    if (q.key !== undefined) { conds.push('(key = ? OR to_id = ?)'); params.push(q.key, q.key); }
    const either: string[] = [];
    if (q.ids?.length) { const m = q.ids.map(() => '?').join(','); either.push(`from_id IN (${m}) OR to_id IN (${m})`); params.push(...q.ids, ...q.ids); }
    if (q.at) {
      either.push('(repo_id = ? AND path = ? AND line BETWEEN ? AND ?) OR (to_repo_id = ? AND to_path = ? AND to_line BETWEEN ? AND ?)');
      const a = q.at; params.push(a.repo_id, a.path, a.start_line, a.end_line, a.repo_id, a.path, a.start_line, a.end_line);
    }
    if (either.length) conds.push(`(${either.join(' OR ')})`);
    return this.db.rows<Omit<LinkRow, 'matched'> & { matched: number }>(`SELECT ${LINK_COLS} FROM links ${conds.length ? `WHERE ${conds.join(' AND ')}` : ''}
      ORDER BY matched DESC, confidence DESC, kind, repo_id, path, line, col`, params).map(r => ({ ...r, matched: !!r.matched }));
  }
  /** Links into or out of nodes (impact follows them): `in` gives the consumers of providers. */
  linksOf(ids: readonly string[], dir: 'in' | 'out'): LinkRow[] {
    if (!ids.length) return [];
    const col = dir === 'in' ? 'to_id' : 'from_id';
    return this.db.inBatches<Omit<LinkRow, 'matched'> & { matched: number }>(ids as string[], marks => `SELECT ${LINK_COLS} FROM links WHERE matched = 1 AND ${col} IN (${marks})`).map(r => ({ ...r, matched: !!r.matched }));
  }
}
