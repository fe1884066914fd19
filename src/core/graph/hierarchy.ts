/**
 * One method and its overrides: when every definition of a method name belongs to one class hierarchy
 * (`Expr.as_const` and the thirty node classes that override it), a call of that name on a receiver of
 * unknown type is a call of the hierarchy's root method, and base-class dispatch (dispatch.ts) reaches
 * the overrides. Names shared by unrelated classes have many roots (2–3 are bound as ambiguous).
 */
import { CLASSY, symbolKey, type GSymbol, type RepoTables } from './tables';

/** The classes `cls` derives from (bases resolved on demand), nearest first. */
export function ancestors(t: RepoTables, cls: GSymbol): GSymbol[] {
  const out: GSymbol[] = [];
  const seen = new Set<number>([cls.id]);
  for (let frontier = [cls]; frontier.length;) {
    const next: GSymbol[] = [];
    for (const c of frontier) {
      for (const key of t.basesFor(c) ?? []) {
        const b = t.byFilePath.get(key);
        if (b && !seen.has(b.id)) { seen.add(b.id); out.push(b); next.push(b); }
      }
    }
    frontier = next;
  }
  return out;
}

/**
 * The methods among `methods` (all named alike) that override none of the others: one when they form a
 * single hierarchy; empty when some method belongs to no class.
 */
export function hierarchyRoots(t: RepoTables, methods: readonly GSymbol[]): GSymbol[] {
  const key = `roots\0${methods.map(m => m.id).join(',')}`;
  if (t.passMemo.has(key)) return t.passMemo.get(key) as GSymbol[];
  const owner = (m: GSymbol) => (m.parent ? t.byFilePath.get(symbolKey(m.fileId, m.parent)) : undefined);
  const owners = new Map(methods.map(m => [m.id, owner(m)]));
  const byOwner = new Map([...owners].filter(([, o]) => o).map(([id, o]) => [o!.id, id]));
  const roots = methods.filter(m => {
    const o = owners.get(m.id);
    return o !== undefined && !ancestors(t, o).some(a => byOwner.has(a.id));
  });
  const out = [...owners.values()].every(Boolean) ? roots : [];
  t.passMemo.set(key, out);
  return out;
}

/**
 * The classes that name `cls` as a base (subclasses; Ruby classes that include a module), by id. With a
 * lookup (a partial update), those recorded by the last graph update's stored edges, except in the files
 * being resolved again, whose bases are read from their occurrences.
 */
export function subclassesOf(t: RepoTables, cls: GSymbol): GSymbol[] {
  const key = symbolKey(cls.fileId, cls.sp);
  const lookup = t.input.lookup;
  let ids: readonly number[] = t.subclassIds(key);
  if (lookup) {
    const resolving = t.resolving ?? new Set<number>();
    const fresh = [...resolving].flatMap(fid => (t.byFile.get(fid) ?? []).filter(s => CLASSY.has(s.kind) && t.basesFor(s)?.includes(key)));
    ids = [...lookup.subclassesOf(cls.id).filter(id => !resolving.has(t.symbolById(id)?.fileId ?? -1)), ...fresh.map(s => s.id)];
  }
  return [...new Set(ids)].sort((a, b) => a - b).map(id => t.symbolById(id)).filter((s): s is GSymbol => !!s);
}

/** Every class built on `cls`, all the way down, nearest first (once per class in a resolution pass). */
export function descendants(t: RepoTables, cls: GSymbol): GSymbol[] {
  const key = `descendants\0${cls.id}`;
  const known = t.passMemo.get(key) as GSymbol[] | undefined;
  if (known) return known;
  const out: GSymbol[] = [];
  const seen = new Set<number>([cls.id]);
  for (let level = subclassesOf(t, cls); level.length;) {
    const next: GSymbol[] = [];
    for (const c of level) if (!seen.has(c.id)) { seen.add(c.id); out.push(c); next.push(...subclassesOf(t, c)); }
    level = next;
  }
  t.passMemo.set(key, out);
  return out;
}

/**
 * A method `cls` neither defines nor inherits, defined by the classes built on it: what a mixin's method
 * runs when it calls `halt` of the class that includes it, or a base's template method calls a hook only
 * its subclasses define. The nearest definition down each line of subclasses; none when more than `max`.
 */
export function hostMembers(t: RepoTables, cls: GSymbol, name: string, max: number): GSymbol[] {
  const key = `hosts\0${cls.id}\0${name}\0${max}`;
  let hosts = t.passMemo.get(key) as GSymbol[] | undefined;
  if (!hosts) { hosts = hostMembersUncached(t, cls, name, max); t.passMemo.set(key, hosts); }
  return hosts;
}

function hostMembersUncached(t: RepoTables, cls: GSymbol, name: string, max: number): GSymbol[] {
  const out = new Map<number, GSymbol>();
  const seen = new Set<number>([cls.id]);
  for (let level = subclassesOf(t, cls); level.length && out.size <= max;) {
    const next: GSymbol[] = [];
    for (const sub of level) {
      if (seen.has(sub.id)) continue;
      seen.add(sub.id);
      const m = t.memberIn(sub, name);
      if (m && (m.kind === 'method' || m.kind === 'function')) out.set(m.id, m);
      else next.push(...subclassesOf(t, sub));
    }
    level = next;
  }
  return out.size <= max ? [...out.values()] : [];
}
