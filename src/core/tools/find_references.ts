import { z } from 'zod';
import { defineTool, code, budgeted, pageInput, pageOutput, page, pageNotice } from './contract';
import { completeness, nodeSchema, pathParam, repoParam, symbolParam, unresolvedAnswer, matchedBySchema, nodeLabel, renderUnresolved } from './shared';
import { toNodeRef, type GraphEdge } from '../graph/query';
import { isTestPath } from '../languages';
import { isNameOnly } from '../graph/tests';
import type { NodeRow } from '../store/store';

/** Every stored kind of use; contains_test_for (a test's call) is folded into the call it duplicates. */
const USAGE_KINDS = ['calls', 'references', 'imports', 'extends', 'implements', 'contains_test_for'] as const;
type UsageKind = (typeof USAGE_KINDS)[number];

const referenceSchema = z.object({
  from: nodeSchema.describe('The definition (or file, for top-level code) that uses the symbol: the use is in its file.'),
  line: z.number().int().nullable().describe('Line of the use (the first one seen), when the provider reported it.'),
  kinds: z.array(z.string()).describe('How it uses the symbol: calls, references, imports, extends, implements (contains_test_for only for a test file linked by name).'),
  in_test: z.boolean().describe('True when the use is in test code.'),
  provider: z.string().describe('Provider of the strongest edge: heuristic, lsp:<language> or an external provider.'),
  confidence: z.number().describe('Confidence of the strongest edge, 0..1.'),
  resolution: z.enum(['exact', 'best_effort']).describe('exact when confidence >= 0.9 (compiler-grade), else best_effort.'),
  evidence: z.string().describe('Why the strongest edge exists.'),
  other_providers: z.array(z.object({ provider: z.string().describe('Provider name.'), confidence: z.number().describe('Its confidence.') })).describe('Other providers that reported the same use.'),
});

export const findReferences = defineTool({
  name: 'find_references',
  title: 'Find references',
  description: 'Every use of a symbol (calls, imports, type and value references, subclassing; source and tests), one row per using definition, providers merged, per-kind counts. complete=false with boundaries: a lower bound.',
  input: z.object({
    symbol: symbolParam,
    path: pathParam,
    repo: repoParam,
    kinds: z.array(z.enum(USAGE_KINDS)).min(1).optional()
      .describe('Only these kinds (default all; others counted in other_kinds).'),
    min_confidence: z.number().min(0).max(1).default(0).describe('Drop uses below this confidence.'),
    ...pageInput(50),
  }),
  output: z.object({
    target: z.string().describe('The symbol argument as given.'),
    resolved: z.array(nodeSchema).describe('The node the target resolved to (empty when ambiguous).'),
    ambiguous: z.array(nodeSchema).describe('Candidates when several symbols match: call again with one of their ids.'),
    matched_by: matchedBySchema,
    references: z.array(referenceSchema).describe('Uses, production code first, then by confidence.'),
    counts: z.record(z.string(), z.number().int()).describe('Uses per kind among the returned kinds (a use of two kinds counts in both).'),
    other_kinds: z.record(z.string(), z.number().int()).describe('Uses of kinds left out by kinds, per kind (empty when kinds is not given).'),
    in_tests: z.number().int().describe('How many of the uses are in test code.'),
    ...pageOutput,
    ...completeness,
  }),
  annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
  paged: 'references',
  examples: [{ symbol: 'UserRecord', path: 'src/users.ts', repo: '.', kinds: ['references', 'calls'], min_confidence: 0, limit: 50, offset: 0 }],
  async run(args, ctx) {
    const { symbol, path, repo, kinds, min_confidence, limit, offset } = args;
    const g = await ctx.engine.graph();
    const r = g.resolveOne(symbol, { repo_id: ctx.engine.repoFilter(repo), path });
    if (!r.target) {
      return { target: symbol, ...unresolvedAnswer(r, symbol), references: [], counts: {}, other_kinds: {}, in_tests: 0, ...page(0, offset, limit, 0) };
    }
    const sites = usingSites(g.edgesInto(r.group, USAGE_KINDS));
    const wanted = new Set<string>(kinds ?? USAGE_KINDS);
    const counts: Record<string, number> = {}; const other: Record<string, number> = {};
    const rows: Site[] = [];
    let low = 0;
    for (const s of sites) {
      if (s.best.confidence < min_confidence) continue;
      const hit = s.kinds.filter(k => wanted.has(k));
      if (!hit.length) { for (const k of s.kinds) other[k] = (other[k] ?? 0) + 1; continue; }
      for (const k of hit) counts[k] = (counts[k] ?? 0) + 1;
      if (isNameOnly(s.best)) low++;
      rows.push({ ...s, kinds: hit });
    }
    const boundaries = g.boundaries(r.group, low);
    const slice = rows.slice(offset, offset + limit);
    return {
      target: symbol, resolved: [toNodeRef(r.target)], ambiguous: [], matched_by: r.matched_by,
      references: slice.map(s => ({ from: toNodeRef(s.from), line: s.line, kinds: s.kinds, in_test: s.in_test, provider: s.best.provider, confidence: s.best.confidence,
        resolution: s.best.resolution, evidence: s.best.evidence, other_providers: s.others })),
      counts, other_kinds: kinds ? other : {}, in_tests: rows.filter(s => s.in_test).length,
      ...page(rows.length, offset, limit, slice.length), complete: boundaries.length === 0, boundaries,
    };
  },
  render(r, budget) {
    if (!r.resolved.length) return renderUnresolved('find_references', r.target, r.ambiguous);
    const t = r.resolved[0]!;
    const byKind = Object.entries(r.counts).map(([k, n]) => `${k} ${n}`).join(', ');
    const head = `**find_references** ${t.kind} ${code(nodeLabel(t))} (${t.path}:${t.line}) — ${r.total} use(s)${byKind ? ` (${byKind}; ${r.in_tests} in tests)` : ''}; ${r.complete ? 'complete' : '**lower bound**'}`;
    const items = r.references.map(x => `- ${x.from.path}:${x.line ?? x.from.line} ${code(nodeLabel(x.from))} · ${x.kinds.join('+')}${x.in_test ? ' (test)' : ''} · ${x.resolution} ${x.confidence} ${x.provider}${x.other_providers.length ? `+${x.other_providers.map(o => o.provider).join('+')}` : ''} — ${x.evidence}`);
    const others = Object.entries(r.other_kinds);
    const footer = [pageNotice(r, 'uses'), others.length ? `not shown (kinds): ${others.map(([k, n]) => `${k} ${n}`).join(', ')}` : '', ...r.boundaries.map(b => `⚠ ${b.kind}: ${b.detail}`),
      r.total === 0 && !r.complete ? '⚠ No uses found, but the list is a lower bound (see above): this is not proof of no use.' : ''].filter(Boolean).join('\n');
    return budgeted(head, items, footer, budget);
  },
});

