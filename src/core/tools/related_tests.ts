import { z } from 'zod';
import { defineTool, code, budgeted, pageInput, pageOutput, page, pageNotice } from './contract';
import { completeness, nodeSchema, pathParam, repoParam, symbolParam } from './shared';
import { toNodeRef, resolutionOf, type GraphReader } from '../graph/query';
import { isTestPath } from '../graph/languages';
import type { NodeRow } from '../store/store';

/** Edges bound only by a method name (receiver type unknown) count for a test only if the test also reaches the method's class. */
const NAME_ONLY = 0.5;

function reachesClass(g: GraphReader, test: NodeRow, cls: NodeRow): boolean {
  const seen = new Set<number>([test.node]);
  let frontier = [test, ...(test.kind !== 'file' ? [g.nodes([-test.file_id]).get(-test.file_id)!].filter(Boolean) : [])];
  for (let d = 0; d < 3 && frontier.length; d++) {
    const next: NodeRow[] = [];
    for (const n of frontier) for (const { neighbour, edge } of g.edges(n, 'out', ['calls', 'references', 'imports'])) {
      if (edge.confidence < NAME_ONLY) continue;
      if (neighbour.node === cls.node) return true;
      if (!seen.has(neighbour.node)) { seen.add(neighbour.node); next.push(neighbour); }
    }
    frontier = next;
  }
  return false;
}

export const relatedTests = defineTool({
  name: 'related_tests',
  title: 'Related tests',
  description: 'Which tests to run after changing a symbol: tests that reach it through calls or references (up to 3 hops), plus tests named after its file. '
    + 'A call on an object of unknown type binds by method name only; such a test counts only when it also reaches the method\'s class. Each test carries its reason and resolution; complete=false with boundaries when the list is a lower bound. Read-only.',
  input: z.object({
    symbol: symbolParam,
    path: pathParam,
    repo: repoParam,
    ...pageInput(20, 200),
  }),
  output: z.object({
    symbol: z.string().describe('The symbol argument as given.'),
    resolved: z.array(nodeSchema).describe('The node the symbol resolved to (empty when ambiguous).'),
    ambiguous: z.array(nodeSchema).describe('Candidates when several symbols match.'),
    tests: z.array(z.object({ node: nodeSchema, reason: z.string().describe('How the test reaches the symbol.'), resolution: z.enum(['exact', 'best_effort']).describe('Resolution of the weakest link.') })).describe('Related tests, strongest link first.'),
    ...pageOutput,
    ...completeness,
  }),
  annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
  examples: [{ symbol: 'PaymentRetrier.retry_failed_payment', path: 'src/payments/retry.py', repo: '.', limit: 20, offset: 0 }],
  async run(args, ctx) {
    const { symbol, path, repo, limit, offset } = args;
    const g = await ctx.engine.graph();
    const { target, ambiguous } = g.resolveOne(symbol, { repo_id: ctx.engine.repoFilter(repo), path });
    if (!target) return { symbol, resolved: [], ambiguous: ambiguous.map(toNodeRef), tests: [], ...page(0, offset, limit, 0), complete: false,
      boundaries: [{ kind: 'heuristic_only' as const, detail: `${ambiguous.length} symbols match ${symbol}; call again with one of their ids` }] };
    const cls = target.kind === 'method' ? g.containers(target).find(c => c.kind !== 'file' && c.kind !== 'module') : undefined;
    const found = new Map<number, { node: NodeRow; reason: string; confidence: number }>();
    let low = 0;
    const seen = new Set<number>([target.node]);
    let frontier: { node: NodeRow; confidence: number; hops: number }[] = [{ node: target, confidence: 1, hops: 0 }];
    for (let d = 1; d <= 3 && frontier.length; d++) {
      const next: typeof frontier = [];
      for (const f of frontier) {
        for (const { neighbour, edge } of g.edges(f.node, 'in', ['calls', 'references', 'contains_test_for'])) {
          if (seen.has(neighbour.node)) continue;
          seen.add(neighbour.node);
          const conf = Math.min(f.confidence, edge.confidence);
          if (isTestPath(neighbour.path)) {
            if (edge.confidence < NAME_ONLY && cls && !reachesClass(g, neighbour, cls)) { low++; continue; }
            found.set(neighbour.node, { node: neighbour, confidence: conf, reason: d === 1 ? edge.evidence : `reaches ${target.symbol_path} in ${d} hops; last: ${edge.evidence}` });
          } else next.push({ node: neighbour, confidence: conf, hops: d });
        }
      }
      frontier = next;
    }
    // Naming convention on the file level.
    const file = g.nodes([-target.file_id]).get(-target.file_id);
    if (file) for (const { neighbour, edge } of g.edges(file, 'in', ['contains_test_for'])) {
      if (!found.has(neighbour.node)) found.set(neighbour.node, { node: neighbour, confidence: edge.confidence, reason: edge.evidence });
    }
    const all = [...found.values()].sort((a, b) => b.confidence - a.confidence || a.node.path.localeCompare(b.node.path) || a.node.start_line - b.node.start_line);
    const boundaries = g.boundaries([target], low);
    const slice = all.slice(offset, offset + limit);
    return { symbol, resolved: [toNodeRef(target)], ambiguous: [], tests: slice.map(t => ({ node: toNodeRef(t.node), reason: t.reason, resolution: resolutionOf(t.confidence) })),
      ...page(all.length, offset, limit, slice.length), complete: boundaries.length === 0, boundaries };
  },
  render(r, budget) {
    if (!r.resolved.length) return [`**related_tests** ${code(r.symbol)} is ambiguous — call again with one of these ids:`, ...r.ambiguous.map(n => `- ${code(n.id)} (${n.kind}, ${n.path}:${n.range.start_line})`)].join('\n');
    const t = r.resolved[0]!;
    const head = `**related_tests** for ${code(t.symbol_path ?? t.path)} — ${r.total} test(s); ${r.complete ? 'complete' : '**lower bound**'}`;
    const items = r.tests.map(x => `- ${code(x.node.symbol_path ?? x.node.path)} ${x.node.path}:${x.node.range.start_line} · ${x.resolution} — ${x.reason}`);
    const footer = [pageNotice(r, 'tests'), ...r.boundaries.map(b => `⚠ ${b.kind}: ${b.detail}`), r.total === 0 ? '⚠ No related test was found; that does not prove none exercises it.' : ''].filter(Boolean).join('\n');
    return budgeted(head, items, footer, budget);
  },
});
