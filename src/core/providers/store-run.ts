/**
 * Storing one reference provider's run: its edges resolved against the indexed symbols it was given,
 * replacing that provider's edges of the repository, and for a compiler-grade provider a check per
 * symbol with the file hash it analysed (a later edit of the file makes the check stale, and answers
 * on its symbols say so). Shared by the index run's providers phase and the background runs of the
 * bundled providers (surface/compiler-edges.ts).
 */
import { SightlineError } from '../errors';
import type { Store } from '../store/store';
import type { ProviderInputChunk, ProviderInputSymbol } from '../store/files';
import { resolveEndpoints, type ProviderDiagnostic, type ProviderRunResult } from './external';
import type { ProviderSpec } from './protocol';

/**
 * What a provider is given: the indexed symbols and chunks of its languages in one repository, and for
 * an incremental run the symbols whose references it is asked (`query`; absent: all).
 */
export interface ProviderSnapshot { repo_id: string; root: string; symbols: ProviderInputSymbol[]; chunks: ProviderInputChunk[]; query?: string[] }

export interface StoredRun { edges: number; skipped_edges: number; invalid_edges: number; diagnostics: ProviderDiagnostic[] }

/** The store's provider input of a repository, restricted to the spec's languages (all when none). */
export function snapshotFor(store: Store, repoId: string, root: string, languages: readonly string[]): ProviderSnapshot {
  const input = store.files.providerInput(repoId);
  if (!languages.length) return { repo_id: repoId, root, ...input };
  const mine = (x: { language: string }) => languages.includes(x.language);
  return { repo_id: repoId, root, symbols: input.symbols.filter(mine), chunks: input.chunks.filter(mine) };
}

/** The protocol input of a snapshot. */
export function inputOf(spec: ProviderSpec, snap: ProviderSnapshot) {
  return { protocol_version: 1 as const, repo: snap.root, repo_id: snap.repo_id, provider: spec.name, compiler_grade: spec.compiler_grade,
    symbols: snap.symbols.map(({ file_id: _f, hash: _h, ...s }) => s), chunks: snap.chunks, ...(snap.query ? { query_ids: snap.query } : {}) };
}

/** Stores a successful run (strict: an unresolvable endpoint throws and nothing is stored). */
export function storeProviderRun(store: Store, spec: ProviderSpec, snap: ProviderSnapshot, res: Extract<ProviderRunResult, { ok: true }>): StoredRun {
  const resolved = resolveEndpoints(res.output.edges, snap.symbols, { strict: spec.strict, repo: snap.root });
  if (resolved.failed) {
    const bad = resolved.unresolved;
    const message = `reference provider ${spec.name} (strict) emitted ${bad.length} edge(s) with unknown or ambiguous endpoints, e.g. ${bad[0]?.reason}`;
    throw new SightlineError('provider_failed', message, { provider: spec.name, unresolved: bad.slice(0, 20) });
  }
  const fileOf = new Map(snap.symbols.map(s => [s.id, s]));
  const asked = snap.query ? new Set(snap.query) : null;
  store.transaction(() => {
    // a whole run replaces the provider's edges; an incremental one the edges into the symbols it asked
    if (asked) store.providerEdges.removeProviderEdges(spec.name, [...asked]);
    else store.providerEdges.removeProviderEdgesOf(spec.name, snap.repo_id);
    store.providerEdges.addProviderEdges(resolved.resolved.map(e => ({ ...e, provider: spec.name, file_id: fileOf.get(e.from_id)?.file_id ?? null })));
    if (spec.compiler_grade) {
      // A compiler-grade provider analysed the repository: each symbol it was asked about has been checked.
      const checkedAt = Date.now();
      for (const s of snap.symbols) {
        if (asked && !asked.has(s.id)) continue;
        store.providerEdges.setProviderCheck({ symbol_id: s.id, provider: spec.name, file_hash: s.hash, checked_at: checkedAt, results: 0, complete: 1 });
      }
    }
  });
  const note = (message: string) => ({ provider: spec.name, message });
  const diagnostics = [...res.provider_diagnostics,
    ...res.output.invalid_edges.slice(0, 20).map(e => note(`edge ${e.index} rejected: ${e.reason}`)),
    ...resolved.unresolved.slice(0, 20).map(e => note(`edge ${e.index} skipped: ${e.reason}`))];
  return { edges: resolved.resolved.length, skipped_edges: resolved.unresolved.length, invalid_edges: res.output.invalid_edges.length, diagnostics };
}
