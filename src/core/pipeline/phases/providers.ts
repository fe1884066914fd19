/**
 * Phase "providers": the external reference providers named in index_repo's arguments run on each
 * indexed root, after the graph (declaration order; they read only the scan's symbols and chunks), and
 * their edges go to the provider-edge store under their own name. Not timed as a stage: each run's
 * time is in its report (`providers[].duration_ms`).
 */
import { SightlineError } from '../../errors';
import { runProvider } from '../../providers/external';
import { inputOf, snapshotFor, storeProviderRun } from '../../providers/store-run';
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
  const report: ProviderRunReport = { name: spec.name, repo_id: r.repo_id, ok: false, edges: 0, skipped_edges: 0, invalid_edges: 0, duration_ms: 0, error: null };
  const snap = snapshotFor(store, r.repo_id, r.root, spec.languages);
  if (!providerApplies(spec, new Set(snap.symbols.map(s => s.language)))) {
    Object.assign(report, { ok: true, error: `skipped: no indexed ${spec.languages.join('/')} code` });
    return { report, diagnostics: [] };
  }
  const res = await runProvider(spec, inputOf(spec, snap), { cwd: r.root, signal });
  report.duration_ms = Math.round(res.duration_ms);
  if (!res.ok) {
    report.error = `${res.error.code}: ${res.error.message}`;
    if (spec.strict) throw new SightlineError('provider_failed', `reference provider ${spec.name} failed (${res.error.code}): ${res.error.message}`, { provider: spec.name, stderr_tail: res.stderr_tail });
    return { report, diagnostics: [{ provider: spec.name, message: report.error }] };
  }
  const stored = storeProviderRun(store, spec, snap, res);
  env.indexFile.markUnsaved();
  Object.assign(report, { ok: true, edges: stored.edges, skipped_edges: stored.skipped_edges, invalid_edges: stored.invalid_edges });
  return { report, diagnostics: stored.diagnostics };
}
