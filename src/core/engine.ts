/**
 * The engine: one workspace (one or more roots, each a repository with a stable repo_id), one index
 * file, one writer at a time. Every surface (extension, MCP, CLI, tests) talks to this class through
 * the tool registry.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import { cpus } from 'node:os';
import { Store, type FileMeta, type Diagnostic, type IndexFileProblem } from './store/store';
import { atomicWrite, cleanLeftoverTemps, fileStamp, IndexLockedError, LockLostError, WriterLock, type LockHolder } from './store/persist';
import { SCHEMA_VERSION } from './store/schema';
import { walk, type WalkedFile } from './index/walker';
import { ParsePool } from './index/pool';
import type { FileOutcome, FileTask } from './index/process';
import { resolveSettings, defaultDbPath, cacheDir, type IndexSettings } from './settings';
import { repoIdFor } from './util/ids';
import { gitState } from './git';
import { SightlineError } from './errors';
import { isInside, readContainedSync } from './util/contained';
import { searchCode, vectorSearch, type SearchFilter, type SearchPage, type VectorIndex, type CodeSearchPage } from './search/search';
import { HASH_VECTOR_DIMS } from './search/hashvec';
import type { FileIndex } from './search/files';
import { sha1 } from './util/hash';
import { symbolId } from './util/ids';
import { resolveGraph, type GEdge, type GFile, type GraphOutput } from './graph/resolve';
import { GraphReader } from './graph/query';
import { recordLocations, enrichmentTargets, type EditorLocation, type EnrichmentTarget } from './graph/enrich';
import { runProvider, resolveEndpoints } from './providers/external';
import { providerApplies, providerSpecsSchema, type ProviderSpec, type ProviderSpecInput } from './providers/protocol';

export interface EngineOptions {
  roots: string[];
  /** Index file; defaults to a per-user cache folder keyed by the roots. */
  dbPath?: string;
  settings?: Partial<IndexSettings>;
  /** Parser threads; 0 parses on the calling thread. Default: number of cores, at most 4. */
  threads?: number;
  log?: (level: 'info' | 'warn' | 'error', message: string) => void;
  /**
   * Whether index_repo may run external reference providers (commands) named in its arguments. Off by
   * default: the CLI and MCP server enable it with --allow-reference-providers, the extension only in a
   * trusted workspace with sightline.providers.allowExternal.
   */
  allowReferenceProviders?: boolean;
}

export interface IndexProgress { phase: 'walk' | 'parse' | 'write' | 'graph' | 'save'; repo_id: string; done: number; total: number }

export interface RepoRunReport {
  repo_id: string; root: string; files_seen: number; files_parsed: number; files_unchanged: number; files_deleted: number;
  files_skipped: number; chunks_written: number; symbols_written: number; edges_written: number | null;
  /** how the heuristic graph was brought up to date: rebuilt, only the edited files' own edges, or kept */
  graph_update: 'full' | 'partial' | 'none'; duration_ms: number; forced: boolean;
}
export interface IndexReport {
  repos: RepoRunReport[];
  totals: { files_seen: number; files_parsed: number; files_unchanged: number; files_deleted: number; files_skipped: number };
  timings: { walk_ms: number; parse_ms: number; write_ms: number; graph_ms: number; save_ms: number; total_ms: number };
  diagnostics: Diagnostic[];
  db_path: string;
  providers: ProviderRunReport[];
  provider_diagnostics: { provider: string; message: string }[];
}

export interface ProviderRunReport {
  name: string; repo_id: string; ok: boolean; edges: number; skipped_edges: number; invalid_edges: number; duration_ms: number; error: string | null;
}

export interface Root { repo_id: string; root: string; name: string }

/** A full garbage collection, when the runtime allows one (V8: the gc function made available on demand). */
let gcFn: (() => void) | null | undefined;
function collectGarbage(): void {
  if (gcFn === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require('node:v8').setFlagsFromString('--expose-gc');
      gcFn = require('node:vm').runInNewContext('gc') as () => void; // eslint-disable-line @typescript-eslint/no-require-imports
    } catch { gcFn = null; }
  }
  gcFn?.();
}

/** The graph tables of the last partial update are dropped after this long without another one. */
const GRAPH_TABLES_IDLE_MS = 5 * 60_000;

/** Graph answers check the target repositories' indexed files for changes on disk for at most this long. */
const STALE_CHECK_BUDGET_MS = 150;
/** index_status walks the roots for changes since indexing for at most this long. */
const CHANGED_WALK_BUDGET_MS = 2000;

/** Language-server edges are saved this long after the last one arrives (they come in bursts). */
const RECORD_SAVE_DELAY_MS = 1500;

/** Diagnostics that come from parsing a file's content (the others come from the walk, every run). */
const PARSE_DIAGNOSTICS = new Set(['syntax_errors', 'invalid_utf8']);

