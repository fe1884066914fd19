/**
 * The heuristic reference provider (`provider: "heuristic"`): turns the raw occurrences stored by the
 * parser into graph edges, per repository, in resolution tiers (tiers.ts: confidence and evidence text
 * of each; all stay below 0.9, the `exact` threshold, which only compiler-grade providers reach).
 *
 * The algorithm, per repository:
 *   1. the repository tables (tables.ts): definitions by name, file, folder; class members; imports
 *      (imports.ts). They depend only on definitions, imports and base classes, so they are kept
 *      between runs of body-only edits (`GraphOutput.tables`, or `buildTables`, then `resolveWith`).
 *   2. the bases pass: every file's extends/implements, so that member maps (self./super. calls into
 *      base classes) are complete whatever the file order; with cyclic bases the maps are then built in
 *      symbol order (`RepoTables.settleMembers`).
 *   3. the edges pass, a file at a time (the given files only, with `only`): its imports bound to local
 *      names (scope.ts), then each occurrence: calls through the call-tier ladder (calls.ts), base
 *      classes and identifiers through plain-name resolution; then the file's test edges (test-edges.ts).
 *      Each file's edges go to the sink as soon as it is done.
 *   4. test files named after source files (test-edges.ts).
 *
 * A name shared by more than AMBIGUOUS_MAX definitions gets no edge at all; the call site is counted in
 * unbound_calls, so impact answers can say they are a lower bound.
 */
import { CROSS_FILE_KINDS, SYNTAX_SOURCE, type Occurrence } from '../parse/occurrence';
import { CALLABLE, CLASSY, REFERABLE, RepoTables, symbolKey, type GFile, type GSymbol, type RepoInput } from './tables';
import { EdgeBuffer, type GEdge, type GraphStats } from './edges';
import { FileScope, dotted, passScope, type Resolution } from './scope';
import { NAME_ONLY_TIERS, TYPED_TIERS, type Tier } from './tiers';
import { isByPrefix, methodsByPrefix, typedVisit } from './dynamic';
import { CallSite, resolveCall, selfMember, type CallOutcome } from './calls';
import { testsByNaming, testsFromCalls } from './test-edges';
import { fixtureLabel, fixtureNamed, parametrizedLines } from './fixtures';
import { closuresOf } from './flow';
import { appendAll } from '../util/arrays';

export { fileNode } from './scope';
export { AMBIGUOUS_MAX, TIERS, type Tier } from './tiers';
export { CyclicBases, RepoTables, type GFile, type GSymbol } from './tables';
export type { GEdge, GraphStats } from './edges';

export interface GraphInput extends RepoInput {
  /** Receives each file's edges as soon as they are resolved (keeps memory flat); without it they are returned. */
  sink?: (edges: GEdge[]) => void;
  /**
   * Resolve only the occurrences of these files (their edges, test links and unbound counts), against the
   * whole repository: valid when no other file's view of them changed (same definitions, imports, bases).
   */
  only?: ReadonlySet<number>;
}
export interface GraphOutput {
  /** the whole tables it resolved against (set by resolveGraph): body-only edits are resolved against them
   * again (`resolveWith`), an edit that changes definitions updates them in place */
  tables?: RepoTables;
  edges: GEdge[];
  /** call sites left unbound (a name with too many definitions), per calling file, by name */
  unbound: Map<number, Map<string, number>>;
  stats: GraphStats;
}

/** Resolves a repository's graph (all files, or `only` against the whole repository). */
export function resolveGraph(input: GraphInput): GraphOutput {
  const tables = buildTables(input);
  const out = resolveWith(tables, input.only, input.sink);
  out.tables = tables;
  return out;
}

