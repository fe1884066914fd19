import type { Node } from 'web-tree-sitter';

/** Where a definition lies: its node, or its signature and the body that follows it (LanguageSpec.detachedBody). */
export type Span = Pick<Node, 'startIndex' | 'endIndex' | 'startPosition' | 'endPosition'>;

/** A definition's span: the node, up to the end of the body the grammar puts beside it (Dart). */
export function spanOf(node: Node, detachedBody: string | undefined): Span {
  const next = detachedBody ? node.nextNamedSibling : null;
  if (!next || next.type !== detachedBody) return node;
  return { startIndex: node.startIndex, startPosition: node.startPosition, endIndex: next.endIndex, endPosition: next.endPosition };
}
