/**
 * Shared pieces of the first-party reference providers (run as `sightline provider …`, src/cli/provider.ts):
 * the protocol's types, version and edge kinds (one definition: ../protocol.ts), input validation, the symbol table every adapter maps tool results onto, the edge collector (dedupe by
 * from/to/kind), the overall deadline that kills child processes, and runtime module resolution for
 * tools that are never bundled (typescript, pyright).
 *
 * Endpoint rules, the same for every adapter: `from` is the innermost input symbol whose range contains
 * the reference (references at top level or inside no input symbol are skipped); `to` is the input
 * symbol the reference resolves to (targets outside the input are skipped).
 */
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { ProcessTree, killProcessTreeSync, scanTrees, spawnTreeRoot } from '../../util/proctree';
import {
  PROVIDER_PROTOCOL_VERSION as PROTOCOL_VERSION, type ProviderEdgeKind, type ProviderOutput as WireOutput, type RawEdge,
  type ProviderSymbol as InputSymbol, type ProviderChunk as InputChunk, type ProviderInput,
} from '../protocol';

export type { InputSymbol, InputChunk, ProviderInput };

/** The edge kinds the first-party adapters report (a subset of the protocol's). */
export type EdgeKind = Extract<ProviderEdgeKind, 'calls' | 'references' | 'implements' | 'extends'>;

/** An edge as the adapters write it: the protocol's, by exact ids. */
export type ProviderEdge = Required<Pick<RawEdge, 'from_id' | 'to_id'>> & Pick<RawEdge, 'confidence' | 'evidence'> & { kind: EdgeKind };

/** What an adapter writes on stdout (the protocol's output, with plain-string diagnostics). */
export interface ProviderOutput extends WireOutput { edges: ProviderEdge[]; diagnostics: string[] }

/** Bad protocol input or a missing tool: the provider exits non-zero with this message. */
export class ProviderError extends Error {
  constructor(message: string, readonly exitCode = 1) { super(message); }
}

export class TimeoutError extends ProviderError {
  constructor(ms: number) { super(`timed out after ${ms} ms (--timeout-ms)`, 1); }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** Parses and checks the JSON Sightline writes on stdin. */
export function parseInput(text: string): ProviderInput {
  let raw: unknown;
  try { raw = JSON.parse(text); } catch (e) { throw new ProviderError(`stdin is not valid JSON: ${(e as Error).message}`, 2); }
  if (!isObj(raw)) throw new ProviderError('stdin must be a JSON object', 2);
  if (raw.protocol_version !== PROTOCOL_VERSION) throw new ProviderError(`unsupported protocol_version ${JSON.stringify(raw.protocol_version)} (this provider speaks ${PROTOCOL_VERSION})`, 2);
  if (typeof raw.repo !== 'string' || !isAbsolute(raw.repo)) throw new ProviderError('"repo" must be an absolute path', 2);
  if (!Array.isArray(raw.symbols)) throw new ProviderError('"symbols" must be an array', 2);
  const symbols: InputSymbol[] = [];
  raw.symbols.forEach((s, i) => {
    if (!isObj(s) || typeof s.id !== 'string' || typeof s.path !== 'string' || typeof s.name !== 'string'
      || !isInt(s.start_line) || !isInt(s.start_col) || !isInt(s.end_line) || !isInt(s.end_col)) {
      throw new ProviderError(`symbols[${i}] needs id, path, name and an integer range`, 2);
    }
    symbols.push({
      id: s.id, path: s.path.replace(/\\/g, '/'), name: s.name, symbol_path: typeof s.symbol_path === 'string' ? s.symbol_path : s.name,
      kind: typeof s.kind === 'string' ? s.kind : 'unknown', language: typeof s.language === 'string' ? s.language : '',
      start_line: s.start_line, start_col: s.start_col, end_line: s.end_line, end_col: s.end_col,
    });
  });
  return {
    protocol_version: PROTOCOL_VERSION, repo: resolve(raw.repo), repo_id: typeof raw.repo_id === 'string' ? raw.repo_id : '',
    provider: typeof raw.provider === 'string' ? raw.provider : '', compiler_grade: raw.compiler_grade === true,
    symbols, chunks: Array.isArray(raw.chunks) ? raw.chunks as InputChunk[] : [],
    ...(Array.isArray(raw.query_ids) ? { query_ids: raw.query_ids.filter((x): x is string => typeof x === 'string') } : {}),
  };
}

/** (line 1-based, col 0-based) inside [start, end] of a symbol. */
export function contains(s: InputSymbol, line: number, col: number): boolean {
  if (line < s.start_line || line > s.end_line) return false;
  if (line === s.start_line && col < s.start_col) return false;
  if (line === s.end_line && col > s.end_col) return false;
  return true;
}

/** Input symbols by path, with innermost-containing lookup. */
export class SymbolTable {
  readonly byPath = new Map<string, InputSymbol[]>();
  readonly byId = new Map<string, InputSymbol>();

