/**
 * Declared and exposed tools for the adapters service: `callTool` (a `[[adapters.x.tools]]` entry) and
 * `callExposed` (a tool an mcp adapter publishes under `expose`) — see the service's header for the API.
 *
 * Rules:
 * - A declared tool's arguments are validated with ajv against its JSON schema (`params` → schema by
 *   `paramsSchema`; a full schema's `$schema` is ignored; scalars are coerced to the declared types,
 *   defaults applied); the first error names the field (`invalid_args`, `details.field`), and nothing is
 *   sent. A schema ajv cannot compile is `config_error`.
 * - Its op is an inline op (`op = { … }`, run as op `tool`) or a named op of the adapter; the arguments
 *   are the op's inputs (`{{x}}` and `{{args.x}}`).
 * - Both record success and failure for the adapter's cool-down, like `call`.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { ITEM_OPS, type LoadedAdapter, type OpConfig, type OpName, type ToolConfig } from './config';
import type { AdapterFailureCode, Driver } from './drivers/index';
import type { McpDriver } from './drivers/mcp';
import { mapItems, mapText, type AdapterItem } from './mapping';
import type { CallFailure, CallResult, DeclaredTool } from './service';

export const DEFAULT_LIMIT = 10;

/** `params` of a declared tool → a JSON schema (`type!` = required; a full schema passes through). */
export function paramsSchema(params: ToolConfig['params']): Record<string, unknown> {
  if (!params) return { type: 'object', properties: {} };
  if ((params as { type?: unknown }).type === 'object') return params as Record<string, unknown>;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [k, t] of Object.entries(params as Record<string, string>)) {
    const req = t.endsWith('!');
    properties[k] = { type: req ? t.slice(0, -1) : t };
    if (req) required.push(k);
  }
  return required.length ? { type: 'object', properties, required } : { type: 'object', properties };
}

/** The prefix rule of published tools. */
export function exposedName(prefix: string, tool: string): string { return prefix && !tool.startsWith(prefix) ? `${prefix}${tool}` : tool; }

/** What the tool calls need of the service. */
export interface ToolHost {
  adapters(): Iterable<LoadedAdapter>;
  declaredTools(): DeclaredTool[];
  usable(name: string, op: string, started: number): { a: LoadedAdapter } | { fail: CallResult };
  runSpec(a: LoadedAdapter, op: OpName | 'tool', spec: OpConfig, ins: Record<string, unknown>, signal: AbortSignal | undefined): Promise<unknown>;
  record(name: string, r: CallResult): CallResult;
  bounded<T>(timeoutMs: number, outer: AbortSignal | undefined, fn: (signal: AbortSignal) => Promise<T>): Promise<T>;
  driverFor(a: LoadedAdapter): Driver;
  toFailure(e: unknown): CallFailure;
}

/** A declared or exposed tool's answer. */
export type ToolCallResult =
  | { ok: true; tool: string; adapter: string; text: string; structured_content?: unknown; ms: number }
  | { ok: false; tool: string; adapter?: string; error: CallFailure; ms: number };

/** The input a named op's templates read first (filled from a declared tool's first string argument). */
const MAIN_INPUT: Record<OpName, string> = { search: 'query', code: 'query', brief: 'query', history: 'target', read: 'uri', store: 'content', llm: 'prompt' };

/** Items as compact text: one line each, `N. title — snippet (uri)`. */
export function itemsText(items: readonly AdapterItem[]): string {
  if (!items.length) return 'no results';
  return items.map((it, i) => {
    const snip = typeof it.snippet === 'string' && it.snippet.trim() ? ` — ${it.snippet.replace(/\s+/g, ' ').trim().slice(0, 200)}` : '';
    const where = it.uri ?? (it.path ? `${it.path}${it.line ? `:${it.line}` : ''}` : undefined);
    return `${i + 1}. ${it.title}${snip}${where ? ` (${where})` : ''}`;
  }).join('\n');
}

