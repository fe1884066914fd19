/**
 * The stdio transport: newline-delimited JSON-RPC on stdin/stdout, like the SDK's StdioServerTransport,
 * except for what goes wrong. The SDK's transport closes itself (and so ends the server, silently) when
 * a message is longer than its buffer limit. Here a message over `maxMessageBytes` is skipped up to its
 * newline without being buffered, logged to stderr, and answered with a JSON-RPC error (-32600) carrying
 * the request id when it can be read from the start or the end of the message (else id null, as
 * JSON-RPC prescribes); a line that is not JSON is answered with a parse error (-32700), one that is not
 * a JSON-RPC message with -32600. The server goes on serving.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The SDK's limit (STDIO_DEFAULT_MAX_BUFFER_SIZE). */
export const STDIO_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
const EDGE_BYTES = 4096;

type Id = string | number | null;

/** The top-level id of a JSON-RPC message from its first and last bytes (the SDK client writes it last). */
export function idFromEdges(head: string, tail: string): Id {
  const value = '(-?\\d+(?:\\.\\d+)?|"(?:[^"\\\\]|\\\\.)*")';
  const atEnd = new RegExp(`[,{]\\s*"id"\\s*:\\s*${value}\\s*}\\s*$`).exec(tail);
  const atStart = new RegExp(`^\\s*\\{\\s*(?:"jsonrpc"\\s*:\\s*"2\\.0"\\s*,\\s*)?"id"\\s*:\\s*${value}`).exec(head);
  const raw = atEnd?.[1] ?? atStart?.[1];
  if (raw === undefined) return null;
  try { const v = JSON.parse(raw) as unknown; return typeof v === 'string' || typeof v === 'number' ? v : null; } catch { return null; }
}

export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private parts: Buffer[] = [];
  private size = 0;
  /** the message being skipped: its size so far, first and last bytes */
  private skipping: { bytes: number; head: Buffer; tail: Buffer } | null = null;
  private started = false;

  constructor(private readonly opts: { maxMessageBytes?: number; log?: (message: string) => void } = {},
    private readonly stdin: NodeJS.ReadableStream = process.stdin, private readonly stdout: NodeJS.WritableStream = process.stdout) {}

  private get max(): number { return this.opts.maxMessageBytes ?? STDIO_MAX_MESSAGE_BYTES; }

  async start(): Promise<void> {
    if (this.started) throw new Error('BoundedStdioTransport already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStreamError);
  }

  private readonly onStreamError = (e: Error) => { this.onerror?.(e); };

  private readonly onData = (chunk: Buffer | string) => {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let at = 0;
    while (at < buf.length) {
      const nl = buf.indexOf(10, at);
      const piece = buf.subarray(at, nl === -1 ? buf.length : nl);
      if (this.skipping) this.skip(piece);
      else if (this.size + piece.length > this.max) {
        // Over the limit: stop buffering; keep the first and last bytes for the id.
        const head = Buffer.concat([...this.parts, piece.subarray(0, EDGE_BYTES)]).subarray(0, EDGE_BYTES);
        this.skipping = { bytes: this.size, head: Buffer.from(head), tail: Buffer.alloc(0) };
        this.parts = []; this.size = 0;
        this.skip(piece);
      } else { this.parts.push(piece); this.size += piece.length; }
      if (nl === -1) break;
      at = nl + 1;
      if (this.skipping) { const s = this.skipping; this.skipping = null; this.rejectOversize(s); }
      else { const line = Buffer.concat(this.parts, this.size); this.parts = []; this.size = 0; this.handleLine(line); }
    }
  };

  private skip(piece: Buffer): void {
    const s = this.skipping!;
    s.bytes += piece.length;
    s.tail = piece.length >= EDGE_BYTES ? Buffer.from(piece.subarray(piece.length - EDGE_BYTES)) : Buffer.concat([s.tail, piece]).subarray(-EDGE_BYTES);
  }

  private rejectOversize(s: { bytes: number; head: Buffer; tail: Buffer }): void {
    const id = idFromEdges(s.head.toString('utf8'), s.tail.toString('utf8'));
    const message = `a message of ${s.bytes} bytes is over the ${this.max}-byte limit of the stdio transport; it was dropped`;
    this.opts.log?.(`${message} (request id ${JSON.stringify(id)})`);
    this.reply(id, -32600, `Invalid Request: ${message}`);
  }

  private handleLine(line: Buffer): void {
    const text = line.toString('utf8').replace(/\r$/, '');
    if (!text.trim()) return;
    let raw: unknown;
    try { raw = JSON.parse(text); } catch (e) {
      this.opts.log?.(`a message that is not JSON was answered with a parse error: ${(e as Error).message}`);
      this.reply(null, -32700, `Parse error: ${(e as Error).message}`);
      return;
    }
    const msg = JSONRPCMessageSchema.safeParse(raw);
    if (!msg.success) {
      const id = typeof raw === 'object' && raw !== null && 'id' in raw && (typeof raw.id === 'string' || typeof raw.id === 'number') ? raw.id : null;
      this.opts.log?.(`a message that is not JSON-RPC 2.0 was answered with an error (request id ${JSON.stringify(id)})`);
      this.reply(id, -32600, 'Invalid Request: not a JSON-RPC 2.0 message');
      return;
    }
    this.onmessage?.(msg.data);
  }

  private reply(id: Id, code: number, message: string): void {
    void this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise(resolve => {
      if (this.stdout.write(JSON.stringify(message) + '\n')) resolve();
      else this.stdout.once('drain', () => resolve());
    });
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStreamError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.parts = []; this.size = 0; this.skipping = null;
    this.onclose?.();
  }
}
