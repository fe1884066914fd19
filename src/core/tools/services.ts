/**
 * What tools call: the read services (and index_repo's indexing run) a surface hands to
 * `invokeTool` as `ctx.engine`. The Engine implements it; a tool depends on this list, not on the
 * engine class, so a tool can be tested against any implementation and the engine can change shape.
 */
import type { IndexReport, IndexRequest } from '../pipeline';
import type { CodeSearchPage, SearchPage } from '../search/search';
import type { ChunkText, SearchRequest } from '../services/reads';
import type { StatusReport } from '../services/status';
import type { ChangedSinceIndex } from '../services/freshness';
import type { ChunkRow, Diagnostic } from '../store/store';
import type { GraphReader } from '../graph/query';
import type { Root } from '../workspace';
import type { HistoryReader } from '../services/history';
import type { MemoryService } from '../services/memories';
import type { LinkReader } from '../services/links';
import type { AnalyticsSource } from '../services/analytics';
import type { SimilarRequest, SimilarResult } from '../services/similar';
import type { OverviewData, OverviewRequest } from '../services/overview';
import type { AdapterService } from '../adapters/service';

export interface ToolServices {
  /** the workspace roots */
  readonly roots: readonly Root[];
  /** index_repo: one indexing run */
  index(opts: IndexRequest): Promise<IndexReport>;
  search(q: SearchRequest): Promise<CodeSearchPage>;
  vectorSearch(q: { query: string; limit: number; offset: number; repo?: string; language?: string }): Promise<SearchPage>;
  /** find_similar: chunks of the same shape as a symbol or snippet (services/similar.ts) */
  similar(q: SimilarRequest): Promise<SimilarResult>;
  /** the stored row of a chunk id (no file read) */
  getChunkRow(id: string): Promise<ChunkRow | undefined>;
  /** a chunk's source text, read from the file now */
  getChunk(id: string): Promise<ChunkText>;
  /** a reader over the current graph */
  graph(): Promise<GraphReader>;
  /** a reader over the stored git history */
  history(): Promise<HistoryReader>;
  /** a reader over the stored cross-boundary links */
  links(): Promise<LinkReader>;
  /** whole-repository reads for analytics (cycles, communities, dead code, hotspots) */
  analytics(): Promise<AnalyticsSource>;
  status(): Promise<StatusReport>;
  diagnostics(repoId?: string): Diagnostic[];
  changedSinceIndex(opts?: { budgetMs?: number; sample?: number }): Promise<ChangedSinceIndex>;
  /** whether changes reach the index as they happen (a watcher, the editor); not for a one-shot call */
  readonly live: { readonly followsChanges: boolean };
  /** indexed files of a repository changed on disk or gone (`only`: just these paths) */
  staleIndexedFiles(repoId: string, budgetMs?: number, only?: readonly string[]): { paths: string[]; complete: boolean };
  /** a `repo` argument as a repo_id filter (undefined: every repository) */
  repoFilter(repo?: string): string | undefined;
  /** a `repo` argument as its root (undefined when none is given; an unknown one is an error) */
  resolveRepo(repo: string | undefined): Root | undefined;
  /** a path argument as (root, path relative to it) */
  relativeToRoot(path: string): { root: Root; rel: string };
  /** the repo map (overview): modules, entry points, central symbols and test suites, ranked; unbudgeted lists */
  overview(req: OverviewRequest): Promise<OverviewData>;
  /** the team's other context sources (adapters/service.ts), loaded on first use */
  adapters(): Promise<AdapterService>;
  /** project memories: add, list (checked on read), update, delete, reconcile */
  readonly memories: Pick<MemoryService, 'add' | 'list' | 'update' | 'delete' | 'reconcileAll'>;
}
