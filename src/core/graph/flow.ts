/**
 * Types that flow (languages whose query records `assign` and `returns` occurrences): what a local name
 * or an instance attribute holds at a call, from its assignments (`client = make_client()`,
 * `self.parser = Parser(…)`, `with open_db() as db`), its declared type (`client: Client = …`, a typed
 * parameter) and the return annotations of the functions it came from (`def make_client() -> Client`).
 * Used by the `assigned` call rule (calls.ts): `client.get()` binds to Client.get.
 *
 * A local's type comes from its latest assignment before the call in the same or an enclosing scope
 * (any assignment of the scope when none comes before: a loop); an attribute's from the assignments of
 * `self.x` in the methods of the enclosing class. A value is followed through at most FLOW_DEPTH calls.
 */
import type { Occurrence } from '../parse/occurrence';
import { CLASSY, CALLABLE, type GSymbol } from './tables';
import { CallSite, resolveCall } from './calls';
import { passScope, parentScope, type FileScope } from './scope';
import { fixtureNamed } from './fixtures';
import { isByPrefix, methodsByPrefix } from './dynamic';
import { TYPED_TIERS } from './tiers';
import { callableSignature, resultTypes } from './type-text';
import { mixinFactory } from './built-on';

const FLOW_DEPTH = 3;
/** Definitions that hold a value (module-level constants) rather than define code. */
const HOLDERS: ReadonlySet<string> = new Set(['constant', 'variable']);
const NAME = /^[A-Za-z_]\w*$/;
/** A constant's name, perhaps qualified (`DEFAULTS`, Ruby `Rake::EARLY`). */
const CONSTANT = /^(?:(?:::)?[A-Za-z_]\w*::)*[A-Z]\w*$/;

export class Flow {
  /** assignments of this file by bound name, in file order */
  private readonly assigns = new Map<string, Occurrence[]>();

  constructor(private readonly f: FileScope) {}

  /** blocks run with another object as self (Ruby instance_eval), in file order */
  private readonly selfBlocks: Occurrence[] = [];

  /** Keeps the file's assignments (the file's occurrences, once per resolution of the file). */
  note(occ: readonly Occurrence[]): void {
    for (const o of occ) {
      if (o.kind === 'self_block') this.selfBlocks.push(o);
      if (o.kind !== 'assign') continue;
      const list = this.assigns.get(o.name);
      if (list) list.push(o); else this.assigns.set(o.name, [o]);
    }
  }

  /** The classes a receiver expression holds at a call (`client`, `self.client`); empty when unknown. */
  typeOf(receiver: string, scope: string | null, line: number, depth = 0): GSymbol[] {
    if (depth > FLOW_DEPTH) return [];
    const sources = !this.assigns.size ? [] : NAME.test(receiver) ? this.localAssigns(receiver, scope, line) : this.attributeAssigns(receiver, scope);
    const out: GSymbol[] = [];
    for (const o of sources) for (const c of this.valueOf(o, depth)) if (!out.includes(c)) out.push(c);
    if (out.length) return out;
    const global = !sources.length && CONSTANT.test(receiver) ? this.globalType(receiver, scope, depth) : [];
    if (global.length) return global;
    return NAME.test(receiver) ? out : this.memberType(receiver, scope, line, depth);
  }

  /**
   * `EARLY = EarlyTime.instance` named elsewhere (`Rake::EARLY`, an imported `DEFAULTS = Settings()`): what a
   * module-level constant holds, from its own file's assignment.
   */
  private globalType(receiver: string, scope: string | null, depth: number): GSymbol[] {
    const name = receiver.slice(receiver.lastIndexOf(':') + 1);
    const r = this.f.resolveName(name, scope, HOLDERS);
    if (!('syms' in r) || r.syms.length !== 1 || (r.tier === 'unique' && !this.f.L.globalConstants)) return [];
    const held = r.syms[0]!;
    const home = HOLDERS.has(held.kind) ? notedScope(this.f, held.fileId) : undefined;
    return home ? home.flow.typeOf(held.name, held.sp, held.line + 1, depth + 1) : [];
  }

