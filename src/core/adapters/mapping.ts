/**
 * Result mapping: from an adapter's payload to result items (search, code, history) or a text answer
 * (read, brief, llm, store receipts). Pure.
 *
 * Rules:
 * 1. Payload: an MCP result becomes its `structuredContent`, else its text content parsed as JSON when it
 *    parses, else the text (`mcpPayload`); http and command answers were parsed by format.ts.
 * 2. Items: `items` selects a list with the path language (`a.b`, `a[0]`, `a[*]`, `result.*[*]`; `*` is
 *    every value of an object, `[*]` every element; a path without wildcards that ends on an array yields its
 *    elements, on another value that one value); else `split` cuts a text answer at lines starting with a
 *    prefix (each piece `{ title, text, raw }`: the rest of its first line, the lines after it, the whole
 *    piece; text before the first prefix is dropped); else a top-level array; else the first array under
 *    results, items, hits, data, matches, entries, memories, documents; else the whole payload is one item
 *    (null or an empty text: no item). `where` then keeps the items whose fields equal the given values
 *    (compared as strings, so TOML `1` matches JSON `"1"`).
 * 3. Fields: `map.<field>` is a path, alternatives `a|b` (the first that is set and non-empty), `re:<regex>`
 *    (the first capture group, or the whole match, applied to the item's text: a text item itself, an
 *    object's `text` or `raw` string, else the item as JSON), `tpl:<template>` (rendered
 *    against the item, e.g. `tpl:notes://{{id}}`), or `=literal`. A field not mapped falls back to the
 *    usual names (FALLBACKS). `title` is always set (else uri,
 *    `path:line`, the first line of the snippet, or `<adapter> result N`); an `items` path the answer does not
 *    have is a MappingError (`malformed`), never a silent empty list; `score` is a number or absent; `line` an integer or absent; `raw` is the
 *    item as sent when it is an object or array (what a declared tool or a surface may show).
 * 4. Text: `text` is a path into the payload; without it a text payload is the answer, an object's
 *    text/content/result/markdown/message/answer/output field if a string, else the payload as JSON.
 */
import { render, TemplateError } from './templates';
import type { OpConfig } from './config';

export interface AdapterItem {
  title: string;
  snippet?: string;
  uri?: string;
  score?: number;
  kind?: string;
  date?: string;
  path?: string;
  line?: number;
  /** the item as the peer sent it (objects and arrays only) */
  raw?: unknown;
  /** any other mapped field */
  [field: string]: unknown;
}

export class MappingError extends Error {
  constructor(message: string) { super(message); this.name = 'MappingError'; }
}

// ------------------------------------------------------------------------------------------ path language

type Seg = { key: string } | { index: number } | { all: 'values' | 'elements' };

export function parsePath(path: string): Seg[] {
  const segs: Seg[] = [];
  const re = /\s*(?:\[(\*|\d+)\]|\.?([^.[\]]+))/gy;
  let m: RegExpExecArray | null;
  let pos = 0;
  while (pos < path.length && (m = re.exec(path))) {
    pos = re.lastIndex;
    if (m[1] !== undefined) segs.push(m[1] === '*' ? { all: 'elements' } : { index: Number(m[1]) });
    else if (m[2] === '*') segs.push({ all: 'values' });
    else segs.push({ key: m[2]!.trim() });
  }
  if (pos < path.length) throw new MappingError(`cannot read the path \`${path}\` at ${path.slice(pos)}`);
  return segs;
}

/** Every value the path reaches; `wild` tells whether a wildcard was used. */
export function selectPath(value: unknown, path: string): { values: unknown[]; wild: boolean } {
  const segs = parsePath(path);
  let cur: unknown[] = [value];
  let wild = false;
  for (const s of segs) {
    const next: unknown[] = [];
    for (const v of cur) {
      if (v === null || v === undefined) continue;
      if ('key' in s) {
        if (typeof v === 'object' && !Array.isArray(v) && Object.prototype.hasOwnProperty.call(v, s.key)) next.push((v as Record<string, unknown>)[s.key]);
        else if (Array.isArray(v) && /^\d+$/.test(s.key)) next.push(v[Number(s.key)]);
      } else if ('index' in s) {
        if (Array.isArray(v)) next.push(v[s.index]);
      } else {
        wild = true;
        if (Array.isArray(v)) next.push(...v);
        else if (typeof v === 'object' && s.all === 'values') next.push(...Object.values(v as object));
      }
    }
    cur = next.filter(x => x !== undefined);
  }
  return { values: cur, wild };
}