interface Site { from: NodeRow; line: number | null; kinds: UsageKind[]; in_test: boolean; best: GraphEdge; others: { provider: string; confidence: number }[] }

/** Edges into the target grouped by the using node: one row per using site, strongest provider first. */
function usingSites(edges: { neighbour: NodeRow; edge: GraphEdge }[]): Site[] {
  const by = new Map<number, { from: NodeRow; edges: GraphEdge[] }>();
  for (const e of edges) (by.get(e.neighbour.node) ?? by.set(e.neighbour.node, { from: e.neighbour, edges: [] }).get(e.neighbour.node)!).edges.push(e.edge);
  const out: Site[] = [];
  for (const { from, edges: list } of by.values()) {
    list.sort((a, b) => b.confidence - a.confidence || Number(b.kind !== 'contains_test_for') - Number(a.kind !== 'contains_test_for'));
    const kinds = [...new Set(list.map(e => e.kind))] as UsageKind[];
    // A test's call is stored twice (calls and contains_test_for): it is one use.
    const folded = kinds.length > 1 ? kinds.filter(k => k !== 'contains_test_for') : kinds;
    const best = list.find(e => e.kind !== 'contains_test_for') ?? list[0]!;
    const others = new Map<string, number>();
    for (const e of list) if (e.provider !== best.provider) others.set(e.provider, Math.max(others.get(e.provider) ?? 0, e.confidence));
    out.push({ from, line: list.find(e => e.line !== null)?.line ?? null, kinds: folded, in_test: isTestPath(from.path), best,
      others: [...others].map(([provider, confidence]) => ({ provider, confidence })) });
  }
  return out.sort((a, b) => Number(a.in_test) - Number(b.in_test) || b.best.confidence - a.best.confidence || a.from.path.localeCompare(b.from.path) || (a.line ?? 0) - (b.line ?? 0));
}
