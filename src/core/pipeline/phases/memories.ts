/**
 * Phase "memories": after the scan, the project memories of each repository whose files changed
 * (parsed, deleted, or a forced run) are reconciled against the files and the fresh symbols
 * (memories/model.ts `reconcile`): current, relocated, stale or gone. It writes only to the durable
 * memory documents (memories/service.ts), never to the index.
 */
import { phase } from '../runner';
import type { IndexEnv } from '../env';
import { scanPhase } from './scan';

export interface MemoriesPhaseOutput { reconciled: number; changed: number }

export const memoriesPhase = phase({
  name: 'memories', deps: [scanPhase],
  async run({ scan }, env: IndexEnv): Promise<MemoriesPhaseOutput> {
    const out: MemoriesPhaseOutput = { reconciled: 0, changed: 0 };
    if (!env.memories) return out;
    for (const { report } of scan.repos) {
      if (!report.forced && report.files_parsed === 0 && report.files_deleted === 0) continue;
      try {
        const { summary } = await env.memories.reconcileAll({ repo_id: report.repo_id, store: env.indexFile.store });
        out.reconciled += summary.checked; out.changed += summary.changed;
      } catch (e) {
        // a memory document that cannot be read or locked never fails indexing
        env.log('warn', `memories of ${report.repo_id} were not reconciled: ${(e as Error).message}`);
      }
    }
    return out;
  },
});