  /**
   * `request.url`, `self.ctx.meta`: the type of an attribute of a value of known type, from the class's
   * property (its return annotation) or its class-body annotation (`url: URL`, a dataclass field).
   */
  private memberType(receiver: string, scope: string | null, line: number, depth: number): GSymbol[] {
    const dot = receiver.lastIndexOf('.');
    const attr = receiver.slice(dot + 1);
    if (dot <= 0 || !NAME.test(attr)) return [];
    const base = receiver.slice(0, dot);
    const own = this.f.L.selfReceivers.includes(base) ? this.f.classOf(scope) : undefined;
    const owners = own ? [own] : this.typeOf(base, scope, line, depth + 1);
    // `Rake.application`: a member of a class or module named outright (a class method, a module function)
    if (!owners.length && /^[A-Z]\w*$/.test(base)) {
      const named = this.f.resolveName(base, scope, CLASSY);
      // one class or module, perhaps reopened (Ruby): every definition of that one qualified name
      if ('syms' in named && new Set(named.syms.map(c => c.sp)).size === 1) owners.push(...named.syms);
    }
    const out: GSymbol[] = [];
    for (const cls of owners) {
      const m = this.f.t.memberIn(cls, attr);
      const types = m ? (m.kind === 'method' || m.kind === 'function' ? returnsOf(this.f, m) : []) : declaredIn(this.f, cls, attr);
      for (const c of types) if (!out.includes(c)) out.push(c);
    }
    return out;
  }

  /**
   * The object a bare call runs on when it sits in a block run with that object as self (`@app.instance_eval
   * do handle_options [] end`): the innermost such block of the call's scope around its line.
   */
  selfOf(o: Occurrence): string | null {
    let best: Occurrence | null = null;
    for (const b of this.selfBlocks) {
      if (b.scope === o.scope && b.line <= o.line && Number(b.source) >= o.line && (!best || b.line >= best.line)) best = b;
    }
    return best?.receiver ?? null;
  }

  /**
   * The functions a local may hold when it was assigned what a function of the repository hands out
   * (`f = self.get_visitor(node); f(node)`): the closures that function returns, or the methods its
   * by-prefix site looks up (`return getattr(self, f"visit_{…}")`). Closures first; empty when unknown.
   */
  handedOut(name: string, scope: string | null, line: number, depth = 0): { syms: GSymbol[]; byPrefix: boolean } {
    const none = { syms: [], byPrefix: false };
    if (depth > FLOW_DEPTH || !NAME.test(name)) return none;
    const closures: GSymbol[] = []; const looked: GSymbol[] = [];
    const assigned = this.assigns.size ? this.localAssigns(name, scope, line) : [];
    if (!assigned.length) return this.importedHandout(name, scope, depth) ?? none;
    for (const o of assigned) {
      const fn = o.receiver && !o.alias && !o.source ? this.calleeOf(o.receiver, o, depth + 1) : undefined;
      if (!fn || (fn.kind !== 'function' && fn.kind !== 'method')) continue;
      closures.push(...closuresOf(this.f, fn));
      looked.push(...lookedUpBy(this.f, fn));
    }
    if (closures.length) return { syms: [...new Set(closures)], byPrefix: false };
    return looked.length ? { syms: [...new Set(looked)], byPrefix: true } : none;
  }

  /**
   * `from ._compat import _default_text_stderr; _default_text_stderr()`: what a module-level name of another
   * file was assigned there (`_default_text_stderr = _make_cached_stream_func(…)`) hands out.
   */
  private importedHandout(name: string, scope: string | null, depth: number): ReturnType<Flow['handedOut']> | undefined {
    const b = this.f.binding(name, scope);
    if (b?.kind !== 'symbol' || b.files.length !== 1 || b.files[0] === this.f.file.id) return undefined;
    // a name the module defines (a function, a class) was not assigned a call's result
    if (this.f.t.imports.exported(b.files[0]!, b.name)) return undefined;
    return notedScope(this.f, b.files[0]!)?.flow.handedOut(b.name, null, Number.MAX_SAFE_INTEGER, depth + 1);
  }

