/**
 * Edges of every provider but the heuristic one (language servers recorded by the editor, external and
 * first-party reference providers, parser-emitted edges), keyed by (from, to, kind, provider), and the
 * checks a compiler-grade provider made of each symbol.
 */
import type { Db } from './db';
import type { TableSpec } from './tables';
import type { NewEdge, ProviderCheckRow, ProviderEdgeRow } from './rows';
import { sqlId, symbolIdLike, fileNodeId } from '../util/ids';

/**
 * A file's edges are going (it changed or is gone): the symbols they pointed at lose references, so a
 * provider's check of them no longer holds (it is re-asked, and answers say unchecked until then).
 */
function uncheckTargetsOf(db: Parameters<NonNullable<TableSpec['deleteFile']>>[0], fileId: number): void {
  // row values on the primary key: each edge's target is looked up, no scan of the checks
  db.exec(`UPDATE provider_checks SET file_hash = '' WHERE (symbol_id, provider) IN
    (SELECT to_id, provider FROM edges WHERE file_id = ?)`, [fileId]);
}

export const PROVIDER_TABLES: TableSpec[] = [
  { name: 'edges', owner: 'provider-edges',
    deleteFile: (db, fileId) => { uncheckTargetsOf(db, fileId); db.exec('DELETE FROM edges WHERE file_id = ?', [fileId]); },
    // every edge recorded with a file (run before files is emptied); edges without a file stay
    clear: db => db.run('DELETE FROM edges WHERE file_id IN (SELECT file_id FROM files)') },
  { name: 'provider_checks', owner: 'provider-edges', kept: 'a check names a symbol id and the file content it was made against: a stale one is re-validated (staleLspChecks), a provider run replaces its own (removeProviderEdgesOf)' },
];

export class ProviderEdgeTables {
  constructor(private readonly db: Db) {}

  providerEdges(ids: string[], dir: 'in' | 'out', kinds: readonly string[]): ProviderEdgeRow[] {
    const col = dir === 'in' ? 'to_id' : 'from_id';
    return this.db.inBatches<ProviderEdgeRow>(ids, marks => `SELECT from_id, to_id, kind, provider, confidence, evidence, file_id FROM edges
      WHERE ${col} IN (${marks}) AND kind IN (${kinds.map(() => '?').join(',')})`, [...kinds]);
  }
  addProviderEdges(edges: (NewEdge & { file_id: number | null })[]): void {
    const ins = this.db.stmt('INSERT OR REPLACE INTO edges (from_id, to_id, kind, provider, confidence, evidence, file_id) VALUES (?, ?, ?, ?, ?, ?, ?)');
    for (const e of edges) ins.run([e.from_id, e.to_id, e.kind, e.provider, e.confidence, e.evidence, e.file_id]);
  }
  /** Edges a parser emitted with a file's content. */
  insertFileEdges(fileId: number, edges: readonly NewEdge[]): void {
    const ins = this.db.stmt('INSERT OR REPLACE INTO edges (from_id, to_id, kind, provider, confidence, evidence, file_id) VALUES (?, ?, ?, ?, ?, ?, ?)');
    for (const e of edges) ins.run([e.from_id, e.to_id, e.kind, e.provider, e.confidence, e.evidence, fileId]);
  }
  removeProviderEdges(provider: string, toIds: string[]): void {
    for (const id of toIds) this.db.exec('DELETE FROM edges WHERE provider = ? AND to_id = ?', [provider, id]);
  }
  removeProviderEdgesFrom(provider: string, fromId: string, kind: string): void {
    this.db.exec('DELETE FROM edges WHERE provider = ? AND from_id = ? AND kind = ?', [provider, fromId, kind]);
  }
  removeProviderEdgesOf(provider: string, repoId: string): void {
    this.db.exec('DELETE FROM edges WHERE provider = ? AND (file_id IS NULL OR file_id IN (SELECT file_id FROM files WHERE repo_id = ?))', [provider, repoId]);
    this.db.exec('DELETE FROM provider_checks WHERE provider = ? AND symbol_id LIKE ?', [provider, symbolIdLike(repoId)]);
  }
  /** Every stored edge of the given kinds, ends as public ids (the overview's PageRank adds them to the heuristic graph). */
  allEdges(kinds: readonly string[]): { from_id: string; to_id: string; kind: string; provider: string; confidence: number }[] {
    return this.db.all(`SELECT from_id, to_id, kind, provider, confidence FROM edges WHERE kind IN (${kinds.map(() => '?').join(',')})`, [...kinds]);
  }