  constructor(readonly symbols: InputSymbol[]) {
    for (const s of symbols) {
      this.byId.set(s.id, s);
      let list = this.byPath.get(s.path);
      if (!list) this.byPath.set(s.path, list = []);
      list.push(s);
    }
  }

  /** The innermost symbol of `path` whose range contains (line 1-based, col 0-based). */
  innermost(path: string, line: number, col: number): InputSymbol | undefined {
    let best: InputSymbol | undefined;
    for (const s of this.byPath.get(path) ?? []) {
      if (!contains(s, line, col)) continue;
      if (!best || isInside(s, best)) best = s;
    }
    return best;
  }

  paths(filter?: (s: InputSymbol) => boolean): string[] {
    return [...this.byPath.entries()].filter(([, list]) => !filter || list.some(filter)).map(([p]) => p).sort();
  }
}

/** `a` lies within `b` (a strictly smaller or equal range starting no earlier). */
function isInside(a: InputSymbol, b: InputSymbol): boolean {
  const aStart = a.start_line * 1e6 + a.start_col; const bStart = b.start_line * 1e6 + b.start_col;
  const aEnd = a.end_line * 1e6 + a.end_col; const bEnd = b.end_line * 1e6 + b.end_col;
  return aStart >= bStart && aEnd <= bEnd;
}

/** Collects edges, keeping the first of each (from, to, kind). */
export class EdgeSet {
  private readonly edges = new Map<string, ProviderEdge>();

  add(from: InputSymbol, to: InputSymbol, kind: EdgeKind, evidence: string): boolean {
    const key = `${from.id}\u0000${to.id}\u0000${kind}`;
    if (this.edges.has(key)) return false;
    this.edges.set(key, { from_id: from.id, to_id: to.id, kind, confidence: 1.0, evidence });
    return true;
  }

  get size(): number { return this.edges.size; }

  list(): ProviderEdge[] {
    return [...this.edges.values()].sort((a, b) => a.from_id.localeCompare(b.from_id) || a.to_id.localeCompare(b.to_id) || a.kind.localeCompare(b.kind));
  }
}

export function describeEdge(from: InputSymbol, kind: EdgeKind, to: InputSymbol, path: string, line: number): string {
  const verb = kind === 'references' ? 'references' : kind;
  return `${from.symbol_path} ${verb} ${to.symbol_path} at ${path}:${line}`;
}

/**
 * The overall deadline of one provider run. Async work races `expired`; synchronous work (the
 * TypeScript language service) calls `check()` between steps. Child processes registered with
 * `spawn` are killed — their whole process tree, descendants that called setsid() included
 * (util/proctree.ts, the same implementation the engine's provider runner uses) — when the run ends or
 * times out.
 */
export class Deadline {
  private readonly trees = new Map<ProcessTree, ChildProcess>();
  private stopScan: (() => void) | undefined;
  private readonly start = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private rejectExpired: ((e: Error) => void) | undefined;
  /** Rejects with TimeoutError when the deadline passes; never resolves. */
  readonly expired: Promise<never>;

  constructor(readonly ms: number | undefined) {
    this.expired = new Promise<never>((_, reject) => { this.rejectExpired = reject; });
    this.expired.catch(() => undefined);
    if (ms !== undefined) {
      this.timer = setTimeout(() => { this.killChildren(); this.rejectExpired?.(new TimeoutError(ms)); }, ms);
    }
  }

  elapsed(): number { return Date.now() - this.start; }

  remaining(): number { return this.ms === undefined ? Infinity : this.ms - this.elapsed(); }

  check(): void {
    if (this.ms !== undefined && this.elapsed() > this.ms) throw new TimeoutError(this.ms);
  }

  /** Resolves with `p`, or rejects when the deadline passes first. */
  race<T>(p: Promise<T>): Promise<T> {
    return this.ms === undefined ? p : Promise.race([p, this.expired]);
  }

  spawn(command: string, args: string[], options: SpawnOptions): ChildProcess {
    // A process group of its own (POSIX) so that grandchildren die with it.
    const child = spawnTreeRoot(command, args, options);
    if (child.pid !== undefined) {
      // The tree is kept after the child exits: what it left behind is killed with the rest.
      this.trees.set(new ProcessTree(child.pid), child);
      if (!this.stopScan && process.platform !== 'win32') this.stopScan = scanTrees(() => this.trees.keys());
    }
    return child;
  }

