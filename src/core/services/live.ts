/**
 * Keeping a long-lived engine fresh (the MCP server, the extension's engine process). Changed paths come
 * from a recursive file watcher over the roots (`watch`, honouring the same excludes as the walk) or from
 * the editor (`notify`). They are applied as targeted index runs: no walk, only those files parsed,
 * written and resolved in memory, one run at a time, the save deferred until the burst is over
 * (`SAVE_DELAY_MS`, the writer lock held until then). `settle()` waits until every path notified so far is
 * applied: a surface calls it before answering, so an answer given after an edit reflects the edit.
 *
 * Roots never indexed are left alone (indexing them is the caller's decision: `index_repo`); a run that
 * fails (the index locked by another writer, say) keeps its paths for the next one.
 */
import { isAbsolute, join, relative, sep } from 'node:path';
import { statSync } from 'node:fs';
import { watch, type FSWatcher } from 'chokidar';
import { watchRules } from '../index/walker';
import type { IndexReport, IndexRequest } from '../pipeline';
import type { Root } from '../workspace';
import type { Store } from '../store/store';
import { prepareGraphTables, type GraphTablesCache } from '../pipeline/phases/graph';
import { loadLanguage } from '../parse/treesitter';
import { isLanguageId, type FileLanguage } from '../languages';
import { processFile, type FileTask } from '../index/process';
import { cpuSample, cpuSince } from '../util/sched';

/** Changes that arrive within this window are applied in one run. */
export const DEBOUNCE_MS = 25;
/** A notified file found empty and written less than this long ago is looked at again after it (holdEmptied). */
export const EMPTIED_WAIT_MS = 150;
/** A burst of edits is saved this long after its last run. */
export const SAVE_DELAY_MS = 1500;
/** After a failed run, its paths are tried again this much later. */
const RETRY_MS = 1000;
/** The parse path is warmed on a file of about this size per language, this many times. */
const WARM_FILE_BYTES = 40_000;
const WARM_ROUNDS = 3;

export interface LiveDeps {
  roots: readonly Root[];
  excludes: readonly string[];
  /** one index run (not serialised: LiveIndex serialises every run of the engine) */
  index: (req: IndexRequest) => Promise<IndexReport>;
  /** the index as it is now: whether a root was indexed (its changes are applied only then), and its files' languages */
  store: () => Store;
  /** the engine's resolver tables: built for each indexed root when watching starts */
  graphTables?: GraphTablesCache;
  log: (level: 'info' | 'warn' | 'error', message: string) => void;
  /** one search, its answer thrown away: the first answer after an edit finds the search path warm */
  warmSearch?: () => Promise<unknown>;
}

export interface LiveStats {
  runs: number; paths_applied: number; failures: number; last_run_ms: number | null; watching: boolean;
  /** the parse path was warmed on this thread (`prepare`, once files are indexed) */
  parse_warmed: boolean;
  /** the last run's report in short: what it parsed and where the time went */
  last_run: { files_parsed: number; files_deleted: number; graph_update: string[]; timings: IndexReport['timings'] } | null;
  /** runs that rebuilt a repository's graph, and notified files held back because they had just been emptied */
  graph_rebuilds: number; held_empty: number;
  /** files found changed or deleted by the walk made once the watcher was ready (changes made while none was looking) */
  caught_up: number;
}

export class LiveIndex {
  private readonly pending = new Set<string>();
  /** every index run of this engine, one after the other */
  private chain: Promise<unknown> = Promise.resolve();
  /** runs not of this live index (index_repo, the editor's) in progress */
  private others = 0;
  private timer: NodeJS.Timeout | undefined;
  private watcher: FSWatcher | null = null;
  private closed = false;
  /** Whether anything keeps the index up with the files (a watcher, or an editor that notifies changes). */
  private fed = false;
  /** runs of notified changes queued or under way */
  private applying = 0;
  /** `prepare` was asked for (it runs again after runs that may have indexed a first root); the parse path was warmed */
  private wantPrepared = false;
  private warmed = false;
  /** the walk that applies what changed before the watcher was ready (answers wait for it) */
  private caughtUp: Promise<void> | null = null;
  readonly stats: LiveStats = {
    runs: 0, paths_applied: 0, failures: 0, last_run_ms: null, watching: false, parse_warmed: false, last_run: null,
    graph_rebuilds: 0, held_empty: 0, caught_up: 0,
  };

