/** The heuristic graph of a saved index, with stable node names: what graph tests compare. */
import { readSavedIndex } from './saved-index';
import { Engine } from '../../src/core/engine';
import { tempWorkspace } from './workspace';

/** A saved index's heuristic graph with stable names for nodes (path#symbol_path, or path for a file), sorted. */
export async function graphOf(db: string): Promise<{ edges: string[]; unbound: [string, number][] }> {
  return readSavedIndex(db, d => {
    const node = (col: string) => `CASE WHEN ${col} > 0 THEN (SELECT f.path || '#' || s.symbol_path FROM symbols s JOIN files f USING (file_id) WHERE s.rowid = ${col})
      ELSE (SELECT path FROM files WHERE file_id = -${col}) END`;
    const rows = d.exec(`SELECT ${node('g.from_node')} || ' -> ' || ${node('g.to_node')} || ' ' || g.kind || ' ' || g.confidence || ' ' || g.evidence
      || ' @' || (SELECT path FROM files WHERE file_id = g.file_id) || ':' || g.line FROM graph_edges g`)[0]?.values ?? [];
    const unbound = (d.exec('SELECT name, sum(sites) FROM unbound_calls GROUP BY name ORDER BY name')[0]?.values ?? []) as [string, number][];
    return { edges: rows.map(r => String(r[0])).sort(), unbound };
  });
}

/** The graph of a fresh index of `root` (built from nothing, in a temporary index file). */
export async function freshGraph(root: string): Promise<{ edges: string[]; unbound: [string, number][] }> {
  const tmp = tempWorkspace({});
  try {
    const e = await Engine.open({ roots: [root], dbPath: tmp.db, threads: 0 });
    try { await e.index(); } finally { e.close(); }
    return await graphOf(tmp.db);
  } finally { tmp.remove(); }
}

