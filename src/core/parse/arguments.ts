/**
 * Values handed to calls, and the parameters that receive them (graph/callbacks.ts follows a function
 * handed over as a value to the code that calls it):
 *
 * - `argument`: a name or attribute passed to a call (`ctx.invoke(cli)`, `Command(callback=f)`) or the
 *   function a decorator is applied to (`@pass_context def cli`). `name` is the value's text, `receiver`
 *   the callee's text (a decorator's with a leading `@`, and `()` when the decorator is a call whose
 *   result receives the function), `source` the slot (the positional index, or the keyword), `alias` the
 *   line of the callee (where the call's own edges are).
 * - `params`: a function's parameter names in order, comma-separated (`self,callback,*args,**kwargs`);
 *   `source` the defaults that name a value (`receive=empty_receive`), comma-separated.
 * - a block handed to a call (Ruby `run do … end`): an `argument` whose slot (`source`) is `&`, `name` `&`
 *   and the block's last line; a block parameter handed on (`Promise.new(args, &block)`): slot `&`, `name` the
 *   parameter's.
 *
 * Query captures: @reference.argument with @name (the value), @receiver (the callee), @argument.key (a
 * keyword), @argument.result (a decorator's call), @argument.block (a block; @receiver its call's method);
 * @reference.params on the parameter list.
 */
import type { Node } from 'web-tree-sitter';
import type { OccurrenceKind } from './occurrence';

export interface PendingOccurrence {
  kind: OccurrenceKind; node: Node; name: string; receiver: string | null; source: string | null; alias: string | null;
}

type Capture = { name: string; node: Node };
const MAX_TEXT = 200;

/**
 * The occurrence a match of @reference.argument or @reference.params records (null: none, such as an
 * argument after a spread); undefined for other matches.
 */
export function argumentOccurrence(captures: readonly Capture[], textOf: (n: Node) => string): PendingOccurrence | null | undefined {
  if (!captures.some(c => c.name === 'reference.argument' || c.name === 'reference.params')) return undefined;
  const by = new Map(captures.map(c => [c.name, c.node]));
  const params = by.get('reference.params');
  if (params) return paramsOccurrence(params, textOf);
  const call = by.get('reference.argument');
  const callee = by.get('receiver');
  const block = by.get('argument.block');
  if (call && callee && block) return blockOccurrence(call, callee, block, textOf);
  const value = by.get('name');
  if (!call || !value || !callee) return null;
  if (call.type === 'decorated_definition') {
    const called = by.has('argument.result') ? '()' : '';
    const decorator = callee.parent?.type === 'decorator' ? callee.parent : callee.parent?.parent ?? callee;
    return { kind: 'argument', node: decorator, name: textOf(value).slice(0, MAX_TEXT), receiver: `@${textOf(callee).slice(0, MAX_TEXT)}${called}`,
      source: '0', alias: String(decorator.startPosition.row + 1) };
  }
  // Ruby `Promise.new(args, &block)`: a block parameter handed on is the callee's block
  if (value.parent?.type === 'block_argument') return forwardedBlock(call, callee, value, textOf);
  const key = by.get('argument.key');
  const slot = key ? textOf(key) : positionOf(value);
  if (slot === null) return null;
  return { kind: 'argument', node: value, name: textOf(value).slice(0, MAX_TEXT), receiver: textOf(callee).slice(0, MAX_TEXT),
    source: slot, alias: String(callee.endPosition.row + 1) };
}

/** A block handed to a call (Ruby `in_namespace(name) do … end`): `&` and its last line, the callee up to its method. */
function blockOccurrence(call: Node, method: Node, block: Node, textOf: (n: Node) => string): PendingOccurrence {
  const callee = calleeText(call, method, textOf);
  return { kind: 'argument', node: block, name: `&${block.endPosition.row + 1}`, receiver: callee, source: '&', alias: String(method.endPosition.row + 1) };
}

/** A block parameter handed on (`&block`): the block's name in slot `&`, the callee up to its method. */
function forwardedBlock(call: Node, method: Node, value: Node, textOf: (n: Node) => string): PendingOccurrence {
  const callee = calleeText(call, method, textOf);
  return { kind: 'argument', node: value, name: textOf(value).slice(0, MAX_TEXT), receiver: callee, source: '&', alias: String(method.endPosition.row + 1) };
}

/** A call's text up to the end of its method (`Promise.new(args) { … }` → `Promise.new`). */
const calleeText = (call: Node, method: Node, textOf: (n: Node) => string) =>
  textOf(call).slice(0, method.endIndex - call.startIndex).slice(0, MAX_TEXT);

/** A positional argument's index, or null after a spread (`f(*args, cb)`: its position is unknown). */
function positionOf(value: Node): string | null {
  const list = value.parent;
  if (!list) return null;
  let i = 0;
  for (const n of list.namedChildren) {
    if (!n || n.type === 'comment') continue;
    if (n.startIndex === value.startIndex) return String(i);
    if (/splat|spread/.test(n.type)) return null;
    if (n.type !== 'keyword_argument') i++;
  }
  return null;
}

/** What a parameter's kind puts before its name: `*args`, `**kwargs`, a Ruby `&block`. */
const PARAM_PREFIX: Record<string, string> = {
  list_splat_pattern: '*', dictionary_splat_pattern: '**', splat_parameter: '*', hash_splat_parameter: '**', block_parameter: '&',
};

/**
 * `(self, callback, *args, name: str = "x", receive=empty_receive, **kwargs)` → name `self,callback,*args,name,receive,**kwargs`,
 * source `receive=empty_receive`: the defaults that name a value (a function handed over by default).
 */
function paramsOccurrence(list: Node, textOf: (n: Node) => string): PendingOccurrence | null {
  const names: string[] = [];
  const defaults: string[] = [];
  for (const p of list.namedChildren) {
    if (!p || p.type === 'comment') continue;
    const id = p.type === 'identifier' ? p : p.childForFieldName('name') ?? p.namedChildren.find(c => c?.type === 'identifier') ?? null;
    const star = PARAM_PREFIX[p.type] ?? '';
    if (id) names.push(`${star}${textOf(id)}`);
    const value = id && p.type !== 'identifier' ? p.childForFieldName('value') : null;
    if (id && value && VALUE_NAMES.has(value.type)) defaults.push(`${textOf(id)}=${textOf(value)}`);
  }
  const source = defaults.length ? defaults.join(',').slice(0, MAX_TEXT) : null;
  return names.length ? { kind: 'params', node: list, name: names.join(',').slice(0, MAX_TEXT), receiver: null, source, alias: null } : null;
}

/** A default that names a value (Python, JS/TS; a Ruby bare name is a call). */
const VALUE_NAMES = new Set(['identifier', 'attribute', 'member_expression']);
