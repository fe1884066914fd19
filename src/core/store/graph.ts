/**
 * The heuristic graph of each repository: `graph_edges` (integer nodes: a symbol's rowid or -file_id)
 * and `unbound_calls` (call sites too ambiguous to bind, per calling file), and the graph-pending mark.
 */
import type { SqlValue } from 'sql.js';
import type { Db } from './db';
import type { TableSpec } from './tables';
import type { MetaTables } from './meta';
import type { GraphEdgeRow, NodeRow } from './rows';
import { SYMBOL_NODE_COLS } from './symbols';

const DROP_NODE_INDEXES = 'DROP INDEX IF EXISTS graph_edges_to; DROP INDEX IF EXISTS graph_edges_from;';

export const GRAPH_TABLES: TableSpec[] = [
  { name: 'graph_edges', owner: 'graph', deleteRepo: (db, repoId) => {
    db.exec('DELETE FROM graph_edges WHERE repo_id = ?', [repoId]);
    // A whole repository's graph is written at once: building the indexes afterwards (one sort each)
    // is several times faster than maintaining them row by row.
    db.run(DROP_NODE_INDEXES);
  } },
  { name: 'unbound_calls', owner: 'graph', deleteRepo: (db, repoId) => db.exec('DELETE FROM unbound_calls WHERE repo_id = ?', [repoId]) },
];

export interface GraphEdgeInput { from: number; to: number; kind: string; confidence: number; evidence: string; fileId: number; line: number }

export class GraphTables {
  constructor(private readonly db: Db, private readonly meta: MetaTables) {}

  /**
   * Whether a repository's files changed after its heuristic graph was built. Set with every file change
   * (in the same transaction), cleared by a graph build: a run stopped in between leaves it set.
   */
  graphPending(repoId: string): boolean { return this.meta.getMeta(`graph_pending:${repoId}`) !== null; }
  setGraphPending(repoId: string, pending: boolean): void {
    if (pending) this.meta.setMeta(`graph_pending:${repoId}`, '1');
    else this.meta.deleteMeta(`graph_pending:${repoId}`);
  }

  /**
   * Starts rewriting a repository's graph: all of it, or with `files` only the edges and unbound call
   * counts that those files' occurrences produced. A whole graph drops the node indexes until finishGraph.
   */
  beginGraph(repoId: string, files?: readonly number[]): void {
    if (files) {
      // An edge of file F starts at one of F's nodes (a definition of F, or F itself: -file_id), so the
      // node index finds them without a scan of the table (graph_edges has no file index: a full build
      // drops and rebuilds the node indexes, and a file index would be one more to rebuild and store).
      const list = JSON.stringify(files);
      this.db.exec(`DELETE FROM graph_edges WHERE from_node IN (SELECT -value FROM json_each(?1) UNION ALL SELECT rowid FROM symbols WHERE file_id IN (SELECT value FROM json_each(?1)))
        AND repo_id = ?2 AND file_id IN (SELECT value FROM json_each(?1))`, [list, repoId]);
      // `+repo_id`: the planner would otherwise take the primary key's repo_id prefix and read every row of the
      // repository (13 ms per edit at 5M lines, against 0.1 ms through the file index)
      this.db.exec('DELETE FROM unbound_calls WHERE +repo_id = ? AND file_id IN (SELECT value FROM json_each(?))', [repoId, list]);
      return;
    }
    // A whole repository's graph is written at once: building the indexes afterwards (one sort each)
    // is several times faster than maintaining them row by row, and so is deleting without them.
    this.db.run(DROP_NODE_INDEXES);
    // The only repository: an unconditional DELETE empties the table at once.
    if (this.db.count('SELECT count(*) AS n FROM repos WHERE repo_id <> ?', [repoId]) === 0) this.db.run('DELETE FROM graph_edges');
    else this.db.exec('DELETE FROM graph_edges WHERE repo_id = ?', [repoId]);
    this.db.exec('DELETE FROM unbound_calls WHERE repo_id = ?', [repoId]);
  }

