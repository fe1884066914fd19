/**
 * Phase "providers": the external reference providers named in index_repo's arguments run on each
 * indexed root, after the graph (declaration order; they read only the scan's symbols and chunks), and
 * their edges go to the provider-edge store under their own name. Not timed as a stage: each run's
 * time is in its report (`providers[].duration_ms`).
 */
import { SightlineError } from '../../errors';
import { runProvider, resolveEndpoints } from '../../providers/external';
import { providerApplies, type ProviderSpec } from '../../providers/protocol';
import type { Root } from '../../workspace';
import { phase } from '../runner';
import type { IndexEnv } from '../env';
import { scanPhase } from './scan';

export interface ProviderRunReport {
  name: string; repo_id: string; ok: boolean; edges: number; skipped_edges: number; invalid_edges: number; duration_ms: number; error: string | null;
}
export interface ProvidersOutput { reports: ProviderRunReport[]; diagnostics: { provider: string; message: string }[] }

export const providersPhase = phase({
  name: 'providers', deps: [scanPhase], stages: [],
  async run(_input, env: IndexEnv): Promise<ProvidersOutput> {
    const out: ProvidersOutput = { reports: [], diagnostics: [] };
    for (const r of env.roots) {
      for (const spec of env.providers) {
        const pr = await runReferenceProvider(env, r, spec, env.signal);
        out.reports.push(pr.report);
        out.diagnostics.push(...pr.diagnostics);
      }
    }
    return out;
  },
});

/**
 * Runs one external reference provider on a repository and stores its edges under its own name.
 * strict: an unresolvable endpoint or a failed run fails the whole index (nothing of it is saved).
 */
async function runReferenceProvider(env: IndexEnv, r: Root, spec: ProviderSpec, signal?: AbortSignal): Promise<{ report: ProviderRunReport; diagnostics: { provider: string; message: string }[] }> {
  const store = env.indexFile.store;
  const input = store.files.providerInput(r.repo_id);
  const report: ProviderRunReport = { name: spec.name, repo_id: r.repo_id, ok: false, edges: 0, skipped_edges: 0, invalid_edges: 0, duration_ms: 0, error: null };
  const languages = new Set(input.symbols.map(s => s.language));
  if (!providerApplies(spec, languages)) { report.ok = true; report.error = `skipped: no indexed ${spec.languages.join('/')} code`; return { report, diagnostics: [] }; }
  const symbols = spec.languages.length ? input.symbols.filter(s => (spec.languages as readonly string[]).includes(s.language)) : input.symbols;
  const chunks = spec.languages.length ? input.chunks.filter(c => (spec.languages as readonly string[]).includes(c.language)) : input.chunks;
  const res = await runProvider(spec, { protocol_version: 1, repo: r.root, repo_id: r.repo_id, provider: spec.name, compiler_grade: spec.compiler_grade,
    symbols: symbols.map(({ file_id: _f, hash: _h, ...s }) => s), chunks }, { cwd: r.root, signal });
  report.duration_ms = Math.round(res.duration_ms);
  if (!res.ok) {
    report.error = `${res.error.code}: ${res.error.message}`;
    if (spec.strict) throw new SightlineError('provider_failed', `reference provider ${spec.name} failed (${res.error.code}): ${res.error.message}`, { provider: spec.name, stderr_tail: res.stderr_tail });
    return { report, diagnostics: [{ provider: spec.name, message: report.error }] };
  }
  report.invalid_edges = res.output.invalid_edges.length;
  const resolved = resolveEndpoints(res.output.edges, symbols, { strict: spec.strict, repo: r.root });
  if (resolved.failed) {
    throw new SightlineError('provider_failed', `reference provider ${spec.name} (strict) emitted ${resolved.unresolved.length} edge(s) with unknown or ambiguous endpoints, e.g. ${resolved.unresolved[0]?.reason}`, { provider: spec.name, unresolved: resolved.unresolved.slice(0, 20) });
  }
  report.skipped_edges = resolved.unresolved.length;
  const fileOf = new Map(symbols.map(s => [s.id, s]));
  store.transaction(() => {
    store.providerEdges.removeProviderEdgesOf(spec.name, r.repo_id);
    store.providerEdges.addProviderEdges(resolved.resolved.map(e => ({ ...e, provider: spec.name, file_id: fileOf.get(e.from_id)?.file_id ?? null })));
    if (spec.compiler_grade) {
      // A compiler-grade provider analysed the whole repository: each of its symbols has been checked.
      for (const s of symbols) store.providerEdges.setProviderCheck({ symbol_id: s.id, provider: spec.name, file_hash: s.hash, checked_at: Date.now(), results: 0, complete: 1 });
    }
  });
  env.indexFile.markUnsaved();
  report.ok = true; report.edges = resolved.resolved.length;
  const diags = [...res.provider_diagnostics, ...res.output.invalid_edges.slice(0, 20).map(e => ({ provider: spec.name, message: `edge ${e.index} rejected: ${e.reason}` })),
    ...resolved.unresolved.slice(0, 20).map(e => ({ provider: spec.name, message: `edge ${e.index} skipped: ${e.reason}` }))];
  return { report, diagnostics: diags };
}
