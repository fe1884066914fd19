/**
 * Callbacks, read at query time: a function handed over as a value is called by whatever calls the
 * parameter it lands in. `@pass_context def cli(ctx)` hands `cli` to pass_context, whose closure `new_func`
 * calls `f(…)`; `Command(callback=cli)` stores it (`self.callback = callback`) and `Command.invoke` passes
 * `self.callback` on to `Context.invoke`, which calls `callback(…)`. Each invoker is a possible caller of
 * the function (tier `callback`), with the place it was handed over and the call that runs it.
 *
 * From a function, the walk reads where it is handed over (a decorator above it; a reference to it that
 * is an argument of a call), the callee at that place (the call's own edges at that line), and then,
 * forwards through the callee's occurrences (parse/arguments.ts), the code that calls the parameter: a call
 * of the parameter in the callee or a closure of it, the parameter passed on to another callee, or stored
 * in an attribute of the instance that a method of its class calls or passes on. At most CALLBACK_DEPTH
 * hand-offs; Python for now (the languages whose query records `argument` and `params`).
 */
import type { NodeRow } from '../store/store';
import type { Occurrence } from '../parse/occurrence';
import { resolutionOf } from './query';
import type { GraphEdge, GraphReader } from './query';
import { TIERS } from './tiers';

type Hit = { neighbour: NodeRow; edge: GraphEdge };
const CALLBACK_DEPTH = 5;
const DECORATOR_LINES = 12;
const FUNCTIONS = new Set(['function', 'method']);

/** Where a value is received: the callee, the argument's slot (index or keyword), and whether the callee is bound (self first). */
interface Slot { callee: NodeRow; slot: string; bound: boolean; site: string }
/** A call of a received value: the function that makes it, the line, the parameter's name. */
interface Invoker { node: NodeRow; line: number; param: string; through: NodeRow }

/** Per reader, per (callee, slot, bound): the invokers (a walk memo). */
const memo = new WeakMap<GraphReader, Map<string, Invoker[]>>();

/** For each function node, the invokers of the values it is handed over as (tier callback). */
export function callbackCallers(g: GraphReader, nodes: readonly NodeRow[]): Map<number, Hit[]> {
  const out = new Map<number, Hit[]>();
  const fns = nodes.filter(n => FUNCTIONS.has(n.kind) && g.handsOffValues(n.language));
  if (!fns.length) return out;
  const refs = g.edgesOfMany(fns, 'in', ['references'], { dispatch: false });
  for (const fn of fns) {
    const list: Hit[] = [];
    const slots = [...decoratorSlots(g, fn), ...argumentSlots(g, fn, refs.get(fn.node) ?? [])];
    for (const s of slots) {
      for (const inv of invokersOf(g, s, 0, new Set())) {
        if (inv.node.node === fn.node || list.some(h => h.neighbour.node === inv.node.node)) continue;
        list.push({ neighbour: inv.node, edge: callbackEdge(g, fn, s, inv) });
      }
    }
    if (list.length) out.set(fn.node, list);
  }
  return out;
}

function callbackEdge(g: GraphReader, fn: NodeRow, s: Slot, inv: Invoker): GraphEdge {
  const confidence = TIERS.callback.confidence;
  const passed = inv.through.node !== s.callee.node && inv.through.node !== inv.node.node;
  const calls = passed ? ` (a parameter of ${inv.through.symbol_path})` : '';
  const evidence = `callback: ${fn.symbol_path} handed to ${s.callee.symbol_path} at ${s.site}; `
    + `${inv.node.symbol_path} calls it as ${inv.param} at ${inv.node.path}:${inv.line}${calls}`;
  return { from: g.idOf(inv.node), to: g.idOf(fn), kind: 'calls', provider: 'heuristic', confidence, resolution: resolutionOf(confidence),
    evidence, path: inv.node.path, line: inv.line, tier: 'callback' };
}

