import { z } from 'zod';
import { externalSchema, peerSearch, peerNotices, fuse } from './external';

/** The first items whose JSON fits in `tokens`. */
function withinTokens<T>(items: T[], tokens: number): T[] {
  const out: T[] = []; let used = 0;
  for (const it of items) { const t = estimateTokens(JSON.stringify(it)); if (used + t > tokens) break; out.push(it); used += t; }
  return out;
}
import { defineTool, code, budgeted, estimateTokens } from './contract';
import { nodeLabel, nodeSchema, queryParam, repoParam, tokenBudgetParam } from './shared';
import { toNodeRef, chunkIdOf } from '../graph/query';
import { partnerSchema } from './history';
import type { NodeRow } from '../store/store';
import { nodeIdOfChunkId } from '../util/ids';
import { MemoryNotes, NoteCollector, memoryNotesFields, noteLines, notesSummary } from './memory_notes';

const packItem = z.object({
  chunk_id: z.string().describe('Chunk id (get_chunk).'), path: z.string().describe('Path.'),
  start_line: z.number().int().describe('First line.'), end_line: z.number().int().describe('Last line.'),
  symbol_path: z.string().nullable().describe('Qualified name, null for top-level code.'), kind: z.string().describe('Kind.'),
  distance: z.number().int().describe('0: a search hit; 1: its graph neighbour.'), reason: z.string().describe('seed, or the relation to a seed.'),
  estimated_metadata_tokens: z.number().int().describe('Tokens of this item\'s metadata.'),
});

