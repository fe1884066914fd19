/**
 * The calling thread's scheduler account (Linux `/proc/thread-self/schedstat`): time on a core and time
 * spent runnable but waiting for one. A slow run with little of the first and much of the second was
 * starved by other programs, not slow itself; one with little of either was blocked (on the disk, say).
 * Null where the file does not exist (other systems).
 */
import { readFileSync } from 'node:fs';

export interface SchedSample { on_cpu_ms: number; waiting_ms: number }

export function schedSample(): SchedSample | null {
  try {
    const [run, wait] = readFileSync('/proc/thread-self/schedstat', 'utf8').trim().split(/\s+/).map(Number);
    if (!Number.isFinite(run) || !Number.isFinite(wait)) return null;
    return { on_cpu_ms: run! / 1e6, waiting_ms: wait! / 1e6 };
  } catch { return null; }
}

/** What happened to the thread between two samples, in words for a log line ("" when unknown). */
export function schedSince(before: SchedSample | null): string {
  const now = before && schedSample();
  if (!before || !now) return '';
  return `; on a core ${Math.round(now.on_cpu_ms - before.on_cpu_ms)} ms, waiting for one ${Math.round(now.waiting_ms - before.waiting_ms)} ms`;
}