/** One value at a path (the first reached), or undefined. */
export function getPath(value: unknown, path: string): unknown {
  return selectPath(value, path).values[0];
}

// --------------------------------------------------------------------------------------------- items

export const DEFAULT_LIST_KEYS = ['results', 'items', 'hits', 'data', 'matches', 'entries', 'memories', 'documents'] as const;

export function splitText(text: string, prefix: string): { title: string; text: string; raw: string }[] {
  const out: { title: string; text: string; raw: string }[] = [];
  let cur: string[] | undefined;
  const flush = () => {
    if (!cur) return;
    const first = cur[0]!;
    out.push({ title: first.slice(prefix.length).trim(), text: cur.slice(1).join('\n').trim(), raw: cur.join('\n').trimEnd() });
  };
  for (const line of text.split(/\r?\n/)) {
    if (line.startsWith(prefix)) { flush(); cur = [line]; } else if (cur) cur.push(line);
  }
  flush();
  return out;
}

function asText(payload: unknown): string {
  if (typeof payload === 'string') return payload;
  if (Array.isArray(payload) && payload.every(x => typeof x === 'string')) return payload.join('\n');
  return JSON.stringify(payload, null, 2);
}

/** Step 2: the raw items of a payload (before `map`). */
export function selectItems(payload: unknown, op: Pick<OpConfig, 'items' | 'split' | 'where'>): unknown[] {
  let items: unknown[];
  if (op.items) {
    const { values, wild } = selectPath(payload, op.items);
    if (!values.length) {
      const first = parsePath(op.items)[0];
      const head = first && 'key' in first ? selectPath(payload, first.key).values : [payload];
      if (!head.length || !wild) throw new MappingError(`items: the answer has no \`${op.items}\``);
    }
    items = !wild && values.length === 1 && Array.isArray(values[0]) ? values[0] : values;
  } else if (op.split) {
    items = payload === null || payload === undefined ? [] : splitText(asText(payload), op.split);
  } else if (Array.isArray(payload)) items = payload;
  else if (payload && typeof payload === 'object') {
    const key = DEFAULT_LIST_KEYS.find(k => Array.isArray((payload as Record<string, unknown>)[k]));
    items = key ? (payload as Record<string, unknown[]>)[key]! : [payload];
  } else if (payload === null || payload === undefined || (typeof payload === 'string' && !payload.trim())) items = [];
  else items = [payload];
  if (op.where) {
    const conds = Object.entries(op.where);
    items = items.filter(it => conds.every(([path, want]) => {
      const v = getPath(it, path);
      return v !== undefined && v !== null && String(v) === String(want);
    }));
  }
  return items;
}

// -------------------------------------------------------------------------------------------- fields

export const FALLBACKS: Record<string, readonly string[]> = {
  title: ['title', 'name', 'label', 'subject', 'heading', 'summary_title', 'symbol', 'file', 'path'],
  snippet: ['snippet', 'abstract', 'summary', 'content', 'text', 'body', 'description', 'excerpt', 'preview', 'match', 'lines', 'markdown'],
  uri: ['uri', 'url', 'path', 'link', 'href', 'file', 'file_path', 'filepath', 'permalink', 'web_url', 'html_url'],
  score: ['score', 'relevance', 'rank', 'similarity', '_score', 'confidence'],
  kind: ['kind', 'type', 'category'],
  date: ['date', 'created_at', 'updated_at', 'timestamp', 'time', 'created', 'updated', 'modified'],
  path: ['path', 'file', 'file_path', 'filepath', 'relative_path'],
  line: ['line', 'line_number', 'lineno', 'start_line', 'line_start'],
};

const present = (v: unknown) => v !== undefined && v !== null && v !== '';

function itemText(item: unknown): string {
  if (typeof item === 'string') return item;
  if (item && typeof item === 'object') {
    const o = item as Record<string, unknown>;
    for (const k of ['text', 'raw']) if (typeof o[k] === 'string') return o[k] as string;
  }
  return JSON.stringify(item);
}

