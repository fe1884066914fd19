/**
 * The repository tables of graph resolution: every index over a repository's files and definitions
 * that resolving one file needs about the others (names, files, folders, class members, base classes,
 * imports). They depend only on the repository's definitions, imports and base classes, so a caller
 * may keep them between runs and resolve body-only edits against them (resolve.ts `resolveWith`).
 *
 * Built in two steps: `new RepoTables(input)` indexes the definitions; the bases pass (resolve.ts)
 * records each class's base classes with `addBases`, after which member maps are complete.
 */
import { CONTAINER_KINDS, type LanguageId } from '../languages/types';
import { graphRules } from '../languages';
import { LazyMap, LazySet } from './lazy';
import type { Occurrence } from '../parse/occurrence';
import { ImportResolver } from './imports';
import { FileIndex } from './file-index';

export interface GSymbol { id: number; fileId: number; name: string; sp: string; kind: string; parent: string | null; line: number }
export interface GFile { id: number; path: string; language: LanguageId }

/**
 * A repository's definitions read on demand (the store's `graphLookup`), in the order `RepoInput.symbols`
 * lists them (by path, then row id): a one-off partial update of a few files reads what resolving them
 * needs instead of indexing every definition first.
 */
export interface SymbolLookup {
  byName(name: string): GSymbol[];
  byFile(fileId: number): GSymbol[];
  /** methods whose parent path is `owner`, in any file */
  methodsOfOwner(owner: string): GSymbol[];
  fileOf(symbolId: number): number | undefined;
  /** ids of the classes whose stored extends/implements edges name this class (the last graph update's) */
  subclassesOf(symbolId: number): number[];
}

/** What the tables are built from: a repository's files, definitions and (read on demand) occurrences. */
export interface RepoInput {
  files: GFile[];
  /** every definition (ignored, and may be empty, with `lookup`) */
  symbols: GSymbol[];
  /** reads definitions on demand instead of indexing `symbols` (a class whose bases lead into a cycle throws CyclicBases) */
  lookup?: SymbolLookup;
  /** A file's occurrences; with `kinds`, only those kinds (the rest are never turned into objects). */
  occurrences(fileId: number, kinds?: ReadonlySet<string>): Occurrence[];
}

/** Repository-wide candidates of a name, under one kind filter and language family. */
export interface GlobalCandidates { list: GSymbol[]; byDir: Map<string, GSymbol[]> }

/** Definition kinds whose members calls can name (classes, modules, …). */
export const CLASSY: ReadonlySet<string> = CONTAINER_KINDS;
/** What a call may bind to. */
export const CALLABLE: ReadonlySet<string> = new Set(['function', 'method', 'class', 'struct', 'constant', 'type', 'interface', 'enum', 'trait']);
/** What an identifier may reference. */
export const REFERABLE: ReadonlySet<string> = new Set(['class', 'interface', 'struct', 'enum', 'trait', 'type', 'function', 'constant']);

const push = <K, V>(m: Map<K, V[]>, k: K, v: V) => { const l = m.get(k); if (l) l.push(v); else m.set(k, [v]); };
/** The key of a definition by file and symbol path. */
export const symbolKey = (fileId: number, sp: string) => `${fileId}\0${sp}`;

/** A lookup met a class whose bases lead into a cycle: resolve with the whole tables (RepoTables.settleMembers). */
export class CyclicBases extends Error { constructor(why = 'base classes form a cycle') { super(why); } }

const isFunction = (s: GSymbol | undefined) => !!s && (s.kind === 'function' || s.kind === 'method');