/**
 * Resolves only the `only` files against tables that read definitions and bases as they are asked for
 * (`input.lookup`): a one-off partial update (a new process after an edit) does not index every
 * definition of the repository first. Gives the edges `resolveGraph` gives for those files, or throws
 * CyclicBases when they need the member map of a class whose bases lead into a cycle (that map depends on
 * the order a full build makes the maps in): nothing reaches the sink then, so the caller can resolve
 * with the whole tables instead.
 */
export function resolvePartial(input: GraphInput & { lookup: NonNullable<RepoInput['lookup']>; only: ReadonlySet<number> }): GraphOutput {
  const t = new RepoTables(input);
  const muted = new EdgeBuffer(undefined);
  muted.muted = true;
  t.basesOfFile = f => basesOfFile(t, f, muted);
  const edges: GEdge[] = [];
  const out = resolveWith(t, input.only, e => { appendAll(edges, e); });
  input.sink?.(edges);
  return input.sink ? out : { ...out, edges };
}

/** The repository tables with the bases pass done: what `resolveWith` resolves files against. */
export function buildTables(input: RepoInput): RepoTables {
  const t = new RepoTables(input);
  const muted = new EdgeBuffer(undefined);
  muted.muted = true;
  for (const f of input.files) basesOfFile(t, f, muted);
  t.settleMembers();
  return t;
}

/** The bases pass for one file: its imports noted, its classes' extends/implements resolved and recorded. */
function basesOfFile(t: RepoTables, f: GFile, muted: EdgeBuffer): void {
  const occ = t.input.occurrences(f.id, CROSS_FILE_KINDS);
  t.imports.noteImports(f.id, occ);
  if (!occ.some(o => o.kind === 'extends' || o.kind === 'implements')) return;
  const scope = new FileScope(t, f);
  scope.bindImports(occ, muted, false);
  for (const o of occ) if (o.kind === 'extends' || o.kind === 'implements') resolveBase(scope, o, muted, true);
}

/** The edges of the given files (all files without `only`), their test links and unbound counts. */
export function resolveWith(t: RepoTables, only: ReadonlySet<number> | undefined, sink: ((edges: GEdge[]) => void) | undefined): GraphOutput {
  t.passMemo.clear();
  t.resolving = only;
  const out = new EdgeBuffer(sink);
  for (const f of t.input.files) if (!only || only.has(f.id)) resolveFile(t, f, out);
  testsByNaming(t, only, out);
  out.flush();
  t.passMemo.clear(); // not held by the kept tables between runs
  return { edges: out.all, unbound: out.unbound, stats: out.stats };
}

/** One file's edges: imports, then each occurrence, then its test edges; flushed to the sink. */
function resolveFile(t: RepoTables, file: GFile, out: EdgeBuffer): void {
  const occ = t.input.occurrences(file.id);
  t.imports.noteImports(file.id, occ);
  const scope = new FileScope(t, file);
  out.family = scope.family;
  scope.bindImports(occ, out, true);
  scope.collectScopeClasses(occ);
  const handedToTests = parametrizedLines(t, file, occ, scope.L);
  for (const o of occ) {
    switch (o.kind) {
      case 'call': resolveCallSite(scope, o, out); break;
      case 'extends': case 'implements': resolveBase(scope, o, out, false); break;
      case 'identifier': resolveIdentifier(scope, handedTo(o, handedToTests), out); break;
      case 'enters': resolveEnters(scope, o, out); break;
      case 'result_call': resolveResultCall(scope, o, out); break;
      case 'assign': resolvePatch(scope, o, out); break;
      case 'argument': resolveTypedVisit(scope, o, out); break;
      case 'import': break; // bound above
    }
  }
  testsFromCalls(t, file, out);
  out.flush();
}

/** `generator.visit(node)`, node of known type: the visitor method named for it runs (graph/dynamic.ts). */
function resolveTypedVisit(scope: FileScope, o: Occurrence, out: EdgeBuffer): void {
  const v = typedVisit(scope, o);
  if (v) out.emit(v.from, v.to.id, 'calls', 'assigned', v.detail, scope.file.id, o.line);
}

