/**
 * Event deliveries for the adapters service: subscriptions matched against an event's memories
 * (events.ts), queued in the durable outbox (outbox.ts) and flushed — the service's `emit`, `sync`,
 * `flushOutbox`, `outbox`, `retryOutbox`, `dropOutbox` (see its header for the API).
 *
 * Rules:
 * - Only active adapters are queued (an inactive or untrusted one is reported in `skipped`, never
 *   called); a delivery runs the subscribed op through the service's `call` path, ignoring the cool-down
 *   (the outbox has its own backoff) but recording a failure as one.
 * - Flushes of one process run one after another (a chain); after each, a timer that does not hold the
 *   process is set for the earliest pending item. Dispose aborts deliveries in flight and gives their
 *   leases back (a cancelled delivery is not an attempt).
 * - Nothing here throws: an outbox that cannot be read or written is an `error` in the answer.
 */
import type { MemoryRecord } from '../memories/model';
import type { LoadedAdapter, OpName } from './config';
import { eventInputs, matches, memoryPayload, syncable, type EventName, type MemoryPayload } from './events';
import type { Outbox, OutboxItem } from './outbox';
import type { AdapterInfo, CallFailure, CallResult } from './service';
import type { RepoVars } from './templates';

/** What the deliveries need of the service. */
export interface DeliveryHost {
  adapters(): Iterable<LoadedAdapter>;
  adapter(name: string): LoadedAdapter | undefined;
  stateOf(a: LoadedAdapter): Pick<AdapterInfo, 'state' | 'reason'>;
  repoVars(): Iterable<RepoVars>;
  callOp(name: string, op: string, inputs: Record<string, unknown>, opts: { signal?: AbortSignal }, ignoreCooldown: boolean): Promise<CallResult>;
  now(): Date;
  disposed(): boolean;
  slackMs: number;
}

export interface EmitResult {
  event: EventName;
  memory_ids: string[];
  /** deliveries written to the outbox */
  queued: { id: string; adapter: string; op: OpName; memory_id: string }[];
  /** the same delivery was already pending */
  duplicates: number;
  /** subscribed adapters that were not queued (inactive, untrusted, cannot render the payload…) */
  skipped: { adapter: string; reason: string }[];
  /** memories `sync` did not offer (not current) */
  not_current?: number;
  /** the flush that followed (absent with `flush: false`) */
  flushed?: FlushSummary;
  /** the outbox could not be written (nothing was queued) */
  error?: string;
}

export interface FlushSummary {
  delivered: { id: string; adapter: string; op: OpName; ms: number }[];
  failed: { id: string; adapter: string; op: OpName; error: CallFailure; attempts: number; state: 'pending' | 'dead'; next_attempt_at?: string }[];
  /** pending and dead items left in the outbox afterwards */
  pending: number;
  dead: number;
  /** the outbox could not be read or written */
  error?: string;
}

export interface OutboxListing { path: string; pending: OutboxItem[]; dead: OutboxItem[]; error?: string }

/** Failures no retry can heal: the delivery is dead at once. */
export function permanentFailure(f: CallFailure): boolean {
  if (['unknown_adapter', 'unknown_op', 'config_error', 'template_error', 'unsupported'].includes(f.code)) return true;
  const status = f.details?.status;
  return f.code === 'http_status' && typeof status === 'number' && status >= 400 && status < 500 && ![408, 425, 429].includes(status);
}

export class EventDeliveries {
  private flushChain: Promise<unknown> = Promise.resolve();
  private flushTimer?: NodeJS.Timeout;
  /** aborts deliveries in flight on dispose (their leases are given back) */
  private readonly life = new AbortController();

  constructor(private readonly host: DeliveryHost, private readonly store: Outbox, private readonly autoFlush: boolean) {}

  /** The template vars of a memory's repository (by repo id), if it is a root of this workspace. */
  private repoOfMemory(m: MemoryRecord): RepoVars | undefined {
    for (const v of this.host.repoVars()) if (v.id === m.repo_id) return v;
    return undefined;
  }

