/**
 * The engine: the composition root of one workspace (one or more roots, each a repository with a
 * stable repo_id), one index file, one writer at a time. It wires the parts and owns no feature:
 *
 *   workspace.ts          roots and how `repo`/path arguments name them
 *   indexfile.ts          the index file: open, stamp/reload, writer lock, atomic save
 *   pipeline/             indexing as declared phases (scan, graph, providers, save) and their runner
 *   services/             what tools read: search and chunks, status, freshness, editor edges, memories
 *   adapters/             the team's other context sources (started on first use)
 *
 * Every surface (extension, MCP, CLI, tests) talks to it through the tool registry; tools see only
 * `ToolServices` (tools/services.ts), which this class implements.
 */
import { resolve } from 'node:path';
import { cpus } from 'node:os';
import { IndexFile } from './indexfile';
import { Workspace, type Root } from './workspace';
import { resolveSettings, defaultDbPath, cacheDir, type IndexSettings, type EngineOptions } from './settings';
import { isInside } from './util/contained';
import { runIndex, type IndexReport, type IndexRequest } from './pipeline';
import { GraphTablesCache } from './pipeline/phases/graph';
import { ReadService, WARM_QUERY, type ChunkText, type SearchRequest } from './services/reads';
import { SimilarService, type SimilarRequest, type SimilarResult } from './services/similar';
import { StatusService, type StatusReport } from './services/status';
import { FreshnessService, type ChangedSinceIndex } from './services/freshness';
import { EditorEdgesService, type EditorSymbol } from './services/editor';
import { GraphReader } from './graph/query';
import { HistoryReader } from './services/history';
import { LinkReader } from './services/links';
import { AnalyticsSource } from './services/analytics';
import { MemoryService } from './services/memories';
import { OverviewService, type OverviewData, type OverviewRequest } from './services/overview';
import type { MemoryRecord } from './services/memories';
import type { EditorLocation, EnrichmentTarget } from './graph/enrich';
import type { Diagnostic } from './store/store';
import type { ToolServices } from './tools/services';
import type { CodeSearchPage, SearchPage } from './search/search';
import type { AdapterService } from './adapters/service';
import { LiveIndex } from './services/live';
import { exportArtifact, relocateArtifact } from './services/portable';

export type { IndexProgress, IndexReport, RepoRunReport, ProviderRunReport } from './pipeline';
export type { Root } from './workspace';
export type { EngineOptions } from './settings';
export type { StatusReport } from './services/status';
export type { ChangedSinceIndex } from './services/freshness';

export class Engine implements ToolServices {
  readonly roots: Root[];
  readonly dbPath: string;
  readonly settings: IndexSettings;
  private readonly graphTables = new GraphTablesCache();
  private readonly reads: ReadService;
  private readonly similarity: SimilarService;
  private readonly statusService: StatusService;
  private readonly freshness: FreshnessService;
  readonly edges: EditorEdgesService; // edges recorded outside index runs: the editor's, background providers'
  /** project memories (durable documents, outside the index) */
  readonly memories: MemoryService;
  private readonly overviews: OverviewService;
  private adapterService: Promise<AdapterService> | undefined;
  readonly live: LiveIndex; // changed files applied as they come (a watcher, the editor); answers wait: `live.settle()`

  private constructor(private readonly opts: EngineOptions, private readonly workspace: Workspace, private readonly file: IndexFile) {
    this.roots = workspace.roots;
    this.dbPath = file.dbPath;
    this.settings = resolveSettings(opts.settings);
    this.reads = new ReadService(file, workspace, this.settings);
    this.similarity = new SimilarService(file, workspace, this.settings);
    this.statusService = new StatusService(file, workspace);
    this.freshness = new FreshnessService(file, workspace, this.settings);
    this.edges = new EditorEdgesService(file, workspace);
    this.memories = new MemoryService(workspace.roots, async () => { await file.refresh(); return file.store; },
      { export: opts.memoriesExport ?? [], log: (level, msg) => opts.log?.(level, msg), onEvent: (event, m) => this.memoryEvent(event, m) });
    this.overviews = new OverviewService({ file, workspace, settings: this.settings, graph: () => this.graph(), search: q => this.search(q), staleFiles: repoId => this.freshness.staleIndexedFiles(repoId) });
    this.live = new LiveIndex({ roots: workspace.roots, excludes: this.settings.excludes, index: r => this.runIndex(r), store: () => file.store, graphTables: this.graphTables, log: (l, m) => opts.log?.(l, m), warmSearch: () => this.reads.search(WARM_QUERY) });
    // a reload replaces the store: what was derived from the old one goes
    file.onLoad(() => { this.reads.invalidate(); this.graphTables.clear(); this.overviews.invalidate(); });
  }


