/**
 * Base-class dispatch, read from the stored graph at query time: a call of a method on a receiver
 * whose class is not known exactly (`self.render()` in a base class, `node.visit()` typed as the base,
 * a language server's call of an interface method) may run any override of it. So the callers of a
 * base method are possible callers of each method that overrides it, marked as such: tier `dispatch`,
 * confidence at most TIERS.dispatch. A call on a constructed instance (`Base().render()`, tier
 * `receiver`) names its class exactly and is not dispatched.
 *
 * Read at query time from stored `extends`/`implements` edges and stored calls, so an edit to a
 * subclass in one file never leaves another file's stored edges stale.
 */
import type { NodeRow } from '../store/store';
import { TIERS } from './tiers';
import { graphRules } from '../languages';
import type { LanguageId } from '../languages/types';
import { resolutionOf, type GraphEdge, type GraphReader } from './query';
import { appendAll } from '../util/arrays';

/** Base classes followed upward from a method's class. */
const DISPATCH_DEPTH = 4;
const BASE_KINDS = ['extends', 'implements'] as const;

type Hit = { neighbour: NodeRow; edge: GraphEdge };

/** For each method among `nodes`: the callers of the methods it overrides, as dispatch edges. */
export function dispatchCallers(g: GraphReader, nodes: readonly NodeRow[], own?: ReadonlyMap<number, readonly Hit[]>): Map<number, Hit[]> {
  const out = patchCallers(g, nodes);
  for (const [node, hits] of outsideCallers(g, nodes, own)) out.set(node, appendAll(out.get(node) ?? [], hits));
  const structural = structuralBases(g, nodes);
  const methods = nodes.filter(n => n.kind === 'method' && (n.parent_path || structural.has(n.node)));
  if (!methods.length) return out;
  const lineage = new Map<number, Set<string>>();
  const overridden = overriddenMethods(g, methods.filter(n => n.parent_path), lineage);
  for (const [m, bases] of structural) overridden.set(m, [...(overridden.get(m) ?? []), ...bases]);
  const all = [...new Set([...overridden.values()].flat())];
  const callers = g.edgesOfMany(all, 'in', ['calls'], { dispatch: false });
  const interfaceMethods = new Set([...structural.values()].flat().map(b => b.node));
  const implemented = (base: NodeRow) => interfaceMethods.has(base.node);
  for (const m of methods) {
    const list: Hit[] = [];
    for (const base of overridden.get(m.node) ?? []) {
      for (const { neighbour, edge } of callers.get(base.node) ?? []) {
        if (edge.tier === 'receiver' || neighbour.node === m.node || !selfMayBe(edge, neighbour, lineage.get(m.node))) continue;
        const how = implemented(base) ? 'implements' : 'overrides';
        list.push({ neighbour, edge: relayed(g, m, edge, 'dispatch', `${m.symbol_path} ${how} ${base.symbol_path}`) });
      }
    }
    if (list.length) out.set(m.node, list);
  }
  return out;
}

/** A class's key: from its node, or from a method's (its parent path). */
const classKey = (c: NodeRow, sp = c.symbol_path): string => `${c.repo_id}\0${c.path}\0${sp}`;

/**
 * Whether a call bound through self (`self.render()`, `super().render()`) in a method of class C may run an
 * override: only when self can be an instance of the override's class, that is, C is that class or one of its
 * ancestors (a sibling's `super().to_info_dict()` never runs this class's).
 */
function selfMayBe(edge: GraphEdge, caller: NodeRow, lineage: ReadonlySet<string> | undefined): boolean {
  if (edge.tier !== 'self' || caller.kind !== 'method' || !caller.parent_path || !lineage) return true;
  return lineage.has(classKey(caller, caller.parent_path));
}

/**
 * Go: the interface methods a method implements by its type's method set. An interface of the same
 * repository with a method of that name, every method of which the type (in the method's folder: its
 * package) also has, is implemented.
 */
const structuralMemo = new WeakMap<GraphReader, Map<number, NodeRow[]>>();

