/**
 * The tools adapters publish on every surface, apart from the first-party registry (and its golden
 * list): tools an adapter declares (`[[adapters.<n>.tools]]`) and an mcp adapter's own tools it exposes
 * (`expose`, with the prefix rule). Only active adapters publish; a name a first-party tool already has
 * is left out with a notice (first-party tools win). Descriptions are cut to PUBLISHED_DESCRIPTION_MAX
 * characters so adapter tools cannot blow the tool list's budget; answers are text.
 */
import type { AdapterService } from './service';
import type { ToolCallResult } from './tool-calls';

export const PUBLISHED_DESCRIPTION_MAX = 600;

export interface PublishedTool { name: string; adapter: string; origin: 'declared' | 'exposed'; description: string; input_schema: Record<string, unknown> }

const cut = (s: string) => (s.length > PUBLISHED_DESCRIPTION_MAX ? `${s.slice(0, PUBLISHED_DESCRIPTION_MAX - 1)}…` : s);

export async function publishedTools(a: AdapterService, firstParty: ReadonlySet<string>, opts: { signal?: AbortSignal } = {}): Promise<{ tools: PublishedTool[]; notices: string[] }> {
  const notices: string[] = [];
  const out: PublishedTool[] = [];
  const take = (t: PublishedTool) => {
    if (firstParty.has(t.name)) { notices.push(`${t.adapter}: tool ${t.name} is left out (a Sightline tool has that name)`); return; }
    if (out.some(o => o.name === t.name)) { notices.push(`${t.adapter}: tool ${t.name} is left out (${out.find(o => o.name === t.name)!.adapter} publishes that name)`); return; }
    out.push(t);
  };
  for (const t of a.declaredTools()) if (t.active) take({ name: t.name, adapter: t.adapter, origin: 'declared', description: cut(`${t.description} (adapter ${t.adapter})`), input_schema: t.input_schema });
  const exposed = await a.exposedTools(opts);
  notices.push(...exposed.notices);
  for (const t of exposed.tools) take({ name: t.name, adapter: t.adapter, origin: 'exposed', description: cut(`${t.description ?? t.tool} (adapter ${t.adapter}, its tool ${t.tool})`), input_schema: t.input_schema ?? { type: 'object' } });
  return { tools: out, notices };
}

/** Calls a published tool by name: declared ones run their op, exposed ones the server's tool. */
export async function callPublished(a: AdapterService, name: string, args: Record<string, unknown>, opts: { signal?: AbortSignal } = {}): Promise<ToolCallResult> {
  return a.declaredTools().some(t => t.name === name) ? a.callTool(name, args, opts) : a.callExposed(name, args, opts);
}
