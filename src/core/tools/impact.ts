import { z } from 'zod';
import { defineTool, code, budgeted } from './contract';
import { completeness, nodeSchema, pathParam, repoParam, symbolParam } from './shared';
import { computeImpact, moduleOf } from '../graph/impact';
import { toNodeRef, resolutionOf } from '../graph/query';

const affectedSchema = z.object({
  node: nodeSchema,
  distance: z.number().int().describe('Edges between the change and this dependent (1 = direct).'),
  resolution: z.enum(['exact', 'best_effort']).describe('exact when every edge on the way is compiler-grade (confidence ≥ 0.9).'),
  confidence: z.number().describe('Lowest edge confidence on the way.'),
  via_container: z.boolean().describe('True when this node depends only on a container of the target (its class, module or file), not on the target itself.'),
  via: z.string().describe('The edge that reached it, with its provider.'),
});

export const impact = defineTool({
  name: 'impact',
  title: 'Impact of changing a symbol',
  description: 'What breaks if this symbol changes: the transitive reverse dependencies (callers, referrers, importers, subclasses) in one call, aggregated by module, with affected entry points and related tests. '
    + 'A method also seeds its class, module and file; via_container tells which dependents reach the target itself. Every dependent carries resolution (exact from a language server or compiler-grade provider, best_effort from the heuristic) and the answer says complete=false with boundaries when it is a lower bound — zero dependents with boundaries is not "no impact". '
    + 'limit caps every list (totals say how many exist). Read-only.',
  input: z.object({
    symbol: symbolParam,
    path: pathParam,
    repo: repoParam,
    depth: z.number().int().min(1).max(6).default(3).describe('How many edges to follow from the target (1-6, default 3).'),
    limit: z.number().int().min(1).max(500).default(50).describe('Maximum items in each list (1-500, default 50).'),
    offset: z.number().int().min(0).default(0).describe('Items of the affected list to skip, for paging: pass the previous answer\'s next_offset.'),
  }),
  output: z.object({
    target: z.string().describe('The symbol argument as given.'),
    resolved: z.array(nodeSchema).describe('The node the target resolved to (empty when ambiguous).'),
    ambiguous: z.array(nodeSchema).describe('Candidates when the name matches several symbols: call again with one of their ids.'),
    affected: z.array(affectedSchema).describe('Dependents: direct ones first, then by distance.'),
    affected_by_module: z.record(z.string(), z.number().int()).describe('Affected count per module (folder), most affected first (capped by limit).'),
    affected_entry_points: z.array(nodeSchema).describe('Affected functions nothing in the workspace calls (or main): where the change surfaces.'),
    related_tests: z.array(z.object({ node: nodeSchema, reason: z.string().describe('Why it is related.'), resolution: z.enum(['exact', 'best_effort']).describe('Resolution of the link.') })).describe('Tests that reach the target, its containers or its dependents.'),
    affected_files: z.array(z.string()).describe('Files holding affected nodes.'),
    total_affected: z.number().int().describe('All dependents (uncapped).'),
    total_direct: z.number().int().describe('Dependents of the target itself at distance 1.'),
    total_affected_files: z.number().int().describe('All affected files.'),
    total_affected_modules: z.number().int().describe('All affected modules.'),
    total_affected_entry_points: z.number().int().describe('All affected entry points.'),
    total_related_tests: z.number().int().describe('All related tests.'),
    total: z.number().int().describe('Same as total_affected (the paged list).'),
    offset: z.number().int().describe('Offset of the first affected item returned.'),
    limit: z.number().int().describe('Cap applied to each list.'),
    truncated: z.boolean().describe('True when any list was cut.'),
    next_offset: z.number().int().nullable().describe('Offset for the next page of affected, or null.'),
    ...completeness,
  }),
  annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
  examples: [{ symbol: 'UserService.lookup', path: 'src/users.ts', repo: '.', depth: 3, limit: 50, offset: 0 }],
  async run(args, ctx) {
    const { symbol, path, repo, depth, limit, offset } = args;
    const g = await ctx.engine.graph();
    const { target, ambiguous } = g.resolveOne(symbol, { repo_id: ctx.engine.repoFilter(repo), path });
    const empty = { affected: [], affected_by_module: {}, affected_entry_points: [], related_tests: [], affected_files: [], total_affected: 0, total_direct: 0, total_affected_files: 0,
      total_affected_modules: 0, total_affected_entry_points: 0, total_related_tests: 0, total: 0, offset, limit, truncated: false, next_offset: null };
    if (!target) {
      return { target: symbol, resolved: [], ambiguous: ambiguous.map(toNodeRef), ...empty, complete: false,
        boundaries: [{ kind: 'heuristic_only' as const, detail: `${ambiguous.length} symbols match ${symbol}; call again with one of their ids` }] };
    }
    const r = computeImpact(g, [target], depth, { withContainers: true });
    const files = [...new Set(r.affected.map(a => a.node.path))];
    const modules = new Map<string, number>();
    for (const a of r.affected) modules.set(moduleOf(a.node), (modules.get(moduleOf(a.node)) ?? 0) + 1);
    const byModule = Object.fromEntries([...modules].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, limit));
    const page = r.affected.slice(offset, offset + limit);
    const truncated = r.affected.length > offset + limit || files.length > limit || modules.size > limit || r.entryPoints.length > limit || r.tests.length > limit;
    return {
      target: symbol, resolved: [toNodeRef(target)], ambiguous: [],
      affected: page.map(a => ({ node: toNodeRef(a.node), distance: a.distance, resolution: resolutionOf(a.confidence), confidence: a.confidence, via_container: a.via_container, via: a.via.evidence })),
      affected_by_module: byModule,
      affected_entry_points: r.entryPoints.slice(0, limit).map(a => toNodeRef(a.node)),
      related_tests: r.tests.slice(0, limit).map(t => ({ node: toNodeRef(t.node), reason: t.reason, resolution: resolutionOf(t.confidence) })),
      affected_files: files.slice(0, limit),
      total_affected: r.affected.length, total_direct: r.affected.filter(a => a.distance === 1 && !a.via_container).length,
      total_affected_files: files.length, total_affected_modules: modules.size, total_affected_entry_points: r.entryPoints.length, total_related_tests: r.tests.length,
      total: r.affected.length, offset, limit, truncated, next_offset: r.affected.length > offset + limit ? offset + limit : null,
      complete: r.boundaries.length === 0, boundaries: r.boundaries,
    };
  },
  render(r, budget) {
    if (!r.resolved.length) {
      return [`**impact** ${code(r.target)} is ambiguous — call again with one of these ids:`, ...r.ambiguous.map(n => `- ${code(n.id)} (${n.kind}, ${n.path}:${n.range.start_line})`)].join('\n');
    }
    const t = r.resolved[0]!;
    const head = `**impact** of ${t.kind} ${code(t.symbol_path ?? t.path)} (${t.path}:${t.range.start_line}) — ${r.total_affected} dependent(s), ${r.total_direct} direct, in ${r.total_affected_files} file(s); ${r.complete ? 'complete' : '**lower bound**'}`;
    const items = r.affected.map(a => `- d${a.distance}${a.via_container ? ' (via container)' : ''} ${a.node.kind} ${code(a.node.symbol_path ?? a.node.path)} ${a.node.path}:${a.node.range.start_line} · ${a.resolution} — ${a.via}`);
    const footer = [
      Object.keys(r.affected_by_module).length ? `by module: ${Object.entries(r.affected_by_module).map(([m, n]) => `${m} ${n}`).join(', ')}` : '',
      r.affected_entry_points.length ? `entry points: ${r.affected_entry_points.map(n => code(n.symbol_path ?? n.path)).join(', ')}` : '',
      r.related_tests.length ? `related tests (${r.total_related_tests}): ${r.related_tests.slice(0, 10).map(x => `${code(x.node.symbol_path ?? x.node.path)} ${x.node.path}`).join(', ')}` : 'related tests: none found',
      r.truncated ? `_Lists capped at ${r.limit}${r.next_offset !== null ? `; call again with offset=${r.next_offset} for more dependents` : ''}._` : '',
      ...r.boundaries.map(b => `⚠ ${b.kind}: ${b.detail}`),
      r.total_affected === 0 && !r.complete ? '⚠ No dependents were found, but this is **not** "no impact": see the boundaries above.' : '',
    ].filter(Boolean).join('\n');
    return budgeted(head, items, footer, budget);
  },
});
