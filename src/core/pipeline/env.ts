/** What every indexing phase may use: the run's environment, handed out by the indexing service. */
import type { Store, Diagnostic } from '../store/store';
import type { IndexSettings } from '../settings';
import type { ProviderSpec } from '../providers/protocol';
import type { Root } from '../workspace';
import type { GraphTablesCache } from './phases/graph';
import type { MemoryService } from '../memories/service';

/** The index file as phases see it: whether it differs from disk, and saving it (the writer holds the lock). */
export interface IndexFilePort {
  readonly store: Store;
  /** the in-memory index now differs from the file on disk */
  markUnsaved(): void;
  readonly unsaved: boolean;
  /** writes the index file atomically (checks the lock is still held); `collect`: a full garbage collection
   * first (after a run that wrote a large share of the index) */
  save(opts?: { collect?: boolean }): void;
  /** saves `delayMs` after the last call, holding the writer lock until then */
  scheduleSave(delayMs: number): void;
  /** a problem found when the file was opened (reported until the next save) */
  readonly openProblem: Diagnostic | null;
}

export interface IndexEnv {
  readonly indexFile: IndexFilePort;
  /** the roots this run indexes (one, or all of the workspace) */
  readonly roots: readonly Root[];
  readonly force: boolean;
  /**
   * Only these root-relative paths changed, per repository (a watcher's or the editor's events): the scan
   * looks at them instead of walking. Absent: walk every root of the run.
   */
  readonly paths?: ReadonlyMap<string, readonly string[]>;
  /** save this long after the run instead of now (the writer lock stays held until the save) */
  readonly deferSaveMs?: number;
  readonly settings: IndexSettings;
  /** parser threads (0: on the calling thread) */
  readonly threads: number;
  readonly signal?: AbortSignal;
  readonly providers: readonly ProviderSpec[];
  /** the resolver's tables of the last partial graph update, kept between runs */
  readonly graphTables: GraphTablesCache;
  /** the last run's report per repository is published here as soon as it is known (index_status) */
  readonly publishRun: (report: import('./report').RepoRunReport) => void;
  /** What search keeps of the index is stale: for the given files only (their rows were written or deleted), or all of it. */
  readonly invalidateReads: (fileIds?: readonly number[]) => void;
  readonly log: (level: 'info' | 'warn' | 'error', message: string) => void;
  /** project memories, reconciled by phase `memories` (absent: not reconciled) */
  readonly memories?: Pick<MemoryService, 'reconcileAll'>;
}