export class RepoTables {
  /** the repository's files, by id, path, folder, base name (file-index.ts) */
  readonly files: FileIndex;
  get filesById(): ReadonlyMap<number, GFile> { return this.files.byId; }
  get fileByPath(): ReadonlyMap<string, GFile> { return this.files.byPath; }
  get filesByDir(): ReadonlyMap<string, GFile[]> { return this.files.byDir; }
  get dirOf(): ReadonlyMap<number, string> { return this.files.dirOf; }
  get testFileIds(): ReadonlySet<number> { return this.files.testIds; }
  readonly byName: Map<string, GSymbol[]>;
  readonly byFile: Map<number, GSymbol[]>;
  readonly byFilePath: Map<string, GSymbol>;
  /** Definitions nested in a function are local to it: never candidates from another scope. */
  readonly nestedInFunction: Set<number>;
  readonly methodIndex: Map<string, GSymbol[]>;
  private readonly childrenOf: Map<string, GSymbol[]>;
  /** Methods by owner path across files: Rust impl blocks and Go methods live apart from their type. */
  private readonly methodsOfOwner: Map<string, GSymbol[]>;
  /** Extends/implements per class (symbol keys of the bases), to follow self. calls into base classes. */
  readonly basesOf = new Map<number, string[]>();
  /** With a lookup: the files whose bases were resolved so far, and how to resolve one file's (resolve.ts). */
  private readonly basesDone: Set<number> | null;
  basesOfFile: ((file: GFile) => void) | null = null;
  private readonly symbolFile: Map<number, number>;
  private readonly topIndex = new Map<number, Map<string, GSymbol[]>>();
  private readonly membersCache = new Map<number, Map<string, GSymbol>>();
  // filter → family → name
  private readonly globalMemo = new Map<ReadonlySet<string>, Map<string, Map<string, GlobalCandidates>>>();
  readonly imports: ImportResolver;
  /** Answers kept for one resolution pass only (resolveWith clears it): fixtures (fixtures.ts). */
  readonly passMemo = new Map<string, unknown>();

  /** Files by base name (test naming), built on first use and kept with the tables. */
  filesByBase(): Map<string, GFile[]> { return this.files.byBase(); }

  constructor(readonly input: RepoInput) {
    this.files = new FileIndex(input.files);
    this.imports = new ImportResolver(this);
    const lookup = input.lookup;
    if (lookup) {
      // the same maps, each key read when first asked (and kept)
      const inFile = new LazyMap<number, Map<string, GSymbol>>(fid => new Map((this.byFile.get(fid) ?? []).map(s => [s.sp, s])));
      this.byName = new LazyMap(name => { const l = lookup.byName(name); return l.length ? l : undefined; });
      this.byFile = new LazyMap(fid => { const l = lookup.byFile(fid); return l.length ? l : undefined; });
      this.byFilePath = new LazyMap(key => { const at = key.indexOf('\0'); return inFile.get(Number(key.slice(0, at)))!.get(key.slice(at + 1)); });
      this.methodIndex = new LazyMap(name => { const l = (this.byName.get(name) ?? []).filter(s => s.kind === 'method'); return l.length ? l : undefined; });
      this.childrenOf = new LazyMap(key => {
        const at = key.indexOf('\0'); const parent = key.slice(at + 1);
        const l = (this.byFile.get(Number(key.slice(0, at))) ?? []).filter(s => s.sp.lastIndexOf('.') > 0 && s.sp.slice(0, s.sp.lastIndexOf('.')) === parent);
        return l.length ? l : undefined;
      });
      this.methodsOfOwner = new LazyMap(owner => { const l = lookup.methodsOfOwner(owner); return l.length ? l : undefined; });
      this.symbolFile = new LazyMap(id => lookup.fileOf(id));
      this.nestedInFunction = new LazySet(id => {
        const s = this.symbolById(id);
        return !!s?.parent && isFunction(this.byFilePath.get(symbolKey(s.fileId, s.parent)));
      });
      this.basesDone = new Set();
      return;
    }
    this.byName = new Map(); this.byFile = new Map(); this.byFilePath = new Map(); this.methodIndex = new Map();
    this.childrenOf = new Map(); this.methodsOfOwner = new Map(); this.nestedInFunction = new Set(); this.basesDone = null;
    for (const s of input.symbols) {
      push(this.byName, s.name, s);
      push(this.byFile, s.fileId, s);
      this.byFilePath.set(symbolKey(s.fileId, s.sp), s);
    }
    for (const sym of input.symbols) {
      if (!sym.parent) continue;
      if (isFunction(this.byFilePath.get(symbolKey(sym.fileId, sym.parent)))) this.nestedInFunction.add(sym.id);
    }
    for (const s of input.symbols) if (s.kind === 'method') push(this.methodIndex, s.name, s);
    for (const s of input.symbols) {
      const dot = s.sp.lastIndexOf('.');
      if (dot <= 0) continue;
      push(this.childrenOf, symbolKey(s.fileId, s.sp.slice(0, dot)), s);
    }
    for (const s of input.symbols) if (s.kind === 'method' && s.parent) push(this.methodsOfOwner, s.parent, s);
    this.symbolFile = new Map(input.symbols.map(s => [s.id, s.fileId]));
  }

