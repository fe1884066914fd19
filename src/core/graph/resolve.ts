/**
 * The heuristic reference provider (`provider: "heuristic"`): turns the raw occurrences stored by the
 * parser into graph edges, per repository, in resolution tiers. Each tier has its own confidence and an
 * evidence code that tools expand into a sentence:
 *
 *   local       0.85  a definition nested in the calling scope
 *   self        0.85  self./this. call bound to the enclosing class (or a base class in the same repo)
 *   same_file   0.8   defined at top level of the same file
 *   import      0.8   imported by name (aliases and re-export barrels followed), or via a module alias
 *   receiver    0.75  method on a constructed or named class: new Worker().run(), Worker().run(), Worker.run()
 *   scope_type  0.65  x.run() where exactly one class named in the calling scope (a parameter's type, a
 *                     constructor call) has a method run
 *   self_chain  0.6   a call on a call chain rooted at the instance (this.a().run(), (c ? this.a() : this).run()):
 *                     fluent interfaces return the instance, so run is looked up in the enclosing class
 *   same_dir    0.6   the only definition with that name in the same folder (package)
 *   unique      0.55  the only definition with that name in the repository
 *   method_name 0.4   the only method with that name, called on a receiver of unknown type
 *   ambiguous   0.25  one of 2–3 definitions sharing the name (each gets an edge; never confident)
 *
 * All stay below 0.9, the `exact` threshold, which only compiler-grade providers reach.
 *
 * A name shared by more than AMBIGUOUS_MAX definitions gets no edge at all; the call site is counted in
 * unbound_calls, so impact answers can say they are a lower bound.
 */
import { posix } from 'node:path';
import type { LanguageId } from '../languages/types';
import type { NewOccurrence } from '../store/store';
import { CROSS_FILE_KINDS } from '../store/occurrences';
import { GRAPH_LANGUAGES, isTestPath, testedBaseNames, type GraphLanguage } from './languages';

// Heuristic confidences stay below 0.9: `exact` (≥ 0.9) is reserved for compiler-grade providers.
export const CONFIDENCE = {
  local: 0.85, self: 0.85, same_file: 0.8, import: 0.8, receiver: 0.75, scope_type: 0.65, self_chain: 0.6, same_dir: 0.6, unique: 0.55, method_name: 0.4, ambiguous: 0.25,
  import_file: 0.85, naming: 0.5,
} as const;
export type Tier = keyof typeof CONFIDENCE;
export const AMBIGUOUS_MAX = 3;

export interface GSymbol { id: number; fileId: number; name: string; sp: string; kind: string; parent: string | null; line: number }
export interface GFile { id: number; path: string; language: LanguageId }
export interface GEdge { from: number; to: number; kind: string; confidence: number; evidence: string; fileId: number; line: number }
export interface GraphInput {
  files: GFile[];
  symbols: GSymbol[];
  /** A file's occurrences; with `kinds`, only those kinds (the rest are never turned into objects). */
  occurrences(fileId: number, kinds?: ReadonlySet<string>): NewOccurrence[];
  /** Receives each file's edges as soon as they are resolved (keeps memory flat); without it they are returned. */
  sink?: (edges: GEdge[]) => void;
  /**
   * Resolve only the occurrences of these files (their edges, test links and unbound counts), against the
   * whole repository: valid when no other file's view of them changed (same definitions, imports, bases).
   */
  only?: ReadonlySet<number>;
}
export interface GraphOutput {
  /**
   * Resolves the given files again against the same repository tables, without rebuilding them: valid
   * while every file keeps its definitions, imports and base classes (and the occurrences accessor reads
   * the current store). Set by resolveGraph.
   */
  resume?: (only: ReadonlySet<number>, sink: ((edges: GEdge[]) => void) | undefined) => GraphOutput;
  edges: GEdge[];
  /** call sites left unbound (a name with too many definitions), per calling file, by name */
  unbound: Map<number, Map<string, number>>;
  stats: { calls: number; bound: number; ambiguous: number; unbound: number };
}

const CLASSY = new Set(['class', 'interface', 'struct', 'enum', 'trait', 'type', 'module']);
const CALLABLE = new Set(['function', 'method', 'class', 'struct', 'constant', 'type', 'interface', 'enum', 'trait']);
const REFERABLE = new Set(['class', 'interface', 'struct', 'enum', 'trait', 'type', 'function', 'constant']);

const NO_MEMBERS: GSymbol[] = [];

/** Node id of a file in graph_edges (symbols use their positive row id). */
export const fileNode = (fileId: number) => -fileId;

