/**
 * Containment: every read of a workspace file — by the walk, by a parser worker, and at request time
 * (get_chunk) — goes through these rules, so a file that became a symlink after it was indexed is never
 * followed out of its root:
 * - the real path (every symlink resolved) must lie inside the real path of the root;
 * - only regular files are read (a FIFO, a device or a folder is refused, without blocking on it);
 * - the file opened is the file checked: after opening, the descriptor's own path (Linux:
 *   /proc/self/fd) or its identity (elsewhere: device + inode against the checked path) must agree, so
 *   a link swapped in between the check and the open is refused too;
 * - at most `maxBytes` are read.
 * Reads are synchronous: parser workers call it off the main thread, get_chunk reads one file.
 */
import { closeSync, constants, fstatSync, openSync, readSync, readlinkSync, realpathSync, statSync, promises as fsp } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** Whether `real` (an absolute, resolved path) is `rootReal` or lies inside it. */
export function isInside(rootReal: string, real: string): boolean {
  const rel = relative(rootReal, real);
  if (rel === '') return true;
  return !(rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel));
}

export type ContainedError =
  | { code: 'outside_workspace'; message: string }
  | { code: 'not_a_file'; message: string }
  | { code: 'too_large'; message: string; size: number }
  | { code: 'unreadable'; message: string };

export type ContainedRead = { ok: true; bytes: Buffer; real: string } | ({ ok: false } & ContainedError);

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
const PROC_FD = process.platform === 'linux';

const outside = (rel: string): ContainedError => ({ code: 'outside_workspace', message: `${rel} resolves to a path outside the workspace root (a symlink leads out); not read` });

/** The path a descriptor really refers to (Linux), or null when the platform cannot tell. */
function fdPath(fd: number): string | null {
  if (!PROC_FD) return null;
  try { return readlinkSync(`/proc/self/fd/${fd}`); } catch { return null; }
}

/** Resolves `rel` under `rootReal` and checks containment (for the walk, which only needs the real path). */
export async function resolveInside(rootReal: string, abs: string): Promise<{ real: string; inside: boolean }> {
  const real = await fsp.realpath(abs);
  return { real, inside: isInside(rootReal, real) };
}

/**
 * The real path of a repository-relative file when it is inside the root, else null (for handing a
 * path to another reader, e.g. the editor's language servers).
 */
export function realInsideSync(rootReal: string, rel: string): string | null {
  const abs = resolve(rootReal, rel);
  if (!isInside(rootReal, abs)) return null;
  try { const real = realpathSync(abs); return isInside(rootReal, real) && statSync(real).isFile() ? real : null; } catch { return null; }
}

/**
 * Reads a repository-relative file of a root under the containment rules. `rootReal` must be the real
 * path of the root. Never throws: a refused or failed read is an error outcome.
 */
export function readContainedSync(rootReal: string, rel: string, maxBytes: number): ContainedRead {
  const abs = resolve(rootReal, rel);
  if (!isInside(rootReal, abs)) return { ok: false, ...outside(rel) };
  let real: string;
  try { real = realpathSync(abs); } catch (e) { return { ok: false, code: 'unreadable', message: `cannot read ${rel}: ${(e as Error).message}` }; }
  if (!isInside(rootReal, real)) return { ok: false, ...outside(rel) };
  let fd: number;
  try { fd = openSync(real, OPEN_FLAGS); } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // O_NOFOLLOW: the resolved path became a symlink after it was resolved
    if (code === 'ELOOP') return { ok: false, ...outside(rel) };
    return { ok: false, code: 'unreadable', message: `cannot read ${rel}: ${(e as Error).message}` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { ok: false, code: 'not_a_file', message: `${rel} is not a regular file; not read` };
    const opened = fdPath(fd);
    if (opened !== null) { if (!isInside(rootReal, opened)) return { ok: false, ...outside(rel) }; }
    else {
      let same = false;
      try { const now = statSync(real); same = now.ino === st.ino && now.dev === st.dev && isInside(rootReal, realpathSync(abs)); } catch { /* gone */ }
      if (!same) return { ok: false, ...outside(rel) };
    }
    if (st.size > maxBytes) return { ok: false, code: 'too_large', size: st.size, message: `${st.size} bytes is over the ${maxBytes}-byte limit; not read` };
    // Read to the end (the file may have grown since fstat), never past maxBytes.
    const chunks: Buffer[] = []; let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(Math.max(st.size - total, 0) + 1, 1 << 20, maxBytes + 1 - total) || 1);
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      chunks.push(n === buf.length ? buf : buf.subarray(0, n)); total += n;
      if (total > maxBytes) return { ok: false, code: 'too_large', size: total, message: `over the ${maxBytes}-byte limit; not read` };
    }
    return { ok: true, bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total), real };
  } catch (e) {
    return { ok: false, code: 'unreadable', message: `cannot read ${rel}: ${(e as Error).message}` };
  } finally { closeSync(fd); }
}