  /** The class a local holds itself (`cls = Command`, `cls = t.cast(…, Command)`): calling it constructs one. */
  classHeld(name: string, scope: string | null, line: number): GSymbol | undefined {
    if (!this.assigns.size || !NAME.test(name)) return undefined;
    const held = new Set<GSymbol>();
    for (const o of this.localAssigns(name, scope, line)) {
      const r = o.source && NAME.test(o.source) ? this.f.resolveName(o.source, o.scope, CLASSY) : null;
      if (r && 'syms' in r && r.syms.length === 1 && CLASSY.has(r.syms[0]!.kind)) held.add(r.syms[0]!);
    }
    return held.size === 1 ? [...held][0] : undefined;
  }

  /**
   * The methods a local or an attribute holds as bound methods (`default = self._default_finalize`, later `default(v)`):
   * each copy of a member of a typed receiver, the receiver's type known.
   */
  boundMethods(name: string, scope: string | null, line: number, depth = 0): GSymbol[] {
    if (depth > FLOW_DEPTH || !this.assigns.size) return [];
    // self.stack = self.app in any method of the class, later self.stack(…)
    const assigns = NAME.test(name) ? this.localAssigns(name, scope, line) : this.attributeAssigns(name, scope);
    const out: GSymbol[] = [];
    for (const o of assigns) {
      const dot = o.source ? o.source.lastIndexOf('.') : -1;
      if (dot <= 0) continue;
      const site: Occurrence = { ...o, kind: 'call', name: o.source!.slice(dot + 1), receiver: o.source!.slice(0, dot), source: null };
      const r = resolveCall(new CallSite(this.f, site, site.receiver, depth + 1));
      if (typeof r !== 'object' || !TYPED_TIERS.has(r.tier)) continue;
      for (const m of r.syms) if ((m.kind === 'method' || m.kind === 'function') && !out.includes(m)) out.push(m);
    }
    return out;
  }

  /**
   * Whether a local holds a value from outside the repository: each of its latest assignments declares a
   * type or calls a callee that no definition of the repository has (`with open(p) as file`,
   * `headers: Mapping[str, str]`), so its name says nothing about the repository's classes.
   */
  fromOutside(receiver: string, scope: string | null, line: number): boolean {
    if (!NAME.test(receiver)) return false;
    const sources = this.localAssigns(receiver, scope, line);
    return sources.length > 0 && sources.every(o => this.outsideValue(o));
  }

  private outsideValue(o: Occurrence): boolean {
    const [name, kinds] = o.alias ? [o.alias, CLASSY] : [o.receiver, CALLABLE];
    if (!name) return false;
    const dot = name.indexOf('.');
    if (dot >= 0) return this.f.isExternal(name.slice(0, dot));
    const r = NAME.test(name) ? this.f.resolveName(name, o.scope, kinds) : null;
    return !!r && 'unbound' in r && r.unbound === 0 && !this.f.t.byName.get(name)?.length;
  }

  private localAssigns(name: string, scope: string | null, line: number): Occurrence[] {
    const all = this.assigns.get(name) ?? [];
    for (let p: string | null = scope; ; p = parentScope(p)) {
      // a closure's path names its enclosing function without the overload suffix (`command.decorator` in `command~5`)
      const here = all.filter(o => o.scope === p || (p !== null && o.scope?.replace(/~\d+$/, '') === p));
      const before = here.filter(o => o.line <= line);
      const last = before[before.length - 1];
      if (last) return before.filter(o => o.line === last.line); // `x = a or b`: one assignment per operand
      if (here.length) return here;
      if (p === null) return [];
    }
  }