function resolveCallSite(scope: FileScope, o: Occurrence, out: EdgeBuffer): void {
  out.stats.calls++;
  if (isByPrefix(o)) {
    const from = scope.fromOf(o.scope);
    // the site looks the method up (getattr); whoever it hands it to calls it: a reference
    for (const m of methodsByPrefix(scope, o)) out.emit(from, m.id, 'references', 'by_prefix', o.name, scope.file.id, o.line);
    return;
  }
  const r = isSyntaxMember(o) ? resolveSyntaxMember(scope, o) : resolveCall(new CallSite(scope, o, o.receiver?.trim() ?? null));
  if (r === 'none') return;
  if (r === 'unbound') { out.countUnbound(scope.file.id, o.name); return; }
  const from = scope.fromOf(o.scope);
  for (const s of r.syms) out.emit(from, s.id, 'calls', r.tier, r.detail, scope.file.id, o.line);
  for (const ctor of constructorsOf(scope, r.syms)) {
    out.emit(from, ctor.id, 'calls', r.tier, `${r.detail ? `${r.detail} ` : ''}→ ${ctor.sp}`, scope.file.id, o.line);
  }
  out.stats.bound++;
  if (NAME_ONLY_TIERS.has(r.tier)) out.stats.ambiguous++;
}

/**
 * A member run by syntax (`x[k]`, `str(x)`, `if x:`, Ruby `a | b`): the member, or the one the protocol falls back
 * to (`__len__` for a class without `__bool__`), bound through a tier that knows the receiver's type or (where
 * the language table says so) the one class with it that the receiver's name or the calling scope names.
 * A member no class of the repository defines (and no outside mixin gives) is not looked for: most such
 * syntax runs on built-in values.
 */
function resolveSyntaxMember(scope: FileScope, o: Occurrence): CallOutcome {
  for (const name of [o.name, scope.L.protocolFallbacks?.[o.name]]) {
    if (!name || !(scope.t.byName.get(name)?.some(s => CALLABLE_MEMBER.has(s.kind)) || givenByMixin(scope, name))) continue;
    const r = resolveCall(new CallSite(scope, name === o.name ? o : { ...o, name }, o.receiver?.trim() ?? null));
    if (typeof r === 'object' && bindsSyntax(scope, r.tier)) return r;
  }
  return 'none';
}

const CALLABLE_MEMBER: ReadonlySet<string> = new Set(['method', 'function']);
/** Whether a mixin from outside the repository gives the member (Comparable's `<`): it runs a member the class defines. */
const givenByMixin = (scope: FileScope, name: string) => Object.values(scope.L.outsideMixins ?? {}).some(m => Object.hasOwn(m, name));
const NAMED_CLASS_TIERS: ReadonlySet<string> = new Set(['receiver_name', 'scope_type']);
const bindsSyntax = (scope: FileScope, tier: string) =>
  TYPED_TIERS.has(tier) || (NAMED_CLASS_TIERS.has(tier) && !!scope.L.syntaxByReceiverName);

/** A member run by syntax (a subscript, `str(x)`, `for … in x`) rather than named by the call. */
function isSyntaxMember(o: Occurrence): boolean {
  return o.source === SYNTAX_SOURCE;
}

/** `with make() as x:` / `with ctx:`: entering the object runs its class's __enter__ and __exit__. */
function resolveEnters(scope: FileScope, o: Occurrence, out: EdgeBuffer): void {
  const members = scope.L.contextMembers;
  if (!members) return;
  const types = o.receiver ? scope.flow.callResult(o.receiver, o) : o.name ? enteredObject(scope, o) : [];
  if (types.length !== 1) return;
  const from = scope.fromOf(o.scope);
  for (const name of members) {
    const m = scope.t.memberIn(types[0]!, name);
    if (m) out.emit(from, m.id, 'calls', 'assigned', `with ${o.receiver ? `${o.receiver}(…)` : o.name} → ${types[0]!.sp}`, scope.file.id, o.line);
  }
}