  constructor(private readonly deps: LiveDeps) {}

  /** Runs `fn` (an index run) after every index run queued before it (all of an engine's runs go through here). */
  exclusive<T>(fn: () => Promise<T>): Promise<T> { return this.queue(fn, true); }

  private queue<T>(fn: () => Promise<T>, other: boolean): Promise<T> {
    const p = this.chain.then(async () => {
      if (other) this.others++;
      try { return await fn(); } finally { if (other) this.others--; }
    });
    this.chain = p.catch(() => undefined);
    // an engine prepared for edits before its first index (the editor's, on a new workspace) prepares again
    // once a run of its own has indexed something: the tables, the mined commits and the parse path
    if (other) void p.then(() => { if (this.wantPrepared && !this.warmed && !this.closed) void this.prepare(); }, () => undefined);
    return p;
  }

  /**
   * Absolute paths that changed (created, modified, deleted); applied after DEBOUNCE_MS, or at `settle()`.
   * Returns how many lie in an indexed root (the others are dropped when the batch is applied).
   */
  notify(paths: readonly string[]): number {
    if (this.closed) return 0;
    this.fed = true;
    let inside = 0;
    for (const p of paths) { if (!isAbsolute(p)) continue; this.pending.add(p); if (this.rootOf(p)) inside++; }
    if (this.pending.size && !this.timer) this.timer = setTimeout(() => { this.timer = undefined; void this.drain(); }, DEBOUNCE_MS);
    return inside;
  }

  /** Whether changes reach this index as they happen; without it (a one-shot CLI call) answers check the files themselves. */
  get followsChanges(): boolean { return this.fed; }

