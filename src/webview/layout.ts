/**
 * The impact graph's layout, pure (no DOM): the target in column 0, each dependent in the column of its
 * distance, and one horizontal band per module (folder) across all columns, so a module's dependents
 * line up. Also the filters and the keyboard moves between nodes (left/right by distance, up/down within
 * a column).
 */
import type { Affected, NodeRef } from './types';

export interface Filters { depth: number; minConfidence: number; showNameOnly: boolean; exactOnly: boolean }
export const DEFAULT_FILTERS: Filters = { depth: 6, minConfidence: 0, showNameOnly: true, exactOnly: false };

export type EdgeStyle = 'exact' | 'best_effort' | 'name_only';
export interface GNode {
  key: string; node: NodeRef; affected: Affected | null; module: string;
  col: number; row: number; x: number; y: number;
}
export interface GEdge { from: GNode; to: GNode | null; kind: EdgeStyle; x1: number; y1: number; x2: number; y2: number }
export interface Band { module: string; y: number; height: number }
export interface Layout { nodes: GNode[]; edges: GEdge[]; columns: GNode[][]; bands: Band[]; width: number; height: number }

export const GEOMETRY = { nodeW: 184, nodeH: 30, colGap: 64, rowGap: 8, bandPad: 8, bandLabel: 18, margin: 12, header: 14 } as const;

/** The dependents the filters keep. */
export function filterAffected(list: Affected[], f: Filters): Affected[] {
  return list.filter(a => a.distance <= f.depth && a.confidence >= f.minConfidence
    && (f.showNameOnly || !a.name_only) && (!f.exactOnly || a.resolution === 'exact'));
}

export const moduleOf = (path: string): string => { const i = path.lastIndexOf('/'); return i < 0 ? '.' : path.slice(0, i); };
export const labelOf = (n: NodeRef): string => n.symbol_path ?? n.path;
export const edgeStyle = (a: Affected): EdgeStyle => (a.name_only ? 'name_only' : a.resolution);

/**
 * The node an edge's evidence names as what the dependent uses ("<provider>: A calls B at …" → B), or
 * null. The impact answer records the edge that reached each dependent, not its source node.
 */
export function usedName(via: string): string | null {
  const m = /^.*?:\s+(\S+)\s+(?:calls|references|imports|extends|implements|uses|overrides)\s+(\S+?)(?:\s+at\s|\s*\(|$)/.exec(via);
  return m ? m[2]! : null;
}

export function layoutGraph(target: NodeRef, affected: Affected[]): Layout {
  const G = GEOMETRY;
  const slot = G.nodeH + G.rowGap;
  const maxCol = affected.reduce((m, a) => Math.max(m, a.distance), 0);
  // Modules, most dependents first, then by name.
  const counts = new Map<string, number>();
  for (const a of affected) counts.set(moduleOf(a.node.path), (counts.get(moduleOf(a.node.path)) ?? 0) + 1);
  const modules = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([m]) => m);
  const order = (a: Affected, b: Affected) => Number(a.via_container) - Number(b.via_container) || Number(a.name_only) - Number(b.name_only)
    || b.confidence - a.confidence || labelOf(a.node).localeCompare(labelOf(b.node)) || a.node.line - b.node.line;
  const colX = (c: number) => G.margin + c * (G.nodeW + G.colGap);

  const nodes: GNode[] = [];
  const bands: Band[] = [];
  let y = G.margin + G.header; // below the column headings
  for (const m of modules) {
    const inModule = affected.filter(a => moduleOf(a.node.path) === m);
    let rows = 0;
    for (let c = 1; c <= maxCol; c++) {
      const here = inModule.filter(a => a.distance === c).sort(order);
      here.forEach((a, i) => nodes.push({ key: a.node.id, node: a.node, affected: a, module: m, col: c, row: 0, x: colX(c), y: y + G.bandLabel + i * slot }));
      rows = Math.max(rows, here.length);
    }
    const height = G.bandLabel + rows * slot - G.rowGap + G.bandPad;
    bands.push({ module: m, y: y - G.bandPad / 2, height });
    y += height + G.bandPad;
  }
  const contentBottom = Math.max(y, G.margin + G.header + G.nodeH + G.bandLabel);
  const t: GNode = { key: target.id, node: target, affected: null, module: moduleOf(target.path), col: 0, row: 0, x: colX(0), y: Math.max(G.margin + G.header, (G.margin + G.header + contentBottom) / 2 - G.nodeH / 2) };
  nodes.unshift(t);

  const columns: GNode[][] = [];
  for (let c = 0; c <= maxCol; c++) {
    const col = nodes.filter(n => n.col === c).sort((a, b) => a.y - b.y);
    col.forEach((n, i) => { n.row = i; });
    columns.push(col);
  }
  const edges: GEdge[] = [];
  for (const n of nodes) {
    if (!n.affected) continue;
    const a = n.affected;
    let to: GNode | null = null;
    if (a.distance === 1) to = t;
    else {
      const used = usedName(a.via);
      const prev = columns[a.distance - 1] ?? [];
      to = (used && (prev.find(p => p.node.symbol_path === used && p.node.repo_id === a.node.repo_id)
        ?? prev.find(p => p.node.symbol_path === used || p.node.path === used))) || null;
    }
    // Without a known source the edge ends at the previous distance's column (its spine).
    const x2 = to ? to.x + G.nodeW : colX(a.distance - 1) + G.nodeW + G.colGap / 4;
    const y2 = to ? to.y + G.nodeH / 2 : n.y + G.nodeH / 2;
    edges.push({ from: n, to, kind: edgeStyle(a), x1: n.x, y1: n.y + G.nodeH / 2, x2, y2 });
  }
  return { nodes, edges, columns, bands, width: colX(maxCol) + G.nodeW + G.margin, height: Math.max(contentBottom, t.y + G.nodeH + G.margin) };
}

export type Move = 'left' | 'right' | 'up' | 'down' | 'first' | 'last';
/** Where a key press moves the focus from `n`: the nearest node (by y) in the next non-empty column, or the neighbour in the column. */
export function moveFrom(layout: Layout, n: GNode, move: Move): GNode {
  const col = layout.columns[n.col] ?? [n];
  if (move === 'up') return col[Math.max(0, n.row - 1)] ?? n;
  if (move === 'down') return col[Math.min(col.length - 1, n.row + 1)] ?? n;
  if (move === 'first') return col[0] ?? n;
  if (move === 'last') return col[col.length - 1] ?? n;
  const step = move === 'right' ? 1 : -1;
  for (let c = n.col + step; c >= 0 && c < layout.columns.length; c += step) {
    const other = layout.columns[c]!;
    if (!other.length) continue;
    return other.reduce((best, o) => (Math.abs(o.y - n.y) < Math.abs(best.y - n.y) ? o : best), other[0]!);
  }
  return n;
}