  /** Queues the deliveries of an event for these memories (written before any attempt). */
  private queueEvent(event: EventName, memories: readonly MemoryRecord[]): Omit<EmitResult, 'flushed'> {
    const out: Omit<EmitResult, 'flushed'> = { event, memory_ids: memories.map(m => m.id), queued: [], duplicates: 0, skipped: [] };
    const deliveries: { adapter: string; op: OpName; event: EventName; memory_id: string; inputs: Record<string, unknown> }[] = [];
    const payloads = new Map<string, MemoryPayload>();
    for (const a of this.host.adapters()) {
      const subs = a.config.on.filter(s => s.event === event);
      if (!subs.length) continue;
      const st = this.host.stateOf(a);
      if (st.state !== 'active') { out.skipped.push({ adapter: a.name, reason: `${st.state}: ${st.reason ?? ''}`.trim() }); continue; }
      for (const m of memories) {
        let p = payloads.get(m.id);
        if (!p) { p = memoryPayload(m, this.repoOfMemory(m)); payloads.set(m.id, p); }
        for (const sub of subs) {
          if (!matches(sub, event, p)) continue;
          const op = sub.op as OpName;
          if (!a.config.ops[op]) { out.skipped.push({ adapter: a.name, reason: `no \`${op}\` operation` }); continue; }
          deliveries.push({ adapter: a.name, op, event, memory_id: m.id, inputs: eventInputs(event, op, p) });
        }
      }
    }
    try {
      const r = this.store.enqueue(deliveries);
      out.queued = r.queued.map(i => ({ id: i.id, adapter: i.adapter, op: i.op, memory_id: i.memory_id }));
      out.duplicates = r.duplicates.length;
    } catch (e) { out.error = `the outbox ${this.store.path} could not be written: ${(e as Error).message}`; }
    return out;
  }

  /**
   * An event of one memory (`capture`: added; `promote`: confirmed / promoted to the repository scope):
   * every matching subscription of an active adapter is queued in the outbox, then the outbox is flushed
   * (unless `flush: false`). Never throws.
   */
  async emit(event: EventName, memory: MemoryRecord, opts: { signal?: AbortSignal; flush?: boolean } = {}): Promise<EmitResult> {
    const r: EmitResult = this.queueEvent(event, [memory]);
    if (opts.flush !== false && !this.host.disposed()) r.flushed = await this.flush(opts);
    return r;
  }

  /** `sightline adapters sync`: every current memory (current or relocated) offered to every sync subscription. */
  async sync(memories: readonly MemoryRecord[], opts: { signal?: AbortSignal; flush?: boolean } = {}): Promise<EmitResult> {
    const offered = memories.filter(syncable);
    const r: EmitResult = { ...this.queueEvent('sync', offered), not_current: memories.length - offered.length };
    if (opts.flush !== false && !this.host.disposed()) r.flushed = await this.flush(opts);
    return r;
  }

  /** Flushes the outbox soon (a timer that does not hold the process), at `delayMs` from now. */
  scheduleFlush(delayMs: number): void {
    if (this.host.disposed() || !this.autoFlush) return;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = setTimeout(() => { this.flushTimer = undefined; void this.flush(); }, Math.min(Math.max(0, delayMs), 2 ** 31 - 1));
    this.flushTimer.unref?.();
  }

  /**
   * Delivers every due item of the outbox (what this process queued and what an earlier one left):
   * claims them under the document's lock with a lease, calls each op (per adapter in order, adapters in
   * parallel), removes what was delivered, reschedules or buries what failed (outbox.ts). Flushes of one
   * process run one after another; another process's leased items are left alone. Never throws.
   */
  flush(opts: { signal?: AbortSignal } = {}): Promise<FlushSummary> {
    const run = this.flushChain.then(() => this.flushOnce(opts));
    this.flushChain = run.catch(() => undefined);
    return run;
  }

