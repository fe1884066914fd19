/**
 * The index file's lifecycle: open (refusing a file that is not a Sightline index outside the cache),
 * its stamp (readers reload a file another process saved), the writer lock, the save (the changed pages
 * appended to the change log, store/pagelog.ts) and a deferred save for writes that come in bursts. The index is a cache of the workspace: it may be
 * rebuilt at any time (schema change, `force`, corruption in the cache folder).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Store, type Diagnostic, type IndexFileProblem } from './store/store';
import { cleanLeftoverTemps, IndexLockedError, LockLostError, WriterLock, type LockHolder } from './store/persist';
import { PageLog, changesPath, hashesPath, diskStamp } from './store/pagelog';
import type { OpenOptions } from './store/store';
import { SightlineError } from './errors';
import type { IndexFilePort } from './pipeline/env';

type Log = (level: 'info' | 'warn' | 'error', message: string) => void;

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

export class IndexFile implements IndexFilePort {
  store!: Store;
  private stamp: string | null = null;
  private readonly lock: WriterLock;
  /** an indexing run is under way (readers do not reload under it) */
  writing = false;
  /** true when the in-memory index differs from the file on disk */
  unsaved = false;
  /** set when an index file of another schema version (or a corrupt one in the cache) was found and set aside */
  rebuiltFromScratch = false;
  /** a corrupt index file in the cache, replaced by an empty index: reported until the next save */
  openProblem: Diagnostic | null = null;
  private pendingSave: NodeJS.Timeout | undefined;
  private readonly loaded: (() => void)[] = [];
  private readonly pages: PageLog;

  private constructor(readonly dbPath: string, private readonly inCache: boolean, private readonly log: Log, private readonly opts: OpenOptions) {
    this.lock = new WriterLock(`${dbPath}.lock`);
    this.pages = new PageLog(dbPath);
  }

  /** Opens (or starts) the index file; `inCache`: it is in Sightline's cache folder (a corrupt one is rebuilt, not refused). */
  static async open(dbPath: string, inCache: boolean, log: Log, opts: OpenOptions = {}): Promise<IndexFile> {
    const f = new IndexFile(dbPath, inCache, log, opts);
    await f.load();
    const removed = [dbPath, changesPath(dbPath), hashesPath(dbPath)].flatMap(p => cleanLeftoverTemps(p));
    if (removed.length) log('warn', `removed ${removed.length} temp file(s) left by an interrupted save: ${removed.join(', ')}`);
    return f;
  }

  /** The roots this index records that still exist; `fallback` when it records none. */
  recordedRoots(fallback: readonly string[]): string[] {
    const roots = this.store.meta.repos().map(r => r.root).filter(r => existsSync(r));
    return roots.length ? roots : [...fallback];
  }

  /** Called after every (re)load: what was derived from the previous store is stale. */
  onLoad(fn: () => void): void { this.loaded.push(fn); }

  private async load(): Promise<void> {
    const old = this.store as Store | undefined;
    const stamp = diskStamp(this.dbPath);
    const { store, rebuilt, problem, image } = await Store.open(existsSync(this.dbPath) ? this.dbPath : null, this.opts);
    // what is on disk may have changed under us: the next save compares against the files again
    this.pages.reset();
    if (image?.ignored) this.log('warn', `index file ${this.dbPath}: ${image.ignored}; the index is the state of the last complete save`);
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
    for (const fn of this.loaded) fn();
    old?.close();
  }

  /** Readers pick up an index file that another process wrote since we loaded ours. */
  async refresh(): Promise<void> {
    if (this.writing) return;
    if (diskStamp(this.dbPath) !== this.stamp) await this.load();
  }

  /** A writer starts from the file on disk: another writer may have saved since we loaded. */
  async reloadIfChanged(): Promise<void> {
    if (diskStamp(this.dbPath) !== this.stamp) await this.load();
  }

  markUnsaved(): void { this.unsaved = true; }

  get lockHeld(): boolean { return this.lock.isHeld; }
  inspectLock(): LockHolder | null { return this.lock.inspect(); }
  releaseLock(): void { this.lock.release(); }

  /** Takes the writer lock, or says who holds it (index_locked). */
  acquireLock(): void {
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

  /**
   * Persists the index: the changed pages to the change log (or a new snapshot). `collect`: a full garbage
   * collection first, for a run that wrote a large share of the index (a cold index, an import).
   */
  save(opts: { collect?: boolean } = {}): void {
    // A writer judged stale (a frozen or very slow process) may have lost the lock to another: never
    // overwrite that writer's file.
    try { this.lock.assertHeld(); }
    catch (e) { if (e instanceof LockLostError) throw new SightlineError('index_locked', e.message, { lock_path: this.lock.lockPath }); throw e; }
    // Temp files of saves that crashed (ours or another dead writer's) go before this one is written.
    const removed = [this.dbPath, changesPath(this.dbPath), hashesPath(this.dbPath)].flatMap(p => cleanLeftoverTemps(p));
    if (removed.length) this.log('warn', `removed ${removed.length} temp file(s) left by an interrupted save: ${removed.join(', ')}`);
    // After a large run, its garbage is collected first. Even with no copy of the database (store/image.ts)
    // it matters: without it a cold index of 10M lines peaked at 3.37 GB instead of 2.9 GB. Not after a
    // small one: in a long-lived engine that holds the resolver tables and read caches (a heap of 400 MB
    // at 5M lines) a forced collection paused the engine for 0.7 s, and an edit arriving then waited.
    if (opts.collect) collectGarbage();
    const image = this.store.imageForSave(String(Date.now()));
    // the pages that changed since the last save go to the change log (or, now and then, a new snapshot);
    // only the pages SQLite wrote since are compared, when the buffer knows them
    try { this.pages.commit(image); }
    catch (e) { this.pages.reset(); throw e; } // what is on disk is not known now: the next save compares with it again
    this.store.imageSaved();
    this.store.keepRoom();
    this.stamp = diskStamp(this.dbPath);
    this.unsaved = false;
    this.openProblem = null; // the corrupt file is replaced
  }

  /**
   * Replaces the index with another store (an imported index, services/portable.ts; this file owns it
   * from now on), under the writer lock, and saves it at once; readers reload it as they would another
   * writer's save.
   */
  adopt(store: Store): void {
    const held = this.lock.isHeld;
    try { if (!held) this.acquireLock(); } catch (e) { store.close(); throw e; }
    try {
      const old = this.store as Store | undefined;
      this.store = store;
      this.rebuiltFromScratch = false;
      for (const fn of this.loaded) fn();
      old?.close();
      this.unsaved = true;
      this.save({ collect: true });
    } finally { if (!held) this.lock.release(); }
  }

  /** Writes that come in bursts save once the burst is over (`delayMs` after the last), holding the lock until then. */
  scheduleSave(delayMs: number): void {
    if (this.pendingSave) clearTimeout(this.pendingSave);
    this.pendingSave = setTimeout(() => this.flushScheduledSave(), delayMs);
  }

  /** A scheduled save is waiting (the writer lock is held for it). */
  get savePending(): boolean { return this.pendingSave !== undefined; }

  /** Cancels a scheduled save, keeping the lock and the unsaved state for the caller's save; false when none was scheduled. */
  cancelScheduledSave(): boolean {
    if (!this.pendingSave) return false;
    clearTimeout(this.pendingSave);
    this.pendingSave = undefined;
    return true;
  }

  /** Saves what a scheduled save would have, now, and releases the writer lock (unless a run holds it). */
  flushScheduledSave(): void {
    if (!this.pendingSave) return;
    clearTimeout(this.pendingSave);
    this.pendingSave = undefined;
    try { if (this.unsaved) this.save(); } catch (e) { this.log('error', `saving the index failed: ${(e as Error).message}`); }
    finally { if (!this.writing) this.lock.release(); }
  }

  close(): void {
    this.flushScheduledSave();
    this.store?.close();
    this.lock.release();
  }
}

export function corruptError(dbPath: string, problem: IndexFileProblem): SightlineError {
  return new SightlineError('index_corrupt', `${dbPath} is not a readable Sightline index: ${problem.reason}. It was left untouched; `
    + 'point --db (or sightline.index.location) at a Sightline index file or at a new path, or remove the file', { db_path: dbPath, kind: problem.kind, reason: problem.reason });
}
