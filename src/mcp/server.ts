/**
 * The MCP surface: serves the tool registry over stdio (stdio.ts: an over-size or malformed message is
 * answered with a JSON-RPC error, never the end of the server) or Streamable HTTP (loopback only,
 * Host/Origin checked against DNS rebinding, optional bearer token, idle sessions expire). Adds no
 * behaviour of its own.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse, type Server as HttpServer } from 'node:http';
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode as RpcError, ListToolsRequestSchema, McpError, isInitializeRequest, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Protocol, type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { TOOL_LIST, findTool } from '../core/tools/registry';
import { invokeTool, jsonSchema } from '../core/tools/contract';
import { publishedOutputSchema } from '../core/tools/wire_schema';
import type { Engine } from '../core/engine';
import { VERSION } from '../core/version';
import { z } from 'zod';
import { BoundedStdioTransport } from './stdio';
import { publishedTools, callPublished, type PublishedTool } from '../core/adapters/published';

/**
 * Invalid params are a JSON-RPC error -32602 carrying the one error shape in its data (the SDK would
 * answer -32603 "Internal error" with a raw schema dump).
 */
function invalidParams(message: string, details?: Record<string, unknown>): McpError {
  return new McpError(RpcError.InvalidParams, message, { error: { code: 'invalid_arguments', message, ...(details ? { details } : {}) } });
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type RequestSchema = z.ZodObject<{ method: z.ZodLiteral<string> }>;

/** Registers a handler whose request is validated here, so that malformed params are invalid params. */
function handle<S extends RequestSchema, R extends Record<string, unknown>>(
  server: Server, schema: S, handler: (req: z.output<S>, extra: Extra) => Promise<R>,
): void {
  const method = schema.shape.method.value;
  // The SDK's Server validates tools/call itself and answers a malformed one with a raw schema dump and
  // no data; the base Protocol's registration leaves the validation (the same schema) to this function.
  const register = method === 'tools/call' ? Protocol.prototype.setRequestHandler : server.setRequestHandler;
  register.call(server, z.object({ method: z.literal(method) }).passthrough(), async (req: unknown, extra: Extra) => {
    const parsed = schema.safeParse(req);
    if (!parsed.success) {
      const issues = parsed.error.issues.map(i => ({ path: i.path.join('.') || '(params)', message: i.message }));
      throw invalidParams(`invalid params for ${method}: ${issues.map(i => `${i.path}: ${i.message}`).join('; ')}`, { issues });
    }
    return handler(parsed.data, extra) as never;
  });
}

/**
 * Requests only the editor's own engine process accepts (started with --editor): the extension hands
 * over what its live language servers answered. Not tools: agents never see them.
 */
const RecordReferencesRequest = z.object({
  method: z.literal('sightline/record_references'),
  params: z.object({
    target_id: z.string(), provider: z.string(), complete: z.boolean(),
    locations: z.array(z.object({ path: z.string(), line: z.number().int(), col: z.number().int(), kind: z.enum(['calls', 'references', 'implements', 'callee']) })).max(20000),
  }),
});
const EnrichmentTargetsRequest = z.object({
  method: z.literal('sightline/enrichment_targets'),
  params: z.object({ symbol: z.string().optional(), path: z.string().optional(), repo: z.string().optional(), limit: z.number().int().min(1).max(500) }),
});

const SymbolAtRequest = z.object({
  method: z.literal('sightline/symbol_at'),
  params: z.object({ path: z.string().min(1), line: z.number().int().min(1) }),
});
const AdaptersRequest = z.object({ method: z.literal('sightline/adapters'), params: z.object({}).optional() });
const AdaptersTestRequest = z.object({ method: z.literal('sightline/adapters_test'), params: z.object({ name: z.string().min(1), op: z.string().min(1), query: z.string().max(2000) }) });
const AdaptersInspectRequest = z.object({ method: z.literal('sightline/adapters_inspect'), params: z.object({ name: z.string().min(1) }) });
const AdaptersSyncRequest = z.object({ method: z.literal('sightline/adapters_sync'), params: z.object({}).optional() });
const AdaptersTrustRequest = z.object({ method: z.literal('sightline/adapters_trust'), params: z.object({ root: z.string().optional() }).optional() });
/** Files the editor saw change (saved, created, deleted, renamed; absolute paths): applied like a watcher's. */
const ChangedPathsRequest = z.object({
  method: z.literal('sightline/changed_paths'),
  params: z.object({ paths: z.array(z.string().min(1).max(4096)).max(10000) }),
});
const UnsavedBuffersRequest = z.object({
  method: z.literal('sightline/unsaved_buffers'),
  params: z.object({ paths: z.array(z.string()).max(10000) }),
});

export interface McpServerOptions {
  editor?: boolean;
  /**
   * A JSON file `{"paths": [...]}` the editor keeps up to date with its buffers that have unsaved changes
   * (for a server the editor lists but does not talk to): read again whenever it changes.
   */
  unsavedFile?: string;
}

/** Reads the editor's unsaved-buffers file into the engine when it changed since the last look. */
function unsavedFileWatcher(engine: Engine, file: string): () => void {
  let seen = '';
  return () => {
    let key: string;
    try { const st = statSync(file); key = `${st.mtimeMs}:${st.size}`; } catch { key = 'missing'; }
    if (key === seen) return;
    seen = key;
    let paths: string[] = [];
    try { const j = JSON.parse(readFileSync(file, 'utf8')) as { paths?: unknown }; if (Array.isArray(j.paths)) paths = j.paths.filter((p): p is string => typeof p === 'string'); } catch { /* missing or being replaced: none */ }
    engine.setUnsaved(paths);
  };
}

/** The adapters' published tools (first-party names win); none when the adapters cannot load. */
async function adapterTools(engine: Engine): Promise<PublishedTool[]> {
  try { return (await publishedTools(await engine.adapters(), new Set(TOOL_LIST.map(t => t.name)))).tools; } catch { return []; }
}

export function createMcpServer(engine: Engine, opts: McpServerOptions = {}): Server {
  const server = new Server({ name: 'sightline', title: 'Sightline', version: VERSION }, {
    capabilities: { tools: { listChanged: false } },
    instructions: 'Sightline indexes this workspace. overview gives the repo map; search_code finds where to look (paste the task, issue or traceback as is); get_chunk gives source text; before changing code, pre_change_context or impact say what is at stake (with project memories); after, post_change_impact. index_status checks freshness, index_repo refreshes.',
  });
  handle(server, ListToolsRequestSchema, async () => ({
    tools: [...TOOL_LIST.map(t => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: jsonSchema(t.input, 'input') as { type: 'object' },
      outputSchema: publishedOutputSchema(t.output) as { type: 'object' },
      annotations: { title: t.title, readOnlyHint: t.annotations.read_only, destructiveHint: t.annotations.destructive, idempotentHint: t.annotations.idempotent, openWorldHint: t.annotations.open_world },
    })),
    // then the tools the workspace's adapters publish (declared or exposed), in their own order
    ...(await adapterTools(engine)).map(t => ({ name: t.name, description: t.description, inputSchema: t.input_schema as { type: 'object' }, annotations: { openWorldHint: true } }))],
  }));
  const syncUnsaved = opts.unsavedFile ? unsavedFileWatcher(engine, opts.unsavedFile) : () => undefined;
  handle(server, CallToolRequestSchema, async (req, extra): Promise<CallToolResult> => {
    syncUnsaved();
    const def = findTool(req.params.name);
    if (!def && (await adapterTools(engine)).some(t => t.name === req.params.name)) {
      const r = await callPublished(await engine.adapters(), req.params.name, (req.params.arguments ?? {}) as Record<string, unknown>, { signal: extra.signal });
      if (!r.ok) return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: { code: r.error.code === 'invalid_args' ? 'invalid_arguments' : 'adapter_failed', message: r.error.message, details: { adapter: r.adapter ?? null, adapter_code: r.error.code, ...(r.error.details ?? {}) } } }) }] };
      return { content: [{ type: 'text', text: r.text }], ...(r.structured_content && typeof r.structured_content === 'object' ? { structuredContent: r.structured_content as Record<string, unknown> } : {}) };
    }
    if (!def) {
      return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: { code: 'not_found', message: `unknown tool ${req.params.name}; call tools/list` } }) }] };
    }
    // changes the watcher (or the editor) reported are applied before answering: the answer reflects them
    await engine.live.settle();
    const token = req.params._meta?.progressToken;
    let last = 0;
    let step = 0; // MCP progress must increase with every notification, across roots and phases
    // Optional rendering budget from clients that know their token budget (the VS Code extension does).
    const maxChars = Number((req.params._meta as Record<string, unknown> | undefined)?.['sightline/max_chars']);
    const budget = Number.isFinite(maxChars) && maxChars > 0 ? { max_chars: maxChars } : {};
    const outcome = await invokeTool(def, req.params.arguments, {
      engine, signal: extra.signal,
      onProgress: (message, done, total) => {
        if (token === undefined) return;
        const now = Date.now();
        if (now - last < 200) return;
        last = now;
        void done; void total;
        void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++step, message } }).catch(() => undefined);
      },
    }, budget);
    if (!outcome.ok) {
      // Error results carry the machine-readable shape once, as JSON text (structuredContent is reserved for the output schema).
      return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: outcome.error }) }] };
    }
    // The index holds saved files: an answer naming a file with unsaved editor changes says so.
    const unsaved = opts.editor || opts.unsavedFile ? engine.unsavedIn(outcome.data) : [];
    if (unsaved.length) {
      const names = unsaved.slice(0, 5).map(p => `\`${p}\``).join(', ') + (unsaved.length > 5 ? `, … (${unsaved.length})` : '');
      return { content: [{ type: 'text', text: `${outcome.markdown}\n⚠ unsaved editor changes in ${names}: this answer reflects the saved file${unsaved.length > 1 ? 's' : ''}.` }],
        structuredContent: outcome.data, _meta: { 'sightline/unsaved_paths': unsaved } };
    }
    return { content: [{ type: 'text', text: outcome.markdown }], structuredContent: outcome.data };
  });
  if (opts.editor) {
    handle(server, RecordReferencesRequest, async req => {
      const p = req.params;
      return await engine.recordEditorReferences(p.target_id, p.provider, p.locations, p.complete);
    });
    handle(server, EnrichmentTargetsRequest, async req => ({ targets: await engine.enrichmentTargets(req.params) }));
    handle(server, SymbolAtRequest, async req => ({ symbol: await engine.symbolAt(req.params.path, req.params.line) }));
    handle(server, UnsavedBuffersRequest, async req => ({ paths: engine.setUnsaved(req.params.paths) }));
    // applied in the background within the live index's debounce; a tool call settles them first (above)
    handle(server, ChangedPathsRequest, async req => ({ accepted: engine.live.notify(req.params.paths) }));
    // the Index view and the adapter commands: what the adapters service sees, and trusting after review
    handle(server, AdaptersRequest, async () => {
      const a = await engine.adapters();
      await a.reload(); // the config files may have changed since the last look
      return { adapters: a.list(), config_errors: a.configErrors().map(e => e.message), repo_files: a.repoConfigFiles() };
    });
    handle(server, AdaptersTestRequest, async req => {
      const a = await engine.adapters();
      const q = req.params.query;
      return { result: await a.call(req.params.name, req.params.op, { query: q, target: q, uri: q, content: q, prompt: q, limit: 5 }) };
    });
    handle(server, AdaptersInspectRequest, async req => ({ result: await (await engine.adapters()).inspect(req.params.name) }));
    handle(server, AdaptersSyncRequest, async () => {
      const a = await engine.adapters();
      const r = await a.sync(await engine.memories.list({}), { flush: false });
      return { queued: r.queued.length, skipped: r.skipped, flush: await a.flushOutbox() };
    });
    handle(server, AdaptersTrustRequest, async req => {
      const a = await engine.adapters();
      const r = a.trust({ root: req.params?.root });
      await a.reload();
      return r;
    });
  }
  return server;
}