/** The classes an object entered by its name holds (`with ctx:`, `with self:` — the enclosing class). */
function enteredObject(scope: FileScope, o: Occurrence): GSymbol[] {
  const own = scope.L.selfReceivers.includes(o.name) ? scope.classOf(o.scope) : undefined;
  return own ? [own] : scope.flow.typeOf(o.name, o.scope, o.line);
}

/**
 * `utils.echo = fake_echo` (a test runner patching a module): the function assigned stands in for the
 * module's function of that name while the patch holds, so it `implements` it (tier patch) and the
 * callers of the replaced function are its possible callers (graph/dispatch.ts).
 */
function resolvePatch(scope: FileScope, o: Occurrence, out: EdgeBuffer): void {
  const dot = o.name.indexOf('.');
  if (!o.source || dot <= 0 || o.name.indexOf('.', dot + 1) >= 0) return;
  const b = scope.binding(o.name.slice(0, dot), o.scope);
  if (b?.kind !== 'module') return;
  const replaced = b.files.map(f => scope.t.imports.exported(f, o.name.slice(dot + 1))).find(r => r && r.sym.kind === 'function');
  const fn = scope.resolveName(o.source, o.scope, CALLABLE);
  if (!replaced || !('syms' in fn) || fn.syms.length !== 1 || fn.syms[0]!.kind !== 'function') return;
  out.emit(fn.syms[0]!.id, replaced.sym.id, 'implements', 'patch', `${o.name} = ${o.source}`, scope.file.id, o.line);
}

/** `@make(…)` applied, `make(…)(x)`: the closure `make` returns runs (a decorator factory's `decorator`). */
function resolveResultCall(scope: FileScope, o: Occurrence, out: EdgeBuffer): void {
  const fn = o.receiver ? scope.flow.calleeOf(o.receiver, o) : undefined;
  if (!fn || (fn.kind !== 'function' && fn.kind !== 'method')) return;
  const from = scope.fromOf(o.scope);
  for (const c of closuresOf(scope, fn)) out.emit(from, c.id, 'calls', 'assigned', `${o.receiver}(…) returns ${c.sp}`, scope.file.id, o.line);
}

/** Ruby `return empty if …`: a bare name that is a method of the enclosing class is a call of it. */
function bareMethodCall(scope: FileScope, o: Occurrence, out: EdgeBuffer): boolean {
  const r = scope.L.bareCalls ? selfMember(scope, o) : undefined;
  if (typeof r !== 'object') return false;
  for (const s of r.syms) out.emit(scope.fromOf(o.scope), s.id, 'calls', r.tier, r.detail, scope.file.id, o.line);
  return true;
}

/** Bindings too weak for a use that is not even a call: by a name alone, or to the root of a hierarchy. */
const tooWeakForARead = (tier: string) => NAME_ONLY_TIERS.has(tier) || tier === 'hierarchy';

/**
 * A member read, not called (`result.output`, a property; `self.on_close` handed over as a callback):
 * bound like a call on that receiver, as a reference to a method or function, unless only by its name;
 * a property's read is a call of it, bound by a name alone too.
 */
function resolveMemberAccess(scope: FileScope, o: Occurrence, out: EdgeBuffer): void {
  // most member reads are fields: no function of the repository has the name, nothing to bind
  if (!scope.t.byName.get(o.name)?.some(s => s.kind === 'method' || s.kind === 'function')) return;
  const r = resolveCall(new CallSite(scope, o, o.receiver!.trim()));
  // a property's read is its call: bound like one, by a name alone too (marked name-only)
  if (typeof r !== 'object' || (tooWeakForARead(r.tier) && !propertyByName(scope, r))) return;
  const from = scope.fromOf(o.scope);
  for (const s of r.syms) {
    if (s.kind !== 'method' && s.kind !== 'function') continue;
    // a property's read runs it (a call, which base-class dispatch also follows to its overrides)
    out.emit(from, s.id, isProperty(scope, s) ? 'calls' : 'references', r.tier, r.detail, scope.file.id, o.line);
  }
}

