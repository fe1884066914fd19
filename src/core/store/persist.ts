/**
 * Putting the index on disk: the atomic save, the writer lock, and cleaning what a crash leaves behind.
 *
 * The writer lock is `<index>.lock`, created exclusively, holding `{pid, host, since, token}`. While it is
 * held, a heartbeat thread refreshes the file's mtime every LOCK_HEARTBEAT_MS (a thread of its own, so a
 * long synchronous stretch of the writer — a graph build, an export — does not stop it). Another writer
 * takes the lock over when its holder is
 * - dead: same host and the pid is gone (or the pid is this process's but the lock is not one of its own:
 *   a previous process with the same pid, as after a container restart), or
 * - stale: no heartbeat for LOCK_STALE_MS, whatever the pid (pid reuse, a hung or frozen process, a holder
 *   on another host).
 * A take-over renames the lock aside and checks that the renamed file is the stale one it judged, so two
 * writers taking over at once never both win. A holder whose lock was taken over notices (its heartbeat
 * sees another token) and refuses to save.
 *
 * Temp files of a save are `.<index>.<host>.<pid>.<time>.tmp` beside the index; a crash during a save
 * leaves one behind. `cleanLeftoverTemps` removes those whose writer is dead (same host, pid gone or this
 * process) or that have not been written to for TMP_STALE_MS (any host).
 */
import { closeSync, fsyncSync, openSync, renameSync, writeSync, unlinkSync, readFileSync, mkdirSync, statSync, readdirSync, linkSync, utimesSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Worker } from 'node:worker_threads';

/** The holder refreshes the lock's mtime this often. */
export const LOCK_HEARTBEAT_MS = 5_000;
/** A lock file without its holder's pid (empty, half-written) this long after it was made is taken over. */
export const UNWRITTEN_LOCK_MS = 250;
/** A lock without a heartbeat for this long is stale and taken over. */
export const LOCK_STALE_MS = 30_000;
/** A temp file not written to for this long is a leftover, whoever wrote it. */
export const TMP_STALE_MS = 5 * 60_000;

const HOST = hostname();
const hostTag = (h: string) => h.replace(/[^A-Za-z0-9-]/g, '_') || 'host';

function tmpPattern(target: string): RegExp {
  const base = basename(target).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // current names carry the host; names of earlier versions do not
  return new RegExp(`^\\.${base}\\.(?:([A-Za-z0-9_-]+)\\.)?(\\d+)\\.(\\d+)\\.tmp$`);
}

