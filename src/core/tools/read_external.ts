import { z } from 'zod';
import { defineTool, code, estimateTokens, CHARS_PER_TOKEN } from './contract';
import { tokenBudgetParam } from './shared';

/** The longest text one answer returns by default, in estimated tokens. */
const DEFAULT_MAX_TOKENS = 4000;

export const readExternal = defineTool({
  name: 'read_external',
  title: 'Read an adapter URI',
  description: 'The text behind a URI a configured adapter owns (notes://…, a ticket or wiki URL from search_code\'s external results), read through that adapter\'s read operation.',
  input: z.object({
    uri: z.string().min(1).max(2000).describe('A URI from an external result (its uri field).'),
    token_budget: tokenBudgetParam(DEFAULT_MAX_TOKENS, 'Most text to return, in tokens (~4 characters).'),
  }),
  output: z.object({
    uri: z.string().describe('The URI as given.'),
    source: z.string().nullable().describe('The adapter that owns it (null: none does).'),
    found: z.boolean().describe('True when the adapter answered with its text.'),
    text: z.string().describe('Its text (cut at token_budget).'),
    truncated: z.boolean().describe('True when the text was cut.'),
    estimated_tokens: z.number().int().describe('Estimated tokens of the returned text.'),
    ms: z.number().int().describe('Time the adapter took.'),
    reason: z.string().nullable().describe('Why there is no text: no adapter owns the URI, or the adapter failed (its code and message).'),
  }),
  annotations: { read_only: true, destructive: false, idempotent: true, open_world: true },
  examples: [{ uri: 'notes://adr/7', token_budget: 4000 }],
  renamed: { max_tokens: 'token_budget' },
  async run(args, ctx) {
    const { uri, token_budget } = args;
    const a = await ctx.engine.adapters();
    const owner = a.ownerOf(uri);
    if (!owner) {
      const owners = a.list().filter(x => x.state === 'active' && x.ops.includes('read')).map(x => x.name);
      return { uri, source: null, found: false, text: '', truncated: false, estimated_tokens: 0, ms: 0,
        reason: owners.length ? `no active adapter owns ${uri} (adapters with a read operation: ${owners.join(', ')})` : `no adapter owns ${uri}: none with a read operation is configured and active` };
    }
    const r = await a.call(owner, 'read', { uri }, { signal: ctx.signal });
    if (!r.ok) return { uri, source: owner, found: false, text: '', truncated: false, estimated_tokens: 0, ms: r.ms, reason: `${r.error.code}: ${r.error.message}` };
    const full = r.text ?? '';
    const max = token_budget * CHARS_PER_TOKEN;
    const text = full.length > max ? full.slice(0, max) : full;
    return { uri, source: owner, found: true, text, truncated: text.length < full.length, estimated_tokens: estimateTokens(text), ms: r.ms, reason: null };
  },
  render(r, budget) {
    if (!r.found) return `**read_external** ${code(r.uri)}: nothing read — ${r.reason}`;
    const room = Math.max(200, (budget.max_chars ?? Infinity) - 300);
    const cut = r.text.length > room;
    return `**read_external** ${code(r.uri)} via ${r.source} (${r.ms} ms)${r.truncated || cut ? ' — cut to fit the budget' : ''}\n\n${cut ? `${r.text.slice(0, room)} …` : r.text}`;
  },
});