  /** `self.x`: the assignments of `self.x` in the methods of the class enclosing the call. */
  private attributeAssigns(receiver: string, scope: string | null): Occurrence[] {
    // Ruby `@tasks`: the instance variable's assignments in the class's methods
    if (/^@\w+$/.test(receiver)) {
      const cls = this.f.classOf(scope);
      return cls ? (this.assigns.get(receiver) ?? []).filter(o => o.scope?.startsWith(`${cls.sp}.`)) : [];
    }
    const dot = receiver.indexOf('.');
    if (dot < 0 || !this.f.L.selfReceivers.includes(receiver.slice(0, dot)) || !NAME.test(receiver.slice(dot + 1))) return [];
    const cls = this.f.classOf(scope);
    if (!cls) return [];
    const attr = receiver.slice(dot + 1);
    const forms = this.f.L.selfReceivers.map(s => `${s}.${attr}`);
    const inMethods = forms.flatMap(n => this.assigns.get(n) ?? []).filter(o => o.scope?.startsWith(`${cls.sp}.`));
    // a class body's annotation (`template_class: Type[Template]`, a dataclass field) types the attribute
    const declared = (this.assigns.get(attr) ?? []).filter(o => o.scope === cls.sp && o.alias);
    return [...inMethods, ...declared];
  }

  /** What an assignment binds: its declared type, else what its value's callee gives. */
  private valueOf(o: Occurrence, depth: number): GSymbol[] {
    // x = y, self.app = app: what the copied name held just before
    if (o.source && this.f.L.selfReceivers.includes(o.source)) {
      const cls = this.f.classOf(o.scope);
      return cls ? [cls] : [];
    }
    if (o.source) return this.typeOf(o.source, o.scope, o.line - 1, depth + 1);
    if (o.alias) {
      const t = this.f.resolveType(o.alias, o.scope);
      if ('syms' in t && t.syms.length === 1) return t.syms;
    }
    return o.receiver ? this.callResult(o.receiver, o, depth) : [];
  }

  /** The classes a call of `callee` gives: a class it constructs, or the return type of what it calls. */
  callResult(callee: string, at: Occurrence, depth = 0): GSymbol[] {
    const declared = NAME.test(callee) ? this.callableResult(callee, at) : [];
    if (declared.length) return declared;
    const made = this.mixinMade(callee, at);
    if (made) return [made];
    const s = this.calleeOf(callee, at, depth);
    if (!s) return [];
    return CLASSY.has(s.kind) ? [s] : returnsOf(this.f, s);
  }

  /** `EarlyTime.instance` on a class that includes Singleton: an EarlyTime (mixinFactory). */
  private mixinMade(callee: string, at: Occurrence): GSymbol | undefined {
    const dot = callee.lastIndexOf('.');
    if (dot <= 0 || !this.f.L.outsideFactories) return undefined;
    const r = this.f.resolveType(callee.slice(0, dot), at.scope);
    const cls = 'syms' in r && r.syms.length === 1 ? r.syms[0]! : undefined;
    return cls && mixinFactory(this.f, cls, callee.slice(dot + 1)) ? cls : undefined;
  }

  /** `f: Callable[[Request], Awaitable[Response]]` (a local or a parameter): calling f gives a Response. */
  private callableResult(name: string, at: Occurrence): GSymbol[] {
    const out: GSymbol[] = [];
    for (const o of this.localAssigns(name, at.scope, at.line)) {
      const returns = o.alias ? callableSignature(this.f.file.language, o.alias)?.returns : null;
      for (const t of returns ? resultTypes(returns) : []) {
        const r = this.f.resolveType(t, o.scope);
        if ('syms' in r && r.syms.length === 1 && !out.includes(r.syms[0]!)) out.push(r.syms[0]!);
      }
    }
    return out;
  }

  /** The one definition a callee expression (`make`, `pkg.make`, `self.factory`) binds to, if one. */
  calleeOf(callee: string, at: Occurrence, depth = 0): GSymbol | undefined {
    const dot = callee.lastIndexOf('.');
    if (dot < 0) {
      if (!NAME.test(callee)) return undefined;
      // def test_x(client_factory): client_factory(app) makes what the fixture hands out
      const fx = this.f.usesFixtures && !this.f.bindings.has(callee) ? fixtureNamed(this.f, callee, at.scope) : null;
      if (fx?.factoryOf.length === 1) return fx.factoryOf[0];
      const r = this.f.resolveName(callee, at.scope, CALLABLE);
      if ('syms' in r && r.syms.length === 1) return r.syms[0];
      // Ruby `t = task("t")`: a bare call of a method of self's class or a module it includes
      const own = this.f.L.bareCalls ? this.f.classOf(at.scope) : undefined;
      return own ? this.f.t.memberIn(own, callee) : undefined;
    }
    const name = callee.slice(dot + 1);
    if (!NAME.test(name)) return undefined;
    const site: Occurrence = { ...at, kind: 'call', name, receiver: callee.slice(0, dot), source: null, alias: null };
    const r = resolveCall(new CallSite(this.f, site, site.receiver, depth + 1));
    if (typeof r === 'object' && (r.syms.length === 1 || r.tier === 'ambiguous')) return r.syms.length === 1 ? r.syms[0] : undefined;
    // env.code_generator_class(…) with `code_generator_class: type[CodeGenerator]`: calling the class it holds
    const held = depth < FLOW_DEPTH ? this.memberType(callee, at.scope, at.line, depth + 1) : [];
    return held.length === 1 && CLASSY.has(held[0]!.kind) ? held[0] : undefined;
  }
}

