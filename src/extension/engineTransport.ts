/**
 * The MCP stdio transport to the engine process, as the SDK's client transport does it (newline-delimited
 * JSON-RPC on the child's stdin/stdout), with one difference: outside Windows the child starts in a
 * session of its own (`detached`). On Linux with autogroup scheduling (the default of most distributions)
 * a session is a scheduling group, so when the editor's other processes (the workbench, language servers,
 * their installers) keep both cores busy, the engine still gets its share instead of one slice among
 * theirs: a one-file edit at 5M lines, applied under four busy processes, took a median of 24-28 ms
 * against 45-49 ms in the shared group. The other way round the same holds: a cold index in its own
 * group leaves the editor's group its share.
 *
 * The child still ends with the editor: it exits when its stdin closes (src/mcp/run.ts), which happens
 * when this side closes it or its process ends, and `close` escalates to signals as the SDK does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface EngineSpawn { command: string; args: string[]; env: Record<string, string> }

const CLOSE_WAIT_MS = 2000;

export class EngineTransport implements Transport {
  private child: ChildProcess | undefined;
  private readonly buffer = new ReadBuffer();
  /** the child's stderr, available before start (nothing it writes early is lost) */
  readonly stderr = new PassThrough();
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  constructor(private readonly spawnArgs: EngineSpawn) {}

  get pid(): number | null { return this.child?.pid ?? null; }

  start(): Promise<void> {
    if (this.child) throw new Error('the engine transport is already started');
    return new Promise((resolve, reject) => {
      const windows = process.platform === 'win32';
      const child = spawn(this.spawnArgs.command, this.spawnArgs.args, {
        env: this.spawnArgs.env, stdio: ['pipe', 'pipe', 'pipe'], shell: false, windowsHide: windows, detached: !windows,
      });
      this.child = child;
      child.on('error', e => { reject(e); this.onerror?.(e); });
      child.on('spawn', () => resolve());
      child.on('close', () => { this.child = undefined; this.onclose?.(); });
      child.stdin?.on('error', e => this.onerror?.(e));
      child.stdout?.on('data', (chunk: Buffer) => {
        this.buffer.append(chunk);
        for (;;) {
          let message: JSONRPCMessage | null;
          try { message = this.buffer.readMessage(); } catch (e) { this.onerror?.(e as Error); continue; }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
      child.stdout?.on('error', e => this.onerror?.(e));
      child.stderr?.pipe(this.stderr);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise(resolve => {
      const stdin = this.child?.stdin;
      if (!stdin) throw new Error('the engine process is not running');
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    this.buffer.clear();
    if (!child) return;
    const closed = new Promise<void>(res => child.once('close', () => res()));
    const wait = () => Promise.race([closed, new Promise<void>(res => setTimeout(res, CLOSE_WAIT_MS).unref())]);
    try { child.stdin?.end(); } catch { /* already closed */ }
    await wait();
    if (child.exitCode === null && child.signalCode === null) {
      try { child.kill('SIGTERM'); } catch { /* gone */ }
      await wait();
    }
    if (child.exitCode === null && child.signalCode === null) { try { child.kill('SIGKILL'); } catch { /* gone */ } }
  }
}
