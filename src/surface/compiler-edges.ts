/**
 * Compiler-grade edges without an editor. A standalone MCP server runs the bundled reference providers
 * (the TypeScript language service for TS/JS, pyright for Python; Sightline's own copies, never a
 * repository's) in the background once an index run has settled, and merges their edges as an index run
 * with `reference_providers` would. Each runs as a child process with a time limit and a heap cap; the
 * index lock is held only to store the result, so edits keep flowing while a provider works.
 *
 * A provider runs again only when the repository's code of its languages changed since its last run
 * (per-symbol checks carry the file hashes it analysed; a symbol in an edited file reads as unchecked,
 * and graph answers about it say so). Off with `--no-compiler-edges`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine } from '../core/engine';
import { runProvider } from '../core/providers/external';
import { inputOf, type ProviderSnapshot } from '../core/providers/store-run';
import { INSTALLED_ONLY_ENV } from '../core/providers/adapters/common';
import type { ProviderSpec } from '../core/providers/protocol';

export interface BundledProvider { name: 'typescript' | 'python'; languages: string[] }
export const BUNDLED_PROVIDERS: readonly BundledProvider[] = [
  { name: 'typescript', languages: ['typescript', 'tsx', 'javascript'] },
  { name: 'python', languages: ['python'] },
];

export interface CompilerEdgesOptions {
  log: (level: string, msg: string) => void;
  /** The CLI bundle that serves `sightline provider NAME` (default: cli.js beside this bundle). */
  cli?: string;
  /** Time without a new index run before a provider starts (default 10 s). */
  quietMs?: number;
  /** How often the index is looked at (default 5 s). */
  pollMs?: number;
  /** A provider's time limit (default 10 min). */
  timeoutMs?: number;
  /** A provider's heap cap in MiB (default 3072). */
  heapMb?: number;
}

export class CompilerEdges {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  /** repo_id → provider → the fingerprint (files and hashes) it last ran on */
  private readonly ranOn = new Map<string, Map<string, string>>();
  private readonly cli: string;
  private stopped = false;

  constructor(private readonly engine: Engine, private readonly opts: CompilerEdgesOptions) {
    this.cli = opts.cli ?? join(__dirname, 'cli.js');
  }

  start(): void {
    if (!existsSync(this.cli)) { this.opts.log('warn', `compiler-grade edges off: ${this.cli} not found`); return; }
    this.timer = setInterval(() => void this.tick(), this.opts.pollMs ?? 5000);
    this.timer.unref();
  }

  stop(): void { this.stopped = true; if (this.timer) clearInterval(this.timer); }

  /** Resolves when the run in progress (if any) has finished. */
  idle(): Promise<void> { return this.running ?? Promise.resolve(); }

  /** One look at the index: runs what is due, once the last index run is quiet long enough. */
  async tick(): Promise<void> {
    if (this.running || this.stopped) return;
    const st = await this.engine.status();
    const last = st.indexed_at ? Date.parse(st.indexed_at) : NaN;
    if (!Number.isFinite(last) || Date.now() - last < (this.opts.quietMs ?? 10_000)) return;
    this.running = this.runDue().finally(() => { this.running = null; });
    await this.running;
  }

  /** Every bundled provider whose languages a repository has and whose last run saw other code. */
  private async runDue(): Promise<void> {
    for (const root of this.engine.roots) {
      for (const p of BUNDLED_PROVIDERS) {
        if (this.stopped) return;
        const snap = await this.engine.edges.providerSnapshot(root.repo_id, p.languages);
        if (!snap?.symbols.length) continue;
        const print = fingerprint(snap);
        const seen = this.ranOn.get(root.repo_id) ?? this.ranOn.set(root.repo_id, new Map()).get(root.repo_id)!;
        if (seen.get(p.name) === print || await this.checksCurrent(p, snap)) { seen.set(p.name, print); continue; }
        seen.set(p.name, print);
        await this.runOne(p, snap);
      }
    }
  }

  /** Whether a stored run of this provider (an earlier server's) already checked every symbol as it is. */
  private async checksCurrent(p: BundledProvider, snap: ProviderSnapshot): Promise<boolean> {
    return this.engine.edges.checkedNow(p.name, snap) === snap.symbols.length;
  }

  private async runOne(p: BundledProvider, snap: ProviderSnapshot): Promise<void> {
    const timeoutMs = this.opts.timeoutMs ?? 600_000;
    const spec: ProviderSpec = {
      name: p.name, command: process.execPath, languages: p.languages as ProviderSpec['languages'], compiler_grade: true, strict: false,
      args: [`--max-old-space-size=${this.opts.heapMb ?? 3072}`, this.cli, 'provider', p.name, '--timeout-ms', String(timeoutMs)],
      timeout_ms: timeoutMs + 30_000,
    };
    this.opts.log('info', `compiler-grade edges: ${p.name} on ${snap.root} (${snap.symbols.length} symbols) started`);
    const res = await runProvider(spec, inputOf(spec, snap), { cwd: snap.root, env: { ...process.env, [INSTALLED_ONLY_ENV]: '1' } });
    if (!res.ok) { this.opts.log('warn', `compiler-grade edges: ${p.name} on ${snap.root} failed (${res.error.code}): ${res.error.message}`); return; }
    const stored = await this.engine.live.exclusive(() => this.engine.edges.recordProviderRun(spec, snap, res));
    this.opts.log('info', `compiler-grade edges: ${p.name} on ${snap.root}: ${stored.edges} edges in ${Math.round(res.duration_ms / 1000)} s`);
  }
}

/** The code a provider run saw: its files and their hashes. */
function fingerprint(snap: ProviderSnapshot): string {
  const files = new Map<string, string>();
  for (const s of snap.symbols) files.set(s.path, s.hash);
  return [...files].sort((a, b) => a[0].localeCompare(b[0])).map(([p, h]) => `${p}:${h}`).join('\n');
}
