/**
 * One file as graph resolution sees it: its imports bound to local names, and plain-name resolution
 * from a scope of the file through the tiers local → same_file → import → same_dir → unique →
 * ambiguous (memoised per file: the same name in the same scope resolves the same way).
 */
import { familyOf, graphRules, sameFamily } from '../languages';
import type { GraphRules } from '../languages/types';
import type { Occurrence } from '../parse/occurrence';
import { AMBIGUOUS_MAX, type Tier } from './tiers';
import { CLASSY, symbolKey, type GFile, type GSymbol, type RepoTables } from './tables';
import { EdgeBuffer } from './edges';
import { fixtureNamed } from './fixtures';
import { Flow } from './flow';
import { overloadBase } from './lookup';

/** Node id of a file in graph_edges (symbols use their positive row id). */
export const fileNode = (fileId: number) => -fileId;

/** What a local name of a file is bound to by its imports. */
export interface Binding { kind: 'symbol' | 'module' | 'default'; files: number[]; name: string; source: string }

/** A name resolved to definitions in a tier, or left unbound (`unbound`: how many definitions share it). */
export type Resolution = { syms: GSymbol[]; tier: Tier; detail: string } | { unbound: number };

const NO_MEMBERS: GSymbol[] = [];

/** The scope enclosing a scope path (`A.b.c` → `A.b`), null at the outermost. */
export const parentScope = (p: string): string | null => (p.includes('.') ? p.slice(0, p.lastIndexOf('.')) : null);

export class FileScope {
  readonly L: GraphRules;
  readonly dir: string;
  readonly family: string;
  /** names of nested definitions in this file: only these can resolve through the scope chain */
  private readonly localNames: Set<string>;
  readonly bindings = new Map<string, Binding>();
  private readonly scopedBindings = new Map<string, { scope: string; binding: Binding }[]>();
  /**
   * Names imported by a bare specifier that is no package of this repository (`import { join } from 'path'`)
   * belong to that outside module: never bound to a same-named definition of the repository.
   */
  private readonly external = new Set<string>();
  private readonly fromMemo = new Map<string, number>();
  // filter → scope → name → resolution (nested maps: no key strings built per occurrence)
  private readonly memo = new Map<ReadonlySet<string>, Map<string | null, Map<string, Resolution>>>();
  /** Classes each scope names (type annotations, constructor calls, references), for scope_type. */
  private readonly scopeClasses = new Map<string, GSymbol[]>();
  private classesCollected = false;
  /** what names hold (assignments, declared types): the `assigned` call rule */
  readonly flow = new Flow(this);

  constructor(readonly t: RepoTables, readonly file: GFile) {
    this.L = graphRules(file.language);
    this.dir = t.dirOf.get(file.id)!;
    this.family = familyOf(file.language);
    this.localNames = new Set((t.byFile.get(file.id) ?? []).filter(x => x.parent !== null).map(x => x.name));
  }

  /** The graph node a scope stands for: its definition, or the file at top level. */
  fromOf(scope: string | null): number {
    if (!scope) return fileNode(this.file.id);
    let id = this.fromMemo.get(scope);
    if (id === undefined) { id = this.t.byFilePath.get(symbolKey(this.file.id, scope))?.id ?? fileNode(this.file.id); this.fromMemo.set(scope, id); }
    return id;
  }

  /** Whether `scope` is a class body of a language where its bare calls go to the class (classBodyIsClass). */
  inClassBody(scope: string | null): boolean {
    return !!this.L.classBodyIsClass && this.isClass(scope);
  }

  /** Whether `scope` names a class (or another class-like definition) of this file. */
  isClass(scope: string | null): boolean {
    const s = scope ? this.t.byFilePath.get(symbolKey(this.file.id, scope)) : undefined;
    return !!s && CLASSY.has(s.kind);
  }

  /** The innermost class (not module) enclosing a scope. */

  classOf(scope: string | null): GSymbol | undefined {
    for (let p: string | null = scope; p; p = parentScope(p)) {
      const s = this.t.byFilePath.get(symbolKey(this.file.id, p));
      if (s && CLASSY.has(s.kind) && s.kind !== 'module') return s;
    }
    return undefined;
  }

