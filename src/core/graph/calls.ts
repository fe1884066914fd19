/**
 * The call-tier ladder: a call site is tried against CALL_RULES in order, and the first rule that
 * answers decides it: bind to definitions in a tier, count it unbound (a name too many definitions
 * share), or leave it. A rule that does not apply answers nothing and the next one is tried.
 *
 *   new_method    Worker.new(…), a bare new(…) in a class (Ruby): the class            → its tier, else receiver / self
 *   fixture_value f() in a test whose fixture `f` is a factory of a class (constructs it) or an instance
 *                 of a class with a call member (runs it)                                → fixture
 *   plain_name    f(): the name from the calling scope (local → same_file → import → same_dir → unique → ambiguous);
 *                 a local holding an instance of a class with a call member runs it       → assigned
 *                 a local or parameter of a callable type (`app: ASGIApp`) calls a value of it → callable
 *   super         super.f(): a member of a base of the enclosing class                 → self
 *   self          this.f() / self.f(): a member of the enclosing class (bases included) → self
 *                 else the one class built on it with f (Ruby mixins, hooks; bare calls too) → host
 *   self_chain    this.a().f(): fluent chains on the instance                           → self_chain
 *   namespace     ns.f() where ns is imported from a barrel's `export * as ns`          → import
 *   module        mod.f() where mod is a module import (Go: any file of the package)    → import
 *                 (a package outside the repository: 'none')
 *   receiver      new Worker().f(), Worker().f(), Worker.f(): a member of the named class → receiver
 *   assigned      x.f() where x holds a class by its assignment, declared type or a call's return type → assigned
 *   held_value    x.f() where the attribute f holds a value of a callable type          → callable
 *                 or a class (`f: type[Worker]`): constructs it                           → assigned
 *   fixture       runner.f() in a test whose fixture `runner` returns a class with a member f → fixture
 *   scope_type    x.f() where one class the calling scope names has a member f          → scope_type
 *                 (Type.f() on a capitalised type the repository does not define: unbound, 'none')
 *   receiver_name ctx.f(): the one class named like the receiver (`ctx` → Context) with a method f → receiver_name
 *   method_name   x.f(): the only method f; the one f all others override                → method_name / hierarchy
 *                 (else 2–3 definitions or hierarchies: ambiguous; more: unbound)      → ambiguous
 */
import type { Occurrence } from '../parse/occurrence';
import { AMBIGUOUS_MAX, type Tier } from './tiers';
import { CALLABLE, CLASSY, symbolKey, type GSymbol, type RepoTables } from './tables';
import { parentScope, passScope, type FileScope } from './scope';
import { fixtureLabel, fixtureNamed, parametrizedClasses } from './fixtures';
import { hierarchyRoots } from './hierarchy';
import { classNamedLike, hostBinding, inheritedNamedLike, mixinOf, mixinRuns, outsideBaseOf } from './built-on';
import { assignedMembers } from './flow';

/** A call site being resolved, with what the rules derive from its receiver (computed once, on first use). */
export class CallSite {
  private named_: { constructed: string | null; named: string | null } | undefined;
  /** `depth`: calls followed to type this receiver already (graph/flow.ts follows values through calls) */
  constructor(readonly f: FileScope, readonly o: Occurrence, readonly receiver: string | null, readonly depth = 0) {}
  /** The class a receiver constructs (`new Worker()` → Worker), or the receiver itself when it is a plain name. */
  get receiverName(): { constructed: string | null; named: string | null } {
    if (!this.named_) {
      const r = this.receiver!;
      const constructed = this.f.L.constructed(r);
      // a plain name, or a qualified constant's last segment (Ruby `Rake::Task`)
      const qualified = /^(?:[A-Z]\w*::)+([A-Z]\w*)$/.exec(r)?.[1] ?? null;
      this.named_ = { constructed, named: constructed ?? (/^[A-Za-z_$][\w$]*$/.test(r) ? r : qualified) };
    }
    return this.named_;
  }
}

