/**
 * The tool contract every tool is written against: one definition (name, descriptions, input and output
 * schema, handler, Markdown rendering), one error shape, one pagination scheme, one parameter accessor.
 * Surfaces (MCP, language-model tools, CLI) only translate; they add no behaviour.
 */
import { z } from 'zod';
import type { ToolServices } from './services';
import { SightlineError, toErrorShape, type ErrorShape } from '../errors';

export interface ToolContext {
  /** the services tools call (services.ts); surfaces pass the Engine */
  engine: ToolServices;
  signal?: AbortSignal;
  /** progress for long work (indexing): surfaces show it (notification, stderr, MCP progress) */
  onProgress?: (message: string, done?: number, total?: number) => void;
  /** the surface's Markdown budget in characters (invokeTool sets it): a tool that fits its own answer (overview) stays within it */
  max_chars?: number;
}

/**
 * How much an answer may take. The Markdown stays within max_chars (default DEFAULT_MAX_CHARS, about
 * 6k tokens); the structured JSON within twice that (JSON spends more characters on the same items),
 * trimmed from the end of its lists so that truncated and next_offset stay true.
 */
export interface RenderBudget { max_chars?: number }
export const DEFAULT_MAX_CHARS = 24_000;
/** The one token estimate: characters / 4. */
export const CHARS_PER_TOKEN = 4;
export const estimateTokens = (text: string) => Math.ceil(text.length / CHARS_PER_TOKEN);
export const jsonBudget = (b: RenderBudget) => 2 * (b.max_chars ?? DEFAULT_MAX_CHARS);

export interface ToolAnnotations { read_only: boolean; destructive: boolean; idempotent: boolean; open_world: boolean }

export interface ToolDef<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** Model-facing description; safety-relevant sentences stay in it. */
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  /** Example arguments (documentation and contract tests; together they read every parameter). */
  examples: z.input<I>[];
  run(args: z.output<I>, ctx: ToolContext): Promise<z.output<O>>;
  /** Former parameter names still accepted for one release (old → new); an answer using one says so. */
  renamed?: Readonly<Record<string, string>>;
  /** The output field holding the paged list (offset/next_offset apply to it), if any. */
  paged?: (keyof z.output<O> & string) | ((out: z.output<O>) => keyof z.output<O> & string);
  render(result: z.output<O>, budget: RenderBudget): string;
}

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(def: ToolDef<I, O>): ToolDef<I, O> {
  return def;
}

// ---- pagination ------------------------------------------------------------------------------------
export const PAGE_DEFAULT_LIMIT = 10;
/** The one limit policy: any tool pages up to this many items; each picks its default page size. */
export const PAGE_MAX_LIMIT = 500;

export function pageInput(defaultLimit = PAGE_DEFAULT_LIMIT) {
  return {
    limit: z.number().int().min(1).max(PAGE_MAX_LIMIT).default(defaultLimit).describe('Page size.'),
    offset: z.number().int().min(0).max(1_000_000).default(0).describe('Items to skip: the previous answer\'s next_offset.'),
  };
}

export const pageOutput = {
  total: z.number().int().describe('Number of items available in all pages.'),
  offset: z.number().int().describe('Offset of the first item returned.'),
  limit: z.number().int().describe('Page size that was applied.'),
  truncated: z.boolean().describe('True when more items exist after this page.'),
  next_offset: z.number().int().nullable().describe('Offset to pass for the next page, or null when this is the last page.'),
};

export interface Page { total: number; offset: number; limit: number; truncated: boolean; next_offset: number | null }

export function page(total: number, offset: number, limit: number, returned: number): Page {
  const end = offset + returned;
  const truncated = end < total;
  return { total, offset, limit, truncated, next_offset: truncated ? end : null };
}

/** The one truncation notice, used by every tool that pages. */
export function pageNotice(p: Page, what = 'results'): string {
  if (p.total === 0) return '';
  const first = Math.min(p.offset + 1, p.total);
  const last = p.next_offset ?? p.total;
  // what is plural (results, files, memories): one item takes the singular
  if (!p.truncated && p.offset === 0) return p.total === 1 ? `_1 ${what.endsWith('ies') ? `${what.slice(0, -3)}y` : what.replace(/s$/, '')}._` : `_${p.total} ${what}._`;
  return `_Showing ${first}–${last} of ${p.total} ${what}.${p.truncated ? ` Call again with offset=${p.next_offset} for more.` : ''}_`;
}