export class Engine {
  private store!: Store;
  private stamp: string | null = null;
  private vectorCache: VectorIndex | null = null;
  private fileIndexCache: FileIndex | null = null;
  private readonly lock: WriterLock;
  private writing = false;
  /** true when the in-memory index differs from the file on disk */
  private unsaved = false;
  /** counters of the last run per repository, including runs that changed nothing (and saved nothing) */
  private readonly lastRuns = new Map<string, RepoRunReport>();
  private pendingSave: NodeJS.Timeout | undefined;
  /** per repository, the graph tables of its last partial update (see buildGraph), dropped when idle */
  private readonly graphTables = new Map<string, { store: Store; resume: NonNullable<GraphOutput['resume']> }>();
  private graphTablesTimer: NodeJS.Timeout | undefined;
  readonly roots: Root[];
  readonly dbPath: string;
  readonly settings: IndexSettings;
  /** set when an index file of another schema version (or a corrupt one in the cache) was found and set aside */
  rebuiltFromScratch = false;
  /** the index file is in Sightline's cache folder (a corrupt one is rebuilt there, refused elsewhere) */
  private readonly inCache: boolean;
  /** a corrupt index file in the cache, replaced by an empty index: reported until the next save */
  private openProblem: Diagnostic | null = null;

  private constructor(private readonly opts: EngineOptions) {
    if (!opts.roots.length) throw new SightlineError('invalid_arguments', 'at least one workspace root is required');
    this.roots = opts.roots.map(r => {
      const abs = resolve(r);
      if (!existsSync(abs) || !statSync(abs).isDirectory()) throw new SightlineError('not_found', `workspace root ${abs} is not a folder`);
      const real = realpathSync(abs);
      return { repo_id: repoIdFor(real), root: real, name: basename(real) };
    });
    this.dbPath = resolve(opts.dbPath ?? defaultDbPath(this.roots.map(r => r.root)));
    this.inCache = !opts.dbPath || isInside(resolve(cacheDir()), this.dbPath);
    this.settings = resolveSettings(opts.settings);
    this.lock = new WriterLock(`${this.dbPath}.lock`);
  }

  /** Roots recorded in an existing index file (lets `--db FILE` alone name a workspace). */
  static async rootsInDb(dbPath: string): Promise<string[]> {
    if (!existsSync(dbPath)) return [];
    const { store, problem } = await Store.open(dbPath);
    try {
      if (problem) throw corruptError(resolve(dbPath), problem);
      return store.repos().map(r => r.root).filter(r => existsSync(r));
    } finally { store.close(); }
  }

  static async open(opts: EngineOptions): Promise<Engine> {
    const e = new Engine(opts);
    await e.load();
    const removed = cleanLeftoverTemps(e.dbPath);
    if (removed.length) e.log('warn', `removed ${removed.length} temp file(s) left by an interrupted save: ${removed.join(', ')}`);
    return e;
  }

  private async load(): Promise<void> {
    const old = this.store;
    const stamp = fileStamp(this.dbPath);
    const { store, rebuilt, problem } = await Store.open(existsSync(this.dbPath) ? this.dbPath : null);
    if (problem) {
      // A file in Sightline's own cache is rebuilt (saying so); any other file is the user's: refused,
      // and left as it is (no lock, temp file or save is ever made beside it).
      if (!this.inCache) { store.close(); throw corruptError(this.dbPath, problem); }
      this.openProblem = { repo_id: '', path: this.dbPath, code: 'index_corrupt',
        message: `the index file was ${problem.kind === 'foreign' ? 'not a Sightline index' : 'corrupt'} (${problem.reason}); the index is empty until the next index run rebuilds it` };
      this.log('warn', this.openProblem.message);
    }
    this.store = store;
    this.stamp = stamp;
    this.rebuiltFromScratch = rebuilt;
    this.vectorCache = null; this.fileIndexCache = null;
    this.graphTables.clear();
    old?.close();
  }

  /** Readers pick up an index file that another process wrote since we loaded ours. */
  async refresh(): Promise<void> {
    if (this.writing) return;
    const now = fileStamp(this.dbPath);
    if (now !== this.stamp) await this.load();
  }

  private log(level: 'info' | 'warn' | 'error', msg: string): void { this.opts.log?.(level, msg); }

  /** Resolves a `repo` argument (repo_id, root path, or a path inside a root) to a root. */
  resolveRepo(repo: string | undefined): Root | undefined {
    if (repo === undefined || repo === '') return undefined;
    const byId = this.roots.find(r => r.repo_id === repo);
    if (byId) return byId;
    const abs = isAbsolute(repo) ? resolve(repo) : resolve(this.roots[0]!.root, repo);
    let real = abs;
    try { real = realpathSync(abs); } catch { /* may not exist */ }
    const root = this.roots.find(r => real === r.root || real.startsWith(r.root + sep));
    if (!root) throw new SightlineError('path_outside_workspace', `${repo} is neither a repo_id nor a path inside the workspace`, { roots: this.roots.map(r => r.root), repo_ids: this.roots.map(r => r.repo_id) });
    return root;
  }

