/**
 * Keeps the index fresh: indexes on start, then hands file creates/changes/deletes/renames to the engine
 * process as they come (`sightline/changed_paths`, sent on the next tick): the engine applies them within
 * its live index's debounce (no walk, only those files parsed), in the background, so an agent's next
 * question usually finds them applied, and a tool call applies whatever is still waiting before it answers.
 * A branch switch, a burst of more than MAX_PATHS paths or a forced run is a whole incremental run (a
 * walk, debounced); so are changes that arrive while such a run is under way. Owns the indexing state
 * that the status bar and views read.
 */
import * as vscode from 'vscode';
import type { EngineProcess, CallResult } from './engineProcess';

export type IndexPhase = 'starting' | 'indexing' | 'ready' | 'error';

export interface IndexStateSnapshot {
  phase: IndexPhase;
  message: string;
  done?: number;
  total?: number;
  lastReport?: Record<string, unknown>;
  lastError?: string;
  runs: number;
}

/** More changed paths than this in one burst: walk instead of naming them. */
const MAX_PATHS = 2000;
/** The index has been ready this long with no new run: views refresh and background work starts. */
export const QUIET_MS = 1000;

export class IndexScheduler implements vscode.Disposable {
  private state: IndexStateSnapshot = { phase: 'starting', message: 'starting', runs: 0 };
  private readonly emitter = new vscode.EventEmitter<IndexStateSnapshot>();
  readonly onDidChangeState = this.emitter.event;
  /**
   * Fired once a run's result has stood for QUIET_MS with no new run. What refreshes after runs (the
   * sidebar, the memories, the language servers' background checks) listens here: each asks the engine,
   * and asked between an edit's run and the tool call that follows it, they made that answer wait.
   */
  private readonly quietEmitter = new vscode.EventEmitter<IndexStateSnapshot>();
  readonly onDidQuiet = this.quietEmitter.event;
  /** a changed file went to the engine: background work of the quiet index stops (the next quiet restarts it) */
  private readonly handOverEmitter = new vscode.EventEmitter<void>();
  readonly onDidHandOver = this.handOverEmitter.event;
  private quietTimer: NodeJS.Timeout | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private pending = false;
  private pendingForce = false;
  private cancel: vscode.CancellationTokenSource | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private firstRun = true;
  /** the run under way names its paths (no walk) */
  private namedRun = false;
  /** paths changed since the last run; null: the next run walks (a branch switch, too many paths) */
  private changed: Set<string> | null = new Set();
  /** changed paths for the engine, sent on the next tick (the events of one save arrive together) */
  private readonly outgoing = new Set<string>();
  private sendTimer: NodeJS.Timeout | undefined;
  /** the hand-overs in flight, one after the other */
  private sending: Promise<void> = Promise.resolve();
  /** paths handed over within QUIET_MS of the first of them: past MAX_PATHS, a walk takes over */
  private burst = 0;
  private burstStart = 0;

  constructor(private readonly engine: EngineProcess, private readonly log: vscode.LogOutputChannel, private debounceMs: number) {}

  get snapshot(): IndexStateSnapshot { return this.state; }

  private set(patch: Partial<IndexStateSnapshot>): void {
    this.state = { ...this.state, ...patch };
    this.emitter.fire(this.state);
    this.rearmQuiet();
  }

  /** The quiet event comes QUIET_MS after the last run or hand-over. */
  private rearmQuiet(): void {
    if (this.quietTimer) { clearTimeout(this.quietTimer); this.quietTimer = undefined; }
    if (this.state.phase !== 'indexing') this.quietTimer = setTimeout(() => { this.quietTimer = undefined; this.quietEmitter.fire(this.state); }, QUIET_MS);
  }

