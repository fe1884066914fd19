/**
 * The adapters outbox: every event delivery is written to a durable document before it is attempted, so
 * a crash, a closed editor or an offline endpoint loses nothing.
 *
 * Rules:
 * - One document per workspace, for the user: durable `adapters-outbox` (durable/store.ts `durablePath`;
 *   user data, never the cache, never the repository). An item: `id`, `adapter`, `op`, `event`,
 *   `memory_id`, `inputs` (the event payload the op's templates are rendered against), `key` (a hash of
 *   adapter, op, event and inputs: the same delivery is not queued twice while one is pending),
 *   `attempts`, `created_at`, `next_attempt_at`, `last_error` (code, message, at), `state` (`pending` |
 *   `dead`), and a `lease` while a process delivers it.
 * - Claiming: `claim` takes, in one read-modify-write under the document's lock, every pending item that
 *   is due (`next_attempt_at` ≤ now) and not leased (or whose lease ran out: its process died mid-
 *   delivery), and leases them to its owner token for the delivery's bound. Two processes flushing at
 *   once therefore never deliver one item twice; a process that dies holding a lease only delays the item
 *   until the lease ends (delivery is at least once: a peer that received it just before the crash gets
 *   it again, with the same `delivery_id`).
 * - Success removes the item. A failure counts an attempt and schedules the next one with exponential
 *   backoff (`base_ms` 5 s, doubling, capped at `max_ms` 1 h); a permanent failure (the adapter or its op
 *   is gone, a template error, a 4xx other than 408/425/429), `max_attempts` (25, about 16 h of retries)
 *   or `max_age_ms` (7 days since `created_at`) make it `dead`: kept, with its last error, until someone
 *   retries (`retry`) or drops (`drop`) it — never silently dropped. `release` gives a lease back
 *   without counting an attempt (the delivery was cancelled).
 * - Everything here is synchronous and pure of network: the service does the calls.
 */
import { randomBytes } from 'node:crypto';
import type { DurablePort } from '../durable/store';
import { sha1 } from '../util/hash';
import type { OpName } from './config';
import type { EventName } from './events';

export const OUTBOX_DOCUMENT = 'adapters-outbox';
export const OUTBOX_BASE_MS = 5_000;
export const OUTBOX_MAX_MS = 60 * 60_000;
export const OUTBOX_MAX_ATTEMPTS = 25;
export const OUTBOX_MAX_AGE_MS = 7 * 24 * 60 * 60_000;

export interface OutboxError { code: string; message: string; at: string }

export interface OutboxItem {
  id: string;
  adapter: string;
  op: OpName;
  event: EventName;
  memory_id: string;
  inputs: Record<string, unknown>;
  key: string;
  attempts: number;
  created_at: string;
  next_attempt_at: string;
  state: 'pending' | 'dead';
  last_error?: OutboxError;
  dead_at?: string;
  lease?: { owner: string; until: string };
}

export interface OutboxDocument { version: 1; items: OutboxItem[] }
export const emptyOutbox = (): OutboxDocument => ({ version: 1, items: [] });

export interface OutboxPolicy { base_ms?: number; max_ms?: number; max_attempts?: number; max_age_ms?: number }

export type NewDelivery = Pick<OutboxItem, 'adapter' | 'op' | 'event' | 'memory_id' | 'inputs'>;

/** The wait before attempt n + 1 after n failed attempts. */
export function backoffMs(attempts: number, policy: OutboxPolicy = {}): number {
  const base = policy.base_ms ?? OUTBOX_BASE_MS;
  const max = policy.max_ms ?? OUTBOX_MAX_MS;
  return Math.min(max, base * 2 ** Math.max(0, attempts - 1));
}

export function deliveryKey(d: NewDelivery): string {
  return sha1(JSON.stringify([d.adapter, d.op, d.event, d.memory_id, d.inputs]));
}

const ms = (iso: string | undefined) => (iso ? Date.parse(iso) : 0);

export class Outbox {
  /** this process's lease owner token */
  readonly owner = `${process.pid}-${randomBytes(6).toString('hex')}`;

  constructor(private readonly doc: DurablePort<OutboxDocument>, private readonly policy: OutboxPolicy = {}, private readonly now: () => Date = () => new Date()) {}

  get path(): string { return this.doc.path; }

  private read(): OutboxDocument {
    const d = this.doc.read();
    return d && Array.isArray(d.items) ? d : emptyOutbox();
  }

  private update(fn: (items: OutboxItem[]) => OutboxItem[]): OutboxItem[] {
    return this.doc.update(d => ({ version: 1, items: fn(d && Array.isArray(d.items) ? d.items : []) })).items;
  }