/** A read bound by a name alone counts for a property with one definition, or one all others override (not a shared name). */
const propertyByName = (scope: FileScope, r: { syms: GSymbol[]; tier: string }) =>
  r.tier === 'hierarchy' && r.syms.every(s => isProperty(scope, s));

/** Whether a method is read as an attribute (a property): its language's property decorator is on a line above it. */
function isProperty(scope: FileScope, s: GSymbol): boolean {
  const property = scope.L.decorators?.property;
  if (!property || s.kind !== 'method') return false;
  const key = `property\0${s.id}`;
  let hit = scope.t.passMemo.get(key) as boolean | undefined;
  if (hit === undefined) {
    const occ = passScope(scope.t, s.fileId)?.occ ?? [];
    hit = occ.some(o => o.kind === 'identifier' && o.scope === s.parent && o.line < s.line && o.line >= s.line - 3 && property.test(o.name));
    scope.t.passMemo.set(key, hit);
  }
  return hit;
}

/** `def test_x(client)`: a test (or fixture) naming a visible fixture uses it (an edge to the fixture function). */
function usesFixture(scope: FileScope, o: Occurrence, out: EdgeBuffer): boolean {
  if (!scope.usesFixtures || scope.bindings.has(o.name) || scope.t.topLevel(scope.file.id, o.name).length > 1) return false;
  const fx = fixtureNamed(scope, o.name, o.scope);
  if (!fx || (fx.fn.fileId === scope.file.id && o.scope === fx.fn.sp)) return false;
  out.emit(scope.fromOf(o.scope), fx.fn.id, 'references', 'fixture', fixtureLabel(scope, fx), scope.file.id, o.line);
  return true;
}

/** A call that constructs a class also runs its constructor member (`__init__`, inherited ones included). */
function constructorsOf(scope: FileScope, syms: readonly GSymbol[]): GSymbol[] {
  const member = scope.L.constructorMember;
  if (!member) return [];
  const out: GSymbol[] = [];
  for (const s of syms) {
    const ctor = CLASSY.has(s.kind) ? scope.t.memberIn(s, member) : undefined;
    if (ctor && ctor.id !== s.id) out.push(ctor);
  }
  return out;
}

/** `class A extends B`: an edge from the class to each resolved base; in the bases pass, recorded in the tables. */
function resolveBase(scope: FileScope, o: Occurrence, out: EdgeBuffer, record: boolean): void {
  const cls = o.scope ? scope.t.byFilePath.get(symbolKey(scope.file.id, o.scope)) : undefined;
  if (!cls) return;
  const res = (o.receiver ? qualifiedBase(scope, o) : undefined) ?? scope.resolveName(o.name, null, CLASSY);
  if (!('syms' in res)) return;
  // a class is never its own base (`class TaskManager; include TaskManager` names another one)
  const bases = res.syms.filter(s => s.id !== cls.id);
  for (const s of bases) out.emit(cls.id, s.id, o.kind, res.tier, res.detail, scope.file.id, o.line);
  if (record) scope.t.addBases(cls, bases);
}

/** `include Rake::TaskManager`: the one definition at that path (in any enclosing namespace), not the nearest name. */
function qualifiedBase(scope: FileScope, o: Occurrence): Resolution | undefined {
  const path = `${dotted(o.receiver!)}.${o.name}`;
  const atPath = (s: GSymbol) => CLASSY.has(s.kind) && (s.sp === path || s.sp.endsWith(`.${path}`));
  const hits = (scope.t.byName.get(o.name) ?? []).filter(atPath);
  // a namespace reopened in several files is one definition
  const paths = new Set(hits.map(s => s.sp));
  return paths.size === 1 ? { syms: [hits[0]!], tier: 'import', detail: path } : undefined;
}

