/**
 * Callbacks, read at query time: a function handed over as a value is called by whatever calls the
 * parameter it lands in. `@pass_context def cli(ctx)` hands `cli` to pass_context, whose closure `new_func`
 * calls `f(…)`; `Command(callback=cli)` stores it (`self.callback = callback`) and `Command.invoke` passes
 * `self.callback` on to `Context.invoke`, which calls `callback(…)`. Each invoker is a possible caller of
 * the function (tier `callback`), with the place it was handed over and the call that runs it.
 *
 * From a function, the walk reads where it is handed over (a decorator above it; a reference to it that
 * is an argument of a call or a parameter's default), the callee at that place (the call's own edges at that line), and then,
 * forwards through the callee's occurrences (parse/arguments.ts), the code that calls the parameter: a call
 * of the parameter in the callee or a closure of it, the parameter passed on to another callee, or stored
 * in an attribute of the instance that a method of its class calls or passes on; Ruby blocks the same way
 * (a call made inside a block runs where the callee yields or calls its `&block`). At most CALLBACK_DEPTH
 * hand-offs; the languages whose query records `argument` and `params` (the language table's `callbacks`).
 */
import type { NodeRow } from '../store/store';
import type { Occurrence } from '../parse/occurrence';
import { resolutionOf, type GraphEdge, type GraphReader } from './query';
import { DECORATOR_LINES } from './file-facts';
import { TIERS } from './tiers';

type Hit = { neighbour: NodeRow; edge: GraphEdge };
const CALLBACK_DEPTH = 5;
const FUNCTIONS = new Set(['function', 'method']);
/** The slot of a block handed to a call (Ruby `run do … end`), and the parameter yield runs. */
const BLOCK = '&';
const CONSTRUCTORS = new Set(['__init__', 'initialize']);

/** Where a value is received: the callee, the argument's slot (index or keyword), and whether the callee is bound (self first). */
interface Slot {
  callee: NodeRow; slot: string; bound: boolean; site: string;
  /** the value is a bound method (`self.handle`): its own `self` is not among the arguments the call passes */
  boundValue?: boolean;
}
/** A call of a received value: the function that makes it, the line, the parameter's name. */
interface Invoker { node: NodeRow; line: number; param: string; through: NodeRow }

/** Per reader: the invokers per (callee, slot, bound), and each scope's outgoing edges (a walk memo). */
interface Memo { invokers: Map<string, Invoker[]>; outgoing: Map<number, Hit[]> }
const memos = new WeakMap<GraphReader, Memo>();
function memoOf(g: GraphReader): Memo {
  let m = memos.get(g);
  if (!m) memos.set(g, m = { invokers: new Map(), outgoing: new Map() });
  return m;
}

/** A function's parameter names in order (parse/arguments.ts), or null when none were recorded. */
export function paramsOf(g: GraphReader, fn: NodeRow): string[] | null {
  return g.handOffs(fn.file_id).find(o => o.kind === 'params' && o.scope === fn.symbol_path)?.name.split(',') ?? null;
}

/** Whether a parameter list starts with the instance (`self`, `cls`): a bound call does not pass it. */
export const selfFirst = (params: readonly string[]) => /^(self|cls)$/.test(params[0] ?? '');