// ---- markdown --------------------------------------------------------------------------------------
/** `1 memory`, `2 memories`: a count with the word in the right number. */
export function plural(n: number, one: string, many: string): string { return `${n} ${n === 1 ? one : many}`; }

export function mdEscape(text: string): string {
  return text.replace(/([\\`*_[\]|<>])/g, '\\$1').replace(/\r?\n/g, ' ');
}

export function code(text: string): string {
  const t = text.replace(/\r?\n/g, ' ');
  return t.includes('`') ? `\`\` ${t} \`\`` : `\`${t}\``;
}

export function mdTable(headers: string[], rows: string[][]): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
  return [`| ${headers.map(cell).join(' | ')} |`, `| ${headers.map(() => '---').join(' | ')} |`, ...rows.map(r => `| ${r.map(cell).join(' | ')} |`)].join('\n');
}

/**
 * Renders a header, items in priority order, and a footer within a character budget: whole items at
 * the end are dropped first (never cut mid-line), and the reader is told how many were left out.
 */
export function budgeted(header: string, items: string[], footer: string, budget: RenderBudget): string {
  const max = budget.max_chars ?? Infinity;
  const out: string[] = [header];
  let used = header.length + footer.length + 2;
  let shown = 0;
  for (const item of items) {
    if (used + item.length + 1 > max && shown > 0) break;
    out.push(item); used += item.length + 1; shown++;
  }
  if (shown < items.length) out.push(`_${items.length - shown} more item(s) left out to fit the token budget; lower limit or page with offset._`);
  if (footer) out.push(footer);
  return out.join('\n');
}

// ---- invocation ------------------------------------------------------------------------------------
export type ToolOutcome =
  | { ok: true; data: Record<string, unknown>; markdown: string }
  | ({ ok: false; markdown: string } & ErrorShape);

/** Records which declared parameters a handler read (contract tests compare it with the schema). */
export const parameterReads = new Map<string, Set<string>>();

/**
 * The one accessor through which a handler sees its parameters: the schema-validated object, wrapped
 * so that reads are recorded and reads of undeclared names fail loudly.
 */
export function accessor<T extends object>(tool: string, declared: readonly string[], values: T): T {
  const reads = parameterReads.get(tool) ?? new Set<string>();
  parameterReads.set(tool, reads);
  return new Proxy(values, {
    get(target, prop, receiver) {
      if (typeof prop === 'string' && prop !== 'then' && prop !== 'toJSON') {
        if (!declared.includes(prop)) throw new SightlineError('internal_error', `tool ${tool} read undeclared parameter "${prop}"`);
        reads.add(prop);
      }
      return Reflect.get(target, prop, receiver);
    },
  });
}

function formatIssues(error: z.ZodError): { message: string; issues: { path: string; message: string }[] } {
  const issues = error.issues.map(i => ({ path: i.path.join('.') || '(arguments)', message: i.message }));
  return { message: issues.map(i => `${i.path}: ${i.message}`).join('; '), issues };
}

export function renderError(tool: string, e: ErrorShape): string {
  return `**${tool} failed** (${e.error.code}): ${e.error.message}`;
}

/** Arguments under a former name moved to the current one (both given: invalid), with a notice each. */
function applyRenames(def: ToolDef, args: Record<string, unknown>): { args: Record<string, unknown>; notices: string[] } {
  const notices: string[] = [];
  if (!def.renamed) return { args, notices };
  const out = { ...args };
  for (const [old, now] of Object.entries(def.renamed)) {
    if (!(old in out)) continue;
    if (now in out) throw new SightlineError('invalid_arguments', `give ${now} only: ${old} is its former name`);
    out[now] = out[old];
    delete out[old];
    notices.push(`⚠ \`${old}\` is the former name of \`${now}\`; it is accepted in this release only.`);
  }
  return { args: out, notices };
}

export async function invokeTool(def: ToolDef, rawArgs: unknown, ctx: ToolContext, budget: RenderBudget = {}): Promise<ToolOutcome> {
  try {
    if (rawArgs !== undefined && rawArgs !== null && (typeof rawArgs !== 'object' || Array.isArray(rawArgs))) {
      throw new SightlineError('invalid_arguments', `arguments of ${def.name} must be a JSON object`);
    }
    const { args, notices } = applyRenames(def, (rawArgs ?? {}) as Record<string, unknown>);
    const parsed = def.input.strict().safeParse(args);
    if (!parsed.success) {
      const f = formatIssues(parsed.error);
      throw new SightlineError('invalid_arguments', `invalid arguments for ${def.name}: ${f.message}`, { issues: f.issues });
    }
    const declared = Object.keys(def.input.shape);
    const full = await def.run(accessor(def.name, declared, parsed.data as object) as never, { ...ctx, max_chars: budget.max_chars ?? DEFAULT_MAX_CHARS }) as Record<string, unknown>;
    const { data, markdown } = fitAnswer(def, full, budget);
    return { ok: true, data, markdown: notices.length ? `${markdown}\n${notices.join('\n')}` : markdown };
  } catch (e) {
    const shape = toErrorShape(e);
    return { ok: false, ...shape, markdown: renderError(def.name, shape) };
  }
}

/** The structured answer within its budget and the Markdown rendered from it (so paging agrees). */
function fitAnswer(def: ToolDef, full: Record<string, unknown>, budget: RenderBudget): { data: Record<string, unknown>; markdown: string } {
  const paged = typeof def.paged === 'function' ? def.paged(full as never) : def.paged;
  const data = fitJson(full, jsonBudget(budget), paged);
  return { data, markdown: def.render(data as never, { max_chars: budget.max_chars ?? DEFAULT_MAX_CHARS }) };
}

/**
 * Fits a tool's structured answer into maxChars: items are dropped from the end of its largest lists
 * (never from scalars), `truncated` becomes true, and when the paged list is cut its `next_offset`
 * points at the first item left out, so paging resumes exactly there.
 */
export function fitJson(data: Record<string, unknown>, maxChars: number, paged?: string): Record<string, unknown> {
  let size = JSON.stringify(data).length;
  if (size <= maxChars) return data;
  const out: Record<string, unknown> = { ...data };
  // Each list item's serialised length, measured once: the sizes below are kept by arithmetic.
  const lens = new Map<string, number[]>();
  for (const [k, v] of Object.entries(out)) if (Array.isArray(v) && v.length) { lens.set(k, v.map(x => JSON.stringify(x)?.length ?? 4)); out[k] = v.slice(); }
  const listSize = (k: string) => { const l = lens.get(k)!; const n = (out[k] as unknown[]).length; let s = 2 + Math.max(0, n - 1); for (let i = 0; i < n; i++) s += l[i]!; return s; };
  const cut = new Set<string>();
  // The side lists go first, down to a few items each; then the paged list; then whatever is left.
  const stages: { fields: (k: string) => boolean; floor: number }[] = [
    { fields: k => k !== paged, floor: 10 }, { fields: k => k === paged, floor: 1 }, { fields: () => true, floor: 0 },
  ];
  for (const stage of stages) {
    while (size > maxChars) {
      const lists = [...lens.keys()].filter(k => (out[k] as unknown[]).length > stage.floor && stage.fields(k))
        .map(k => ({ k, s: listSize(k) })).sort((a, b) => b.s - a.s);
      if (!lists.length) break;
      const { k } = lists[0]!; const below = lists[1]?.s ?? 0;
      const list = out[k] as unknown[]; const l = lens.get(k)!;
      // Shed the excess from this list, but not below the next-largest one (they shrink in turn).
      let listSize0 = lists[0]!.s;
      while (list.length > stage.floor && size > maxChars && listSize0 >= below) {
        const n = l[list.length - 1]! + (list.length > 1 ? 1 : 0);
        list.pop(); size -= n; listSize0 -= n;
      }
      cut.add(k);
    }
  }
  if ('truncated' in out) out.truncated = true;
  if (paged && cut.has(paged) && 'next_offset' in out && typeof out.offset === 'number') {
    out.next_offset = out.offset + (out[paged] as unknown[]).length;
  }
  return out;
}

/** JSON Schema (draft 2020-12 subset) of a zod object, as MCP and VS Code expect it. */
export function jsonSchema(schema: z.ZodObject, io: 'input' | 'output'): Record<string, unknown> {
  const s = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete s.$schema;
  return s;
}
