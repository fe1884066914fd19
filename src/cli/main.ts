/**
 * The `sightline` command. Machine-readable output (--json, `call`) goes to stdout; progress and
 * messages go to stderr. Exit codes: 0 ok, 1 the tool failed, 2 usage error, 3 index locked by another
 * writer, 130 cancelled.
 *
 * Verbs served by another surface (`sightline mcp`) are handed in by the process entry
 * (src/bin/sightline.ts): surfaces never import each other.
 */
import { openEngine, parse, WORKSPACE_OPTIONS, UsageError, intOption } from '../surface/options';
import { CompilerEdges } from '../surface/compiler-edges';
import { findTool, TOOL_LIST } from '../core/tools/registry';
import { invokeTool, type ToolOutcome } from '../core/tools/contract';
import { VERSION } from '../core/version';
import type { Engine } from '../core/engine';
import { SightlineError, toErrorShape } from '../core/errors';
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';

const USAGE = `sightline ${VERSION} — where to look and what is at stake, for coding agents

usage:
  sightline index DIR [--db FILE] [--force] [--json] [--no-compiler-edges] [--exclude PATTERN]... [--max-file-bytes N] [--languages a,b] [--no-text-files]
                      (then runs the bundled TypeScript service and pyright on what they have not checked)
  sightline search QUERY [--db FILE] [--workspace DIR] [--limit N] [--offset N] [--vector] [--repo R] [--language L] [--file-kind K] [--json]
  sightline call TOOL --args JSON [--db FILE] [--workspace DIR] [--allow-reference-providers]
  sightline status [--db FILE] [--workspace DIR] [--json]
  sightline history SYMBOL_OR_PATH [--path FILE] [--repo R] [--limit N] [--offset N] [--db FILE] [--workspace DIR] [--json]
  sightline links [SYMBOL|KEY] [--kind K] [--matched true|false] [--path FILE] [--repo R] [--limit N] [--offset N] [--db FILE] [--workspace DIR] [--json]
  sightline analytics cycles|communities|dead_code|hotspots [--level file|symbol] [--path P] [--min-size N] [--repo R] [--limit N] [--offset N] [--db FILE] [--workspace DIR] [--json]
  sightline similar SYMBOL | --snippet FILE|- [--path FILE] [--repo R] [--language L] [--no-tests] [--min-score X] [--limit N] [--offset N] [--db FILE] [--workspace DIR] [--json]
  sightline post-change --diff FILE|- [--repo R] [--db FILE] [--workspace DIR] [--json]
  sightline context-for-change --base REF [--branch B] | --diff FILE|- [--repo R] [--db FILE] [--workspace DIR] [--json]
  sightline memory add TEXT [--path FILE [--symbol S | --lines A-B]] [--kind repo|file|symbol|span] [--source S] [--confidence N] [--scope user|repo] [--repo R]
  sightline memory list [--status S] [--path P] [--symbol S] [--source S] [--text T] [--repo R] [--limit N] [--offset N]
  sightline memory update ID [--text T] [--confidence N] [--source S] [--reanchor | [--kind K] --path FILE [--symbol S | --lines A-B]]
  sightline memory delete ID | memory reconcile [--repo R]      (memory verbs also take --db FILE --workspace DIR --json)
  sightline adapters list [--json] | inspect NAME | test NAME [--op OP] [--query Q] | trust [--root DIR] | untrust DIR
  sightline adapters sync | outbox [retry|drop [ID]...] | call TOOL [--args JSON]
  sightline export --out FILE [--no-index] [--db FILE] [--workspace DIR] [--json]      (a portable index: compressed, checksummed, no absolute paths)
  sightline import FILE|URL [--no-index] [--db FILE] [--workspace DIR] [--json]       (adopt one; then only files that differ are parsed)
  sightline tools [--json]
  sightline mcp [--workspace DIR] [--db FILE] [--http 127.0.0.1:PORT] [--token TOKEN] [--allow-reference-providers]
  sightline provider typescript|python|rust-analyzer-scip|java-scip|scip [--timeout-ms N] < input.json  (provider --help)

The index lives in a per-user cache folder keyed by the workspace roots unless --db names a file.
--allow-reference-providers lets index_repo run the external provider commands given in its arguments.
--export-memories agents,copilot writes the current project memories into AGENTS.md / .github/copilot-instructions.md (off by default).
exit codes: 0 ok, 1 tool error, 2 usage error, 3 index locked by another process, 130 cancelled`;

