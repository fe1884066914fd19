/**
 * The indexing pipeline: the declared phases in their order, the types derived from them (progress
 * stages, timing keys, run report) and the indexing service that runs them under the writer lock.
 *
 * Add a phase: a file in phases/ declaring `phase({ name, deps, run })`, a line in PIPELINE, and a line
 * in the phase table of ARCHITECTURE.md (test/architecture.test.ts compares the two).
 */
import { SightlineError } from '../errors';
import type { Diagnostic } from '../store/store';
import { providerSpecsSchema, type ProviderSpecInput } from '../providers/protocol';
import type { IndexFile } from '../indexfile';
import type { Workspace } from '../workspace';
import type { IndexSettings } from '../settings';
import { runPipeline, type StageOf } from './runner';
import type { IndexEnv } from './env';
import type { RepoRunReport } from './report';
import { scanPhase } from './phases/scan';
import { graphPhase, type GraphTablesCache } from './phases/graph';
import { providersPhase, type ProviderRunReport } from './phases/providers';
import { historyPhase } from './phases/history';
import { savePhase } from './phases/save';
import { memoriesPhase } from './phases/memories';
import { linksPhase } from './phases/links';
import type { MemoryService } from '../memories/service';

/** Every indexing phase, in declaration order (the runner orders them by their deps; ties keep this order). */
export const PIPELINE = [scanPhase, graphPhase, providersPhase, historyPhase, memoriesPhase, linksPhase, savePhase] as const;

/** The stages phases report progress and time for: walk, parse, write, graph, history, memories, links, save. */
export type IndexStage = StageOf<typeof PIPELINE>;
export interface IndexProgress { phase: IndexStage; repo_id: string; done: number; total: number }
export type IndexTimings = { [K in IndexStage as `${K}_ms`]: number } & { total_ms: number };
export type { RepoRunReport, ProviderRunReport };

export interface IndexReport {
  repos: RepoRunReport[];
  totals: { files_seen: number; files_parsed: number; files_unchanged: number; files_deleted: number; files_skipped: number };
  timings: IndexTimings;
  diagnostics: Diagnostic[];
  db_path: string;
  providers: ProviderRunReport[];
  provider_diagnostics: { provider: string; message: string }[];
}

export interface IndexRequest {
  repo?: string; force?: boolean; signal?: AbortSignal; onProgress?: (p: IndexProgress) => void; referenceProviders?: ProviderSpecInput[];
  /**
   * Only these files changed (absolute, or relative to the first root): they are looked at instead of
   * walking the roots (a root never indexed, or one whose last run stopped early, is walked anyway).
   */
  paths?: readonly string[];
  /** Save this many milliseconds after the run instead of at its end (a burst of edits saves once); the writer lock is held until then. */
  deferSaveMs?: number;
}

export interface IndexingDeps {
  workspace: Workspace;
  file: IndexFile;
  settings: IndexSettings;
  threads: number;
  allowReferenceProviders: boolean;
  graphTables: GraphTablesCache;
  publishRun: (r: RepoRunReport) => void;
  invalidateReads: (fileIds?: readonly number[]) => void;
  log: (level: 'info' | 'warn' | 'error', message: string) => void;
  memories?: Pick<MemoryService, 'reconcileAll'>;
}

/** One indexing run: checks the request, takes the writer lock, runs the pipeline, reports. */
export async function runIndex(d: IndexingDeps, opts: IndexRequest = {}): Promise<IndexReport> {
  const target = d.workspace.resolveRepo(opts.repo);
  const specs = opts.referenceProviders ?? [];
  if (specs.length && !d.allowReferenceProviders) {
    throw new SightlineError('providers_not_allowed', 'running external reference providers is disabled: start the MCP server or CLI with --allow-reference-providers (in VS Code: a trusted workspace and the setting sightline.providers.allowExternal)');
  }
  const parsedSpecs = providerSpecsSchema.safeParse(specs);
  if (!parsedSpecs.success) throw new SightlineError('invalid_arguments', `invalid reference_providers: ${parsedSpecs.error.issues.map(i => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  let roots = target ? [target] : d.workspace.roots;
  let paths: Map<string, string[]> | undefined;
  if (opts.paths) {
    paths = new Map();
    for (const p of opts.paths) {
      const { root, rel } = d.workspace.changedPath(p);
      if (!rel || rel === '..' || rel.startsWith('../')) continue;
      if (!paths.has(root.repo_id)) paths.set(root.repo_id, []);
      paths.get(root.repo_id)!.push(rel);
    }
    roots = roots.filter(r => paths!.has(r.repo_id));
    if (!roots.length) return emptyReport(d.file.dbPath);
  }
  // A save still pending (deferred, or of language-server edges) stays pending: this run's save covers
  // it, and the lock is already ours. Otherwise the lock is taken now.
  if (!d.file.cancelScheduledSave()) d.file.acquireLock();
  d.file.writing = true;
  const t0 = performance.now();
  let result: Awaited<ReturnType<typeof runPipeline<typeof PIPELINE, IndexEnv>>>;
  const openProblem = d.file.openProblem;
  try {
    // Another writer may have saved since we loaded: start from its file, not ours.
    await d.file.reloadIfChanged();
    const env: IndexEnv = {
      indexFile: d.file, roots, force: !!opts.force, paths, deferSaveMs: opts.deferSaveMs, settings: d.settings, threads: d.threads, signal: opts.signal, providers: parsedSpecs.data,
      graphTables: d.graphTables, publishRun: d.publishRun, invalidateReads: d.invalidateReads, log: d.log, memories: d.memories,
    };
    result = await runPipeline(PIPELINE, env, { onProgress: opts.onProgress });
  } finally {
    d.file.writing = false;
    if (!d.file.savePending) d.file.releaseLock();
  }
  const { outputs, timings: stages } = result;
  const timings = {} as Record<string, number>;
  for (const [stage, ms] of Object.entries(stages)) timings[`${stage}_ms`] = Math.round(ms);
  timings.total_ms = Math.round(performance.now() - t0);
  const reports = outputs.scan.repos.map(r => r.report);
  const totals = { files_seen: 0, files_parsed: 0, files_unchanged: 0, files_deleted: 0, files_skipped: 0 };
  for (const r of reports) for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += r[k];
  return {
    repos: reports, totals, timings: timings as IndexTimings, diagnostics: [...(openProblem ? [openProblem] : []), ...outputs.scan.diagnostics],
    db_path: d.file.dbPath, providers: outputs.providers.reports, provider_diagnostics: outputs.providers.diagnostics,
  };
}

function emptyReport(dbPath: string): IndexReport {
  const timings = Object.fromEntries([...PIPELINE.flatMap(p => (p.timedByRunner ? [p.name] : [...p.stages])), 'total'].map(k => [`${k}_ms`, 0])) as IndexTimings;
  return { repos: [], totals: { files_seen: 0, files_parsed: 0, files_unchanged: 0, files_deleted: 0, files_skipped: 0 }, timings, diagnostics: [], db_path: dbPath, providers: [], provider_diagnostics: [] };
}