export class ToolCalls {
  private readonly ajv = new Ajv({ allErrors: false, coerceTypes: true, useDefaults: true, strict: false });
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly host: ToolHost) {}

  private validator(schema: Record<string, unknown>): ValidateFunction {
    const key = JSON.stringify(schema);
    let v = this.validators.get(key);
    if (!v) {
      const { $schema: _ignored, ...rest } = schema;
      v = this.ajv.compile(rest);
      this.validators.set(key, v);
    }
    return v;
  }

  private static argsError(e: ErrorObject): { field: string; message: string } {
    const missing = (e.params as { missingProperty?: string }).missingProperty;
    const extra = (e.params as { additionalProperty?: string }).additionalProperty;
    const at = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
    const field = missing ? (at ? `${at}.${missing}` : missing) : extra ? (at ? `${at}.${extra}` : extra) : at;
    const message = missing ? 'is required' : extra ? 'is not a parameter of this tool' : e.message ?? 'is invalid';
    return { field, message };
  }

  /**
   * Calls a declared tool (`[[adapters.x.tools]]`): the arguments are validated against its JSON schema
   * (ajv; scalars are coerced to the declared types, defaults applied) — a failure is `invalid_args`
   * naming the field; then its op runs with the arguments as `{{args.x}}` and `{{x}}` (a named op also gets
   * its main input — query, target, uri, content or prompt — from the first string argument when the
   * arguments do not name it; an inline mcp op without `args` passes the arguments through). The answer
   * is text: the op's `text` path if it has one, else its items one line each (an item op, or an op with
   * items/split/map/where), else the payload as text or JSON.
   */
  async declared(name: string, args: Record<string, unknown> = {}, opts: { signal?: AbortSignal } = {}): Promise<ToolCallResult> {
    const started = Date.now();
    const fail = (code: AdapterFailureCode, message: string, adapter?: string, details?: Record<string, unknown>): ToolCallResult =>
      ({ ok: false, tool: name, ...(adapter ? { adapter } : {}), error: { code, message, ...(details ? { details } : {}) }, ms: Date.now() - started });
    const found = [...this.host.adapters()].flatMap(a => a.config.tools.filter(t => t.name === name).map(t => ({ a, t })));
    if (!found.length) return fail('unknown_tool', `no declared tool \`${name}\` (declared: ${this.host.declaredTools().map(t => t.name).join(', ') || 'none'})`);
    if (found.length > 1) return fail('config_error', `tool \`${name}\` is declared by ${found.map(f => f.a.name).join(' and ')}; rename one`);
    const { a, t } = found[0]!;
    const u = this.host.usable(a.name, `tool ${name}`, started);
    if ('fail' in u) { const f = u.fail as Extract<CallResult, { ok: false }>; return fail(f.error.code, f.error.message, a.name, f.error.details); }
    const schema = paramsSchema(t.params);
    const data = structuredClone(args ?? {});
    let valid: ValidateFunction;
    try { valid = this.validator(schema); } catch (e) { return fail('config_error', `adapters.${a.name}.tools.${name}.params is not a valid JSON schema: ${(e as Error).message}`, a.name); }
    if (!valid(data)) {
      const first = ToolCalls.argsError(valid.errors![0]!);
      return fail('invalid_args', `${name}: argument \`${first.field}\` ${first.message}`, a.name, { field: first.field, errors: valid.errors!.map(e => ({ path: e.instancePath, keyword: e.keyword, message: e.message, params: e.params })) });
    }
    let opLabel: OpName | 'tool';
    let spec: OpConfig;
    const ins: Record<string, unknown> = { ...data };
    if (typeof t.op === 'string') {
      opLabel = t.op as OpName;
      spec = a.config.ops[opLabel]!;
      const main = MAIN_INPUT[opLabel];
      if (ins[main] === undefined) {
        const props = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
        const k = [...props, ...Object.keys(ins)].find(x => typeof ins[x] === 'string');
        if (k) ins[main] = ins[k];
      }
      if (ITEM_OPS.includes(opLabel) && ins.limit === undefined) ins.limit = DEFAULT_LIMIT;
    } else {
      opLabel = 'tool';
      spec = t.op as OpConfig;
      if (a.config.driver === 'mcp' && !spec.args) spec = { ...spec, args: Object.fromEntries(Object.keys(data).map(k => [k, `{{args.${k}}}`])) };
    }
    const itemsLike = !spec.text && ((opLabel !== 'tool' && ITEM_OPS.includes(opLabel)) || !!(spec.items || spec.split || spec.map || spec.where));
    let result: ToolCallResult;
    try {
      const payload = await this.host.runSpec(a, opLabel, spec, ins, opts.signal);
      let text: string;
      if (itemsLike) {
        const limit = typeof ins.limit === 'number' && ins.limit > 0 ? ins.limit : undefined;
        const items = mapItems(payload, spec, a.name);
        text = itemsText(limit ? items.slice(0, limit) : items);
      } else text = mapText(payload, spec);
      result = { ok: true, tool: name, adapter: a.name, text, ms: Date.now() - started };
    } catch (e) {
      result = { ok: false, tool: name, adapter: a.name, error: this.host.toFailure(e), ms: Date.now() - started };
    }
    this.host.record(a.name, result.ok ? { ok: true, adapter: a.name, op: 'search', ms: result.ms } : { ok: false, adapter: a.name, op: `tool ${name}`, error: result.error, ms: result.ms });
    return result;
  }

  /**
   * Calls a tool an mcp adapter publishes (`expose`, named by the prefix rule): the server's tool with the
   * arguments as given (the server validates them). The answer: its text content (or its structured
   * content as JSON when it sent no text), plus `structured_content` when it sent some. A tool result
   * with `isError` is `peer_error` with its text.
   */
  async exposed(name: string, args: Record<string, unknown> = {}, opts: { signal?: AbortSignal } = {}): Promise<ToolCallResult> {
    const started = Date.now();
    const fail = (code: AdapterFailureCode, message: string, adapter?: string, details?: Record<string, unknown>): ToolCallResult =>
      ({ ok: false, tool: name, ...(adapter ? { adapter } : {}), error: { code, message, ...(details ? { details } : {}) }, ms: Date.now() - started });
    const candidates = [...this.host.adapters()].filter(a => a.config.driver === 'mcp' && a.config.expose !== 'none'
      && (Array.isArray(a.config.expose) ? a.config.expose.some(t => exposedName(a.config.prefix, t) === name) : name.startsWith(a.config.prefix) || !a.config.prefix));
    let lastFail: ToolCallResult | undefined;
    for (const a of candidates) {
      const u = this.host.usable(a.name, `tool ${name}`, started);
      if ('fail' in u) { const f = u.fail as Extract<CallResult, { ok: false }>; lastFail = fail(f.error.code, f.error.message, a.name, f.error.details); continue; }
      const d = this.host.driverFor(a) as McpDriver;
      const timeoutMs = a.config.timeout_ms;
      let tool: string | undefined;
      try {
        const tools = await this.host.bounded(timeoutMs, opts.signal, signal => d.inspect(signal, timeoutMs));
        const expose = a.config.expose;
        tool = tools.find(t => (expose === 'all' || (expose as string[]).includes(t.name)) && exposedName(a.config.prefix, t.name) === name)?.name;
        if (!tool) { lastFail = fail('unknown_tool', `the MCP server of \`${a.name}\` has no tool published as \`${name}\``, a.name); continue; }
        const raw = await this.host.bounded(timeoutMs, opts.signal, signal => d.callToolRaw(tool!, args ?? {}, signal, timeoutMs));
        const parts = Array.isArray(raw.content) ? raw.content as { type?: string; text?: string }[] : [];
        const texts = parts.filter(p => p && p.type === 'text' && typeof p.text === 'string').map(p => p.text!);
        const other = parts.filter(p => p && p.type !== 'text').map(p => `[${p.type ?? 'content'}]`);
        const structured = raw.structuredContent ?? undefined;
        let text = [...texts, ...other].join('\n');
        if (!texts.length && structured !== undefined) text = JSON.stringify(structured, null, 2);
        if (raw.isError) {
          const r = fail('peer_error', `\`${tool}\` answered with an error${text ? `: ${text.slice(0, 300)}` : ''}`, a.name);
          this.host.record(a.name, { ok: false, adapter: a.name, op: `tool ${name}`, error: (r as Extract<ToolCallResult, { ok: false }>).error, ms: r.ms });
          return r;
        }
        this.host.record(a.name, { ok: true, adapter: a.name, op: 'search', ms: 0 });
        return { ok: true, tool: name, adapter: a.name, text, ...(structured !== undefined ? { structured_content: structured } : {}), ms: Date.now() - started };
      } catch (e) {
        const f = this.host.toFailure(e);
        this.host.record(a.name, { ok: false, adapter: a.name, op: `tool ${name}`, error: f, ms: Date.now() - started });
        return fail(f.code, f.message, a.name, f.details);
      }
    }
    return lastFail ?? fail('unknown_tool', `no adapter publishes a tool \`${name}\` (expose = "all" or a list on an mcp adapter)`);
  }

}
