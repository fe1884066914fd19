/**
 * Killing a process tree: the one implementation for the external reference-provider runner
 * (providers/external.ts) and the first-party adapters' child processes (providers/adapters/common.ts):
 * spawning a tree's root, remembering its descendants while it runs, and killing it.
 *
 * A process group is not a tree: a descendant that called setsid() (or setpgid) leaves the group and
 * survives a signal to it. So the tree is found by parent pid — Linux: every /proc/<pid>/stat; other
 * POSIX systems: `ps -A -o pid=,ppid=,stat=,lstart=` — starting from the root and every descendant seen
 * before (a process whose parent died is re-parented, so descendants are remembered, with their start
 * time so that a reused pid is never signalled). Killing:
 * 1. SIGTERM to every live member and to the root's process group, re-scanning for new children, until
 *    none is left or the grace period ends;
 * 2. then, until none is left: SIGSTOP every member (a stopped process cannot fork), re-scan until no new
 *    member appears, SIGKILL them all.
 * Zombies count as gone. Windows: `taskkill /T /F` (the tree by parent process id, done by Windows).
 * A descendant whose parent exited before it was ever seen (a double fork between two scans) cannot be
 * found by parent pid; `ProcessTree.scan` while the root runs narrows that window.
 */
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const isWindows = process.platform === 'win32';
const isLinux = process.platform === 'linux';

interface ProcInfo { ppid: number; pgid: number; start: string; zombie: boolean }

/** The process table now: pid → parent, process group, start time, zombie. */
function snapshot(): Map<number, ProcInfo> {
  const table = new Map<number, ProcInfo>();
  if (isLinux) {
    let names: string[] = [];
    try { names = readdirSync('/proc'); } catch { return table; }
    for (const n of names) {
      if (n.charCodeAt(0) < 48 || n.charCodeAt(0) > 57) continue;
      let stat: string;
      try { stat = readFileSync(`/proc/${n}/stat`, 'latin1'); } catch { continue; } // exited meanwhile
      // "pid (comm) state ppid pgrp … starttime(22) …": comm may hold spaces and parentheses
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(n), { ppid: Number(rest[1]), pgid: Number(rest[2]), start: rest[19] ?? '', zombie: rest[0] === 'Z' || rest[0] === 'X' });
    }
    return table;
  }
  try {
    const out = execFileSync('ps', ['-A', '-o', 'pid=,ppid=,pgid=,stat=,lstart='], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 });
    for (const line of out.split('\n')) {
      const m = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
      if (m) table.set(Number(m[1]), { ppid: Number(m[2]), pgid: Number(m[3]), start: m[5]!.trim(), zombie: m[4]!.startsWith('Z') });
    }
  } catch { /* no ps: only the root and its group can be signalled */ }
  return table;
}

function signal(pid: number, sig: NodeJS.Signals | 0): boolean {
  try { process.kill(pid, sig); return true; } catch (e) { return (e as NodeJS.ErrnoException).code === 'EPERM'; }
}

/**
 * A process, every descendant seen so far and every member of its process group (the root leads one),
 * remembered by pid and start time.
 */
export class ProcessTree {
  private readonly known = new Map<number, string | null>();
  constructor(readonly root: number) {
    this.known.set(root, isWindows ? null : snapshot().get(root)?.start ?? null);
  }

  /** Adds every running descendant of a known member and every group member; forgets members that are gone. Returns the live members. */
  scan(table = snapshot()): number[] {
    // a pid now running under another start time is another process: forget it
    for (const [pid, start] of this.known) {
      const p = table.get(pid);
      if (!p || p.zombie || (start !== null && p.start !== start)) this.known.delete(pid);
      else if (start === null) this.known.set(pid, p.start);
    }
    for (let added = true; added;) {
      added = false;
      for (const [pid, p] of table) {
        if (!this.known.has(pid) && !p.zombie && (this.known.has(p.ppid) || p.pgid === this.root)) { this.known.set(pid, p.start); added = true; }
      }
    }
    return [...this.known.keys()];
  }

  /** Live members (a scan). */
  alive(): number[] { return this.scan(); }

