import { z } from 'zod';
import { defineTool, code, CHARS_PER_TOKEN, estimateTokens } from './contract';
import { searchHitSchema, tokenBudgetParam } from './shared';
import { readableName } from '../graph/lookup';
import { SightlineError } from '../errors';

/** The longest text one get_chunk answer returns by default, in estimated tokens (4 characters each). */
const DEFAULT_MAX_TOKENS = 8000;

export const getChunk = defineTool({
  name: 'get_chunk',
  title: 'Get chunk source',
  description: 'The source text of one chunk by chunk_id, read from the file now (stale=true: the file changed since indexing, lines may have shifted). '
    + 'A long chunk is returned up to token_budget; next_start_line says where to read on.',
  input: z.object({
    chunk_id: z.string().min(1).describe('Chunk id (or a symbol id) from another tool.'),
    token_budget: tokenBudgetParam(DEFAULT_MAX_TOKENS, 'Most text to return, in tokens (~4 characters).'),
    start_line: z.number().int().min(1).optional().describe('Read on from this line (a previous next_start_line).'),
  }),
  // The location fields are a search hit's (minus its ranking), plus the text itself.
  output: searchHitSchema.omit({ score: true, signals: true, snippet: true }).extend({
    language: z.string().describe('Language of the file.'),
    text: z.string().describe('Source text of text_range (whole lines).'),
    text_range: z.object({
      start_line: z.number().int().describe('First line, 1-based.'), end_line: z.number().int().describe('Last line, 1-based.'),
    }).describe('File lines the text covers: the whole chunk unless token_budget or start_line cut it.'),
    truncated: z.boolean().describe('True when the chunk goes on after text_range.'),
    next_chunk_id: z.string().nullable().describe('The next part of the same definition (a long one is split into chunks), or null.'),
    next_start_line: z.number().int().nullable().describe('Pass as start_line to read on, or null.'),
    estimated_tokens: z.number().int().describe('Estimated tokens of the returned text.'),
    chunk_estimated_tokens: z.number().int().describe('Estimated tokens of the whole chunk.'),
    stale: z.boolean().describe('True when the file changed since it was indexed (re-run index_repo).'),
    file_hash: z.string().describe('Content hash of the file when it was indexed.'),
  }),
  annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
  examples: [{ chunk_id: 'chunk:demo-0123abcd:src/users.ts:UserService.getUserName', token_budget: 8000, start_line: 1 }],
  renamed: { max_tokens: 'token_budget' },
  async run(args, ctx) {
    const { chunk_id, token_budget, start_line } = args;
    const c = await ctx.engine.getChunk(chunk_id);
    const from = Math.min(Math.max(start_line ?? c.start_line, c.start_line), c.end_line);
    if (start_line !== undefined && start_line > c.end_line) {
      throw new SightlineError('invalid_arguments', `start_line ${start_line} is outside the chunk (lines ${c.start_line}-${c.end_line})`);
    }
    const lines = c.text.split('\n');
    const budget = token_budget * CHARS_PER_TOKEN;
    const out: string[] = [];
    let used = 0;
    for (let i = from - c.start_line; i < lines.length; i++) {
      const cost = lines[i]!.length + 1;
      if (out.length && used + cost > budget) break;
      // One line longer than the whole budget is cut, never returned whole.
      out.push(cost > budget ? `${lines[i]!.slice(0, budget - 40)} …[line cut at ${budget - 40} characters]` : lines[i]!);
      used += Math.min(cost, budget);
    }
    const last = from + out.length - 1;
    const text = out.join('\n');
    const part = /^(.*?)(?:#(\d+))?$/.exec(c.chunk_id)!;
    const next = c.symbol_path ? `${part[1]}#${Number(part[2] ?? 1) + 1}` : null;
    const nextChunk = next && (await ctx.engine.getChunkRow(next)) ? next : null;
    return { ...c, next_chunk_id: nextChunk, text, text_range: { start_line: from, end_line: last }, truncated: last < c.end_line, next_start_line: last < c.end_line ? last + 1 : null,
      estimated_tokens: estimateTokens(text), chunk_estimated_tokens: estimateTokens(c.text) };
  },
  render(r, budget) {
    const fence = r.text.includes('```') ? '````' : '```';
    const max = budget.max_chars ?? Infinity;
    const width = String(r.text_range.end_line).length;
    const lines = r.text.split('\n');
    const out: string[] = [];
    let used = 300;
    for (let i = 0; i < lines.length; i++) {
      let l = `${String(r.text_range.start_line + i).padStart(width)}  ${lines[i]}`;
      if (out.length && used + l.length + 1 > max) break;
      if (used + l.length + 1 > max) l = `${l.slice(0, Math.max(80, max - used - 60))} …[cut to fit the token budget]`;
      out.push(l); used += l.length + 1;
    }
    const shownEnd = r.text_range.start_line + out.length - 1;
    const more = shownEnd < r.end_line
      ? `\n_Lines ${r.text_range.start_line}-${shownEnd} of ${r.start_line}-${r.end_line} (${r.chunk_estimated_tokens} tokens in all); call again with start_line=${shownEnd + 1} to read on._`
      : r.next_chunk_id ? `\n_The definition goes on in ${code(r.next_chunk_id)}._` : '';
    const what = r.symbol_path ? `${r.kind} ${code(readableName(r))}` : r.kind === 'top_level' ? 'top-level code' : r.kind;
    const head = `**${r.path}:${r.start_line}-${r.end_line}** ${what}${r.stale ? ' ⚠ stale: the file changed since indexing' : ''}`;
    return `${head}\n${fence}${r.language}\n${out.join('\n')}\n${fence}${more}`;
  },
});
