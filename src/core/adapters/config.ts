/**
 * Adapter configuration: where `[adapters.<name>]` tables come from, how they merge, and what a valid one is.
 *
 * Rules:
 * - Layers, later overriding earlier, per adapter and per field: built-in defaults (`builtins`), the user's
 *   file (`userConfigPath()`: `$XDG_CONFIG_HOME/sightline/config.toml`, default `~/.config/sightline/
 *   config.toml`; macOS `~/Library/Application Support/sightline/config.toml`; Windows
 *   `%APPDATA%\sightline\config.toml`), the editor's settings (`sightline.adapters`, a plain object handed
 *   in), then each repository's shared `<root>/.sightline/config.toml` in root order.
 * - "Per field": a top-level field of an adapter replaces the earlier layer's value; `vars`, `env` and
 *   `headers` merge per key; `ops` merge per operation (an operation is replaced whole); `when`, `on`,
 *   `tools` are replaced whole.
 * - Every layer is validated on its own (so an error can name its file and line) with strict zod schemas:
 *   an unknown field is an error naming it. The merged adapter is then checked as a whole (a driver, the
 *   driver's endpoint, fields that do not apply to the driver, `on` naming an op of the adapter).
 * - A config error names the source (file path or `settings sightline.adapters`), the line (TOML syntax
 *   errors from smol-toml's TomlError; validation errors by finding the key's line in the file text) and
 *   the field path (`adapters.notes.ops.search.tiemout_ms`). Errors never throw out of `loadAdapterConfig`:
 *   a file that does not parse contributes nothing and is reported; an adapter with an invalid field is
 *   reported and left out (listed as `error` by the service); the others still load.
 * - Provenance: each merged adapter records every layer that set a field of it; an adapter that any
 *   repository layer touched needs trust (trust.ts) — a repository may not silently redirect a user's
 *   adapter either. Only other top-level tables of a config file (not `adapters`) are ignored here.
 * - Defaults (applied after merging): `enabled` true, `timeout_ms` 10000, `weight` 0.9 (local results are
 *   1.0), `expose` "none", `prefix` `<name>_`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir, platform } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseToml, TomlError } from 'smol-toml';
import { z } from 'zod';
import { lineOfKey } from './toml-lines';

export const OP_NAMES = ['search', 'code', 'history', 'read', 'brief', 'llm', 'store'] as const;
export type OpName = (typeof OP_NAMES)[number];
/** Operations answered with result items; the others answer with text. */
export const ITEM_OPS: readonly OpName[] = ['search', 'code', 'history'];
export const DRIVERS = ['mcp', 'http', 'command'] as const;
export type DriverName = (typeof DRIVERS)[number];
export const FORMATS = ['auto', 'json', 'jsonl', 'lines', 'text'] as const;
export type PayloadFormat = (typeof FORMATS)[number];
export const EVENTS = ['capture', 'promote', 'sync'] as const;

export const DEFAULT_TIMEOUT_MS = 10_000;
/**
 * How long listing the tools of an MCP server that is not running yet may take: its start (spawn,
 * initialize, tools/list) on a loaded machine can take longer than one call (a Sightline server as a peer
 * took over 10 s, and its tools vanished from the list).
 */
export const MCP_START_WINDOW_MS = 30_000;
export const DEFAULT_WEIGHT = 0.9;
export const LOCAL_WEIGHT = 1.0;

const str = z.string();
const strMap = z.record(z.string(), z.string());
const strOrList = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);
const jsonValue: z.ZodType<unknown> = z.unknown();

/** `[adapters.<name>.ops.<op>]` and an inline `tools[].op`: request fields of every driver, mapping fields. */
export const OpSchema = z.strictObject({
  // mcp
  tool: str.min(1).optional(),
  args: z.record(z.string(), jsonValue).optional(),
  // http
  method: z.string().regex(/^[A-Za-z]+$/, 'an HTTP method name').optional(),
  path: str.optional(),
  url: str.optional(),
  query: z.record(z.string(), jsonValue).optional(),
  headers: strMap.optional(),
  body: jsonValue.optional(),
  // command
  command: z.array(str).min(1).optional(),
  stdin: str.optional(),
  output_file: z.boolean().optional(),
  cwd: str.optional(),
  env: strMap.optional(),
  // all drivers
  format: z.enum(FORMATS).optional(),
  timeout_ms: z.number().int().positive().max(600_000).optional(),
  // result mapping (search, code, history)
  items: str.min(1).optional(),
  split: str.min(1).optional(),
  where: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  map: z.record(z.string(), str.min(1)).optional(),
  // text answers (read, brief, llm, store)
  text: str.min(1).optional(),
  // read
  owns: z.array(str.min(1)).optional(),
});
export type OpConfig = z.infer<typeof OpSchema>;