/** Writes a file atomically: temp file in the same folder, fsync, rename over the target, fsync the folder. */
export function atomicWrite(target: string, bytes: Uint8Array): void {
  mkdirSync(dirname(target), { recursive: true });
  const tmp = join(dirname(target), `.${basename(target)}.${hostTag(HOST)}.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(tmp, 'w', 0o644);
  try {
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    try { unlinkSync(tmp); } catch { /* already gone */ }
    throw e;
  }
  closeSync(fd);
  renameSync(tmp, target);
  try { const d = openSync(dirname(target), 'r'); try { fsyncSync(d); } finally { closeSync(d); } } catch { /* not supported on every platform */ }
}

/**
 * Removes temp files of earlier saves of `target` that no live writer is writing: same host and the pid
 * is gone or is this process (saves are synchronous: none of ours is in progress while this runs), or
 * not modified for TMP_STALE_MS. Returns the names removed.
 */
export function cleanLeftoverTemps(target: string, staleMs = TMP_STALE_MS): string[] {
  const dir = dirname(target);
  const re = tmpPattern(target);
  let names: string[];
  try { names = readdirSync(dir); } catch { return []; }
  const removed: string[] = [];
  for (const name of names) {
    const m = re.exec(name);
    if (!m) continue;
    const host = m[1]; const pid = Number(m[2]);
    const sameHost = host === undefined || host === hostTag(HOST);
    const file = join(dir, name);
    let leftover = sameHost && (pid === process.pid || !alive(pid));
    if (!leftover) { try { leftover = Date.now() - statSync(file).mtimeMs > staleMs; } catch { continue; } }
    if (!leftover) continue;
    try { unlinkSync(file); removed.push(name); } catch { /* removed by someone else */ }
  }
  return removed;
}

/** Identity of a file version: changes whenever a writer renames a new index into place. */
export function fileStamp(path: string): string | null {
  try { const s = statSync(path); return `${s.ino}:${s.size}:${s.mtimeMs}`; } catch { return null; }
}

export interface LockInfo { pid: number; host: string; since: number; token?: string }

/** What a lock file says about its holder, judged now. */
export interface LockHolder extends LockInfo {
  /** last heartbeat (the lock file's mtime) */
  heartbeat_at: number;
  /** active: it may be writing; dead: same host, process gone; stale: no heartbeat for LOCK_STALE_MS */
  state: 'active' | 'stale' | 'dead';
  /** the lock is held by this process */
  this_process: boolean;
}

export class IndexLockedError extends Error {
  constructor(readonly holder: LockHolder, readonly lockPath: string) {
    super(holder.this_process
      ? 'an index run is already in progress in this process'
      : `the index is being written by another process (pid ${holder.pid} on ${holder.host} since ${new Date(holder.since).toISOString()}, last heartbeat ${new Date(holder.heartbeat_at).toISOString()})`);
  }
}

/** The writer lost its lock to another writer (it was judged stale) before it could save. */
export class LockLostError extends Error {}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try { process.kill(pid, 0); return true; } catch (e) { return (e as NodeJS.ErrnoException).code === 'EPERM'; }
}

/** Tokens of the locks this process holds (another Engine of this process on the same index sees them). */
const heldTokens = new Set<string>();

function readLockFile(path: string): { info: LockInfo | null; mtimeMs: number } | null {
  let mtimeMs: number;
  try { mtimeMs = statSync(path).mtimeMs; } catch { return null; }
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as LockInfo;
    return { info: typeof v.pid === 'number' && typeof v.host === 'string' ? v : null, mtimeMs };
  } catch { return { info: null, mtimeMs }; } // being written, or half-written by a crashed process
}

/** Who holds the lock at `lockPath` and whether it is alive; null when nobody does. */
export function inspectLock(lockPath: string, staleMs = LOCK_STALE_MS): LockHolder | null {
  const r = readLockFile(lockPath);
  if (!r) return null;
  const age = Date.now() - r.mtimeMs;
  if (!r.info) {
    // created a moment ago by a writer that has not written its pid yet (it writes it at once), or left
    // empty or half-written: taken over once UNWRITTEN_LOCK_MS passed
    return { pid: -1, host: 'unknown', since: r.mtimeMs, heartbeat_at: r.mtimeMs, state: age < UNWRITTEN_LOCK_MS ? 'active' : 'stale', this_process: false };
  }
  const h = r.info;
  const mine = !!h.token && heldTokens.has(h.token);
  let state: LockHolder['state'];
  if (mine) state = 'active';
  else if (h.host === HOST && (h.pid === process.pid || !alive(h.pid))) state = 'dead';
  else state = age > staleMs ? 'stale' : 'active';
  return { pid: h.pid, host: h.host, since: h.since, ...(h.token ? { token: h.token } : {}), heartbeat_at: r.mtimeMs, state, this_process: mine };
}

/** Refreshes the lock's mtime from a thread of its own; reports 'lost' when the lock is no longer ours. */
const HEARTBEAT_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { path, token, interval } = workerData;
let timer;
const stop = () => { clearInterval(timer); parentPort.close(); };
const beat = () => {
  let v;
  try { v = JSON.parse(fs.readFileSync(path, 'utf8')); } catch (e) { if (e && e.code === 'ENOENT') { parentPort.postMessage('lost'); stop(); } return; }
  if (!v || v.token !== token) { parentPort.postMessage('lost'); stop(); return; }
  try { const now = new Date(); fs.utimesSync(path, now, now); } catch { /* next beat */ }
};
timer = setInterval(beat, interval);
parentPort.on('message', m => { if (m === 'stop') stop(); });
`;

/** One writer per index: see the header of this file. */
export class WriterLock {
  private token: string | null = null;
  private heartbeat: Worker | null = null;
  private lost = false;
  constructor(readonly lockPath: string, private readonly opts: { heartbeatMs?: number; staleMs?: number } = {}) {}

  private get staleMs(): number { return this.opts.staleMs ?? LOCK_STALE_MS; }

  acquire(): void {
    if (this.token) throw new IndexLockedError(this.inspect() ?? { pid: process.pid, host: HOST, since: Date.now(), heartbeat_at: Date.now(), state: 'active', this_process: true }, this.lockPath);
    mkdirSync(dirname(this.lockPath), { recursive: true });
    for (let attempt = 0; attempt < 4; attempt++) {
      const token = randomBytes(12).toString('hex');
      let fd: number;
      try { fd = openSync(this.lockPath, 'wx', 0o644); }
      catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        const holder = this.inspect();
        if (!holder) continue; // released in the meantime
        if (holder.state === 'active') throw new IndexLockedError(holder, this.lockPath);
        this.takeOver(holder);
        continue;
      }
      try { writeSync(fd, JSON.stringify({ pid: process.pid, host: HOST, since: Date.now(), token } satisfies LockInfo)); }
      finally { closeSync(fd); }
      this.token = token; this.lost = false;
      heldTokens.add(token);
      this.startHeartbeat(token);
      return;
    }
    const holder = this.inspect() ?? { pid: -1, host: 'unknown', since: Date.now(), heartbeat_at: Date.now(), state: 'active' as const, this_process: false };
    throw new IndexLockedError(holder, this.lockPath);
  }

  /**
   * Removes a dead or stale lock: renamed aside first, then checked to be the lock that was judged (a
   * writer that took it over in the meantime has a fresh one, which is put back).
   */
  private takeOver(judged: LockHolder): void {
    const aside = `${this.lockPath}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
    try { renameSync(this.lockPath, aside); } catch { return; } // gone, or taken over by someone else first
    const moved = readLockFile(aside);
    const same = moved?.info ? moved.info.token === judged.token && moved.info.pid === judged.pid && moved.info.since === judged.since
      : judged.pid === -1;
    if (!same) {
      // not the lock we judged: put it back unless a newer one is already in place
      try { linkSync(aside, this.lockPath); } catch { /* a newer lock exists */ }
    }
    try { unlinkSync(aside); } catch { /* fine */ }
  }

  private startHeartbeat(token: string): void {
    const interval = this.opts.heartbeatMs ?? LOCK_HEARTBEAT_MS;
    try {
      const w = new Worker(HEARTBEAT_SOURCE, { eval: true, workerData: { path: this.lockPath, token, interval } });
      w.on('message', m => { if (m === 'lost' && this.token === token) this.lost = true; });
      w.on('error', () => { /* the lock then goes stale: others take it over */ });
      w.unref();
      this.heartbeat = w;
    } catch { /* no threads: the lock goes stale after LOCK_STALE_MS without a heartbeat */ }
  }

  /** Refreshes the heartbeat now (before a long step) and checks the lock is still ours. */
  touch(): void {
    this.assertHeld();
    try { const now = new Date(); utimesSync(this.lockPath, now, now); } catch { /* checked above */ }
  }

  /** Throws LockLostError when another writer took the lock over (it judged this holder stale). */
  assertHeld(): void {
    if (!this.token) throw new LockLostError('the writer lock is not held');
    const r = readLockFile(this.lockPath);
    if (this.lost || r?.info?.token !== this.token) {
      const other = r?.info ? `pid ${r.info.pid} on ${r.info.host}` : 'nobody';
      throw new LockLostError(`the writer lock was taken over while this process held it (now held by ${other}); nothing was saved`);
    }
  }

  release(): void {
    const token = this.token;
    if (!token) return;
    this.token = null;
    heldTokens.delete(token);
    if (this.heartbeat) { this.heartbeat.postMessage('stop'); void this.heartbeat.terminate(); this.heartbeat = null; }
    // Only our own lock is removed: one taken over by another writer stays.
    if (readLockFile(this.lockPath)?.info?.token === token) { try { unlinkSync(this.lockPath); } catch { /* fine */ } }
  }

  get isHeld(): boolean { return this.token !== null; }

  inspect(): LockHolder | null { return inspectLock(this.lockPath, this.staleMs); }
}
