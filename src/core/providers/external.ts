/**
 * Runs one external reference provider (see protocol.ts for the wire format) and resolves the edges
 * it emits against the indexed symbols.
 *
 * Contract of `runProvider`:
 * - the command is spawned by argv (`shell: false`), with the repository root as working directory;
 * - the input JSON is written to stdin; a provider that exits without reading it is fine (EPIPE is
 *   swallowed);
 * - stdout and stderr are drained concurrently while the process runs, each capped at 16 MiB: more
 *   stdout kills the process tree (`provider_output_too_large`); stderr keeps only its last 2 KiB;
 * - `timeout_ms` covers writing stdin and the process finishing; on timeout or abort the whole process
 *   tree is killed (util/proctree.ts): its process group and every descendant found by parent pid,
 *   including those that called setsid() (SIGTERM, SIGKILL after a short grace), on Windows
 *   `taskkill /T /F`. Processes the provider left behind after exiting (its group, and descendants seen
 *   while it ran) are terminated too;
 * - stdout must be exactly one JSON object; a non-zero exit is `provider_failed` with the stderr tail.
 * It never throws for anything the provider does; every outcome is a `ProviderRunResult`.
 */
import type { ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { SightlineError } from '../errors';
import { ProcessTree, killProcessTree, killProcessTreeSync, scanTrees, spawnTreeRoot } from '../util/proctree';
import {
  providerSpecSchema, validateProviderOutput, type ProviderInput, type ProviderSpec, type ProviderSpecInput,
  type ProviderSymbol, type ValidatedOutput, type ValidEdge, type Endpoint, type EdgeError, type ProviderEdgeKind,
} from './protocol';

/** Each of stdout and stderr is capped at this many bytes. */
export const PROVIDER_STREAM_CAP_BYTES = 16 * 1024 * 1024;
/** stderr bytes kept for messages and the result. */
export const PROVIDER_STDERR_TAIL_BYTES = 2048;
/** SIGTERM → SIGKILL grace when killing a process tree. */
export const PROVIDER_KILL_GRACE_MS = 500;
/** After the provider exits, how long its stdout/stderr may stay open (held by a stray descendant). */
const POST_EXIT_DRAIN_MS = 2000;

export type ProviderErrorCode =
  | 'provider_timeout' | 'provider_failed' | 'provider_output_invalid' | 'provider_spawn_failed'
  | 'provider_output_too_large' | 'cancelled';

export interface ProviderDiagnostic { provider: string; message: string }

export type ProviderRunResult =
  | {
    ok: true; output: ValidatedOutput;
    /** `output.diagnostics` tagged with the provider name, ready for `provider_diagnostics`. */
    provider_diagnostics: ProviderDiagnostic[];
    stderr_tail: string; stderr_bytes: number; duration_ms: number; exit_code: number;
  }
  | {
    ok: false; error: { code: ProviderErrorCode; message: string };
    stderr_tail: string; stderr_bytes: number; duration_ms: number;
  };

export interface RunProviderOptions { cwd: string; signal?: AbortSignal; env?: NodeJS.ProcessEnv }

const isWindows = process.platform === 'win32';

// ---- process-tree bookkeeping ------------------------------------------------------------------

/** Trees of providers that may still be alive; killed synchronously if this process exits first. */
const liveTrees = new Set<ProcessTree>();
let exitHookInstalled = false;
function track(tree: ProcessTree) {
  liveTrees.add(tree);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => { for (const t of liveTrees) killProcessTreeSync(t); });
  }
}

/** Kills the tree (util/proctree.ts: descendants by parent pid, setsid() ones too) and forgets it. */
async function killTree(tree: ProcessTree, background = false): Promise<void> {
  try { await killProcessTree(tree, { graceMs: PROVIDER_KILL_GRACE_MS, background }); } finally { liveTrees.delete(tree); }
}

// ---- running ----------------------------------------------------------------------------------

