/**
 * Churn and co-change over one repository's mined commits (pure).
 *
 * - **Counted commits**: every mined commit that is neither `sweeping` nor a shallow `boundary`.
 * - **Renames followed**: walking newest → oldest, a rename `old → new` sends every older touch of
 *   `old` to wherever `new` ends up at HEAD, so a renamed file keeps its history under its current
 *   path. A file *added* at a path cuts that path's older history off (a different file lived there),
 *   unless an older rename brings the name back to this file.
 * - **churn(f)** = counted commits touching f; **together_count(f, g)** = counted commits touching both.
 * - **coupling(f, g) = together / sqrt(churn_f · churn_g)** (the Ochiai / cosine coefficient): the
 *   geometric mean of P(g changes | f changes) and P(f changes | g changes). It is symmetric, lies in
 *   [0, 1] for every pair of the repository (so one threshold means the same thing everywhere), is 1
 *   only when the two always change together, and damps "hub" partners (a changelog touched by every
 *   commit) by the square root of their churn rather than ranking by raw counts (which a hub always
 *   wins). Jaccard (together / (churn_f + churn_g − together)) ranks the same way for a fixed f in
 *   most cases but punishes a quiet file paired with a hot one twice as hard, and a plain conditional
 *   probability together/churn_f ignores the partner's own churn. Ties: together_count, then path.
 */
import type { MinedCommit } from './mine';

export interface CommitRef { sha: string; time: number; author: string; subject: string }

export interface FileHistory {
  /** The file's path at HEAD (after renames). */
  path: string;
  churn: number;
  /** Indexes into `CoChange.commits`, newest first. */
  commits: number[];
  /** Paths this file had before (renames), newest first. */
  former_paths: string[];
}

export interface Partner { path: string; together_count: number; coupling: number }

export interface CoChange {
  /** The counted commits, newest first. */
  commits: CommitRef[];
  files: Map<string, FileHistory>;
  /** Partners of `path` ranked by coupling (then together_count, then path). */
  partners(path: string, opts?: { limit?: number; minTogether?: number }): Partner[];
  /** Every pair's count, keyed `a\0b` with a < b (for storage). */
  pairs: Map<string, number>;
}

const GONE = '\u0000gone\u0000';

export interface CoChangeOptions {
  /** Keep only these paths (as at HEAD, after renames), e.g. the files the index holds. Default: all. */
  include?: (path: string) => boolean;
  /** Skip commits that, after `include`, touch more files than this (a second guard; default Infinity). */
  maxFilesPerCommit?: number;
}

/** Build churn and co-change from mined commits, newest first (as `mineRepository` returns them). */
export function buildCoChange(mined: readonly MinedCommit[], opts: CoChangeOptions = {}): CoChange {
  const include = opts.include ?? (() => true), maxFiles = opts.maxFilesPerCommit ?? Infinity;
  const alias = new Map<string, string>(); // older name → name at HEAD (or GONE)
  const canonical = (p: string): string => alias.get(p) ?? p;
  const commits: CommitRef[] = [];
  const files = new Map<string, FileHistory>();
  const pairs = new Map<string, number>();
  for (const c of mined) {
    // Names as they are at HEAD, with the renames of newer commits applied.
    const touched = new Set<string>();
    for (const f of c.files) {
      const now = canonical(f.path);
      if (now !== GONE && include(now)) touched.add(now);
    }
    // This commit's own renames and additions speak for older commits.
    for (const f of c.files) {
      const now = canonical(f.path);
      if (f.status === 'renamed' && f.old_path) {
        alias.set(f.old_path, now);
        if (now !== GONE) { const h = files.get(now); if (h && !h.former_paths.includes(f.old_path)) h.former_paths.push(f.old_path); }
      } else if (f.status === 'added') alias.set(f.path, GONE);
    }
    if (c.sweeping || c.boundary || touched.size === 0 || touched.size > maxFiles) continue;
    const index = commits.length;
    commits.push({ sha: c.sha, time: c.time, author: c.author, subject: c.subject });
    const list = [...touched].sort();
    for (const p of list) {
      let h = files.get(p);
      if (!h) files.set(p, h = { path: p, churn: 0, commits: [], former_paths: [] });
      h.churn++;
      h.commits.push(index);
    }
    for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) {
      const k = list[i]! + '\0' + list[j]!;
      pairs.set(k, (pairs.get(k) ?? 0) + 1);
    }
  }
  // Renames recorded before the file's first counted touch (newest first) land here too.
  for (const [old, now] of alias) {
    if (now === GONE) continue;
    const h = files.get(now);
    if (h && old !== now && !h.former_paths.includes(old)) h.former_paths.push(old);
  }
  const byFile = new Map<string, Map<string, number>>();
  for (const [k, n] of pairs) {
    const [a, b] = k.split('\0') as [string, string];
    (byFile.get(a) ?? byFile.set(a, new Map()).get(a)!).set(b, n);
    (byFile.get(b) ?? byFile.set(b, new Map()).get(b)!).set(a, n);
  }
  return {
    commits, files, pairs,
    partners(path, o = {}) {
      const mine = files.get(path), ps = byFile.get(path);
      if (!mine || !ps) return [];
      const out: Partner[] = [];
      for (const [p, n] of ps) {
        if (n < (o.minTogether ?? 1)) continue;
        out.push({ path: p, together_count: n, coupling: coupling(n, mine.churn, files.get(p)!.churn) });
      }
      out.sort((x, y) => y.coupling - x.coupling || y.together_count - x.together_count || (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
      return o.limit === undefined ? out : out.slice(0, o.limit);
    },
  };
}

/** The coupling of two files: together / sqrt(churn_a · churn_b), in [0, 1]. */
export function coupling(together: number, churnA: number, churnB: number): number {
  if (together <= 0 || churnA <= 0 || churnB <= 0) return 0;
  return together / Math.sqrt(churnA * churnB);
}
