/**
 * What a class gets from the classes it is built on or built into, for the call ladder (calls.ts): the class a
 * receiver's name names (`ctx` → Context), directly or through a base or mixin it has (`application[k]` →
 * Application, which includes TaskManager); a method a mixin or base calls on itself that only a class built on
 * it defines (tier host); and what a method a mixin from outside the repository gives runs of the class's own
 * (Enumerable's `map` runs `each`).
 */
import { AMBIGUOUS_MAX, type Tier } from './tiers';
import { CLASSY, symbolKey, type GSymbol, type RepoTables } from './tables';
import { parentScope, passScope, type FileScope } from './scope';
import { ancestors, descendants, hostMembers } from './hierarchy';
import { INERT_BASES } from './unseen';
import type { Occurrence } from '../parse/occurrence';

/**
 * Of the methods given, those of the class a receiver's name names best: equal (`parser` → Parser), the
 * end of the class's name (`formatter` → HelpFormatter) or of the receiver's (`root_context` → Context),
 * or an abbreviation (`ctx` → Context, `req` → Request). Empty unless one class wins.
 */
export function classNamedLike(receiver: string, methods: readonly GSymbol[]): GSymbol[] {
  const r = receiver.replace(/_/g, '').toLowerCase();
  if (r.length < 3 || r === 'self' || r === 'cls' || r === 'this') return [];
  let best = 0;
  let out: GSymbol[] = [];
  for (const m of methods) {
    const owner = m.parent?.slice(m.parent.lastIndexOf('.') + 1).toLowerCase() ?? '';
    const score = nameScore(r, owner);
    if (score > best) { best = score; out = [m]; } else if (score && score === best) out.push(m);
  }
  return new Set(out.map(m => `${m.fileId}:${m.parent}`)).size === 1 ? out.slice(0, 1) : [];
}

function nameScore(r: string, owner: string): number {
  if (!owner) return 0;
  if (r === owner) return 3;
  if (owner.endsWith(r) || r.endsWith(owner)) return 2;
  return r.length <= 5 && r[0] === owner[0] && isSubsequence(r, owner) ? 1 : 0;
}

function isSubsequence(short: string, long: string): boolean {
  let i = 0;
  for (const ch of long) if (ch === short[i]) i++;
  return i === short.length;
}

/** The module a method is defined in directly, when no class encloses it (a Ruby mixin's instance method). */
export function mixinOf(f: FileScope, scope: string | null): GSymbol | undefined {
  const parent = scope ? parentScope(scope) : null;
  const s = parent ? f.t.byFilePath.get(symbolKey(f.file.id, parent)) : undefined;
  return s?.kind === 'module' ? s : undefined;
}

/**
 * A member `cls` lacks, called on self: the definition of the one class built on it that has it (a
 * module's `halt` of the class including it: host), or each of 2–3 (ambiguous).
 */
export function hostBinding(t: RepoTables, cls: GSymbol, name: string): { syms: GSymbol[]; tier: Tier; detail: string } | undefined {
  const hosts = hostMembers(t, cls, name, AMBIGUOUS_MAX);
  if (!hosts.length) return undefined;
  if (hosts.length === 1) return { syms: hosts, tier: 'host', detail: `${hosts[0]!.parent}, built on ${cls.sp}` };
  return { syms: hosts, tier: 'ambiguous', detail: `${hosts.length} classes on ${cls.sp}` };
}

/**
 * What a method a mixin from outside the repository gives a class runs of the class's own (LanguageSpec
 * outsideMixins): `fl.map` on a class that includes Enumerable runs its `each`, `h.get(k)` on a Mapping its
 * `__getitem__`. The mixin is named as a base of the class or of one of its ancestors.
 */
