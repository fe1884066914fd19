/** Definitions (the symbols table) as graph nodes: lookups by name, path, id and rowid. */
import type { Db } from './db';
import type { NodeRow } from './rows';
import { OWNER_INDEX } from './schema';

/** A definition as graph resolution reads it. */
export interface GraphSymbolRow { id: number; fileId: number; name: string; sp: string; kind: string; parent: string | null; line: number }
/** Definitions read one question at a time (what graph/tables.ts calls a SymbolLookup). */
export interface GraphLookup {
  byName(name: string): GraphSymbolRow[]; byFile(fileId: number): GraphSymbolRow[]; methodsOfOwner(owner: string): GraphSymbolRow[];
  fileOf(id: number): number | undefined; subclassesOf(id: number): number[];
}
const GRAPH_COLS = `SELECT s.rowid AS id, s.file_id AS fileId, s.name AS name, s.symbol_path AS sp, s.kind AS kind, s.parent_path AS parent, s.start_line AS line
      FROM symbols s JOIN files f USING (file_id)`;

/** Columns of a NodeRow (a symbol with its file), for `FROM symbols s JOIN files f`. */
const NODE_COLS = `s.rowid AS rowid, f.repo_id AS repo_id, f.path AS path, f.language AS language, s.name AS name,
    s.symbol_path AS symbol_path, s.kind AS kind, s.start_line AS start_line, s.start_col AS start_col, s.end_line AS end_line,
    s.end_col AS end_col, s.parent_path AS parent_path, s.file_id AS file_id, s.chunk_key AS chunk_key`;
export const SYMBOL_NODE_COLS = NODE_COLS;

const asNodes = (rows: (NodeRow & { rowid: number })[]): NodeRow[] => rows.map(r => ({ ...r, node: r.rowid }));

export class SymbolTables {
  constructor(private readonly db: Db) {}

  /** Public identity and location of graph nodes (symbols by rowid, files by -file_id). */
  nodes(nodes: number[]): Map<number, NodeRow> {
    const m = new Map<number, NodeRow>();
    const syms = nodes.filter(n => n > 0); const files = nodes.filter(n => n < 0).map(n => -n);
    for (const r of this.db.inBatches<NodeRow & { rowid: number }>(syms, marks => `SELECT ${NODE_COLS}
        FROM symbols s JOIN files f USING (file_id) WHERE s.rowid IN (${marks})`)) m.set(r.rowid, { ...r, node: r.rowid });
    for (const r of this.db.inBatches<{ file_id: number; repo_id: string; path: string; language: string; line_count: number }>(files,
      marks => `SELECT file_id, repo_id, path, language, line_count FROM files WHERE file_id IN (${marks})`)) {
      m.set(-r.file_id, { node: -r.file_id, repo_id: r.repo_id, path: r.path, language: r.language, name: r.path.slice(r.path.lastIndexOf('/') + 1), symbol_path: null, kind: 'file',
        start_line: 1, start_col: 0, end_line: Math.max(1, r.line_count), end_col: 0, parent_path: null, file_id: r.file_id, chunk_key: null });
    }
    return m;
  }

  /** Symbols matching a name or qualified path, optionally narrowed by repo and path. */
  findSymbols(q: { repo_id?: string; path?: string; symbol_path?: string; name?: string }, limit = 50): NodeRow[] {
    const conds: string[] = []; const params: (string | number)[] = [];
    if (q.repo_id) { conds.push('f.repo_id = ?'); params.push(q.repo_id); }
    if (q.path) { conds.push('f.path = ?'); params.push(q.path); }
    if (q.symbol_path) { conds.push('s.symbol_path = ?'); params.push(q.symbol_path); }
    if (q.name) { conds.push('s.name = ?'); params.push(q.name); }
    return asNodes(this.db.rows<NodeRow & { rowid: number }>(`SELECT ${NODE_COLS}
      FROM symbols s JOIN files f USING (file_id) ${conds.length ? `WHERE ${conds.join(' AND ')}` : ''} ORDER BY f.path, s.start_line LIMIT ?`, [...params, limit]));
  }

  /**
   * Symbols by (repo, path, symbol_path), many at once (provider edges name their ends by id): two
   * batched queries instead of one or more per id. Keys that match nothing are absent from the map.
   */
  symbolsByKeys(keys: { repo_id: string; path: string; symbol_path: string }[]): Map<string, NodeRow> {
    const out = new Map<string, NodeRow>();
    const byRepo = new Map<string, Set<string>>();
    for (const k of keys) (byRepo.get(k.repo_id) ?? byRepo.set(k.repo_id, new Set()).get(k.repo_id)!).add(k.path);
    const fileIds: number[] = [];
    for (const [repo, paths] of byRepo) {
      for (const r of this.db.inBatches<{ file_id: number }>([...paths], marks => `SELECT file_id FROM files WHERE path IN (${marks}) AND repo_id = ?`, [repo])) fileIds.push(r.file_id);
    }
    if (!fileIds.length) return out;
    const wanted = new Set(keys.map(k => `${k.repo_id}\0${k.path}\0${k.symbol_path}`));
    const sps = [...new Set(keys.map(k => k.symbol_path))];
    for (let i = 0; i < fileIds.length; i += 300) {
      const part = fileIds.slice(i, i + 300);
      for (const r of this.db.inBatches<NodeRow & { rowid: number }>(sps, marks => `SELECT ${NODE_COLS}
          FROM symbols s JOIN files f USING (file_id) WHERE s.symbol_path IN (${marks}) AND s.file_id IN (${part.map(() => '?').join(',')})`, part)) {
        const key = `${r.repo_id}\0${r.path}\0${r.symbol_path}`;
        if (wanted.has(key) && !out.has(key)) out.set(key, { ...r, node: r.rowid });
      }
    }
    return out;
  }

