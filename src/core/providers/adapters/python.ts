/**
 * `sightline provider python`: references through pyright's language server over LSP stdio.
 *
 * pyright (`pyright/langserver.index.js`) is resolved at run time — the analysed repository's copy
 * first, then Sightline's — and run with the current Node. The client (vscode-jsonrpc) initialises it
 * with the repository as root, opens the Python files of the input symbols, waits `--lsp-startup-delay-ms`
 * (default 0) and then polls `textDocument/references` on probe symbols until two rounds agree (no fixed
 * settle sleep). Then, for each Python input symbol, `textDocument/references` at its name gives the
 * references (`to` = that symbol). A reference followed by `(` is the callee of a call (`calls`), a
 * reference in a class header's base list is `extends`, others are `references`; `import … as alias`
 * references are followed to the alias's own references. With --call-hierarchy,
 * `textDocument/prepareCallHierarchy` + `callHierarchy/incomingCalls` also mark implicit calls (property
 * getters, bare decorators) — off by default: about three times the requests, and not a call expression. The diagnostics pyright published for the open files are counted.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import {
  describeEdge, EdgeSet, findNamePosition, ProviderError, resolveRuntimeModule, SourceCache, SymbolTable,
  type Deadline, type EdgeKind, type InputSymbol, type ProviderInput, type ProviderOutput,
} from './common';

export interface PythonOptions { startupDelayMs: number; callHierarchy: boolean }

interface Position { line: number; character: number }
interface Range { start: Position; end: Position }
interface Location { uri: string; range: Range }
interface CallHierarchyItem { uri: string; range: Range; selectionRange: Range; name: string }
interface IncomingCall { from: CallHierarchyItem; fromRanges: Range[] }

const CONCURRENCY = 8;
const POLL_INTERVAL_MS = 150;

export async function runPythonProvider(input: ProviderInput, deadline: Deadline, options: PythonOptions): Promise<ProviderOutput> {
  const diagnostics: string[] = [];
  const symbols = input.symbols.filter(s => s.language === 'python' || (!s.language && /\.pyi?$/.test(s.path)));
  if (!symbols.length) return { edges: [], diagnostics: ['no Python symbols in the input'] };
  const found = resolveRuntimeModule('pyright/langserver.index.js', input.repo);
  if (!found) throw new ProviderError(`pyright was found neither in ${input.repo} (node_modules) nor in Sightline's installation; install it (npm install pyright)`);
  const pyrightVersion = packageVersion(found.file);
  diagnostics.push(`pyright ${pyrightVersion ?? '?'} language server from ${found.from === 'repo' ? 'the repository' : "Sightline's installation"} (${found.file})`);

  const repo = input.repo;
  const roots = [repo];
  try { const real = realpathSync(repo); if (real !== repo) roots.push(real); } catch { /* keep repo */ }
  const relOfUri = (uri: string): string | undefined => {
    let file: string;
    try { file = fileURLToPath(uri); } catch { return undefined; }
    for (const root of roots) {
      const rel = relative(root, file);
      if (rel && !rel.startsWith('..') && !isAbsolute(rel)) return rel.split(sep).join('/');
    }
    return undefined;
  };
  const uriOf = (rel: string) => pathToFileURL(resolve(repo, rel)).href;
  const table = new SymbolTable(symbols);
  const sources = new SourceCache(repo);
  const edges = new EdgeSet();

  // ---------------------------------------------------------------- start the server
  const started = Date.now();
  const child = deadline.spawn(process.execPath, [found.file, '--stdio'], { cwd: repo, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stdin!.on('error', () => undefined); // EPIPE once the server has exited: reported through `exited`
  child.stderr!.on('data', (d: Buffer) => { if (stderr.length < 65536) stderr += d.toString('utf8'); });
  const exited = new Promise<never>((_, reject) => {
    child.once('error', e => reject(new ProviderError(`could not start pyright: ${e.message}`)));
    child.once('exit', (code, signal) => reject(new ProviderError(`pyright language server exited (${signal ?? code}) before the provider finished${stderr ? `: ${stderr.trim().slice(-2000)}` : ''}`)));
  });
  exited.catch(() => undefined);
  const conn: MessageConnection = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  const published = new Map<string, number>();
  conn.onNotification('textDocument/publishDiagnostics', (p: { uri: string; diagnostics: unknown[] }) => { published.set(p.uri, p.diagnostics.length); });
  conn.onNotification(() => undefined); // window/logMessage, $/progress, pyright/* …
  conn.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) => p.items.map(item => settingsFor(item.section)));
  conn.onRequest('client/registerCapability', () => null);
  conn.onRequest('client/unregisterCapability', () => null);
  conn.onRequest('window/workDoneProgress/create', () => null);
  conn.onRequest('workspace/workspaceFolders', () => [{ uri: pathToFileURL(repo).href, name: 'repo' }]);
  conn.onRequest(() => null);
  conn.listen();
  const send = <T>(method: string, params: unknown): Promise<T> => deadline.race(Promise.race([conn.sendRequest<T>(method, params), exited]));
  /** Requests the server cancelled because its program changed underneath (still starting up) are retried. */
  const call = async <T>(method: string, params: unknown): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      try { return await send<T>(method, params); } catch (e) {
        if (!isCancelled(e) || attempt >= 50) throw e;
        cancelledRetries++;
        await deadline.race(sleep(Math.min(50 * (attempt + 1), 500)));
      }
    }
  };
  let cancelledRetries = 0;

  try {
    const init = await call<{ capabilities: Record<string, unknown> }>('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(repo).href,
      rootPath: repo,
      workspaceFolders: [{ uri: pathToFileURL(repo).href, name: 'repo' }],
      capabilities: {
        workspace: { configuration: true, workspaceFolders: true, didChangeConfiguration: { dynamicRegistration: true } },
        textDocument: {
          references: { dynamicRegistration: false },
          callHierarchy: { dynamicRegistration: false },
          publishDiagnostics: { relatedInformation: false },
          synchronization: { dynamicRegistration: false, didSave: false },
        },
        window: { workDoneProgress: false },
      },
      initializationOptions: {},
    });
    const hasCallHierarchy = options.callHierarchy && !!init.capabilities.callHierarchyProvider;
    await conn.sendNotification('initialized', {});
    await conn.sendNotification('workspace/didChangeConfiguration', { settings: { python: settingsFor('python'), 'python.analysis': settingsFor('python.analysis') } });
    const files = table.paths();
    for (const rel of files) {
      const text = sources.text(rel);
      if (text === undefined) { diagnostics.push(`${rel}: cannot be read`); continue; }
      await conn.sendNotification('textDocument/didOpen', { textDocument: { uri: uriOf(rel), languageId: 'python', version: 1, text } });
    }
    if (options.startupDelayMs > 0) await deadline.race(sleep(options.startupDelayMs));

    // ---------------------------------------------------------------- placed symbols
    const placed: { s: InputSymbol; pos: Position }[] = [];
    let unplaced = 0;
    for (const s of symbols) {
      const at = findNamePosition(sources, s);
      if (!at) { unplaced++; continue; }
      placed.push({ s, pos: { line: at.line - 1, character: at.col } });
    }
    if (unplaced) diagnostics.push(`${unplaced} input symbols whose name was not found at their range (skipped)`);

    const referencesAt = (uri: string, position: Position) => call<Location[] | null>('textDocument/references', {
      textDocument: { uri }, position, context: { includeDeclaration: false },
    }).then(r => r ?? []);
    const references = (p: { s: InputSymbol; pos: Position }) => referencesAt(uriOf(p.s.path), p.pos);

    // ---------------------------------------------------------------- readiness: references until stable
    const probes = pickProbes(placed);
    let previous = '';
    let rounds = 0;
    for (;;) {
      rounds++;
      const results = await Promise.all(probes.map(references));
      const signature = results.map(r => r.map(l => `${l.uri}:${l.range.start.line}:${l.range.start.character}`).sort().join(',')).join('|');
      if (rounds > 1 && signature === previous) break;
      previous = signature;
      await deadline.race(sleep(POLL_INTERVAL_MS));
    }
    const readyMs = Date.now() - started;
    diagnostics.push(`pyright ready after ${readyMs} ms (${rounds} reference polls on ${probes.length} probe symbols, ${cancelledRetries} cancelled requests retried, startup delay ${options.startupDelayMs} ms)`);

    // ---------------------------------------------------------------- references per symbol
    let refCount = 0; let outside = 0; let aliases = 0;
    const callSitesAt = async (uri: string, position: Position): Promise<Set<string>> => {
      const sites = new Set<string>();
      if (!hasCallHierarchy) return sites;
      const items = await call<CallHierarchyItem[] | null>('textDocument/prepareCallHierarchy', { textDocument: { uri }, position }).catch(() => null);
      for (const item of items ?? []) {
        const incoming = await call<IncomingCall[] | null>('callHierarchy/incomingCalls', { item }).catch(() => null);
        for (const c of incoming ?? []) for (const r of c.fromRanges) sites.add(`${c.from.uri}#${r.start.line}:${r.start.character}`);
      }
      return sites;
    };
    /** Turns reference locations of `to` into edges; `import … as alias` locations are followed (up to 3 hops). */
    const consume = async (to: InputSymbol, locs: Location[], sites: Set<string>, via: string, seen: Set<string>, depth: number): Promise<void> => {
      for (const loc of locs) {
        const rel = relOfUri(loc.uri);
        if (rel === undefined) continue;
        const line = loc.range.start.line + 1; const col = loc.range.start.character;
        const alias = importAlias(sources, rel, loc.range);
        if (alias && depth < 3) {
          const key = `${loc.uri}#${alias.line}:${alias.character}`;
          if (!seen.has(key)) {
            seen.add(key); aliases++;
            const aliasPos = { line: alias.line, character: alias.character };
            const [aliasLocs, aliasSites] = await Promise.all([referencesAt(loc.uri, aliasPos), callSitesAt(loc.uri, aliasPos)]);
            await consume(to, aliasLocs, new Set([...sites, ...aliasSites]), ` via import alias ${alias.name} (${rel}:${line})`, seen, depth + 1);
          }
        }
        // pyright lists declarations among references (a property's getter and setter both `def name(`)
        if (isDeclarationSite(sources, rel, loc.range)) continue;
        const from = table.innermost(rel, line, col);
        if (!from) { outside++; continue; }
        refCount++;
        const { kind, how } = classify(sources, rel, loc.range, sites.has(`${loc.uri}#${loc.range.start.line}:${loc.range.start.character}`) || sitesHasPath(sites, rel, loc, relOfUri));
        edges.add(from, to, kind, `pyright language server: ${describeEdge(from, kind, to, rel, line)}${how}${via}`);
      }
    };
    const work = async (p: { s: InputSymbol; pos: Position }) => {
      const uri = uriOf(p.s.path);
      const [locs, sites] = await Promise.all([references(p), callSitesAt(uri, p.pos)]);
      await consume(p.s, locs, sites, '', new Set([`${uri}#${p.pos.line}:${p.pos.character}`]), 0);
    };
    const asked = input.query_ids ? new Set(input.query_ids) : null;
    const queried = asked ? placed.filter(p => asked.has(p.s.id)) : placed;
    for (let i = 0; i < queried.length; i += CONCURRENCY) {
      deadline.check();
      await Promise.all(queried.slice(i, i + CONCURRENCY).map(work));
    }
    const diagCount = [...published.values()].reduce((a, b) => a + b, 0);
    diagnostics.push(`pyright diagnostics: ${diagCount} in ${files.length} open files`);
    diagnostics.push(`textDocument/references on ${queried.length} symbols${hasCallHierarchy ? ' (+ call hierarchy)' : ''}: ${refCount} references inside input symbols, ${outside} at top level or outside any symbol, ${aliases} import aliases followed; ${edges.size} edges in ${Date.now() - started} ms`);
    await shutdown(conn);
    return { edges: edges.list(), diagnostics };
  } finally {
    conn.dispose();
  }
}

