/**
 * Trust for repository-declared adapters: a repository's `.sightline/config.toml` may run programs and
 * send requests on the user's behalf, so its adapters never run until the user trusts them.
 *
 * Rules:
 * - Trusting pins, per repository root, the sha256 of the canonical JSON (keys sorted at every level, no
 *   whitespace) of that file's `[adapters]` table, in a durable document of the user's
 *   (durable/store.ts: user data, never the index cache; default `durablePath(roots, 'adapters-trust')`).
 * - Any change to those tables (a field, an added or removed adapter) changes the hash: every adapter of
 *   that repository is untrusted again until trusted anew. Other tables of the file do not count.
 * - `workspace_trusted: false` (the editor's untrusted workspace) makes every adapter that a repository
 *   layer touched inactive, pinned or not.
 * - Adapters only from built-in defaults, the user's file or the editor's settings need no trust.
 * - A trust document that cannot be read (corrupt) trusts nothing; it is never overwritten silently
 *   (DurableCorruptError from the store surfaces on `trust()`).
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { durablePath, JsonDocument, type DurablePort } from '../durable/store';

export interface TrustPin { sha256: string; trusted_at: string; adapters: string[] }
export interface TrustDocument { version: 1; repos: Record<string, TrustPin> }

export const emptyTrust = (): TrustDocument => ({ version: 1, repos: {} });

export function trustDocument(roots: readonly string[]): DurablePort<TrustDocument> {
  return new JsonDocument<TrustDocument>(durablePath(roots, 'adapters-trust'), emptyTrust);
}

/** JSON with object keys sorted at every level (TOML dates as ISO strings). */
export function canonicalJson(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (v instanceof Date) return JSON.stringify(v.toISOString());
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (typeof v === 'object') {
    return `{${Object.keys(v as object).sort().map(k => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  if (typeof v === 'bigint') return v.toString();
  return JSON.stringify(v);
}

export function adaptersHash(adapters: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson(adapters)).digest('hex');
}

export type TrustState = 'trusted' | 'untrusted' | 'changed' | 'workspace_untrusted';

export class TrustStore {
  constructor(private readonly doc: DurablePort<TrustDocument>) {}

  private read(): TrustDocument {
    try { const d = this.doc.read(); return d && typeof d === 'object' && d.repos ? d : emptyTrust(); } catch { return emptyTrust(); }
  }

  /** Whether a repository's adapters table (as read now) is trusted. */
  state(root: string, adapters: Record<string, unknown> | undefined, workspaceTrusted: boolean): TrustState {
    if (!workspaceTrusted) return 'workspace_untrusted';
    if (!adapters) return 'untrusted';
    const pin = this.read().repos[resolve(root)];
    if (!pin) return 'untrusted';
    return pin.sha256 === adaptersHash(adapters) ? 'trusted' : 'changed';
  }

  pin(root: string, adapters: Record<string, unknown>, now = new Date()): TrustPin {
    const p: TrustPin = { sha256: adaptersHash(adapters), trusted_at: now.toISOString(), adapters: Object.keys(adapters).sort() };
    this.doc.update(d => ({ version: 1, repos: { ...(d?.repos ?? {}), [resolve(root)]: p } }));
    return p;
  }

  unpin(root: string): boolean {
    let had = false;
    this.doc.update(d => {
      const repos = { ...(d?.repos ?? {}) };
      had = resolve(root) in repos;
      delete repos[resolve(root)];
      return { version: 1, repos };
    });
    return had;
  }

  get path(): string { return this.doc.path; }
}

export interface TrustSummary { root: string; path: string; adapters: string[]; runs: string[] }

/** Per repository file with adapters: their names and what trusting them lets run (commands) or call (endpoints). */
export function trustSummaries(files: readonly { root: string; path: string; adapters?: Record<string, unknown> }[]): TrustSummary[] {
  return files.filter(f => f.adapters && Object.keys(f.adapters).length).map(f => {
    const runs: string[] = [];
    for (const [name, raw] of Object.entries(f.adapters!)) {
      const a = raw as { command?: unknown; url?: unknown; base_url?: unknown; ops?: Record<string, { command?: unknown; url?: unknown }> };
      if (Array.isArray(a.command)) runs.push(`${name}: runs ${a.command.join(' ')}`);
      for (const u of [a.url, a.base_url]) if (typeof u === 'string') runs.push(`${name}: calls ${u}`);
      for (const [op, o] of Object.entries(a.ops ?? {})) {
        if (Array.isArray(o?.command)) runs.push(`${name}.${op}: runs ${o.command.join(' ')}`);
        if (typeof o?.url === 'string') runs.push(`${name}.${op}: calls ${o.url}`);
      }
    }
    return { root: f.root, path: f.path, adapters: Object.keys(f.adapters!), runs };
  });
}