  /** With a lookup: classes whose bases, followed all the way, were checked to form no cycle. */
  private readonly acyclic = new Set<number>();

  /**
   * With a lookup, a class's member map is the one a full build makes only when its bases, followed all
   * the way, form no cycle (with a cycle the maps depend on the order they are built in: settleMembers).
   * Checked before the class's map is first built; a cycle throws CyclicBases, and the caller resolves
   * with the whole tables instead.
   */
  private checkAcyclic(cls: GSymbol): void {
    if (this.acyclic.has(cls.id)) return;
    const onPath = new Set<number>(); const done = new Set<number>();
    const visit = (c: GSymbol) => {
      if (this.acyclic.has(c.id) || done.has(c.id)) return;
      if (onPath.has(c.id)) throw new CyclicBases();
      onPath.add(c.id);
      for (const key of this.basesFor(c) ?? []) { const b = this.byFilePath.get(key); if (b) visit(b); }
      onPath.delete(c.id); done.add(c.id);
    };
    visit(cls);
    for (const id of done) this.acyclic.add(id);
  }

  /** With a lookup, the bases of a class's file are resolved when first needed (without, the bases pass did them all). */
  basesFor(cls: GSymbol): string[] | undefined {
    if (this.basesDone && !this.basesDone.has(cls.fileId)) {
      this.basesDone.add(cls.fileId);
      const f = this.filesById.get(cls.fileId);
      if (f) this.basesOfFile?.(f);
    }
    return this.basesOf.get(cls.id);
  }

  /** Top-level definitions of a file named `name` (members of a module count as top level). */
  topLevel(fileId: number, name: string): GSymbol[] {
    let m = this.topIndex.get(fileId);
    if (!m) {
      m = new Map();
      for (const s of this.byFile.get(fileId) ?? []) if (s.parent === null || this.isModuleParent(fileId, s)) push(m, s.name, s);
      // a later definition of the name replaces the earlier ones (overload stubs, then the implementation)
      if (this.lastDefinitionWins(fileId)) for (const list of m.values()) list.reverse();
      this.topIndex.set(fileId, m);
    }
    return m.get(name) ?? [];
  }

  private isModuleParent(fileId: number, s: GSymbol): boolean {
    const p = s.parent ? this.byFilePath.get(symbolKey(fileId, s.parent)) : undefined;
    return !!p && p.kind === 'module';
  }

  /** The memo of repository-wide candidates for a kind filter and language family. */
  globalFor(filter: ReadonlySet<string>, family: string): Map<string, GlobalCandidates> {
    let byFamily = this.globalMemo.get(filter);
    if (!byFamily) { byFamily = new Map(); this.globalMemo.set(filter, byFamily); }
    let m = byFamily.get(family);
    if (!m) { m = new Map(); byFamily.set(family, m); }
    return m;
  }

  /** Records base classes of `cls` (the bases pass). */
  addBases(cls: GSymbol, bases: GSymbol[]): void {
    const list = this.basesOf.get(cls.id) ?? this.basesOf.set(cls.id, []).get(cls.id)!;
    list.push(...bases.map(s => symbolKey(s.fileId, s.sp)));
  }

  /**
   * Members of a class by name, its own first (same file, then methods defined elsewhere), then its
   * bases' in declaration order. Built once per class, after the bases pass (when every base is known).
   */
  membersOf(cls: GSymbol): Map<string, GSymbol> {
    let m = this.membersCache.get(cls.id);
    if (m) return m;
    if (this.basesDone) this.checkAcyclic(cls);
    m = new Map();
    this.membersCache.set(cls.id, m); // before the bases: a cycle sees a partial map instead of recursing forever
    const lastWins = this.lastDefinitionWins(cls.fileId);
    for (const c of this.childrenOf.get(symbolKey(cls.fileId, cls.sp)) ?? []) {
      if (isMemberPath(c, cls.sp) && (lastWins || !m.has(c.name))) m.set(c.name, c);
    }
    for (const x of this.methodsOfOwner.get(cls.sp) ?? []) if (x.fileId !== cls.fileId && !m.has(x.name)) m.set(x.name, x);
    for (const key of this.basesFor(cls) ?? []) {
      const base = this.byFilePath.get(key);
      if (base) for (const [n, x] of this.membersOf(base)) if (!m.has(n)) m.set(n, x);
    }
    return m;
  }

