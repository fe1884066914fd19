import { z } from 'zod';
import { defineTool, code, budgeted, pageInput, pageOutput, page, pageNotice } from './contract';
import { completeness, edgeSchema, nodeSchema, pathParam, repoParam, symbolParam } from './shared';
import { toNodeRef } from '../graph/query';

export const findReferences = defineTool({
  name: 'find_references',
  title: 'Find references',
  description: 'Graph edges that reference a symbol (reference and test-reference edges by default; add calls or other kinds with kinds), each with its provider, confidence, resolution (exact from a language server or compiler-grade provider, best_effort from the heuristic) and evidence. '
    + 'Filter with min_confidence. The answer says complete=false with boundaries when the list is a lower bound. Read-only.',
  input: z.object({
    symbol: symbolParam,
    path: pathParam,
    repo: repoParam,
    kinds: z.array(z.enum(['references', 'contains_test_for', 'calls', 'imports', 'implements', 'extends'])).min(1).default(['references', 'contains_test_for'])
      .describe('Edge kinds to return (default references and contains_test_for).'),
    min_confidence: z.number().min(0).max(1).default(0).describe('Drop edges below this confidence (0..1, default 0).'),
    ...pageInput(50, 500),
  }),
  output: z.object({
    target: z.string().describe('The symbol argument as given.'),
    resolved: z.array(nodeSchema).describe('The node the target resolved to (empty when ambiguous).'),
    ambiguous: z.array(nodeSchema).describe('Candidates when several symbols match: call again with one of their ids.'),
    references: z.array(z.object({ edge: edgeSchema, from: nodeSchema })).describe('Referencing edges, highest confidence first, with the referencing node.'),
    ...pageOutput,
    ...completeness,
  }),
  annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
  examples: [{ symbol: 'UserRecord', path: 'src/users.ts', repo: '.', kinds: ['references', 'calls'], min_confidence: 0, limit: 50, offset: 0 }],
  async run(args, ctx) {
    const { symbol, path, repo, kinds, min_confidence, limit, offset } = args;
    const g = await ctx.engine.graph();
    const { target, ambiguous } = g.resolveOne(symbol, { repo_id: ctx.engine.repoFilter(repo), path });
    if (!target) {
      return { target: symbol, resolved: [], ambiguous: ambiguous.map(toNodeRef), references: [], ...page(0, offset, limit, 0), complete: false,
        boundaries: [{ kind: 'heuristic_only' as const, detail: `${ambiguous.length} symbols match ${symbol}; call again with one of their ids` }] };
    }
    const all = g.edges(target, 'in', kinds).filter(e => e.edge.confidence >= min_confidence);
    const low = all.filter(e => e.edge.confidence < 0.5).length;
    const boundaries = g.boundaries([target], low);
    const slice = all.slice(offset, offset + limit);
    return { target: symbol, resolved: [toNodeRef(target)], ambiguous: [], references: slice.map(e => ({ edge: e.edge, from: toNodeRef(e.neighbour) })),
      ...page(all.length, offset, limit, slice.length), complete: boundaries.length === 0, boundaries };
  },
  render(r, budget) {
    if (!r.resolved.length) return [`**find_references** ${code(r.target)} is ambiguous — call again with one of these ids:`, ...r.ambiguous.map(n => `- ${code(n.id)} (${n.kind}, ${n.path}:${n.range.start_line})`)].join('\n');
    const t = r.resolved[0]!;
    const head = `**find_references** ${t.kind} ${code(t.symbol_path ?? t.path)} (${t.path}:${t.range.start_line}) — ${r.total} edge(s); ${r.complete ? 'complete' : '**lower bound**'}`;
    const items = r.references.map(x => `- ${x.edge.kind} from ${code(x.from.symbol_path ?? x.from.path)} ${x.edge.path ?? x.from.path}:${x.edge.line ?? x.from.range.start_line} · ${x.edge.provider} ${x.edge.confidence} (${x.edge.resolution}) — ${x.edge.evidence}`);
    const footer = [pageNotice(r, 'edges'), ...r.boundaries.map(b => `⚠ ${b.kind}: ${b.detail}`), r.total === 0 && !r.complete ? '⚠ No references found, but the list is a lower bound (see above).' : ''].filter(Boolean).join('\n');
    return budgeted(head, items, footer, budget);
  },
});
