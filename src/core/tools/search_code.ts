import { z } from 'zod';
import { defineTool, pageInput, pageOutput, page, pageNotice, budgeted, code } from './contract';
import { languageParam, queryParam, repoParam, searchHitSchema } from './shared';
import type { SearchHit } from '../search/search';

export function renderHit(h: SearchHit, i: number): string {
  const what = h.symbol_path ? `${h.kind} ${code(h.symbol_path)}` : 'top-level code';
  return `${i}. ${code(`${h.path}:${h.start_line}-${h.end_line}`)} ${what} · ${h.language} · score ${h.score} · chunk ${code(h.chunk_id)}`;
}

export const searchOutput = z.object({
  query: z.string().describe('The query as given.'),
  terms: z.array(z.string()).describe('Search terms after identifier splitting and stop-word removal.'),
  results: z.array(searchHitSchema).describe('Matching chunks, best first. Metadata only: use get_chunk for source text.'),
  ...pageOutput,
  warnings: z.array(z.string()).describe('Why a result set may be empty or incomplete (e.g. nothing indexed yet).'),
});

export async function emptyIndexWarnings(engine: { status(): Promise<{ file_count: number }>; diagnostics(): { code: string; message: string }[] }): Promise<string[]> {
  const s = await engine.status();
  if (s.file_count !== 0) return [];
  const corrupt = engine.diagnostics().find(d => d.code === 'index_corrupt');
  return [corrupt ? `${corrupt.message}: run index_repo (or "sightline index DIR")` : 'the index is empty: run index_repo (or "sightline index DIR") first'];
}

export const searchCode = defineTool({
  name: 'search_code',
  title: 'Search code',
  description: 'Where to look: ranked functions, methods, classes and top-level code for words, identifiers or a question. '
    + 'BM25 over identifier-aware tokens (names and paths weighted up); vector=true adds a feature-hashing signal (not a semantic model) for ties. '
    + 'Metadata only; get_chunk gives the text.',
  input: z.object({
    query: queryParam,
    repo: repoParam,
    language: languageParam,
    vector: z.boolean().default(false).describe('Add the local_hash_vector signal for ties.'),
    ...pageInput(10, 100),
  }),
  output: searchOutput,
  annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
  paged: 'results',
  examples: [{ query: 'retry failed payment', repo: '.', language: 'typescript', vector: true, limit: 5, offset: 0 }],
  async run(args, ctx) {
    const { query, repo, language, vector, limit, offset } = args;
    const r = await ctx.engine.search({ query, repo, language, vector, limit, offset });
    const warnings = r.total === 0 ? await emptyIndexWarnings(ctx.engine) : [];
    if (r.total === 0 && !warnings.length) warnings.push(r.terms.length ? 'no indexed chunk contains any of the search terms' : 'the query has no searchable words');
    return { query, terms: r.terms, results: r.results, ...page(r.total, offset, limit, r.results.length), warnings };
  },
  render(r, budget) {
    const header = `**search_code** ${code(r.query)} — ${r.total} match(es)`;
    const items = r.results.map((h, i) => renderHit(h, r.offset + i + 1));
    const footer = [pageNotice(r), ...r.warnings.map(w => `⚠ ${w}`)].filter(Boolean).join('\n');
    return budgeted(header, items, footer, budget);
  },
});