  /**
   * Imports: file → file and (with `symbolEdges`) file → symbol edges, and the local bindings they make.
   */
  bindImports(occ: readonly Occurrence[], out: EdgeBuffer, symbolEdges: boolean): void {
    const { file, L } = this;
    const imports = this.t.imports;
    for (const o of occ) {
      if (o.kind !== 'import' || !o.source) continue;
      const targets = imports.importFiles(file.language, o.source, file.path);
      // `import a.b as c` / Go `import u "path"`: the name is the module itself, not a symbol in it.
      const name = o.name && o.name !== o.source && o.name !== o.alias ? o.name : null;
      const module = name && name !== '*' && name !== 'default' ? this.submoduleOf(o.source, name, targets) : null;
      for (const t of module ?? []) out.emit(fileNode(file.id), fileNode(t), 'imports', 'import_file', `${o.source} → ${name}`, file.id, o.line);
      if (module) {
        this.bind(o, o.alias ?? name!, { kind: 'module', files: module, name: o.alias ?? name!, source: `${o.source} → ${name}` });
        continue;
      }
      if (!targets.length) {
        // a package outside the repository: a name from it (`import { x } from 'pkg'`), or the module
        // itself (`import json`, `import yaml as y`: its local name)
        const outside = !o.source.startsWith('.');
        if (outside && name && L.packageCandidates) this.external.add(o.alias ?? name);
        else if (outside && !name && L.moduleImport) { const local = o.alias ?? L.moduleImport(o.source); if (local) this.external.add(local); }
        continue;
      }
      for (const t of targets) out.emit(fileNode(file.id), fileNode(t), 'imports', 'import_file', o.source, file.id, o.line);
      if (name && name !== '*' && name !== 'default') {
        const local = o.alias ?? name;
        this.bind(o, local, { kind: 'symbol', files: targets, name, source: o.source });
        if (symbolEdges) for (const t of targets) { const r = imports.exported(t, name); if (r) out.emit(fileNode(file.id), r.sym.id, 'imports', 'import', r.via ? `${o.source} → ${r.via}` : o.source, file.id, o.line); }
      } else if (name === 'default' && o.alias) {
        this.bind(o, o.alias, { kind: 'default', files: targets, name: o.alias, source: o.source });
      } else if (L.moduleImport) {
        const local = o.alias ?? L.moduleImport(o.source);
        if (local) this.bind(o, local, { kind: 'module', files: this.boundModule(o, local, targets), name: local, source: o.source });
        // import a.b: `a.b.f()` calls into a.b itself
        if (!o.alias && local && o.source.startsWith(`${local}.`)) this.bind(o, o.source, { kind: 'module', files: targets, name: o.source, source: o.source });
      }
    }
  }

  /** Whether a name is bound by an import of a package outside the repository (`json`, `from yaml import load`). */
  isExternal(name: string): boolean { return this.external.has(name) && !this.bindings.has(name); }

  /** `from pkg import mod` naming a module of the package that defines no `mod`: that module's files. */
  /**
   * Records what an import binds: for the whole file, or, for an import inside a function (Python's
   * `from .decorators import command` in a method), only inside that function and what it nests.
   */
  private bind(o: Occurrence, local: string, b: Binding): void {
    if (o.scope === null || this.isClass(o.scope)) { this.bindings.set(local, b); return; }
    const list = this.scopedBindings.get(local) ?? this.scopedBindings.set(local, []).get(local)!;
    list.push({ scope: o.scope, binding: b });
    this.localNames.add(local);
  }

  /** What a name is bound to by an import, seen from `scope` (a function-local import first). */
  binding(name: string, scope: string | null): Binding | undefined {
    return (scope === null ? undefined : this.scopedBinding(name, scope)) ?? this.bindings.get(name);
  }

  private scopedBinding(name: string, scope: string): Binding | undefined {
    for (const x of this.scopedBindings.get(name) ?? []) {
      if (scope === x.scope || scope.startsWith(`${overloadBase(x.scope)}.`)) return x.binding;
    }
    return undefined;
  }

  /** The definition an imported name stands for, of a kind the filter accepts. */
  private resolveBinding(name: string, b: Binding, filter: ReadonlySet<string>): Resolution | undefined {
    const exported = this.t.imports;
    for (const f of b.files) {
      const r = b.kind === 'symbol' ? exported.exported(f, b.name)
        : b.kind === 'default' ? (exported.exported(f, name) ?? exported.exported(f, 'default')) : null;
      if (r && filter.has(r.sym.kind)) return { syms: [r.sym], tier: 'import', detail: r.via ? `${b.source} → ${r.via}` : b.source };
    }
    return undefined;
  }

  /**
   * The files a module import's local name stands for: `import a.b` binds `a`, the package (its
   * `__init__`), not `a/b`; an aliased import or a plain one binds what it imports.
   */
  private boundModule(o: Occurrence, local: string, targets: number[]): number[] {
    if (o.alias || !o.source!.startsWith(`${local}.`)) return targets;
    const pkg = this.t.imports.importFiles(this.file.language, local, this.file.path);
    return pkg.length ? pkg : targets;
  }