  /**
   * Resolves once every path notified before the call is applied (or its run failed and was logged).
   * While another run is in progress (a cold index: minutes) it resolves at once: answers come from the
   * index as it stands (its graph tools say the graph is pending), the paths are applied after that run.
   */
  async settle(): Promise<void> {
    if (this.others > 0) return;
    // what changed while no watcher was looking is applied before the first answer
    if (this.caughtUp) await this.caughtUp;
    if (this.watcher) await this.catchUp();
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined; }
    await this.drain();
  }

  /**
   * Starts watching the roots (once): every created, changed or deleted file is notified. Once the watcher
   * is ready, what changed before it was (since the index was written, or while the server was starting)
   * is caught up by a walk of each indexed root (`catchUpWalk`); answers wait for it.
   */
  async watch(): Promise<void> {
    if (this.watcher || this.closed) return;
    this.fed = true;
    let ready!: () => void;
    const watching = new Promise<void>(res => { ready = res; });
    this.caughtUp = watching.then(() => this.catchUpWalk());
    try { await this.startWatcher(); } finally { ready(); }
    await this.caughtUp;
    await this.prepare();
  }

  private async startWatcher(): Promise<void> {
    const rules = await Promise.all(this.deps.roots.map(async r => ({ root: r.root, ignores: await watchRules(r.root, this.deps.excludes) })));
    const ignored = (path: string, stats?: { isDirectory(): boolean }) => {
      const rule = rules.find(x => path === x.root || path.startsWith(x.root + sep));
      if (!rule || path === rule.root) return false;
      return rule.ignores(relative(rule.root, path).split(sep).join('/'), !!stats?.isDirectory());
    };
    const w = watch(this.deps.roots.map(r => r.root), { ignored, ignoreInitial: true, followSymlinks: false, persistent: true });
    const on = (p: string) => this.notify([p]);
    w.on('add', on).on('change', on).on('unlink', on).on('addDir', on).on('unlinkDir', on);
    // The watcher passes on at most one change of a file per 50 ms (a second write soon after the first
    // was never seen), so the file system's own notification names the file too, as soon as it is read.
    w.on('raw', (_event, name, details) => {
      const at = (details as { watchedPath?: string } | undefined)?.watchedPath;
      if (!at || !isAbsolute(at)) return;
      const path = name && !at.endsWith(sep + name) ? join(at, name) : at;
      if (!ignored(path)) this.notify([path]);
    });
    w.on('error', e => this.deps.log('warn', `file watcher: ${(e as Error).message}`));
    this.watcher = w;
    await new Promise<void>(res => w.once('ready', () => res()));
    this.stats.watching = true;
  }

  /**
   * Each indexed root walked once (size and modification time against the index; only files that differ
   * are parsed): the changes made while no watcher was looking. A failure is logged; the watcher goes on.
   */
  private async catchUpWalk(): Promise<void> {
    if (this.closed) return;
    const roots = this.deps.roots.filter(r => this.deps.store().meta.repo(r.repo_id));
    for (const r of roots) {
      await this.queue(async () => {
        const t0 = performance.now();
        const rep = await this.deps.index({ repo: r.repo_id, deferSaveMs: SAVE_DELAY_MS });
        const { files_parsed: parsed, files_deleted: deleted } = rep.totals;
        this.stats.caught_up += parsed + deleted;
        const ms = Math.round(performance.now() - t0);
        this.deps.log('info', `caught up with ${r.root}: ${parsed} file(s) changed, ${deleted} deleted since the index was written (${ms} ms)`);
      }, false).catch(e => this.deps.log('warn', `changes made before watching ${r.root} not applied: ${(e as Error).message}`));
    }
  }

  /**
   * A few edits parse on the engine's thread, against the resolver's tables: the grammars of the indexed
   * languages are loaded and each indexed root's tables built now (queued like a run; seconds at millions of
   * lines, once) rather than at the first edit. Called when watching starts, and by the editor's engine
   * process at start (it hears of edits from the editor, not from a watcher). From then on the tables are
   * kept however long the engine stays quiet.
   */
  async prepare(): Promise<void> {
    this.wantPrepared = true;
    for (const { language } of this.deps.store().files.languageCounts()) if (isLanguageId(language)) await loadLanguage(language).catch(() => undefined);
    const tables = this.deps.graphTables;
    tables?.keepWhileLive();
    await this.queue(async () => {
      const t0 = performance.now();
      const store = this.deps.store();
      for (const r of this.deps.roots) {
        if (!store.meta.repo(r.repo_id)) continue;
        if (tables) prepareGraphTables(store, tables, r.repo_id);
        // an edit of bodies maps its symbols over the mined commits of its git repository: read them now
        for (const s of store.history.states(r.repo_id)) store.history.mined(r.repo_id, s.git_path);
      }
      if (!this.warmed) await this.warmParsing();
      if (store.meta.repos().length) this.deps.log('info', `prepared for edits in ${Math.round(performance.now() - t0)} ms (resolver tables, mined history, parse warm-up)`);
      // not counted as another run: edits notified meanwhile are applied right after it, and an answer
      // that waits for them waits for it (seconds at most), never answering without them
    }, false).catch(e => this.deps.log('warn', `resolver tables not prepared: ${(e as Error).message}`));
    // a first search builds what answers read (the file table, the mined history's ranking index) and runs
    // unoptimised code: a first answer after the first edit took 80 ms against 5-20 ms for the next ones
    await this.deps.warmSearch?.().catch(() => undefined);
  }

  /**
   * Parses one indexed file of each language a few times, the result thrown away. The engine's thread has
   * not parsed before (a cold index parses in worker threads), and a first parse runs unoptimised code: a
   * first edit of a large file took three times as long as the next one.
   */
  private async warmParsing(): Promise<void> {
    const samples = this.deps.store().files.sampleFiles(WARM_FILE_BYTES);
    this.warmed = samples.length > 0;
    for (const f of samples) {
      const root = this.deps.roots.find(r => r.repo_id === f.repo_id);
      if (!root) continue;
      const task: FileTask = { root: root.root, repo_id: f.repo_id, abs: join(root.root, f.path), path: f.path, language: f.language as FileLanguage,
        size: f.size, mtime_ms: 0, known_hash: null, max_file_bytes: 4 * WARM_FILE_BYTES };
      for (let i = 0; i < WARM_ROUNDS; i++) await processFile(task).catch(() => undefined);
    }
    this.stats.parse_warmed = this.warmed;
  }

  /**
   * A file written just before a question (an agent's own edit, then its next tool call) may not have
   * reached the watcher yet: the kernel's notification is read in the event loop's next poll for I/O. The
   * answer lets that poll happen first (a timer, then the check phase after the poll).
   */
  private async catchUp(): Promise<void> {
    await new Promise(r => setTimeout(r, 1));
    await new Promise(r => setImmediate(r));
  }

  private async drain(): Promise<void> {
    while (this.pending.size) {
      const batch = this.holdEmptied([...this.pending].filter(p => this.rootOf(p)));
      this.pending.clear();
      if (batch.length) { this.applying++; await this.queue(() => this.apply(batch), false).finally(() => { this.applying--; }); }
    }
    // changes taken by another drain (the debounce timer's) are still being applied: wait for them too; a
    // preparation alone (tables, warm-up) is not waited for
    if (this.applying && !this.others) await this.chain;
  }

  /**
   * A file that is empty and was written a moment ago is most likely being written: truncated, not yet
   * filled (a writer descheduled between the two on a busy machine). Applied as it stands, its definitions
   * would vanish and come back a moment later (for a class, two graph rebuilds in a row: seconds each at
   * millions of lines). It waits EMPTIED_WAIT_MS and is looked at again; a file left empty is applied then.
   */
  private holdEmptied(batch: string[]): string[] {
    const now = Date.now();
    const held = batch.filter(p => {
      try { const st = statSync(p); return st.isFile() && st.size === 0 && now - st.mtimeMs < EMPTIED_WAIT_MS; } catch { return false; }
    });
    if (!held.length) return batch;
    this.stats.held_empty += held.length;
    setTimeout(() => this.notify(held), EMPTIED_WAIT_MS).unref();
    return batch.filter(p => !held.includes(p));
  }

  private rootOf(path: string): Root | undefined {
    const r = this.deps.roots.find(x => path === x.root || path.startsWith(x.root + sep));
    return r && this.deps.store().meta.repo(r.repo_id) ? r : undefined;
  }

  private async apply(batch: string[]): Promise<void> {
    const t0 = performance.now();
    const cpu0 = cpuSample(); // where the wall time went (util/sched.ts): working, starved of a core, or blocked
    try {
      const r = await this.deps.index({ paths: batch, deferSaveMs: SAVE_DELAY_MS });
      this.stats.runs++; this.stats.paths_applied += batch.length; this.stats.last_run_ms = Math.round(performance.now() - t0);
      this.stats.last_run = { files_parsed: r.totals.files_parsed, files_deleted: r.totals.files_deleted, graph_update: r.repos.map(x => x.graph_update), timings: r.timings };
      if (r.repos.some(x => x.graph_update === 'full')) this.stats.graph_rebuilds++;
      const t = r.timings;
      const names = batch.slice(0, 3).map(p => { const root = this.rootOf(p); return root ? relative(root.root, p).split(sep).join('/') : p; }).join(', ') + (batch.length > 3 ? ', …' : '');
      if (r.totals.files_parsed || r.totals.files_deleted) this.deps.log('info', `applied ${batch.length} changed path(s) in ${this.stats.last_run_ms} ms (${names}): ${r.totals.files_parsed} parsed, ${r.totals.files_deleted} deleted `
        + `(walk ${Math.round(t.walk_ms)}, parse ${Math.round(t.parse_ms)}, write ${Math.round(t.write_ms)}, graph ${Math.round(t.graph_ms)}, history ${Math.round(t.history_ms)} ms; ${cpuSince(cpu0)})`);
    } catch (e) {
      this.stats.failures++;
      this.deps.log('warn', `changed files not applied yet (${(e as Error).message}); trying again`);
      if (!this.closed) setTimeout(() => this.notify(batch), RETRY_MS).unref();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined; }
    await this.watcher?.close();
    this.watcher = null; this.stats.watching = false;
    await this.chain;
  }
}