/** Which op fields belong to which driver (the mapping and `format`/`timeout_ms` belong to all). */
export const OP_FIELDS_BY_DRIVER: Record<DriverName, readonly string[]> = {
  mcp: ['tool', 'args'],
  http: ['method', 'path', 'url', 'query', 'headers', 'body'],
  command: ['command', 'stdin', 'output_file', 'cwd', 'env'],
};
const DRIVER_OP_FIELDS = new Set(Object.values(OP_FIELDS_BY_DRIVER).flat());

export const WhenSchema = z.strictObject({
  command: strOrList.optional(),
  file: strOrList.optional(),
  repo: strOrList.optional(),
  env: strOrList.optional(),
  exists: strOrList.optional(),
});
export type WhenConfig = z.infer<typeof WhenSchema>;

export const EventSchema = z.strictObject({
  event: z.enum(EVENTS),
  op: str.min(1),
  /** private (= user) | shared (= team, repo): the memory's scope (events.ts) */
  visibility: z.enum(['private', 'user', 'shared', 'team', 'repo']).optional(),
  kinds: z.array(str.min(1)).optional(),
});

const PARAM_TYPE = /^(string|integer|number|boolean|array|object)!?$/;
export const ToolSchema = z.strictObject({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'letters, digits, _ and - (at most 64)'),
  description: str.min(1),
  params: z.union([
    z.record(z.string(), z.string().regex(PARAM_TYPE, 'a JSON type (string, integer, number, boolean, array, object), `!` for required')),
    z.looseObject({ type: z.literal('object') }),
  ]).optional(),
  op: z.union([z.enum(OP_NAMES), OpSchema]),
});
export type ToolConfig = z.infer<typeof ToolSchema>;

/** One layer's `[adapters.<name>]`: every field optional (a later layer may set only one). */
export const AdapterLayerSchema = z.strictObject({
  driver: z.enum(DRIVERS).optional(),
  enabled: z.boolean().optional(),
  description: str.optional(),
  when: WhenSchema.optional(),
  vars: strMap.optional(),
  timeout_ms: z.number().int().positive().max(600_000).optional(),
  weight: z.number().min(0).max(1).optional(),
  command: z.array(str).min(1).optional(),
  env: strMap.optional(),
  cwd: str.optional(),
  url: str.optional(),
  base_url: str.optional(),
  headers: strMap.optional(),
  expose: z.union([z.enum(['none', 'all']), z.array(str.min(1))]).optional(),
  prefix: z.string().regex(/^[a-zA-Z0-9_-]*$/, 'letters, digits, _ and -').optional(),
  ops: z.partialRecord(z.enum(OP_NAMES), OpSchema).optional(),
  on: z.array(EventSchema).optional(),
  tools: z.array(ToolSchema).optional(),
});
export type AdapterLayer = z.infer<typeof AdapterLayerSchema>;

const NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,47}$/;

export type LayerKind = 'builtin' | 'user' | 'settings' | 'repo';
export interface LayerSource { kind: LayerKind; /** file path, or `settings sightline.adapters` / `built-in defaults` */ source: string; /** repo layers: the root */ root?: string }

/** An adapter after merging and defaults. */
export interface AdapterConfig extends Omit<AdapterLayer, 'driver' | 'enabled' | 'timeout_ms' | 'weight' | 'expose' | 'prefix' | 'ops' | 'vars' | 'on' | 'tools'> {
  name: string;
  driver: DriverName;
  enabled: boolean;
  timeout_ms: number;
  weight: number;
  expose: 'none' | 'all' | string[];
  prefix: string;
  vars: Record<string, string>;
  ops: Partial<Record<OpName, OpConfig>>;
  on: z.infer<typeof EventSchema>[];
  tools: ToolConfig[];
}

export interface LoadedAdapter {
  name: string;
  config: AdapterConfig;
  /** every layer that set a field of it, in order */
  layers: LayerSource[];
  /** true when a repository layer set any field: it needs trust */
  fromRepo: boolean;
  /** the root whose repository layer touched it last (its template context), if any */
  repoRoot?: string;
}

export { lineOfKey };

