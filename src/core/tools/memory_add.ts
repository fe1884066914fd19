import { z } from 'zod';
import { isAbsolute } from 'node:path';
import { defineTool, code } from './contract';
import { repoParam, memorySchema, toMemoryOut, memoryLine } from './shared';

export const memoryAdd = defineTool({
  name: 'memory_add',
  title: 'Add project memory',
  description: 'Persist a project memory anchored to a repo, file, symbol or line span; it follows the code as it moves (status current/relocated/stale/gone). '
    + 'An anchor that does not resolve is refused. A near-identical memory on the same anchor is reported, not added twice.',
  input: z.object({
    text: z.string().min(1).max(20_000).describe('The memory (Markdown).'),
    anchor_kind: z.enum(['repo', 'file', 'symbol', 'span']).describe('What it is about.'),
    path: z.string().min(1).optional().describe('File (file/symbol/span).'),
    symbol: z.string().min(1).optional().describe('symbol_path or name in path (symbol).'),
    start_line: z.number().int().min(1).optional().describe('First line (span).'),
    end_line: z.number().int().min(1).optional().describe('Last line (span).'),
    repo: repoParam,
    source: z.string().min(1).max(100).default('agent').describe('human, agent, …'),
    confidence: z.number().min(0).max(1).default(1).describe('0..1.'),
    scope: z.enum(['user', 'repo']).default('user').describe('user: private; repo: .sightline/memories.json, shared.'),
  }),
  output: z.object({
    memory: memorySchema.describe('The stored memory (or the existing duplicate).'),
    added: z.boolean().describe('False when a duplicate exists (memory is that one).'),
    duplicates: z.array(z.string()).describe('Ids of near-identical memories on the same anchor.'),
  }),
  annotations: { read_only: false, destructive: false, idempotent: false, open_world: false },
  examples: [
    { text: 'names are never empty', anchor_kind: 'symbol', path: 'src/users.ts', symbol: 'UserService.getUserName', repo: 'demo-0123abcd', source: 'human', confidence: 1, scope: 'user' },
    { text: 'imports stay at the top', anchor_kind: 'span', path: 'src/users.ts', start_line: 1, end_line: 2, scope: 'repo' },
  ],
  async run(args, ctx) {
    let repo = args.repo !== undefined ? ctx.engine.repoFilter(args.repo) : undefined;
    let path = args.path;
    if (path && isAbsolute(path)) { const r = ctx.engine.relativeToRoot(path); repo = r.root.repo_id; path = r.rel; }
    const r = await ctx.engine.memories.add({ repo, anchor_kind: args.anchor_kind, path, symbol: args.symbol, start_line: args.start_line, end_line: args.end_line,
      text: args.text, source: args.source, confidence: args.confidence, scope: args.scope });
    return { memory: toMemoryOut(r.memory), added: r.added, duplicates: r.duplicates.map(d => d.id) };
  },
  render(r) {
    return `${r.added ? '**memory_add** stored' : `**memory_add** not added: a near-identical memory exists (${r.duplicates.map(code).join(', ')})`}\n${memoryLine(r.memory)}`;
  },
});
