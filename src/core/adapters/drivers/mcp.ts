/**
 * The mcp driver: an MCP client over stdio (`command`) or Streamable HTTP (`url` + `headers`), with the
 * SDK's Client.
 *
 * Rules:
 * - Started lazily on the first call (or inspect) and reused; concurrent first calls share one start.
 * - A transport that closes (the server crashed or exited) drops the client: the call in flight fails
 *   (`peer_error`), the next call starts a new one. A start that fails is `spawn_failed` (stdio) or
 *   `unreachable` (HTTP), naming the end of the server's stderr.
 * - An op calls its `tool`: with `args` rendered (a whole `{{x}}` keeps its type), or, without `args`,
 *   with arguments bound from the tool's input schema (binding.ts). A tool the server does not list is
 *   `unsupported`. A result with `isError` is `peer_error` with its text.
 * - The payload is mapping.ts `mcpPayload`: structuredContent, else text parsed as JSON, else text.
 * - Requests carry the call's signal and timeout. `dispose()` closes the client and kills the stdio
 *   server's process tree (util/proctree.ts).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { resolve } from 'node:path';
import type { AdapterConfig, OpName } from '../config';
import { bindArguments, convert, schemaType, type BindingInputs, type JsonSchemaLike } from '../binding';
import { mcpPayload } from '../mapping';
import { renderDeep, renderString, type TemplateContext } from '../templates';
import { killProcessTree, ProcessTree } from '../../util/proctree';
import { VERSION } from '../../version';
import { abortError, AdapterCallError, type Driver, type DriverRequest, type PeerTool } from './types';

interface Live { client: Client; transport: StdioClientTransport | StreamableHTTPClientTransport; tree?: ProcessTree; closed: boolean }

export class McpDriver implements Driver {
  private live?: Live;
  private starting?: Promise<Live>;
  private tools?: PeerTool[];
  private stderrTail = '';
  /** how many times a server was started (tests: restarts after a crash) */
  starts = 0;

  constructor(private readonly cfg: AdapterConfig, private readonly base: TemplateContext, private readonly root: string) {}

  private async start(signal: AbortSignal, timeoutMs: number): Promise<Live> {
    const f = (name: string) => `adapters.${this.cfg.name}.${name}`;
    let transport: StdioClientTransport | StreamableHTTPClientTransport;
    if (this.cfg.command) {
      const argv = this.cfg.command.map((a, i) => renderString(a, this.base, `${f('command')}[${i}]`));
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
      for (const [k, v] of Object.entries(this.cfg.env ?? {})) env[k] = renderString(v, this.base, f(`env.${k}`));
      const cwd = this.cfg.cwd ? resolve(this.root, renderString(this.cfg.cwd, this.base, f('cwd'))) : this.root;
      transport = new StdioClientTransport({ command: argv[0]!, args: argv.slice(1), env, cwd, stderr: 'pipe' });
      this.stderrTail = '';
      transport.stderr?.on('data', (d: Buffer) => { this.stderrTail = (this.stderrTail + d.toString('utf8')).slice(-2000); });
    } else {
      const url = renderString(this.cfg.url!, this.base, f('url'));
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(this.cfg.headers ?? {})) headers[k] = renderString(v, this.base, f(`headers.${k}`));
      let target: URL;
      try { target = new URL(url); } catch { throw new AdapterCallError('config_error', `\`${url}\` is not a URL`); }
      transport = new StreamableHTTPClientTransport(target, { requestInit: { headers } });
    }
    const client = new Client({ name: 'sightline', version: VERSION });
    const live: Live = { client, transport, closed: false };
    client.onclose = () => { live.closed = true; if (this.live === live) { this.live = undefined; this.tools = undefined; } };
    client.onerror = () => { /* surfaced through the failing request */ };
    this.starts++;
    try {
      await client.connect(transport, { signal, timeout: timeoutMs });
    } catch (e) {
      try { await client.close(); } catch { /* not open */ }
      if (signal.aborted) throw abortError(signal, timeoutMs);
      const why = (e as Error).message;
      const tail = this.stderrTail.trim().split('\n').slice(-3).join(' | ');
      throw new AdapterCallError(this.cfg.command ? 'spawn_failed' : 'unreachable', `cannot start the MCP ${this.cfg.command ? `server \`${this.cfg.command[0]}\`` : `endpoint ${this.cfg.url}`}: ${why}${tail ? ` (stderr: ${tail})` : ''}`);
    }
    if (transport instanceof StdioClientTransport && transport.pid) live.tree = new ProcessTree(transport.pid);
    return live;
  }

  private async connect(signal: AbortSignal, timeoutMs: number): Promise<Live> {
    if (this.live && !this.live.closed) return this.live;
    if (!this.starting) {
      this.starting = this.start(signal, timeoutMs).then(l => { this.live = l; return l; }).finally(() => { this.starting = undefined; });
    }
    return this.starting;
  }

  /** Whether the server is running (started and not closed): a call then pays no start-up. */
  get running(): boolean { return !!this.live && !this.live.closed; }

  async inspect(signal: AbortSignal, timeoutMs = this.cfg.timeout_ms): Promise<PeerTool[]> {
    if (this.tools && this.live && !this.live.closed) return this.tools;
    const live = await this.connect(signal, timeoutMs);
    const tools: PeerTool[] = [];
    let cursor: string | undefined;
    try {
      do {
        const r = await live.client.listTools(cursor ? { cursor } : undefined, { signal, timeout: timeoutMs });
        for (const t of r.tools) tools.push({ name: t.name, description: t.description, inputSchema: t.inputSchema as Record<string, unknown>, outputSchema: t.outputSchema as Record<string, unknown> | undefined });
        cursor = r.nextCursor;
      } while (cursor && tools.length < 10_000);
    } catch (e) { throw this.failure(e, signal, timeoutMs); }
    this.tools = tools;
    return tools;
  }

  private failure(e: unknown, signal: AbortSignal, timeoutMs: number): AdapterCallError {
    if (e instanceof AdapterCallError) return e;
    if (signal.aborted) return abortError(signal, timeoutMs);
    const msg = (e as Error)?.message ?? String(e);
    if (/timed out|timeout/i.test(msg)) return new AdapterCallError('timeout', `no answer within ${timeoutMs} ms`, { timeout_ms: timeoutMs });
    return new AdapterCallError('peer_error', `the MCP server failed: ${msg}`);
  }

  /** A server tool's result as sent (`content`, `structuredContent`, `isError`): republished tools. */
  async callToolRaw(tool: string, args: Record<string, unknown>, signal: AbortSignal, timeoutMs: number): Promise<{ isError?: boolean; content?: unknown; structuredContent?: unknown }> {
    const live = await this.connect(signal, timeoutMs);
    try {
      return await live.client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: timeoutMs }) as { isError?: boolean; content?: unknown; structuredContent?: unknown };
    } catch (e) { throw this.failure(e, signal, timeoutMs); }
  }

  async callTool(tool: string, args: Record<string, unknown>, signal: AbortSignal, timeoutMs: number): Promise<unknown> {
    const r = await this.callToolRaw(tool, args, signal, timeoutMs);
    if (r.isError) {
      const p = mcpPayload({ content: r.content });
      const text = (typeof p === 'string' ? p : JSON.stringify(p)).slice(0, 300);
      throw new AdapterCallError('peer_error', `\`${tool}\` answered with an error${text ? `: ${text}` : ''}`);
    }
    return mcpPayload(r);
  }

  async call(req: DriverRequest): Promise<unknown> {
    const tool = req.spec.tool;
    if (!tool) throw new AdapterCallError('config_error', 'an mcp operation needs `tool`');
    const toolName = renderString(tool, req.ctx, `adapters.${this.cfg.name}.ops.${req.op}.tool`);
    let args: Record<string, unknown>;
    if (req.spec.args) {
      args = renderDeep(req.spec.args, req.ctx, `adapters.${this.cfg.name}.ops.${req.op}.args`) as Record<string, unknown>;
      // given args take the JSON types the tool's schema declares ("5" for an integer is 5); a value that
      // cannot be converted is sent as written, for the server to refuse
      const props = ((await this.inspect(req.signal, req.timeoutMs)).find(x => x.name === toolName)?.inputSchema as JsonSchemaLike | undefined)?.properties;
      if (props) for (const [k, v] of Object.entries(args)) { const c = convert(v, schemaType(props[k])); if (c !== undefined) args[k] = c; }
    } else {
      const tools = await this.inspect(req.signal, req.timeoutMs);
      const t = tools.find(x => x.name === toolName);
      if (!t) throw new AdapterCallError('unsupported', `the MCP server has no tool \`${toolName}\` (it has ${tools.map(x => x.name).slice(0, 20).join(', ') || 'none'})`);
      const op: OpName = req.op === 'tool' ? 'search' : req.op;
      args = bindArguments(op, t.inputSchema as JsonSchemaLike, { ...(req.inputs as BindingInputs), project: req.root }).args;
    }
    return this.callTool(toolName, args, req.signal, req.timeoutMs);
  }

  /** Kills the current server (tests: a crash). */
  get pid(): number | undefined { const t = this.live?.transport; return t instanceof StdioClientTransport ? t.pid ?? undefined : undefined; }

  async dispose(): Promise<void> {
    const live = this.live;
    this.live = undefined; this.tools = undefined;
    if (this.starting) { try { await this.starting; } catch { /* failed start */ } }
    const l = live ?? this.live;
    this.live = undefined;
    if (!l) return;
    l.tree?.scan();
    try { await l.client.close(); } catch { /* already closed */ }
    if (l.tree) await killProcessTree(l.tree, { graceMs: 200, background: true });
  }
}