export const preChangeContext = defineTool({
  name: 'pre_change_context',
  title: 'Context before a change',
  description: 'Before an edit: search, suggested chunk ids, a metadata-only context pack (hits, then their callers/callees) within token_budget, their symbols and edges, and co-change partners of the top files (git). Read the code with get_chunk.',
  input: z.object({
    query: queryParam,
    repo: repoParam,
    token_budget: tokenBudgetParam(4000, 'Tokens the context pack may use.'),
  }),
  output: z.object({
    results: z.array(z.object({ chunk_id: z.string().describe('Chunk id.'), path: z.string().describe('Path.'), start_line: z.number().int().describe('First line.'), end_line: z.number().int().describe('Last line.'),
      symbol_path: z.string().nullable().describe('Qualified name.'), score: z.number().describe('Search score.') })).describe('Search hits, best first.'),
    suggested_chunk_ids: z.array(z.string()).describe('Chunks to read first.'),
    context_pack: z.array(packItem).describe('Metadata of the chunks selected under the budget.'),
    symbols: z.array(nodeSchema).describe('Symbols of the pack.'),
    edges: z.array(z.object({ from: z.string().describe('Source id.'), to: z.string().describe('Target id.'), kind: z.string().describe('Edge kind.'), resolution: z.enum(['exact', 'best_effort']).describe('Resolution.') })).describe('Graph edges between a seed and a pack neighbour.'),
    co_change: z.array(z.object({ path: z.string().describe('A top file.'), partners: z.array(partnerSchema).describe('Files that usually change with it.') })).describe('Git co-change of the top files (empty without history).'),
    ...memoryNotesFields('the chunks of the pack (their symbols, files and lines); within half of token_budget, beside the pack'),
    external: z.array(externalSchema).describe('What the configured adapters know about the task (team notes, tickets, other repositories), in the fused order with the search hits; at most 5, within a quarter of token_budget.'),
    external_notices: z.array(z.string()).describe('Adapters that failed, timed out or are cooling down.'),
    total_estimated_tokens: z.number().int().describe('Sum of the pack items\' estimated_metadata_tokens.'),
    token_budget: z.number().int().describe('The budget applied.'),
    budget_exhausted: z.boolean().describe('True when an item did not fit.'),
  }),
  annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
  examples: [{ query: 'retry failed payments', repo: '.', token_budget: 4000 }],
  async run(args, ctx) {
    const { query, repo, token_budget } = args;
    const peers = peerSearch(ctx, true, query, 5);
    const s = await ctx.engine.search({ query, repo, limit: 10, offset: 0, vector: true, group: 'chunk', chunks_per_file: 3 });
    const answered = await peers.answer(s.terms);
    const g = await ctx.engine.graph();
    const h = await ctx.engine.history();
    const pack: z.infer<typeof packItem>[] = [];
    /** the repository of each pack item (pack items name paths only) */
    const repoOfItem = new Map<string, string>();
    let total = 0, exhausted = false;
    const seen = new Set<string>();
    const add = (it: Omit<z.infer<typeof packItem>, 'estimated_metadata_tokens'>, repoId: string): boolean => {
      if (seen.has(it.chunk_id)) return true;
      const item = { ...it, estimated_metadata_tokens: 0 };
      item.estimated_metadata_tokens = estimateTokens(JSON.stringify(item));
      if (total + item.estimated_metadata_tokens > token_budget) { exhausted = true; return false; }
      seen.add(it.chunk_id); pack.push(item); repoOfItem.set(it.chunk_id, repoId); total += item.estimated_metadata_tokens; return true;
    };
    for (const r of s.results) if (!add({ chunk_id: r.chunk_id, path: r.path, start_line: r.start_line, end_line: r.end_line, symbol_path: r.symbol_path, kind: r.kind, distance: 0, reason: 'seed' }, r.repo_id)) break;
    // the seeds' symbols, then their direct callers and callees
    const seedNodes: NodeRow[] = [];
    for (const r of s.results.slice(0, 5)) if (r.symbol_path) { const n = g.lookup(nodeIdOfChunkId(r.chunk_id))[0]; if (n) seedNodes.push(n); }
    const edges: { from: string; to: string; kind: string; resolution: 'exact' | 'best_effort' }[] = [];
    const symbols = new Map<string, NodeRow>();
    for (const n of seedNodes) symbols.set(toNodeRef(n).id, n);
    if (!exhausted) {
      outer: for (const [dir, why] of [['out', 'callee'], ['in', 'caller']] as const) {
        const m = g.edgesOfMany(seedNodes, dir, ['calls']);
        for (const n of seedNodes) for (const e of (m.get(n.node) ?? []).slice(0, 5)) {
          const ref = toNodeRef(e.neighbour); const chunk = chunkIdOf(e.neighbour);
          if (!chunk) continue;
          if (!add({ chunk_id: chunk, path: ref.path, start_line: e.neighbour.start_line, end_line: e.neighbour.end_line, symbol_path: e.neighbour.symbol_path, kind: ref.kind, distance: 1, reason: `${why} of ${n.symbol_path}` }, e.neighbour.repo_id)) break outer;
          symbols.set(ref.id, e.neighbour);
          edges.push({ from: dir === 'out' ? toNodeRef(n).id : ref.id, to: dir === 'out' ? ref.id : toNodeRef(n).id, kind: e.edge.kind, resolution: e.edge.resolution === 'exact' ? 'exact' : 'best_effort' });
        }
      }
    }
    // memories on the pack's chunks (their symbols, files and overlapping spans), seeds first
    const notes = await MemoryNotes.open(ctx.engine, ctx.engine.repoFilter(repo));
    const found = new NoteCollector();
    if (!notes.empty) for (const p of pack) found.add(notes.on({ repo_id: repoOfItem.get(p.chunk_id)!, path: p.path, symbol_path: p.symbol_path, start_line: p.start_line, end_line: p.end_line }), p.chunk_id, p.distance);
    const topFiles = [...new Map(s.results.map(r => [`${r.repo_id}\0${r.path}`, r])).values()].slice(0, 3);
    const co_change = topFiles.map(r => ({ path: r.path, partners: h.partners(r.repo_id, r.path, 5).map(p => ({ path: p.path, together_count: p.together_count, coupling: p.coupling })) })).filter(c => c.partners.length);
    return {
      results: s.results.map(r => ({ chunk_id: r.chunk_id, path: r.path, start_line: r.start_line, end_line: r.end_line, symbol_path: r.symbol_path, score: r.score })),
      suggested_chunk_ids: pack.filter(p => p.distance === 0).slice(0, 5).map(p => p.chunk_id), context_pack: pack,
      symbols: [...symbols.values()].map(toNodeRef),
      edges, co_change, ...found.result(token_budget / 2), external: withinTokens(fuse(answered, s.results.length).externalItems.slice(0, 5), token_budget / 4), external_notices: peerNotices(answered),
      total_estimated_tokens: total, token_budget, budget_exhausted: exhausted,
    };
  },
  render(r, budget) {
    const head = `**pre_change_context** — ${r.results.length} hit(s); pack ${r.context_pack.length} item(s), ${r.total_estimated_tokens}/${r.token_budget} tokens${r.budget_exhausted ? ' (budget exhausted)' : ''}${notesSummary(r)}`;
    const ext = r.external.map(x => `- [${x.source}] ${x.uri ? `[${x.title}](${x.uri})` : x.title}${x.snippet ? ` — ${x.snippet.slice(0, 120)}` : ''}`);
    const items = [...noteLines(r), ...ext, ...r.context_pack.map(p => `- ${p.distance ? `${p.reason}: ` : ''}${code(p.path)}:${p.start_line}-${p.end_line} ${p.symbol_path ? code(p.symbol_path) : 'top-level'} · ${code(p.chunk_id)}`)];
    const byId = new Map(r.symbols.map(n => [n.id, n]));
    const name = (id: string) => { const n = byId.get(id); return code(n ? nodeLabel(n) : id); };
    const edges = r.edges.length ? `edges: ${r.edges.map(e => `${name(e.from)} ${e.kind} ${name(e.to)} (${e.resolution})`).join(', ')}` : '';
    const partners = (c: (typeof r.co_change)[number]) => c.partners.map(p => `${code(p.path)} ×${p.together_count}`).join(', ');
    const coChange = r.co_change.map(c => `${code(c.path)} usually changes with (git): ${partners(c)}`);
    const footer = [edges, ...coChange, ...r.external_notices.map(n => `⚠ ${n}`)].filter(Boolean).join('\n');
    return budgeted(head, items, footer, budget);
  },
});