  /** Whether a later definition of a name in one scope replaces the earlier ones (the file's language). */
  private lastDefinitionWins(fileId: number): boolean {
    const lang = this.filesById.get(fileId)?.language;
    return !!lang && !!graphRules(lang).lastDefinitionWins;
  }

  memberIn(cls: GSymbol, name: string): GSymbol | undefined { return this.membersOf(cls).get(name); }

  /** The definitions directly inside `sym` (an overload's `f~2` shares the path of `f`'s children). */
  nestedIn(sym: GSymbol): readonly GSymbol[] {
    return this.childrenOf.get(symbolKey(sym.fileId, sym.sp.replace(/~\d+$/, ''))) ?? [];
  }

  /** A member of one of the class's bases (super.name()), never its own. */
  baseMember(cls: GSymbol, name: string): GSymbol | undefined {
    for (const key of this.basesFor(cls) ?? []) {
      const base = this.byFilePath.get(key);
      const m = base ? this.memberIn(base, name) : undefined;
      if (m) return m;
    }
    return undefined;
  }

  /**
   * With cyclic bases a member map depends on which class of the cycle is asked first, and a partial
   * update must see the maps a full build sees: then the maps of all classes with bases are built in
   * symbol order before any file asks (without a cycle they are built on demand).
   */
  settleMembers(): void {
    this.cyclic ??= this.hasBaseCycle();
    if (this.cyclic) for (const sym of this.input.symbols) if (this.basesOf.has(sym.id)) this.membersOf(sym);
  }
  /**
   * Drops what resolving files memoised — candidates by name, top-level indexes, member maps, import
   * answers — keeping the tables themselves. Kept tables serve edits that resolve a few files, and those
   * build again what they ask for; resolving every file (a full build) left ~110 MB of memos at 5M lines,
   * a third of the engine's heap, for the garbage collector to trace at every major collection. Member maps
   * stay when bases form a cycle (or may: not known yet), since they were then built in symbol order.
   */
  trimMemos(): void {
    this.globalMemo.clear();
    this.topIndex.clear();
    if (this.cyclic === false) this.membersCache.clear();
    this.imports.trim();
  }

  /** whether base classes form a cycle (known once settleMembers ran; classes and bases never change in place) */
  private cyclic: boolean | undefined;

  /** Whether following base classes (by the keys in basesOf) ever leads back to a class on the way. */
  private hasBaseCycle(): boolean {
    const state = new Map<string, 1 | 2>(); // 1 on the current path, 2 done
    const keyOf = new Map<number, string>();
    for (const sym of this.input.symbols) if (this.basesOf.has(sym.id)) keyOf.set(sym.id, symbolKey(sym.fileId, sym.sp));
    const visit = (key: string): boolean => {
      const st = state.get(key);
      if (st === 1) return true;
      if (st === 2) return false;
      state.set(key, 1);
      const cls = this.byFilePath.get(key);
      for (const b of (cls && this.basesOf.get(cls.id)) ?? []) if (visit(b)) return true;
      state.set(key, 2);
      return false;
    };
    for (const key of keyOf.values()) if (visit(key)) return true;
    return false;
  }

  /**
   * Adds a file new to the repository to whole tables (not with a lookup), leaving the file indexes a
   * build from scratch makes (every list in path order); its definitions follow with replaceFileSymbols.
   * What was derived from the set of files (import resolution's memos, files by base name) is derived
   * again when next asked.
   */
  addFile(file: GFile): void {
    if (this.basesDone) throw new Error('addFile needs whole tables');
    if (this.files.add(file)) this.imports.forget();
  }

  /** Removes a file gone from the repository from whole tables (its definitions first, with replaceFileSymbols). */
  removeFile(fileId: number): void {
    if (this.basesDone) throw new Error('removeFile needs whole tables');
    if (!this.files.remove(fileId)) return;
    this.byFile.delete(fileId); this.topIndex.delete(fileId);
    this.imports.forget(fileId);
  }