/** One `map` spec against an item. */
export function mapField(item: unknown, spec: string, field: string): unknown {
  if (spec.startsWith('=')) return spec.slice(1);
  if (spec.startsWith('re:')) {
    let re: RegExp;
    try { re = new RegExp(spec.slice(3), 'm'); } catch (e) { throw new MappingError(`map.${field}: \`${spec}\` is not a regular expression (${(e as Error).message})`); }
    const m = re.exec(itemText(item));
    return m ? (m[1] ?? m[0]) : undefined;
  }
  if (spec.startsWith('tpl:')) {
    const scope = item && typeof item === 'object' && !Array.isArray(item) ? { ...(item as object), item } : { item, text: itemText(item) };
    try { return render(spec.slice(4), { scope }, `map.${field}`); } catch (e) { if (e instanceof TemplateError) return undefined; throw e; }
  }
  for (const alt of spec.split('|')) {
    const v = getPath(item, alt.trim());
    if (present(v)) return v;
  }
  return undefined;
}

function scalar(v: unknown): string | undefined {
  if (!present(v)) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v) && v.every(x => typeof x === 'string')) return v.join('\n');
  if (v && typeof v === 'object' && typeof (v as { text?: unknown }).text === 'string') return (v as { text: string }).text; // e.g. rg's {"text": …}
  return JSON.stringify(v);
}

/** Step 3: one item's result fields. */
export function mapItem(raw: unknown, map: Record<string, string> | undefined, n: number, adapter: string): AdapterItem {
  const out: Record<string, unknown> = {};
  const fields = new Set([...Object.keys(FALLBACKS), ...Object.keys(map ?? {})]);
  for (const f of fields) {
    let v: unknown;
    if (map?.[f]) v = mapField(raw, map[f]!, f);
    else if (typeof raw === 'string') v = f === 'snippet' ? raw : undefined;
    else if (raw && typeof raw === 'object') v = (FALLBACKS[f] ?? [f]).map(k => (raw as Record<string, unknown>)[k]).find(present);
    if (!present(v)) continue;
    if (f === 'score') { const x = typeof v === 'number' ? v : Number(v); if (Number.isFinite(x)) out.score = x; continue; }
    if (f === 'line') { const x = typeof v === 'number' ? v : parseInt(String(v), 10); if (Number.isInteger(x)) out.line = x; continue; }
    out[f] = FALLBACKS[f] ? scalar(v) : v;
  }
  if (!present(out.title)) {
    const first = typeof out.snippet === 'string' ? out.snippet.split('\n').find(l => l.trim()) : undefined;
    const at = typeof out.path === 'string' ? `${out.path}${typeof out.line === 'number' ? `:${out.line}` : ''}` : undefined;
    out.title = (out.uri as string | undefined) ?? at ?? (first ? first.trim().slice(0, 120) : `${adapter} result ${n + 1}`);
  }
  if (raw && typeof raw === 'object') out.raw = raw;
  return out as AdapterItem;
}

/** Steps 2 and 3. */
export function mapItems(payload: unknown, op: OpConfig, adapter: string): AdapterItem[] {
  return selectItems(payload, op).map((it, i) => mapItem(it, op.map, i, adapter));
}

/** Step 4: a text answer. */
export function mapText(payload: unknown, op: Pick<OpConfig, 'text'>): string {
  if (op.text) {
    const v = getPath(payload, op.text);
    if (v === undefined) throw new MappingError(`text: the answer has no \`${op.text}\``);
    return typeof v === 'string' ? v : JSON.stringify(v, null, 2);
  }
  if (payload === null || payload === undefined) return '';
  if (typeof payload === 'string') return payload;
  if (typeof payload === 'object' && !Array.isArray(payload)) {
    for (const k of ['text', 'content', 'result', 'markdown', 'message', 'answer', 'output']) {
      const v = (payload as Record<string, unknown>)[k];
      if (typeof v === 'string') return v;
    }
  }
  return asText(payload);
}

/** Step 1 for MCP: a tools/call result → payload. */
export function mcpPayload(result: { structuredContent?: unknown; content?: unknown }): unknown {
  if (result.structuredContent !== undefined && result.structuredContent !== null) return result.structuredContent;
  const parts = Array.isArray(result.content) ? result.content : [];
  const text = parts.filter((p): p is { type: 'text'; text: string } => !!p && (p as { type?: unknown }).type === 'text' && typeof (p as { text?: unknown }).text === 'string').map(p => p.text).join('\n');
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) { try { return JSON.parse(trimmed); } catch { /* text */ } }
  return text;
}
