import { z } from 'zod';
import { defineTool, code, budgeted, pageInput } from './contract';
import {
  completeness, nodeSchema, pathParam, repoParam, symbolParam, unresolvedAnswer, matchedBySchema, nodeLabel,
  renderUnresolved, testSchema, toTestRef, testLine,
} from './shared';
import { computeImpact, moduleOf } from '../graph/impact';
import { toNodeRef, resolutionOf } from '../graph/query';
import { coChangeEvidence, coChangeEvidenceSchema } from './history';
import { MemoryNotes, NoteCollector, memoryNotesFields, noteLines, notesSummary } from './memory_notes';

/** Tests and entry points listed beside the dependents (related_tests pages through all of them). */
export const SIDE_LIST_CAP = 10;

const affectedSchema = z.object({
  node: nodeSchema,
  distance: z.number().int().describe('Edges between the change and this dependent (1 = direct).'),
  resolution: z.enum(['exact', 'best_effort']).describe('exact when every edge on the way is compiler-grade (confidence ≥ 0.9).'),
  confidence: z.number().describe('Chance the best path is real: the product of its edges\' confidences.'),
  via_container: z.boolean().describe('True when this node depends only on a container of the target (its class, module or file), not on the target itself.'),
  name_only: z.boolean().describe('True when every path found goes through a name-only binding (receiver type unknown; edge confidence < 0.5): maybe not real; listed after the others, likeliest first.'),
  via: z.string().describe('The edge that reached it, with its provider.'),
  provider: z.string().describe('Provider of that edge.'),
});

type AffectedOut = z.infer<typeof affectedSchema>;
/** `related tests: 119 (the nearest 10 listed; …)`, or that none was found. */
function testsTotal(total: number, listed: number): string {
  if (!total) return 'related tests: none found';
  return `related tests: ${total}${total > listed ? ` (the nearest ${listed} listed; related_tests pages through all)` : ''}`;
}
/** `- d1 method `Client.request` src/client.py:771 · best_effort 0.85 — heuristic: Client.request calls …` */
function affectedLine(a: AffectedOut): string {
  const sureness = a.name_only ? `name-only ${a.confidence}` : `${a.resolution} ${a.confidence}`;
  const provider = a.via.startsWith(`${a.provider}:`) ? '' : ` ${a.provider}`;
  return `- d${a.distance} ${a.node.kind} ${code(nodeLabel(a.node))} ${a.node.path}:${a.node.line} · ${sureness}${provider} — ${a.via}`;
}

