/**
 * Where a slow run's wall time went: the process's CPU time (all its threads: V8's garbage-collection
 * helpers too), and the calling thread's scheduler account (Linux `/proc/thread-self/schedstat`): time on
 * a core and time spent runnable but waiting for one. A slow run with little of the first and much of the
 * second was starved by other programs, not slow itself; one with little of either was blocked (on the
 * disk, say). The thread's account is left out where that file does not exist (other systems).
 */
import { readFileSync } from 'node:fs';

export interface ThreadSample { on_cpu_ms: number; waiting_ms: number }
export interface CpuSample { process: NodeJS.CpuUsage; thread: ThreadSample | null }

export function threadSample(): ThreadSample | null {
  try {
    const [run, wait] = readFileSync('/proc/thread-self/schedstat', 'utf8').trim().split(/\s+/).map(Number);
    if (!Number.isFinite(run) || !Number.isFinite(wait)) return null;
    return { on_cpu_ms: run! / 1e6, waiting_ms: wait! / 1e6 };
  } catch { return null; }
}

export function cpuSample(): CpuSample { return { process: process.cpuUsage(), thread: threadSample() }; }

/** What the process and its thread did since `before`, in words for a log line. */
export function cpuSince(before: CpuSample): string {
  const u = process.cpuUsage(before.process);
  const text = `CPU ${Math.round((u.user + u.system) / 1000)} ms`;
  const now = before.thread && threadSample();
  if (!before.thread || !now) return text;
  return `${text}; on a core ${Math.round(now.on_cpu_ms - before.thread.on_cpu_ms)} ms, waiting for one ${Math.round(now.waiting_ms - before.thread.waiting_ms)} ms`;
}