  /** Sends a signal to every live member and to the root's process group. */
  signal(sig: NodeJS.Signals, members = this.alive()): void {
    signal(-this.root, sig); // the group: members that left no trace in the table yet
    for (const pid of members) signal(pid, sig);
  }

}

const delay = (ms: number, ref: boolean) => new Promise<void>(r => { const t = setTimeout(r, ms); if (!ref) t.unref(); });
const sleepSync = (ms: number) => { try { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms); } catch { /* no wait on this thread */ } };

/** SIGSTOP the members until no new one appears, then SIGKILL them all; true when none is left. */
function forceRound(tree: ProcessTree): boolean {
  let members = tree.alive();
  if (!members.length) return true;
  for (let i = 0; i < 20; i++) {
    tree.signal('SIGSTOP', members);
    const again = tree.alive();
    const grown = again.length > members.length || again.some(p => !members.includes(p));
    members = again;
    if (!grown) break;
  }
  tree.signal('SIGKILL', members);
  return false;
}

function taskkill(pid: number): Promise<void> {
  return new Promise<void>(res => {
    try {
      const k = spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { windowsHide: true, stdio: 'ignore' });
      const t = setTimeout(() => { k.kill(); res(); }, 5000);
      k.once('error', () => { clearTimeout(t); res(); });
      k.once('exit', () => { clearTimeout(t); res(); });
    } catch { res(); }
  });
}

/**
 * Kills the tree: SIGTERM first, SIGKILL for what is left after `graceMs` (see the header). Resolves when
 * no member is left (or after a bounded number of rounds). `background`: its timers do not keep the
 * process alive.
 */
export async function killProcessTree(rootOrTree: number | ProcessTree, opts: { graceMs?: number; background?: boolean } = {}): Promise<void> {
  if (isWindows) { await taskkill(typeof rootOrTree === 'number' ? rootOrTree : rootOrTree.root); return; }
  const tree = typeof rootOrTree === 'number' ? new ProcessTree(rootOrTree) : rootOrTree;
  const ref = !opts.background;
  const members = tree.alive();
  if (!members.length) return;
  tree.signal('SIGTERM', members);
  const asked = new Set(members);
  const deadline = Date.now() + (opts.graceMs ?? 500);
  while (Date.now() < deadline) {
    await delay(25, ref);
    const now = tree.alive();
    if (!now.length) return;
    const added = now.filter(p => !asked.has(p)); // members forked since get the request too
    for (const p of added) { asked.add(p); signal(p, 'SIGTERM'); }
  }
  for (let round = 0; round < 50; round++) {
    if (forceRound(tree)) return;
    await delay(20, ref);
  }
}

/** Synchronous SIGKILL of the tree (exit hooks, synchronous callers); bounded to about a second. */
export function killProcessTreeSync(rootOrTree: number | ProcessTree): void {
  if (isWindows) {
    const pid = typeof rootOrTree === 'number' ? rootOrTree : rootOrTree.root;
    try { execFileSync('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true, timeout: 5000 }); } catch { /* gone */ }
    return;
  }
  const tree = typeof rootOrTree === 'number' ? new ProcessTree(rootOrTree) : rootOrTree;
  for (let round = 0; round < 50; round++) {
    if (forceRound(tree)) return;
    sleepSync(20);
  }
}

/** How often a running tree is re-scanned for new descendants. */
export const TREE_SCAN_MS = 1000;

/**
 * Spawns `command` as the root of a process tree: on POSIX in a process group of its own (detached), so
 * that its descendants can be found and killed with it; never a console window on Windows.
 */
export function spawnTreeRoot(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  return spawn(command, args, { ...options, detached: !isWindows, windowsHide: true });
}

/**
 * Scans the trees every TREE_SCAN_MS while their roots run (the timer does not keep the process alive),
 * so that a descendant that left the process group is still known once its parent is gone. Returns stop.
 */
export function scanTrees(trees: () => Iterable<ProcessTree>): () => void {
  const timer = setInterval(() => { for (const t of trees()) t.scan(); }, TREE_SCAN_MS);
  timer.unref();
  return () => clearInterval(timer);
}