export async function serveStdio(engine: Engine, opts: McpServerOptions & { log?: (msg: string) => void } = {}): Promise<void> {
  const server = createMcpServer(engine, opts);
  await server.connect(new BoundedStdioTransport({ log: opts.log }));
}

/** An HTTP session without a request for this long is closed (its memory freed); the client re-initializes. */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;

export interface HttpOptions {
  host: string; port: number; token?: string; log?: (msg: string) => void;
  /** close a session after this long without a request (default DEFAULT_SESSION_IDLE_MS) */
  sessionIdleMs?: number;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

function hostError(req: IncomingMessage): string | null {
  const host = req.headers.host;
  if (!host) return 'missing Host header';
  let name: string;
  try { name = new URL(`http://${host}`).hostname; } catch { return 'invalid Host header'; }
  if (!LOOPBACK.has(name)) return `Host ${name} is not allowed (DNS rebinding protection)`;
  const origin = req.headers.origin;
  if (origin) {
    try { if (!LOOPBACK.has(new URL(origin).hostname)) return `Origin ${origin} is not allowed`; } catch { return 'invalid Origin header'; }
  }
  return null;
}

function tokenOk(req: IncomingMessage, token: string | undefined): boolean {
  if (!token) return true;
  const got = req.headers.authorization ?? '';
  const want = `Bearer ${token}`;
  const a = Buffer.from(got); const b = Buffer.from(want);
  return a.length === b.length && timingSafeEqual(a, b);
}

function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

class BodyTooLarge extends Error {}

async function readJson(req: IncomingMessage, limit = 4 * 1024 * 1024): Promise<unknown> {
  const chunks: Buffer[] = []; let size = 0;
  for await (const c of req) { size += (c as Buffer).length; if (size > limit) throw new BodyTooLarge(`request body over ${limit} bytes`); chunks.push(c as Buffer); }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

interface Session { transport: StreamableHTTPServerTransport; server: Server; lastSeen: number; open: number }

/**
 * Streamable HTTP on loopback: one MCP session per client, all sessions share the engine. A session with
 * no request in flight and none for `sessionIdleMs` is closed (each holds a server and a transport).
 */
export async function serveHttp(engine: Engine, opts: HttpOptions): Promise<HttpServer> {
  if (!LOOPBACK.has(opts.host)) throw new Error(`--http must bind a loopback address (127.0.0.1, localhost or ::1), not ${opts.host}`);
  const sessions = new Map<string, Session>();
  const idleMs = opts.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [id, s] of sessions) {
      if (s.open > 0 || now - s.lastSeen < idleMs) continue;
      sessions.delete(id);
      void s.server.close().catch(() => undefined);
    }
  }, Math.max(50, Math.min(idleMs / 4, 60_000)));
  sweep.unref();
  /** Counts a request against its session while it is open (an open GET stream keeps a session alive). */
  const track = (s: Session, res: ServerResponse) => {
    s.open++; s.lastSeen = Date.now();
    res.once('close', () => { s.open--; s.lastSeen = Date.now(); });
  };
  const http = createHttpServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname !== '/mcp') { res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: the MCP endpoint is /mcp'); return; }
      const bad = hostError(req);
      if (bad) { sendJsonRpcError(res, 403, -32000, bad); return; }
      if (!tokenOk(req, opts.token)) { sendJsonRpcError(res, 401, -32001, 'missing or wrong bearer token', { 'www-authenticate': 'Bearer' }); return; }
      const sid = req.headers['mcp-session-id'];
      const sessionId = Array.isArray(sid) ? sid[0] : sid;
      if (req.method === 'POST') {
        let body: unknown;
        try { body = await readJson(req); } catch (e) {
          if (e instanceof BodyTooLarge) { sendJsonRpcError(res, 413, -32600, e.message, { connection: 'close' }); req.destroy(); return; }
          sendJsonRpcError(res, 400, -32700, `parse error: ${(e as Error).message}`); return;
        }
        const existing = sessionId ? sessions.get(sessionId) : undefined;
        let transport = existing?.transport;
        if (existing) track(existing, res);
        if (!transport) {
          if (sessionId) { sendJsonRpcError(res, 404, -32001, 'session not found (closed, or expired after being idle); initialize a new session'); return; }
          if (!isInitializeRequest(body)) { sendJsonRpcError(res, 400, -32000, 'no valid session id; send initialize first'); return; }
          const server = createMcpServer(engine);
          const t: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: id => { const s: Session = { transport: t, server, lastSeen: Date.now(), open: 0 }; sessions.set(id, s); track(s, res); },
          });
          t.onclose = () => { if (t.sessionId) sessions.delete(t.sessionId); };
          await server.connect(t);
          transport = t;
        }
        await transport.handleRequest(req, res, body);
        return;
      }
      if (req.method === 'GET' || req.method === 'DELETE') {
        const s = sessionId ? sessions.get(sessionId) : undefined;
        if (!s) { sendJsonRpcError(res, sessionId ? 404 : 400, -32000, sessionId ? 'session not found (closed, or expired after being idle)' : 'missing mcp-session-id header'); return; }
        track(s, res);
        await s.transport.handleRequest(req, res);
        return;
      }
      res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
    } catch (e) {
      opts.log?.(`http error: ${(e as Error).stack ?? e}`);
      if (!res.headersSent) sendJsonRpcError(res, 500, -32603, 'internal error');
    }
  });
  await new Promise<void>((resolveListen, reject) => { http.once('error', reject); http.listen(opts.port, opts.host, () => resolveListen()); });
  http.on('close', () => { clearInterval(sweep); for (const s of sessions.values()) void s.server.close().catch(() => undefined); });
  return http;
}
