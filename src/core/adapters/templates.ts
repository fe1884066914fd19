/**
 * Templates: every string field of an adapter is one.
 *
 * Rules:
 * - `{{ name }}` or `{{ name | filter | filter:arg }}`; a name is a dotted path: `repo.id`, `repo.slug`,
 *   `repo.name`, `repo.dir`, `repo.root`, `repo.branch`, `repo.remote`, `project.name`, `vars.x`, `env.X`,
 *   `now.date` (YYYY-MM-DD, UTC), `now.iso`, `now.time`, and the operation's inputs (`query`, `limit`,
 *   `target`, `uri`, `content`, `title`, `tags`, `prompt`, `output_file`…, and `args.x` = the same inputs).
 *   A mapping template (`tpl:` in result mapping) is rendered against the item itself.
 * - `vars` are templates themselves, rendered lazily when referenced (a cycle is an error).
 * - An undefined (or null) variable is a `TemplateError` naming the variable and the field; never an empty
 *   string — except under `default:`, which also replaces an empty string.
 * - Filters: `urlencode`, `json`, `default:<text>` (the rest of the filter, colons included), `lower`,
 *   `upper`, `trim`, `slug` (lowercase, runs of other characters become `-`), `basename`, `first`
 *   (an array's first element), `join:<sep>` (an array joined, default `,`). An unknown filter is an error.
 * - A value that is one whole `{{x}}` keeps x's JSON type (a number stays a number in `args`/`body`);
 *   inside other text, values are stringified (objects and arrays as JSON, arrays with `join`).
 * - `renderDeep` renders every string of an object or array (keys stay as written).
 */
import { basename } from 'node:path';

export class TemplateError extends Error {
  constructor(readonly variable: string, readonly field: string, reason?: string) {
    super(reason ?? `undefined variable \`${variable}\` in ${field}`);
    this.name = 'TemplateError';
  }
}

export type Scope = Record<string, unknown>;

/** A template scope: plain values, with lazily rendered `vars`. */
export interface TemplateContext {
  scope: Scope;
  /** raw (unrendered) vars; rendered on use */
  vars?: Record<string, string>;
}

const TAG = /\{\{\s*([^{}]*?)\s*\}\}/g;
const WHOLE = /^\{\{\s*([^{}]*?)\s*\}\}$/;

export function hasTemplate(s: string): boolean { TAG.lastIndex = 0; return TAG.test(s); }

function lookup(ctx: TemplateContext, name: string, field: string, stack: string[]): unknown {
  const parts = name.split('.');
  if (parts[0] === 'vars' && parts.length >= 2 && ctx.vars && Object.prototype.hasOwnProperty.call(ctx.vars, parts[1]!)) {
    const key = parts[1]!;
    if (stack.includes(key)) throw new TemplateError(name, field, `vars cycle: ${[...stack, key].join(' → ')} in ${field}`);
    const v = renderWith(ctx.vars[key]!, ctx, `vars.${key}`, [...stack, key]);
    return dig(v, parts.slice(2));
  }
  return dig(ctx.scope, parts);
}

function dig(v: unknown, parts: string[]): unknown {
  let cur = v;
  for (const p of parts) {
    if (cur === null || cur === undefined) return undefined;
    if (Array.isArray(cur) && /^\d+$/.test(p)) cur = cur[Number(p)];
    else if (typeof cur === 'object') cur = Object.prototype.hasOwnProperty.call(cur, p) ? (cur as Record<string, unknown>)[p] : undefined;
    else return undefined;
  }
  return cur;
}

export function slugify(s: string): string {
  return s.toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
}

function stringify(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v instanceof Date) return v.toISOString();
  return JSON.stringify(v);
}

