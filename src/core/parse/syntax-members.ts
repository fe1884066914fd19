/**
 * Members that syntax runs without naming them, recorded as calls on the receiver (graph resolution binds
 * them only when the receiver's type is known): a subscript (`x[k]`: `__getitem__`, Ruby `[]`; assigned
 * to: the setter), a built-in or operator by the name the query captured (`str(x)`, `k in x`: the language
 * table's protocolCalls), a method chosen at run time by a name prefix (`getattr(self, f"visit_{…}")`),
 * recorded as `visit_*`, and the methods `getattr` names by a literal or a loop over literals.
 */
import type { Node } from 'web-tree-sitter';
import type { LanguageSpec } from '../languages/types';

/** The member a `capture` (reference.subscript, reference.protocol, reference.by_prefix) runs, if any. */
export function syntaxMember(spec: LanguageSpec, capture: string, node: Node, name: string | null): string | null {
  if (capture === 'reference.by_prefix') return name ? byName(node, name) : null;
  if (capture === 'reference.protocol') return name ? spec.graph?.protocolCalls?.[name] ?? null : null;
  return subscriptMember(spec, node);
}

/** The member a subscript runs: the language's element getter, its setter when assigned to, its deleter in `del`. */
function subscriptMember(spec: LanguageSpec, node: Node): string | null {
  const members = spec.graph?.subscriptMembers;
  if (!members) return null;
  if (isAssignedTo(node)) return members.set;
  const deleted = node.parent?.type === 'delete_statement' || node.parent?.parent?.type === 'delete_statement';
  return deleted && members.del ? members.del : members.get;
}

/** Whether a node is the left side of an assignment (`x[k] = v`, `x.chain = v`, `t |= u`). */
function isAssignedTo(node: Node): boolean {
  const parent = node.parent;
  return !!parent && /assignment$/.test(parent.type) && parent.childForFieldName('left')?.startIndex === node.startIndex;
}

/** The member a call runs: its name, or the setter an attribute assignment runs (Ruby `x.chain = v`: `chain=`). */
export function callMember(spec: LanguageSpec, call: Node, name: string): string {
  const suffix = spec.graph?.setterSuffix;
  return suffix && isAssignedTo(call) ? `${name}${suffix}` : name;
}

/**
 * The members `getattr(x, …)` names: `"patch"` that one; a loop variable over literal names (`for method in
 * ("patch", "post")`) each of them, space-separated; a computed name its literal prefix (byPrefix).
 */
function byName(call: Node, text: string): string | null {
  const literal = /^(['"])([A-Za-z_]\w*)\1$/.exec(text.trim());
  if (literal) return literal[2]!;
  return /^[A-Za-z_]\w*$/.test(text) ? loopNames(call, text) : byPrefix(text);
}

/** The literal names a loop variable takes (`for m in ("a", "b")` around the call, within its function). */
function loopNames(call: Node, variable: string): string | null {
  for (let n = call.parent; n && n.type !== 'function_definition'; n = n.parent) {
    if (n.type !== 'for_statement' || n.childForFieldName('left')?.text !== variable) continue;
    const values = n.childForFieldName('right');
    if (!values || !['tuple', 'list', 'set'].includes(values.type)) return null;
    const names = values.namedChildren.map(v => (v && v.type === 'string' ? /^(['"])([A-Za-z_]\w*)\1$/.exec(v.text)?.[2] : undefined));
    return names.length && names.every(Boolean) ? names.join(' ') : null;
  }
  return null;
}

/** `f"visit_{…}"`, `"do_" + name`: the literal prefix of a computed member name, as `visit_*`. */
function byPrefix(text: string): string | null {
  const m = /^f?(['"])([A-Za-z_]\w*?)(?:\{|\1\s*\+)/.exec(text.trim());
  return m && m[2]!.length >= 2 ? `${m[2]}*` : null;
}

/** A call's callee without its arguments or block (Ruby `Foo.new(1) do … end` → `Foo.new`); other nodes as they are. */
export function calleeText(node: Node, textOf: (n: Node) => string): string {
  const method = node.type === 'call' ? node.childForFieldName('method') : null;
  return method ? textOf(node).slice(0, method.endIndex - node.startIndex) : textOf(node);
}
