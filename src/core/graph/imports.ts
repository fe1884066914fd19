/**
 * Import resolution over the repository tables: which files an import specifier names (the language
 * table's graph rules: candidate paths, Go package folders, workspace packages), and which definition
 * a file exports under a name, following re-exports (barrels) up to 3 hops. Memoised per repository.
 */
import { posix } from 'node:path';
import type { GraphRules, LanguageId } from '../languages/types';
import { familyOf, graphRules } from '../languages';
import type { Occurrence } from '../parse/occurrence';
import type { GSymbol, RepoTables } from './tables';

export class ImportResolver {
  private readonly importMemo = new Map<string, number[]>();
  // folder name → folders with that name, built on first use
  private readonly packageDirs = new Map<string, string[]>();
  private readonly packageMemo = new Map<string, number[]>();
  private readonly suffixMemo = new Map<string, number[]>();
  /** files by the last two segments of their path (`shop/orders.py`), built on first use */
  private readonly byTail = new Map<string, { id: number; path: string; language: string }[]>();
  // Only the imports of other files are needed again (for re-export chains); full occurrence lists are
  // decoded once per file and dropped, which keeps memory flat on large repositories.
  private readonly importCache = new Map<number, Occurrence[]>();

  constructor(private readonly t: RepoTables) {}

  /** The repository's files changed (`gone`: one was removed): what was resolved against them is resolved again when asked. */
  forget(gone?: number): void {
    this.importMemo.clear(); this.packageDirs.clear(); this.packageMemo.clear();
    this.suffixMemo.clear(); this.byTail.clear();
    if (gone !== undefined) this.importCache.delete(gone);
  }

  /** Forgets every memoised answer and every file's imports (RepoTables.trimMemos): they are read again when asked. */
  trim(): void { this.forget(); this.importCache.clear(); }

  /** Keeps a file's imports from occurrences already decoded (the first time the file is visited). */
  noteImports(fileId: number, occ: readonly Occurrence[]): void {
    if (!this.importCache.has(fileId)) this.importCache.set(fileId, occ.filter(x => x.kind === 'import'));
  }

  private importsOf(fileId: number): Occurrence[] {
    let o = this.importCache.get(fileId);
    if (!o) { o = this.t.input.occurrences(fileId).filter(x => x.kind === 'import'); this.importCache.set(fileId, o); }
    return o;
  }

  /** The files of the repository an import refers to (none when it is external or unknown). */
  importFiles(lang: LanguageId, source: string, fromPath: string): number[] {
    const key = `${fromPath}\0${source}`;
    let r = this.importMemo.get(key);
    if (!r) { r = this.importFilesUncached(lang, source, fromPath); this.importMemo.set(key, r); }
    return r;
  }

  private importFilesUncached(lang: LanguageId, source: string, fromPath: string): number[] {
    const L = graphRules(lang);
    if (L.packageFolder) {
      const want = L.packageFolder(source);
      for (const [dir, files] of this.t.filesByDir) {
        if (dir !== '.' && (want === dir || want.endsWith(`/${dir}`))) return files.filter(f => f.language === lang).map(f => f.id);
      }
      return [];
    }
    for (const c of L.importCandidates?.(source, fromPath) ?? []) { const f = this.t.fileByPath.get(c); if (f) return [f.id]; }
    if (L.packageCandidates) return this.workspacePackage(L, source);
    const suffixes = L.importSuffixes?.(source);
    return suffixes ? this.bySuffix(lang, suffixes) : [];
  }

  /** The one file of the language whose path ends with one of `suffixes` (none when several do). */
  private bySuffix(lang: LanguageId, suffixes: readonly string[]): number[] {
    const key = `${lang}\0${suffixes.join('\0')}`;
    let found = this.suffixMemo.get(key);
    if (found) return found;
    if (!this.byTail.size) {
      for (const f of this.t.input.files) {
        const tail = lastTwo(f.path);
        (this.byTail.get(tail) ?? this.byTail.set(tail, []).get(tail)!).push(f);
      }
    }
    const near = suffixes.flatMap(x => this.byTail.get(lastTwo(x)) ?? []);
    const hits = near.filter(f => f.language === lang && suffixes.some(x => f.path.endsWith(x)));
    found = hits.length === 1 ? [hits[0]!.id] : [];
    this.suffixMemo.set(key, found);
    return found;
  }

