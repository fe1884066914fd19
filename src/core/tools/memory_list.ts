import { z } from 'zod';
import { defineTool, budgeted, pageInput, pageOutput, page, pageNotice, plural } from './contract';
import { repoParam, memorySchema, toMemoryOut, memoryLine } from './shared';

export const memoryList = defineTool({
  name: 'memory_list',
  title: 'List project memories',
  description: 'Project memories, each checked against its file now (never current if the file changed since), stale and gone first. Filters: repo, status, path, symbol, source, text.',
  input: z.object({
    repo: repoParam,
    status: z.enum(['current', 'relocated', 'stale', 'gone']).optional().describe('Only this status.'),
    path: z.string().min(1).optional().describe('Anchored file or folder.'),
    symbol: z.string().min(1).optional().describe('Anchored symbol (symbol_path or name).'),
    source: z.string().min(1).optional().describe('Only this source.'),
    text: z.string().min(1).optional().describe('Substring of the text.'),
    ...pageInput(20),
  }),
  output: z.object({ memories: z.array(memorySchema).describe('This page, stale and gone first.'), ...pageOutput }),
  annotations: { read_only: false, destructive: false, idempotent: true, open_world: false },
  examples: [{ repo: 'demo-0123abcd', status: 'current', path: 'src', symbol: 'getUserName', source: 'human', text: 'never', limit: 20, offset: 0 }],
  async run(args, ctx) {
    const all = await ctx.engine.memories.list({ repo_id: ctx.engine.repoFilter(args.repo), status: args.status, path: args.path, symbol: args.symbol, source: args.source, text: args.text });
    const slice = all.slice(args.offset, args.offset + args.limit);
    return { memories: slice.map(m => toMemoryOut(m)), ...page(all.length, args.offset, args.limit, slice.length) };
  },
  render(r, budget) {
    if (!r.total) return '**memory_list**: no memories match.';
    return budgeted(`**memory_list** ${plural(r.total, 'memory', 'memories')}`, r.memories.map(memoryLine), pageNotice(r, 'memories'), budget);
  },
});
