/**
 * Members that syntax runs without naming them, recorded as calls on the receiver (graph resolution binds
 * them only when the receiver's type is known): a subscript (`x[k]`: `__getitem__`, Ruby `[]`; assigned
 * to: the setter), a built-in or operator by the name the query captured (`str(x)`, `k in x`: the language
 * table's protocolCalls), and a method chosen at run time by a name prefix
 * (`getattr(self, f"visit_{…}")`), recorded as `visit_*`.
 */
import type { Node } from 'web-tree-sitter';
import type { LanguageSpec } from '../languages/types';

/** The member a `capture` (reference.subscript, reference.protocol, reference.by_prefix) runs, if any. */
export function syntaxMember(spec: LanguageSpec, capture: string, node: Node, name: string | null): string | null {
  if (capture === 'reference.by_prefix') return name ? byPrefix(name) : null;
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
