/**
 * Whether the index still matches the files: indexed files changed on disk (stat only, for graph
 * answers' stale_files boundary) and what the next index run would see (a bounded walk, index_status).
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { walk } from '../index/walker';
import type { IndexFile } from '../indexfile';
import type { Workspace } from '../workspace';
import type { IndexSettings } from '../settings';
import { sha1 } from '../util/hash';

/** Graph answers check the target repositories' indexed files for changes on disk for at most this long. */
const STALE_CHECK_BUDGET_MS = 150;
/** index_status walks the roots for changes since indexing for at most this long. */
const CHANGED_WALK_BUDGET_MS = 2000;

export class FreshnessService {
  constructor(private readonly file: IndexFile, private readonly workspace: Workspace, private readonly settings: IndexSettings) {}

  /** Files whose mtime differs from the index but whose content hash was found equal: `repo\0path` → the mtime checked. */
  private readonly sameContent = new Map<string, number>();

  /**
   * Indexed files of a repository that changed on disk or are gone, checked for at most `budgetMs`. The
   * size and mtime pre-filter comes first; a file of the same size whose mtime alone differs (a fresh
   * checkout, a copied or imported index) is read and its content hash compared, and a match is
   * remembered for that mtime, so such files are not reported as changed. `only`: check just these paths.
   */
  staleIndexedFiles(repoId: string, budgetMs = STALE_CHECK_BUDGET_MS, only?: readonly string[]): { paths: string[]; complete: boolean } {
    if (only) return { paths: this.changedOf(repoId, only), complete: true };
    const root = this.rootOf(repoId);
    if (!root) return { paths: [], complete: true };
    const end = performance.now() + budgetMs;
    const paths: string[] = []; let n = 0;
    for (const m of this.file.store.files.fileMetas(repoId).values()) {
      if ((++n & 63) === 0 && performance.now() > end) return { paths, complete: false };
      if (this.changed(root, repoId, m)) paths.push(m.path);
    }
    return { paths, complete: true };
  }

  /** Of the given indexed files of a repository, those that changed on disk or are gone (same checks). */
  changedOf(repoId: string, paths: readonly string[]): string[] {
    const root = this.rootOf(repoId);
    if (!root || !paths.length) return [];
    const metas = this.file.store.files.fileMetas(repoId, { paths, folders: [] });
    return paths.filter(p => { const m = metas.get(p); return !!m && this.changed(root, repoId, m); });
  }

  private rootOf(repoId: string): string | undefined {
    return this.workspace.byId(repoId)?.root ?? this.file.store.meta.repo(repoId)?.root;
  }

  /** Size or content differ from the indexed file (mtime alone is checked by hash, and remembered). */
  private changed(root: string, repoId: string, m: { path: string; size: number; mtime_ms: number; hash: string }): boolean {
    const abs = resolve(root, m.path);
    const st = statSync(abs, { throwIfNoEntry: false });
    if (!st || st.size !== m.size) return true;
    if (st.mtimeMs === m.mtime_ms) return false;
    const key = `${repoId}\0${m.path}`;
    if (this.sameContent.get(key) === st.mtimeMs) return false;
    let same = false;
    try { same = sha1(readFileSync(abs)) === m.hash; } catch { /* unreadable now: reported as changed */ }
    if (same) this.sameContent.set(key, st.mtimeMs);
    return !same;
  }

  /**
   * What changed on disk since indexing, as the next index run would see it: a walk of every indexed root
   * with this engine's settings, compared by size and mtime (the indexer's pre-filter; a file whose content
   * hash a graph answer already found unchanged for its current mtime is not counted). Bounded: at most
   * `budgetMs` of walking (then `complete` is false and removals are not counted), `sample` files listed.
   */
  async changedSinceIndex(opts: { budgetMs?: number; sample?: number } = {}): Promise<ChangedSinceIndex> {
    await this.file.refresh();
    const sample = opts.sample ?? 20;
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), opts.budgetMs ?? CHANGED_WALK_BUDGET_MS);
    const files: ChangedSinceIndex['files'] = [];
    const perRoot: Record<string, number | null> = {};
    let count = 0; let complete = true;
    const note = (repo_id: string, path: string, change: 'modified' | 'added' | 'removed') => {
      count++; perRoot[repo_id] = (perRoot[repo_id] ?? 0) + 1;
      if (files.length < sample) files.push({ repo_id, path, change });
    };
    try {
      for (const r of this.workspace.roots) {
        if (!this.file.store.meta.repo(r.repo_id)) { perRoot[r.repo_id] = null; continue; } // never indexed
        perRoot[r.repo_id] = 0;
        if (ac.signal.aborted) { complete = false; perRoot[r.repo_id] = null; continue; }
        const metas = this.file.store.files.fileMetas(r.repo_id);
        const seen = new Set<string>();
        await walk(r.root, {
          excludes: this.settings.excludes, languages: this.settings.languages ? new Set(this.settings.languages) : null, maxFileBytes: this.settings.max_file_bytes,
          signal: ac.signal,
          onFile: f => {
            seen.add(f.path);
            const m = metas.get(f.path);
            if (!m) note(r.repo_id, f.path, 'added');
            else if (m.size !== f.size || (m.mtime_ms !== f.mtime_ms && this.sameContent.get(`${r.repo_id}\0${f.path}`) !== f.mtime_ms)) note(r.repo_id, f.path, 'modified');
          },
        });
        if (ac.signal.aborted) { complete = false; continue; } // a partial walk cannot tell what is gone
        for (const m of metas.values()) if (!seen.has(m.path)) note(r.repo_id, m.path, 'removed');
      }
    } finally { clearTimeout(timer); }
    return { count, complete, files, truncated: count > files.length, per_root: perRoot };
  }
}

export interface ChangedSinceIndex {
  count: number; complete: boolean; truncated: boolean;
  files: { repo_id: string; path: string; change: 'modified' | 'added' | 'removed' }[];
  /** per root: files changed, null when the root was never indexed (or not walked within the budget) */
  per_root: Record<string, number | null>;
}