const EXIT = { ok: 0, tool: 1, usage: 2, locked: 3, cancelled: 130 } as const;

function exitCodeFor(o: ToolOutcome): number {
  if (o.ok) return EXIT.ok;
  if (o.error.code === 'invalid_arguments' || o.error.code === 'path_outside_workspace') return EXIT.usage;
  if (o.error.code === 'index_locked') return EXIT.locked;
  if (o.error.code === 'cancelled') return EXIT.cancelled;
  return EXIT.tool;
}

function progressPrinter(): (message: string) => void {
  let last = 0;
  const tty = process.stderr.isTTY;
  return (message: string) => {
    const now = Date.now();
    if (now - last < (tty ? 100 : 2000)) return;
    last = now;
    process.stderr.write(tty ? `\r\x1b[K${message}` : `${message}\n`);
  };
}

async function runTool(engine: Engine, name: string, args: unknown, json: boolean, progress = false): Promise<number> {
  const def = findTool(name);
  if (!def) throw new UsageError(`unknown tool ${name}; known tools: ${TOOL_LIST.map(t => t.name).join(', ')}`);
  const controller = new AbortController();
  const onSigint = () => { process.stderr.write('\ncancelling…\n'); controller.abort(); };
  process.once('SIGINT', onSigint);
  const print = progress ? progressPrinter() : undefined;
  const outcome = await invokeTool(def, args, { engine, signal: controller.signal, onProgress: print ? m => print(m) : undefined });
  process.off('SIGINT', onSigint);
  if (print && process.stderr.isTTY) process.stderr.write('\r\x1b[K');
  if (outcome.ok) process.stdout.write(json ? JSON.stringify(outcome.data, null, 2) + '\n' : outcome.markdown + '\n');
  else {
    if (json) process.stdout.write(JSON.stringify({ error: outcome.error }, null, 2) + '\n');
    process.stderr.write(`sightline: ${outcome.error.message} (${outcome.error.code})\n`);
  }
  return exitCodeFor(outcome);
}

/** A verb another surface serves: its usage (for --help) and what runs it (it may keep the process running). */
export interface ForeignVerb { usage: string; run(argv: string[]): Promise<void> }

/** The bundled TypeScript service and pyright on what the index has not had checked (progress on stderr). */
async function compilerEdges(engine: Engine): Promise<void> {
  const progress = (level: string, msg: string) => process.stderr.write(`[sightline${level === 'info' ? '' : ` ${level}`}] ${msg}\n`);
  await new CompilerEdges(engine, { log: progress }).runNow();
}