  private submoduleOf(source: string, name: string, targets: readonly number[]): number[] | null {
    const spec = this.L.submodule?.(source, name);
    if (!spec || targets.some(t => this.t.imports.exported(t, name))) return null;
    const files = this.t.imports.importFiles(this.file.language, spec, this.file.path);
    return files.length ? files : null;
  }

  /**
   * The class a type annotation names: `URL`, or `models.URL` through the repository (by its last
   * segment); nothing for a package outside it (`httpx.Response` is not the repository's Response).
   */
  resolveType(qualified: string, scope: string | null): Resolution {
    const name = dotted(qualified);
    const dot = name.indexOf('.');
    if (dot < 0) return this.resolveName(name, scope, CLASSY);
    if (this.isExternal(name.slice(0, dot))) return { unbound: 0 };
    // `nodes.Template` after `from . import nodes`: the module's Template, not any class of that name
    const b = name.indexOf('.', dot + 1) < 0 ? this.binding(name.slice(0, dot), scope) : undefined;
    const exported = b?.kind === 'module' ? b.files.map(f => this.t.imports.exported(f, name.slice(dot + 1))).find(r => r) : undefined;
    if (exported && CLASSY.has(exported.sym.kind)) return { syms: [exported.sym], tier: 'import', detail: b!.source };
    return this.resolveName(name.slice(name.lastIndexOf('.') + 1), scope, CLASSY);
  }

  /** Plain-name resolution of `name` from `scope` among definitions of the kinds in `filter`. */
  resolveName(name: string, scope: string | null, filter: ReadonlySet<string>): Resolution {
    // Only names of nested definitions depend on the scope (see resolveNameUncached).
    if (scope !== null && !this.localNames.has(name)) scope = null;
    let byScope = this.memo.get(filter);
    if (!byScope) { byScope = new Map(); this.memo.set(filter, byScope); }
    let byName = byScope.get(scope);
    if (!byName) { byName = new Map(); byScope.set(scope, byName); }
    let r = byName.get(name);
    if (!r) { r = this.resolveNameUncached(name, scope, filter); byName.set(name, r); }
    return r;
  }

  private resolveNameUncached(name: string, scope: string | null, filter: ReadonlySet<string>): Resolution {
    const { t, file } = this;
    const local = scope === null ? undefined : this.scopedBinding(name, scope);
    if (local) return this.resolveBinding(name, local, filter) ?? { unbound: 0 };
    if (scope && this.localNames.has(name)) {
      for (let p: string | null = scope; p; p = parentScope(p)) {
        // definitions nested in a redefinition (`def command` after its `@overload`s, `command~5`) are named
        // under the first one's path (`command.decorator`)
        const s = t.byFilePath.get(symbolKey(file.id, `${overloadBase(p)}.${name}`));
        if (s && p === scope && s.kind === 'method' && this.inClassBody(scope)) continue;
        if (s && p !== scope && this.L.classScopeHidden && this.isClass(p)) continue;
        if (s && filter.has(s.kind)) return { syms: [s], tier: p === scope ? 'local' : 'same_file', detail: '' };
      }
    }
    for (const s of t.topLevel(file.id, name)) if (filter.has(s.kind)) return { syms: [s], tier: 'same_file', detail: '' };
    const b = this.bindings.get(name);
    const imported = b && this.resolveBinding(name, b, filter);
    if (imported) return imported;
    if (this.isExternal(name)) return { unbound: 0 };
    const globalNames = t.globalFor(filter, this.family);
    let global = globalNames.get(name);
    if (!global) {
      const sameLanguage = (s: GSymbol) => sameFamily(t.filesById.get(s.fileId)!.language, file.language);
      // a class or module reopened in many files (Ruby) is one definition: its members are merged by path
      const reopened = this.L.openClasses ? new Set<string>() : null;
      const once = (s: GSymbol) => !reopened || !CLASSY.has(s.kind) || (!reopened.has(s.sp) && !!reopened.add(s.sp));
      const list = (t.byName.get(name) ?? []).filter(s => filter.has(s.kind) && s.kind !== 'method'
        && !t.nestedInFunction.has(s.id) && sameLanguage(s) && once(s));
      const byDir = new Map<string, GSymbol[]>();
      if (list.length > 1) for (const s of list) { const d = t.dirOf.get(s.fileId)!; (byDir.get(d) ?? byDir.set(d, []).get(d)!).push(s); }
      global = { list, byDir };
      globalNames.set(name, global);
    }
    const sameLang = global.list;
    const inDir = global.byDir.get(this.dir) ?? [];
    if (inDir.length === 1) return { syms: inDir, tier: 'same_dir', detail: this.dir };
    // The only definition in the repository, and it is in this folder (a Go package, a Python package): same_dir, the more specific tier.
    if (sameLang.length === 1) return t.dirOf.get(sameLang[0]!.fileId) === this.dir ? { syms: sameLang, tier: 'same_dir', detail: this.dir } : { syms: sameLang, tier: 'unique', detail: '' };
    if (sameLang.length > 1 && sameLang.length <= AMBIGUOUS_MAX) return { syms: sameLang, tier: 'ambiguous', detail: String(sameLang.length) };
    return { unbound: sameLang.length };
  }