export class AdapterConfigError extends Error {
  constructor(readonly source: string, readonly line: number | undefined, readonly column: number | undefined, readonly field: string, readonly reason: string, readonly adapter?: string) {
    super(`${source}${line !== undefined ? `:${line}${column !== undefined ? `:${column}` : ''}` : ''}: ${field ? `${field}: ` : ''}${reason}`);
    this.name = 'AdapterConfigError';
  }
}

export interface RepoLayerText {
  root: string;
  path: string;
  /** the raw `[adapters]` table as parsed (what trust pins); undefined when the file has none or does not parse */
  adapters?: Record<string, unknown>;
  parseError?: AdapterConfigError;
}

export interface LoadOptions {
  roots: readonly string[];
  /** the user's file; default `userConfigPath()`; null: no user file */
  userConfigPath?: string | null;
  /** `sightline.adapters` from the editor's settings: `{ <name>: { …fields } }` */
  settings?: Record<string, unknown>;
  /** built-in adapter tables, lowest layer */
  builtins?: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
}

export interface LoadedConfig {
  adapters: Map<string, LoadedAdapter>;
  /** adapters left out for a config error, by name (file-level errors under `''`) */
  errors: AdapterConfigError[];
  /** each repository's shared file, as read (trust pins its `adapters` table) */
  repoFiles: RepoLayerText[];
}

/** The user's config file: XDG on Linux and other POSIX systems, the platform's config folder elsewhere. */
export function userConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  if (platform() === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'sightline', 'config.toml');
  if (platform() === 'darwin') return join(homedir(), 'Library', 'Application Support', 'sightline', 'config.toml');
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'sightline', 'config.toml');
}

export function repoConfigPath(root: string): string { return join(resolve(root), '.sightline', 'config.toml'); }

// ---------------------------------------------------------------------------------------------- layers

interface ParsedLayer { src: LayerSource; text?: string; adapters: Record<string, unknown> }

function readTomlLayer(path: string, src: LayerSource, errors: AdapterConfigError[]): ParsedLayer | undefined {
  if (!existsSync(path)) return undefined;
  let text: string;
  try { text = readFileSync(path, 'utf8'); } catch (e) {
    errors.push(new AdapterConfigError(path, undefined, undefined, '', `cannot be read (${(e as Error).message})`));
    return undefined;
  }
  let doc: Record<string, unknown>;
  try { doc = parseToml(text) as Record<string, unknown>; } catch (e) {
    if (e instanceof TomlError) {
      const reason = e.message.split('\n')[0]!.replace(/^Invalid TOML document:\s*/, '');
      errors.push(new AdapterConfigError(path, e.line, e.column, '', `TOML syntax error: ${reason}`));
    } else errors.push(new AdapterConfigError(path, undefined, undefined, '', `TOML syntax error: ${(e as Error).message}`));
    return { src, text, adapters: {} };
  }
  const adapters = doc.adapters;
  if (adapters === undefined) return { src, text, adapters: {} };
  if (!isPlainObject(adapters)) {
    errors.push(new AdapterConfigError(path, lineOfKey(text, ['adapters']), undefined, 'adapters', 'must be a table of [adapters.<name>] tables'));
    return { src, text, adapters: {} };
  }
  return { src, text, adapters };
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

function issueReason(issue: z.core.$ZodIssue): { extra: string[]; reason: string } {
  if (issue.code === 'unrecognized_keys') {
    const keys = (issue as { keys: string[] }).keys;
    return { extra: [], reason: `unknown field${keys.length > 1 ? 's' : ''} ${keys.map(k => `\`${k}\``).join(', ')}` };
  }
  if (issue.code === 'invalid_key') return { extra: [], reason: 'unknown key (operations: ' + OP_NAMES.join(', ') + ')' };
  return { extra: [], reason: issue.message };
}

/** Validates one layer's adapter table; the errors name source, line and field path. */
function validateLayer(layer: ParsedLayer, name: string, value: unknown): { ok: AdapterLayer } | { error: AdapterConfigError } {
  const at = (path: (string | number)[], reason: string) => {
    const field = ['adapters', name, ...path].join('.');
    const line = layer.text !== undefined ? lineOfKey(layer.text, ['adapters', name, ...path]) : undefined;
    return new AdapterConfigError(layer.src.source, line, undefined, field, reason, name);
  };
  if (!NAME.test(name)) return { error: at([], 'an adapter name is a letter then letters, digits, _ or - (at most 48)') };
  const r = AdapterLayerSchema.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const { reason } = issueReason(issue);
    let path = issue.path.map(p => (typeof p === 'symbol' ? String(p) : p)) as (string | number)[];
    if (issue.code === 'unrecognized_keys') {
      const keys = (issue as { keys: string[] }).keys;
      if (path[path.length - 1] === 'ops' && path.length === 1) return { error: at([...path, keys[0]!], `unknown operation \`${keys[0]}\` (operations: ${OP_NAMES.join(', ')})`) };
      path = [...path, keys[0]!]; // the line of the first unknown field
      const e = at(path, reason);
      return { error: new AdapterConfigError(e.source, e.line, undefined, ['adapters', name, ...path.slice(0, -1)].join('.'), reason, name) };
    }
    if (issue.code === 'invalid_key') return { error: at(path, `unknown operation \`${String(path[path.length - 1])}\` (operations: ${OP_NAMES.join(', ')})`) };
    return { error: at(path, reason) };
  }
  return { ok: r.data };
}