  /**
   * Replaces one file's definitions in whole tables (not with a lookup) after an edit changed them,
   * leaving the tables those a build from scratch makes: every list keeps the order of `input.symbols`
   * (by path, then row id), a class's recorded bases move to its new id (same symbol path), and what was
   * derived from definitions (member maps, candidates by name, the file's top level) is derived again
   * when next asked. The caller guarantees the file's classes and base classes are unchanged (`oldSyms`
   * and `newSyms` hold the same classes at the same symbol paths), which keeps every member map's shape.
   */
  replaceFileSymbols(fileId: number, oldSyms: readonly GSymbol[], newSyms: readonly GSymbol[]): void {
    if (this.basesDone) throw new Error('replaceFileSymbols needs whole tables');
    const oldIds = new Set(oldSyms.map(s => s.id));
    const path = this.filesById.get(fileId)?.path ?? '';
    const pathOf = (x: GSymbol) => this.filesById.get(x.fileId)?.path ?? '';
    const order = (a: GSymbol, b: GSymbol) => { const pa = pathOf(a), pb = pathOf(b); return pa < pb ? -1 : pa > pb ? 1 : a.id - b.id; };
    /** `list` without the file's old definitions, with `add` placed where (path, id) order puts them */
    const splice = (list: GSymbol[] | undefined, add: readonly GSymbol[]): GSymbol[] => {
      const kept = (list ?? []).filter(x => !oldIds.has(x.id));
      if (!add.length) return kept;
      let at = kept.findIndex(x => pathOf(x) > path);
      if (at < 0) at = kept.length;
      return [...kept.slice(0, at), ...[...add].sort(order), ...kept.slice(at)];
    };
    const rekey = <K>(m: Map<K, GSymbol[]>, keyOf: (s: GSymbol) => K | null) => {
      const before = new Map<K, GSymbol[]>();
      for (const s of oldSyms) { const k = keyOf(s); if (k !== null && !before.has(k)) before.set(k, []); }
      for (const s of newSyms) { const k = keyOf(s); if (k === null) continue; (before.get(k) ?? before.set(k, []).get(k)!).push(s); }
      for (const [k, add] of before) { const l = splice(m.get(k), add); if (l.length) m.set(k, l); else m.delete(k); }
    };
    rekey(this.byName, s => s.name);
    rekey(this.methodIndex, s => (s.kind === 'method' ? s.name : null));
    rekey(this.methodsOfOwner, s => (s.kind === 'method' && s.parent ? s.parent : null));
    rekey(this.childrenOf, s => { const dot = s.sp.lastIndexOf('.'); return dot > 0 ? symbolKey(s.fileId, s.sp.slice(0, dot)) : null; });
    if (newSyms.length) this.byFile.set(fileId, [...newSyms].sort((a, b) => a.id - b.id)); else this.byFile.delete(fileId);
    for (const s of oldSyms) { this.byFilePath.delete(symbolKey(s.fileId, s.sp)); this.nestedInFunction.delete(s.id); this.symbolFile.delete(s.id); }
    for (const s of newSyms) { this.byFilePath.set(symbolKey(s.fileId, s.sp), s); this.symbolFile.set(s.id, s.fileId); }
    for (const s of newSyms) if (s.parent && isFunction(this.byFilePath.get(symbolKey(s.fileId, s.parent)))) this.nestedInFunction.add(s.id);
    // recorded bases follow their class to its new id
    const newBySp = new Map(newSyms.map(s => [s.sp, s]));
    for (const s of oldSyms) {
      const bases = this.basesOf.get(s.id);
      if (!bases) continue;
      this.basesOf.delete(s.id);
      const now = newBySp.get(s.sp);
      if (now) this.basesOf.set(now.id, bases);
      if (this.subclassIndex && now?.id !== s.id) {
        for (const b of bases) {
          const l = this.subclassIndex.get(b)?.filter(x => x !== s.id) ?? [];
          if (now) l.push(now.id);
          this.subclassIndex.set(b, l);
        }
      }
    }
    this.topIndex.delete(fileId);
    // candidates by name hold the file's old definitions under each of its names, old and new
    const names = new Set([...oldSyms, ...newSyms].map(x => x.name));
    for (const byFamily of this.globalMemo.values()) for (const m of byFamily.values()) for (const n of names) m.delete(n);
    // Member maps that may hold the file's definitions: its own classes', those of the types its methods
    // are defined for (Go, Rust), and every subclass of those. They are built again when next asked, which
    // gives a build's maps unless one of them reaches a cycle of bases (those were built in symbol order).
    const touched = this.mapsHolding(fileId, [...oldSyms, ...newSyms]);
    let reachesCycle = false;
    for (const id of touched) { this.membersCache.delete(id); if (this.cyclic && !reachesCycle) reachesCycle = this.leadsToCycle(id); }
    if (this.cyclic) {
      // with cyclic bases the member maps are built in the order of the symbol list: it is kept in that order
      // the file's definitions are one run of it (by path, then id): found by binary search, replaced in place
      const all = this.input.symbols;
      const firstAtOrAfter = (p: string) => { let lo = 0, hi = all.length; while (lo < hi) { const mid = (lo + hi) >> 1; if (pathOf(all[mid]!) < p) lo = mid + 1; else hi = mid; } return lo; };
      let from = firstAtOrAfter(path); let to = from;
      while (to < all.length && all[to]!.fileId === fileId) to++;
      if (all.slice(from, to).some(x => !oldIds.has(x.id)) || to - from !== oldSyms.length) {
        // not the run expected (a path order this search does not know): the list is rebuilt whole
        const kept = all.filter(x => !oldIds.has(x.id));
        all.length = 0; for (const x of kept) all.push(x);
        from = to = firstAtOrAfter(path);
      }
      all.splice(from, to - from, ...[...newSyms].sort(order));
      if (reachesCycle) { this.membersCache.clear(); this.settleMembers(); }
    }
  }