/** Call-hierarchy sites are keyed by URI; a site may name the same file through another spelling. */
function sitesHasPath(sites: Set<string>, rel: string, loc: Location, relOfUri: (u: string) => string | undefined): boolean {
  if (!sites.size) return false;
  const suffix = `#${loc.range.start.line}:${loc.range.start.character}`;
  for (const s of sites) if (s.endsWith(suffix) && relOfUri(s.slice(0, -suffix.length)) === rel) return true;
  return false;
}

/** `NAME as ALIAS` in an import statement: the alias and its position (0-based). */
function importAlias(sources: SourceCache, rel: string, range: Range): { name: string; line: number; character: number } | undefined {
  const text = sources.line(rel, range.end.line + 1);
  const m = /^(\s+as\s+)([\p{L}_][\p{L}\p{N}_]*)/u.exec(text.slice(range.end.character));
  if (!m) return undefined;
  // The statement must be an import: this line, or an open `from m import (` a few lines up.
  let inImport = /^\s*(from\s+\S+\s+)?import\b/.test(sources.line(rel, range.start.line + 1));
  for (let l = range.start.line; !inImport && l > Math.max(0, range.start.line - 30); l--) {
    const prev = sources.line(rel, l);
    if (/^\s*from\s+\S+\s+import\s*\(/.test(prev)) inImport = !/\)/.test(prev);
    if (/\)/.test(prev) || /^\S/.test(prev) && !/^\s*from\b/.test(prev)) break;
  }
  if (!inImport) return undefined;
  return { name: m[2]!, line: range.end.line, character: range.end.character + m[1]!.length };
}