  /** Watches the workspace; every event schedules one debounced incremental run. */
  watch(): void {
    const watcher = vscode.workspace.createFileSystemWatcher('**/*');
    const bump = (uri: vscode.Uri) => this.schedule(false, uri);
    this.disposables.push(watcher, watcher.onDidCreate(bump), watcher.onDidChange(bump), watcher.onDidDelete(bump),
      vscode.workspace.onDidRenameFiles(e => { for (const f of e.files) { bump(f.oldUri); bump(f.newUri); } }),
      vscode.workspace.onDidSaveTextDocument(d => bump(d.uri)));
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      // Branch switches: HEAD moves (the .git folder itself is outside the file watcher's default scope).
      const head = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, '.git/HEAD'));
      this.disposables.push(head, head.onDidChange(() => this.schedule()), head.onDidCreate(() => this.schedule()));
    }
  }

  setDebounce(ms: number): void { this.debounceMs = ms; }

  private handOver(path: string): void {
    this.outgoing.add(path);
    this.sendTimer ??= setTimeout(() => this.send(), 0);
    this.rearmQuiet();
    this.handOverEmitter.fire();
  }

  /** Sends the waiting paths; if the engine cannot take them, a run of the extension's own names them. */
  private send(): void {
    if (this.sendTimer) { clearTimeout(this.sendTimer); this.sendTimer = undefined; }
    const paths = [...this.outgoing];
    this.outgoing.clear();
    if (!paths.length) return;
    this.sending = this.sending.then(() => this.engine.request<{ accepted: number }>('sightline/changed_paths', { paths })).then(() => undefined, e => {
      this.log.warn(`could not hand ${paths.length} changed path(s) to the engine (${(e as Error).message}); indexing them in a run`);
      for (const p of paths) this.changed?.add(p);
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => { this.timer = undefined; void this.runNow(false, true); }, this.debounceMs);
    });
  }

  /**
   * A file event goes to the engine (`uri`, once the first index is done and no walk is under way or
   * waiting); anything else schedules a run: a whole incremental run when no uri is given.
   */
  schedule(force = false, uri?: vscode.Uri): void {
    if (uri && uri.scheme === 'file' && !force && !this.firstRun && !this.pendingForce && this.changed && !this.changed.size && !(this.running && !this.namedRun)) {
      const now = Date.now();
      if (now - this.burstStart > QUIET_MS) { this.burstStart = now; this.burst = 0; }
      if (++this.burst <= MAX_PATHS) { this.handOver(uri.fsPath); return; }
      this.changed = null; // a burst (a checkout, a generator): one walk finds it all
    }
    this.pendingForce ||= force;
    if (!uri || uri.scheme !== 'file' || force) this.changed = null;
    else if (this.changed) { this.changed.add(uri.fsPath); if (this.changed.size > MAX_PATHS) this.changed = null; }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => { this.timer = undefined; void this.runNow(false, true); }, this.debounceMs);
  }

  /**
   * Runs now (or right after the current run); resolves when the index is up to date. Asked for (not
   * `scheduled` by file events), it walks: whatever changed, events or not, is found.
   */
  async runNow(force = false, scheduled = false): Promise<void> {
    this.pendingForce ||= force;
    if (force || !scheduled) this.changed = null;
    if (this.running) { this.pending = true; return this.running; }
    this.running = (async () => {
      do {
        this.pending = false;
        const f = this.pendingForce; this.pendingForce = false;
        await this.runOnce(f);
      } while (this.pending);
    })().finally(() => { this.running = undefined; });
    return this.running;
  }

  private async runOnce(force: boolean): Promise<void> {
    this.cancel = new vscode.CancellationTokenSource();
    const token = this.cancel.token;
    this.set({ phase: 'indexing', message: 'indexing…', done: undefined, total: undefined });
    const onProgress = (message: string) => {
      const m = /(\d+)\/(\d+)/.exec(message);
      this.set({ message, done: m ? Number(m[1]) : undefined, total: m ? Number(m[2]) : undefined });
    };
    let result: CallResult;
    const paths = this.changed && !force && !this.firstRun ? [...this.changed] : null;
    this.changed = new Set();
    this.namedRun = !!paths;
    if (paths && !paths.length) { this.cancel.dispose(); this.cancel = undefined; this.set({ phase: 'ready', message: 'ready' }); return; }
    const call = () => this.engine.call('index_repo', paths ? { paths } : { force }, { token, onProgress });
    try {
      if (this.firstRun) {
        this.firstRun = false;
        result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Sightline: indexing workspace', cancellable: true }, async (progress, userToken) => {
          const sub = userToken.onCancellationRequested(() => this.cancel?.cancel());
          let last = 0;
          const r = await this.engine.call('index_repo', { force }, { token, onProgress: m => {
            onProgress(m);
            const mm = /(\d+)\/(\d+)/.exec(m);
            if (mm) { const pct = (Number(mm[1]) / Math.max(1, Number(mm[2]))) * 100; progress.report({ message: m, increment: Math.max(0, pct - last) }); last = pct; }
            else progress.report({ message: m });
          } });
          sub.dispose();
          return r;
        });
      } else result = await call();
    } catch (e) {
      result = { ok: false, markdown: String(e), error: { code: 'internal_error', message: (e as Error).message } };
    }
    this.cancel.dispose(); this.cancel = undefined;
    if (result.ok) {
      const totals = (result.data?.totals ?? {}) as Record<string, number>;
      this.log.info(`index run: ${JSON.stringify(totals)}; ms ${JSON.stringify(result.data?.timings ?? {})}`);
      this.set({ phase: 'ready', message: 'ready', lastReport: result.data, lastError: undefined, runs: this.state.runs + 1, done: undefined, total: undefined });
    } else if (result.error?.code === 'index_locked') {
      // Another window (or process) is writing this index: read its result and try again later.
      this.log.info(`index is being written elsewhere: ${result.error.message}; retrying in 5 s`);
      this.set({ phase: 'ready', message: 'another window is indexing' });
      setTimeout(() => this.schedule(), 5000);
    } else if (result.error?.code === 'cancelled') {
      this.set({ phase: 'ready', message: 'indexing cancelled (completed files kept)' });
    } else {
      this.log.error(`index run failed: ${result.error?.message ?? result.markdown}`);
      this.set({ phase: 'error', message: result.error?.message ?? 'indexing failed', lastError: result.error?.message });
    }
  }

  /**
   * Before a tool answers: changed paths not yet handed to the engine are sent (the engine applies what it
   * was told before it answers), file changes waiting for their debounce are applied now (named paths: a
   * short run), and a run of named paths under way is awaited. A walk or the first index is not waited for.
   */
  async settle(): Promise<void> {
    if (this.firstRun) return;
    this.send();
    await this.sending;
    if (this.timer && this.changed && this.changed.size) { clearTimeout(this.timer); this.timer = undefined; await this.runNow(false, true); return; }
    if (this.running && this.namedRun) await this.running;
  }

  cancelRun(): void { this.cancel?.cancel(); }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.sendTimer) clearTimeout(this.sendTimer);
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.quietEmitter.dispose();
    this.handOverEmitter.dispose();
    this.cancel?.cancel();
    for (const d of this.disposables) d.dispose();
    this.emitter.dispose();
  }
}
