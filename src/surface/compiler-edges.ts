/**
 * Compiler-grade edges without an editor. A standalone MCP server runs the bundled reference providers
 * (the TypeScript language service for TS/JS, pyright for Python; Sightline's own copies, never a
 * repository's) in the background once an index run has settled, and merges their edges as an index run
 * with `reference_providers` would. Each runs as a child process with a time limit and a heap cap; the
 * index lock is held only to store the result, so edits keep flowing while a provider works.
 *
 * Later runs are incremental: per-symbol checks carry the file hashes a provider analysed, so after an
 * edit only the symbols not checked as they are now, and those their files use, are asked about (when
 * most of the code changed, everything is). Until then graph answers about an edited file's symbols say
 * they are unchecked. Off with `--no-compiler-edges`. The one-shot CLI runs them in the foreground after
 * `sightline index` (runNow).
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
  /** After a failed or timed-out run, the same provider waits this long before it runs again (default 1 h). */
  retryAfterMs?: number;
}

export class CompilerEdges {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  /** the index state (indexed_at) the last look ran on */
  private lookedAt: string | null = null;
  private readonly cli: string;
  private stopped = false;
  /** `repo_id\0provider` → when its last run failed */
  private readonly failedAt = new Map<string, number>();

  constructor(private readonly engine: Engine, private readonly opts: CompilerEdgesOptions) {
    this.cli = opts.cli ?? join(__dirname, 'cli.js');
  }

  start(): void {
    if (!existsSync(this.cli)) { this.opts.log('warn', `compiler-grade edges off: ${this.cli} not found`); return; }
    this.timer = setInterval(() => void this.tick(), this.opts.pollMs ?? 5000);
    this.timer.unref();
  }

  stop(): void { this.stopped = true; if (this.timer) clearInterval(this.timer); }

  /** Runs what the index needs now, in the foreground (the one-shot CLI after `index`). */
  async runNow(): Promise<void> {
    if (!existsSync(this.cli)) { this.opts.log('warn', `compiler-grade edges off: ${this.cli} not found`); return; }
    await this.runDue();
  }

  /** One look at the index: once a new index state has been quiet long enough, runs what it needs. */
  async tick(): Promise<void> {
    if (this.running || this.stopped) return;
    const at = (await this.engine.status()).indexed_at;
    if (!at || at === this.lookedAt || Date.now() - Date.parse(at) < (this.opts.quietMs ?? 10_000)) return;
    this.lookedAt = at;
    this.running = this.runDue().catch(e => this.opts.log('warn', `compiler-grade edges: ${(e as Error).message}`)).finally(() => { this.running = null; });
    await this.running;
  }

  /** Every bundled provider whose languages a repository has, on the symbols it has not checked as they are now. */
  private async runDue(): Promise<void> {
    for (const root of this.engine.roots) {
      for (const p of BUNDLED_PROVIDERS) {
        if (this.stopped) return;
        const snap = await this.engine.edges.providerSnapshot(root.repo_id, p.languages);
        if (!snap?.symbols.length) continue;
        const unchecked = this.engine.edges.uncheckedNow(p.name, snap);
        if (!unchecked.length || this.waiting(root.repo_id, p)) continue;
        // a few edited files: ask about their symbols and what they use; most of the code: everything
        const query = unchecked.length * 2 > snap.symbols.length ? undefined : await this.withUses(unchecked, snap);
        await this.runOne(p, query ? { ...snap, query } : snap);
      }
    }
  }

  /** The symbols given and the symbols that their files use (their references may have changed too). */
  private async withUses(ids: string[], snap: ProviderSnapshot): Promise<string[]> {
    const g = await this.engine.graph();
    const inSnap = new Set(snap.symbols.map(s => s.id));
    const files = new Set(snap.symbols.filter(s => ids.includes(s.id)).map(s => s.path));
    const nodes = [...files].flatMap(f => g.symbolsAt(snap.repo_id, f) ?? []);
    const out = new Set(ids);
    for (const list of g.edgesOfMany(nodes, 'out', USE_KINDS, { dispatch: false }).values()) {
      for (const { neighbour } of list) { const id = g.idOf(neighbour); if (inSnap.has(id)) out.add(id); }
    }
    return [...out];
  }

  /** Whether a provider failed on a repository recently (a large or broken project is not retried on every edit). */
  private waiting(repoId: string, p: BundledProvider): boolean {
    const at = this.failedAt.get(`${repoId}\0${p.name}`);
    return at !== undefined && Date.now() - at < (this.opts.retryAfterMs ?? RETRY_AFTER_MS);
  }

  private async runOne(p: BundledProvider, snap: ProviderSnapshot): Promise<void> {
    const timeoutMs = this.opts.timeoutMs ?? 600_000;
    const spec: ProviderSpec = {
      name: p.name, command: process.execPath, languages: p.languages as ProviderSpec['languages'], compiler_grade: true, strict: false,
      args: [`--max-old-space-size=${this.opts.heapMb ?? 3072}`, this.cli, 'provider', p.name, '--timeout-ms', String(timeoutMs)],
      timeout_ms: timeoutMs + 30_000,
    };
    const what = `${p.name} on ${snap.root} (${snap.query ? `${snap.query.length} of ` : ''}${snap.symbols.length} symbols)`;
    this.opts.log('info', `compiler-grade edges: ${what} started`);
    const res = await runProvider(spec, inputOf(spec, snap), { cwd: snap.root, env: { ...process.env, [INSTALLED_ONLY_ENV]: '1' } });
    if (!res.ok) {
      this.failedAt.set(`${snap.repo_id}\0${p.name}`, Date.now());
      const retry = Math.round((this.opts.retryAfterMs ?? RETRY_AFTER_MS) / 60_000);
      this.opts.log('warn', `compiler-grade edges: ${what} failed (${res.error.code}): ${res.error.message}; not run again for ${retry} min`);
      return;
    }
    const stored = await this.engine.live.exclusive(() => this.engine.edges.recordProviderRun(spec, snap, res));
    this.opts.log('info', `compiler-grade edges: ${what}: ${stored.edges} edges in ${Math.round(res.duration_ms / 1000)} s`);
  }
}

const USE_KINDS = ['calls', 'references', 'extends', 'implements'] as const;
const RETRY_AFTER_MS = 3_600_000;