/** Whether the location is the name in a `def name(` / `class Name` header (a declaration, not a use). */
function isDeclarationSite(sources: SourceCache, rel: string, range: Range): boolean {
  const before = sources.line(rel, range.start.line + 1).slice(0, range.start.character);
  return /^\s*(async\s+)?def\s+$/.test(before) || /^\s*class\s+$/.test(before);
}

/**
 * `calls` when the reference is the callee of a call (followed by `(`: the same syntactic rule as the
 * TypeScript adapter); with --call-hierarchy, call sites pyright's call hierarchy reports without `(`
 * (property getters, decorators) are `calls` too. A reference in a class header's base list is `extends`.
 */
function classify(sources: SourceCache, rel: string, range: Range, hierarchyCall: boolean): { kind: EdgeKind; how: string } {
  const text = sources.line(rel, range.start.line + 1);
  const before = text.slice(0, range.start.character);
  if (/^\s*class\s+[\p{L}_][\p{L}\p{N}_]*\s*\([^)]*$/u.test(before)) {
    return { kind: 'extends', how: ' (class base list)' };
  }
  const endLine = sources.line(rel, range.end.line + 1);
  const callee = /^\s*\(/.test(endLine.slice(range.end.character));
  if (callee) return { kind: 'calls', how: hierarchyCall ? " (call: followed by '(', in pyright's call hierarchy)" : " (call: the reference is followed by '(')" };
  if (hierarchyCall) return { kind: 'calls', how: " (implicit call from pyright's call hierarchy, e.g. a property getter)" };
  return { kind: 'references', how: '' };
}

/** LSP RequestCancelled (-32800) / ContentModified (-32801), or vscode-jsonrpc's "request cancelled". */
function isCancelled(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return code === -32800 || code === -32801 || /cancel/i.test((e as Error).message ?? '');
}

function settingsFor(section: string | undefined): unknown {
  const analysis = { diagnosticMode: 'openFilesOnly', autoSearchPaths: true, useLibraryCodeForTypes: true, typeCheckingMode: 'standard' };
  if (section === 'python.analysis') return analysis;
  if (section === 'python') return { analysis };
  if (section === 'pyright') return { disableLanguageServices: false, disableOrganizeImports: true };
  return {};
}

/** Up to three symbols, preferring classes and functions referenced from elsewhere: spread across files. */
function pickProbes(placed: { s: InputSymbol; pos: Position }[]): { s: InputSymbol; pos: Position }[] {
  const out: { s: InputSymbol; pos: Position }[] = [];
  const seen = new Set<string>();
  for (const p of [...placed].sort((a, b) => rank(a.s) - rank(b.s))) {
    if (seen.has(p.s.path)) continue;
    seen.add(p.s.path); out.push(p);
    if (out.length === 3) break;
  }
  return out;
}
const rank = (s: InputSymbol) => (s.kind === 'class' ? 0 : s.kind === 'function' ? 1 : 2);

async function shutdown(conn: MessageConnection): Promise<void> {
  try {
    await Promise.race([conn.sendRequest('shutdown'), sleep(1000)]);
    await conn.sendNotification('exit');
  } catch { /* the process is killed anyway */ }
}

function sleep(ms: number): Promise<void> { return new Promise(r => setTimeout(r, ms)); }

function packageVersion(langserverFile: string): string | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const req: NodeRequire = require;
    return (req(resolve(langserverFile, '..', 'package.json')) as { version?: string }).version;
  } catch { return undefined; }
}
