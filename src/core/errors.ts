/**
 * The one error type the engine and tools raise. Every surface turns it into the same shape:
 * `{ error: { code, message, details? } }` (MCP: isError + that JSON; CLI: stderr + exit code).
 */
export const ERROR_CODES = [
  'invalid_arguments', 'not_found', 'path_outside_workspace', 'index_locked', 'index_empty', 'index_corrupt', 'not_indexed',
  'cancelled', 'internal_error', 'providers_not_allowed', 'provider_failed', 'adapter_failed',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export class SightlineError extends Error {
  /** the indexing phase it was raised in (set by the pipeline runner, see pipeline/runner.ts) */
  phase?: string;
  constructor(readonly code: ErrorCode, message: string, readonly details?: Record<string, unknown>) {
    super(message);
    this.name = 'SightlineError';
  }
}

export interface ErrorShape { error: { code: ErrorCode; message: string; details?: Record<string, unknown> } }

export function toErrorShape(e: unknown): ErrorShape {
  if (e instanceof SightlineError) return { error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) } };
  const err = e as Error;
  return { error: { code: 'internal_error', message: err?.message ?? String(e) } };
}