function structuralBases(g: GraphReader, nodes: readonly NodeRow[]): Map<number, NodeRow[]> {
  const out = new Map<number, NodeRow[]>();
  let memo = structuralMemo.get(g);
  if (!memo) structuralMemo.set(g, memo = new Map());
  for (const m of nodes) {
    const sp = m.symbol_path ?? '';
    if (m.kind !== 'method' || !sp.includes('.') || !graphRules(m.language as LanguageId).structuralInterfaces) continue;
    const known = memo.get(m.node);
    if (known) { if (known.length) out.set(m.node, known); continue; }
    // a Go method's type is its receiver's: the symbol path's first part (no parent definition holds it)
    const type = sp.slice(0, sp.lastIndexOf('.'));
    const folder = m.path.slice(0, m.path.lastIndexOf('/') + 1);
    const inPackage = (x: NodeRow) => x.path.startsWith(folder) && !x.path.slice(folder.length).includes('/');
    const typeHas = (name: string) => g.lookup(name, { repo_id: m.repo_id })
      .some(x => x.kind === 'method' && x.symbol_path === `${type}.${name}` && inPackage(x));
    const namesakes = g.lookup(m.name, { repo_id: m.repo_id }).filter(x => x.kind === 'method' && x.node !== m.node && x.parent_path);
    const bases: NodeRow[] = [];
    for (const im of namesakes) {
      const owner = g.symbolsByKeys([{ repo_id: im.repo_id, path: im.path, symbol_path: im.parent_path! }]).values().next().value;
      if (owner?.kind !== 'interface') continue;
      const required = (g.symbolsAt(im.repo_id, im.path) ?? []).filter(x => x.kind === 'method' && x.parent_path === owner.symbol_path);
      if (required.every(r => r.name === m.name || typeHas(r.name))) bases.push(im);
    }
    memo.set(m.node, bases);
    if (bases.length) out.set(m.node, bases);
  }
  return out;
}

/** Each method's namesakes in its class's bases (transitively, nearest first). */
function overriddenMethods(g: GraphReader, methods: readonly NodeRow[], lineage = new Map<number, Set<string>>()): Map<number, NodeRow[]> {
  const classes = g.symbolsByKeys(methods.map(m => ({ repo_id: m.repo_id, path: m.path, symbol_path: m.parent_path! })));
  const classOf = new Map<number, NodeRow>();
  for (const m of methods) {
    const c = classes.get(`${m.repo_id}\0${m.path}\0${m.parent_path}`);
    if (c) classOf.set(m.node, c);
  }
  // bases of every class, layer by layer
  const basesOf = new Map<number, NodeRow[]>();
  let layer = [...new Map([...classOf.values()].map(c => [c.node, c])).values()];
  for (let d = 0; d < DISPATCH_DEPTH && layer.length; d++) {
    const edges = g.edgesOfMany(layer, 'out', BASE_KINDS, { dispatch: false });
    const next: NodeRow[] = [];
    for (const c of layer) {
      const bases = (edges.get(c.node) ?? []).map(e => e.neighbour).filter(b => b.node !== c.node);
      basesOf.set(c.node, bases);
      for (const b of bases) if (!basesOf.has(b.node) && !next.includes(b)) next.push(b);
    }
    layer = next;
  }
  const ancestry = (c: NodeRow): NodeRow[] => {
    const seen = new Set<number>([c.node]);
    const order: NodeRow[] = [];
    for (let frontier = [c]; frontier.length;) {
      frontier = frontier.flatMap(x => basesOf.get(x.node) ?? []).filter(b => !seen.has(b.node) && seen.add(b.node));
      order.push(...frontier);
    }
    return order;
  };
  const wanted = new Map<number, { repo_id: string; path: string; symbol_path: string }[]>();
  for (const m of methods) {
    const c = classOf.get(m.node);
    if (!c?.symbol_path) continue;
    lineage.set(m.node, new Set([c, ...ancestry(c)].map(b => classKey(b))));
    wanted.set(m.node, ancestry(c).filter(b => b.symbol_path).map(b => ({ repo_id: b.repo_id, path: b.path, symbol_path: `${b.symbol_path}.${m.name}` })));
  }
  const found = g.symbolsByKeys([...wanted.values()].flat());
  const out = new Map<number, NodeRow[]>();
  for (const [node, keys] of wanted) {
    const list = keys.map(k => found.get(`${k.repo_id}\0${k.path}\0${k.symbol_path}`)).filter((n): n is NodeRow => !!n);
    if (list.length) out.set(node, list);
  }
  return out;
}