  providerChecks(symbolIds: string[]): ProviderCheckRow[] {
    return this.db.inBatches<ProviderCheckRow>(symbolIds, marks => `SELECT * FROM provider_checks WHERE symbol_id IN (${marks})`);
  }
  setProviderCheck(c: ProviderCheckRow): void {
    this.db.exec(`INSERT INTO provider_checks (symbol_id, provider, file_hash, checked_at, results, complete) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT(symbol_id, provider) DO UPDATE SET file_hash = excluded.file_hash, checked_at = excluded.checked_at, results = excluded.results, complete = excluded.complete`,
    [c.symbol_id, c.provider, c.file_hash, c.checked_at, c.results, c.complete]);
  }
  /**
   * Per provider of a repository: symbols it checked, of those the ones checked against the content
   * their file has now (`current`, given each file's hash by path), and edges it stored.
   */
  providerCoverage(repoId: string, hashOf?: (path: string) => string | undefined): ProviderCoverage[] {
    const like = symbolIdLike(repoId);
    const prefix = symbolIdLike(repoId).slice(0, -1);
    const checks = this.db.rows<{ provider: string; symbol_id: string; file_hash: string }>(
      'SELECT provider, symbol_id, file_hash FROM provider_checks WHERE symbol_id LIKE ?', [like]);
    const edges = this.db.rows<{ provider: string; n: number }>('SELECT provider, count(*) AS n FROM edges WHERE to_id LIKE ? GROUP BY provider', [like]);
    const out = new Map<string, ProviderCoverage>();
    const get = (p: string) => out.get(p) ?? out.set(p, { provider: p, symbols_checked: 0, symbols_current: 0, edges: 0 }).get(p)!;
    for (const c of checks) {
      const o = get(c.provider);
      o.symbols_checked++;
      const rest = c.symbol_id.slice(prefix.length);
      if (hashOf?.(rest.slice(0, rest.lastIndexOf(':'))) === c.file_hash) o.symbols_current++;
    }
    for (const e of edges) get(e.provider).edges = e.n;
    return [...out.values()].sort((a, b) => a.provider.localeCompare(b.provider));
  }

  providerEdgeCount(): number { return this.db.count('SELECT count(*) AS n FROM edges'); }
  /** Edges recorded with a file of the repository (or of every repository). */
  edgeCountWithFiles(repoId?: string): number {
    return repoId ? this.db.count('SELECT count(*) AS n FROM edges e JOIN files f USING (file_id) WHERE f.repo_id = ?', [repoId])
      : this.db.count('SELECT count(*) AS n FROM edges e JOIN files f USING (file_id)');
  }

  /** Symbols a language server checked against a file content that has changed since. */
  staleLspChecks(limit: number): string[] {
    return this.db.rows<{ symbol_id: string }>(`SELECT pc.symbol_id AS symbol_id FROM provider_checks pc
      JOIN files f ON pc.symbol_id LIKE ${sqlId.symbolLike('f.repo_id', 'f.path')}
      WHERE pc.provider LIKE 'lsp:%' AND pc.file_hash <> f.hash ORDER BY pc.checked_at LIMIT ?`, [limit]).map(r => r.symbol_id);
  }

  /** Every provider edge starting at a symbol or file of a repository (whole-repository views: analytics). */
  repoEdges(repoId: string): ProviderEdgeRow[] {
    return this.db.all<ProviderEdgeRow>(`SELECT from_id, to_id, kind, provider, confidence, evidence, file_id FROM edges
      WHERE from_id LIKE ? OR from_id LIKE ?`, [symbolIdLike(repoId), fileNodeId(repoId, '%')]);
  }
}

export interface ProviderCoverage { provider: string; symbols_checked: number; symbols_current: number; edges: number }
