/**
 * The command driver: one process per call, argv only (never a shell).
 *
 * Rules:
 * - argv: the op's `command`, else the adapter's; every element rendered (a whole `{{x}}` that is an
 *   array is spread into several arguments, so `{{tags}}` may add many).
 * - `output_file = true`: a fresh temp file's path is `{{output_file}}`; the answer is read from it after
 *   the process exits (stdout is then ignored); the temp folder is removed.
 * - `stdin`: rendered and written to the process, then closed (no stdin: closed at once).
 * - `cwd`: the op's, else the adapter's, else the repository root (rendered; relative to the root).
 * - `env`: the process environment, then the adapter's `env`, then the op's (rendered).
 * - Killed with its whole process tree (util/proctree.ts) when the call's signal aborts (timeout or
 *   cancel). Output is capped at MAX_OUTPUT bytes (beyond: `malformed`).
 * - Exit 0 is an answer. Exit 1 with nothing on stdout and stderr is an empty answer (the grep/rg
 *   convention for "nothing found"); any other exit is `command_failed` with the end of stderr. A program
 *   that cannot be started is `spawn_failed`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AdapterConfig } from '../config';
import { FormatError, parsePayload } from '../format';
import { extend, render, renderString } from '../templates';
import { killProcessTree, ProcessTree, spawnTreeRoot } from '../../util/proctree';
import { abortError, AdapterCallError, type Driver, type DriverRequest } from './types';

export const MAX_OUTPUT = 32 * 1024 * 1024;

export class CommandDriver implements Driver {
  constructor(private readonly cfg: AdapterConfig) {}

  async call(req: DriverRequest): Promise<unknown> {
    const { spec } = req;
    const f = (name: string) => `adapters.${this.cfg.name}.ops.${req.op}.${name}`;
    const tmp = spec.output_file ? mkdtempSync(join(tmpdir(), 'sightline-adapter-')) : undefined;
    const outFile = tmp ? join(tmp, 'output') : undefined;
    const ctx = outFile ? extend(req.ctx, { output_file: outFile }) : req.ctx;
    try {
      const rawArgv = spec.command ?? this.cfg.command;
      if (!rawArgv?.length) throw new AdapterCallError('config_error', 'no `command` for this operation');
      const field = spec.command ? f('command') : `adapters.${this.cfg.name}.command`;
      const argv: string[] = [];
      rawArgv.forEach((a, i) => {
        const v = render(a, ctx, `${field}[${i}]`);
        if (Array.isArray(v)) argv.push(...v.map(x => (typeof x === 'string' ? x : JSON.stringify(x))));
        else argv.push(typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v));
      });
      const cwdRaw = spec.cwd ?? this.cfg.cwd;
      const cwd = cwdRaw ? resolve(req.root, renderString(cwdRaw, ctx, spec.cwd ? f('cwd') : `adapters.${this.cfg.name}.cwd`)) : req.root;
      const env: NodeJS.ProcessEnv = { ...process.env };
      for (const [k, v] of Object.entries(this.cfg.env ?? {})) env[k] = renderString(v, ctx, `adapters.${this.cfg.name}.env.${k}`);
      for (const [k, v] of Object.entries(spec.env ?? {})) env[k] = renderString(v, ctx, f(`env.${k}`));
      const stdin = spec.stdin !== undefined ? renderString(spec.stdin, ctx, f('stdin')) : undefined;
      const { code, stdout, stderr } = await run(argv, cwd, env, stdin, req.signal, req.timeoutMs);
      if (code !== 0 && !(code === 1 && !stdout.trim() && !stderr.trim())) {
        throw new AdapterCallError('command_failed', `\`${argv[0]}\` exited with ${code}${stderr.trim() ? `: ${stderr.trim().slice(-300)}` : ''}`, { exit_code: code });
      }
      let text = stdout;
      if (outFile) {
        try { text = readFileSync(outFile, 'utf8'); } catch { text = code === 0 ? '' : stdout; }
      }
      try { return parsePayload(code === 0 ? text : '', spec.format ?? 'auto'); } catch (e) {
        if (e instanceof FormatError) throw new AdapterCallError('malformed', e.message);
        throw e;
      }
    } finally {
      if (tmp) rmSync(tmp, { recursive: true, force: true });
    }
  }

  async dispose(): Promise<void> { /* nothing kept */ }
}

function run(argv: string[], cwd: string, env: NodeJS.ProcessEnv, stdin: string | undefined, signal: AbortSignal, timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((res, rej) => {
    if (signal.aborted) { rej(abortError(signal, timeoutMs)); return; }
    let child;
    try { child = spawnTreeRoot(argv[0]!, argv.slice(1), { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] }); } catch (e) {
      rej(new AdapterCallError('spawn_failed', `cannot start \`${argv[0]}\`: ${(e as Error).message}`)); return;
    }
    const tree = child.pid !== undefined ? new ProcessTree(child.pid) : undefined;
    const out: Buffer[] = []; const err: Buffer[] = [];
    let outBytes = 0; let over = false; let settled = false;
    const finish = (fn: () => void) => { if (settled) return; settled = true; signal.removeEventListener('abort', onAbort); fn(); };
    const kill = () => { if (tree) void killProcessTree(tree, { graceMs: 200, background: true }); else child.kill('SIGKILL'); };
    const onAbort = () => { kill(); finish(() => rej(abortError(signal, timeoutMs))); };
    signal.addEventListener('abort', onAbort, { once: true });
    child.stdout!.on('data', (d: Buffer) => {
      outBytes += d.length;
      if (outBytes > MAX_OUTPUT) { if (!over) { over = true; kill(); finish(() => rej(new AdapterCallError('malformed', `the answer is over ${MAX_OUTPUT} bytes`))); } return; }
      out.push(d);
    });
    child.stderr!.on('data', (d: Buffer) => { if (err.length < 256) err.push(d); });
    child.once('error', e => finish(() => rej(new AdapterCallError('spawn_failed', `cannot start \`${argv[0]}\`: ${(e as NodeJS.ErrnoException).code ?? e.message}`))));
    child.once('close', code => finish(() => res({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') })));
    child.stdin!.on('error', () => { /* the program did not read its input */ });
    child.stdin!.end(stdin ?? '');
  });
}