/**
 * The closures a function hands out: its nested functions that it names without calling them
 * (`return decorator`), what a decorator factory's caller runs next (memoised for the resolution pass).
 */
export function closuresOf(from: FileScope, fn: GSymbol): GSymbol[] {
  const t = from.t;
  const key = `closures\0${fn.id}`;
  const hit = t.passMemo.get(key) as GSymbol[] | undefined;
  if (hit) return hit;
  t.passMemo.set(key, []); // a cycle of factories returning each other hands out nothing more
  const view = passScope(t, fn.fileId);
  const nested = t.nestedIn(fn).filter(s => s.kind === 'function');
  let out: GSymbol[] = [];
  if (nested.length) {
    const named = new Set(view?.occ.filter(o => o.kind === 'identifier' && o.scope === fn.sp).map(o => o.name));
    // a nested function handed to a call (`kwargs.setdefault("callback", show_help)`) is registered, not handed out
    const handed = new Set(view?.occ.filter(o => o.kind === 'argument' && o.scope === fn.sp && !o.receiver?.startsWith('@')).map(o => o.name));
    out = nested.filter(s => named.has(s.name) && !handed.has(s.name));
  }
  // return command(name, cls): it hands out what the callee hands out (group → command's decorator)
  const scope = fn.fileId === from.file.id ? from : view?.scope;
  for (const o of scope ? view!.occ.filter(x => x.kind === 'returns_call' && x.scope === fn.sp) : []) {
    const callee = scope!.flow.calleeOf(o.receiver!, o);
    if (callee && callee.id !== fn.id && (callee.kind === 'function' || callee.kind === 'method')) out.push(...closuresOf(scope!, callee));
  }
  out = [...new Set(out)];
  t.passMemo.set(key, out);
  return out;
}

/**
 * A class body's attributes assigned what a factory hands out (`visit_Neg = _make_unop("-")`): each name with
 * the closures it stands for, methods of the class in all but name (memoised for the resolution pass).
 */
export function assignedMembers(from: FileScope, cls: GSymbol): ReadonlyMap<string, GSymbol[]> {
  const t = from.t;
  const key = `assigned members\0${cls.id}`;
  const hit = t.passMemo.get(key) as Map<string, GSymbol[]> | undefined;
  if (hit) return hit;
  const out = new Map<string, GSymbol[]>();
  t.passMemo.set(key, out);
  const scope = notedScope(from, cls.fileId);
  for (const o of scope ? passScope(t, cls.fileId)?.occ ?? [] : []) {
    if (o.kind !== 'assign' || o.scope !== cls.sp || !o.receiver || o.alias || o.source) continue;
    const fn = scope!.flow.calleeOf(o.receiver, o);
    const closures = fn && (fn.kind === 'function' || fn.kind === 'method') ? closuresOf(scope!, fn) : [];
    if (closures.length) out.set(o.name, closures);
  }
  return out;
}

/** The methods a function's by-prefix sites look up (`getattr(self, f"visit_{…}")`; memoised for the pass). */
function lookedUpBy(from: FileScope, fn: GSymbol): GSymbol[] {
  const t = from.t;
  const key = `looked\0${fn.id}`;
  const hit = t.passMemo.get(key) as GSymbol[] | undefined;
  if (hit) return hit;
  const view = passScope(t, fn.fileId);
  const scope = fn.fileId === from.file.id ? from : view?.scope;
  const sites = scope ? view!.occ.filter(o => o.kind === 'call' && o.scope === fn.sp && isByPrefix(o)) : [];
  const out = [...new Set(sites.flatMap(o => methodsByPrefix(scope!, o)))];
  t.passMemo.set(key, out);
  return out;
}