function resolveSpec(spec: ProviderSpecInput | ProviderSpec): ProviderSpec {
  const r = providerSpecSchema.safeParse(spec);
  if (!r.success) throw new SightlineError('invalid_arguments', `invalid reference provider spec: ${r.error.issues.map(i => `${i.path.join('.') || 'spec'}: ${i.message}`).join('; ')}`);
  return r.data;
}

/** Keeps the last `max` bytes of a stream (without holding the rest). */
class Tail {
  private buf: Buffer = Buffer.alloc(0);
  total = 0;
  constructor(private readonly max: number) {}
  push(chunk: Buffer) {
    this.total += chunk.length;
    this.buf = chunk.length >= this.max ? chunk.subarray(chunk.length - this.max) : Buffer.concat([this.buf, chunk]);
    if (this.buf.length > this.max) this.buf = this.buf.subarray(this.buf.length - this.max);
    if (this.buf.buffer.byteLength > 8 * this.max) this.buf = Buffer.from(this.buf); // do not pin a large chunk
  }
  text(): string {
    // a cut may land inside a UTF-8 sequence: drop the replacement characters it produces at the start
    return this.buf.toString('utf8').replace(/^\uFFFD+/, '');
  }
}

export async function runProvider(specIn: ProviderSpecInput | ProviderSpec, input: ProviderInput, opts: RunProviderOptions): Promise<ProviderRunResult> {
  const spec = resolveSpec(specIn);
  const started = performance.now();
  const stderr = new Tail(PROVIDER_STDERR_TAIL_BYTES);
  const elapsed = () => Math.round(performance.now() - started);
  const fail = (code: ProviderErrorCode, message: string): ProviderRunResult =>
    ({ ok: false, error: { code, message }, stderr_tail: stderr.text(), stderr_bytes: stderr.total, duration_ms: elapsed() });
  const who = `reference provider "${spec.name}"`;

  if (opts.signal?.aborted) return fail('cancelled', `${who} was not started: the index run was cancelled`);
  try {
    if (!statSync(opts.cwd).isDirectory()) return fail('provider_spawn_failed', `${who}: working directory ${opts.cwd} is not a folder`);
  } catch {
    return fail('provider_spawn_failed', `${who}: working directory ${opts.cwd} does not exist`);
  }
  const payload = JSON.stringify(input);

  let child: ChildProcess;
  try {
    child = spawnTreeRoot(spec.command, spec.args, { shell: false, cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (e) {
    return fail('provider_spawn_failed', `${who}: could not start ${JSON.stringify(spec.command)}: ${(e as Error).message}`);
  }

  return await new Promise<ProviderRunResult>(resolveRun => {
    const pid = child.pid;
    let stopReason: 'timeout' | 'cancelled' | 'too_large' | null = null;
    let killing: Promise<void> | null = null;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let spawnError: Error | null = null;
    let settled = false;
    const stdoutChunks: Buffer[] = [];
    let stdoutBytes = 0;
    let stdoutTotal = 0;
    let drainTimer: NodeJS.Timeout | undefined;

    // Descendants are remembered while the provider runs (a scan every second), so that one that left
    // the process group with setsid() is still known once its parent is gone.
    const tree = pid !== undefined && !isWindows ? new ProcessTree(pid) : undefined;
    if (tree) track(tree);
    const stopScan = tree ? scanTrees(() => [tree]) : () => undefined;

    const stop = (reason: 'timeout' | 'cancelled' | 'too_large') => {
      if (stopReason || settled) return;
      stopReason = reason;
      stopScan();
      if (tree) killing = killTree(tree);
      else if (pid !== undefined) killing = killProcessTree(pid, { graceMs: PROVIDER_KILL_GRACE_MS });
    };
    const timer = setTimeout(() => stop('timeout'), spec.timeout_ms);
    const onAbort = () => stop('cancelled');
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    const settle = async () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drainTimer);
      stopScan();
      opts.signal?.removeEventListener('abort', onAbort);
      child.stdout?.removeAllListeners('data');
      child.stderr?.removeAllListeners('data');
      if (killing) await killing;
      resolveRun(result());
    };

    const result = (): ProviderRunResult => {
      if (stopReason === 'cancelled') return fail('cancelled', `${who} was cancelled; its process tree was killed`);
      if (stopReason === 'timeout') return fail('provider_timeout', `${who} did not finish within ${spec.timeout_ms} ms; its process tree was killed`);
      if (stopReason === 'too_large') return fail('provider_output_too_large', `${who} wrote more than ${PROVIDER_STREAM_CAP_BYTES} bytes to stdout; its process tree was killed`);
      if (spawnError) return fail('provider_spawn_failed', `${who}: could not start ${JSON.stringify(spec.command)}: ${spawnError.message}`);
      const tail = stderr.text().trim();
      const tailMsg = tail ? `; stderr: ${tail}` : '; stderr was empty';
      if (!exit) return fail('provider_failed', `${who} ended without an exit status${tailMsg}`);
      if (exit.code !== 0) {
        return fail('provider_failed', exit.code === null ? `${who} was killed by ${exit.signal ?? 'a signal'}${tailMsg}` : `${who} exited with code ${exit.code}${tailMsg}`);
      }
      const text = Buffer.concat(stdoutChunks, stdoutBytes).toString('utf8').replace(/^\uFEFF/, '').trim();
      if (!text) return fail('provider_output_invalid', `${who} exited 0 but wrote nothing to stdout (expected one JSON object {"edges": [...]})`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (e) {
        return fail('provider_output_invalid', `${who}: stdout is not one JSON object (${(e as Error).message}); it starts with: ${JSON.stringify(text.slice(0, 200))}`);
      }
      const v = validateProviderOutput(parsed);
      if (!v.ok) return fail('provider_output_invalid', `${who}: ${v.message}; stdout starts with: ${JSON.stringify(text.slice(0, 200))}`);
      return {
        ok: true, output: v.output, provider_diagnostics: v.output.diagnostics.map(message => ({ provider: spec.name, message })),
        stderr_tail: stderr.text(), stderr_bytes: stderr.total, duration_ms: elapsed(), exit_code: 0,
      };
    };

    child.on('error', err => {
      // 'error' without a pid: the command could not be started (ENOENT, EACCES, …). Other errors (a
      // failed kill) do not change the outcome.
      if (pid === undefined || child.pid === undefined) { spawnError = err; void settle(); }
    });

    child.stdout!.on('data', (chunk: Buffer) => {
      stdoutTotal += chunk.length;
      if (stopReason === 'too_large') return; // keep draining, hold nothing
      if (stdoutBytes + chunk.length > PROVIDER_STREAM_CAP_BYTES) { stdoutChunks.length = 0; stdoutBytes = 0; stop('too_large'); return; }
      stdoutChunks.push(chunk);
      stdoutBytes += chunk.length;
    });
    child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));

    child.once('exit', (code, signal) => {
      exit = { code, signal };
      // what the provider left behind (its group, descendants seen while it ran) is terminated in the background
      stopScan();
      if (tree && !killing) void killTree(tree, true);
      // a descendant that escaped the group may hold the pipes open: do not wait for it forever
      drainTimer = setTimeout(() => { child.stdout?.destroy(); child.stderr?.destroy(); void settle(); }, POST_EXIT_DRAIN_MS);
    });
    child.once('close', () => { void settle(); });

    // stdin: the provider may exit without reading it (EPIPE) or close it early; neither is an error here.
    child.stdin!.on('error', () => { /* EPIPE / ECONNRESET / ERR_STREAM_DESTROYED: the exit status tells */ });
    if (pid !== undefined) child.stdin!.end(payload);
  });
}