  /** Records the classes each scope names (capitalised identifiers and calls), before the file's calls are resolved. */
  collectScopeClasses(occ: readonly Occurrence[]): void {
    if (this.classesCollected) return;
    this.classesCollected = true;
    const add = (scope: string, sym: GSymbol) => { const list = this.scopeClasses.get(scope) ?? this.scopeClasses.set(scope, []).get(scope)!; if (!list.includes(sym)) list.push(sym); };
    const fixtures = this.usesFixtures;
    this.flow.note(occ);
    for (const o of occ) {
      if (o.scope === null || (o.kind !== 'identifier' && o.kind !== 'call')) continue;
      if (!/^[A-Z]/.test(o.name)) {
        // a test's fixture parameter (`runner`) or a fixture factory it calls: what the fixture returns
        const fx = fixtures && !o.receiver && !this.bindings.has(o.name) ? fixtureNamed(this, o.name, o.scope) : null;
        for (const cls of fx && !(fx.fn.fileId === this.file.id && fx.fn.sp === o.scope) ? fx.classes : []) add(o.scope, cls);
        continue;
      }
      if (o.receiver) {
        // httpx.Client(): a class reached through a module alias
        const b = o.kind === 'call' ? this.bindings.get(o.receiver) : undefined;
        if (!b || b.kind !== 'module') continue;
        for (const f of b.files) {
          const x = this.t.imports.exported(f, o.name);
          if (x && CLASSY.has(x.sym.kind)) { add(o.scope, x.sym); break; }
        }
        continue;
      }
      const res = this.resolveName(o.name, o.scope, CLASSY);
      if (!('syms' in res) || res.syms.length !== 1 || res.tier === 'ambiguous') continue;
      add(o.scope, res.syms[0]!);
    }
  }

  /** Whether names in this file may be fixtures injected by name (a test file or a fixture file). */
  get usesFixtures(): boolean {
    const fx = this.L.fixtures;
    if (!fx) return false;
    return this.t.testFileIds.has(this.file.id) || fx.files.some(n => this.file.path === n || this.file.path.endsWith(`/${n}`));
  }

  /** The classes a scope of this file names itself (not its enclosing scopes'). */
  classesNamedIn(scope: string): GSymbol[] { return [...(this.scopeClasses.get(scope) ?? NO_MEMBERS)]; }

  /** Members named `name` of the classes a scope names (each class's member map is built once). */
  scopeMembers(scope: string, name: string): GSymbol[] {
    const classes = this.scopeClasses.get(scope);
    if (!classes) return NO_MEMBERS;
    let out: GSymbol[] = NO_MEMBERS;
    for (const cls of classes) {
      const x = this.t.membersOf(cls).get(name);
      if (x && !out.includes(x)) { if (out === NO_MEMBERS) out = []; out.push(x); }
    }
    return out;
  }

  /** Methods of the repository named `name`, in this file's language family. */
  methodsNamed(name: string): GSymbol[] {
    return (this.t.methodIndex.get(name) ?? []).filter(s => sameFamily(this.t.filesById.get(s.fileId)!.language, this.file.language));
  }
}

/** A qualified name with `.` between its parts (Ruby `::Rake::Task` → `Rake.Task`), as symbol paths have them. */
export const dotted = (qualified: string): string => (qualified.includes('::') ? qualified.replace(/^::/, '').replace(/::/g, '.') : qualified);

/**
 * Another file of the repository as resolution reads names written there (a fixture's body, a return
 * annotation): its occurrences and a scope with its imports bound, made once per resolution pass.
 */
export function passScope(t: RepoTables, fileId: number): { occ: Occurrence[]; scope: FileScope } | null {
  const key = `scope\0${fileId}`;
  let view = t.passMemo.get(key) as { occ: Occurrence[]; scope: FileScope } | undefined;
  if (!view) {
    const file = t.filesById.get(fileId);
    if (!file) return null;
    const occ = t.input.occurrences(fileId);
    const scope = new FileScope(t, file);
    const muted = new EdgeBuffer(undefined);
    muted.muted = true;
    scope.bindImports(occ, muted, false);
    view = { occ, scope };
    t.passMemo.set(key, view);
  }
  return view;
}
