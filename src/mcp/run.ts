/** `node dist/mcp.js --workspace DIR [--db FILE] [--http 127.0.0.1:PORT] [--token T] [--no-watch]` and `sightline mcp`. */
import { openEngine, parse, WORKSPACE_OPTIONS, UsageError } from '../surface/options';
import { serveHttp, serveStdio } from './server';
import { readFile } from 'node:fs/promises';
import { loadArtifact } from '../core/services/portable';
import type { Engine } from '../core/engine';
import { constants as perf, performance, PerformanceObserver } from 'node:perf_hooks';
import { CompilerEdges } from '../surface/compiler-edges';

/** A garbage collection that paused the engine's thread this long is logged. */
const GC_PAUSE_LOG_MS = 50;

/**
 * Logs long garbage-collection pauses of the engine's thread: a slow answer or edit is then told apart
 * from a slow index run (at millions of lines the heap holds the resolver tables and the read caches).
 */
function logLongPauses(log: (level: string, msg: string) => void): void {
  const kinds: Record<number, string> = { [perf.NODE_PERFORMANCE_GC_MAJOR]: 'major', [perf.NODE_PERFORMANCE_GC_MINOR]: 'minor', [perf.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental', [perf.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks' };
  new PerformanceObserver(list => {
    for (const e of list.getEntries()) {
      if (e.duration < GC_PAUSE_LOG_MS) continue;
      const kind = kinds[(e as unknown as { detail?: { kind?: number } }).detail?.kind ?? -1] ?? 'gc';
      log('info', `garbage collection (${kind}) paused the engine for ${Math.round(e.duration)} ms; heap ${Math.round(process.memoryUsage().heapUsed / 2 ** 20)} MB`);
    }
  }).observe({ entryTypes: ['gc'] });
}

/**
 * A prebuilt index (sightline export) for a workspace that has none yet: adopted before the first answer,
 * then brought up to date by an index run in the background. A failure is said and the server goes on
 * (the workspace is then indexed from scratch, as without the artifact).
 */
async function adoptPrebuilt(engine: Engine, source: string, log: (level: string, msg: string) => void): Promise<void> {
  try {
    if ((await engine.status()).file_count > 0) return;
    const t0 = Date.now();
    const report = await engine.importIndex(await loadArtifact(source, p => readFile(p)));
    log('info', `adopted the prebuilt index ${source} (${report.adopted.map(a => `${a.artifact_root}: ${a.files} files`).join(', ')}) in ${Date.now() - t0} ms`);
    void engine.index().then(r => log('info', `index run after the import: ${r.totals.files_unchanged} files unchanged, ${r.totals.files_parsed} parsed`), e => log('warn', `index run after the import failed: ${(e as Error).message}`));
  } catch (e) { log('warn', `the prebuilt index ${source} was not adopted: ${(e as Error).message}`); }
}

/** The bundled compiler-grade providers in the background (not in the editor's process: the editor has its servers). */
type CompilerEdgesFlags = { editor?: boolean; 'no-compiler-edges'?: boolean; 'compiler-edges-after'?: string };
function startCompilerEdges(engine: Engine, values: CompilerEdgesFlags, log: (level: string, msg: string) => void): CompilerEdges | null {
  if (values.editor || values['no-compiler-edges']) return null;
  const after = values['compiler-edges-after'] === undefined ? 10 : Number(values['compiler-edges-after']);
  if (!Number.isFinite(after) || after < 0) throw new UsageError(`--compiler-edges-after must be a number of seconds, got ${values['compiler-edges-after']}`);
  const c = new CompilerEdges(engine, { log, quietMs: after * 1000, pollMs: Math.min(5000, Math.max(500, after * 500)) });
  c.start();
  return c;
}

export const MCP_USAGE = `usage: sightline mcp [--workspace DIR]... [--db FILE] [--http 127.0.0.1:PORT] [--token TOKEN] [--idle-timeout SECONDS] [--allow-reference-providers] [--export-memories agents,copilot] [--no-watch] [--import-from FILE|URL]
  [--no-compiler-edges] [--compiler-edges-after SECONDS]
  stdio by default; --http serves Streamable HTTP at http://HOST:PORT/mcp (loopback only).
  --token (or SIGHTLINE_MCP_TOKEN) requires "Authorization: Bearer TOKEN" on every HTTP request.
  --idle-timeout closes an HTTP session after SECONDS without a request (default 1800).
  --no-watch: do not watch the workspace (by default, once a root is indexed, its created, edited and deleted
    files are applied as they change, so answers reflect edits without another index_repo).
  --import-from adopts a prebuilt index artifact (sightline export) when the workspace has no index yet; the index
    run that follows parses only the files whose content differs from it.
  --no-compiler-edges: do not run the bundled TypeScript service and pyright in the background. By default, once an
    index run has been quiet for --compiler-edges-after seconds (default 10), they add compiler-grade edges for the
    TS/JS and Python code that changed since their last run (Sightline's own copies; time- and memory-bounded).
  --export-memories writes the current project memories into AGENTS.md and/or .github/copilot-instructions.md (off by default).`;

export async function runMcp(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, {
    ...WORKSPACE_OPTIONS, http: { type: 'string' }, token: { type: 'string' }, 'idle-timeout': { type: 'string' },
    editor: { type: 'boolean' }, 'unsaved-buffers': { type: 'string' }, 'no-watch': { type: 'boolean' }, 'import-from': { type: 'string' },
    'no-compiler-edges': { type: 'boolean' }, 'compiler-edges-after': { type: 'string' }, help: { type: 'boolean', short: 'h' },
  });
  if (values.help) { process.stderr.write(MCP_USAGE + '\n'); return; }
  let sessionIdleMs: number | undefined;
  if (values['idle-timeout'] !== undefined) {
    const secs = Number(values['idle-timeout']);
    if (!Number.isFinite(secs) || secs <= 0) throw new UsageError(`--idle-timeout must be a positive number of seconds, got ${values['idle-timeout']}`);
    if (!values.http) throw new UsageError('--idle-timeout applies to --http sessions only');
    sessionIdleMs = secs * 1000;
  }
  const log = (level: string, msg: string) => process.stderr.write(`[sightline ${level}] ${msg}\n`);
  logLongPauses(log);
  const loadedAt = performance.now(); // since the process started: node and the bundle
  const engine = await openEngine(values, positionals, log);
  const startup = () => `ready ${Math.round(performance.now())} ms after start (bundle ${Math.round(loadedAt)} ms, index open ${Math.round(performance.now() - loadedAt)} ms)`;
  if (values['import-from']) await adoptPrebuilt(engine, values['import-from'], log);
  // The editor's engine process hears of changes from the editor (index_repo with paths); a standalone server watches.
  if (!values['no-watch'] && !values.editor) {
    void engine.live.watch().then(() => log('info', 'watching the workspace for changes'), e => log('warn', `not watching the workspace: ${(e as Error).message}`));
  } else if (values.editor) void engine.live.prepare().catch(e => log('warn', `not prepared for edits: ${(e as Error).message}`));
  const compiler = startCompilerEdges(engine, values, log);
  const shutdown = () => { compiler?.stop(); engine.close(); process.exit(0); };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  if (values.http) {
    const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(values.http);
    if (!m) throw new UsageError(`--http expects HOST:PORT, got ${values.http}`);
    const host = m[1]!.replace(/^\[|\]$/g, '');
    const token = values.token ?? process.env.SIGHTLINE_MCP_TOKEN;
    const server = await serveHttp(engine, { host, port: Number(m[2]), token, sessionIdleMs, log: msg => log('error', msg) });
    const addr = server.address();
    const port = typeof addr === 'object' && addr ? addr.port : Number(m[2]);
    // the warning first: a client that waits for the address line has read it by then
    if (!token) log('warn', 'no --token (or SIGHTLINE_MCP_TOKEN): any local process can call this server; give one to require "Authorization: Bearer TOKEN"');
    log('info', `MCP over Streamable HTTP at http://${m[1]}:${port}/mcp${token ? ' (bearer token required)' : ''}; index ${engine.dbPath}; ${startup()}`);
    return;
  }
  process.stdin.on('end', shutdown);
  await serveStdio(engine, { editor: !!values.editor, unsavedFile: values['unsaved-buffers'], log: msg => log('error', msg) });
  log('info', `MCP over stdio; workspace ${engine.roots.map(r => r.root).join(', ')}; index ${engine.dbPath}; ${startup()}`);
}
