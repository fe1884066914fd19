/**
 * Symbol ↔ commit mapping over `-U0` hunks (pure; no `git log -L`).
 *
 * A symbol's line range at HEAD is carried back through the mined commits, newest → oldest. At each
 * commit that changed the file, the range is in that commit's *new* coordinates:
 * - **touched** when a hunk's new side overlaps the range, or a pure deletion (`+c,0`) sits strictly
 *   inside it (between two of its lines; a deletion just before or after the range does not count);
 * - **carried back** to the commit's old coordinates: a line outside every hunk moves by the
 *   `new_lines − old_lines` of the hunks before it; an end that falls inside a hunk's new side widens
 *   to that hunk's whole old side (a replaced block cannot be split line by line), or for a pure
 *   insertion (`-a,0`) stops at the old lines around it. A range made only of inserted lines was born
 *   in that commit: it ends there (its last touch is its creation).
 * Renames are followed (the older commits are read under the old path); an addition ends the range.
 * Sweeping commits shift ranges but never count as touching; a shallow boundary or a binary change
 * ends them. Merges are not mined, so on a history with parallel branches the commits are read in
 * topological order as one line: exact for linear history, an approximation where two branches
 * edited the same file (the line numbers of one branch's hunks do not include the other's edits).
 */
import type { Hunk, MinedCommit } from './mine';

export interface LineSpan { start: number; end: number }

/**
 * One commit's step for one range: whether the commit touched it, and the range before the commit
 * (null when every line of the range was inserted by this commit). `hunks` in file order.
 */
export function carryBack(range: LineSpan, hunks: readonly Hunk[]): { touched: boolean; before: LineSpan | null } {
  const { start: s, end: e } = range;
  let touched = false;
  for (const h of hunks) {
    if (h.new_lines > 0) { if (h.new_start <= e && h.new_start + h.new_lines - 1 >= s) { touched = true; break; } }
    else if (h.new_start >= s && h.new_start < e) { touched = true; break; }
  }
  const start = mapEnd(s, hunks, 'start'), end = mapEnd(e, hunks, 'end');
  return { touched, before: start <= end ? { start, end } : null };
}

function mapEnd(x: number, hunks: readonly Hunk[], side: 'start' | 'end'): number {
  let delta = 0;
  for (const h of hunks) {
    if (h.new_lines > 0) {
      const last = h.new_start + h.new_lines - 1;
      if (x >= h.new_start && x <= last) {
        if (h.old_lines > 0) return side === 'start' ? h.old_start : h.old_start + h.old_lines - 1;
        return side === 'start' ? h.old_start + 1 : h.old_start;
      }
      if (last < x) delta += h.new_lines - h.old_lines; else break;
    } else if (h.new_start < x) delta -= h.old_lines;
    else break;
  }
  return x - delta;
}

export interface SymbolSpan { id: string; start_line: number; end_line: number }

/**
 * For each symbol of each file at HEAD, the indexes (into `commits`, newest first) of the commits that
 * touched it. `files`: path at HEAD → its symbols' line ranges (1-based, inclusive).
 */
export function symbolCommits(commits: readonly MinedCommit[], files: ReadonlyMap<string, readonly SymbolSpan[]>): Map<string, number[]> {
  const out = new Map<string, number[]>();
  interface Live { id: string; span: LineSpan }
  // Path as of the commit being read → the live ranges of the HEAD file that had that path.
  const active = new Map<string, Live[]>();
  for (const [path, syms] of files) {
    const live: Live[] = [];
    for (const s of syms) {
      if (!out.has(s.id)) out.set(s.id, []);
      if (Number.isInteger(s.start_line) && Number.isInteger(s.end_line) && s.start_line >= 1 && s.end_line >= s.start_line) live.push({ id: s.id, span: { start: s.start_line, end: s.end_line } });
    }
    if (live.length) active.set(path, live);
  }
  for (let i = 0; i < commits.length && active.size > 0; i++) {
    const c = commits[i]!;
    const moves: [string, Live[]][] = [];
    for (const f of c.files) {
      if (f.status === 'deleted') continue;
      const live = active.get(f.path);
      if (!live) continue;
      active.delete(f.path);
      if (c.boundary || f.binary) continue; // nothing older can be mapped
      const kept: Live[] = [];
      for (const l of live) {
        const step = carryBack(l.span, f.hunks);
        if (step.touched && !c.sweeping) out.get(l.id)!.push(i);
        if (step.before) { l.span = step.before; kept.push(l); }
      }
      if (f.status === 'added' || f.status === 'copied' || kept.length === 0) continue;
      moves.push([f.status === 'renamed' && f.old_path ? f.old_path : f.path, kept]);
    }
    for (const [p, live] of moves) active.set(p, [...(active.get(p) ?? []), ...live]);
  }
  return out;
}