export function mixinRuns(f: FileScope, cls: GSymbol, name: string): { mixin: string; runs: GSymbol[] } | undefined {
  const mixins = f.L.outsideMixins;
  if (!mixins || !CLASSY.has(cls.kind)) return undefined;
  for (const c of [cls, ...ancestors(f.t, cls)]) {
    const base = declaredBases(f, c).find(o => mixins[o.name]?.[name]);
    if (!base) continue;
    const members = mixins[base.name]![name]!.split(' ').map(m => f.t.memberIn(cls, m));
    const runs = members.filter((m): m is GSymbol => m?.kind === 'method' || m?.kind === 'function');
    return runs.length ? { mixin: base.name, runs } : undefined;
  }
  return undefined;
}

/** Whether a mixin from outside that `cls` (or an ancestor) includes gives it a class method `name` returning an instance (`Singleton.instance`). */
export function mixinFactory(f: FileScope, cls: GSymbol, name: string): boolean {
  const factories = f.L.outsideFactories;
  if (!factories || !CLASSY.has(cls.kind)) return false;
  return [cls, ...ancestors(f.t, cls)].some(c => declaredBases(f, c).some(o => factories[o.name]?.includes(name)));
}

/**
 * The bases a class's own source names (`extends`/`implements` occurrences), resolved in the workspace or not;
 * once per class in a resolution pass (asked for each class up a hierarchy, at many call sites).
 */
function declaredBases(f: FileScope, cls: GSymbol): Occurrence[] {
  const key = `bases\0${cls.id}`;
  let bases = f.t.passMemo.get(key) as Occurrence[] | undefined;
  if (!bases) {
    bases = (passScope(f.t, cls.fileId)?.occ ?? []).filter(o => (o.kind === 'extends' || o.kind === 'implements') && o.scope === cls.sp);
    f.t.passMemo.set(key, bases);
  }
  return bases;
}

/**
 * Each class built on the owner of one of `methods` (all named `name`) that has that method, as that class's
 * method (parent: the class); once per language family and name in a resolution pass.
 */
function inheritingClasses(f: FileScope, name: string, methods: readonly GSymbol[]): GSymbol[] {
  const key = `inheriting\0${f.family}\0${name}`;
  let via = f.t.passMemo.get(key) as GSymbol[] | undefined;
  if (via) return via;
  via = [];
  for (const m of methods) {
    const owner = m.parent ? f.t.byFilePath.get(symbolKey(m.fileId, m.parent)) : undefined;
    for (const c of owner ? descendants(f.t, owner) : []) if (f.t.memberIn(c, name)?.id === m.id) via.push({ ...m, parent: c.sp });
  }
  f.t.passMemo.set(key, via);
  return via;
}

/** Of the methods named `name`, at most this many are followed down to the classes built on their owners. */
const INHERITED_NAMED_MAX = 8;

/**
 * `application[name]`, `application.lookup(…)`: the method the one class named like the receiver has through a
 * base or a mixin (Application includes TaskManager, which defines `[]`), when no owner of the method itself
 * is named like it.
 */
export function inheritedNamedLike(f: FileScope, named: string, name: string): { m: GSymbol; cls: string } | undefined {
  const methods = f.methodsNamed(name);
  if (!methods.length || methods.length > INHERITED_NAMED_MAX) return undefined;
  const hit = classNamedLike(named, inheritingClasses(f, name, methods))[0];
  return hit ? { m: methods.find(m => m.id === hit.id)!, cls: hit.parent! } : undefined;
}

/**
 * The base outside the workspace a class (or one of its workspace bases) declares, when it is one whose own
 * code may call what a subclass defines (not inert: `object`, builtin containers, exceptions): what a call of a
 * member the class does not define runs (`wrapper.fill(…)` on a `textwrap.TextWrapper` subclass).
 */
export function outsideBaseOf(f: FileScope, cls: GSymbol): string | undefined {
  if (!CLASSY.has(cls.kind)) return undefined;
  for (const c of [cls, ...ancestors(f.t, cls)]) {
    const inside = new Set((f.t.basesFor(c) ?? []).map(k => f.t.byFilePath.get(k)?.name));
    const o = declaredBases(f, c).find(b => !inside.has(b.name) && !INERT_BASES.test(b.name) && !f.L.inertBases?.test(b.name));
    if (o) return o.receiver ? `${o.receiver}.${o.name}` : o.name;
  }
  return undefined;
}