async function main(argv: string[], verbs: Readonly<Record<string, ForeignVerb>>): Promise<number> {
  const [command, ...rest] = argv;
  const log = (level: string, msg: string) => { if (level !== 'info') process.stderr.write(`[sightline ${level}] ${msg}\n`); };
  switch (command) {
    case undefined: case 'help': case '--help': case '-h':
      process.stdout.write(USAGE + '\n'); return EXIT.ok;
    case '--version': case 'version':
      process.stdout.write(VERSION + '\n'); return EXIT.ok;
    case 'index': {
      const flags = { force: { type: 'boolean' }, json: { type: 'boolean' }, 'no-compiler-edges': { type: 'boolean' } } as const;
      const { values, positionals } = parse(rest, { ...WORKSPACE_OPTIONS, ...flags });
      if (positionals.length > 1) throw new UsageError('index takes one folder; use --workspace for more roots');
      const engine = await openEngine(values, positionals, log);
      try {
        const code = await runTool(engine, 'index_repo', { force: !!values.force }, !!values.json, true);
        if (code === EXIT.ok && !values['no-compiler-edges']) await compilerEdges(engine);
        return code;
      } finally { engine.close(); }
    }
    case 'search': {
      const { values, positionals } = parse(rest, { ...WORKSPACE_OPTIONS, limit: { type: 'string' }, offset: { type: 'string' }, vector: { type: 'boolean' },
        repo: { type: 'string' }, language: { type: 'string' }, 'file-kind': { type: 'string' }, json: { type: 'boolean' }, path: { type: 'string' },
        'include-tests': { type: 'boolean' }, group: { type: 'string' } });
      const query = positionals.join(' ').trim();
      if (!query) throw new UsageError('search needs a QUERY');
      const engine = await openEngine(values, [], log);
      const args: Record<string, unknown> = { query, vector: !!values.vector };
      if (values.limit !== undefined) args.limit = Number(values.limit);
      if (values.offset !== undefined) args.offset = Number(values.offset);
      if (values.repo) args.repo = values.repo;
      if (values.language) args.language = values.language;
      if (values['file-kind']) args.file_kind = values['file-kind'];
      if (values.path) args.path = values.path;
      if (values['include-tests']) args.include_tests = true;
      if (values.group) args.group = values.group;
      try { return await runTool(engine, 'search_code', args, !!values.json); } finally { engine.close(); }
    }
    case 'call': {
      const { values, positionals } = parse(rest, { ...WORKSPACE_OPTIONS, args: { type: 'string' }, markdown: { type: 'boolean' } });
      const [name, ...extra] = positionals;
      if (!name || extra.length) throw new UsageError('call needs exactly one TOOL name');
      let args: unknown = {};
      if (values.args !== undefined) {
        try { args = JSON.parse(values.args); } catch (e) { throw new UsageError(`--args is not valid JSON: ${(e as Error).message}`); }
      }
      const engine = await openEngine(values, [], log);
      try { return await runTool(engine, name, args, !values.markdown, name === 'index_repo'); } finally { engine.close(); }
    }
    case 'status': {
      const { values } = parse(rest, { ...WORKSPACE_OPTIONS, json: { type: 'boolean' } });
      const engine = await openEngine(values, [], log);
      try { return await runTool(engine, 'index_status', {}, !!values.json); } finally { engine.close(); }
    }
    case 'history': {
      const { values, positionals } = parse(rest, { ...WORKSPACE_OPTIONS, path: { type: 'string' }, repo: { type: 'string' }, limit: { type: 'string' }, offset: { type: 'string' }, json: { type: 'boolean' } });
      const [target, ...extra] = positionals;
      if (!target || extra.length) throw new UsageError('history needs one SYMBOL_OR_PATH');
      const engine = await openEngine(values, [], log);
      // a file of the workspace is a path; anything else is a symbol
      const isFile = !values.path && engine.roots.some(r => { try { return statSync(resolve(r.root, target)).isFile(); } catch { return false; } });
      const args: Record<string, unknown> = isFile ? { path: target } : { symbol: target, ...(values.path ? { path: values.path } : {}) };
      if (values.repo) args.repo = values.repo;
      if (values.limit !== undefined) args.limit = Number(values.limit);
      if (values.offset !== undefined) args.offset = Number(values.offset);
      try { return await runTool(engine, 'history', args, !!values.json); } finally { engine.close(); }
    }
    case 'links': {
      const { values, positionals } = parse(rest, { ...WORKSPACE_OPTIONS, kind: { type: 'string' }, matched: { type: 'string' }, path: { type: 'string' }, repo: { type: 'string' }, limit: { type: 'string' }, offset: { type: 'string' }, json: { type: 'boolean' } });
      if (positionals.length > 1) throw new UsageError('links takes at most one SYMBOL or key (route:GET /x, env:X, table:t, …); quote it');
      const args: Record<string, unknown> = {};
      if (positionals[0]) args.symbol = positionals[0];
      for (const k of ['kind', 'path', 'repo'] as const) if (values[k]) args[k] = values[k];
      if (values.matched !== undefined) {
        if (values.matched !== 'true' && values.matched !== 'false') throw new UsageError('--matched takes true or false');
        args.matched = values.matched === 'true';
      }
      if (values.limit !== undefined) args.limit = Number(values.limit);
      if (values.offset !== undefined) args.offset = Number(values.offset);
      const engine = await openEngine(values, [], log);
      try { return await runTool(engine, 'links', args, !!values.json); } finally { engine.close(); }
    }
    case 'analytics': {
      const { values, positionals } = parse(rest, { ...WORKSPACE_OPTIONS, level: { type: 'string' }, path: { type: 'string' }, 'min-size': { type: 'string' }, repo: { type: 'string' }, limit: { type: 'string' }, offset: { type: 'string' }, json: { type: 'boolean' } });
      const [kind, ...extra] = positionals;
      if (!kind || extra.length) throw new UsageError('analytics needs one KIND: cycles, communities, dead_code or hotspots');
      const args: Record<string, unknown> = { kind: kind.replace(/-/g, '_') };
      if (values.level) args.level = values.level;
      if (values.path) args.path = values.path;
      if (values.repo) args.repo = values.repo;
      if (values['min-size'] !== undefined) args.min_size = intOption(values['min-size'], 'min-size');
      if (values.limit !== undefined) args.limit = intOption(values.limit, 'limit');
      if (values.offset !== undefined) args.offset = intOption(values.offset, 'offset');
      const engine = await openEngine(values, [], log);
      try { return await runTool(engine, 'analytics', args, !!values.json); } finally { engine.close(); }
    }
    case 'similar': {
      const str = { type: 'string' } as const;
      const { values, positionals } = parse(rest, { ...WORKSPACE_OPTIONS, snippet: str, path: str, repo: str, language: str, 'no-tests': { type: 'boolean' }, 'min-score': str, limit: str, offset: str, json: { type: 'boolean' } });
      const [symbol, ...extra] = positionals;
      if (extra.length || (symbol === undefined) === (values.snippet === undefined)) throw new UsageError('similar needs one SYMBOL or --snippet FILE|-');
      const args: Record<string, unknown> = {};
      if (symbol !== undefined) args.symbol = symbol;
      if (values.snippet !== undefined) {
        try { args.snippet = values.snippet === '-' ? readFileSync(0, 'utf8') : readFileSync(values.snippet, 'utf8'); } catch (e) { throw new UsageError(`cannot read --snippet ${values.snippet}: ${(e as Error).message}`); }
      }
      for (const k of ['path', 'repo', 'language'] as const) if (values[k] !== undefined) args[k] = values[k];
      if (values['no-tests']) args.include_tests = false;
      if (values['min-score'] !== undefined) args.min_score = Number(values['min-score']);
      if (values.limit !== undefined) args.limit = Number(values.limit);
      if (values.offset !== undefined) args.offset = Number(values.offset);
      const engine = await openEngine(values, [], log);
      try { return await runTool(engine, 'find_similar', args, !!values.json); } finally { engine.close(); }
    }
    case 'post-change': case 'context-for-change': {
      const { values, positionals } = parse(rest, { ...WORKSPACE_OPTIONS, diff: { type: 'string' }, base: { type: 'string' }, branch: { type: 'string' }, repo: { type: 'string' }, json: { type: 'boolean' } });
      if (positionals.length) throw new UsageError(`${command} takes no positional arguments`);
      const args: Record<string, unknown> = {};
      if (values.diff !== undefined) {
        try { args.diff = values.diff === '-' ? readFileSync(0, 'utf8') : readFileSync(values.diff, 'utf8'); } catch (e) { throw new UsageError(`cannot read --diff ${values.diff}: ${(e as Error).message}`); }
      }
      if (command === 'context-for-change') {
        if (values.base) args.base = values.base;
        if (values.branch) args.branch = values.branch;
        if (!args.diff && !args.base) throw new UsageError('context-for-change needs --base REF or --diff FILE|-');
      } else if (args.diff === undefined) throw new UsageError('post-change needs --diff FILE|-');
      if (values.repo) args.repo = values.repo;
      const engine = await openEngine(values, [], log);
      try { return await runTool(engine, command === 'post-change' ? 'post_change_impact' : 'context_for_change', args, !!values.json); } finally { engine.close(); }
    }
    case 'memory': {
      const [sub, ...more] = rest;
      const str = { type: 'string' } as const;
      const { values, positionals } = parse(more, { ...WORKSPACE_OPTIONS, json: { type: 'boolean' }, repo: str, path: str, symbol: str, lines: str, kind: str, source: str,
        confidence: str, scope: str, status: str, text: str, limit: str, offset: str, reanchor: { type: 'boolean' } });
      const args: Record<string, unknown> = {};
      for (const k of ['repo', 'path', 'symbol', 'source', 'scope', 'status', 'text'] as const) if (values[k] !== undefined) args[k] = values[k];
      for (const k of ['confidence', 'limit', 'offset'] as const) if (values[k] !== undefined) args[k] = Number(values[k]);
      if (values.reanchor) args.reanchor = true;
      const anchor = () => {
        if (values.lines !== undefined) {
          const m = /^(\d+)(?:-(\d+))?$/.exec(values.lines);
          if (!m) throw new UsageError('--lines is A-B');
          args.start_line = Number(m[1]); args.end_line = Number(m[2] ?? m[1]);
        }
        return values.kind ?? (values.symbol ? 'symbol' : values.lines ? 'span' : values.path ? 'file' : undefined);
      };
      let tool: string;
      if (sub === 'add') {
        if (positionals.length !== 1) throw new UsageError('memory add needs one TEXT');
        args.text = positionals[0];
        args.anchor_kind = anchor() ?? 'repo';
        tool = 'memory_add';
      } else if (sub === 'update') {
        if (positionals.length !== 1) throw new UsageError('memory update needs one ID');
        args.id = positionals[0];
        const kind = anchor();
        if (kind !== undefined) args.anchor_kind = kind;
        tool = 'memory_update';
      } else if (sub === 'list') { if (positionals.length) throw new UsageError('memory list takes no positional arguments'); tool = 'memory_list'; }
      else if (sub === 'delete') { if (positionals.length !== 1) throw new UsageError('memory delete needs one ID'); args.id = positionals[0]; tool = 'memory_delete'; }
      else if (sub === 'reconcile') { if (positionals.length) throw new UsageError('memory reconcile takes no positional arguments'); tool = 'memory_reconcile'; }
      else throw new UsageError('memory needs add, list, update, delete or reconcile');
      const engine = await openEngine(values, [], log);
      try { return await runTool(engine, tool, args, !!values.json); } finally { engine.close(); }
    }
    case 'adapters': {
      const [sub, ...more] = rest;
      const str = { type: 'string' } as const;
      const { values, positionals } = parse(more, { ...WORKSPACE_OPTIONS, json: { type: 'boolean' }, op: str, query: str, target: str, uri: str, root: str, args: str });
      const { runAdapters } = await import('./adapters');
      const engine = await openEngine(values, [], log);
      try { return await runAdapters(engine, sub, positionals, values); } finally { engine.close(); }
    }
    case 'export': case 'import': {
      const { values, positionals } = parse(rest, { ...WORKSPACE_OPTIONS, out: { type: 'string' }, 'no-index': { type: 'boolean' }, json: { type: 'boolean' } });
      if (command === 'export' ? positionals.length : positionals.length !== 1) throw new UsageError(command === 'export' ? 'export takes no positional arguments (--out FILE)' : 'import needs one FILE or URL');
      const { runExport, runImport } = await import('./portable');
      const engine = await openEngine(values, [], log);
      const out = (l: string) => process.stdout.write(l + '\n'), err = (l: string) => process.stderr.write(l + '\n');
      try { return command === 'export' ? await runExport(engine, values, out, err) : await runImport(engine, positionals[0], values, out, err); } finally { engine.close(); }
    }
    case 'tools': {
      const { values } = parse(rest, { json: { type: 'boolean' } });
      const { toolsList } = await import('../core/tools/golden');
      if (values.json) process.stdout.write(JSON.stringify(toolsList(), null, 2) + '\n');
      else for (const t of TOOL_LIST) process.stdout.write(`${t.name.padEnd(16)} ${t.title}\n`);
      return EXIT.ok;
    }
    case 'provider': {
      const { runProvider } = await import('./provider');
      return runProvider(rest);
    }
    default: {
      const verb = Object.prototype.hasOwnProperty.call(verbs, command) ? verbs[command] : undefined;
      if (!verb) throw new UsageError(`unknown command ${command}`);
      if (rest.includes('--help')) { process.stderr.write(verb.usage + '\n'); return EXIT.ok; }
      await verb.run(rest);
      return -1; // keep running
    }
  }
}

/** Runs the command line (`argv` without node and the script) and sets the exit code. */
export function runCli(argv: string[], verbs: Readonly<Record<string, ForeignVerb>> = {}): void {
  main(argv, verbs).then(code => {
    if (code >= 0) process.exitCode = code;
  }, e => {
    if (e instanceof UsageError) { process.stderr.write(`sightline: ${e.message}\n\n${USAGE}\n`); process.exitCode = EXIT.usage; return; }
    if (e instanceof SightlineError) {
      // before any tool ran (e.g. --db names a file that is not a Sightline index): the one error shape
      if (argv[0] === 'call' || argv.includes('--json')) process.stdout.write(JSON.stringify(toErrorShape(e), null, 2) + '\n');
      process.stderr.write(`sightline: ${e.message} (${e.code})\n`);
      process.exitCode = e.code === 'index_locked' ? EXIT.locked : EXIT.tool;
      return;
    }
    process.stderr.write(`sightline: ${(e as Error).stack ?? e}\n`);
    process.exitCode = EXIT.tool;
  });
}
