import { closeSync, fsyncSync, openSync, renameSync, writeSync, unlinkSync, readFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { hostname } from 'node:os';

/** Writes a file atomically: temp file in the same folder, fsync, rename over the target, fsync the folder. */
export function atomicWrite(target: string, bytes: Uint8Array): void {
  mkdirSync(dirname(target), { recursive: true });
  const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.${Date.now()}.tmp`);
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

/** Identity of a file version: changes whenever a writer renames a new index into place. */
export function fileStamp(path: string): string | null {
  try { const s = statSync(path); return `${s.ino}:${s.size}:${s.mtimeMs}`; } catch { return null; }
}

export class IndexLockedError extends Error {
  constructor(readonly holder: LockInfo, readonly lockPath: string) {
    super(holder.pid === process.pid && holder.host === hostname()
      ? 'an index run is already in progress in this process'
      : `the index is being written by another process (pid ${holder.pid} on ${holder.host} since ${new Date(holder.since).toISOString()})`);
  }
}

export interface LockInfo { pid: number; host: string; since: number }

function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (e) { return (e as NodeJS.ErrnoException).code === 'EPERM'; }
}

/**
 * One writer per index: an exclusive lock file next to the index. A lock whose holder died (same host,
 * process gone) is taken over; a live holder makes acquire() throw IndexLockedError.
 */
export class WriterLock {
  private held = false;
  constructor(readonly lockPath: string) {}

  acquire(): void {
    mkdirSync(dirname(this.lockPath), { recursive: true });
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const fd = openSync(this.lockPath, 'wx', 0o644);
        writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), since: Date.now() } satisfies LockInfo));
        closeSync(fd);
        this.held = true;
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        const holder = this.readHolder();
        if (!holder && this.ageMs() < 2000) {
          // Just created by another process that has not written its pid yet: treat as held.
          throw new IndexLockedError({ pid: -1, host: 'unknown', since: Date.now() }, this.lockPath);
        }
        if (holder && holder.pid === process.pid && holder.host === hostname()) throw new IndexLockedError(holder, this.lockPath);
        if (holder && (holder.host !== hostname() || alive(holder.pid))) throw new IndexLockedError(holder, this.lockPath);
        try { unlinkSync(this.lockPath); } catch { /* another process took it over first */ }
      }
    }
    const holder = this.readHolder() ?? { pid: -1, host: 'unknown', since: Date.now() };
    throw new IndexLockedError(holder, this.lockPath);
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    try { unlinkSync(this.lockPath); } catch { /* fine */ }
  }

  get isHeld(): boolean { return this.held; }

  private ageMs(): number {
    try { return Date.now() - statSync(this.lockPath).mtimeMs; } catch { return Infinity; }
  }

  private readHolder(): LockInfo | null {
    try {
      if (!existsSync(this.lockPath)) return null;
      const v = JSON.parse(readFileSync(this.lockPath, 'utf8')) as LockInfo;
      return typeof v.pid === 'number' ? v : null;
    } catch { return null; } // half-written lock: treated as dead
  }
}
