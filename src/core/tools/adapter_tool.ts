import { z } from 'zod';
import { defineTool, code, budgeted } from './contract';
import { SightlineError } from '../errors';
import { publishedTools, callPublished } from '../adapters/published';
import { TOOL_NAMES } from './registry';

export const adapterTool = defineTool({
  name: 'adapter_tool',
  title: 'Tools of the configured adapters',
  description: 'Tools the workspace\'s adapters publish (declared in config or exposed by their MCP servers): without name, lists them with their input schemas; with name and arguments, calls one and returns its text. MCP clients also see them in tools/list.',
  input: z.object({
    name: z.string().min(1).max(200).optional().describe('The tool to call (from the list); absent: list the tools.'),
    arguments: z.record(z.string(), z.unknown()).default({}).describe('Its arguments, as its input schema says.'),
  }),
  output: z.object({
    tools: z.array(z.object({
      name: z.string().describe('Tool name.'), adapter: z.string().describe('The adapter that publishes it.'),
      origin: z.enum(['declared', 'exposed']).describe('declared in config, or exposed from the adapter\'s MCP server.'),
      description: z.string().describe('What it does.'), input_schema_json: z.string().describe('Its input JSON schema, as JSON text.'),
    })).describe('The published tools (when listing).'),
    called: z.string().nullable().describe('The tool called, or null when listing.'),
    text: z.string().nullable().describe('Its answer as text.'),
    ms: z.number().int().describe('Time the call took.'),
    notices: z.array(z.string()).describe('Adapters whose tools could not be listed, and names left out.'),
  }),
  annotations: { read_only: false, destructive: false, idempotent: false, open_world: true },
  examples: [{ name: 'notes_recent', arguments: { tag: 'ops' } }],
  async run(args, ctx) {
    const { name, arguments: toolArgs } = args;
    const a = await ctx.engine.adapters();
    const listed = await publishedTools(a, new Set<string>(TOOL_NAMES), { signal: ctx.signal });
    if (!name) return { tools: listed.tools.map(t => ({ name: t.name, adapter: t.adapter, origin: t.origin, description: t.description, input_schema_json: JSON.stringify(t.input_schema) })), called: null, text: null, ms: 0, notices: listed.notices };
    const tools = listed.tools.map(t => ({ name: t.name, adapter: t.adapter, origin: t.origin, description: t.description, input_schema_json: JSON.stringify(t.input_schema) }));
    if (!listed.tools.some(t => t.name === name)) {
      // not an error of the arguments' shape: the answer lists what is there instead
      return { tools, called: null, text: null, ms: 0, notices: [`no adapter publishes a tool ${name}${tools.length ? '; the published ones are listed' : ': none is configured and active (sightline adapters list)'}`, ...listed.notices] };
    }
    const r = await callPublished(a, name, toolArgs, { signal: ctx.signal });
    if (!r.ok) {
      if (r.error.code === 'invalid_args') throw new SightlineError('invalid_arguments', r.error.message, { tool: name, ...(r.error.details ?? {}) });
      throw new SightlineError('adapter_failed', `${name}: ${r.error.code}: ${r.error.message}`, { adapter: r.adapter ?? null, adapter_code: r.error.code });
    }
    return { tools: [], called: name, text: r.text, ms: r.ms, notices: listed.notices };
  },
  render(r, budget) {
    if (r.called) return budgeted(`**adapter_tool** ${code(r.called)} (${r.ms} ms)`, [r.text ?? ''], '', budget);
    const head = `**adapter_tool** — ${r.tools.length} published tool(s)`;
    const items = r.tools.map(t => `- ${code(t.name)} (${t.adapter}, ${t.origin}) — ${t.description}\n  input: ${t.input_schema_json.length > 300 ? `${t.input_schema_json.slice(0, 300)}…` : t.input_schema_json}`);
    return budgeted(head, items.length ? items : ['none: no active adapter declares or exposes tools (sightline adapters list)'], r.notices.map(n => `⚠ ${n}`).join('\n'), budget);
  },
});