// ---------------------------------------------------------------------------------------------- merge

const PER_KEY = new Set(['vars', 'env', 'headers', 'ops']);

function mergeLayer(into: Record<string, unknown>, layer: AdapterLayer): void {
  for (const [k, v] of Object.entries(layer)) {
    if (v === undefined) continue;
    if (PER_KEY.has(k) && isPlainObject(v) && isPlainObject(into[k])) into[k] = { ...(into[k] as object), ...v };
    else into[k] = v;
  }
}

/** Whole-adapter checks after merging: the driver, its endpoint, driver-specific fields, `on` ops. */
function checkMerged(name: string, merged: Record<string, unknown>, lastSet: Map<string, ParsedLayer>): AdapterConfigError | undefined {
  const err = (path: (string | number)[], reason: string) => {
    const layer = lastSet.get(String(path[0] ?? '')) ?? lastSet.get('') ?? undefined;
    const line = layer?.text !== undefined ? lineOfKey(layer.text, ['adapters', name, ...path]) : undefined;
    return new AdapterConfigError(layer?.src.source ?? 'config', line, undefined, ['adapters', name, ...path].join('.'), reason, name);
  };
  const driver = merged.driver as DriverName | undefined;
  if (!driver) return err([], 'missing `driver` (mcp, http or command)');
  if (driver === 'mcp' && !merged.command && !merged.url) return err(['driver'], 'an mcp adapter needs `command` (stdio) or `url` (Streamable HTTP)');
  if (driver === 'mcp' && merged.command && merged.url) return err(['url'], 'an mcp adapter has either `command` or `url`, not both');
  const ops = (merged.ops ?? {}) as Record<string, OpConfig>;
  const adapterFields: Record<DriverName, string[]> = { mcp: ['base_url'], http: ['command', 'cwd', 'env', 'expose', 'prefix'], command: ['url', 'base_url', 'headers', 'expose', 'prefix'] };
  for (const f of adapterFields[driver]) if (merged[f] !== undefined) return err([f], `does not apply to driver ${driver}`);
  const checkOp = (path: (string | number)[], op: OpConfig, opName: string) => {
    for (const f of Object.keys(op)) {
      if (DRIVER_OP_FIELDS.has(f) && !OP_FIELDS_BY_DRIVER[driver].includes(f)) return err([...path, f], `does not apply to driver ${driver}`);
    }
    if (driver === 'mcp' && !op.tool) return err(path, 'an mcp operation needs `tool`');
    if (driver === 'http' && !op.url && !merged.base_url && !merged.url) return err(path, 'an http operation needs `url`, or `base_url`/`url` on the adapter');
    if (driver === 'command' && !op.command && !merged.command) return err(path, 'a command operation needs `command` (here or on the adapter)');
    if (op.items && op.split) return err([...path, 'split'], '`items` and `split` exclude each other');
    if (op.owns && opName !== 'read') return err([...path, 'owns'], 'only a read operation owns URI prefixes');
    return undefined;
  };
  for (const [opName, op] of Object.entries(ops)) {
    const e = checkOp(['ops', opName], op, opName);
    if (e) return e;
  }
  const on = (merged.on ?? []) as { op: string }[];
  for (let i = 0; i < on.length; i++) if (!(on[i]!.op in ops)) return err(['on', i, 'op'], `\`${on[i]!.op}\` is not an operation of this adapter (${Object.keys(ops).join(', ') || 'none'})`);
  const tools = (merged.tools ?? []) as ToolConfig[];
  const seen = new Set<string>();
  for (let i = 0; i < tools.length; i++) {
    const t = tools[i]!;
    if (seen.has(t.name)) return err(['tools', i, 'name'], `tool \`${t.name}\` is declared twice`);
    seen.add(t.name);
    if (typeof t.op === 'string' && !(t.op in ops)) return err(['tools', i, 'op'], `\`${t.op}\` is not an operation of this adapter`);
    if (typeof t.op === 'object') { const e = checkOp(['tools', i, 'op'], t.op, 'tool'); if (e) return e; }
  }
  return undefined;
}

