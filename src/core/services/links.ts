/**
 * What the links tool reads: the workspace's stored links (store/links.ts, written by the links
 * phase), by node, by file range, by key node (`route:GET /users/{id}`, `env:X`, …), or all of a
 * kind or repository. Key nodes are matched on their normalised key: placeholders of any style are one,
 * table and config keys ignore case.
 */
import type { Store } from '../store/store';
import type { LinkQuery } from '../store/links';
import type { LinkRow } from '../links/match';
import { KEY_NODE_PREFIXES } from '../links/match';
import { normalisePath } from '../links/paths';
import { RECOGNISED, RECOGNISED_IDS } from '../links/rules';
import { LINK_KINDS, type LinkKind } from '../links/types';

export { RECOGNISED, RECOGNISED_IDS, LINK_KINDS, type LinkKind, type LinkRow };

const KIND_OF_PREFIX: Record<string, LinkKind> = { route: 'http', env: 'env', config: 'config', table: 'sql', topic: 'topic', flag: 'flag' };

/** `route:GET /users/{id}` → its kind and a test of stored keys; null when the argument is not a key node. */
export function parseKeyNode(symbol: string): { kind: LinkKind; test: (key: string) => boolean } | null {
  const m = /^([a-z]+):(.+)$/s.exec(symbol.trim());
  if (!m || !KEY_NODE_PREFIXES.includes(m[1]!)) return null;
  const kind = KIND_OF_PREFIX[m[1]!]!; const v = m[2]!.trim();
  if (kind === 'http') {
    const sp = v.indexOf(' ');
    const method = sp > 0 && /^[A-Za-z*]+$/.test(v.slice(0, sp)) ? v.slice(0, sp).toUpperCase() : '*';
    const p = normalisePath(sp > 0 ? v.slice(sp + 1) : v, true)?.key;
    return { kind, test: key => { const i = key.indexOf(' '); const km = key.slice(0, i); const kp = normalisePath(key.slice(i + 1), true)?.key;
      return kp === p && (method === '*' || km === '*' || km === method); } };
  }
  if (kind === 'sql' || kind === 'config') return { kind, test: key => key.toLowerCase() === v.toLowerCase() };
  return { kind, test: key => key === v };
}

export class LinkReader {
  constructor(private readonly store: Store) {}
  /** Stored links matching the query, strongest first; `keyNode` narrows to one key node. */
  query(q: LinkQuery & { keyNode?: string }): LinkRow[] {
    const { keyNode, ...rest } = q;
    if (!keyNode) return this.store.links.links(rest);
    const k = parseKeyNode(keyNode);
    if (!k) return [];
    return this.store.links.links({ ...rest, kind: k.kind }).filter(l => k.test(l.key));
  }
  /** How many links and sites there are (an empty index says so). */
  count(): number { return this.store.links.linkCount(); }
}
