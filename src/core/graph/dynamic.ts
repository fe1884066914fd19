/**
 * Methods chosen by name at run time. A visitor's dispatch method (`getattr(self, f"visit_{…}")`,
 * `getattr(self, "do_" + name)`) runs one of the methods whose names start with the prefix, of its own
 * class or of any class derived from it: each is a possible target, referenced from the site that looks
 * it up (tier by_prefix; the caller of what the site returns reaches it through that reference). The
 * extractor records such a site as a call named `visit_*` (parse/syntax-members.ts).
 */
import type { Occurrence } from '../parse/occurrence';
import type { FileScope } from './scope';
import { assignedMembers } from './flow';
import { CyclicBases, symbolKey, type GSymbol, type RepoTables } from './tables';

/** At most this many methods per site (a prefix shared by hundreds of methods says little). */
const MAX_METHODS = 200;

export const isByPrefix = (o: Occurrence): boolean => o.name.endsWith('*');

/** The methods a by-prefix site may run: self's class and the classes derived from it, by name prefix. */
export function methodsByPrefix(f: FileScope, o: Occurrence): GSymbol[] {
  const prefix = o.name.slice(0, -1);
  const cls = prefix && f.L.selfReceivers.includes(o.receiver?.trim() ?? '') ? f.classOf(o.scope) : undefined;
  if (!cls) return [];
  const out = new Map<number, GSymbol>();
  for (const c of [cls, ...derivedFrom(f.t, cls)]) {
    for (const [name, m] of f.t.membersOf(c)) {
      if (m.kind === 'method' && name.length > prefix.length && name.startsWith(prefix)) out.set(m.id, m);
    }
    // visit_Neg = _make_unop("-"): the closure stands in for a method of that name
    for (const [name, closures] of assignedMembers(f, c)) {
      if (name.length > prefix.length && name.startsWith(prefix)) for (const m of closures) out.set(m.id, m);
    }
  }
  return [...out.values()].slice(0, MAX_METHODS);
}

/** Classes derived from `cls`, all the way down (memoised for the pass; partial resolution falls back to the whole tables). */
function derivedFrom(t: RepoTables, cls: GSymbol): GSymbol[] {
  let index = t.passMemo.get('derived') as { subs: Map<string, number[]>; byId: Map<number, GSymbol> } | undefined;
  if (!index) {
    // partial resolution reads definitions as asked: the derived classes need the whole tables
    if (t.input.lookup) throw new CyclicBases('a by-prefix site needs every derived class');
    const subs = new Map<string, number[]>();
    for (const [id, bases] of t.basesOf) for (const b of bases) (subs.get(b) ?? subs.set(b, []).get(b)!).push(id);
    index = { subs, byId: new Map(t.input.symbols.map(s => [s.id, s])) };
    t.passMemo.set('derived', index);
  }
  const out: GSymbol[] = [];
  const seen = new Set<number>([cls.id]);
  const queue = [cls];
  while (queue.length) {
    const c = queue.pop()!;
    for (const id of index.subs.get(symbolKey(c.fileId, c.sp)) ?? []) {
      const sub = index.byId.get(id);
      if (sub && !seen.has(id)) { seen.add(id); out.push(sub); queue.push(sub); }
    }
  }
  return out;
}

/**
 * `generator.visit(node)` with `node: nodes.Template` and `generator` a CodeGenerator: a visitor's dispatch method,
 * handed a value of known type, runs the method named for that type (`visit_Template`), when the receiver's class
 * has both. The site of the argument (its first) is read; the edge is a call of that method, tier assigned.
 */
export function typedVisit(f: FileScope, o: Occurrence): { from: number; to: GSymbol; detail: string } | undefined {
  const call = o.receiver ?? '';
  const dot = call.lastIndexOf('.');
  if (o.kind !== 'argument' || o.source !== '0' || dot <= 0 || !/^[A-Za-z_]\w*$/.test(o.name)) return undefined;
  const [recv, method] = [call.slice(0, dot), call.slice(dot + 1)];
  if (!/^[a-z]+$/.test(method) || !typedPrefixes(f.t)(method)) return undefined;
  const arg = f.flow.typeOf(o.name, o.scope, o.line);
  const named = arg.length === 1 ? `${method}_${arg[0]!.name}` : '';
  if (!named || !f.t.byName.get(named)?.length) return undefined;
  const own = f.L.selfReceivers.includes(recv);
  const classes = own ? [f.classOf(o.scope)].filter(c => c !== undefined) : f.flow.typeOf(recv, o.scope, o.line);
  const targets = classes.filter(c => f.t.memberIn(c, method)).map(c => f.t.memberIn(c, named));
  const to = targets.length === 1 ? targets[0] : undefined;
  if (!to || (to.kind !== 'method' && to.kind !== 'function')) return undefined;
  return { from: f.fromOf(o.scope), to, detail: `${call}(${o.name}: ${arg[0]!.name}) runs ${to.sp}` };
}

/** Whether some method is named `<prefix>_<Type>` (`visit_Template` for `visit`): the cheap test before typing an argument. */
function typedPrefixes(t: RepoTables): (prefix: string) => boolean {
  // partial resolution reads definitions as asked: every prefix may have methods
  if (t.input.lookup) return () => true;
  let set = t.passMemo.get('typed prefixes') as Set<string> | undefined;
  if (!set) {
    const named = t.input.symbols.filter(s => s.kind === 'method' && /^[a-z]+_[A-Z]/.test(s.name));
    set = new Set(named.map(s => s.name.slice(0, s.name.indexOf('_'))));
    t.passMemo.set('typed prefixes', set);
  }
  return (prefix) => set!.has(prefix);
}