/** A name in a parametrize decorator is the decorated test's: the test receives the value (fixtures.ts). */
const handedTo = (o: Occurrence, lines: ReadonlyMap<number, string>): Occurrence => {
  const test = lines.get(o.line);
  return test ? { ...o, scope: test } : o;
};

function resolveIdentifier(scope: FileScope, o: Occurrence, out: EdgeBuffer): void {
  // Top-level uses are covered by imports and calls; identifiers there are mostly declarations.
  if (o.name.length < 3 || o.scope === null) return;
  if (o.receiver) { resolveMemberAccess(scope, o, out); return; }
  if (bareMethodCall(scope, o, out)) return;
  if (usesFixture(scope, o, out)) return;
  const res = scope.resolveName(o.name, o.scope, REFERABLE);
  // Identifiers include attribute and key names (obj.stream, { check: … }): a bare name match across
  // files is too weak for them, so references bind only through scope, file, import — and same
  // folder for types.
  if (!('syms' in res) || res.tier === 'ambiguous' || (res.tier === 'unique' && !globalConstant(scope, o, res.syms))) return;
  if (res.tier === 'same_dir' && !res.syms.every((x: GSymbol) => CLASSY.has(x.kind))) return;
  const from = scope.fromOf(o.scope);
  for (const s of res.syms) {
    // a definition mentioning itself (recursion, its own name) is not a reference
    if (o.scope && (o.scope === s.sp || o.scope.startsWith(`${s.sp}.`)) && s.fileId === scope.file.id) continue;
    out.emit(from, s.id, 'references', res.tier, res.detail, scope.file.id, o.line);
    const cls = res.syms.length === 1 ? aliasedClass(scope, s) : undefined;
    if (cls) out.emit(from, cls.syms[0]!.id, 'references', cls.tier, `through ${s.sp} = ${cls.detail}`, scope.file.id, o.line);
  }
}

/** `Rake::EarlyTime.instance`: in a language of global constants, a capitalised name is the one class named so. */
const globalConstant = (scope: FileScope, o: Occurrence, syms: readonly GSymbol[]): boolean =>
  !!scope.L.globalConstants && /^[A-Z]/.test(o.name) && syms.length === 1 && CLASSY.has(syms[0]!.kind);

/** A file's copies (`x = y`, `Alias = Mod::Cls`) by line and name, made once per resolution pass. */
function copiesOf(t: RepoTables, fileId: number, occ: readonly Occurrence[]): Map<string, Occurrence> {
  const key = `copies\0${fileId}`;
  let copies = t.passMemo.get(key) as Map<string, Occurrence> | undefined;
  if (!copies) {
    copies = new Map(occ.filter(a => a.kind === 'assign' && a.source).map(a => [`${a.line}\0${a.name}`, a]));
    t.passMemo.set(key, copies);
  }
  return copies;
}

/** `FileList = Rake::FileList`: a constant that names a class stands for the class; a use of it is the class's. */
function aliasedClass(scope: FileScope, s: GSymbol): { syms: GSymbol[]; tier: Tier; detail: string } | undefined {
  if (s.kind !== 'constant' && s.kind !== 'variable') return undefined;
  const view = passScope(scope.t, s.fileId);
  const copy = view ? copiesOf(scope.t, s.fileId, view.occ).get(`${s.line}\0${s.name}`) : undefined;
  if (!view || !copy) return undefined;
  const named = dotted(copy.source!);
  const r = view.scope.resolveType(named, copy.scope);
  if (!('syms' in r) || r.syms.length !== 1 || !CLASSY.has(r.syms[0]!.kind) || r.syms[0] === s) return undefined;
  return { syms: r.syms, tier: r.tier, detail: named };
}