/**
 * For each function among `nodes` assigned in place of a module's function (`utils.echo = fake_echo`,
 * an `implements` edge of tier patch): the callers of the function it replaces, as possible callers.
 */
function patchCallers(g: GraphReader, nodes: readonly NodeRow[]): Map<number, Hit[]> {
  const out = new Map<number, Hit[]>();
  const fns = nodes.filter(n => n.kind === 'function');
  if (!fns.length) return out;
  const replaced = new Map<number, NodeRow[]>();
  for (const [node, list] of g.edgesOfMany(fns, 'out', ['implements'], { dispatch: false })) {
    const targets = list.filter(x => x.edge.tier === 'patch').map(x => x.neighbour);
    if (targets.length) replaced.set(node, targets);
  }
  if (!replaced.size) return out;
  const callers = g.edgesOfMany([...replaced.values()].flat(), 'in', ['calls'], { dispatch: false });
  for (const f of fns) {
    const list: Hit[] = [];
    for (const orig of replaced.get(f.node) ?? []) {
      for (const { neighbour, edge } of callers.get(orig.node) ?? []) {
        if (neighbour.node === f.node) continue;
        list.push({ neighbour, edge: relayed(g, f, edge, 'patch', `${f.symbol_path} is assigned in place of ${orig.symbol_path}`) });
      }
    }
    if (list.length) out.set(f.node, list);
  }
  return out;
}

/**
 * For each method among `nodes` that no code of the workspace calls by name, of a class whose members are
 * called through a base outside the workspace (edges of tier `outside` into the class: `wrapper.fill(…)` on a
 * `textwrap.TextWrapper` subclass): those callers, as possible callers (tier inherited) — the outside base's code
 * may run it (`fill` runs the subclass's `_wrap_chunks`). Constructors are called by constructing the class.
 */
function outsideCallers(g: GraphReader, nodes: readonly NodeRow[], own?: ReadonlyMap<number, readonly Hit[]>): Map<number, Hit[]> {
  const out = new Map<number, Hit[]>();
  const methods = nodes.filter(n => n.kind === 'method' && n.parent_path && n.name !== graphRules(n.language as LanguageId).constructorMember);
  if (!methods.length) return out;
  // the incoming calls the caller already read (edgesOfMany), else read here
  const named = own ?? g.edgesOfMany(methods, 'in', ['calls'], { dispatch: false });
  const classOf = new Map<number, NodeRow>();
  for (const m of methods) {
    if (named.get(m.node)?.some(h => h.edge.kind === 'calls')) continue;
    const cls = g.containers(m)[0];
    if (cls && cls.kind !== 'file') classOf.set(m.node, cls);
  }
  if (!classOf.size) return out;
  const uses = g.edgesOfMany([...new Map([...classOf.values()].map(c => [c.node, c])).values()], 'in', ['calls'], { dispatch: false });
  for (const m of methods) {
    const cls = classOf.get(m.node);
    if (!cls) continue;
    const why = `what ${cls.symbol_path} inherits from outside the workspace may run ${m.name}`;
    const list = (uses.get(cls.node) ?? []).filter(u => u.edge.tier === 'outside' && u.neighbour.node !== m.node)
      .map(({ neighbour, edge }) => ({ neighbour, edge: relayed(g, m, edge, 'inherited', why) }));
    if (list.length) out.set(m.node, list);
  }
  return out;
}

/**
 * A call of one function relayed, at query time, as a possible call of another that may run in its place
 * (an override, an implementation, a patch, a function of a callable type): capped at the tier's
 * confidence, the reason after the call's own evidence.
 */
export function relayed(g: GraphReader, to: NodeRow, edge: GraphEdge, tier: 'dispatch' | 'patch' | 'protocol' | 'inherited', why: string): GraphEdge {
  const confidence = Math.min(edge.confidence, TIERS[tier].confidence);
  const evidence = `${tier}: ${edge.evidence}; ${why}`;
  return { ...edge, to: g.idOf(to), confidence, resolution: resolutionOf(confidence), tier, evidence };
}