  insertGraphEdges(repoId: string, edges: readonly GraphEdgeInput[]): void {
    // Many rows per statement: the per-call cost of sql.js dominates single-row inserts.
    const ROWS = 64;
    const many = this.db.stmt(`INSERT INTO graph_edges (repo_id, from_node, to_node, kind, confidence, evidence, file_id, line) VALUES ${Array(ROWS).fill('(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`);
    const one = this.db.stmt('INSERT INTO graph_edges (repo_id, from_node, to_node, kind, confidence, evidence, file_id, line) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    let i = 0;
    for (; i + ROWS <= edges.length; i += ROWS) {
      const params: SqlValue[] = [];
      for (let k = i; k < i + ROWS; k++) { const e = edges[k]!; params.push(repoId, e.from, e.to, e.kind, e.confidence, e.evidence, e.fileId, e.line); }
      many.run(params);
    }
    for (; i < edges.length; i++) { const e = edges[i]!; one.run([repoId, e.from, e.to, e.kind, e.confidence, e.evidence, e.fileId, e.line]); }
  }

  /** Stores the unbound call counts (per calling file) and rebuilds the node indexes. */
  finishGraph(repoId: string, unbound: ReadonlyMap<number, ReadonlyMap<string, number>>): void {
    const insU = this.db.stmt('INSERT INTO unbound_calls (repo_id, name, file_id, sites) VALUES (?, ?, ?, ?)');
    for (const [fileId, names] of unbound) for (const [name, sites] of names) insU.run([repoId, name, fileId, sites]);
    this.db.run('CREATE INDEX IF NOT EXISTS graph_edges_to ON graph_edges (to_node, kind); CREATE INDEX IF NOT EXISTS graph_edges_from ON graph_edges (from_node, kind);');
  }

  /** Files of a repository with heuristic edges into the given nodes. */
  filesWithEdgesTo(repoId: string, nodes: readonly number[]): number[] {
    return [...new Set(this.db.inBatches<{ file_id: number }>([...nodes], marks => `SELECT DISTINCT file_id FROM graph_edges WHERE to_node IN (${marks}) AND repo_id = ?`, [repoId]).map(r => r.file_id))];
  }

  /** Deletes the heuristic edges out of the given nodes (definitions an edit removed or renumbered). */
  deleteEdgesFrom(repoId: string, nodes: readonly number[]): void {
    if (nodes.length) this.db.exec('DELETE FROM graph_edges WHERE from_node IN (SELECT value FROM json_each(?)) AND repo_id = ?', [JSON.stringify(nodes), repoId]);
  }

  graphEdgeCount(repoId?: string): number {
    return repoId ? this.db.count('SELECT count(*) AS n FROM graph_edges WHERE repo_id = ?', [repoId]) : this.db.count('SELECT count(*) AS n FROM graph_edges');
  }

  /** Heuristic edges into (dir 'in') or out of (dir 'out') the given nodes. */
  graphEdges(nodes: number[], dir: 'in' | 'out', kinds: readonly string[]): GraphEdgeRow[] {
    const col = dir === 'in' ? 'to_node' : 'from_node';
    return this.db.inBatches<GraphEdgeRow>(nodes, marks => `SELECT from_node, to_node, kind, confidence, evidence, file_id, line FROM graph_edges
      WHERE ${col} IN (${marks}) AND kind IN (${kinds.map(() => '?').join(',')})`, [...kinds]);
  }

  /**
   * Every heuristic edge of the given kinds (of one repository or all), as columns: what whole-graph
   * computations (the overview's PageRank) read in one pass instead of row objects.
   */
  edgeColumns(kinds: readonly string[], repoId?: string): { from: Int32Array; to: Int32Array; kind: Uint8Array; confidence: Float32Array; fileId: Int32Array; length: number } {
    const n = repoId ? this.db.count(`SELECT count(*) AS n FROM graph_edges WHERE repo_id = ? AND kind IN (${kinds.map(() => '?').join(',')})`, [repoId, ...kinds])
      : this.db.count(`SELECT count(*) AS n FROM graph_edges WHERE kind IN (${kinds.map(() => '?').join(',')})`, [...kinds]);
    const out = { from: new Int32Array(n), to: new Int32Array(n), kind: new Uint8Array(n), confidence: new Float32Array(n), fileId: new Int32Array(n), length: 0 };
    const kindIndex = new Map(kinds.map((k, i) => [k, i]));
    const st = this.db.raw.prepare(`SELECT from_node, to_node, kind, confidence, file_id FROM graph_edges WHERE ${repoId ? 'repo_id = ? AND ' : ''}kind IN (${kinds.map(() => '?').join(',')})`);
    try {
      st.bind(repoId ? [repoId, ...kinds] : [...kinds]);
      let i = 0;
      while (st.step() && i < n) {
        const v = st.get();
        out.from[i] = v[0] as number; out.to[i] = v[1] as number; out.kind[i] = kindIndex.get(v[2] as string) ?? 0;
        out.confidence[i] = v[3] as number; out.fileId[i] = v[4] as number; i++;
      }
      out.length = i;
    } finally { st.free(); }
    return out;
  }

  unboundSites(repoId: string, names: string[]): Map<string, number> {
    const m = new Map<string, number>();
    for (const n of names) { const r = this.db.one<{ sites: number | null }>('SELECT sum(sites) AS sites FROM unbound_calls WHERE repo_id = ? AND name = ?', [repoId, n]); if (r?.sites) m.set(n, r.sites); }
    return m;
  }

  /** Symbols with the most incoming heuristic edges (functions, methods, classes): the best to verify first. */
  centralSymbols(limit: number): NodeRow[] {
    return this.db.rows<NodeRow & { rowid: number }>(`SELECT ${SYMBOL_NODE_COLS}
      FROM (SELECT to_node, count(*) AS n FROM graph_edges WHERE to_node > 0 AND kind IN ('calls', 'references') GROUP BY to_node ORDER BY n DESC LIMIT ?) top
      JOIN symbols s ON s.rowid = top.to_node JOIN files f ON f.file_id = s.file_id
      WHERE s.kind IN ('function', 'method', 'class', 'interface', 'struct', 'trait') ORDER BY top.n DESC`, [limit]).map(r => ({ ...r, node: r.rowid }));
  }


  /** Every heuristic edge of a repository (whole-repository views: analytics). */
  repoEdges(repoId: string): GraphEdgeRow[] {
    return this.db.all<GraphEdgeRow>('SELECT from_node, to_node, kind, confidence, evidence, file_id, line FROM graph_edges WHERE repo_id = ?', [repoId]);
  }

  /** Names with call sites too ambiguous to bind in a repository. */
  unboundNames(repoId: string): Set<string> {
    return new Set(this.db.all<{ name: string }>('SELECT DISTINCT name FROM unbound_calls WHERE repo_id = ?', [repoId]).map(r => r.name));
  }
}