  /** Ids of the classes whose member maps may hold definitions of `fileId` (`defs`, old and new). */
  private mapsHolding(fileId: number, defs: readonly GSymbol[]): Set<number> {
    const out = new Set<number>(defs.map(d => d.id));
    for (const d of defs) {
      if (d.kind !== 'method' || !d.parent) continue;
      const last = d.parent.slice(d.parent.lastIndexOf('.') + 1);
      for (const c of this.byName.get(last) ?? []) if (c.sp === d.parent && c.fileId !== fileId) out.add(c.id);
    }
    // subclasses, all the way down
    const queue = [...out];
    while (queue.length) {
      const sym = this.symbolById(queue.pop()!);
      for (const sub of sym ? this.subclassIds(symbolKey(sym.fileId, sym.sp)) : []) if (!out.has(sub)) { out.add(sub); queue.push(sub); }
    }
    return out;
  }

  /** Ids of the classes that record `key` (a class's symbol key) as a base, from whole tables (not with a lookup). */
  subclassIds(key: string): readonly number[] {
    if (!this.subclassIndex) {
      this.subclassIndex = new Map();
      for (const [cls, bases] of this.basesOf) for (const b of bases) (this.subclassIndex.get(b) ?? this.subclassIndex.set(b, []).get(b)!).push(cls);
    }
    return this.subclassIndex.get(key) ?? [];
  }
  symbolById(id: number): GSymbol | undefined {
    return (this.byFile.get(this.symbolFile.get(id) ?? -1) ?? []).find(x => x.id === id);
  }
  /** The files a partial resolution is resolving (resolveWith): their stored edges are being replaced. */
  resolving: ReadonlySet<number> | undefined;

  /** Classes by the key of each base they record (built when a definition change first needs it, then kept up to date). */
  private subclassIndex: Map<string, number[]> | null = null;

  /** Whether following a class's bases all the way meets a cycle. */
  private leadsToCycle(id: number): boolean {
    const onPath = new Set<number>(); const done = new Set<number>();
    const visit = (cid: number): boolean => {
      if (done.has(cid)) return false;
      if (onPath.has(cid)) return true;
      onPath.add(cid);
      for (const key of this.basesOf.get(cid) ?? []) { const b = this.byFilePath.get(key); if (b && visit(b.id)) return true; }
      onPath.delete(cid); done.add(cid);
      return false;
    };
    return visit(id);
  }

  /** Whether a graph node (a symbol, or a file as its negative id) lies in a test file. */
  isTestNode(node: number): boolean {
    const fid = node < 0 ? -node : this.symbolFile.get(node);
    return fid !== undefined && this.testFileIds.has(fid);
  }
}

/** A member defined directly in the class body: `Cls.name`, or a later definition of it (`Cls.name~2`). */
function isMemberPath(c: GSymbol, clsPath: string): boolean {
  const own = `${clsPath}.${c.name}`;
  return c.sp === own || (c.sp.startsWith(`${own}~`) && /^\d+$/.test(c.sp.slice(own.length + 1)));
}
