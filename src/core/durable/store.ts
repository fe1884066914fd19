/**
 * The durable store: where data a user (or an agent on their behalf) authored lives — project memories,
 * trust decisions, adapter state (later issues). The index file is a cache of the workspace, rebuilt on
 * a schema change, on `force` or when corrupt; nothing that cannot be recomputed from the files may
 * live only there. This port is that other place.
 *
 * A durable document is one JSON file, read and replaced whole:
 * - per workspace, for the user: `<data dir>/<workspace>-<hash of its roots>/<name>.json` (`durablePath`;
 *   data dir: SIGHTLINE_DATA_DIR, else the platform's user data folder — never the cache folder);
 * - per repository, shared with its team: `<root>/.sightline/<name>.json` (`repoDurablePath`), the same
 *   port on another path.
 * `update` is read-modify-write under `<file>.lock` (exclusive create; a holder that died or held it
 * longer than DURABLE_LOCK_STALE_MS is taken over), re-reading the file inside the lock, so two
 * processes updating at once both land (no lost update). Writes are atomic (temp file, fsync, rename,
 * fsync the folder: store/persist.ts `atomicWrite`). A file that is not valid JSON is never overwritten:
 * reads and updates fail with `DurableCorruptError` naming it, and the user's bytes stay as they were.
 */
import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname, homedir, platform } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { atomicWrite, cleanLeftoverTemps } from '../store/persist';
import { sha1 } from '../util/hash';

/** One durable JSON document. */
export interface DurablePort<T> {
  /** the document as it is on disk (the default when there is none yet) */
  read(): T;
  /** applies `fn` to the current document under the lock and writes the result atomically; returns it */
  update(fn: (current: T) => T): T;
  readonly path: string;
}

/** A lock held longer than this is taken over (an update holds it for milliseconds). */
export const DURABLE_LOCK_STALE_MS = 10_000;
/** How long `update` waits for another process's lock before failing. */
export const DURABLE_LOCK_WAIT_MS = 5_000;

export class DurableCorruptError extends Error {
  constructor(readonly path: string, reason: string) { super(`${path} is not valid JSON (${reason}); it was left untouched`); this.name = 'DurableCorruptError'; }
}
export class DurableLockedError extends Error {}

/** The per-user data folder (not the cache: nothing here may be deleted to make room). */
export function dataDir(): string {
  if (process.env.SIGHTLINE_DATA_DIR) return resolve(process.env.SIGHTLINE_DATA_DIR);
  if (platform() === 'win32') return join(process.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'sightline');
  if (platform() === 'darwin') return join(homedir(), 'Library', 'Application Support', 'sightline');
  return join(process.env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'sightline');
}

const safeName = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '-') || 'data';

/** A workspace's durable document `name`, for this user (keyed by the roots, like the index file). */
export function durablePath(roots: readonly string[], name: string): string {
  const key = roots.map(r => resolve(r)).sort().join('\n');
  const base = (roots[0] ? resolve(roots[0]).split(/[\\/]/).pop() : 'workspace') || 'workspace';
  return join(dataDir(), `${safeName(base)}-${sha1(key).slice(0, 12)}`, `${safeName(name)}.json`);
}

/** A repository's shared durable document `name` (committed with the repository if its team wants). */
export function repoDurablePath(root: string, name: string): string {
  return join(resolve(root), '.sightline', `${safeName(name)}.json`);
}

/**
 * Replaces a file the durable store generates for others to read (the export of project memories into
 * a repository's instruction files): atomically, like a document, without a lock (it is regenerated
 * whole from the documents, so the last writer's copy is as good as any).
 */
export function writeGeneratedFile(path: string, bytes: Uint8Array): void {
  cleanLeftoverTemps(path);
  atomicWrite(path, bytes);
}

const HOST = hostname();
const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (e) { return (e as NodeJS.ErrnoException).code === 'EPERM'; }
}

export class JsonDocument<T> implements DurablePort<T> {
  constructor(readonly path: string, private readonly defaults: () => T) {}

  read(): T {
    let text: string;
    try { text = readFileSync(this.path, 'utf8'); } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return this.defaults();
      throw e;
    }
    try { return JSON.parse(text) as T; } catch (e) { throw new DurableCorruptError(this.path, (e as Error).message); }
  }

  update(fn: (current: T) => T): T {
    const release = this.lock();
    try {
      const next = fn(this.read());
      cleanLeftoverTemps(this.path);
      atomicWrite(this.path, Buffer.from(`${JSON.stringify(next, null, 2)}\n`, 'utf8'));
      return next;
    } finally { release(); }
  }

  /** Takes `<file>.lock`, waiting up to DURABLE_LOCK_WAIT_MS for a live holder; returns its release. */
  private lock(): () => void {
    const lockPath = `${this.path}.lock`;
    const token = randomBytes(8).toString('hex');
    const body = JSON.stringify({ pid: process.pid, host: HOST, since: Date.now(), token });
    const deadline = Date.now() + DURABLE_LOCK_WAIT_MS;
    mkdirSync(dirname(this.path), { recursive: true });
    for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
      try {
        const fd = openSync(lockPath, 'wx', 0o644);
        try { writeSync(fd, body); } finally { closeSync(fd); }
        return () => {
          try { if (JSON.parse(readFileSync(lockPath, 'utf8')).token === token) unlinkSync(lockPath); } catch { /* taken over or gone */ }
        };
      } catch (e) { if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e; }
      this.takeOverIfAbandoned(lockPath);
      if (Date.now() > deadline) throw new DurableLockedError(`${lockPath} is held by another process`);
      sleep(wait);
    }
  }

  /** Moves aside a lock whose holder died (same host) or that is older than DURABLE_LOCK_STALE_MS. */
  private takeOverIfAbandoned(lockPath: string): void {
    let holder: { pid?: number; host?: string; token?: string } = {};
    let mtime: number;
    try { mtime = statSync(lockPath).mtimeMs; holder = JSON.parse(readFileSync(lockPath, 'utf8')); }
    catch { try { mtime = statSync(lockPath).mtimeMs; } catch { return; } } // being written, or just released
    const dead = holder.host === HOST && typeof holder.pid === 'number' && holder.pid !== process.pid && !alive(holder.pid);
    if (!dead && Date.now() - mtime < DURABLE_LOCK_STALE_MS) return;
    // Rename aside, then check that what moved is the lock judged (another process may have taken over first).
    const aside = `${lockPath}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
    try { renameSync(lockPath, aside); } catch { return; }
    try {
      const moved = JSON.parse(readFileSync(aside, 'utf8')) as { token?: string };
      // not the one judged (its holder is live): put it back, unless yet another process holds the lock now
      if (holder.token !== undefined && moved.token !== holder.token) linkSync(aside, lockPath);
    } catch { /* unreadable (abandoned mid-write), or the lock is held again */ }
    try { unlinkSync(aside); } catch { /* put back or gone */ }
  }
}