/** `@pass_context` / `@click.command()` above a function: the decorator (or the closure its call returns) receives it. */
function decoratorSlots(g: GraphReader, fn: NodeRow): Slot[] {
  const occ = g.handOffs(fn.file_id);
  const owner = g.scopeNode(fn.file_id, fn.parent_path);
  if (!owner) return [];
  const out: Slot[] = [];
  for (const o of occ) {
    if (o.kind !== 'argument' || !o.receiver?.startsWith('@') || o.name !== fn.name || o.scope !== fn.parent_path) continue;
    if (o.line >= fn.start_line || o.line < fn.start_line - DECORATOR_LINES) continue;
    out.push(...calleesAt(g, owner, o, `${fn.path}:${o.line}`));
  }
  return out;
}

/** `runner.invoke(cli)`, `Command(callback=f)`: the references to a function that are arguments of a call. */
function argumentSlots(g: GraphReader, fn: NodeRow, refs: readonly Hit[]): Slot[] {
  const out: Slot[] = [];
  for (const { neighbour: from, edge } of refs) {
    if (edge.provider !== 'heuristic' || edge.line == null) continue;
    const occ = g.handOffs(from.file_id);
    const scope = from.kind === 'file' ? null : from.symbol_path;
    for (const o of occ) {
      if (o.kind !== 'argument' || o.line !== edge.line || o.scope !== scope || o.receiver?.startsWith('@')) continue;
      if (o.name !== fn.name && !o.name.endsWith(`.${fn.name}`)) continue;
      out.push(...calleesAt(g, from, o, `${from.path}:${o.line}`));
    }
  }
  return out;
}

/**
 * The callees an `argument` occurrence hands its value to: the call's own edges from its scope at the
 * callee's line, or (a scope keeps one edge per target: an import line, an earlier decorator) its edges to
 * a callee of that name at any line.
 */
function calleesAt(g: GraphReader, scope: NodeRow, o: Occurrence, site: string): Slot[] {
  const line = Number(o.alias);
  const decorator = o.receiver!.startsWith('@');
  const text = decorator ? o.receiver!.slice(1) : o.receiver!;
  const called = text.endsWith('()');
  const name = lastName(called ? text.slice(0, -2) : text);
  if (!name) return [];
  const edges = (g.edgesOfMany([scope], 'out', ['calls', 'references', 'imports'], { dispatch: false }).get(scope.node) ?? [])
    .filter(({ neighbour: n, edge }) => edge.provider === 'heuristic' && FUNCTIONS.has(n.kind) && receives(n, edge, name, called));
  const atLine = edges.filter(({ edge }) => edge.line === line);
  const out: Slot[] = [];
  for (const { neighbour: n } of atLine.length ? atLine : edges) {
    // typing overloads: the implementation is the definition whose body calls
    for (const callee of g.overloadSet(n)) {
      if (!out.some(s => s.callee.node === callee.node)) out.push({ callee, slot: o.source ?? '0', bound: !decorator && callee.kind === 'method', site });
    }
  }
  return out;
}

/**
 * Whether an edge's target is what a callee text names: `@make(…)`: a closure of make (what its call
 * returns receives the function); `make(x)`, `Cls(x)`: make, Cls.__init__; a local holding the callee
 * (`cls = Command; cls(…)`, `run = self.run; run(…)`): what the edge says it held.
 */
function receives(n: NodeRow, edge: GraphEdge, name: string, called: boolean): boolean {
  const parent = lastName(n.parent_path ?? '');
  if (called) return parent === name && n.kind === 'function';
  const held = edge.evidence.includes(`: ${name} = `) || edge.evidence.includes(`: ${name} → `);
  return n.name === name || (n.name === '__init__' && parent === name) || held;
}

/** The last name of a callee's text or a symbol path (`click.command` → command, `Group.command~3` → command). */
const lastName = (text: string) => /([A-Za-z_]\w*)(?:~\d+)?$/.exec(text)?.[1] ?? '';