function withDefaults(name: string, merged: Record<string, unknown>): AdapterConfig {
  return {
    ...(merged as Partial<AdapterConfig>),
    name,
    driver: merged.driver as DriverName,
    enabled: (merged.enabled as boolean | undefined) ?? true,
    timeout_ms: (merged.timeout_ms as number | undefined) ?? DEFAULT_TIMEOUT_MS,
    weight: (merged.weight as number | undefined) ?? DEFAULT_WEIGHT,
    expose: (merged.expose as AdapterConfig['expose'] | undefined) ?? 'none',
    prefix: (merged.prefix as string | undefined) ?? `${name}_`,
    vars: (merged.vars as Record<string, string> | undefined) ?? {},
    ops: (merged.ops as AdapterConfig['ops'] | undefined) ?? {},
    on: (merged.on as AdapterConfig['on'] | undefined) ?? [],
    tools: (merged.tools as ToolConfig[] | undefined) ?? [],
  };
}

/** Reads, validates and merges every layer (see the header). Never throws for a config error. */
export function loadAdapterConfig(opts: LoadOptions): LoadedConfig {
  const errors: AdapterConfigError[] = [];
  const layers: ParsedLayer[] = [];
  if (opts.builtins) layers.push({ src: { kind: 'builtin', source: 'built-in defaults' }, adapters: opts.builtins });
  const userPath = opts.userConfigPath === undefined ? userConfigPath(opts.env) : opts.userConfigPath;
  if (userPath) { const l = readTomlLayer(userPath, { kind: 'user', source: userPath }, errors); if (l) layers.push(l); }
  if (opts.settings !== undefined) {
    if (isPlainObject(opts.settings)) layers.push({ src: { kind: 'settings', source: 'settings sightline.adapters' }, adapters: opts.settings });
    else errors.push(new AdapterConfigError('settings sightline.adapters', undefined, undefined, 'sightline.adapters', 'must be an object of adapters'));
  }
  const repoFiles: RepoLayerText[] = [];
  for (const root of opts.roots) {
    const path = repoConfigPath(root);
    const before = errors.length;
    const l = readTomlLayer(path, { kind: 'repo', source: path, root: resolve(root) }, errors);
    if (!l) continue;
    const parseError = errors.length > before && errors[errors.length - 1]!.field === '' ? errors[errors.length - 1] : undefined;
    repoFiles.push({ root: resolve(root), path, adapters: parseError ? undefined : l.adapters, parseError });
    layers.push(l);
  }

  const merged = new Map<string, { value: Record<string, unknown>; layers: LayerSource[]; lastSet: Map<string, ParsedLayer>; bad?: boolean }>();
  for (const layer of layers) {
    for (const [name, value] of Object.entries(layer.adapters)) {
      let m = merged.get(name);
      if (!m) { m = { value: {}, layers: [], lastSet: new Map() }; merged.set(name, m); }
      m.layers.push(layer.src);
      if (!isPlainObject(value)) {
        errors.push(new AdapterConfigError(layer.src.source, layer.text !== undefined ? lineOfKey(layer.text, ['adapters', name]) : undefined, undefined, `adapters.${name}`, 'must be a table', name));
        m.bad = true;
        continue;
      }
      const r = validateLayer(layer, name, value);
      if ('error' in r) { errors.push(r.error); m.bad = true; continue; }
      mergeLayer(m.value, r.ok);
      for (const k of Object.keys(r.ok)) m.lastSet.set(k, layer);
      m.lastSet.set('', layer);
    }
  }

  const adapters = new Map<string, LoadedAdapter>();
  for (const [name, m] of merged) {
    if (m.bad) continue;
    const e = checkMerged(name, m.value, m.lastSet);
    if (e) { errors.push(e); continue; }
    const repoLayers = m.layers.filter(l => l.kind === 'repo');
    adapters.set(name, { name, config: withDefaults(name, m.value), layers: m.layers, fromRepo: repoLayers.length > 0, repoRoot: repoLayers[repoLayers.length - 1]?.root });
  }
  return { adapters, errors, repoFiles };
}
