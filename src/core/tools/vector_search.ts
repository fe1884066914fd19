import { z } from 'zod';
import { defineTool, pageInput, page, pageNotice, budgeted, code } from './contract';
import { languageParam, queryParam, repoParam } from './shared';
import { emptyIndexWarnings, renderHit, searchOutput } from './search_code';

export const vectorSearch = defineTool({
  name: 'vector_search',
  title: 'Vector search (local hash vector)',
  description: 'Only the local_hash_vector signal: feature-hashed token vectors (shared vocabulary, not a semantic model). '
    + 'Prefer search_code; use it for chunks sharing wording with a snippet.',
  input: z.object({
    query: queryParam,
    repo: repoParam,
    language: languageParam,
    ...pageInput(10),
  }),
  output: searchOutput,
  annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
  paged: 'results',
  examples: [{ query: 'parse config file', repo: '.', language: 'python', limit: 5, offset: 0 }],
  async run(args, ctx) {
    const { query, repo, language, limit, offset } = args;
    const r = await ctx.engine.vectorSearch({ query, repo, language, limit, offset });
    const warnings = r.total === 0 ? await emptyIndexWarnings(ctx.engine) : [];
    if (r.total === 0 && !warnings.length) warnings.push('no chunk shares any hashed feature with the query');
    return { query, terms: r.terms, results: r.results, ...page(r.total, offset, limit, r.results.length), warnings };
  },
  render(r, budget) {
    const header = `**vector_search** ${code(r.query)} — ${r.total} chunk(s) with positive similarity (local_hash_vector)`;
    const items = r.results.map((h, i) => renderHit(h, r.offset + i + 1));
    const footer = [pageNotice(r), ...r.warnings.map(w => `⚠ ${w}`)].filter(Boolean).join('\n');
    return budgeted(header, items, footer, budget);
  },
});