// ---- endpoint resolution ------------------------------------------------------------------------

export interface ResolvedEdge { from_id: string; to_id: string; kind: ProviderEdgeKind; confidence: number; evidence: string }

export interface ResolveResult {
  /** One edge per (from_id, to_id, kind); duplicates keep the highest confidence. */
  resolved: ResolvedEdge[];
  unresolved: EdgeError[];
  /** strict and something did not resolve: the caller fails the index. */
  failed: boolean;
}

const normPath = (p: string, repo?: string): string => {
  let s = p;
  if (repo && isAbsolute(s)) s = relative(repo, s);
  s = s.replace(/\\/g, '/');
  while (s.startsWith('./')) s = s.slice(2);
  return s;
};

const push = <K, V>(m: Map<K, V[]>, k: K, v: V) => { const a = m.get(k); if (a) a.push(v); else m.set(k, [v]); };

/**
 * Maps validated edges to concrete symbol ids of `symbols`:
 * - `*_id` must be the id of one of the symbols (and lie in `*_path` when that is given);
 * - `*_symbol` matches a symbol_path exactly, or else a name, within `*_path` when given;
 *   no match → unresolved, several → ambiguous (unresolved too).
 * `repo` (optional) lets absolute `*_path` values inside the repository match.
 */
export function resolveEndpoints(edges: readonly ValidEdge[], symbols: readonly ProviderSymbol[], opts: { strict: boolean; repo?: string }): ResolveResult {
  const byId = new Map<string, ProviderSymbol>();
  const bySymbolPath = new Map<string, ProviderSymbol[]>();
  const byName = new Map<string, ProviderSymbol[]>();
  for (const s of symbols) {
    byId.set(s.id, s);
    push(bySymbolPath, s.symbol_path, s);
    push(byName, s.name, s);
  }

  const resolveOne = (ep: Endpoint, side: 'from' | 'to'): string | { reason: string } => {
    const path = ep.path === undefined ? undefined : normPath(ep.path, opts.repo);
    if ('id' in ep) {
      const s = byId.get(ep.id);
      if (!s) return { reason: `${side}_id ${JSON.stringify(ep.id)} is not an indexed symbol` };
      if (path !== undefined && normPath(s.path) !== path) return { reason: `${side}_id ${JSON.stringify(ep.id)} is in ${s.path}, not ${side}_path ${path}` };
      return s.id;
    }
    const inPath = (list: ProviderSymbol[] | undefined) => (list ?? []).filter(s => path === undefined || normPath(s.path) === path);
    let found = inPath(bySymbolPath.get(ep.symbol));
    if (!found.length) found = inPath(byName.get(ep.symbol));
    const where = path === undefined ? '' : ` in ${path}`;
    if (!found.length) return { reason: `${side}_symbol ${JSON.stringify(ep.symbol)}: no symbol with that symbol_path or name${where}` };
    if (found.length > 1) {
      const some = found.slice(0, 3).map(s => `${s.path}:${s.start_line}`).join(', ');
      return { reason: `${side}_symbol ${JSON.stringify(ep.symbol)} is ambiguous: ${found.length} symbols match${where} (${some}${found.length > 3 ? ', …' : ''}); give ${side}_path or ${side}_id` };
    }
    return found[0]!.id;
  };

  const out = new Map<string, ResolvedEdge>();
  const unresolved: EdgeError[] = [];
  for (const e of edges) {
    const from = resolveOne(e.from, 'from'), to = resolveOne(e.to, 'to');
    const reasons = [from, to].filter((x): x is { reason: string } => typeof x !== 'string').map(x => x.reason);
    if (reasons.length) { unresolved.push({ index: e.index, reason: reasons.join('; ') }); continue; }
    const edge: ResolvedEdge = { from_id: from as string, to_id: to as string, kind: e.kind, confidence: e.confidence, evidence: e.evidence };
    const key = `${edge.from_id}\u0000${edge.to_id}\u0000${edge.kind}`;
    const prev = out.get(key);
    if (!prev || edge.confidence > prev.confidence) out.set(key, edge);
  }
  return { resolved: [...out.values()], unresolved, failed: opts.strict && unresolved.length > 0 };
}