function applyFilter(v: unknown, filter: string, variable: string, field: string): unknown {
  const colon = filter.indexOf(':');
  const fname = (colon < 0 ? filter : filter.slice(0, colon)).trim();
  const arg = colon < 0 ? undefined : filter.slice(colon + 1);
  switch (fname) {
    case 'default': return v === undefined || v === null || v === '' ? (arg ?? '') : v;
    case 'urlencode': return encodeURIComponent(stringify(v));
    case 'json': return JSON.stringify(v);
    case 'lower': return stringify(v).toLowerCase();
    case 'upper': return stringify(v).toUpperCase();
    case 'trim': return stringify(v).trim();
    case 'slug': return slugify(stringify(v));
    case 'basename': return basename(stringify(v));
    case 'first': return Array.isArray(v) ? v[0] : v;
    case 'join': return Array.isArray(v) ? v.map(stringify).join(arg ?? ',') : stringify(v);
    default: throw new TemplateError(variable, field, `unknown filter \`${fname}\` in ${field} (filters: urlencode, json, default:, lower, upper, trim, slug, basename, first, join:)`);
  }
}

function evalExpr(expr: string, ctx: TemplateContext, field: string, stack: string[]): unknown {
  const [head, ...filters] = expr.split('|');
  const name = head!.trim();
  if (!name) throw new TemplateError('', field, `empty {{ }} in ${field}`);
  let v = lookup(ctx, name, field, stack);
  const hasDefault = filters.some(f => f.trim().startsWith('default'));
  for (const f of filters) {
    if ((v === undefined || v === null) && !f.trim().startsWith('default')) {
      if (hasDefault) continue; // a later default: supplies the value
      throw new TemplateError(name, field);
    }
    v = applyFilter(v, f, name, field);
  }
  if (v === undefined || v === null) throw new TemplateError(name, field);
  return v;
}

function renderWith(template: string, ctx: TemplateContext, field: string, stack: string[]): unknown {
  const whole = WHOLE.exec(template);
  if (whole) return evalExpr(whole[1]!, ctx, field, stack);
  return template.replace(TAG, (_m, expr: string) => stringify(evalExpr(expr, ctx, field, stack)));
}

/** Renders one string field; a whole `{{x}}` keeps x's type. Throws TemplateError. */
export function render(template: string, ctx: TemplateContext, field: string): unknown {
  return renderWith(template, ctx, field, []);
}

/** Renders one string field to a string. */
export function renderString(template: string, ctx: TemplateContext, field: string): string {
  return stringify(render(template, ctx, field));
}

/** Renders every string of a value (objects, arrays), keeping non-string leaves as they are. */
export function renderDeep(value: unknown, ctx: TemplateContext, field: string): unknown {
  if (typeof value === 'string') return render(value, ctx, field);
  if (Array.isArray(value)) return value.map((v, i) => renderDeep(v, ctx, `${field}[${i}]`));
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = renderDeep(v, ctx, `${field}.${k}`);
    return out;
  }
  return value;
}

/** A context with more scope values on top (inputs, output_file, an item). */
export function extend(ctx: TemplateContext, more: Scope): TemplateContext {
  return { scope: { ...ctx.scope, ...more }, vars: ctx.vars };
}

/** The repository part of a template scope. */
export interface RepoVars { id: string; slug: string; name: string; dir: string; root: string; branch?: string; remote?: string }

export function nowVars(now: Date): Record<string, string> {
  const iso = now.toISOString();
  return { date: iso.slice(0, 10), time: iso.slice(11, 19), iso };
}

/** The base scope of an adapter: repo, project, env, now (inputs are added per call). */
export function baseContext(o: { repo: RepoVars; projectName: string; env: NodeJS.ProcessEnv; vars?: Record<string, string>; now?: Date }): TemplateContext {
  const repo: Record<string, unknown> = { ...o.repo };
  for (const k of Object.keys(repo)) if (repo[k] === undefined) delete repo[k];
  return { scope: { repo, project: { name: o.projectName }, env: { ...o.env }, now: nowVars(o.now ?? new Date()) }, vars: o.vars };
}