  private leaseMs(item: OutboxItem): number {
    const a = this.host.adapter(item.adapter);
    const t = a ? (a.config.ops[item.op]?.timeout_ms ?? a.config.timeout_ms) : 10_000;
    return t + this.host.slackMs + 30_000;
  }

  private async flushOnce(opts: { signal?: AbortSignal }): Promise<FlushSummary> {
    const sum: FlushSummary = { delivered: [], failed: [], pending: 0, dead: 0 };
    if (this.host.disposed()) return this.countOutbox(sum);
    let claimed: OutboxItem[];
    try { claimed = this.store.claim(i => this.leaseMs(i)); } catch (e) { return { ...sum, error: `the outbox ${this.store.path}: ${(e as Error).message}` }; }
    const signal = opts.signal ? AbortSignal.any([opts.signal, this.life.signal]) : this.life.signal;
    const byAdapter = new Map<string, OutboxItem[]>();
    for (const i of claimed) byAdapter.set(i.adapter, [...(byAdapter.get(i.adapter) ?? []), i]);
    await Promise.all([...byAdapter.values()].map(async items => {
      for (const item of items) {
        if (signal.aborted) { try { this.store.release(item.id); } catch { /* the lease runs out */ } continue; }
        const r = await this.host.callOp(item.adapter, item.op, { ...item.inputs, delivery_id: item.id }, { signal }, true);
        try {
          if (r.ok) { this.store.succeed(item.id); sum.delivered.push({ id: item.id, adapter: item.adapter, op: item.op, ms: r.ms }); continue; }
          if (r.error.code === 'cancelled') { this.store.release(item.id); continue; }
          const kept = this.store.fail(item.id, r.error, permanentFailure(r.error));
          sum.failed.push({ id: item.id, adapter: item.adapter, op: item.op, error: r.error, attempts: kept?.attempts ?? item.attempts + 1, state: kept?.state ?? 'pending', next_attempt_at: kept?.state === 'pending' ? kept.next_attempt_at : undefined });
        } catch (e) { sum.error = `the outbox ${this.store.path}: ${(e as Error).message}`; }
      }
    }));
    this.countOutbox(sum);
    try {
      const due = this.store.nextDue();
      if (due !== undefined) this.scheduleFlush(due - this.host.now().getTime());
    } catch { /* reported above or on the next flush */ }
    return sum;
  }

  private countOutbox(sum: FlushSummary): FlushSummary {
    try {
      const items = this.store.list();
      sum.pending = items.filter(i => i.state === 'pending').length;
      sum.dead = items.filter(i => i.state === 'dead').length;
    } catch (e) { sum.error ??= `the outbox ${this.store.path}: ${(e as Error).message}`; }
    return sum;
  }

  /** The outbox for the CLI: pending items (due or waiting, leased or not) and dead ones with their errors. */
  list(): OutboxListing {
    try {
      const items = this.store.list();
      return { path: this.store.path, pending: items.filter(i => i.state === 'pending'), dead: items.filter(i => i.state === 'dead') };
    } catch (e) { return { path: this.store.path, pending: [], dead: [], error: (e as Error).message }; }
  }

  /** Dead items (all, or these ids) are retried: pending and due now, attempts reset. Returns how many. */
  retry(ids?: readonly string[]): number { const n = this.store.retry(ids); if (n) this.scheduleFlush(0); return n; }

  /** Removes items for good (dead ones, or these ids). Returns how many. */
  drop(ids?: readonly string[]): number { return this.store.drop(ids); }

  get path(): string { return this.store.path; }

  /** Stops the timer and deliveries in flight; waits for the flush under way to give its leases back. */
  async dispose(): Promise<void> {
    this.life.abort(new DOMException('disposed', 'AbortError'));
    if (this.flushTimer) { clearTimeout(this.flushTimer); this.flushTimer = undefined; }
    try { await this.flushChain; } catch { /* reported by the flush */ }
  }
}