/** For each function node, the invokers of the values it is handed over as (tier callback). */
export function callbackCallers(g: GraphReader, nodes: readonly NodeRow[]): Map<number, Hit[]> {
  const out = new Map<number, Hit[]>();
  const fns = nodes.filter(n => FUNCTIONS.has(n.kind) && g.handsOffValues(n.language));
  if (!fns.length) return out;
  const refs = g.edgesOfMany(fns, 'in', ['references', 'calls'], { dispatch: false });
  for (const fn of fns) {
    const list: Hit[] = [];
    const uses = refs.get(fn.node) ?? [];
    const slots = [...decoratorSlots(g, fn), ...argumentSlots(g, fn, uses), ...blockSlots(g, fn, uses), ...defaultSlots(g, fn, uses)];
    for (const s of slots) {
      for (const inv of invokersOf(g, s, 0, new Set())) {
        if (inv.node.node === fn.node || list.some(h => h.neighbour.node === inv.node.node)) continue;
        if (!tooManyArguments(g, fn, s, inv)) list.push({ neighbour: inv.node, edge: callbackEdge(g, fn, s, inv) });
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
  const handed = s.slot === BLOCK ? `called in a block handed to ${s.callee.symbol_path}` : `${fn.symbol_path} handed to ${s.callee.symbol_path}`;
  const evidence = `callback: ${handed} at ${s.site}; `
    + `${inv.node.symbol_path} ${inv.param === 'yield' ? 'runs it by yield' : `calls it as ${inv.param}`} at ${inv.node.path}:${inv.line}${calls}`;
  return { from: g.idOf(inv.node), to: g.idOf(fn), kind: 'calls', provider: 'heuristic', confidence, resolution: resolutionOf(confidence),
    evidence, path: inv.node.path, line: inv.line, tier: 'callback' };
}

/**
 * Whether the call that runs the value passes more positional arguments than the function takes
 * (`self.app(scope, receive, send)` cannot be `homepage(request)`: that branch stores another value).
 * Only names and attributes are recorded as arguments, so the count is a lower bound.
 */
function tooManyArguments(g: GraphReader, fn: NodeRow, s: Slot, inv: Invoker): boolean {
  if (s.slot === BLOCK) return false;
  const params = paramsOf(g, fn) ?? [];
  if (params.some(p => p.startsWith('*'))) return false;
  const own = s.boundValue && selfFirst(params) ? 1 : 0;
  const line = String(inv.line);
  let most = 0;
  for (const o of g.handOffs(inv.node.file_id)) {
    const positional = o.kind === 'argument' && o.alias === line && o.receiver === inv.param && /^\d+$/.test(o.source ?? '');
    if (positional) most = Math.max(most, Number(o.source) + 1);
  }
  return most > params.length - own;
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

/**
 * `runner.invoke(cli)`, `Command(callback=f)`: the arguments naming a function in the scopes that reference
 * it (every such argument of the scope: an edge keeps one line per pair of ends).
 */
function argumentSlots(g: GraphReader, fn: NodeRow, refs: readonly Hit[]): Slot[] {
  const out: Slot[] = [];
  const sources = refs.filter(({ edge }) => edge.kind === 'references' && edge.provider === 'heuristic').map(r => r.neighbour);
  // its own module's top level hands it over without an edge (`app = Starlette(routes=[Route("/", endpoint=homepage)])`)
  const own = g.scopeNode(fn.file_id, null);
  if (own && !sources.some(n => n.node === own.node)) sources.push(own);
  for (const from of sources) {
    const occ = g.handOffs(from.file_id);
    const scope = from.kind === 'file' ? null : from.symbol_path;
    for (const o of occ) {
      if (o.kind !== 'argument' || o.scope !== scope || o.receiver?.startsWith('@')) continue;
      if (o.name !== fn.name && !o.name.endsWith(`.${fn.name}`)) continue;
      const boundValue = o.name.includes('.');
      out.push(...calleesAt(g, from, o, `${from.path}:${o.line}`).map(x => ({ ...x, boundValue })));
    }
  }
  return out;
}

/** `def __init__(self, scope, receive=empty_receive)`: the function a parameter holds by default (its keyword slot). */
function defaultSlots(g: GraphReader, fn: NodeRow, refs: readonly Hit[]): Slot[] {
  const out: Slot[] = [];
  for (const { neighbour: from, edge } of refs) {
    if (edge.kind !== 'references' || !FUNCTIONS.has(from.kind)) continue;
    const params = g.handOffs(from.file_id).find(o => o.kind === 'params' && o.scope === from.symbol_path);
    for (const d of params?.source?.split(',') ?? []) {
      const [param, value] = d.split('=');
      if (!param || (value !== fn.name && !value?.endsWith(`.${fn.name}`))) continue;
      out.push({ callee: from, slot: param, bound: from.kind === 'method', site: `${from.path}:${params!.line}` });
    }
  }
  return out;
}

/**
 * `in_namespace(name) do … helper … end`: the calls of a function's name made inside a block by a scope that
 * calls it, and the callee each block is handed to (the innermost block around the call).
 */
function blockSlots(g: GraphReader, fn: NodeRow, uses: readonly Hit[]): Slot[] {
  const out: Slot[] = [];
  for (const { neighbour: from, edge } of uses) {
    if (edge.kind !== 'calls' || edge.provider !== 'heuristic' || !g.handsOffValues(from.language)) continue;
    const scope = from.kind === 'file' ? null : from.symbol_path;
    const occ = g.handOffs(from.file_id).filter(o => o.scope === scope);
    const blocks = occ.filter(o => o.kind === 'argument' && o.source === BLOCK);
    if (!blocks.length) continue;
    for (const c of occ) {
      // a call, or a Ruby bare name (`handle_options`: an identifier the graph binds as a call)
      if ((c.kind !== 'call' && c.kind !== 'identifier') || c.name !== fn.name) continue;
      let inner: Occurrence | undefined;
      for (const b of blocks) if (b.line <= c.line && Number(b.name.slice(1)) >= c.line && (!inner || inner.line <= b.line)) inner = b;
      if (inner) out.push(...calleesAt(g, from, inner, `${from.path}:${c.line}`));
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
  // Ruby `Promise.new(args) { … }`: the class's initialize receives the block
  const name = lastName(called ? text.slice(0, -2) : text.replace(/\.new$/, ''));
  if (!name) return [];
  const named = ({ neighbour: n, edge }: Hit) => edge.provider === 'heuristic' && FUNCTIONS.has(n.kind) && receives(n, edge, name, called);
  const edges = outgoing(g, scope).filter(named);
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

/** A scope's outgoing calls, references and imports (heuristic and providers'), read once per reader. */
function outgoing(g: GraphReader, scope: NodeRow): Hit[] {
  const cache = memoOf(g).outgoing;
  let hits = cache.get(scope.node);
  if (!hits) cache.set(scope.node, hits = g.edgesOfMany([scope], 'out', ['calls', 'references', 'imports'], { dispatch: false }).get(scope.node) ?? []);
  return hits;
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
  return n.name === name || (CONSTRUCTORS.has(n.name) && parent === name) || held;
}

/** The last name of a callee's text or a symbol path (`click.command` → command, `Group.command~3` → command). */
const lastName = (text: string) => /([A-Za-z_]\w*)(?:~\d+)?$/.exec(text)?.[1] ?? '';

/** The functions that call the value a callee receives in a slot: directly, passed on, or stored on the instance. */
function invokersOf(g: GraphReader, s: Slot, depth: number, seen: Set<string>): Invoker[] {
  const key = `${s.callee.node}\0${s.slot}\0${s.bound}`;
  const cache = memoOf(g).invokers;
  const hit = cache.get(key);
  if (hit) return hit;
  if (depth > CALLBACK_DEPTH || seen.has(key)) return [];
  seen.add(key);
  const param = paramOf(g, s);
  const names = new Set(param ? [param, ...(s.slot === BLOCK ? [BLOCK] : [])] : []);
  const out = param ? [...callsOf(g, s.callee, names, depth, seen), ...storedIn(g, s.callee, param, depth, seen)] : [];
  cache.set(key, out);
  return out;
}

/** The parameter a slot lands in: the keyword's own, or the positional one (after self when bound); none past a `*args`. */
function paramOf(g: GraphReader, s: Slot): string | null {
  const params = paramsOf(g, s.callee);
  // a block (`&`): yield runs it, and so does a call of the block parameter (`&block` … `block.call`)
  if (s.slot === BLOCK) return params?.find(p => p.startsWith('&'))?.slice(1) ?? BLOCK;
  if (!params) return null;
  if (!/^\d+$/.test(s.slot)) return params.includes(s.slot) ? s.slot : null;
  const offset = s.bound && selfFirst(params) ? 1 : 0;
  const p = params[Number(s.slot) + offset];
  return p && !p.startsWith('*') ? p : null;
}

/** Calls of a name (or a local copy of it) inside a function or its closures, and the places it is passed on from there. */
function callsOf(g: GraphReader, fn: NodeRow, held: ReadonlySet<string>, depth: number, seen: Set<string>): Invoker[] {
  const inside = (scope: string | null) => scope === fn.symbol_path || !!scope?.startsWith(`${fn.symbol_path}.`);
  const occ = g.handOffs(fn.file_id);
  // f = func if is_async_callable(func) else …: the local holds the value too
  const copies = occ.filter(o => o.kind === 'assign' && o.source !== null && held.has(o.source) && inside(o.scope) && /^\w+$/.test(o.name));
  const names = new Set([...held, ...copies.map(o => o.name)]);
  const out: Invoker[] = [];
  for (const o of occ) {
    if (!inside(o.scope)) continue;
    if (o.kind === 'call' && runs(o, names)) {
      const node = g.scopeNode(fn.file_id, o.scope);
      if (node) out.push({ node, line: o.line, param: o.receiver ?? o.name, through: fn });
    } else if (o.kind === 'argument' && names.has(o.name) && !o.receiver?.startsWith('@')) {
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
  const stored = (o: Occurrence) => o.name.startsWith('self.') || o.name.startsWith('@');
  const attrs = occ.filter(o => o.kind === 'assign' && o.scope === fn.symbol_path && o.source === param && stored(o));
  const out: Invoker[] = [];
  for (const a of attrs) {
    for (const o of occ) {
      if (!o.scope?.startsWith(`${cls}.`)) continue;
      if (o.kind === 'call' && callsAttribute(o, a.name)) {
        const node = g.scopeNode(fn.file_id, o.scope);
        if (node) out.push({ node, line: o.line, param: a.name, through: fn });
      } else if (o.kind === 'argument' && o.name === a.name) {
        out.push(...passedOn(g, fn.file_id, o, depth, seen));
      }
    }
  }
  return out;
}

/** Whether a call runs what an attribute holds: Python `self.callback(…)`, Ruby `@block.call(…)`. */
function callsAttribute(o: Occurrence, attribute: string): boolean {
  if (attribute.startsWith('@')) return o.receiver === attribute && o.name === 'call';
  return o.receiver === 'self' && `self.${o.name}` === attribute;
}

/** Whether a call runs a held value: `f(…)` (a name it is held by), Ruby `block.call(…)`, `yield` (a block). */
function runs(o: Occurrence, names: ReadonlySet<string>): boolean {
  if (!o.receiver) return names.has(o.name) || (o.name === 'yield' && names.has(BLOCK));
  return o.name === 'call' && names.has(o.receiver);
}

/** A received value handed on to another callee (`ctx.invoke(self.callback)`): that callee's invokers. */
function passedOn(g: GraphReader, fileId: number, o: Occurrence, depth: number, seen: Set<string>): Invoker[] {
  const scope = g.scopeNode(fileId, o.scope);
  if (!scope) return [];
  return calleesAt(g, scope, o, `${scope.path}:${o.line}`).flatMap(s => invokersOf(g, s, depth + 1, seen));
}