/** The classes among what a value holds (a `type` alias is no class one can construct). */
const classesIn = (held: readonly GSymbol[]) => held.filter(t => CLASSY.has(t.kind) && t.kind !== 'type');

export type CallOutcome = { syms: GSymbol[]; tier: Tier; detail: string } | 'unbound' | 'none';
export interface CallRule { name: string; resolve(c: CallSite): CallOutcome | undefined }

const bound = (syms: GSymbol[], tier: Tier, detail: string): CallOutcome => ({ syms, tier, detail });

/**
 * A receiver-less call as a method of self: the enclosing class's member, its bases' or its mixins', else
 * (hostBinding) what the classes built on it define.
 */
export function selfMember(f: FileScope, o: Occurrence): CallOutcome | undefined {
  if (f.inClassBody(o.scope)) return undefined;
  const cls = f.classOf(o.scope);
  const m = cls ? f.t.memberIn(cls, o.name) : undefined;
  if (m && (m.kind === 'method' || m.kind === 'function')) return bound([m], 'self', cls!.sp);
  const host = cls ?? mixinOf(f, o.scope);
  if (!host) return undefined;
  // a bare name that is no call may be a local or a parameter: only a call is looked for at run time
  return hostBinding(f.t, host, o.name) ?? (o.kind === 'call' ? definedAtRunTime(f, host, o.name) : undefined);
}

/**
 * A method self lacks in a language where every call names a method (Ruby): what the class defines at run
 * time runs it (`each_with_index` in a FileList whose body delegates Array's methods with `class_eval`).
 * Elsewhere `self.x()` may call a value an attribute holds, so this is left to the held-value rule.
 */
function definedAtRunTime(f: FileScope, cls: GSymbol, name: string): CallOutcome | undefined {
  const dynamic = f.L.bareCalls ? dynamicMember(f, cls, name) : undefined;
  return dynamic ? bound([dynamic], runTimeTier(dynamic, 'self'), `self → ${cls.sp} (${name})`) : undefined;
}

/** A fallback method (`method_missing`, `__getattr__`) surely runs; a class whose body defines methods may not have it. */
const runTimeTier = (dynamic: GSymbol, typed: Tier): Tier => (CLASSY.has(dynamic.kind) ? 'run_time' : typed);

/**
 * What a call of a member a class does not define runs (LanguageSpec.dynamicMembers): its fallback method
 * (`__getattr__`, `method_missing`), or the class itself when its body defines methods (`define_method`).
 */
function dynamicMember(f: FileScope, cls: GSymbol, name: string): GSymbol | undefined {
  const rules = f.L.dynamicMembers;
  if (!rules || !CLASSY.has(cls.kind) || rules.universal?.has(name)) return undefined;
  const fallback = f.t.memberIn(cls, rules.fallback);
  if (fallback) return fallback;
  return definesAtRunTime(f.t, cls, rules.definers ?? []) ? cls : undefined;
}

/** Whether a class's body calls a definer (`define_method`, `class_eval`), once per class and resolution pass. */
function definesAtRunTime(t: RepoTables, cls: GSymbol, definers: readonly string[]): boolean {
  if (!definers.length) return false;
  const key = `definers\0${cls.id}`;
  let hit = t.passMemo.get(key) as boolean | undefined;
  if (hit === undefined) {
    const occ = passScope(t, cls.fileId)?.occ ?? [];
    hit = occ.some(o => o.kind === 'call' && o.scope === cls.sp && definers.includes(o.name));
    t.passMemo.set(key, hit);
  }
  return hit;
}

/** A method an outside mixin gives `cls`, run on self: what it runs of the class's own (Enumerable#map: each). */
function mixinOfSelf(f: FileScope, cls: GSymbol | undefined, name: string): CallOutcome | undefined {
  const mixed = cls ? mixinRuns(f, cls, name) : undefined;
  return mixed ? bound(mixed.runs, 'self', `${cls!.sp} (${mixed.mixin}#${name} runs it)`) : undefined;
}