/** The functions that call the value a callee receives in a slot: directly, passed on, or stored on the instance. */
function invokersOf(g: GraphReader, s: Slot, depth: number, seen: Set<string>): Invoker[] {
  const key = `${s.callee.node}\0${s.slot}\0${s.bound}`;
  let cache = memo.get(g);
  if (!cache) memo.set(g, cache = new Map());
  const hit = cache.get(key);
  if (hit) return hit;
  if (depth > CALLBACK_DEPTH || seen.has(key)) return [];
  seen.add(key);
  const param = paramOf(g, s);
  const out = param ? [...callsOf(g, s.callee, param, depth, seen), ...storedIn(g, s.callee, param, depth, seen)] : [];
  cache.set(key, out);
  return out;
}

/** The parameter a slot lands in: the keyword's own, or the positional one (after self when bound); none past a `*args`. */
function paramOf(g: GraphReader, s: Slot): string | null {
  const params = g.handOffs(s.callee.file_id).find(o => o.kind === 'params' && o.scope === s.callee.symbol_path)?.name.split(',');
  if (!params) return null;
  if (!/^\d+$/.test(s.slot)) return params.includes(s.slot) ? s.slot : null;
  const offset = s.bound && /^(self|cls)$/.test(params[0] ?? '') ? 1 : 0;
  const p = params[Number(s.slot) + offset];
  return p && !p.startsWith('*') ? p : null;
}

/** Calls of a name inside a function or its closures, and the places it is passed on from there. */
function callsOf(g: GraphReader, fn: NodeRow, name: string, depth: number, seen: Set<string>): Invoker[] {
  const inside = (scope: string | null) => scope === fn.symbol_path || !!scope?.startsWith(`${fn.symbol_path}.`);
  const out: Invoker[] = [];
  for (const o of g.handOffs(fn.file_id)) {
    if (!inside(o.scope)) continue;
    if (o.kind === 'call' && !o.receiver && o.name === name) {
      const node = g.scopeNode(fn.file_id, o.scope);
      if (node) out.push({ node, line: o.line, param: name, through: fn });
    } else if (o.kind === 'argument' && o.name === name && !o.receiver?.startsWith('@')) {
      out.push(...passedOn(g, fn.file_id, o, depth, seen));
    }
  }
  return out;
}

/** `self.callback = callback`: the methods of the class that call `self.callback(…)` or pass it on. */
function storedIn(g: GraphReader, fn: NodeRow, param: string, depth: number, seen: Set<string>): Invoker[] {
  const cls = fn.kind === 'method' ? fn.parent_path : null;
  if (!cls) return [];
  const occ = g.handOffs(fn.file_id);
  const attrs = occ.filter(o => o.kind === 'assign' && o.scope === fn.symbol_path && o.source === param && o.name.startsWith('self.'));
  const out: Invoker[] = [];
  for (const a of attrs) {
    const attr = a.name.slice(5);
    for (const o of occ) {
      if (!o.scope?.startsWith(`${cls}.`)) continue;
      if (o.kind === 'call' && o.receiver === 'self' && o.name === attr) {
        const node = g.scopeNode(fn.file_id, o.scope);
        if (node) out.push({ node, line: o.line, param: a.name, through: fn });
      } else if (o.kind === 'argument' && o.name === a.name) {
        out.push(...passedOn(g, fn.file_id, o, depth, seen));
      }
    }
  }
  return out;
}

/** A received value handed on to another callee (`ctx.invoke(self.callback)`): that callee's invokers. */
function passedOn(g: GraphReader, fileId: number, o: Occurrence, depth: number, seen: Set<string>): Invoker[] {
  const scope = g.scopeNode(fileId, o.scope);
  if (!scope) return [];
  return calleesAt(g, scope, o, `${scope.path}:${o.line}`).flatMap(s => invokersOf(g, s, depth + 1, seen));
}
