import { basename } from 'node:path';
import { sha1 } from './hash';

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