  /**
   * A bare specifier (`zod/v4`, `@acme/core/utils`) may name a package of this repository (a monorepo
   * workspace): a folder named like the package holding one of the language's candidate paths. A name
   * that fits several folders binds nothing.
   */
  private workspacePackage(L: GraphRules, source: string): number[] {
    let found = this.packageMemo.get(source);
    if (found) return found;
    found = [];
    const want = L.packageCandidates!(source);
    if (want) {
      if (!this.packageDirs.size) {
        for (const f of this.t.input.files) {
          for (let d = posix.dirname(f.path); d !== '.' && d !== '/'; d = posix.dirname(d)) {
            const list = this.packageDirs.get(posix.basename(d)) ?? this.packageDirs.set(posix.basename(d), []).get(posix.basename(d))!;
            if (list.includes(d)) break;
            list.push(d);
          }
        }
      }
      for (const dir of this.packageDirs.get(want.folder) ?? []) {
        const hit = want.paths.map(p => this.t.fileByPath.get(`${dir}/${p}`)).find(f => f !== undefined);
        if (hit) found.push(hit.id);
      }
      if (found.length !== 1) found = [];
    }
    this.packageMemo.set(source, found);
    return found;
  }

  /** A name exported by a file, following re-exports (barrels) up to 3 hops; `via` names the chain. */
  exported(fileId: number, name: string, depth = 0): { sym: GSymbol; via: string } | null {
    const direct = this.t.topLevel(fileId, name);
    if (direct.length) return { sym: direct[0]!, via: '' };
    if (depth >= 3) return null;
    const f = this.t.filesById.get(fileId);
    if (!f) return null;
    for (const o of this.importsOf(fileId)) {
      if (!o.source) {
        // export { local as name }: the local binding is a definition of this file or one of its imports
        if (o.alias !== name && !(o.name === name && !o.alias)) continue;
        const local = o.name;
        const def = this.t.topLevel(fileId, local);
        if (def.length) return { sym: def[0]!, via: '' };
        const imp = this.importsOf(fileId).find(x => x.source && (x.alias === local || (!x.alias && x.name === local)));
        if (imp?.source && imp.name && imp.name !== '*') {
          for (const t of this.importFiles(f.language, imp.source, f.path)) {
            const r = this.exported(t, imp.name === imp.alias ? local : imp.name, depth + 1);
            if (r) return { sym: r.sym, via: r.via ? `${imp.source} → ${r.via}` : imp.source };
          }
        }
        continue;
      }
      const star = isStar(o, f.language);
      if (o.alias && o.name === o.alias) continue;          // a namespace (export * as ns): see exportedModule
      if (!star && o.name !== name && o.alias !== name) continue;
      const inner = !star && o.alias === name && o.name && o.name !== 'default' ? o.name : name;
      for (const t of this.importFiles(f.language, o.source, f.path)) {
        const r = this.exported(t, inner, depth + 1);
        if (r) return { sym: r.sym, via: r.via ? `${o.source} → ${r.via}` : o.source };
      }
    }
    return null;
  }

  /** Files a barrel re-exports as the namespace `name` (export * as name from …), following export * chains. */
  exportedModule(fileId: number, name: string, depth = 0): number[] {
    if (depth >= 3) return [];
    const f = this.t.filesById.get(fileId);
    if (!f) return [];
    for (const o of this.importsOf(fileId)) {
      if (!o.source) continue;
      if (o.alias === name && o.name === o.alias) return this.importFiles(f.language, o.source, f.path);
      if (isStar(o, f.language)) for (const t of this.importFiles(f.language, o.source, f.path)) { const r = this.exportedModule(t, name, depth + 1); if (r.length) return r; }
    }
    return [];
  }
}

/** `from m import *`, and in JS/TS `export * from './m'` (stored with the source as its name). */
const isStar = (o: Occurrence, lang: LanguageId) => o.name === '*' || (o.name === o.source && !o.alias && !!graphRules(lang).bareImportIsStar);

/** The last two segments of a path (`a/shop/orders.py` → `shop/orders.py`). */
function lastTwo(path: string): string {
  const i = path.lastIndexOf('/');
  const j = i > 0 ? path.lastIndexOf('/', i - 1) : -1;
  return path.slice(j + 1);
}