  static async open(opts: EngineOptions): Promise<Engine> {
    // no roots but an index file (`--db FILE` alone): the roots it records, read from the one load of it
    const named = opts.roots.length || !opts.dbPath ? new Workspace(opts.roots) : null;
    const dbPath = resolve(opts.dbPath ?? defaultDbPath(named!.roots.map(r => r.root)));
    const inCache = !opts.dbPath || isInside(resolve(cacheDir()), dbPath);
    const log = (level: 'info' | 'warn' | 'error', msg: string) => opts.log?.(level, msg);
    const file = await IndexFile.open(dbPath, inCache, log);
    return new Engine(opts, named ?? new Workspace(file.recordedRoots(opts.fallbackRoots ?? [])), file);
  }

  /** set when an index file of another schema version (or a corrupt one in the cache) was found and set aside */ get rebuiltFromScratch(): boolean { return this.file.rebuiltFromScratch; }

  /** Readers pick up an index file that another process wrote since we loaded ours. */
  refresh(): Promise<void> { return this.file.refresh(); }

  resolveRepo(repo: string | undefined): Root | undefined { return this.workspace.resolveRepo(repo); }
  repoFilter(repo?: string): string | undefined { return this.workspace.repoFilter(repo); }
  relativeToRoot(path: string): { root: Root; rel: string } { return this.workspace.relativeToRoot(path); }

  // ---- indexing --------------------------------------------------------------------------------
  /** An index run, after the runs queued before it in this engine (a watcher's, the editor's, a tool's). */
  index(opts: IndexRequest = {}): Promise<IndexReport> { return this.live.exclusive(() => this.runIndex(opts)); }
  private runIndex(opts: IndexRequest): Promise<IndexReport> {
    return runIndex({
      workspace: this.workspace, file: this.file, settings: this.settings, graphTables: this.graphTables,
      threads: this.opts.threads ?? Math.max(1, Math.min(4, cpus().length)), allowReferenceProviders: !!this.opts.allowReferenceProviders,
      publishRun: r => this.statusService.publishRun(r), invalidateReads: ids => this.reads.invalidate(ids),
      log: (level, msg) => this.opts.log?.(level, msg), memories: this.memories,
    }, opts);
  }

  // ---- reads -----------------------------------------------------------------------------------
  search(q: SearchRequest): Promise<CodeSearchPage> { return this.reads.search(q); }
  vectorSearch(q: { query: string; limit: number; offset: number; repo?: string; language?: string }): Promise<SearchPage> { return this.reads.vectorSearch(q); }
  getChunkRow(id: string) { return this.reads.getChunkRow(id); }
  similar(q: SimilarRequest): Promise<SimilarResult> { return this.similarity.find(q); }
  getChunk(id: string): Promise<ChunkText> { return this.reads.getChunk(id); }
  status(): Promise<StatusReport> { return this.statusService.status(); }
  diagnostics(repoId?: string): Diagnostic[] { return this.statusService.diagnostics(repoId); }

  /** A reader over the current graph (heuristic edges plus every provider's edges). */
  async graph(): Promise<GraphReader> {
    await this.file.refresh();
    return new GraphReader(this.file.store, repoId => this.freshness.staleIndexedFiles(repoId), () => this.file.writing);
  }

