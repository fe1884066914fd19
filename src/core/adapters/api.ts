/**
 * The adapters service's answer and option types (service.ts re-exports them; its header is the API).
 */
import type { DurablePort } from '../durable/store';
import type { AdapterConfig, LayerSource, OpConfig, OpName } from './config';
import type { AdapterFailureCode } from './drivers/index';
import type { AdapterItem } from './mapping';
import type { OutboxDocument, OutboxPolicy } from './outbox';
import type { TrustDocument } from './trust';
import type { WhenFailure } from './when';

export type AdapterState = 'active' | 'inactive' | 'untrusted' | 'error';

export interface AdapterInfo {
  name: string;
  state: AdapterState;
  reason?: string;
  /** untrusted: how to trust */
  trust_hint?: string;
  /** inactive for `when`: the conditions that failed */
  failed?: WhenFailure[];
  driver?: AdapterConfig['driver'];
  description?: string;
  ops: OpName[];
  tools: string[];
  expose?: AdapterConfig['expose'];
  weight?: number;
  timeout_ms?: number;
  /** where it was declared (every layer that set a field), lowest first */
  declared_in: { kind: LayerSource['kind']; source: string }[];
  /** the repository root whose config declared it */
  repo_root?: string;
  cooldown?: { failures: number; until: string; retry_in_ms: number; last_error: string };
}

export interface CallFailure { code: AdapterFailureCode; message: string; details?: Record<string, unknown> }
export type CallResult =
  | { ok: true; adapter: string; op: OpName; items?: AdapterItem[]; text?: string; ms: number }
  | { ok: false; adapter: string; op: string; error: CallFailure; ms: number };

export interface SearchItem extends AdapterItem { adapter: string; weight: number; merge_score: number }
export interface SearchAnswer {
  query: string;
  results: { adapter: string; ok: boolean; items: SearchItem[]; ms: number; weight: number; error?: CallFailure }[];
  merged: SearchItem[];
  notices: string[];
  /** every adapter with a search op answered */
  complete: boolean;
  ms: number;
}

export interface DeclaredTool { name: string; adapter: string; description: string; input_schema: Record<string, unknown>; op: OpName | OpConfig; active: boolean }
export interface ExposedTool { name: string; adapter: string; tool: string; description?: string; input_schema?: Record<string, unknown> }

export interface AdapterServiceOptions {
  /** the workspace roots */
  roots: readonly string[];
  /** `sightline.adapters` from the editor's settings */
  settings?: Record<string, unknown>;
  /** the user's file (default: config.ts `userConfigPath()`); null: none */
  userConfigPath?: string | null;
  builtins?: Record<string, unknown>;
  /** false: the editor's workspace is untrusted — repository-declared adapters are inactive */
  workspaceTrusted?: boolean;
  /** the trust document (default: durable `adapters-trust` of these roots) */
  trust?: DurablePort<TrustDocument>;
  env?: NodeJS.ProcessEnv;
  projectName?: string;
  now?: () => Date;
  cooldown?: { base_ms?: number; max_ms?: number };
  /** the outbox document (default: durable `adapters-outbox` of these roots) */
  outbox?: DurablePort<OutboxDocument>;
  /** backoff and give-up policy of event deliveries (outbox.ts) */
  outboxPolicy?: OutboxPolicy;
  /** false: no flush on create and no retry timer (the caller flushes) */
  autoFlush?: boolean;
}

