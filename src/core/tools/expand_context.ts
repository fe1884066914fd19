import { z } from 'zod';
import { defineTool, code, budgeted } from './contract';
import { completeness, tokenBudgetParam } from './shared';
import { toNodeRef, chunkIdOf } from '../graph/query';
import type { NodeRow } from '../store/store';
import { SightlineError } from '../errors';
import { symbolId, parseId } from '../util/ids';

const itemSchema = z.object({
  chunk_id: z.string().describe('Chunk id (for get_chunk).'),
  path: z.string().describe('Repository-relative path.'),
  start_line: z.number().int().describe('First line of the chunk\'s definition.'),
  end_line: z.number().int().describe('Last line.'),
  symbol_path: z.string().nullable().describe('Definition of the chunk.'),
  kind: z.string().describe('Definition kind.'),
  distance: z.number().int().describe('Edges from the nearest seed (0 = seed).'),
  reason: z.string().describe('Why it is in the pack: seed, calls X, called by X, references X, member of X, …'),
  estimated_metadata_tokens: z.number().int().describe('Tokens this metadata entry costs (not the source text).'),
});

export const expandContext = defineTool({
  name: 'expand_context',
  title: 'Expand context around chunks',
  description: 'A context pack around seed chunks: callees, callers, references, containers, nearest first, within a metadata token budget. '
    + 'Metadata only; get_chunk gives the text.',
  input: z.object({
    chunk_ids: z.array(z.string().min(1)).min(1).max(50).describe('Seed chunk ids (from search_code or another tool).'),
    depth: z.number().int().min(1).max(3).default(1).describe('Edges to follow.'),
    token_budget: tokenBudgetParam(4000, 'Budget for the summed estimated_metadata_tokens.'),
  }),
  output: z.object({
    chunks: z.array(itemSchema).describe('The context pack: seeds first, then by distance.'),
    total_estimated_tokens: z.number().int().describe('Sum of estimated_metadata_tokens of the returned chunks.'),
    token_budget: z.number().int().describe('The budget applied.'),
    budget_exhausted: z.boolean().describe('True when more neighbours existed than the budget allowed.'),
    unresolved: z.array(z.string()).describe('Seed ids that match no chunk.'),
    ...completeness,
  }),
  annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
  examples: [{ chunk_ids: ['chunk:demo-0123abcd:src/users.ts:UserService.getUserName'], depth: 1, token_budget: 2000 }],
  async run(args, ctx) {
    const { chunk_ids, depth, token_budget } = args;
    const g = await ctx.engine.graph();
    const items: z.infer<typeof itemSchema>[] = [];
    const taken = new Set<string>();
    let total = 0; let exhausted = false; let low = 0;
    const unresolved: string[] = [];
    const add = (n: NodeRow, distance: number, reason: string): boolean => {
      const chunk = chunkIdOf(n);
      if (!chunk || taken.has(chunk)) return true;
      const item = { chunk_id: chunk, path: n.path, start_line: n.start_line, end_line: n.end_line, symbol_path: n.symbol_path, kind: n.kind, distance, reason, estimated_metadata_tokens: 0 };
      item.estimated_metadata_tokens = Math.ceil(JSON.stringify(item).length / 4);
      if (total + item.estimated_metadata_tokens > token_budget) { exhausted = true; return false; }
      taken.add(chunk); items.push(item); total += item.estimated_metadata_tokens;
      return true;
    };
    let frontier: NodeRow[] = [];
    for (const id of chunk_ids) {
      const chunk = parseId(id)?.type === 'chunk' ? await ctx.engine.getChunkRow(id) : undefined;
      if (!chunk) { unresolved.push(id); continue; }
      const syms = chunk.symbol_path ? g.lookup(symbolId(chunk.repo_id, chunk.path, chunk.symbol_path)) : [];
      if (!syms.length) {
        if (!taken.has(id)) { const item = { chunk_id: id, path: chunk.path, start_line: chunk.start_line, end_line: chunk.end_line, symbol_path: chunk.symbol_path, kind: chunk.kind, distance: 0, reason: 'seed', estimated_metadata_tokens: 0 };
          item.estimated_metadata_tokens = Math.ceil(JSON.stringify(item).length / 4); taken.add(id); items.push(item); total += item.estimated_metadata_tokens; }
        continue;
      }
      for (const s of syms) { add(s, 0, 'seed'); frontier.push(s); }
    }
    if (!items.length && unresolved.length) throw new SightlineError('not_found', `no chunk matches ${unresolved.join(', ')}; use search_code to find chunk ids`);
    const seen = new Set(frontier.map(f => f.node));
    outer: for (let d = 1; d <= depth && frontier.length; d++) {
      const next: NodeRow[] = [];
      for (const f of frontier) {
        const name = f.symbol_path ?? f.path;
        const neighbours = [
          ...g.edges(f, 'out', ['calls', 'references', 'extends', 'implements']).map(e => ({ n: e.neighbour, why: `${f === e.neighbour ? '' : ''}${name} ${e.edge.kind} it (${e.edge.provider}, ${e.edge.resolution})`, c: e.edge.confidence })),
          ...g.edges(f, 'in', ['calls', 'references', 'contains_test_for']).map(e => ({ n: e.neighbour, why: `${e.edge.kind === 'calls' ? 'calls' : e.edge.kind === 'contains_test_for' ? 'tests' : 'references'} ${name} (${e.edge.provider}, ${e.edge.resolution})`, c: e.edge.confidence })),
          ...g.containers(f).filter(c => c.kind !== 'file').map(c => ({ n: c, why: `contains ${name}`, c: 1 })),
        ].sort((a, b) => b.c - a.c);
        for (const { n, why, c } of neighbours) {
          if (seen.has(n.node) || n.kind === 'file') continue;
          seen.add(n.node);
          if (c < 0.5) low++;
          if (!add(n, d, why)) break outer;
          next.push(n);
        }
      }
      frontier = next;
    }
    const boundaries = g.boundaries([], low);
    return { chunks: items, total_estimated_tokens: total, token_budget, budget_exhausted: exhausted, unresolved, complete: boundaries.length === 0 && !exhausted, boundaries };
  },
  render(r, budget) {
    const head = `**expand_context** ${r.chunks.length} chunk(s), ${r.total_estimated_tokens}/${r.token_budget} metadata tokens${r.budget_exhausted ? ' (budget exhausted)' : ''}`;
    const items = r.chunks.map(c => `- d${c.distance} ${c.kind} ${code(c.symbol_path ?? c.path)} ${c.path}:${c.start_line}-${c.end_line} — ${c.reason} · ${code(c.chunk_id)}`);
    const footer = [r.unresolved.length ? `unknown chunk ids: ${r.unresolved.join(', ')}` : '', ...r.boundaries.map(b => `⚠ ${b.kind}: ${b.detail}`)].filter(Boolean).join('\n');
    return budgeted(head, items, footer, budget);
  },
});
