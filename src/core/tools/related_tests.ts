import { z } from 'zod';
import { defineTool, code, budgeted, pageInput, pageOutput, page, pageNotice } from './contract';
import {
  completeness, nodeSchema, pathParam, repoParam, symbolParam, unresolvedAnswer, matchedBySchema, nodeLabel,
  renderUnresolved, testSchema, toTestRef, testLine,
} from './shared';
import { toNodeRef } from '../graph/query';
import { testsOf, testsBoundaries } from '../graph/tests';

export const relatedTests = defineTool({
  name: 'related_tests',
  title: 'Related tests',
  description: 'Tests to run after changing a symbol: test functions or test-file bodies reaching it through any number of calls, '
    + 'likely first, then nearest; test-file helpers appear in via. complete=false (depth_limit: search cut) means a lower bound.',
  input: z.object({
    symbol: symbolParam,
    path: pathParam,
    repo: repoParam,
    ...pageInput(20),
  }),
  output: z.object({
    symbol: z.string().describe('The symbol argument as given.'),
    resolved: z.array(nodeSchema).describe('The node the symbol resolved to (empty when ambiguous).'),
    ambiguous: z.array(nodeSchema).describe('Candidates when several symbols match.'),
    matched_by: matchedBySchema,
    tests: z.array(testSchema).describe('Related tests: likely first, then nearest, then strongest link.'),
    likely_total: z.number().int().describe('How many of all the related tests (every page) are likely.'),
    ...pageOutput,
    ...completeness,
  }),
  annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
  paged: 'tests',
  examples: [{ symbol: 'PaymentRetrier.retry_failed_payment', path: 'src/payments/retry.py', repo: '.', limit: 20, offset: 0 }],
  async run(args, ctx) {
    const { symbol, path, repo, limit, offset } = args;
    const g = await ctx.engine.graph();
    const r = g.resolveOne(symbol, { repo_id: ctx.engine.repoFilter(repo), path });
    if (!r.target) return { symbol, ...unresolvedAnswer(r, symbol), tests: [], likely_total: 0, ...page(0, offset, limit, 0) };
    const t = testsOf(g, r.group);
    const boundaries = testsBoundaries(g, r.group, t);
    const slice = t.tests.slice(offset, offset + limit);
    const likely_total = t.tests.filter(x => x.likely).length;
    return { symbol, resolved: [toNodeRef(r.target)], ambiguous: [], matched_by: r.matched_by, tests: slice.map(toTestRef), likely_total,
      ...page(t.tests.length, offset, limit, slice.length), complete: boundaries.length === 0, boundaries };
  },
  render(r, budget) {
    if (!r.resolved.length) return renderUnresolved('related_tests', r.symbol, r.ambiguous);
    const t = r.resolved[0]!;
    const odds = `${r.likely_total} likely, ${r.total - r.likely_total} possible`;
    const head = `**related_tests** for ${code(nodeLabel(t))} — ${r.total} test(s) (${odds}); ${r.complete ? 'complete' : '**lower bound**'}`;
    const items = r.tests.map(x => testLine(x));
    const footer = [pageNotice(r, 'tests'), ...r.boundaries.map(b => `⚠ ${b.kind}: ${b.detail}`), r.total === 0 ? '⚠ No related test was found; that does not prove none exercises it.' : ''].filter(Boolean).join('\n');
    return budgeted(head, items, footer, budget);
  },
});
