/**
 * The engine runs in a child process (the bundled MCP server on the editor's own Node runtime), never on
 * the extension host's thread, in a scheduling group of its own (engineTransport.ts). The extension talks
 * to it with the MCP SDK client over stdio, so every call goes through the same registry as every other surface.
 */
import * as vscode from 'vscode';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { EngineTransport } from './engineTransport';
import { VERSION } from '../core/version';
import { z } from 'zod';

const PassThrough = z.object({}).passthrough();

export interface CallResult {
  ok: boolean;
  data?: Record<string, unknown>;
  markdown: string;
  error?: { code: string; message: string };
}

export interface CallOptions {
  maxChars?: number;
  token?: vscode.CancellationToken;
  onProgress?: (message: string) => void;
}

export class EngineProcess implements vscode.Disposable {
  private client: Client | undefined;
  private starting: Promise<Client> | undefined;
  private disposed = false;
  private restarts = 0;
  private readonly changed = new vscode.EventEmitter<void>();
  /** fires when the process (re)starts or stops */
  readonly onDidChange = this.changed.event;

  constructor(private readonly extensionPath: string, private args: string[], private readonly log: vscode.LogOutputChannel, private env: Record<string, string> = {}) {}

  get mcpScript(): string { return path.join(this.extensionPath, 'dist', 'mcp.js'); }

  /** Restarts the process with new arguments (settings or folders changed). */
  async reconfigure(args: string[], env: Record<string, string> = this.env): Promise<void> {
    this.args = args; this.env = env;
    await this.stop();
  }

  private async start(): Promise<Client> {
    const transport = new EngineTransport({
      command: process.execPath,
      args: [this.mcpScript, '--editor', ...this.args], // --editor: accepts language-server edges from this extension
      env: { ...process.env, ...this.env, ELECTRON_RUN_AS_NODE: '1' } as Record<string, string>,
    });
    transport.stderr.on('data', (d: Buffer) => { for (const line of d.toString().split('\n')) if (line.trim()) this.log.info(`[engine] ${line}`); });
    const client = new Client({ name: 'sightline-vscode', version: VERSION });
    client.onclose = () => {
      if (this.client === client) this.client = undefined;
      if (!this.disposed) { this.log.warn('engine process exited; it restarts on the next request'); this.changed.fire(); }
    };
    await client.connect(transport);
    await client.listTools(); // caches output schemas, so results are validated
    this.log.info(`engine process started (pid ${transport.pid}) with ${this.args.join(' ')}`);
    this.restarts++;
    this.changed.fire();
    return client;
  }

  private async ensure(): Promise<Client> {
    if (this.client) return this.client;
    if (this.disposed) throw new Error('Sightline is shutting down');
    this.starting ??= this.start().then(c => { this.client = c; return c; }).finally(() => { this.starting = undefined; });
    return this.starting;
  }

  async call(tool: string, args: Record<string, unknown>, opts: CallOptions = {}): Promise<CallResult> {
    const client = await this.ensure();
    const controller = new AbortController();
    const sub = opts.token?.onCancellationRequested(() => controller.abort());
    try {
      const res = await client.callTool(
        { name: tool, arguments: args, _meta: opts.maxChars ? { 'sightline/max_chars': opts.maxChars } : undefined },
        undefined,
        { signal: controller.signal, timeout: 24 * 60 * 60 * 1000, resetTimeoutOnProgress: true, onprogress: opts.onProgress ? p => opts.onProgress!(p.message ?? '') : undefined },
      );
      const texts = (res.content as { type: string; text?: string }[]).filter(c => c.type === 'text').map(c => c.text ?? '');
      if (res.isError) {
        let error = { code: 'internal_error', message: texts.join('\n') };
        try { error = (JSON.parse(texts[0] ?? '') as { error: typeof error }).error; } catch { /* not our shape */ }
        return { ok: false, error, markdown: texts[1] ?? `**${tool} failed** (${error.code}): ${error.message}` };
      }
      return { ok: true, data: res.structuredContent as Record<string, unknown>, markdown: texts.join('\n') };
    } catch (e) {
      if (controller.signal.aborted) return { ok: false, error: { code: 'cancelled', message: 'cancelled' }, markdown: `**${tool}** was cancelled` };
      throw e;
    } finally {
      sub?.dispose();
    }
  }

  /** An editor-only engine request (not a tool): see src/mcp/server.ts. */
  async request<T>(method: string, params: Record<string, unknown>): Promise<T> {
    const client = await this.ensure();
    return await client.request({ method, params } as never, PassThrough as never) as T;
  }

  get pidRestarts(): number { return this.restarts; }

  async stop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (c) await c.close().catch(() => undefined);
  }

  dispose(): void {
    this.disposed = true;
    void this.stop();
    this.changed.dispose();
  }
}