/** The call members (`__call__`) of the given classes: what calling an instance of one runs. */
function callMembers(f: FileScope, classes: readonly GSymbol[]): GSymbol[] {
  const name = f.L.callMember;
  if (!name) return [];
  const out: GSymbol[] = [];
  for (const cls of classes) {
    const m = f.t.memberIn(cls, name);
    if (m && !out.includes(m)) out.push(m);
  }
  return out;
}

/**
 * A call of a value whose declared type is a callable type (`ASGIApp = Callable[[Scope, Receive, Send], …]`):
 * an edge to the type, whose implementations graph/protocol.ts finds at query time.
 */
function heldCallableType(held: readonly GSymbol[], callee: string): CallOutcome | undefined {
  const types = held.filter(t => t.kind === 'type');
  return types.length === 1 ? bound(types, 'callable', `${callee} → ${types[0]!.sp}`) : undefined;
}

export const CALL_RULES: readonly CallRule[] = [
  {
    name: 'new_method',
    resolve: (c) => {
      // Ruby `Worker.new(…)`: constructs Worker (resolveCallSite adds its `initialize`)
      if (!c.f.L.newMethod || c.o.name !== c.f.L.newMethod) return undefined;
      if (!c.receiver) {
        // a bare `new(…)` in a class method constructs the enclosing class
        const own = c.f.classOf(c.o.scope);
        return own ? bound([own], 'self', `${own.sp}.${c.o.name}`) : undefined;
      }
      const named = /^(?:[A-Z]\w*::)*([A-Z]\w*)$/.exec(c.receiver!.trim())?.[1];
      if (!named) return undefined;
      const cls = c.f.resolveName(named, c.o.scope, CLASSY);
      if (!('syms' in cls) || cls.syms.length !== 1) return undefined;
      return bound(cls.syms, cls.tier === 'import' || cls.tier === 'same_file' ? cls.tier : 'receiver', `${named}.${c.o.name}`);
    },
  },
  {
    name: 'fixture_value',
    resolve: ({ f, o, receiver }) => {
      // def test_x(client_factory): client_factory(app) — the fixture's value is called
      if (receiver || !f.usesFixtures || f.bindings.has(o.name)) return undefined;
      const fx = fixtureNamed(f, o.name, o.scope);
      if (!fx || (fx.fn.fileId === f.file.id && fx.fn.sp === o.scope)) return undefined;
      if (fx.factoryOf.length === 1) return bound(fx.factoryOf, 'fixture', `${fixtureLabel(f, fx)} makes ${fx.factoryOf[0]!.sp}`);
      const runs = callMembers(f, fx.classes);
      return runs.length === 1 ? bound(runs, 'fixture', fixtureLabel(f, fx)) : undefined;
    },
  },
  {
    name: 'plain_name',
    resolve: ({ f, o, receiver, depth }) => {
      if (receiver) return undefined;
      // cls = Command; cls(…): constructs the class the local holds
      const made = f.flow.classHeld(o.name, o.scope, o.line);
      if (made) return bound([made], 'assigned', `${o.name} = ${made.sp}`);
      // handler = Handler(…); handler(x): the instance's call member runs (the local shadows any def)
      const held = f.flow.typeOf(o.name, o.scope, o.line, depth);
      const runs = f.L.callMember ? callMembers(f, held) : [];
      if (runs.length === 1) return bound(runs, 'assigned', `${o.name} → ${runs[0]!.sp}`);
      const typed = heldCallableType(held, o.name);
      if (typed) return typed;
      // exc: type[SyntaxError] (or exc: SyntaxError); exc(…): a value of a class without a call member, called,
      // is that class constructed
      const classes = f.L.callMember && !runs.length ? classesIn(held) : [];
      if (classes.length === 1) return bound(classes, 'assigned', `${o.name} → ${classes[0]!.sp}`);
      // f = self.get_visitor(node); f(node): what get_visitor hands out runs
      const handed = held.length ? undefined : f.flow.handedOut(o.name, o.scope, o.line, depth);
      if (handed?.syms.length) {
        const what = handed.syms.length === 1 ? handed.syms[0]!.sp : `one of ${handed.syms.length} functions`;
        return bound(handed.syms, handed.byPrefix ? 'by_prefix' : 'assigned', `${o.name} → ${what}`);
      }
      // default = self._default_finalize; default(v): the bound method runs
      const methods = held.length ? [] : f.flow.boundMethods(o.name, o.scope, o.line, depth);
      if (methods.length) return bound(methods, 'assigned', `${o.name} → ${methods[0]!.sp}`);
      const res = f.resolveName(o.name, o.scope, CALLABLE);
      if ('syms' in res && res.tier !== 'unique' && res.tier !== 'ambiguous') return bound(res.syms, res.tier, res.detail);
      // Ruby `@app.instance_eval do handle_options [] end`: a method of the object the block runs on
      const self = f.L.bareCalls ? f.flow.selfOf(o) : null;
      const onSelf = self ? f.flow.typeOf(self, o.scope, o.line, depth).map(c => f.t.memberIn(c, o.name)).filter(m => m !== undefined) : [];
      if (onSelf.length === 1) return bound(onSelf, 'assigned', `${self} → ${onSelf[0]!.sp} (instance_eval)`);
      // Ruby `task :name do … end` in a test: a method of self's class, its bases or the modules it includes
      const inherited = f.L.bareCalls ? selfMember(f, o) : undefined;
      if (inherited) return inherited;
      // `map(&:to_s)` in a class that includes Enumerable: its own each runs
      const mixed = f.L.bareCalls ? mixinOfSelf(f, f.classOf(o.scope), o.name) : undefined;
      if (mixed) return mixed;
      if ('syms' in res) return bound(res.syms, res.tier, res.detail);
      return res.unbound > AMBIGUOUS_MAX ? 'unbound' : 'none';
    },
  },
  {
    name: 'super',
    resolve: ({ f, o, receiver: r }) => {
      if (r !== 'super' && r !== 'super()' && !r!.startsWith('super(')) return undefined;
      const cls = f.classOf(o.scope);
      const m = cls ? f.t.baseMember(cls, o.name) : undefined;
      if (m || !cls) return m ? bound([m], 'self', `super of ${cls!.sp}`) : undefined;
      // super().serve_forever() into a base outside the workspace, whose code may run the class's overrides (not
      // super().__init__(…): a constructor rarely runs them, and nearly every subclass calls it)
      const outside = o.name === f.L.constructorMember ? undefined : outsideBaseOf(f, cls);
      return outside ? bound([cls], 'outside', `super → ${cls.sp} (${o.name} of ${outside})`) : undefined;
    },
  },
  {
    name: 'self',
    resolve: ({ f, o, receiver: r }) => {
      if (!f.L.selfReceivers.includes(r!)) return undefined;
      const cls = f.classOf(o.scope);
      const m = cls ? f.t.memberIn(cls, o.name) : undefined;
      if (m) return bound([m], 'self', cls!.sp);
      const mixed = mixinOfSelf(f, cls, o.name);
      if (mixed) return mixed;
      const assigned = cls ? assignedMembers(f, cls).get(o.name) : undefined;
      if (assigned) return bound(assigned, 'self', `${cls!.sp}.${o.name} = ${assigned[0]!.sp}`);
      return cls ? hostBinding(f.t, cls, o.name) ?? definedAtRunTime(f, cls, o.name) : undefined;
    },
  },
  {
    name: 'self_chain',
    resolve: ({ f, o, receiver: r }) => {
      // this.transform(…).test(…), (opts ? this.resolve(opts) : this).clone(): fluent chains on the instance
      if (!selfRooted(r!, f.L.selfReceivers)) return undefined;
      const cls = f.classOf(o.scope);
      const m = cls ? f.t.memberIn(cls, o.name) : undefined;
      return m ? bound([m], 'self_chain', cls!.sp) : undefined;
    },
  },
  {
    name: 'namespace',
    resolve: (c) => {
      // `import { util } from './index'` where the barrel does `export * as util from './util'`
      const { constructed, named } = c.receiverName;
      const b = named && !constructed ? c.f.binding(named, c.o.scope) : undefined;
      if (!b || b.kind !== 'symbol') return undefined;
      const imports = c.f.t.imports;
      for (const t of b.files.flatMap(t => imports.exportedModule(t, b.name))) {
        const x = imports.exported(t, c.o.name);
        if (x && CALLABLE.has(x.sym.kind)) return bound([x.sym], 'import', `${b.source} → ${b.name}.${c.o.name}`);
      }
      return undefined;
    },
  },
  {
    name: 'module',
    resolve: (c) => {
      const { constructed, named } = c.receiverName;
      // a.b.f() after `import a.b`: the dotted module is bound as a whole
      const b = named && !constructed ? c.f.binding(named, c.o.scope) : constructed ? undefined : c.f.binding(c.receiver!, c.o.scope);
      // json.load(f): a call on a package outside the repository is nobody's method here
      if (!b && named && !constructed && c.f.isExternal(named)) return 'none';
      if (!b || b.kind !== 'module') return undefined;
      for (const t of b.files) {
        const x = c.f.t.imports.exported(t, c.o.name);
        if (x && CALLABLE.has(x.sym.kind)) return bound([x.sym], 'import', `${b.source}${x.via ? ` → ${x.via}` : ''}`);
      }
      // Go: a package alias may span several files of the package
      const inPkg = b.files.flatMap(t => c.f.t.topLevel(t, c.o.name));
      return inPkg.length === 1 ? bound(inPkg, 'import', b.source) : undefined;
    },
  },
  {
    name: 'receiver',
    resolve: (c) => {
      const { constructed, named } = c.receiverName;
      if (!named) return undefined;
      const cls = c.f.resolveName(named, c.o.scope, CLASSY);
      if (!('syms' in cls) || cls.syms.length !== 1) return undefined;
      const m = c.f.t.memberIn(cls.syms[0]!, c.o.name);
      return m ? bound([m], 'receiver', constructed ? `${named}(…)` : named) : undefined;
    },
  },
  {
    name: 'parametrized',
    resolve: ({ f, o, receiver: r }) => {
      // def test_parameter(obj, expect): obj.to_info_dict() runs it on each class the parametrize cases construct
      const classes = o.scope && /^[a-z_]\w*$/.test(r!) ? parametrizedClasses(f, o.scope, r!) : [];
      const runs = [...new Set(classes.map(c => f.t.memberIn(c, o.name)).filter(m => m !== undefined))];
      return runs.length ? bound(runs, 'fixture', `${r} ← parametrize (${classes.map(c => c.name).join(', ')})`) : undefined;
    },
  },
  {
    name: 'assigned',
    resolve: (c) => {
      // result = runner.invoke(…); result.output() — the type the receiver holds (graph/flow.ts);
      // request.form().json(), await request.form() — the type the call returns
      const callee = calleeOfCall(c.receiver!);
      const types = callee && c.depth < 2 ? c.f.flow.callResult(callee, c.o, c.depth + 1)
        : c.f.flow.typeOf(c.receiver!, c.o.scope, c.o.line, c.depth);
      // one method, whichever of the types holds it (two classes that include one module)
      const members = [...new Set(types.map(cls => c.f.t.memberIn(cls, c.o.name)).filter(m => m !== undefined))];
      // args.map on a class that includes Enumerable: its each runs (a mixin's method is found before method_missing)
      const mixed = members.length || types.length !== 1 ? undefined : mixinRuns(c.f, types[0]!, c.o.name);
      if (mixed) return bound(mixed.runs, 'assigned', `${c.receiver} → ${types[0]!.sp} (${mixed.mixin}#${c.o.name} runs it)`);
      // fl.sort on a FileList whose body defines its delegating methods at run time
      const dynamic = members.length || types.length !== 1 ? undefined : dynamicMember(c.f, types[0]!, c.o.name);
      if (dynamic) return bound([dynamic], runTimeTier(dynamic, 'assigned'), `${c.receiver} → ${types[0]!.sp} (${c.o.name})`);
      // wrapper.fill(…) on a textwrap.TextWrapper subclass: a use of the class whose outside base may run its overrides
      const outside = members.length || types.length !== 1 ? undefined : outsideBaseOf(c.f, types[0]!);
      if (outside) return bound([types[0]!], 'outside', `${c.receiver} → ${types[0]!.sp} (${c.o.name} of ${outside})`);
      if (members.length !== 1) return undefined;
      return bound(members, 'assigned', `${c.receiver} → ${members[0]!.sp.slice(0, members[0]!.sp.lastIndexOf('.'))}`);
    },
  },
  {
    name: 'held_value',
    resolve: (c) => {
      // an attribute holding a value of a callable type (`self.app(…)`, `app: ASGIApp`) calls the type;
      // one holding a class (`code_generator_class: type[CodeGenerator]`) constructs it (or, holding an
      // instance of a class with a call member, runs that)
      const callee = `${c.receiver}.${c.o.name}`;
      const held = c.f.flow.typeOf(callee, c.o.scope, c.o.line, c.depth);
      const typed = heldCallableType(held, callee);
      if (typed) return typed;
      // self.stack = self.app; self.stack(…): the bound method runs
      const methods = held.length ? [] : c.f.flow.boundMethods(callee, c.o.scope, c.o.line, c.depth);
      if (methods.length) return bound(methods, 'assigned', `${callee} → ${methods[0]!.sp}`);
      const classes = classesIn(held);
      if (classes.length !== 1) return undefined;
      const runs = callMembers(c.f, classes);
      return bound(runs.length === 1 ? runs : classes, 'assigned', `${callee} → ${classes[0]!.sp}`);
    },
  },
  {
    name: 'fixture',
    resolve: (c) => {
      // def test_x(runner): runner.invoke(…) — the receiver is the fixture's value
      const { named, constructed } = c.receiverName;
      if (!named || constructed || c.f.bindings.has(named) || !c.f.usesFixtures) return undefined;
      const fx = fixtureNamed(c.f, named, c.o.scope);
      const members = fx ? fx.classes.map(cls => c.f.t.memberIn(cls, c.o.name)).filter(m => m !== undefined) : [];
      return members.length === 1 ? bound(members, 'fixture', fixtureLabel(c.f, fx!)) : undefined;
    },
  },
  {
    name: 'scope_type',
    resolve: (c) => {
      const { f, o } = c;
      // `Integer.toString(d)`, `Math.max(…)`: a static call on a type the repository does not define is
      // nobody's method here, whatever the scope names
      const { constructed, named } = c.receiverName;
      if (named && !constructed && /^[A-Z][a-z0-9]\w*$/.test(named) && !f.bindings.get(named) && !('syms' in f.resolveName(named, o.scope, CLASSY))) return 'none';
      // `ENV["X"]`, `ARGV.first`: a constant the repository defines nowhere is the platform's
      if (named && !constructed && /^[A-Z][A-Z0-9_]+$/.test(named) && !f.bindings.get(named) && !f.t.byName.get(named)?.length) return 'none';
      // `sock = socket.socket(); sock.shutdown()`: a local holding a value from outside is none of the scope's classes
      if (named && f.flow.fromOutside(c.receiver!, o.scope, o.line)) return undefined;
      // `"#{numbers[0, 65]}"`, `a == b`: syntax running a member every object has says nothing of the type
      if (o.source === 'syntax' && f.L.dynamicMembers?.universal?.has(o.name)) return undefined;
      // The receiver's type is probably one of the classes the scope names (annotations, constructors),
      // unless the receiver is named like a class with the method (`application[…]` where the scope names Task)
      let typed: GSymbol[] = [];
      for (let p: string | null = o.scope; p !== null; p = parentScope(p)) {
        typed = f.scopeMembers(p, o.name);
        if (typed.length) break;
      }
      if (typed.length !== 1 || namedLikeOwner(c)) return undefined;
      return bound(typed, 'scope_type', typed[0]!.sp.slice(0, typed[0]!.sp.lastIndexOf('.')));
    },
  },
  { name: 'receiver_name', resolve: namedLikeOwner },
  {
    name: 'method_name',
    resolve: ({ f, o }) => {
      const cands = f.methodsNamed(o.name);
      if (cands.length === 1) return bound(cands, 'method_name', '1');
      // every definition overrides one method: a call of that method (dispatch.ts reaches the overrides);
      // two or three hierarchies: one of their roots
      const roots = cands.length > 1 ? hierarchyRoots(f.t, cands) : [];
      if (roots.length === 1) return bound(roots, 'hierarchy', `${roots[0]!.sp} (${cands.length} definitions)`);
      if (roots.length > 1 && roots.length <= AMBIGUOUS_MAX && cands.length > AMBIGUOUS_MAX) return bound(roots, 'ambiguous', `${roots.length} hierarchies`);
      if (cands.length > 1 && cands.length <= AMBIGUOUS_MAX) return bound(cands, 'ambiguous', String(cands.length));
      return cands.length > AMBIGUOUS_MAX ? 'unbound' : 'none';
    },
  },
];

