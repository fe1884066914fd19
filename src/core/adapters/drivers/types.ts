/**
 * The driver interface: one `call(request) → payload` for mcp, http and command adapters.
 *
 * Rules:
 * - A driver renders the request fields of the operation it is given (templates.ts) against the call's
 *   context; result mapping (mapping.ts) is the service's, never the driver's.
 * - The request's `signal` aborts when the caller cancels or the operation's `timeout_ms` is over; a driver
 *   stops its work on abort (http: the fetch; command: the process tree is killed; mcp: the request is
 *   cancelled). The service also bounds every call by the timeout, so a driver that ignores the signal
 *   cannot hold a caller.
 * - Failures are `AdapterCallError` with a code; anything else a driver throws is turned into one by the
 *   service (`internal`).
 * - `dispose()` releases what the driver keeps (MCP clients and their child processes); a disposed driver
 *   may be called again (it starts anew).
 */
import type { OpConfig, OpName } from '../config';
import type { TemplateContext } from '../templates';

export type AdapterFailureCode =
  | 'unknown_adapter' | 'unknown_op' | 'config_error' | 'inactive' | 'untrusted' | 'disabled' | 'cooling_down'
  | 'timeout' | 'cancelled' | 'template_error' | 'spawn_failed' | 'unreachable' | 'http_status' | 'peer_error'
  | 'command_failed' | 'malformed' | 'unsupported' | 'internal'
  // declared and exposed tools
  | 'unknown_tool' | 'invalid_args';

export class AdapterCallError extends Error {
  constructor(readonly code: AdapterFailureCode, message: string, readonly details?: Record<string, unknown>) {
    super(message);
    this.name = 'AdapterCallError';
  }
}

export interface DriverRequest {
  /** the op name, or `tool` for a declared tool's inline op */
  op: OpName | 'tool';
  spec: OpConfig;
  /** the operation's inputs (query, limit, target, uri, content, title, tags, prompt, args…) */
  inputs: Record<string, unknown>;
  /** base context + inputs (top level and `args`) */
  ctx: TemplateContext;
  timeoutMs: number;
  signal: AbortSignal;
  /** the repository root the adapter runs for */
  root: string;
}

export interface PeerTool { name: string; description?: string; inputSchema?: Record<string, unknown>; outputSchema?: Record<string, unknown> }

export interface Driver {
  call(req: DriverRequest): Promise<unknown>;
  /** MCP: the server's tools and schemas */
  inspect?(signal: AbortSignal): Promise<PeerTool[]>;
  /** MCP: a server tool called with its arguments as given (republishing) */
  callTool?(tool: string, args: Record<string, unknown>, signal: AbortSignal, timeoutMs: number): Promise<unknown>;
  dispose(): Promise<void>;
}

/** Why a signal aborted: `timeout` when the service's deadline fired, else `cancelled`. */
export function abortError(signal: AbortSignal, timeoutMs: number): AdapterCallError {
  const r = signal.reason as { name?: string } | undefined;
  return r && r.name === 'TimeoutError'
    ? new AdapterCallError('timeout', `no answer within ${timeoutMs} ms`, { timeout_ms: timeoutMs })
    : new AdapterCallError('cancelled', 'the call was cancelled');
}