  /** A reader over the stored git history. */
  async history(): Promise<HistoryReader> { await this.file.refresh(); return new HistoryReader(this.file.store); }

  /** A reader over the stored cross-boundary links. */
  async links(): Promise<LinkReader> { await this.file.refresh(); return new LinkReader(this.file.store); }
  /** Whole-repository reads for analytics. */
  async analytics(): Promise<AnalyticsSource> { await this.file.refresh(); return new AnalyticsSource(this.file.store, repoId => this.freshness.staleIndexedFiles(repoId)); }
  /** The repo map: modules, entry points, central symbols, test suites (ranks cached per index state). */
  overview(req: OverviewRequest): Promise<OverviewData> { return this.overviews.overview(req); }

  // ---- the index as a portable artifact (services/portable.ts): built once, adopted elsewhere, then indexed ----
  exportIndex() { return this.live.exclusive(async () => { await this.file.reloadIfChanged(); return exportArtifact(this.file.store.export(), this.roots); }); }
  importIndex(artifact: Uint8Array) { return this.live.exclusive(async () => { const { store, report } = await relocateArtifact(artifact, this.roots); this.file.adopt(store); return report; }); }

  staleIndexedFiles(repoId: string, budgetMs?: number, only?: readonly string[]) { return this.freshness.staleIndexedFiles(repoId, budgetMs, only); }
  changedSinceIndex(opts: { budgetMs?: number; sample?: number } = {}): Promise<ChangedSinceIndex> { return this.freshness.changedSinceIndex(opts); }

  // ---- editor edges ----------------------------------------------------------------------------
  recordEditorReferences(targetId: string, provider: string, locations: EditorLocation[], complete: boolean): Promise<{ stored: number; ignored: number }> {
    return this.edges.recordEditorReferences(targetId, provider, locations, complete);
  }
  enrichmentTargets(opts: { symbol?: string; path?: string; repo?: string; limit: number }): Promise<EnrichmentTarget[]> { return this.edges.enrichmentTargets(opts); }
  /** The innermost indexed definition around a line (the editor's "symbol at the cursor"). */
  symbolAt(path: string, line: number): Promise<EditorSymbol | null> { return this.edges.symbolAt(path, line); }
  /** The editor's buffers with unsaved changes (absolute paths); returns them as root-relative paths. */
  setUnsaved(paths: readonly string[]): string[] { return this.edges.setUnsaved(paths); }
  /** Unsaved buffers an answer names. */
  unsavedIn(data: unknown): string[] { return this.edges.unsavedIn(data); }

  /**
   * The adapters of this workspace, loaded on first use (the config is read then; `reload()` reads it again);
   * their code too, so a process that never asks for them never loads it (a one-shot CLI search).
   */
  adapters(): Promise<AdapterService> {
    return this.adapterService ??= this.startAdapters();
  }

  private startAdapters(): Promise<AdapterService> {
    const a = this.opts.adapters ?? {};
    // required here, not imported above: the bundle evaluates the module (and the MCP client it uses) on first use
    const { AdapterService: Service } = require('./adapters/service') as typeof import('./adapters/service');
    return Service.create({ roots: this.roots.map(r => r.root), settings: a.settings, workspaceTrusted: a.workspaceTrusted, userConfigPath: a.userConfigPath });
  }

  /** A memory added or promoted: the adapters subscribed to it get it through their durable outbox. */
  private readonly pendingEvents = new Set<Promise<unknown>>();
  private memoryEvent(event: 'capture' | 'promote', m: MemoryRecord): void {
    const p = this.adapters().then(a => a.emit(event, m)).catch(e => this.opts.log?.('warn', `adapters: ${event} event not queued: ${(e as Error).message}`));
    this.pendingEvents.add(p); void p.finally(() => this.pendingEvents.delete(p));
  }

  close(): void {
    void this.live.close();
    // queued events are written to the outbox before the adapters stop
    void Promise.allSettled([...this.pendingEvents]).then(() => this.adapterService?.then(a => a.dispose(), () => undefined));
    this.graphTables.clear();
    this.file.close();
  }
}