  /** Distinct definition names matching a LIKE pattern (case-insensitive for ASCII), for "did you mean" suggestions. */
  symbolNames(like: string, repoId: string | undefined, limit: number): string[] {
    return this.db.rows<{ name: string }>(`SELECT DISTINCT s.name AS name FROM symbols s${repoId ? ' JOIN files f USING (file_id) WHERE f.repo_id = ? AND' : ' WHERE'} s.name LIKE ? LIMIT ?`,
      repoId ? [repoId, like, limit] : [like, limit]).map(r => r.name);
  }

  /** Every symbol's line range in a repository (or in some of its files), by path (the history phase maps commits onto them). */
  spans(repoId: string, paths?: readonly string[]): Map<string, { symbol_path: string; start_line: number; end_line: number }[]> {
    const out = new Map<string, { symbol_path: string; start_line: number; end_line: number }[]>();
    type Row = { path: string; symbol_path: string; start_line: number; end_line: number };
    const cols = 'SELECT f.path AS path, s.symbol_path AS symbol_path, s.start_line AS start_line, s.end_line AS end_line FROM symbols s JOIN files f USING (file_id)';
    const rows = paths
      ? this.db.inBatches<Row>(paths, m => `${cols} WHERE f.path IN (${m}) AND f.repo_id = ?`, [repoId])
      : this.db.all<Row>(`${cols} WHERE f.repo_id = ?`, [repoId]);
    for (const r of rows) {
      let l = out.get(r.path); if (!l) out.set(r.path, l = []);
      l.push({ symbol_path: r.symbol_path, start_line: r.start_line, end_line: r.end_line });
    }
    return out;
  }

  /** Every definition with its file id (no file columns): whole-graph computations (the overview) read this once per index state. */
  allSymbols(): { id: number; fileId: number; name: string; kind: string; sp: string; parent: string | null; start: number; end: number }[] {
    // rows as arrays (no per-row object of column names): this reads every definition of the index
    const out: { id: number; fileId: number; name: string; kind: string; sp: string; parent: string | null; start: number; end: number }[] = [];
    const st = this.db.raw.prepare('SELECT rowid, file_id, name, kind, symbol_path, parent_path, start_line, end_line FROM symbols');
    try {
      while (st.step()) {
        const v = st.get();
        out.push({ id: v[0] as number, fileId: v[1] as number, name: v[2] as string, kind: v[3] as string, sp: v[4] as string, parent: v[5] as string | null, start: v[6] as number, end: v[7] as number });
      }
    } finally { st.free(); }
    return out;
  }

  symbolsInFile(fileId: number): NodeRow[] {
    return asNodes(this.db.rows<NodeRow & { rowid: number }>(`SELECT ${NODE_COLS}
      FROM symbols s JOIN files f USING (file_id) WHERE s.file_id = ? ORDER BY s.start_line`, [fileId]));
  }

  /**
   * Symbols in a stable order (by path, then in the order the parser found them): where two candidates
   * tie, the graph takes the first, and the order files finish parsing in must not change which.
   */
  graphSymbols(repoId: string): GraphSymbolRow[] {
    return this.db.all(`${GRAPH_COLS} WHERE f.repo_id = ? ORDER BY f.path, s.rowid`, [repoId]);
  }

  /**
   * The same rows as graphSymbols, read on demand (graph/tables.ts `SymbolLookup`: a one-off partial graph
   * update reads what it needs instead of every definition): by name, by file, methods by owner path, a
   * definition's file. Same order as graphSymbols (by path, then row id).
   */
  graphLookup(repoId: string): GraphLookup {
    this.db.run(`CREATE INDEX IF NOT EXISTS ${OWNER_INDEX}`); // indexes of earlier builds lack it: made once, saved with the index
    return {
      byName: name => this.db.all(`${GRAPH_COLS} WHERE f.repo_id = ? AND s.name = ? ORDER BY f.path, s.rowid`, [repoId, name]),
      byFile: fileId => this.db.all(`${GRAPH_COLS} WHERE s.file_id = ? AND f.repo_id = ? ORDER BY s.rowid`, [fileId, repoId]),
      methodsOfOwner: owner => this.db.all(`${GRAPH_COLS} WHERE s.kind = 'method' AND s.parent_path = ? AND f.repo_id = ? ORDER BY f.path, s.rowid`, [owner, repoId]),
      fileOf: id => this.db.one<{ f: number }>('SELECT file_id AS f FROM symbols WHERE rowid = ?', [id])?.f,
      subclassesOf: id => this.db.all<{ n: number }>(`SELECT DISTINCT from_node AS n FROM graph_edges WHERE to_node = ? AND kind IN ('extends', 'implements')
        AND repo_id = ?`, [id, repoId]).map(r => r.n),
    };
  }

  /** Every symbol of a repository as a graph node, by path then line (whole-repository views: analytics). */
  /** The symbols of a kind in a repository's files of these languages. */
  symbolsOfKind(repoId: string, kind: string, languages: readonly string[]): NodeRow[] {
    if (!languages.length) return [];
    return asNodes(this.db.all<NodeRow & { rowid: number }>(`SELECT ${NODE_COLS}
      FROM symbols s JOIN files f USING (file_id) WHERE f.repo_id = ? AND s.kind = ? AND f.language IN (${languages.map(() => '?').join(', ')})`,
    [repoId, kind, ...languages]));
  }

  repoNodes(repoId: string): NodeRow[] {
    return asNodes(this.db.all<NodeRow & { rowid: number }>(`SELECT ${NODE_COLS}
      FROM symbols s JOIN files f USING (file_id) WHERE f.repo_id = ? ORDER BY f.path, s.start_line, s.rowid`, [repoId]));
  }
}
