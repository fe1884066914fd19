/**
 * Public ids, built and parsed here only (SQL included: the store asks this module for the expressions
 * that rebuild them, since ids are derived, never stored — see schema.ts).
 *
 *   chunk:<repo_id>:<path>:<key>            key = symbol_path, `<symbol_path>#N`, or `<top>#N`
 *   symbol:<repo_id>:<path>:<symbol_path>
 *   file:<repo_id>:<path>
 *
 * repo_id never contains ':'; a path or key may, so parsing yields every (path, key) split to try.
 */
import { basename } from 'node:path';
import { sha1 } from './hash';

export type IdType = 'chunk' | 'symbol' | 'file';

/** A stable repository id: readable base name plus a short hash of the absolute root. */
export function repoIdFor(root: string): string {
  const base = basename(root).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'repo';
  return `${base}-${sha1(root).slice(0, 8)}`;
}

export function chunkId(repoId: string, path: string, symbolPath: string): string {
  return `chunk:${repoId}:${path}:${symbolPath}`;
}

export function symbolId(repoId: string, path: string, symbolPath: string): string {
  return `symbol:${repoId}:${path}:${symbolPath}`;
}

export function fileNodeId(repoId: string, path: string): string {
  return `file:${repoId}:${path}`;
}

/** `<type>:<repo_id>:<rest>` → its parts; `rest` is `<path>` (file) or `<path>:<key>` (chunk, symbol). */
export function parseId(id: string): { type: IdType; repo_id: string; rest: string } | null {
  const m = /^(chunk|symbol|file):([^:]+):(.+)$/.exec(id);
  return m ? { type: m[1] as IdType, repo_id: m[2]!, rest: m[3]! } : null;
}

/** Whether an argument is written as an id of this type (its prefix; it may still name nothing). */
export const hasIdPrefix = (id: string, type: IdType): boolean => id.startsWith(`${type}:`);

/** Every way `<path>:<key>` can split at a ':' (path first, shortest path first). */
export function* pathKeySplits(rest: string): Generator<{ path: string; key: string }> {
  for (let i = rest.indexOf(':'); i > 0; i = rest.indexOf(':', i + 1)) yield { path: rest.slice(0, i), key: rest.slice(i + 1) };
}

/** A definition's (first) chunk has the same `<repo>:<path>:<symbol_path>` as its symbol id. */
export function chunkIdOfSymbolId(id: string): string {
  const p = parseId(id);
  return p?.type === 'symbol' ? `chunk:${p.repo_id}:${p.rest}` : id;
}

/** The repository and qualified name a node id spells, given the node's path (a path may hold ':'). */
export function nodeIdParts(id: string, path: string): { repo_id: string; symbol_path: string | null } | null {
  const p = parseId(id);
  if (!p || p.type === 'chunk') return null;
  return { repo_id: p.repo_id, symbol_path: p.type === 'symbol' ? p.rest.slice(path.length + 1) : null };
}

/**
 * The node a chunk id belongs to, so a chunk id is accepted wherever a symbol is asked for: a
 * definition's chunk (or a later part of it, `#N`) names the definition, a top-level chunk its file.
 * Any other id is returned as is.
 */
export function nodeIdOfChunkId(id: string): string {
  const p = parseId(id);
  if (p?.type !== 'chunk') return id;
  const top = /:<top>(#\d+)?$/.exec(p.rest);
  return top ? fileNodeId(p.repo_id, p.rest.slice(0, top.index)) : `symbol:${p.repo_id}:${p.rest.replace(/#\d+$/, '')}`;
}

/** The LIKE pattern of every symbol id of a repository (or of one file, with `path`). */
export function symbolIdLike(repoId: string, path?: string): string {
  return path === undefined ? `symbol:${repoId}:%` : `symbol:${repoId}:${path}:%`;
}

/** SQL expressions that rebuild ids from columns (`repo`, `path`, `key` are SQL column expressions). */
export const sqlId = {
  chunk: (repo: string, path: string, key: string) => `'chunk:' || ${repo} || ':' || ${path} || ':' || ${key}`,
  symbol: (repo: string, path: string, symbolPath: string) => `'symbol:' || ${repo} || ':' || ${path} || ':' || ${symbolPath}`,
  /** LIKE pattern of the symbol ids of one file */
  symbolLike: (repo: string, path: string) => `'symbol:' || ${repo} || ':' || ${path} || ':%'`,
};