/** The first answer of the ladder for a call site ('none' when no rule binds it). */
export function resolveCall(c: CallSite): CallOutcome {
  for (const rule of CALL_RULES) {
    const r = rule.resolve(c);
    if (r !== undefined) return r;
  }
  return 'none';
}

/** A call chain on the instance (`this.a(…)`, `this.a(…).b(…)`), or a conditional whose branches all are or start one. */
export function selfRooted(receiver: string, selves: readonly string[]): boolean {
  const t = receiver.trim();
  const chain = (x: string) => selves.some(s => x.startsWith(`${s}.`) && x.endsWith(')') && /^[A-Za-z_$][\w$]*\s*\(/.test(x.slice(s.length + 1)));
  const paren = /^\((.*)\)$/s.exec(t);
  if (!paren) return chain(t);
  const inner = paren[1]!; const q = inner.indexOf('?'); const c = inner.lastIndexOf(':');
  if (q <= 0 || c <= q) return false;
  const branches = [inner.slice(q + 1, c).trim(), inner.slice(c + 1).trim()];
  return branches.some(b => chain(b)) && branches.every(b => selves.includes(b) || chain(b));
}

/**
 * The callee of a receiver that is one whole call (`request.form()` → `request.form`), or null: a
 * plain name, a chain whose last link is not a call, or a call whose arguments do not close at the end.
 */
export function calleeOfCall(receiver: string): string | null {
  const m = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\(/.exec(receiver);
  if (!m || !receiver.endsWith(')')) return null;
  let depth = 0;
  for (let i = m[1]!.length; i < receiver.length; i++) {
    const ch = receiver[i];
    if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0 && i !== receiver.length - 1) return null;
  }
  return depth === 0 ? m[1]! : null;
}

/** ctx.invoke(…), formatter.write(…): the one class named like the receiver that has the method (or inherits it). */
function namedLikeOwner({ f, o, receiver }: CallSite): CallOutcome | undefined {
  const named = receiver && /^[A-Za-z_][\w.]*$/.test(receiver) ? receiver.slice(receiver.lastIndexOf('.') + 1) : null;
  if (!named || f.flow.fromOutside(receiver!, o.scope, o.line)) return undefined;
  // the same receiver name and method name bind alike throughout a family's files: once per pass
  const key = `named\0${f.family}\0${named}\0${o.name}`;
  if (f.t.passMemo.has(key)) return f.t.passMemo.get(key) as CallOutcome | undefined;
  const r = classNamedAfter(f, named, o.name);
  f.t.passMemo.set(key, r);
  return r;
}

function classNamedAfter(f: FileScope, named: string, name: string): CallOutcome | undefined {
  const hits = classNamedLike(named, f.methodsNamed(name));
  if (hits.length === 1) return bound(hits, 'receiver_name', `${named} → ${hits[0]!.parent}`);
  const through = inheritedNamedLike(f, named, name);
  return through ? bound([through.m], 'receiver_name', `${named} → ${through.cls} (${through.m.parent})`) : undefined;
}
