/**
 * A change as the graph sees it (post_change_impact, context_for_change): the indexed symbols a set
 * of changed line ranges overlaps (the innermost ones: a method, not its class as well), and the file
 * node when no definition holds the lines (top-level code).
 */
import type { NodeRow } from '../store/store';
import type { GraphReader } from './query';
import { fileNodeId } from '../util/ids';

export interface LineRange { start_line: number; end_line: number }

/** Symbols of `path` overlapping any range, innermost only; the file node when none does; [] when the file is not indexed. */
export function changedNodes(g: GraphReader, repoId: string, path: string, ranges: readonly LineRange[]): NodeRow[] {
  const syms = g.symbolsAt(repoId, path);
  if (!syms) return [];
  const hit = syms.filter(s => s.kind !== 'file' && ranges.some(r => r.start_line <= s.end_line && r.end_line >= s.start_line));
  const inner = hit.filter(s => !hit.some(o => o !== s && o.symbol_path && s.symbol_path && o.symbol_path.startsWith(s.symbol_path + '.')
    && ranges.some(r => r.start_line <= o.end_line && r.end_line >= o.start_line && !(r.start_line < o.start_line || r.end_line > o.end_line))));
  if (inner.length) return inner;
  return ranges.length ? g.lookup(fileNodeId(repoId, path)).slice(0, 1) : [];
}