interface Binding { kind: 'symbol' | 'module' | 'default'; files: number[]; name: string; source: string }

export function resolveGraph(input: GraphInput): GraphOutput {
  const filesById = new Map(input.files.map(f => [f.id, f]));
  const fileByPath = new Map(input.files.map(f => [f.path, f]));
  const filesByDir = new Map<string, GFile[]>();
  const dirOf = new Map<number, string>();
  for (const f of input.files) { const d = posix.dirname(f.path); dirOf.set(f.id, d); (filesByDir.get(d) ?? filesByDir.set(d, []).get(d)!).push(f); }
  const byName = new Map<string, GSymbol[]>();
  const byFile = new Map<number, GSymbol[]>();
  const byFilePath = new Map<string, GSymbol>();
  for (const s of input.symbols) {
    (byName.get(s.name) ?? byName.set(s.name, []).get(s.name)!).push(s);
    (byFile.get(s.fileId) ?? byFile.set(s.fileId, []).get(s.fileId)!).push(s);
    byFilePath.set(`${s.fileId}\0${s.sp}`, s);
  }
  const topIndex = new Map<number, Map<string, GSymbol[]>>();
  const topLevel = (fileId: number, name: string): GSymbol[] => {
    let m = topIndex.get(fileId);
    if (!m) {
      m = new Map();
      for (const s of byFile.get(fileId) ?? []) if (s.parent === null || isModuleParent(fileId, s)) (m.get(s.name) ?? m.set(s.name, []).get(s.name)!).push(s);
      topIndex.set(fileId, m);
    }
    return m.get(name) ?? [];
  };
  // Definitions nested in a function are local to it: never candidates from another scope.
  const nestedInFunction = new Set<number>();
  for (const sym of input.symbols) {
    if (!sym.parent) continue;
    const p = byFilePath.get(`${sym.fileId}\0${sym.parent}`);
    if (p && (p.kind === 'function' || p.kind === 'method')) nestedInFunction.add(sym.id);
  }
  const methodIndex = new Map<string, GSymbol[]>();
  for (const s of input.symbols) if (s.kind === 'method') (methodIndex.get(s.name) ?? methodIndex.set(s.name, []).get(s.name)!).push(s);
  // Repository-wide candidates of a name, per kind filter and language family (filter → family → name).
  type Global = { list: GSymbol[]; byDir: Map<string, GSymbol[]> };
  const globalMemo = new Map<Set<string>, Map<string, Map<string, Global>>>();
  const globalFor = (filter: Set<string>, family: string): Map<string, Global> => {
    let byFamily = globalMemo.get(filter);
    if (!byFamily) { byFamily = new Map(); globalMemo.set(filter, byFamily); }
    let m = byFamily.get(family);
    if (!m) { m = new Map(); byFamily.set(family, m); }
    return m;
  };
  function isModuleParent(fileId: number, s: GSymbol): boolean {
    const p = s.parent ? byFilePath.get(`${fileId}\0${s.parent}`) : undefined;
    return !!p && p.kind === 'module';
  }
  const childrenOf = new Map<string, GSymbol[]>();
  for (const s of input.symbols) {
    const dot = s.sp.lastIndexOf('.');
    if (dot <= 0) continue;
    const key = `${s.fileId}\0${s.sp.slice(0, dot)}`;
    (childrenOf.get(key) ?? childrenOf.set(key, []).get(key)!).push(s);
  }
  // Methods by owner path across files: Rust impl blocks and Go methods live apart from their type.
  const methodsOfOwner = new Map<string, GSymbol[]>();
  for (const s of input.symbols) if (s.kind === 'method' && s.parent) (methodsOfOwner.get(s.parent) ?? methodsOfOwner.set(s.parent, []).get(s.parent)!).push(s);
  // Members of a class by name, its own first (same file, then methods defined elsewhere), then its bases'
  // in declaration order. Built once per class, in the edges pass (when every base is known).
  const membersCache = new Map<number, Map<string, GSymbol>>();
  function membersOf(cls: GSymbol): Map<string, GSymbol> {
    let m = membersCache.get(cls.id);
    if (m) return m;
    m = new Map();
    membersCache.set(cls.id, m); // before the bases: a cycle sees a partial map instead of recursing forever
    for (const c of childrenOf.get(`${cls.fileId}\0${cls.sp}`) ?? []) if (c.sp === `${cls.sp}.${c.name}`) m.set(c.name, c);
    for (const x of methodsOfOwner.get(cls.sp) ?? []) if (x.fileId !== cls.fileId && !m.has(x.name)) m.set(x.name, x);
    for (const key of basesOf.get(cls.id) ?? []) {
      const base = byFilePath.get(key);
      if (base) for (const [n, x] of membersOf(base)) if (!m.has(n)) m.set(n, x);
    }
    return m;
  }
  const memberIn = (cls: GSymbol, name: string) => membersOf(cls).get(name);

  // Edges are buffered per file (every edge of a file starts in that file) and handed to the sink.
  let edges: GEdge[] = [];
  let best = new Map<string, number>(); // (from,to,kind) → index in edges
  let all: GEdge[] = [];
  let sink = input.sink;
  const flush = () => { if (sink) sink(edges); else for (const e of edges) all.push(e); edges = []; best = new Map(); };
  const testFileIds = new Set(input.files.filter(f => isTestPath(f.path)).map(f => f.id));
  const symbolFile = new Map(input.symbols.map(s => [s.id, s.fileId]));
  const isTestNode = (node: number) => {
    const fid = node < 0 ? -node : symbolFile.get(node);
    return fid !== undefined && testFileIds.has(fid);
  };
  const emit = (from: number, to: number, kind: string, tier: Tier, detail: string, fileId: number, line: number, confidence: number = CONFIDENCE[tier]) => {
    if (from === to || pass === 'bases') return;
    const key = `${from},${to},${kind}`;
    const i = best.get(key);
    const evidence = detail ? `${tier}:${detail}` : tier;
    if (i === undefined) { best.set(key, edges.length); edges.push({ from, to, kind, confidence, evidence, fileId, line }); }
    else if (edges[i]!.confidence < confidence) edges[i] = { from, to, kind, confidence, evidence, fileId, line };
  };
  let unbound = new Map<number, Map<string, number>>();
  const countUnbound = (fileId: number, name: string) => {
    const m = unbound.get(fileId) ?? unbound.set(fileId, new Map()).get(fileId)!;
    m.set(name, (m.get(name) ?? 0) + 1);
  };
  let stats = { calls: 0, bound: 0, ambiguous: 0, unbound: 0 };

  // Extends/implements per class (by name), to follow self. calls into base classes.
  const basesOf = new Map<number, string[]>();

  // Resolve the files an import refers to.
  const importMemo = new Map<string, number[]>();
  function importFiles(lang: LanguageId, source: string, fromPath: string): number[] {
    const key = `${fromPath}\0${source}`;
    let r = importMemo.get(key);
    if (!r) { r = importFilesUncached(lang, source, fromPath); importMemo.set(key, r); }
    return r;
  }
  function importFilesUncached(lang: LanguageId, source: string, fromPath: string): number[] {
    const L: GraphLanguage = GRAPH_LANGUAGES[lang];
    if (lang === 'go') {
      const want = source.replace(/^["`]|["`]$/g, '');
      for (const [dir, files] of filesByDir) {
        if (dir !== '.' && (want === dir || want.endsWith(`/${dir}`))) return files.filter(f => f.language === 'go').map(f => f.id);
      }
      return [];
    }
    for (const c of L.importCandidates(source, fromPath)) { const f = fileByPath.get(c); if (f) return [f.id]; }
    if (L.packageCandidates) return workspacePackage(L, source);
    return [];
  }

  // A bare specifier (`zod/v4`, `@acme/core/utils`) may name a package of this repository (a monorepo
  // workspace): a folder named like the package holding one of the language's candidate paths. A name
  // that fits several folders binds nothing.
  const packageDirs = new Map<string, string[]>(); // folder name → folders with that name, built on first use
  const packageMemo = new Map<string, number[]>();
  function workspacePackage(L: GraphLanguage, source: string): number[] {
    let found = packageMemo.get(source);
    if (found) return found;
    found = [];
    const want = L.packageCandidates!(source);
    if (want) {
      if (!packageDirs.size) {
        for (const f of input.files) {
          for (let d = posix.dirname(f.path); d !== '.' && d !== '/'; d = posix.dirname(d)) {
            const list = packageDirs.get(posix.basename(d)) ?? packageDirs.set(posix.basename(d), []).get(posix.basename(d))!;
            if (list.includes(d)) break;
            list.push(d);
          }
        }
      }
      for (const dir of packageDirs.get(want.folder) ?? []) {
        const hit = want.paths.map(p => fileByPath.get(`${dir}/${p}`)).find(f => f !== undefined);
        if (hit) found.push(hit.id);
      }
      if (found.length !== 1) found = [];
    }
    packageMemo.set(source, found);
    return found;
  }

  // A name exported by a file, following re-exports (barrels) up to 3 hops.
  // Only the imports of other files are needed again (for re-export chains); full occurrence lists are
  // decoded once per file and dropped, which keeps memory flat on large repositories.
  const importCache = new Map<number, NewOccurrence[]>();
  const importsOf = (fileId: number) => {
    let o = importCache.get(fileId);
    if (!o) { o = input.occurrences(fileId).filter(x => x.kind === 'import'); importCache.set(fileId, o); }
    return o;
  };
  function exported(fileId: number, name: string, depth = 0): { sym: GSymbol; via: string } | null {
    const direct = topLevel(fileId, name);
    if (direct.length) return { sym: direct[0]!, via: '' };
    if (depth >= 3) return null;
    const f = filesById.get(fileId);
    if (!f) return null;
    for (const o of importsOf(fileId)) {
      if (!o.source) {
        // export { local as name }: the local binding is a definition of this file or one of its imports
        if (o.alias !== name && !(o.name === name && !o.alias)) continue;
        const local = o.name;
        const def = topLevel(fileId, local);
        if (def.length) return { sym: def[0]!, via: '' };
        const imp = importsOf(fileId).find(x => x.source && (x.alias === local || (!x.alias && x.name === local)));
        if (imp?.source && imp.name && imp.name !== '*') {
          for (const t of importFiles(f.language, imp.source, f.path)) {
            const r = exported(t, imp.name === imp.alias ? local : imp.name, depth + 1);
            if (r) return { sym: r.sym, via: r.via ? `${imp.source} → ${r.via}` : imp.source };
          }
        }
        continue;
      }
      // `from m import *`, and in JS/TS `export * from './m'` (stored with the source as its name)
      const star = o.name === '*' || (o.name === o.source && !o.alias && FAMILY[f.language] === 'js');
      if (o.alias && o.name === o.alias) continue;          // a namespace (export * as ns): see exportedModule
      if (!star && o.name !== name && o.alias !== name) continue;
      const inner = !star && o.alias === name && o.name && o.name !== 'default' ? o.name : name;
      for (const t of importFiles(f.language, o.source, f.path)) {
        const r = exported(t, inner, depth + 1);
        if (r) return { sym: r.sym, via: r.via ? `${o.source} → ${r.via}` : o.source };
      }
    }
    return null;
  }

  /** Files a barrel re-exports as the namespace `name` (export * as name from …), following export * chains. */
  function exportedModule(fileId: number, name: string, depth = 0): number[] {
    if (depth >= 3) return [];
    const f = filesById.get(fileId);
    if (!f) return [];
    for (const o of importsOf(fileId)) {
      if (!o.source) continue;
      if (o.alias === name && o.name === o.alias) return importFiles(f.language, o.source, f.path);
      const star = o.name === '*' || (o.name === o.source && !o.alias && FAMILY[f.language] === 'js');
      if (star) for (const t of importFiles(f.language, o.source, f.path)) { const r = exportedModule(t, name, depth + 1); if (r.length) return r; }
    }
    return [];
  }

  // Two passes over the files: first every extends/implements (so self./super. calls can follow base
  // classes whatever file order), then the edges.
  let pass: 'bases' | 'edges' = 'bases';
  const visit = (file: GFile) => {
    const L: GraphLanguage = GRAPH_LANGUAGES[file.language];
    const fileDir = dirOf.get(file.id)!;
    // names of nested definitions in this file: only these can resolve through the scope chain
    const localNames = new Set((byFile.get(file.id) ?? []).filter(x => x.parent !== null).map(x => x.name));
    const occ = pass === 'bases' ? input.occurrences(file.id, CROSS_FILE_KINDS) : input.occurrences(file.id);
    if (!importCache.has(file.id)) importCache.set(file.id, occ.filter(x => x.kind === 'import'));
    if (pass === 'bases' && !occ.some(o => o.kind === 'extends' || o.kind === 'implements')) return;
    const bindings = new Map<string, Binding>();
    const family = FAMILY[file.language] ?? file.language;
    const fromMemo = new Map<string, number>();
    const fromOf = (scope: string | null): number => {
      if (!scope) return fileNode(file.id);
      let id = fromMemo.get(scope);
      if (id === undefined) { id = byFilePath.get(`${file.id}\0${scope}`)?.id ?? fileNode(file.id); fromMemo.set(scope, id); }
      return id;
    };
    const classOf = (scope: string | null): GSymbol | undefined => {
      for (let p = scope; p; p = p.includes('.') ? p.slice(0, p.lastIndexOf('.')) : null) {
        const s = byFilePath.get(`${file.id}\0${p}`);
        if (s && CLASSY.has(s.kind) && s.kind !== 'module') return s;
      }
      return undefined;
    };

    // Imports: file → file and file → symbol edges, and local bindings.
    // Names imported by a bare specifier that is no package of this repository (`import { join } from 'path'`)
    // belong to that outside module: never bound to a same-named definition of the repository.
    const external = new Set<string>();
    for (const o of occ) {
      if (o.kind !== 'import' || !o.source) continue;
      const targets = importFiles(file.language, o.source, file.path);
      if (!targets.length) {
        if (L.packageCandidates && !o.source.startsWith('.') && o.name && o.name !== o.source) external.add(o.alias ?? o.name);
        continue;
      }
      for (const t of targets) emit(fileNode(file.id), fileNode(t), 'imports', 'import_file', o.source, file.id, o.line);
      // `import a.b as c` / Go `import u "path"`: the name is the module itself, not a symbol in it.
      const name = o.name && o.name !== o.source && o.name !== o.alias ? o.name : null;
      if (name && name !== '*' && name !== 'default') {
        const local = o.alias ?? name;
        bindings.set(local, { kind: 'symbol', files: targets, name, source: o.source });
        if (pass === 'edges') for (const t of targets) { const r = exported(t, name); if (r) emit(fileNode(file.id), r.sym.id, 'imports', 'import', r.via ? `${o.source} → ${r.via}` : o.source, file.id, o.line); }
      } else if (name === 'default' && o.alias) {
        bindings.set(o.alias, { kind: 'default', files: targets, name: o.alias, source: o.source });
      } else if (L.moduleImport) {
        const local = o.alias ?? (file.language === 'go' ? o.source.replace(/^["`]|["`]$/g, '').split('/').pop()! : o.source.replace(/^\.+/, '').split(/[./]/)[0]!);
        if (local) bindings.set(local, { kind: 'module', files: targets, name: local, source: o.source });
      }
    }

    type Resolution = { syms: GSymbol[]; tier: Tier; detail: string } | { unbound: number };
    // filter → scope → name → resolution (nested maps: no key strings built per occurrence)
    const memo = new Map<Set<string>, Map<string | null, Map<string, Resolution>>>();
    /** Plain-name resolution, memoised per file: the same name in the same scope resolves the same way. */
    const resolveName = (name: string, scope: string | null, filter: Set<string>): Resolution => {
      // Only names of nested definitions depend on the scope (see resolveNameUncached).
      if (scope !== null && !localNames.has(name)) scope = null;
      let byScope = memo.get(filter);
      if (!byScope) { byScope = new Map(); memo.set(filter, byScope); }
      let byName = byScope.get(scope);
      if (!byName) { byName = new Map(); byScope.set(scope, byName); }
      let r = byName.get(name);
      if (!r) { r = resolveNameUncached(name, scope, filter); byName.set(name, r); }
      return r;
    };
    const resolveNameUncached = (name: string, scope: string | null, filter: Set<string>): Resolution => {
      const globalNames = globalFor(filter, family);
      if (scope && localNames.has(name)) {
        for (let p: string | null = scope; p; p = p.includes('.') ? p.slice(0, p.lastIndexOf('.')) : null) {
          const s = byFilePath.get(`${file.id}\0${p}.${name}`);
          if (s && filter.has(s.kind)) return { syms: [s], tier: p === scope ? 'local' : 'same_file', detail: '' };
        }
      }
      for (const s of topLevel(file.id, name)) if (filter.has(s.kind)) return { syms: [s], tier: 'same_file', detail: '' };
      const b = bindings.get(name);
      if (b) {
        for (const t of b.files) {
          const r = b.kind === 'symbol' ? exported(t, b.name) : b.kind === 'default' ? (exported(t, name) ?? exported(t, 'default')) : null;
          if (r && filter.has(r.sym.kind)) return { syms: [r.sym], tier: 'import', detail: r.via ? `${b.source} → ${r.via}` : b.source };
        }
      }
      if (external.has(name)) return { unbound: 0 };
      let global = globalNames.get(name);
      if (!global) {
        const list = (byName.get(name) ?? []).filter(s => filter.has(s.kind) && s.kind !== 'method' && !nestedInFunction.has(s.id) && sameFamily(filesById.get(s.fileId)!.language, file.language));
        const byDir = new Map<string, GSymbol[]>();
        if (list.length > 1) for (const s of list) { const d = dirOf.get(s.fileId)!; (byDir.get(d) ?? byDir.set(d, []).get(d)!).push(s); }
        global = { list, byDir };
        globalNames.set(name, global);
      }
      const sameLang = global.list;
      const inDir = global.byDir.get(fileDir) ?? [];
      if (inDir.length === 1) return { syms: inDir, tier: 'same_dir', detail: fileDir };
      // The only definition in the repository, and it is in this folder (a Go package, a Python package): same_dir, the more specific tier.
      if (sameLang.length === 1) return dirOf.get(sameLang[0]!.fileId) === fileDir ? { syms: sameLang, tier: 'same_dir', detail: fileDir } : { syms: sameLang, tier: 'unique', detail: '' };
      if (sameLang.length > 1 && sameLang.length <= AMBIGUOUS_MAX) return { syms: sameLang, tier: 'ambiguous', detail: String(sameLang.length) };
      return { unbound: sameLang.length };
    };

    // Classes each scope names (type annotations, constructor calls, references), for scope_type.
    const scopeClasses = new Map<string, GSymbol[]>();
    for (const o of pass === 'edges' ? occ : []) {
      if (o.scope === null || (o.kind !== 'identifier' && o.kind !== 'call') || !/^[A-Z]/.test(o.name)) continue;
      if (o.receiver) {
        // httpx.Client(): a class reached through a module alias
        const b = o.kind === 'call' ? bindings.get(o.receiver) : undefined;
        if (!b || b.kind !== 'module') continue;
        for (const t of b.files) {
          const x = exported(t, o.name);
          if (x && CLASSY.has(x.sym.kind)) { const list = scopeClasses.get(o.scope) ?? scopeClasses.set(o.scope, []).get(o.scope)!; if (!list.includes(x.sym)) list.push(x.sym); break; }
        }
        continue;
      }
      const res = resolveName(o.name, o.scope, CLASSY);
      if (!('syms' in res) || res.syms.length !== 1 || res.tier === 'ambiguous') continue;
      const list = scopeClasses.get(o.scope) ?? scopeClasses.set(o.scope, []).get(o.scope)!;
      if (!list.includes(res.syms[0]!)) list.push(res.syms[0]!);
    }
    // Members named `name` of the classes a scope names (each class's member map is built once).
    const scopeMembers = (p: string, name: string): GSymbol[] => {
      const classes = scopeClasses.get(p);
      if (!classes) return NO_MEMBERS;
      let out: GSymbol[] = NO_MEMBERS;
      for (const cls of classes) {
        const x = membersOf(cls).get(name);
        if (x && !out.includes(x)) { if (out === NO_MEMBERS) out = []; out.push(x); }
      }
      return out;
    };
    const methodsNamed = (name: string) => (methodIndex.get(name) ?? []).filter(s => sameFamily(filesById.get(s.fileId)!.language, file.language));

    for (const o of occ) {
      if (pass === 'bases' && o.kind !== 'extends' && o.kind !== 'implements') continue;
      if (o.kind === 'call') {
        stats.calls++;
        const from = fromOf(o.scope);
        const r = o.receiver?.trim() ?? null;
        let done = false;
        const bind = (syms: GSymbol[], tier: Tier, detail: string) => { for (const s of syms) emit(from, s.id, 'calls', tier, detail, file.id, o.line); stats.bound++; if (tier === 'ambiguous' || (tier === 'method_name')) stats.ambiguous++; done = true; };
        if (!r) {
          const res = resolveName(o.name, o.scope, CALLABLE);
          if ('syms' in res) bind(res.syms, res.tier, res.detail);
          else if (res.unbound > AMBIGUOUS_MAX) { countUnbound(file.id, o.name); stats.unbound++; }
          continue;
        }
        if (r === 'super' || r === 'super()' || r.startsWith('super(')) {
          const cls = classOf(o.scope);
          const m = cls ? baseMember(cls, o.name) : undefined;
          if (m) { bind([m], 'self', `super of ${cls!.sp}`); continue; }
        }
        if ((L.selfReceivers as readonly string[]).includes(r)) {
          const cls = classOf(o.scope);
          if (cls) {
            const m = memberIn(cls, o.name);
            if (m) { bind([m], 'self', cls.sp); continue; }
          }
        }
        if (selfRooted(r, L.selfReceivers)) {
          // this.transform(…).test(…), (opts ? this.resolve(opts) : this).clone(): fluent chains on the instance
          const cls = classOf(o.scope);
          const m = cls ? memberIn(cls, o.name) : undefined;
          if (m) { bind([m], 'self_chain', cls!.sp); continue; }
        }
        const constructed = L.constructed(r);
        const named = constructed ?? (/^[A-Za-z_$][\w$]*$/.test(r) ? r : null);
        if (named) {
          const b = bindings.get(named);
          if (!constructed && b && b.kind === 'symbol') {
            // `import { util } from './index'` where the barrel does `export * as util from './util'`
            const mods = b.files.flatMap(t => exportedModule(t, b.name));
            for (const t of mods) { const x = exported(t, o.name); if (x && CALLABLE.has(x.sym.kind)) { bind([x.sym], 'import', `${b.source} → ${b.name}.${o.name}`); break; } }
            if (done) continue;
          }
          if (!constructed && b && b.kind === 'module') {
            for (const t of b.files) { const x = exported(t, o.name); if (x && CALLABLE.has(x.sym.kind)) { bind([x.sym], 'import', `${b.source}${x.via ? ` → ${x.via}` : ''}`); break; } }
            if (done) continue;
            // Go: a package alias may span several files of the package
            const inPkg = b.files.flatMap(t => topLevel(t, o.name));
            if (inPkg.length === 1) { bind(inPkg, 'import', b.source); continue; }
          }
          const cls = resolveName(named, o.scope, CLASSY);
          if ('syms' in cls && cls.syms.length === 1) {
            const m = memberIn(cls.syms[0]!, o.name);
            if (m) { bind([m], 'receiver', constructed ? `${named}(…)` : named); continue; }
          }
        }
        if (done) continue;
        // The receiver's type is probably one of the classes the scope names (annotations, constructors).
        let typed: GSymbol[] = [];
        for (let p: string | null = o.scope; p !== null; p = p.includes('.') ? p.slice(0, p.lastIndexOf('.')) : null) {
          typed = scopeMembers(p, o.name);
          if (typed.length) break;
        }
        if (typed.length === 1) { bind(typed, 'scope_type', typed[0]!.sp.slice(0, typed[0]!.sp.lastIndexOf('.'))); continue; }
        const cands = methodsNamed(o.name);
        if (cands.length === 1) bind(cands, 'method_name', '1');
        else if (cands.length > 1 && cands.length <= AMBIGUOUS_MAX) bind(cands, 'ambiguous', String(cands.length));
        else if (cands.length > AMBIGUOUS_MAX) { countUnbound(file.id, o.name); stats.unbound++; }
      } else if (o.kind === 'extends' || o.kind === 'implements') {
        const cls = o.scope ? byFilePath.get(`${file.id}\0${o.scope}`) : undefined;
        if (!cls) continue;
        const res = resolveName(o.name, null, CLASSY);
        if ('syms' in res) {
          for (const s of res.syms) emit(cls.id, s.id, o.kind, res.tier, res.detail, file.id, o.line);
          if (pass === 'bases') {
            const list = basesOf.get(cls.id) ?? basesOf.set(cls.id, []).get(cls.id)!;
            list.push(...res.syms.map(s => `${s.fileId}\0${s.sp}`));
          }
        }
      } else if (o.kind === 'identifier') {
        // Top-level uses are covered by imports and calls; identifiers there are mostly declarations.
        if (o.name.length < 3 || o.scope === null) continue;
        const res = resolveName(o.name, o.scope, REFERABLE);
        // Identifiers include attribute and key names (obj.stream, { check: … }): a bare name match across
        // files is too weak for them, so references bind only through scope, file, import — and same
        // folder for types.
        if (!('syms' in res) || res.tier === 'ambiguous' || res.tier === 'unique') continue;
        if (res.tier === 'same_dir' && !res.syms.every(x => CLASSY.has(x.kind))) continue;
        const from = fromOf(o.scope);
        for (const s of res.syms) {
          // a definition mentioning itself (recursion, its own name) is not a reference
          if (o.scope && (o.scope === s.sp || o.scope.startsWith(`${s.sp}.`)) && s.fileId === file.id) continue;
          emit(from, s.id, 'references', res.tier, res.detail, file.id, o.line);
        }
      }
    }
    // What a test's code calls is what it tests.
    if (testFileIds.has(file.id)) {
      for (const e of [...edges]) {
        if (e.kind !== 'calls' || isTestNode(e.to)) continue;
        const [tier, ...rest] = e.evidence.split(':');
        emit(e.from, e.to, 'contains_test_for', tier as Tier, rest.join(':'), e.fileId, e.line, e.confidence);
      }
    }
    if (pass === 'edges') flush();
  };
  for (const f of input.files) visit(f);
  pass = 'edges';
  // With cyclic bases a member map depends on which class of the cycle is asked first, and a partial
  // update must see the maps a full build sees: then the maps of all classes with bases are built in
  // symbol order before any file asks (without a cycle they are built on demand).
  if (hasBaseCycle()) for (const sym of input.symbols) if (basesOf.has(sym.id)) membersOf(sym);
  const out = edgesPass(input.only);
  // What was built above depends only on the repository's definitions, imports and base classes: a later
  // run whose files kept all three (bodies changed) may resolve its files against it again.
  out.resume = (only, s) => {
    edges = []; best = new Map(); all = []; unbound = new Map(); stats = { calls: 0, bound: 0, ambiguous: 0, unbound: 0 };
    sink = s;
    return edgesPass(only);
  };
  return out;

  /** The edges of the given files (all files without `only`), their test links and unbound counts. */
  function edgesPass(only: ReadonlySet<number> | undefined): GraphOutput {
    for (const f of input.files) if (!only || only.has(f.id)) visit(f);
    // Test files named after a source file test it.
    const byBase = new Map<string, GFile[]>();
    for (const f of input.files) { const b = f.path.slice(f.path.lastIndexOf('/') + 1); (byBase.get(b) ?? byBase.set(b, []).get(b)!).push(f); }
    for (const t of input.files) {
      if (!testFileIds.has(t.id) || (only && !only.has(t.id))) continue;
      for (const b of testedBaseNames(t.path)) {
        const cands = (byBase.get(b) ?? []).filter(f => !testFileIds.has(f.id));
        const near = cands.filter(f => posix.dirname(f.path) === posix.dirname(t.path));
        const pick = near.length === 1 ? near : cands.length === 1 ? cands : [];
        for (const f of pick) emit(fileNode(t.id), fileNode(f.id), 'contains_test_for', 'naming', b, t.id, 1);
      }
    }
    flush();
    return { edges: all, unbound, stats };
  }

  /** Whether following base classes (by the keys in basesOf) ever leads back to a class on the way. */
  function hasBaseCycle(): boolean {
    const state = new Map<string, 1 | 2>(); // 1 on the current path, 2 done
    const keyOf = new Map<number, string>();
    for (const sym of input.symbols) if (basesOf.has(sym.id)) keyOf.set(sym.id, `${sym.fileId}\0${sym.sp}`);
    const visit = (key: string): boolean => {
      const st = state.get(key);
      if (st === 1) return true;
      if (st === 2) return false;
      state.set(key, 1);
      const cls = byFilePath.get(key);
      for (const b of (cls && basesOf.get(cls.id)) ?? []) if (visit(b)) return true;
      state.set(key, 2);
      return false;
    };
    for (const key of keyOf.values()) if (visit(key)) return true;
    return false;
  }

  /** A member of one of the class's bases (super.name()), never its own. */
  function baseMember(cls: GSymbol, name: string): GSymbol | undefined {
    for (const key of basesOf.get(cls.id) ?? []) {
      const base = byFilePath.get(key);
      const m = base ? memberIn(base, name) : undefined;
      if (m) return m;
    }
    return undefined;
  }
}

/** A call chain on the instance (`this.a(…)`, `this.a(…).b(…)`), or a conditional whose branches all are or start one. */
function selfRooted(receiver: string, selves: readonly string[]): boolean {
  const t = receiver.trim();
  const chain = (x: string) => selves.some(s => x.startsWith(`${s}.`) && x.endsWith(')') && /^[A-Za-z_$][\w$]*\s*\(/.test(x.slice(s.length + 1)));
  const paren = /^\((.*)\)$/s.exec(t);
  if (!paren) return chain(t);
  const inner = paren[1]!; const q = inner.indexOf('?'); const c = inner.lastIndexOf(':');
  if (q <= 0 || c <= q) return false;
  const branches = [inner.slice(q + 1, c).trim(), inner.slice(c + 1).trim()];
  return branches.some(b => chain(b)) && branches.every(b => selves.includes(b) || chain(b));
}

const FAMILY: Partial<Record<LanguageId, string>> = { typescript: 'js', tsx: 'js', javascript: 'js', c: 'c', cpp: 'c' };
function sameFamily(a: LanguageId, b: LanguageId): boolean { return a === b || (!!FAMILY[a] && FAMILY[a] === FAMILY[b]); }