  /** Queues deliveries (written before any attempt); one already pending with the same key is not queued again. */
  enqueue(ds: readonly NewDelivery[]): { queued: OutboxItem[]; duplicates: OutboxItem[] } {
    const queued: OutboxItem[] = [];
    const duplicates: OutboxItem[] = [];
    if (!ds.length) return { queued, duplicates };
    const at = this.now().toISOString();
    this.update(items => {
      const pending = new Map(items.filter(i => i.state === 'pending').map(i => [i.key, i]));
      for (const d of ds) {
        const key = deliveryKey(d);
        const dup = pending.get(key);
        if (dup) { duplicates.push(dup); continue; }
        const item: OutboxItem = { id: `delivery:${randomBytes(8).toString('hex')}`, ...d, key, attempts: 0, created_at: at, next_attempt_at: at, state: 'pending' };
        pending.set(key, item);
        queued.push(item);
      }
      return [...items, ...queued];
    });
    return { queued, duplicates };
  }

  /** Leases every due, unleased pending item (see the header). `leaseMs` bounds one item's delivery. */
  claim(leaseMs: (item: OutboxItem) => number, filter?: (item: OutboxItem) => boolean): OutboxItem[] {
    const now = this.now().getTime();
    const claimed: OutboxItem[] = [];
    const due = (i: OutboxItem) => i.state === 'pending' && ms(i.next_attempt_at) <= now && !(i.lease && ms(i.lease.until) > now);
    if (!this.read().items.some(due)) return claimed; // nothing to claim: no lock, no write
    this.update(items => items.map(i => {
      if (i.state !== 'pending' || ms(i.next_attempt_at) > now) return i;
      if (i.lease && ms(i.lease.until) > now) return i;
      if (filter && !filter(i)) return i;
      const c = { ...i, lease: { owner: this.owner, until: new Date(now + leaseMs(i)).toISOString() } };
      claimed.push(c);
      return c;
    }));
    return claimed;
  }

  /** A delivered item is removed. */
  succeed(id: string): void { this.update(items => items.filter(i => i.id !== id)); }

  /** A failed attempt: backoff, or dead (permanent, too many attempts, too old). Returns the item as kept. */
  fail(id: string, error: { code: string; message: string }, permanent = false): OutboxItem | undefined {
    const now = this.now();
    let kept: OutboxItem | undefined;
    this.update(items => items.map(i => {
      if (i.id !== id) return i;
      const attempts = i.attempts + 1;
      const last_error = { code: error.code, message: error.message, at: now.toISOString() };
      const tooMany = attempts >= (this.policy.max_attempts ?? OUTBOX_MAX_ATTEMPTS);
      const tooOld = now.getTime() - ms(i.created_at) >= (this.policy.max_age_ms ?? OUTBOX_MAX_AGE_MS);
      const { lease: _lease, ...rest } = i;
      kept = permanent || tooMany || tooOld
        ? { ...rest, attempts, last_error, state: 'dead', dead_at: now.toISOString() }
        : { ...rest, attempts, last_error, next_attempt_at: new Date(now.getTime() + backoffMs(attempts, this.policy)).toISOString() };
      return kept;
    }));
    return kept;
  }

  /** Gives a lease back without counting an attempt (cancelled); `delayMs` postpones the next attempt. */
  release(id: string, delayMs = 0): void {
    const next = new Date(this.now().getTime() + delayMs).toISOString();
    this.update(items => items.map(i => {
      if (i.id !== id || i.lease?.owner !== this.owner) return i;
      const { lease: _lease, ...rest } = i;
      return delayMs ? { ...rest, next_attempt_at: next } : rest;
    }));
  }

  /** Dead items (all, or these ids) become pending and due now, with their attempts reset. */
  retry(ids?: readonly string[]): number {
    let n = 0;
    const at = this.now().toISOString();
    this.update(items => items.map(i => {
      if (ids ? !ids.includes(i.id) : i.state !== 'dead') return i;
      n++;
      const { dead_at: _d, lease: _l, ...rest } = i;
      return { ...rest, state: 'pending', attempts: 0, next_attempt_at: at };
    }));
    return n;
  }

  /** Removes items for good (the user's decision; dead ones by default). */
  drop(ids?: readonly string[]): number {
    let n = 0;
    this.update(items => items.filter(i => { const gone = ids ? ids.includes(i.id) : i.state === 'dead'; if (gone) n++; return !gone; }));
    return n;
  }

  list(): OutboxItem[] { return this.read().items; }

  /** When the earliest pending item is due (ms since epoch), if any. */
  nextDue(): number | undefined {
    let best: number | undefined;
    for (const i of this.read().items) {
      if (i.state !== 'pending') continue;
      const t = Math.max(ms(i.next_attempt_at), i.lease ? ms(i.lease.until) : 0);
      if (best === undefined || t < best) best = t;
    }
    return best;
  }
}
