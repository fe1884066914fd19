/**
 * MCP argument binding: when an mcp operation has no `args`, its tool's input schema is read and the
 * parameters are filled by name. Pure.
 *
 * Rules:
 * - Roles and the parameter names tried for each, in order (ROLE_NAMES); a name matches exactly first,
 *   then case-insensitively. A parameter is bound to at most one role (roles are taken in ROLES_BY_OP's
 *   order, the op's main role first).
 *   - query (search, code, brief) → the query; target (history) → a path, path:line, SHA or topic;
 *     uri (read) → the URI; content (store) → the record as Markdown; title, tags (store);
 *     limit → the limit; project → the repository root; prompt (llm) → the prompt.
 * - A role whose input is absent binds nothing.
 * - A required string parameter that nothing matched gets the main value (query, target, uri, content or
 *   prompt).
 * - Values are converted to the parameter's JSON type: integer (truncated), number, boolean, string
 *   (arrays joined with `, `), array (a string split at commas; a scalar wrapped); `type` may be a list or
 *   sit in anyOf/oneOf (the first that is not null).
 */
import type { OpName } from './config';

export type Role = 'query' | 'target' | 'uri' | 'content' | 'title' | 'tags' | 'limit' | 'project' | 'prompt';

export const ROLE_NAMES: Record<Role, readonly string[]> = {
  query: ['query', 'q', 'search', 'search_query', 'text', 'pattern', 'substring_pattern', 'keyword', 'keywords', 'term', 'question', 'topic', 'name_path_pattern', 'name_path', 'symbol', 'symbol_name', 'name', 'input', 'prompt'],
  target: ['target', 'path', 'file', 'file_path', 'filepath', 'relative_path', 'commit', 'query', 'q', 'text'],
  uri: ['uri', 'url', 'path', 'id', 'resource', 'name'],
  content: ['content', 'text', 'memory', 'body', 'markdown', 'message', 'data', 'note'],
  title: ['title', 'subject', 'name', 'key'],
  tags: ['tags', 'labels', 'categories'],
  limit: ['limit', 'max_results', 'top_k', 'k', 'n', 'count', 'max', 'num_results', 'size', 'maxFiles'],
  project: ['projectPath', 'project_path', 'project', 'repo', 'repository', 'cwd', 'root', 'workspace', 'directory'],
  prompt: ['prompt', 'input', 'message', 'text', 'query'],
};

/** The roles an op binds, main role first. */
export const ROLES_BY_OP: Record<OpName, readonly Role[]> = {
  search: ['query', 'limit', 'project'],
  code: ['query', 'limit', 'project'],
  brief: ['query', 'limit', 'project'],
  history: ['target', 'limit', 'project'],
  read: ['uri', 'project'],
  store: ['content', 'title', 'tags', 'project'],
  llm: ['prompt', 'project'],
};

/** The input each role reads. */
export interface BindingInputs {
  query?: string; target?: string; uri?: string; content?: string; title?: string; tags?: string[] | string;
  limit?: number; project?: string; prompt?: string;
}

export interface JsonSchemaLike { type?: unknown; properties?: Record<string, unknown>; required?: unknown; anyOf?: unknown; oneOf?: unknown; items?: unknown }

export function schemaType(prop: unknown): string | undefined {
  if (!prop || typeof prop !== 'object') return undefined;
  const p = prop as JsonSchemaLike;
  if (typeof p.type === 'string') return p.type;
  if (Array.isArray(p.type)) return p.type.find(t => t !== 'null') as string | undefined;
  for (const alt of [p.anyOf, p.oneOf]) {
    if (Array.isArray(alt)) for (const a of alt) { const t = schemaType(a); if (t && t !== 'null') return t; }
  }
  return undefined;
}

/** Converts a value to a JSON type; undefined when it cannot be (e.g. "abc" as integer). */
export function convert(value: unknown, type: string | undefined): unknown {
  if (value === undefined || value === null) return undefined;
  switch (type) {
    case 'integer': { const n = typeof value === 'number' ? value : Number(Array.isArray(value) ? value[0] : value); return Number.isFinite(n) ? Math.trunc(n) : undefined; }
    case 'number': { const n = typeof value === 'number' ? value : Number(Array.isArray(value) ? value[0] : value); return Number.isFinite(n) ? n : undefined; }
    case 'boolean': return typeof value === 'boolean' ? value : typeof value === 'string' ? !/^(false|0|no|off|)$/i.test(value.trim()) : Boolean(value);
    case 'string': return Array.isArray(value) ? value.map(String).join(', ') : typeof value === 'object' ? JSON.stringify(value) : String(value);
    case 'array': return Array.isArray(value) ? value : typeof value === 'string' ? value.split(',').map(s => s.trim()).filter(Boolean) : [value];
    default: return value;
  }
}

export interface BindingResult {
  args: Record<string, unknown>;
  /** parameter → role (or `main` for a required string given the main value) */
  bound: Record<string, Role | 'main'>;
  /** required parameters left unbound (the peer will likely refuse) */
  missing: string[];
}

export function bindArguments(op: OpName, schema: JsonSchemaLike | undefined, inputs: BindingInputs): BindingResult {
  const props = (schema?.properties && typeof schema.properties === 'object' ? schema.properties : {}) as Record<string, unknown>;
  const names = Object.keys(props);
  const required = Array.isArray(schema?.required) ? (schema!.required as unknown[]).filter((x): x is string => typeof x === 'string') : [];
  const roles = ROLES_BY_OP[op];
  const main = roles[0]!;
  const args: Record<string, unknown> = {};
  const bound: Record<string, Role | 'main'> = {};
  const taken = new Set<string>();
  const find = (role: Role): string | undefined => {
    for (const n of ROLE_NAMES[role]) if (names.includes(n) && !taken.has(n)) return n;
    for (const n of ROLE_NAMES[role]) { const hit = names.find(x => x.toLowerCase() === n.toLowerCase() && !taken.has(x)); if (hit) return hit; }
    return undefined;
  };
  for (const role of roles) {
    const value = (inputs as Record<string, unknown>)[role];
    if (value === undefined || value === null || value === '') continue;
    const name = find(role);
    if (!name) continue;
    const v = convert(value, schemaType(props[name]));
    if (v === undefined) continue;
    args[name] = v; bound[name] = role; taken.add(name);
  }
  const mainValue = (inputs as Record<string, unknown>)[main];
  const missing: string[] = [];
  for (const r of required) {
    if (r in args) continue;
    const t = schemaType(props[r]);
    if ((t === 'string' || t === undefined) && mainValue !== undefined && mainValue !== '') { args[r] = convert(mainValue, 'string'); bound[r] = 'main'; }
    else missing.push(r);
  }
  return { args, bound, missing };
}
