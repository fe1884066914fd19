/**
 * Callable types, read from the stored graph at query time: a value declared with a callable type
 * (`app: ASGIApp` where `ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]`) may be any function
 * that takes those parameter types. The graph stores each call of such a value as a call of the type
 * (tier `callable`, calls.ts); here the callers of the type become possible callers of every function or
 * method whose leading typed parameters are the type's (self aside), marked as such: tier `protocol`,
 * confidence at most TIERS.protocol, never followed as proof that a test reaches a function (NAME_ONLY_TIERS).
 *
 * Read at query time, like base-class dispatch (dispatch.ts), so adding a middleware in one file never
 * leaves another file's stored edges stale.
 */
import type { NodeRow } from '../store/store';
import { relayed } from './dispatch';
import { paramsOf, selfFirst } from './callbacks';
import type { GraphEdge, GraphReader } from './query';
import { typeKey } from './type-text';

type Hit = { neighbour: NodeRow; edge: GraphEdge };
/** A callable type: the parameter types it names, and the type its calls give (`Awaitable[T]`: T). */
export interface CallableType { node: NodeRow; params: string[]; returns: string | null }

/** For each function among `nodes` that implements a callable type: the calls of values of that type. */
export function protocolCallers(g: GraphReader, nodes: readonly NodeRow[]): Map<number, Hit[]> {
  const out = new Map<number, Hit[]>();
  const fns = nodes.filter(n => n.kind === 'function' || n.kind === 'method');
  for (const fn of fns) {
    const types = g.callableTypes(fn.repo_id);
    if (!types.length) continue;
    const params = g.typedParams(fn);
    const list: Hit[] = [];
    for (const t of types) {
      if (!(t.params.length ? implementsType(params, t.params) : takesNothingGives(g, fn, t))) continue;
      for (const { neighbour, edge } of callersOf(g, t)) {
        if (neighbour.node === fn.node) continue;
        list.push({ neighbour, edge: relayed(g, fn, edge, 'protocol', implementsWhy(fn, t)) });
      }
    }
    if (list.length) out.set(fn.node, list);
  }
  return out;
}

/** The calls of values of a callable type, read once per reader (a walk asks at every layer). */
const typeCallers = new WeakMap<CallableType, Hit[]>();
function callersOf(g: GraphReader, t: CallableType): Hit[] {
  let hits = typeCallers.get(t);
  if (!hits) typeCallers.set(t, hits = g.edgesOfMany([t.node], 'in', ['calls'], { dispatch: false }).get(t.node.node) ?? []);
  return hits;
}

const implementsWhy = (fn: NodeRow, t: CallableType) => (t.params.length
  ? `${fn.symbol_path} takes the parameters of ${t.node.symbol_path}`
  : `${fn.symbol_path} takes nothing and returns ${t.returns}, like ${t.node.symbol_path}`);

const implementsType = (params: readonly string[], wanted: readonly string[]) =>
  wanted.length > 0 && params.length >= wanted.length && wanted.every((w, i) => params[i] === w);

/**
 * A type of calls without arguments (`Receive = Callable[[], Awaitable[Message]]`) is implemented by the
 * functions that take nothing (self aside) and say they return its result type (`async def receive() -> Message`):
 * without the result type every function without parameters would match.
 */
function takesNothingGives(g: GraphReader, fn: NodeRow, t: CallableType): boolean {
  if (!t.returns) return false;
  const returns = g.returnTypeOf(fn);
  if (returns === null || typeKey(returns) !== t.returns) return false;
  const params = paramsOf(g, fn) ?? [];
  return params.length === (selfFirst(params) ? 1 : 0);
}