export const impact = defineTool({
  name: 'impact',
  title: 'Impact of changing a symbol',
  description: 'What breaks if this symbol changes: transitive dependents (callers, referrers, importers, subclasses), direct first, by module, entry points, tests. Walks every binding kind to depth; name-only paths (maybe not real) are marked and ranked last by confidence. A method also seeds its class, module and file (via_container, last). complete=false: a lower bound, not "no impact".',
  input: z.object({
    symbol: symbolParam,
    path: pathParam,
    repo: repoParam,
    depth: z.number().int().min(1).max(6).default(3).describe('Edges to follow from the target.'),
    ...pageInput(50),
    follow_links: z.boolean().default(false).describe('Also follow cross-boundary links (see links): a route handler\'s clients in any language, a model\'s queries, a topic\'s consumers; best effort, provider links.'),
  }),
  output: z.object({
    target: z.string().describe('The symbol argument as given.'),
    resolved: z.array(nodeSchema).describe('The node the target resolved to (empty when ambiguous).'),
    ambiguous: z.array(nodeSchema).describe('Candidates when the name matches several symbols: call again with one of their ids.'),
    matched_by: matchedBySchema,
    affected: z.array(affectedSchema).describe('Dependents bound by more than a name, nearest first; then name-only ones, likeliest first; via_container ones last.'),
    affected_by_module: z.record(z.string(), z.number().int()).describe('Affected count per module (folder), most affected first (capped by limit).'),
    affected_entry_points: z.array(nodeSchema).describe(`Affected functions nothing in the workspace calls (or main): where the change surfaces (first ${SIDE_LIST_CAP}).`),
    via_container_by_module: z.record(z.string(), z.number().int()).describe('Dependents of the containers only (via_container), counted per module.'),
    related_tests: z.array(testSchema).describe(`Tests that reach the target, nearest first (the first ${SIDE_LIST_CAP} of the list related_tests pages through).`),
    affected_files: z.array(z.string()).describe('Files holding affected nodes.'),
    co_change: coChangeEvidenceSchema,
    ...memoryNotesFields('the target and the affected symbols and files'),
    total_affected: z.number().int().describe('All dependents (uncapped).'),
    total_direct: z.number().int().describe('Dependents of the target itself at distance 1, bound by more than a name.'),
    total_direct_name_only: z.number().int().describe('Direct dependents bound by a name only (not in total_direct).'),
    total_via_container: z.number().int().describe('Dependents of the containers only.'),
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
  paged: 'affected',
  examples: [{ symbol: 'UserService.lookup', path: 'src/users.ts', repo: '.', depth: 3, limit: 50, offset: 0, follow_links: false }],
  async run(args, ctx) {
    const { symbol, path, repo, depth, limit, offset, follow_links } = args;
    const g = await ctx.engine.graph();
    const res = g.resolveOne(symbol, { repo_id: ctx.engine.repoFilter(repo), path });
    if (!res.target) {
      return { target: symbol, ...unresolvedAnswer(res, symbol), affected: [], affected_by_module: {}, via_container_by_module: {}, affected_entry_points: [], related_tests: [], affected_files: [], co_change: [], memories: [], total_memories: 0,
        total_affected: 0, total_direct: 0, total_direct_name_only: 0, total_via_container: 0, total_affected_files: 0, total_affected_modules: 0, total_affected_entry_points: 0, total_related_tests: 0,
        total: 0, offset, limit, truncated: false, next_offset: null };
    }
    const r = computeImpact(g, res.group, depth, { withContainers: true, followLinks: follow_links });
    if (!follow_links) {
      // dependents across a boundary (a client in another language) exist but were not walked: say so
      const across = [...g.linkEdgesOfMany(res.group, 'in').values()].flat();
      if (across.length) r.boundaries.push({ kind: 'unfollowed_links', detail: `${across.length} cross-boundary link(s) reach the target (${[...new Set(across.map(e => e.edge.kind.replace(/^link_/, '')))].join(', ')}: e.g. ${across[0]!.neighbour.path}:${across[0]!.neighbour.start_line}); call again with follow_links: true to include them` });
    }
    const files = [...new Set(r.affected.map(a => a.node.path))];
    const count = (list: typeof r.affected) => {
      const m = new Map<string, number>();
      for (const a of list) m.set(moduleOf(a.node), (m.get(moduleOf(a.node)) ?? 0) + 1);
      return [...m].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    };
    const modules = count(r.affected);
    const viaContainer = r.affected.filter(a => a.via_container);
    const page = r.affected.slice(offset, offset + limit);
    // memories on the target (rank 0) and on every dependent (by distance), whatever the page
    const notes = await MemoryNotes.open(ctx.engine);
    const found = new NoteCollector();
    if (!notes.empty) {
      for (const n of res.group) found.add(notes.onNode(n), toNodeRef(n).id, 0);
      for (const a of r.affected) found.add(notes.onNode(a.node), toNodeRef(a.node).id, a.distance + (a.via_container ? 10 : 0));
    }
    const side = Math.min(limit, SIDE_LIST_CAP);
    const truncated = r.affected.length > offset + limit || files.length > limit || modules.length > limit || r.entryPoints.length > side || r.tests.length > side;
    return {
      target: symbol, resolved: [toNodeRef(res.target)], ambiguous: [], matched_by: res.matched_by,
      affected: page.map(a => ({ node: toNodeRef(a.node), distance: a.distance, resolution: resolutionOf(a.confidence), confidence: a.confidence, via_container: a.via_container, name_only: a.name_only, via: a.via.evidence, provider: a.via.provider })),
      affected_by_module: Object.fromEntries(modules.slice(0, limit)),
      via_container_by_module: Object.fromEntries(count(viaContainer).slice(0, limit)),
      affected_entry_points: r.entryPoints.slice(0, side).map(a => toNodeRef(a.node)),
      related_tests: r.tests.slice(0, side).map(toTestRef),
      affected_files: files.slice(0, limit),
      co_change: coChangeEvidence(await ctx.engine.history(), [{ repo_id: res.target.repo_id, path: res.target.path }]),
      ...found.result(),
      total_affected: r.affected.length,
      total_direct: r.affected.filter(a => a.distance === 1 && !a.via_container && !a.name_only).length,
      total_direct_name_only: r.affected.filter(a => a.distance === 1 && !a.via_container && a.name_only).length,
      total_via_container: viaContainer.length,
      total_affected_files: files.length, total_affected_modules: modules.length, total_affected_entry_points: r.entryPoints.length, total_related_tests: r.tests.length,
      total: r.affected.length, offset, limit, truncated, next_offset: r.affected.length > offset + limit ? offset + limit : null,
      complete: r.boundaries.length === 0, boundaries: r.boundaries,
    };
  },
  render(r, budget) {
    if (!r.resolved.length) return renderUnresolved('impact', r.target, r.ambiguous);
    const t = r.resolved[0]!;
    const nameOnly = r.total_direct_name_only ? ` (+${r.total_direct_name_only} bound by name only)` : '';
    const head = `**impact** of ${t.kind} ${code(nodeLabel(t))} (${t.path}:${t.line}) — ${r.total_direct} direct dependent(s)${nameOnly}, ${r.total_affected - r.total_via_container} in all${r.total_via_container ? ` (+${r.total_via_container} through its containers)` : ''}, in ${r.total_affected_files} file(s); ${r.complete ? 'complete' : '**lower bound**'}${notesSummary(r)}`;
    const items = [...noteLines(r), ...r.affected.filter(a => !a.via_container).map(affectedLine),
      ...r.related_tests.map(x => testLine(x, 'test ')),
      ...r.affected.filter(a => a.via_container).map(a => `${affectedLine(a)} (through a container)`)];
    const vc = Object.entries(r.via_container_by_module);
    const footer = [
      Object.keys(r.affected_by_module).length ? `by module: ${Object.entries(r.affected_by_module).map(([m, n]) => `${m} ${n}`).join(', ')}` : '',
      r.total_via_container ? `through its containers only (class, module or file): ${r.total_via_container} — ${vc.map(([m, n]) => `${m} ${n}`).join(', ')}` : '',
      r.affected_entry_points.length ? `entry points: ${r.affected_entry_points.map(n => code(nodeLabel(n))).join(', ')}` : '',
      r.co_change.length ? `usually changes with (git co-change, not edges): ${r.co_change.map(c => `${code(c.partner)} ×${c.together_count}`).join(', ')}` : '',
      testsTotal(r.total_related_tests, r.related_tests.length),
      r.truncated ? `_Lists capped at ${r.limit}${r.next_offset !== null ? `; call again with offset=${r.next_offset} for more dependents` : ''}._` : '',
      ...r.boundaries.map(b => `⚠ ${b.kind}: ${b.detail}`),
      r.total_affected === 0 && !r.complete ? '⚠ No dependents were found, but this is **not** "no impact": see the boundaries above.' : '',
    ].filter(Boolean).join('\n');
    return budgeted(head, items, footer, budget);
  },
});