/** The scope that reads a file's names, its assignments noted: `from` itself, or the pass's view of another file. */
function notedScope(from: FileScope, fileId: number): FileScope | undefined {
  if (fileId === from.file.id) return from;
  const view = passScope(from.t, fileId);
  view?.scope.collectScopeClasses(view.occ); // once per view
  return view?.scope;
}

/**
 * The class an attribute holds (memoised for the resolution pass): a class-body annotation's (`url: URL`), else
 * what the class's methods assign it (`self.stream = environment._tokenize(…)`, Ruby `@stream = …`).
 */
function declaredIn(from: FileScope, cls: GSymbol, attr: string): GSymbol[] {
  const t = from.t;
  const key = `declared\0${cls.id}\0${attr}`;
  const hit = t.passMemo.get(key) as GSymbol[] | undefined;
  if (hit) return hit;
  t.passMemo.set(key, []); // an attribute assigned from another of its class's attributes: no cycle
  const view = passScope(t, cls.fileId);
  const ann = view?.occ.find(o => o.kind === 'assign' && o.name === attr && o.scope === cls.sp && o.alias);
  let out: GSymbol[] = [];
  if (ann) {
    const r = (cls.fileId === from.file.id ? from : view!.scope).resolveType(ann.alias!, cls.sp);
    if ('syms' in r && r.syms.length === 1) out = r.syms;
  } else {
    // `self.stream = environment._tokenize(…)` in a method of the class (Ruby `@stream = …`): what it holds
    const scope = notedScope(from, cls.fileId);
    const forms = scope ? [...scope.L.selfReceivers.map(r => `${r}.${attr}`), `@${attr}`] : [];
    for (const form of forms) if (!out.length) out = scope!.flow.typeOf(form, cls.sp, Number.MAX_SAFE_INTEGER, FLOW_DEPTH - 1);
  }
  t.passMemo.set(key, out);
  return out;
}

/**
 * The class a function returns (memoised for the resolution pass): the workspace class its return annotation
 * names, else the one class its `return Cls(…)` / `return make(…)` statements give (an annotation naming a
 * library protocol, `-> AsyncIterator[V]`, says less than the class the body constructs).
 */
export function returnsOf(from: FileScope, fn: GSymbol): GSymbol[] {
  const t = from.t;
  const key = `returns\0${fn.id}`;
  const hit = t.passMemo.get(key) as GSymbol[] | undefined;
  if (hit) return hit;
  t.passMemo.set(key, []);
  const view = passScope(t, fn.fileId);
  // the class its `return …(…)` statements construct is what runs: at least as precise as the annotation
  // (`-> Base` over `return Derived()`, `-> AwaitableOrContextManager[T]` over `return Wrapper(…)`)
  const scope = view ? (fn.fileId === from.file.id ? from : view.scope) : undefined;
  let out: GSymbol[] = view ? returnedClass(scope, view.occ, fn) : [];
  const ann = out.length ? undefined : view?.occ.find(o => o.kind === 'returns' && o.scope === fn.sp);
  if (ann) {
    const r = scope?.resolveType(ann.name, fn.sp);
    if (r && 'syms' in r && r.syms.length === 1) out = r.syms;
  }
  t.passMemo.set(key, out);
  return out;
}

/** The one class a function's `return <call>` statements give, if those that give a workspace class agree. */
function returnedClass(scope: FileScope | undefined, occ: readonly Occurrence[], fn: GSymbol): GSymbol[] {
  if (!scope) return [];
  const classes = new Set<GSymbol>();
  for (const o of occ) {
    if (o.kind !== 'returns_call' || o.scope !== fn.sp || !o.receiver) continue;
    for (const c of scope.flow.callResult(o.receiver, o)) classes.add(c);
  }
  return classes.size === 1 ? [...classes] : [];
}