  killChildren(): void {
    for (const [tree, child] of this.trees) {
      // Windows kills by pid alone: never a pid that may have been reused
      if (process.platform === 'win32' && (child.exitCode !== null || child.signalCode !== null)) continue;
      killProcessTreeSync(tree);
    }
    this.trees.clear();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.stopScan?.();
    this.killChildren();
  }
}

/** Set to 1 in a provider's environment: load typescript and pyright from Sightline's installation only. */
export const INSTALLED_ONLY_ENV = 'SIGHTLINE_PROVIDER_INSTALLED_ONLY';

/**
 * Resolves `request` (e.g. `typescript` or `pyright/langserver.index.js`) first from the analysed
 * repository, then from Sightline's own installation. Returns the file and where it was found.
 */

export function resolveRuntimeModule(request: string, repo: string): { file: string; from: 'repo' | 'sightline' } | undefined {
  // background runs load nothing a repository ships (INSTALLED_ONLY_ENV): only Sightline's own copy
  if (process.env[INSTALLED_ONLY_ENV] !== '1') {
    try { return { file: require.resolve(request, { paths: [repo] }), from: 'repo' }; } catch { /* not in the repo */ }
  }
  try { return { file: require.resolve(request), from: 'sightline' }; } catch { /* not installed */ }
  return undefined;
}

/** Loads a module from an absolute file at run time (never bundled). */
export function loadRuntimeModule<T>(file: string): T {
  // A computed require: esbuild leaves it alone, so the module is loaded from disk as installed.
  const req: NodeRequire = require;
  return req(file) as T;
}

/** The absolute path of `command` on PATH (PATHEXT on Windows), or undefined. */
export function findOnPath(command: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';') : [''];
  for (const dir of (env.PATH ?? env.Path ?? '').split(delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const file = join(dir, command + ext);
      try {
        if (!statSync(file).isFile()) continue;
        if (process.platform !== 'win32') accessSync(file, constants.X_OK);
        return file;
      } catch { /* next */ }
    }
  }
  return undefined;
}

/** Reads files of the repo once (utf8), keyed by repo-relative path. */
export class SourceCache {
  private readonly texts = new Map<string, string | undefined>();
  private readonly lines = new Map<string, string[]>();
  constructor(readonly repo: string) {}

  text(rel: string): string | undefined {
    if (!this.texts.has(rel)) {
      let t: string | undefined;
      try { t = readFileSync(join(this.repo, rel), 'utf8'); } catch { t = undefined; }
      this.texts.set(rel, t);
    }
    return this.texts.get(rel);
  }

  /** 1-based line text, '' when missing. */
  line(rel: string, line: number): string {
    let ls = this.lines.get(rel);
    if (!ls) { ls = (this.text(rel) ?? '').split(/\r?\n/); this.lines.set(rel, ls); }
    return ls[line - 1] ?? '';
  }
}

const IDENT_CHAR = /[\p{L}\p{N}_$]/u;

/**
 * Where the name of a definition is: the first whole-word occurrence of `symbol.name` at or after the
 * symbol's start (skipping a leading keyword such as `def`/`class`/`fn`), within its range. Returns
 * (line 1-based, col 0-based in UTF-16 code units) or undefined.
 */
export function findNamePosition(sources: SourceCache, s: InputSymbol): { line: number; col: number } | undefined {
  for (let line = s.start_line; line <= Math.min(s.end_line, s.start_line + 50); line++) {
    const text = sources.line(s.path, line);
    let from = line === s.start_line ? Math.min(s.start_col, text.length) : 0;
    // Columns from the indexer may be byte-based; if the name is not after start_col, look from the line start.
    for (let attempt = 0; attempt < 2; attempt++) {
      let i = text.indexOf(s.name, from);
      while (i >= 0) {
        const before = i > 0 ? text[i - 1]! : ' ';
        const after = text[i + s.name.length] ?? ' ';
        if (!IDENT_CHAR.test(before) && !IDENT_CHAR.test(after)) return { line, col: i };
        i = text.indexOf(s.name, i + 1);
      }
      if (from === 0) break;
      from = 0;
    }
  }
  return undefined;
}

/** Reads all of stdin as UTF-8. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Waits for a child to exit, collecting (capped) stdout/stderr. */
export function waitForExit(child: ChildProcess, cap = 1 << 20): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    let stdout = ''; let stderr = '';
    child.stdout?.on('data', (d: Buffer) => { if (stdout.length < cap) stdout += d.toString('utf8'); });
    child.stderr?.on('data', (d: Buffer) => { if (stderr.length < cap) stderr += d.toString('utf8'); });
    child.once('error', reject);
    child.once('close', (code, signal) => resolvePromise({ code, signal, stdout, stderr }));
  });
}
