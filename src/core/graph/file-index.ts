/**
 * A repository's files as graph resolution looks them up: by id, by path, by folder, by base name, and
 * which are tests. Every list keeps the order of the file list (by path), as a build from scratch makes
 * it, also when files are added or removed in place (a live engine's kept tables, tables.ts).
 */
import { posix } from 'node:path';
import { isTestPath } from '../languages';
import type { GFile } from './tables';

const push = <K, V>(m: Map<K, V[]>, k: K, v: V) => { const l = m.get(k); if (l) l.push(v); else m.set(k, [v]); };

export class FileIndex {
  readonly byId: Map<number, GFile>;
  readonly byPath: Map<string, GFile>;
  readonly byDir = new Map<string, GFile[]>();
  readonly dirOf = new Map<number, string>();
  readonly testIds: Set<number>;
  private baseMemo: Map<string, GFile[]> | null = null;

  /** `list`: the repository's files in path order (the tables' input list, changed in place by add/remove). */
  constructor(readonly list: GFile[]) {
    this.byId = new Map(list.map(f => [f.id, f]));
    this.byPath = new Map(list.map(f => [f.path, f]));
    for (const f of list) { const d = posix.dirname(f.path); this.dirOf.set(f.id, d); push(this.byDir, d, f); }
    this.testIds = new Set(list.filter(f => isTestPath(f.path)).map(f => f.id));
  }

  /** Files by base name (test naming), built on first use. */
  byBase(): Map<string, GFile[]> {
    if (!this.baseMemo) {
      this.baseMemo = new Map();
      for (const f of this.list) push(this.baseMemo, f.path.slice(f.path.lastIndexOf('/') + 1), f);
    }
    return this.baseMemo;
  }

  /** Adds a file in path order; false when it is already there. */
  add(file: GFile): boolean {
    if (this.byId.has(file.id)) return false;
    let lo = 0, hi = this.list.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (this.list[mid]!.path < file.path) lo = mid + 1; else hi = mid; }
    this.list.splice(lo, 0, file);
    this.byId.set(file.id, file);
    this.byPath.set(file.path, file);
    // folders in the order of the files, as a build makes them (a Go package is the first folder that fits)
    this.byDir.clear();
    for (const f of this.list) { const d = this.dirOf.get(f.id) ?? posix.dirname(f.path); this.dirOf.set(f.id, d); push(this.byDir, d, f); }
    if (isTestPath(file.path)) this.testIds.add(file.id);
    this.baseMemo = null;
    return true;
  }

  /** Removes a file; false when it is not there. */
  remove(fileId: number): boolean {
    const file = this.byId.get(fileId);
    if (!file) return false;
    const at = this.list.indexOf(file);
    if (at >= 0) this.list.splice(at, 1);
    this.byId.delete(fileId);
    if (this.byPath.get(file.path) === file) this.byPath.delete(file.path);
    const dir = this.dirOf.get(fileId)!;
    this.dirOf.delete(fileId);
    const inDir = (this.byDir.get(dir) ?? []).filter(f => f.id !== fileId);
    if (inDir.length) this.byDir.set(dir, inDir); else this.byDir.delete(dir);
    this.testIds.delete(fileId);
    this.baseMemo = null;
    return true;
  }
}