  // ---- indexing --------------------------------------------------------------------------------
  async index(opts: { repo?: string; force?: boolean; signal?: AbortSignal; onProgress?: (p: IndexProgress) => void; referenceProviders?: ProviderSpecInput[] } = {}): Promise<IndexReport> {
    const target = this.resolveRepo(opts.repo);
    const specs = opts.referenceProviders ?? [];
    if (specs.length && !this.opts.allowReferenceProviders) {
      throw new SightlineError('providers_not_allowed', 'running external reference providers is disabled: start the MCP server or CLI with --allow-reference-providers (in VS Code: a trusted workspace and the setting sightline.providers.allowExternal)');
    }
    const parsedSpecs = providerSpecsSchema.safeParse(specs);
    if (!parsedSpecs.success) throw new SightlineError('invalid_arguments', `invalid reference_providers: ${parsedSpecs.error.issues.map(i => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    const roots = target ? [target] : this.roots;
    if (this.pendingSave) this.flushPendingSave(); // recorded language-server edges go to disk first
    this.acquireLock();
    this.writing = true;
    const t0 = performance.now();
    const timings = { walk_ms: 0, parse_ms: 0, write_ms: 0, graph_ms: 0, save_ms: 0, total_ms: 0 };
    const reports: RepoRunReport[] = [];
    const diagnostics: Diagnostic[] = [];
    const providerReports: ProviderRunReport[] = [];
    const providerDiagnostics: { provider: string; message: string }[] = [];
    if (this.openProblem) diagnostics.push(this.openProblem);
    const threads = this.opts.threads ?? Math.max(1, Math.min(4, cpus().length));
    const pool = new ParsePool(threads);
    try {
      // Another writer may have saved since we loaded: start from its file, not ours.
      if (fileStamp(this.dbPath) !== this.stamp) await this.load();
      // per repository, the files whose bodies alone changed (a partial graph update resolves them again)
      const edited = new Map<string, number[]>();
      for (const r of roots) {
        if (opts.signal?.aborted) throw new SightlineError('cancelled', 'indexing was cancelled');
        const run = await this.indexRoot(r, !!opts.force, pool, timings, diagnostics, opts.signal, opts.onProgress);
        reports.push(run.report);
        edited.set(r.repo_id, run.edited);
      }
      // Parsing is over: release the workers (and their parser memory) before the graph and the save.
      await pool.close();
      for (const rep of reports) {
        if (rep.graph_update === 'none') continue; // no file changed: the stored graph stands
        const tg = performance.now();
        opts.onProgress?.({ phase: 'graph', repo_id: rep.repo_id, done: 0, total: 1 });
        rep.edges_written = this.buildGraph(rep.repo_id, rep.graph_update === 'partial' ? edited.get(rep.repo_id) : undefined);
        timings.graph_ms += performance.now() - tg;
      }
      for (const r of roots) {
        for (const spec of parsedSpecs.data) {
          const pr = await this.runReferenceProvider(r, spec, opts.signal);
          providerReports.push(pr.report);
          providerDiagnostics.push(...pr.diagnostics);
        }
      }
      // Nothing changed (a restart over an unchanged tree): the file on disk is already this index.
      if (this.unsaved) {
        const ts = performance.now();
        opts.onProgress?.({ phase: 'save', repo_id: roots[0]!.repo_id, done: 0, total: 1 });
        this.save();
        timings.save_ms = performance.now() - ts;
      }
    } finally {
      await pool.close();
      this.writing = false;
      this.lock.release();
    }
    timings.total_ms = performance.now() - t0;
    for (const k of Object.keys(timings) as (keyof typeof timings)[]) timings[k] = Math.round(timings[k]);
    const totals = { files_seen: 0, files_parsed: 0, files_unchanged: 0, files_deleted: 0, files_skipped: 0 };
    for (const r of reports) for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += r[k];
    return { repos: reports, totals, timings, diagnostics, db_path: this.dbPath, providers: providerReports, provider_diagnostics: providerDiagnostics };
  }

  private async indexRoot(r: Root, force: boolean, pool: ParsePool, timings: IndexReport['timings'], diagnostics: Diagnostic[],
    signal: AbortSignal | undefined, onProgress: ((p: IndexProgress) => void) | undefined): Promise<{ report: RepoRunReport; edited: number[] }> {
    const started = performance.now();
    const store = this.store;
    // A repository whose files change is marked graph-pending until its graph is rebuilt: whatever stops a
    // run between the two (a cancel, an error, another root failing), the next run rebuilds it whole. The
    // mark is set in every transaction that changes a file (a rolled-back batch must not leave a later one
    // unmarked).
    const pendingBefore = store.graphPending(r.repo_id);
    const markPending = () => store.setGraphPending(r.repo_id, true);
    if (force) { store.transaction(() => { store.deleteRepo(r.repo_id); markPending(); }); this.unsaved = true; }
    const metas: Map<string, FileMeta> = force ? new Map() : store.fileMetas(r.repo_id);
    const report: RepoRunReport = { repo_id: r.repo_id, root: r.root, files_seen: 0, files_parsed: 0, files_unchanged: 0,
      files_deleted: 0, files_skipped: 0, chunks_written: 0, symbols_written: 0, edges_written: null, graph_update: 'none', duration_ms: 0, forced: force };
    // What the graph needs after this run: files added, deleted or reshaped (definitions, imports, bases)
    // mean a rebuild; files whose bodies alone changed mean resolving just their own occurrences again.
    let reshaped = force; const edited: number[] = [];
    const repoDiags: Diagnostic[] = [];

    const seen = new Set<string>();
    const tasks: FileTask[] = [];
    // Parse diagnostics of files that are not parsed again this run carry over from the last run.
    const carried = new Set<string>();

    let writeMs = 0;
    let done = 0;
    let touched = 0; let dropped = 0;
    const batch: { task: FileTask; outcome: FileOutcome }[] = [];
    const flush = () => {
      if (!batch.length) return;
      const t = performance.now();
      store.transaction(() => {
        for (const { task, outcome } of batch) {
          const existing = metas.get(task.path);
          if (outcome.status === 'unchanged') { if (existing) { store.touchFile(existing.file_id, outcome.mtime_ms, outcome.size); touched++; } report.files_unchanged++; carried.add(task.path); }
          else if (outcome.status === 'skipped') {
            if (existing) { store.deleteFile(existing.file_id); dropped++; reshaped = true; markPending(); }
            report.files_skipped++;
            for (const d of outcome.diagnostics) repoDiags.push({ repo_id: r.repo_id, path: task.path, ...d });
          } else {
            const w = store.writeFile(outcome.content, existing);
            markPending();
            if (w.same_shape) edited.push(w.file_id); else reshaped = true;
            report.files_parsed++;
            report.chunks_written += outcome.content.chunks.length;
            report.symbols_written += outcome.content.symbols.length;
            for (const d of outcome.diagnostics) repoDiags.push({ repo_id: r.repo_id, path: task.path, ...d });
          }
        }
      });
      batch.length = 0;
      writeMs += performance.now() - t;
    };
    // Files are parsed as the walk finds them; a bounded window of files in flight keeps memory flat.
    const WINDOW = 64;
    let next = 0; let inFlight = 0; let walking = true;
    let resolveAll!: () => void; let rejectAll!: (e: unknown) => void;
    const parsed = new Promise<void>((res, rej) => { resolveAll = res; rejectAll = rej; });
    parsed.catch(() => { /* awaited below; this keeps a failure during the walk from going unhandled */ });
    // A write that fails (or a progress callback that throws) stops the run: no more files are started,
    // and once those in flight are back the run fails with that error instead of waiting forever.
    let failure: { error: unknown } | null = null;
    const settle = () => {
      if (inFlight > 0) return;
      if (failure) rejectAll(failure.error);
      else if (!walking && (next >= tasks.length || signal?.aborted)) resolveAll();
    };
    // Results are stored in walk order, whatever order the workers finish in, so the same tree always gets
    // the same row ids (ties in search and in the graph never depend on timing). A result that arrives
    // early waits here; at most LOOKAHEAD files are started past the first one not yet stored.
    const LOOKAHEAD = 256;
    const ready = new Map<number, { task: FileTask; outcome: FileOutcome }>();
    let stored = 0;
    const onDone = (i: number, task: FileTask, outcome: FileOutcome) => {
      inFlight--; done++;
      if (!failure) {
        try {
          ready.set(i, { task, outcome });
          for (let item = ready.get(stored); item; item = ready.get(stored)) {
            ready.delete(stored++);
            batch.push(item);
            if (batch.length >= 64) flush();
          }
          if (done % 100 === 0) onProgress?.({ phase: 'parse', repo_id: r.repo_id, done, total: tasks.length });
        } catch (e) { failure = { error: e }; }
      }
      launch(); settle();
    };
    const launch = () => {
      while (!failure && inFlight < WINDOW && next < tasks.length && next - stored < LOOKAHEAD && !signal?.aborted) {
        const i = next++; const task = tasks[i]!;
        inFlight++;
        pool.run(task).then(o => onDone(i, task, o), (e: unknown) => onDone(i, task, { status: 'skipped', diagnostics: [{ code: 'parse_failed', message: String(e) }] }));
      }
    };
    const onFile = (f: WalkedFile) => {
      seen.add(f.path);
      const m = metas.get(f.path);
      if (m && m.size === f.size && m.mtime_ms === f.mtime_ms) { report.files_unchanged++; carried.add(f.path); return; }
      tasks.push({ root: r.root, repo_id: r.repo_id, abs: f.abs, path: f.path, language: f.language, size: f.size, mtime_ms: f.mtime_ms,
        known_hash: m?.hash ?? null, max_file_bytes: this.settings.max_file_bytes });
      launch();
    };

    const tw = performance.now();
    onProgress?.({ phase: 'walk', repo_id: r.repo_id, done: 0, total: 0 });
    let walked: Awaited<ReturnType<typeof walk>>; let git: Awaited<ReturnType<typeof gitState>>;
    try {
      [walked, git] = await Promise.all([
        walk(r.root, { excludes: this.settings.excludes, languages: this.settings.languages ? new Set(this.settings.languages) : null, maxFileBytes: this.settings.max_file_bytes, signal, onFile }),
        gitState(r.root),
      ]);
    } finally { walking = false; }
    // Parsing starts during the walk: the walk's time is its wall time less the writes done meanwhile,
    // and parsing's is what follows the walk less the writes; walk + parse + write cover the phase once.
    const walkEnd = performance.now();
    const writesDuringWalk = writeMs;
    timings.walk_ms += walkEnd - tw - writesDuringWalk;
    report.files_seen = walked.files.length;
    repoDiags.unshift(...walked.diagnostics.map(d => ({ repo_id: r.repo_id, ...d })));
    // Files that were indexed but are gone (deleted, now ignored, or now unreadable) disappear.
    const gone = [...metas.values()].filter(m => !seen.has(m.path));
    settle();
    await parsed;
    flush();
    if (signal?.aborted) {
      // Completed batches are kept (they are real work); the next run picks up the rest and, as the
      // graph-pending mark says, rebuilds the graph.
      this.save();
      this.unsaved = false;
      throw new SightlineError('cancelled', `indexing of ${r.name} was cancelled after ${done} of ${tasks.length} files; completed files were kept`);
    }
    timings.parse_ms += performance.now() - walkEnd - (writeMs - writesDuringWalk);
    const tdel = performance.now();
    if (!force) for (const d of store.diagnostics(r.repo_id)) if (carried.has(d.path) && PARSE_DIAGNOSTICS.has(d.code)) repoDiags.push(d);
    report.files_deleted = gone.length;
    report.duration_ms = Math.round(performance.now() - started);
    const prev = store.repo(r.repo_id);
    // The graph is brought up to date once every root is parsed (see index()).
    if (reshaped || gone.length || !prev || pendingBefore) report.graph_update = 'full';
    else if (edited.length) report.graph_update = 'partial';
    if (report.graph_update !== 'none') report.edges_written = 0;
    const dirtyFlag = git.dirty === null ? null : git.dirty ? 1 : 0;
    const nestedJson = JSON.stringify(walked.nested_repos);
    const diagKey = (ds: Diagnostic[]) => JSON.stringify(ds.map(d => [d.path, d.code, d.message]).sort());
    const diagJson = diagKey(repoDiags);
    const changed = force || report.files_parsed > 0 || report.files_deleted > 0 || touched > 0 || dropped > 0 || !prev
      || prev.indexed_commit !== git.commit || prev.branch !== git.branch || prev.dirty !== dirtyFlag || prev.nested_repos !== nestedJson
      || diagKey(store.diagnostics(r.repo_id)) !== diagJson;
    if (changed) {
      store.transaction(() => {
        for (const m of gone) store.deleteFile(m.file_id);
        if (gone.length) markPending();
        store.replaceDiagnostics(r.repo_id, repoDiags);
        store.upsertRepo({ repo_id: r.repo_id, root: r.root, name: r.name, indexed_at: Date.now(), indexed_commit: git.commit, branch: git.branch,
          dirty: dirtyFlag, nested_repos: nestedJson, last_run: JSON.stringify(report) });
      });
      this.unsaved = true;
    }
    this.lastRuns.set(r.repo_id, report);
    timings.write_ms += writeMs + performance.now() - tdel;
    diagnostics.push(...repoDiags);
    this.vectorCache = null; this.fileIndexCache = null;
    this.log('info', `indexed ${r.name}: ${report.files_parsed} parsed, ${report.files_unchanged} unchanged, ${report.files_deleted} deleted, ${report.files_skipped} skipped`);
    return { report, edited };
  }

  /** Rebuilds the heuristic graph of one repository from its stored symbols and occurrences. */
  private buildGraph(repoId: string, only?: readonly number[]): number {
    const store = this.store;
    let count = 0;
    const sink = (edges: GEdge[]) => { store.insertGraphEdges(repoId, edges); count += edges.length; };
    // A partial update reuses the tables of the previous partial update of this repository when nothing
    // but bodies changed since (a full build, or another index file, discards them).
    const cached = only ? this.graphTables.get(repoId) : undefined;
    if (!only) this.graphTables.delete(repoId);
    store.transaction(() => {
      store.beginGraph(repoId, only);
      const graph = cached && cached.store === store ? cached.resume(new Set(only), sink) : resolveGraph({
        files: store.graphFiles(repoId) as GFile[], symbols: store.graphSymbols(repoId), occurrences: (fileId, kinds) => store.occurrences(fileId, kinds),
        sink, only: only ? new Set(only) : undefined,
      });
      store.finishGraph(repoId, graph.unbound);
      store.setGraphPending(repoId, false);
      if (only && !cached && graph.resume) this.graphTables.set(repoId, { store, resume: graph.resume });
    });
    // The tables take memory (~70 MB per million lines): they are kept while edits keep coming.
    if (this.graphTables.size) {
      clearTimeout(this.graphTablesTimer);
      this.graphTablesTimer = setTimeout(() => this.graphTables.clear(), GRAPH_TABLES_IDLE_MS);
      this.graphTablesTimer.unref?.();
    }
    this.unsaved = true;
    return count;
  }

  /**
   * Runs one external reference provider on a repository and stores its edges under its own name.
   * strict: an unresolvable endpoint or a failed run fails the whole index (nothing of it is saved).
   */
  private async runReferenceProvider(r: Root, spec: ProviderSpec, signal?: AbortSignal): Promise<{ report: ProviderRunReport; diagnostics: { provider: string; message: string }[] }> {
    const store = this.store;
    const input = store.providerInput(r.repo_id);
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
      store.removeProviderEdgesOf(spec.name, r.repo_id);
      store.addProviderEdges(resolved.resolved.map(e => ({ ...e, provider: spec.name, file_id: fileOf.get(e.from_id)?.file_id ?? null })));
      if (spec.compiler_grade) {
        // A compiler-grade provider analysed the whole repository: each of its symbols has been checked.
        for (const s of symbols) store.setProviderCheck({ symbol_id: s.id, provider: spec.name, file_hash: s.hash, checked_at: Date.now(), results: 0, complete: 1 });
      }
    });
    this.unsaved = true;
    report.ok = true; report.edges = resolved.resolved.length;
    const diags = [...res.provider_diagnostics, ...res.output.invalid_edges.slice(0, 20).map(e => ({ provider: spec.name, message: `edge ${e.index} rejected: ${e.reason}` })),
      ...resolved.unresolved.slice(0, 20).map(e => ({ provider: spec.name, message: `edge ${e.index} skipped: ${e.reason}` }))];
    return { report, diagnostics: diags };
  }

  /** Takes the writer lock, or says who holds it (index_locked). */
  private acquireLock(): void {
    try { this.lock.acquire(); }
    catch (e) {
      if (e instanceof IndexLockedError) {
        const h = e.holder;
        throw new SightlineError('index_locked', `${e.message}; try again when it finishes`, {
          holder_pid: h.pid, holder_host: h.host, since: new Date(h.since).toISOString(), heartbeat_at: new Date(h.heartbeat_at).toISOString(), lock_path: e.lockPath,
        });
      }
      throw e;
    }
  }

  private save(): void {
    // A writer judged stale (a frozen or very slow process) may have lost the lock to another: never
    // overwrite that writer's file.
    try { this.lock.assertHeld(); }
    catch (e) { if (e instanceof LockLostError) throw new SightlineError('index_locked', e.message, { lock_path: this.lock.lockPath }); throw e; }
    // Temp files of saves that crashed (ours or another dead writer's) go before this one is written.
    const removed = cleanLeftoverTemps(this.dbPath);
    if (removed.length) this.log('warn', `removed ${removed.length} temp file(s) left by an interrupted save: ${removed.join(', ')}`);
    this.store.setMeta('saved_at', String(Date.now()));
    // The export copies the whole database; collect the indexing run's garbage first so that the copy
    // does not stack on top of it (this is the memory peak of a cold index).
    collectGarbage();
    const bytes = this.store.export();
    atomicWrite(this.dbPath, bytes);
    this.stamp = fileStamp(this.dbPath);
    this.unsaved = false;
    this.openProblem = null; // the corrupt file is replaced
  }

  // ---- reads -----------------------------------------------------------------------------------
  private vectors = (): VectorIndex => {
    if (!this.vectorCache) this.vectorCache = { ...this.store.allVectors(HASH_VECTOR_DIMS), fileMeta: this.store.fileLanguages() };
    return this.vectorCache;
  };

  private fileIndex = (): FileIndex => {
    if (!this.fileIndexCache) {
      const files = this.store.fileTable();
      let total = 0; for (const f of files.values()) total += f.line_count;
      this.fileIndexCache = { files, total_lines: total, chunk_file: this.store.chunkFileTable() };
    }
    return this.fileIndexCache;
  };

  private filter(repo?: string, language?: string): SearchFilter {
    const root = this.resolveRepo(repo);
    return { ...(root ? { repo_id: root.repo_id } : {}), ...(language ? { language } : {}) };
  }

  async search(q: { query: string; limit: number; offset: number; vector: boolean; repo?: string; language?: string; group?: 'file' | 'chunk'; include_tests?: boolean; path?: string; chunks_per_file?: number }): Promise<CodeSearchPage> {
    await this.refresh();
    return searchCode(this.store, this.vectors, this.fileIndex, q.query, { limit: q.limit, offset: q.offset, vector: q.vector, filter: this.filter(q.repo, q.language),
      group: q.group ?? 'chunk', include_tests: q.include_tests ?? true, path_glob: q.path, chunks_per_file: q.chunks_per_file ?? 3 });
  }

  async vectorSearch(q: { query: string; limit: number; offset: number; repo?: string; language?: string }): Promise<SearchPage> {
    await this.refresh();
    return vectorSearch(this.store, this.vectors, q.query, { limit: q.limit, offset: q.offset, filter: this.filter(q.repo, q.language) });
  }

  /** The stored row of a chunk id (no file read). */
  async getChunkRow(id: string) { await this.refresh(); return this.store.chunkById(id); }

  /** Exact source text of a chunk, read from the file; `stale` when the file changed since it was indexed. */
  async getChunk(chunkIdArg: string): Promise<{
    chunk_id: string; id: string; repo_id: string; path: string; language: string; start_line: number; end_line: number;
    range: { start_line: number; end_line: number }; symbol_path: string | null; kind: string; text: string; stale: boolean; file_hash: string;
  }> {
    await this.refresh();
    // A symbol id names the definition's (first) chunk.
    const row = this.store.chunkById(chunkIdArg.startsWith('symbol:') ? `chunk:${chunkIdArg.slice(7)}` : chunkIdArg);
    if (!row) throw new SightlineError('not_found', `no chunk with id ${chunkIdArg}; use search_code to find chunk ids`);
    const root = this.roots.find(r => r.repo_id === row.repo_id);
    const repoRow = root ? undefined : this.store.repo(row.repo_id);
    const base = root?.root ?? repoRow?.root;
    if (!base) throw new SightlineError('not_found', `chunk ${chunkIdArg} belongs to repository ${row.repo_id}, which is not part of this workspace`);
    // The file is read now, under the walk's containment rules: it may have become a link out of the
    // root since it was indexed.
    let baseReal: string;
    try { baseReal = realpathSync(base); } catch { throw new SightlineError('not_found', `the root ${base} of ${row.path} is no longer readable; run index_repo to refresh the index`); }
    const read = readContainedSync(baseReal, row.path, this.settings.max_file_bytes);
    if (!read.ok) {
      if (read.code === 'outside_workspace') {
        throw new SightlineError('path_outside_workspace', `${row.path} now resolves outside the workspace root ${baseReal} (it became a symlink leading out after it was indexed); it was not read. Run index_repo to refresh the index`, { repo_id: row.repo_id, path: row.path, chunk_id: row.chunk_id });
      }
      throw new SightlineError('not_found', `${row.path} is no longer readable (${read.message}); run index_repo to refresh the index`, { repo_id: row.repo_id, path: row.path, reason: read.code });
    }
    const bytes = read.bytes;
    const stale = sha1(bytes) !== row.hash;
    const lines = new TextDecoder('utf-8').decode(bytes).split('\n');
    const text = lines.slice(row.start_line - 1, row.end_line).join('\n');
    return {
      chunk_id: row.chunk_id, id: row.symbol_path ? symbolId(row.repo_id, row.path, row.symbol_path) : row.chunk_id,
      repo_id: row.repo_id, path: row.path, language: row.language, start_line: row.start_line, end_line: row.end_line,
      range: { start_line: row.start_line, end_line: row.end_line }, symbol_path: row.symbol_path, kind: row.kind, text, stale, file_hash: row.hash,
    };
  }

  async status(): Promise<StatusReport> {
    await this.refresh();
    const rows = this.store.repos();
    const counts = this.store.counts();
    const repos = this.roots.map(r => {
      const row = rows.find(x => x.repo_id === r.repo_id);
      const c = this.store.counts(r.repo_id);
      const nested: string[] = row?.nested_repos ? JSON.parse(row.nested_repos) : [];
      return {
        repo_id: r.repo_id, path: r.root, name: r.name, indexed: !!row, indexed_at: row?.indexed_at ? new Date(row.indexed_at).toISOString() : null,
        commit: row?.indexed_commit ?? null, branch: row?.branch ?? null, dirty: row?.dirty === null || row?.dirty === undefined ? null : row.dirty === 1,
        file_count: c.files, chunk_count: c.chunks, symbol_count: c.symbols, nested_repositories: nested,
        last_run: this.lastRuns.get(r.repo_id) ?? (row?.last_run ? JSON.parse(row.last_run) as RepoRunReport : null),
      };
    });
    const indexedAt = repos.map(r => r.indexed_at).filter((x): x is string => !!x).sort().pop() ?? null;
    const single = repos.length === 1 ? repos[0]! : null;
    const dirtyValues = repos.map(r => r.dirty);
    const writer: LockHolder | null = this.lock.inspect();
    const dirty = !repos.some(r => r.indexed) ? null : dirtyValues.some(d => d === true) ? true : dirtyValues.some(d => d === null) ? null : false;
    return {
      indexed_commit: single ? single.commit : null,
      branch: single ? single.branch : null,
      dirty,
      indexed_at: indexedAt,
      node_count: counts.symbols + counts.files,
      edge_count: counts.edges,
      repositories: repos.length > 1 ? repos.map(r => ({ path: r.path, branch: r.branch, commit: r.commit, dirty: r.dirty }))
        : (single?.nested_repositories ?? []).map(p => ({ path: p, branch: null, commit: null, dirty: null })),
      file_count: counts.files, chunk_count: counts.chunks, symbol_count: counts.symbols, occurrence_count: counts.occurrences,
      languages: this.store.languageCounts(),
      roots: repos,
      diagnostics_count: this.diagnostics().length,
      db_path: this.dbPath, schema_version: SCHEMA_VERSION,
      writer_active: writer?.state === 'active',
      writer: writer ? {
        pid: writer.pid, host: writer.host, since: new Date(writer.since).toISOString(), heartbeat_at: new Date(writer.heartbeat_at).toISOString(),
        state: writer.state, this_process: writer.this_process,
      } : null,
    };
  }

  diagnostics(repoId?: string): Diagnostic[] {
    const stored = this.store.diagnostics(repoId);
    return this.openProblem && !repoId ? [this.openProblem, ...stored] : stored;
  }

  /** A reader over the current graph (heuristic edges plus every provider's edges). */
  async graph(): Promise<GraphReader> {
    await this.refresh();
    return new GraphReader(this.store, repoId => this.staleIndexedFiles(repoId));
  }

  /**
   * Indexed files of a repository whose size or mtime on disk differ from the index, or that are gone
   * (the indexer's pre-filter, by stat alone: no walk), checked for at most `budgetMs`.
   */
  staleIndexedFiles(repoId: string, budgetMs = STALE_CHECK_BUDGET_MS): { paths: string[]; complete: boolean } {
    const root = this.roots.find(r => r.repo_id === repoId)?.root ?? this.store.repo(repoId)?.root;
    if (!root) return { paths: [], complete: true };
    const end = performance.now() + budgetMs;
    const paths: string[] = []; let n = 0;
    for (const m of this.store.fileMetas(repoId).values()) {
      if ((++n & 255) === 0 && performance.now() > end) return { paths, complete: false };
      const st = statSync(resolve(root, m.path), { throwIfNoEntry: false });
      if (!st || st.size !== m.size || st.mtimeMs !== m.mtime_ms) paths.push(m.path);
    }
    return { paths, complete: true };
  }

  /**
   * What changed on disk since indexing, as the next index run would see it: a walk of every indexed root
   * with this engine's settings, compared by size and mtime (the indexer's pre-filter). Bounded: at most
   * `budgetMs` of walking (then `complete` is false and removals are not counted), `sample` files listed.
   */
  async changedSinceIndex(opts: { budgetMs?: number; sample?: number } = {}): Promise<ChangedSinceIndex> {
    await this.refresh();
    const sample = opts.sample ?? 20;
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), opts.budgetMs ?? CHANGED_WALK_BUDGET_MS);
    const files: ChangedSinceIndex['files'] = [];
    const perRoot: Record<string, number | null> = {};
    let count = 0; let complete = true;
    const note = (repo_id: string, path: string, change: 'modified' | 'added' | 'removed') => {
      count++; perRoot[repo_id] = (perRoot[repo_id] ?? 0) + 1;
      if (files.length < sample) files.push({ repo_id, path, change });
    };
    try {
      for (const r of this.roots) {
        if (!this.store.repo(r.repo_id)) { perRoot[r.repo_id] = null; continue; } // never indexed
        perRoot[r.repo_id] = 0;
        if (ac.signal.aborted) { complete = false; perRoot[r.repo_id] = null; continue; }
        const metas = this.store.fileMetas(r.repo_id);
        const seen = new Set<string>();
        await walk(r.root, {
          excludes: this.settings.excludes, languages: this.settings.languages ? new Set(this.settings.languages) : null, maxFileBytes: this.settings.max_file_bytes,
          signal: ac.signal,
          onFile: f => {
            seen.add(f.path);
            const m = metas.get(f.path);
            if (!m) note(r.repo_id, f.path, 'added');
            else if (m.size !== f.size || m.mtime_ms !== f.mtime_ms) note(r.repo_id, f.path, 'modified');
          },
        });
        if (ac.signal.aborted) { complete = false; continue; } // a partial walk cannot tell what is gone
        for (const m of metas.values()) if (!seen.has(m.path)) note(r.repo_id, m.path, 'removed');
      }
    } finally { clearTimeout(timer); }
    return { count, complete, files, truncated: count > files.length, per_root: perRoot };
  }

  /** Stores references a live language server reported for one symbol (see graph/enrich.ts); saves at once. */
  async recordEditorReferences(targetId: string, provider: string, locations: EditorLocation[], complete: boolean): Promise<{ stored: number; ignored: number }> {
    if (!/^lsp:[a-z0-9_-]+$/.test(provider)) throw new SightlineError('invalid_arguments', `provider must be lsp:<language>, got ${provider}`);
    if (!this.lock.isHeld) {
      this.acquireLock();
      if (fileStamp(this.dbPath) !== this.stamp) await this.load();
    }
    const r = recordLocations(this.store, this.roots, targetId, provider, locations, complete);
    this.unsaved = true;
    // Checks come in bursts (a background pass): save once the burst is over, holding the lock until then.
    if (this.pendingSave) clearTimeout(this.pendingSave);
    this.pendingSave = setTimeout(() => this.flushPendingSave(), RECORD_SAVE_DELAY_MS);
    return r;
  }

  /** Saves language-server edges recorded since the last save and releases the writer lock. */
  private flushPendingSave(): void {
    if (this.pendingSave) clearTimeout(this.pendingSave);
    this.pendingSave = undefined;
    try { if (this.unsaved) this.save(); } catch (e) { this.log('error', `saving language-server edges failed: ${(e as Error).message}`); }
    finally { if (!this.writing) this.lock.release(); }
  }

  async enrichmentTargets(opts: { symbol?: string; path?: string; repo?: string; limit: number }): Promise<EnrichmentTarget[]> {
    await this.refresh();
    return enrichmentTargets(this.store, this.roots, { ...opts, repo_id: this.repoFilter(opts.repo) });
  }

  /** Repo filter for graph lookups: a repo_id or path inside a root, or none. */
  repoFilter(repo?: string): string | undefined { return this.resolveRepo(repo)?.repo_id; }

  close(): void {
    if (this.pendingSave) this.flushPendingSave();
    clearTimeout(this.graphTablesTimer);
    this.graphTables.clear();
    this.store?.close();
    this.lock.release();
  }

  /** Workspace-relative path check used by tools that accept paths. */
  relativeToRoot(path: string): { root: Root; rel: string } {
    const root = this.resolveRepo(path)!;
    return { root, rel: relative(root.root, isAbsolute(path) ? path : resolve(this.roots[0]!.root, path)).split(sep).join('/') };
  }
}

function corruptError(dbPath: string, problem: IndexFileProblem): SightlineError {
  return new SightlineError('index_corrupt', `${dbPath} is not a readable Sightline index: ${problem.reason}. It was left untouched; `
    + 'point --db (or sightline.index.location) at a Sightline index file or at a new path, or remove the file', { db_path: dbPath, kind: problem.kind, reason: problem.reason });
}

export interface ChangedSinceIndex {
  count: number; complete: boolean; truncated: boolean;
  files: { repo_id: string; path: string; change: 'modified' | 'added' | 'removed' }[];
  /** per root: files changed, null when the root was never indexed (or not walked within the budget) */
  per_root: Record<string, number | null>;
}

export interface StatusReport {
  indexed_commit: string | null; branch: string | null; dirty: boolean | null; indexed_at: string | null;
  node_count: number; edge_count: number; repositories: { path: string; branch: string | null; commit: string | null; dirty: boolean | null }[];
  file_count: number; chunk_count: number; symbol_count: number; occurrence_count: number;
  languages: { language: string; files: number; lines: number }[];
  roots: {
    repo_id: string; path: string; name: string; indexed: boolean; indexed_at: string | null; commit: string | null; branch: string | null;
    dirty: boolean | null; file_count: number; chunk_count: number; symbol_count: number; nested_repositories: string[]; last_run: RepoRunReport | null;
  }[];
  diagnostics_count: number; db_path: string; schema_version: number; writer_active: boolean;
  writer: { pid: number; host: string; since: string; heartbeat_at: string; state: LockHolder['state']; this_process: boolean } | null;
}
