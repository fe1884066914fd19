/** Runs the built MCP server and CLI (dist/) as real child processes for the end-to-end suites. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { join, resolve } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The built bundles; SIGHTLINE_TEST_DIST points the suites at another build (e.g. a deliberately broken copy). */
export const DIST = process.env.SIGHTLINE_TEST_DIST ? resolve(process.env.SIGHTLINE_TEST_DIST) : join(__dirname, '..', '..', 'dist');
export const MCP_JS = join(DIST, 'mcp.js');
export const CLI_JS = join(DIST, 'cli.js');

/** Fails the suite early with a clear message when the bundles were not built. */
export function requireBuilt(): void {
  for (const f of [MCP_JS, CLI_JS]) {
    if (!existsSync(f)) throw new Error(`${f} is missing: run "npm run build" first`);
  }
}

/** A stdio transport that spawns dist/mcp.js with `args`; its stderr is drained into `stderr()`. */
export function stdioTransport(args: string[]): { transport: StdioClientTransport; stderr(): string } {
  const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_JS, ...args], stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => { err += d.toString('utf8'); });
  return { transport, stderr: () => err };
}

export interface HttpServerProcess { url: string; child: ChildProcess; stderr(): string; stop(): Promise<void> }

/**
 * Starts `dist/mcp.js --http 127.0.0.1:0` and reads the URL it reports on stderr
 * (`MCP over Streamable HTTP at http://127.0.0.1:PORT/mcp`), so no port is guessed.
 */
export function startHttpServer(args: string[], timeoutMs = 20000): Promise<HttpServerProcess> {
  const child = spawn(process.execPath, [MCP_JS, ...args, '--http', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const stop = () => new Promise<void>(res => {
    if (child.exitCode !== null || child.signalCode !== null) { res(); return; }
    child.once('exit', () => res());
    child.kill('SIGTERM');
    setTimeout(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); }, 3000).unref();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { void stop(); reject(new Error(`MCP HTTP server did not report its URL within ${timeoutMs} ms; stderr:\n${err}`)); }, timeoutMs);
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (d: string) => {
      err += d;
      const m = /MCP over Streamable HTTP at (http:\/\/\S+\/mcp)/.exec(err);
      if (m) { clearTimeout(timer); resolve({ url: m[1]!, child, stderr: () => err, stop }); }
    });
    child.once('exit', code => { clearTimeout(timer); reject(new Error(`MCP HTTP server exited with ${code} before listening; stderr:\n${err}`)); });
  });
}

export interface RawResponse { status: number; headers: Record<string, string | string[] | undefined>; body: string }

/** A raw HTTP POST with full control of the headers (including Host, which fetch does not let us set). */
export function rawPost(url: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest('POST', url, JSON.stringify(body), headers);
}

/** One HTTP request on a fresh connection (no keep-alive reuse between tests). */
export function rawRequest(method: string, url: string, body: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  const u = new URL(url);
  const data = Buffer.from(body);
  return new Promise((resolve, reject) => {
    const req = request({
      agent: false, host: u.hostname, port: Number(u.port), path: u.pathname, method,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': String(data.length), ...headers },
    }, res => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

export const INITIALIZE_REQUEST = {
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'sightline-test', version: '0.0.0' } },
};

/** The `{ error: { code, message } }` object an error result carries as JSON in its first text item. */
export function errorOf(result: unknown): { code: string; message: string; details?: Record<string, unknown> } {
  const r = result as CallToolResult;
  if (r.isError !== true) throw new Error(`expected an error result, got ${JSON.stringify(r).slice(0, 500)}`);
  const first = r.content[0];
  if (!first || first.type !== 'text') throw new Error(`error result has no text content: ${JSON.stringify(r)}`);
  const parsed = JSON.parse(first.text) as { error?: { code: string; message: string } };
  if (!parsed.error) throw new Error(`error text is not {error: …}: ${first.text}`);
  return parsed.error;
}

/** The text of the first content item of a successful result. */
export function textOf(result: unknown): string {
  const r = result as CallToolResult;
  const first = r.content[0];
  if (!first || first.type !== 'text') throw new Error(`result has no text content: ${JSON.stringify(r).slice(0, 500)}`);
  return first.text;
}
