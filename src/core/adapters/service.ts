/**
 * The adapters service: the one entry to adapters for every surface (tools, CLI, extension). Adapters
 * federate a team's other context sources (decision notes, tickets, runbooks, other repositories, an
 * organisation-wide code search) over three drivers (mcp, http, command).
 *
 * API (all answers are plain JSON; nothing here throws for a peer's or a config's fault):
 * - `await AdapterService.create(opts)`: loads the merged config (config.ts: built-ins, user file, editor
 *   settings `sightline.adapters`, each root's `.sightline/config.toml`), the trust document (trust.ts),
 *   and each root's git facts (branch, origin) for templates. `reload()` re-reads all of it.
 * - `list()` → `AdapterInfo[]`: every adapter with `state` `active` | `inactive` (`reason`: disabled,
 *   untrusted workspace, or the `when` conditions that failed, e.g. "command `codegraph` not on PATH") |
 *   `untrusted` (`reason` + `trust_hint`: `sightline adapters trust`) | `error` (the config error: file,
 *   line, field); its driver, description, ops, declared tool names, weight, where it was declared, and a
 *   cool-down if one is running. `configErrors()` → every config error (file-level ones too).
 * - `call(name, op, inputs, { signal? })` → `CallResult`: `{ ok: true, adapter, op, items | text, ms }`
 *   (items for search, code, history — cut to `inputs.limit`; text for read, brief, llm, store) or
 *   `{ ok: false, adapter, op, error: { code, message, details? }, ms }`. Inputs: search/code/brief
 *   `{ query, limit? }`, history `{ target, limit? }`, read `{ uri }`, store `{ content, title?, tags? }`,
 *   llm `{ prompt }`; templates see them as `{{query}}` and `{{args.query}}`. Every call is bounded by the
 *   op's (else the adapter's) `timeout_ms`, and returns within it plus CALL_SLACK_MS even when the peer
 *   hangs.
 * - Cool-down: a failed call (timeout, unreachable, crash, bad status, malformed answer…) puts the
 *   adapter in cool-down for COOLDOWN_BASE_MS, doubling with each failure in a row up to COOLDOWN_MAX_MS;
 *   while it lasts `call` answers `cooling_down` at once and `search` skips the adapter with a notice. A
 *   success ends it. Cancellation, template and config errors do not count.
 * - `search(query, limit, { signal? })` → `SearchAnswer`: every active adapter with a `search` op, in
 *   parallel, each bounded by its own timeout: per-adapter results (`items` carry `adapter` and `weight`),
 *   `merged` (all items by `merge_score` = weight / (RRF_K + rank), rank within its adapter: fuse.ts), `notices` for
 *   every adapter skipped, failed, untrusted or inactive, and `complete` (every adapter with a search op
 *   answered).
 * - `trust({ root? })` pins the loaded `[adapters]` tables of each repository (or one); `untrust(root)`
 *   forgets a pin. `inspect(name)` → an mcp adapter's server tools and schemas. `ownerOf(uri)` → the
 *   active adapter whose read op `owns` a prefix of the URI.
 * - `declaredTools()` → `[[adapters.x.tools]]` as `{ name, adapter, description, input_schema (params
 *   → JSON schema, `!` = required), op, active }`; `exposedTools()` → an active mcp adapter's server tools
 *   published under `expose` with the prefix rule (`<adapter>_` unless the tool already starts with it).
 *   `callTool(name, args, { signal? })` → `ToolCallResult` `{ ok: true, tool, adapter, text, ms }` or
 *   `{ ok: false, tool, adapter?, error, ms }`: args validated against the tool's JSON schema (ajv;
 *   scalars coerced; `invalid_args` names the field), then its op (an inline op, or a named op of the
 *   adapter) with the args as `{{args.x}}` and `{{x}}`; the answer as text (the op's `text` path, else its
 *   items one line each, else the payload). `callExposed(name, args, { signal? })` → the same shape with
 *   `structured_content` when the server sent some: the server's tool behind a published name.
 * - Events (events.ts, outbox.ts): `emit(event, memory, { flush? })` (`capture` | `promote`) and
 *   `sync(memories)` (`sync`: the current ones) → `EmitResult`: every matching `on` subscription of an
 *   active adapter is queued in the durable outbox (written before any attempt), then the outbox is
 *   flushed. `flushOutbox()` → `FlushSummary` delivers what is due — what this process queued and what
 *   an earlier one left — with leases (two processes never deliver one item twice), backoff and dead
 *   items; it runs on create (in the background), on a retry timer that does not hold the process, and
 *   after each emit. Deliveries ignore the cool-down (the outbox has its own backoff) but a failure still
 *   starts one. `outbox()` lists pending and dead items; `retryOutbox(ids?)` revives dead ones,
 *   `dropOutbox(ids?)` removes items. Delivery inputs carry `delivery_id` (the same on every attempt).
 * - `dispose()` stops every MCP child and client, the retry timer, and deliveries in flight (their leases are
 *   given back).
 * Template context per adapter: the repository that declared it (a repository adapter), else the first
 * root; `repo.id` is Sightline's repo id, `repo.slug` the origin's `owner-name` (else the folder name)
 * slugified, `repo.name` the origin's repository name (else the folder name), `repo.dir` the folder's
 * name, `repo.root` its absolute path, `repo.branch` the checked-out branch, `repo.remote` the origin as
 * `host/owner/name`; `project.name` the workspace's name (option, else the first root's folder).
 */
import { realpathSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { JsonDocument, durablePath } from '../durable/store';
import type { MemoryRecord } from '../memories/model';
import { repoIdFor } from '../util/ids';
import { ITEM_OPS, loadAdapterConfig, MCP_START_WINDOW_MS, OP_NAMES, type AdapterConfigError, type LayerSource, type LoadedAdapter, type LoadedConfig, type OpConfig, type OpName } from './config';
import { createDriver, AdapterCallError, McpDriver, type AdapterFailureCode, type Driver, type PeerTool } from './drivers/index';
import { mapItems, mapText, MappingError } from './mapping';
import { baseContext, extend, slugify, TemplateError, type RepoVars, type TemplateContext } from './templates';
import { trustSummaries, type TrustSummary, TrustStore, trustDocument, type TrustPin } from './trust';
import { evaluateWhen } from './when';
import { repoVars } from './repo';
import { RRF_K } from './fuse';
import type { AdapterInfo, AdapterServiceOptions, CallFailure, CallResult, DeclaredTool, ExposedTool, SearchAnswer } from './api';
import type { EventName } from './events';
import { EventDeliveries, type EmitResult, type FlushSummary, type OutboxListing } from './deliveries';
import { emptyOutbox, Outbox, OUTBOX_DOCUMENT, type OutboxDocument } from './outbox';
import { DEFAULT_LIMIT, paramsSchema, exposedName, ToolCalls, type ToolCallResult } from './tool-calls';

export { remoteIdentity, repoVars } from './repo';
export { memoryPayload, type EventName, type MemoryPayload } from './events';
export type { OutboxItem, OutboxPolicy } from './outbox';
export type { EmitResult, FlushSummary, OutboxListing } from './deliveries';
export { DEFAULT_LIMIT, exposedName, itemsText, paramsSchema, type ToolCallResult } from './tool-calls';
export type { AdapterInfo, AdapterServiceOptions, AdapterState, CallFailure, CallResult, DeclaredTool, ExposedTool, SearchAnswer, SearchItem } from './api';

export const COOLDOWN_BASE_MS = 30_000;
export const COOLDOWN_MAX_MS = 10 * 60_000;
/** How long past its timeout a call may take before the service answers `timeout` on its own. */
export const CALL_SLACK_MS = 250;

interface Cooldown { failures: number; until: number; last: CallFailure }

const COOLING_CODES = new Set<AdapterFailureCode>(['timeout', 'unreachable', 'spawn_failed', 'http_status', 'peer_error', 'command_failed', 'malformed', 'internal']);

export class AdapterService {
  private loaded!: LoadedConfig;
  private repos = new Map<string, RepoVars>();
  private readonly drivers = new Map<string, Driver>();
  private readonly cooldowns = new Map<string, Cooldown>();
  private readonly trustStore: TrustStore;
  private readonly roots: string[];
  private readonly now: () => Date;
  private disposed = false;
  private readonly deliveries: EventDeliveries;
  private readonly tools: ToolCalls;

  private constructor(private readonly opts: AdapterServiceOptions) {
    this.roots = opts.roots.map(r => { try { return realpathSync(resolve(r)); } catch { return resolve(r); } });
    this.trustStore = new TrustStore(opts.trust ?? trustDocument(this.roots));
    this.now = opts.now ?? (() => new Date());
    const outbox = new Outbox(opts.outbox ?? new JsonDocument<OutboxDocument>(durablePath(this.roots, OUTBOX_DOCUMENT), emptyOutbox), opts.outboxPolicy, this.now);
    this.deliveries = new EventDeliveries({
      adapters: () => this.loaded.adapters.values(), adapter: n => this.loaded.adapters.get(n), stateOf: a => this.stateOf(a),
      repoVars: () => this.repos.values(), callOp: (n, op, ins, o, ig) => this.callOp(n, op, ins, o, ig), now: this.now,
      disposed: () => this.disposed, slackMs: CALL_SLACK_MS,
    }, outbox, opts.autoFlush !== false);
    this.tools = new ToolCalls({
      adapters: () => this.loaded.adapters.values(), declaredTools: () => this.declaredTools(), usable: (n, op, t) => this.usable(n, op, t),
      runSpec: (a, op, spec, ins, sig) => this.runSpec(a, op, spec, ins, sig), record: (n, r) => this.record(n, r),
      bounded: (t, o, fn) => this.bounded(t, o, fn), driverFor: a => this.driverFor(a), toFailure: e => AdapterService.toFailure(e),
    });
  }

  static async create(opts: AdapterServiceOptions): Promise<AdapterService> {
    const s = new AdapterService(opts);
    await s.reload();
    s.deliveries.scheduleFlush(0); // what an earlier process left, in the background (unless autoFlush is false)
    return s;
  }

  /** Re-reads the config layers and the roots' git facts; drivers of changed adapters are restarted. */
  async reload(): Promise<void> {
    const before = this.loaded;
    this.loaded = loadAdapterConfig({ roots: this.roots, userConfigPath: this.opts.userConfigPath, settings: this.opts.settings, builtins: this.opts.builtins, env: this.env });
    const vars = this.loaded.adapters.size ? await Promise.all(this.roots.map(repoVars)) : []; // git facts are for templates: no adapter, no git
    this.repos = new Map(vars.map((v, i) => [this.roots[i]!, v]));
    if (before) {
      for (const [name, d] of this.drivers) {
        const a = before.adapters.get(name); const b = this.loaded.adapters.get(name);
        if (!a || !b || JSON.stringify(a.config) !== JSON.stringify(b.config)) { this.drivers.delete(name); void d.dispose(); }
      }
    }
  }

  private get env(): NodeJS.ProcessEnv { return this.opts.env ?? process.env; }
  private get workspaceTrusted(): boolean { return this.opts.workspaceTrusted ?? true; }

  configErrors(): AdapterConfigError[] { return [...this.loaded.errors]; }

  private rootOf(a: LoadedAdapter): string { return a.repoRoot ?? this.roots[0]!; }

  private context(a: LoadedAdapter): TemplateContext {
    const root = this.rootOf(a);
    const repo = this.repos.get(root) ?? { id: repoIdFor(root), root, dir: basename(root), name: basename(root), slug: slugify(basename(root)) };
    return baseContext({ repo, projectName: this.opts.projectName ?? basename(this.roots[0]!), env: this.env, vars: a.config.vars, now: this.now() });
  }

  private repoAdaptersTable(root: string): Record<string, unknown> | undefined {
    return this.loaded.repoFiles.find(f => f.root === root)?.adapters;
  }

  /** The state of one loaded adapter (no side effects; `when` reads the file system and PATH). */
  private stateOf(a: LoadedAdapter): Pick<AdapterInfo, 'state' | 'reason' | 'trust_hint' | 'failed'> {
    if (!a.config.enabled) return { state: 'inactive', reason: 'disabled (enabled = false)' };
    if (a.fromRepo) {
      if (!this.workspaceTrusted) return { state: 'inactive', reason: 'the workspace is not trusted: adapters declared by a repository never run in it' };
      const repoRoots = [...new Set(a.layers.filter(l => l.kind === 'repo').map(l => l.root!))];
      for (const root of repoRoots) {
        const st = this.trustStore.state(root, this.repoAdaptersTable(root), true);
        if (st !== 'trusted') {
          const file = this.loaded.repoFiles.find(f => f.root === root)?.path ?? root;
          return {
            state: 'untrusted',
            reason: st === 'changed' ? `${file} changed since its adapters were trusted` : `declared by ${file}, which is not trusted yet`,
            trust_hint: `review ${file}, then run \`sightline adapters trust\``,
          };
        }
      }
    }
    const w = evaluateWhen(a.config.when, { repo: this.context(a).scope.repo as RepoVars, env: this.env, ctx: this.context(a) }, `adapters.${a.name}.when`);
    if (!w.ok) return { state: 'inactive', reason: `inactive: ${w.reason}`, failed: w.failed };
    return { state: 'active' };
  }

  list(): AdapterInfo[] {
    const out: AdapterInfo[] = [];
    for (const a of this.loaded.adapters.values()) {
      const c = a.config;
      const cd = this.cooldowns.get(a.name);
      const nowMs = this.now().getTime();
      out.push({
        name: a.name, ...this.stateOf(a), driver: c.driver, description: c.description,
        ops: OP_NAMES.filter(o => c.ops[o]), tools: c.tools.map(t => t.name), expose: c.driver === 'mcp' ? c.expose : undefined,
        weight: c.weight, timeout_ms: c.timeout_ms,
        declared_in: a.layers.map(l => ({ kind: l.kind, source: l.source })), repo_root: a.repoRoot,
        cooldown: cd && cd.until > nowMs ? { failures: cd.failures, until: new Date(cd.until).toISOString(), retry_in_ms: cd.until - nowMs, last_error: cd.last.message } : undefined,
      });
    }
    const named = new Set(out.map(a => a.name));
    for (const e of this.loaded.errors) {
      if (!e.adapter || named.has(e.adapter)) continue;
      named.add(e.adapter);
      const kind: LayerSource['kind'] = this.loaded.repoFiles.some(f => f.path === e.source) ? 'repo' : e.source.startsWith('settings') ? 'settings' : e.source.startsWith('built-in') ? 'builtin' : 'user';
      out.push({ name: e.adapter, state: 'error', reason: e.message, ops: [], tools: [], declared_in: [{ kind, source: e.source }] });
    }
    return out.sort((x, y) => x.name.localeCompare(y.name));
  }

  private failure(adapter: string, op: string, started: number, code: AdapterFailureCode, message: string, details?: Record<string, unknown>): CallResult {
    return { ok: false, adapter, op, error: { code, message, ...(details ? { details } : {}) }, ms: Date.now() - started };
  }

  private driverFor(a: LoadedAdapter): Driver {
    let d = this.drivers.get(a.name);
    if (!d) { d = createDriver(a.config, this.context(a), this.rootOf(a)); this.drivers.set(a.name, d); }
    return d;
  }

  /** A usable adapter, or the failure that says why not (unknown, error, inactive, untrusted, cooling down). */
  private usable(name: string, op: string, started: number, ignoreCooldown = false): { a: LoadedAdapter } | { fail: CallResult } {
    const a = this.loaded.adapters.get(name);
    if (!a) {
      const e = this.loaded.errors.find(x => x.adapter === name);
      if (e) return { fail: this.failure(name, op, started, 'config_error', e.message) };
      return { fail: this.failure(name, op, started, 'unknown_adapter', `no adapter \`${name}\` (adapters: ${[...this.loaded.adapters.keys()].join(', ') || 'none'})`) };
    }
    const st = this.stateOf(a);
    if (st.state === 'untrusted') return { fail: this.failure(name, op, started, 'untrusted', `${st.reason}; ${st.trust_hint}`) };
    if (st.state !== 'active') return { fail: this.failure(name, op, started, a.config.enabled ? 'inactive' : 'disabled', st.reason ?? 'inactive', st.failed ? { failed: st.failed } : undefined) };
    const cd = this.cooldowns.get(name);
    const nowMs = this.now().getTime();
    if (cd && cd.until > nowMs && !ignoreCooldown) {
      return { fail: this.failure(name, op, started, 'cooling_down', `cooling down for ${Math.ceil((cd.until - nowMs) / 1000)} s after ${cd.failures} failure${cd.failures > 1 ? 's' : ''} (${cd.last.code}: ${cd.last.message})`, { retry_in_ms: cd.until - nowMs, failures: cd.failures, last_error: cd.last }) };
    }
    return { a };
  }

  private record(name: string, r: CallResult): CallResult {
    if (r.ok) { this.cooldowns.delete(name); return r; }
    if (!COOLING_CODES.has(r.error.code)) return r;
    const prev = this.cooldowns.get(name);
    const failures = (prev?.failures ?? 0) + 1;
    const base = this.opts.cooldown?.base_ms ?? COOLDOWN_BASE_MS;
    const max = this.opts.cooldown?.max_ms ?? COOLDOWN_MAX_MS;
    const wait = Math.min(max, base * 2 ** (failures - 1));
    this.cooldowns.set(name, { failures, until: this.now().getTime() + wait, last: r.error });
    return r;
  }

  /** Runs a driver function bounded by `timeoutMs` (+ CALL_SLACK_MS), with the caller's signal linked. */
  private async bounded<T>(timeoutMs: number, outer: AbortSignal | undefined, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
    const onOuter = () => ac.abort(new DOMException('cancelled', 'AbortError'));
    if (outer?.aborted) onOuter(); else outer?.addEventListener('abort', onOuter, { once: true });
    let hard: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        fn(ac.signal),
        new Promise<never>((_, rej) => {
          hard = setTimeout(() => rej(new AdapterCallError('timeout', `no answer within ${timeoutMs} ms`, { timeout_ms: timeoutMs })), timeoutMs + CALL_SLACK_MS);
          ac.signal.addEventListener('abort', () => {
            if ((ac.signal.reason as { name?: string })?.name === 'AbortError') rej(new AdapterCallError('cancelled', 'the call was cancelled'));
          }, { once: true });
        }),
      ]);
    } finally {
      clearTimeout(timer); if (hard) clearTimeout(hard);
      outer?.removeEventListener('abort', onOuter);
    }
  }

  private static toFailure(e: unknown): CallFailure {
    if (e instanceof AdapterCallError) return { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) };
    if (e instanceof TemplateError) return { code: 'template_error', message: e.message, details: { variable: e.variable, field: e.field } };
    if (e instanceof MappingError) return { code: 'malformed', message: e.message };
    return { code: 'internal', message: (e as Error)?.message ?? String(e) };
  }

  async call(name: string, op: string, inputs: Record<string, unknown> = {}, opts: { signal?: AbortSignal } = {}): Promise<CallResult> {
    return this.callOp(name, op, inputs, opts, false);
  }

  /** Runs one operation's request through its driver, bounded by its timeout: the payload. */
  private runSpec(a: LoadedAdapter, op: OpName | 'tool', spec: OpConfig, ins: Record<string, unknown>, signal: AbortSignal | undefined): Promise<unknown> {
    const timeoutMs = spec.timeout_ms ?? a.config.timeout_ms;
    const ctx = extend(this.context(a), { ...ins, args: ins });
    const driver = this.driverFor(a);
    return this.bounded(timeoutMs, signal, sig => driver.call({ op, spec, inputs: ins, ctx, timeoutMs, signal: sig, root: this.rootOf(a) }));
  }

  private async callOp(name: string, op: string, inputs: Record<string, unknown>, opts: { signal?: AbortSignal }, ignoreCooldown: boolean): Promise<CallResult> {
    const started = Date.now();
    const u = this.usable(name, op, started, ignoreCooldown);
    if ('fail' in u) return u.fail;
    const a = u.a;
    if (!(OP_NAMES as readonly string[]).includes(op) || !a.config.ops[op as OpName]) {
      return this.failure(name, op, started, 'unknown_op', `adapter \`${name}\` has no \`${op}\` operation (it has ${Object.keys(a.config.ops).join(', ') || 'none'})`);
    }
    const opName = op as OpName;
    const spec = a.config.ops[opName]!;
    const isItems = ITEM_OPS.includes(opName);
    const ins: Record<string, unknown> = { ...inputs };
    if (isItems && ins.limit === undefined) ins.limit = DEFAULT_LIMIT;
    let result: CallResult;
    try {
      const payload = await this.runSpec(a, opName, spec, ins, opts.signal);
      if (isItems) {
        const limit = typeof ins.limit === 'number' && ins.limit > 0 ? ins.limit : DEFAULT_LIMIT;
        result = { ok: true, adapter: name, op: opName, items: mapItems(payload, spec, name).slice(0, limit), ms: Date.now() - started };
      } else {
        result = { ok: true, adapter: name, op: opName, text: mapText(payload, spec), ms: Date.now() - started };
      }
    } catch (e) {
      const f = AdapterService.toFailure(e);
      result = { ok: false, adapter: name, op: opName, error: f, ms: Date.now() - started };
    }
    return this.record(name, result);
  }

  /**
   * Every adapter with one of `ops` (default `search`; the first it has: `['code', 'search']`), in parallel,
   * each within its timeout; `inputs` join `{ query, limit }` (history: `target`); `merged` by fuse.ts's rank.
   */
  async search(query: string, limit = DEFAULT_LIMIT, opts: { signal?: AbortSignal; ops?: readonly OpName[]; inputs?: Record<string, unknown> } = {}): Promise<SearchAnswer> {
    const started = Date.now();
    const ops = opts.ops ?? ['search'];
    const notices: string[] = [];
    const runs: Promise<SearchAnswer['results'][number] | undefined>[] = [];
    let asked = 0;
    for (const a of this.loaded.adapters.values()) {
      const op = ops.find(o => a.config.ops[o]);
      if (!op) continue;
      asked++;
      const u = this.usable(a.name, op, started);
      if ('fail' in u) { if (!u.fail.ok) notices.push(`${a.name}: ${u.fail.error.code === 'inactive' || u.fail.error.code === 'disabled' ? '' : `${u.fail.error.code}: `}${u.fail.error.message}`); continue; }
      runs.push(this.call(a.name, op, { ...opts.inputs, query, limit }, opts).then(r => {
        const weight = a.config.weight;
        if (!r.ok) { notices.push(`${a.name}: ${r.error.code}: ${r.error.message}`); return { adapter: a.name, ok: false, items: [], ms: r.ms, weight, error: r.error }; }
        const items = (r.items ?? []).map((it, rank) => ({ ...it, adapter: a.name, weight, merge_score: weight / (RRF_K + rank + 1) }));
        return { adapter: a.name, ok: true, items, ms: r.ms, weight };
      }));
    }
    const results = (await Promise.all(runs)).filter((x): x is NonNullable<typeof x> => !!x);
    const merged = results.flatMap(r => r.items).sort((x, y) => y.merge_score - x.merge_score || x.adapter.localeCompare(y.adapter));
    const answered = results.filter(r => r.ok).length;
    if (!asked) notices.push(`no adapter has a ${ops.join(' or ')} operation`);
    return { query, results, merged: merged.slice(0, Math.max(limit, 0)), notices, complete: answered === asked, ms: Date.now() - started };
  }

  /** Pins the loaded `[adapters]` tables of every repository (or of `root`). */
  trust(opts: { root?: string } = {}): { trusted: (TrustPin & { root: string; path: string })[]; skipped: { root: string; path: string; reason: string }[]; workspace_trusted: boolean } {
    const want = opts.root ? (() => { try { return realpathSync(resolve(opts.root)); } catch { return resolve(opts.root); } })() : undefined;
    const trusted: (TrustPin & { root: string; path: string })[] = [];
    const skipped: { root: string; path: string; reason: string }[] = [];
    for (const f of this.loaded.repoFiles) {
      if (want && f.root !== want) continue;
      if (!f.adapters) { skipped.push({ root: f.root, path: f.path, reason: f.parseError ? f.parseError.message : 'no [adapters] table' }); continue; }
      if (!Object.keys(f.adapters).length) { skipped.push({ root: f.root, path: f.path, reason: 'no [adapters] table' }); continue; }
      trusted.push({ ...this.trustStore.pin(f.root, f.adapters, this.now()), root: f.root, path: f.path });
    }
    return { trusted, skipped, workspace_trusted: this.workspaceTrusted };
  }

  /** The repositories' adapter files with what trusting them would let run (commands, endpoints): shown before a trust. */
  repoConfigFiles(): TrustSummary[] { return trustSummaries(this.loaded.repoFiles); }

  untrust(root: string): boolean {
    let r = resolve(root);
    try { r = realpathSync(r); } catch { /* as given */ }
    return this.trustStore.unpin(r);
  }

  get trustPath(): string { return this.trustStore.path; }

  async inspect(name: string, opts: { signal?: AbortSignal } = {}): Promise<{ ok: true; adapter: string; tools: PeerTool[]; ms: number } | Extract<CallResult, { ok: false }>> {
    const started = Date.now();
    const u = this.usable(name, 'inspect', started);
    if ('fail' in u) return u.fail as Extract<CallResult, { ok: false }>;
    if (u.a.config.driver !== 'mcp') return this.failure(name, 'inspect', started, 'unsupported', `\`${name}\` is a ${u.a.config.driver} adapter; only mcp adapters list tools`) as Extract<CallResult, { ok: false }>;
    const d = this.driverFor(u.a) as McpDriver;
    // listing a server that is not running yet starts it first (spawn, initialize): a window of its own
    const timeoutMs = d.running ? u.a.config.timeout_ms : Math.max(u.a.config.timeout_ms, MCP_START_WINDOW_MS);
    try {
      const tools = await this.bounded(timeoutMs, opts.signal, signal => d.inspect(signal, timeoutMs));
      this.record(name, { ok: true, adapter: name, op: 'search', ms: 0 });
      return { ok: true, adapter: name, tools, ms: Date.now() - started };
    } catch (e) {
      return this.record(name, { ok: false, adapter: name, op: 'inspect', error: AdapterService.toFailure(e), ms: Date.now() - started }) as Extract<CallResult, { ok: false }>;
    }
  }

  ownerOf(uri: string): string | undefined {
    let best: { name: string; len: number } | undefined;
    for (const a of this.loaded.adapters.values()) {
      for (const p of a.config.ops.read?.owns ?? []) {
        if (uri.startsWith(p) && (!best || p.length > best.len) && this.stateOf(a).state === 'active') best = { name: a.name, len: p.length };
      }
    }
    return best?.name;
  }

  declaredTools(): DeclaredTool[] {
    const out: DeclaredTool[] = [];
    for (const a of this.loaded.adapters.values()) {
      if (!a.config.tools.length) continue;
      const active = this.stateOf(a).state === 'active';
      for (const t of a.config.tools) out.push({ name: t.name, adapter: a.name, description: t.description, input_schema: paramsSchema(t.params), op: t.op as OpName | OpConfig, active });
    }
    return out;
  }

  async exposedTools(opts: { signal?: AbortSignal } = {}): Promise<{ tools: ExposedTool[]; notices: string[] }> {
    const tools: ExposedTool[] = [];
    const notices: string[] = [];
    await Promise.all([...this.loaded.adapters.values()].filter(a => a.config.driver === 'mcp' && a.config.expose !== 'none').map(async a => {
      const r = await this.inspect(a.name, opts);
      if (!r.ok) { notices.push(`${a.name}: ${r.error.code}: ${r.error.message}`); return; }
      const expose = a.config.expose;
      const picked = expose === 'all' ? r.tools : r.tools.filter(t => (expose as string[]).includes(t.name));
      if (Array.isArray(expose)) for (const n of expose) if (!r.tools.some(t => t.name === n)) notices.push(`${a.name}: the server has no tool \`${n}\` to expose`);
      for (const t of picked) tools.push({ name: exposedName(a.config.prefix, t.name), adapter: a.name, tool: t.name, description: t.description, input_schema: t.inputSchema });
    }));
    tools.sort((x, y) => x.name.localeCompare(y.name));
    return { tools, notices };
  }

  /** A declared tool (`[[adapters.x.tools]]`) called with its arguments (tool-calls.ts). */
  callTool(name: string, args: Record<string, unknown> = {}, opts: { signal?: AbortSignal } = {}): Promise<ToolCallResult> { return this.tools.declared(name, args, opts); }

  /** A tool an mcp adapter publishes (`expose`, prefix rule) called with its arguments (tool-calls.ts). */
  callExposed(name: string, args: Record<string, unknown> = {}, opts: { signal?: AbortSignal } = {}): Promise<ToolCallResult> { return this.tools.exposed(name, args, opts); }

  /** An event of one memory (`capture`, `promote`): matching subscriptions queued in the outbox, then flushed. */
  emit(event: EventName, memory: MemoryRecord, opts: { signal?: AbortSignal; flush?: boolean } = {}): Promise<EmitResult> { return this.deliveries.emit(event, memory, opts); }

  /** `sightline adapters sync`: every current memory offered to every sync subscription. */
  sync(memories: readonly MemoryRecord[], opts: { signal?: AbortSignal; flush?: boolean } = {}): Promise<EmitResult> { return this.deliveries.sync(memories, opts); }

  /** Delivers what is due in the outbox (this process's items and an earlier one's). Never throws. */
  flushOutbox(opts: { signal?: AbortSignal } = {}): Promise<FlushSummary> { return this.deliveries.flush(opts); }

  /** Pending and dead deliveries. */
  outbox(): OutboxListing { return this.deliveries.list(); }
  retryOutbox(ids?: readonly string[]): number { return this.deliveries.retry(ids); }
  dropOutbox(ids?: readonly string[]): number { return this.deliveries.drop(ids); }
  get outboxPath(): string { return this.deliveries.path; }

  /** The driver of an adapter (tests: restarts of an MCP server). */
  driver(name: string): Driver | undefined { return this.drivers.get(name); }

  async dispose(): Promise<void> {
    this.disposed = true;
    await this.deliveries.dispose();
    const ds = [...this.drivers.values()];
    this.drivers.clear();
    await Promise.all(ds.map(d => d.dispose().catch(() => undefined)));
  }
}
