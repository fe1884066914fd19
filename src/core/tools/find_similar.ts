import { z } from 'zod';
import { hasIdPrefix } from '../util/ids';
import { defineTool, code, budgeted, pageInput, pageOutput, page, pageNotice } from './contract';
import { completeness, languageParam, matchedBySchema, nodeLabel, nodeSchema, pathParam, renderUnresolved, repoParam, symbolParam, unresolvedAnswer } from './shared';
import { toNodeRef } from '../graph/query';
import { SightlineError } from '../errors';
import { LSH_BANDS, SHINGLE_K, SIG_SLOTS } from '../similar/shape';

const matchSchema = z.object({
  chunk_id: z.string().describe('Chunk id: the argument of get_chunk, and of any tool that takes a symbol.'),
  repo_id: z.string().describe('Repository of the match.'),
  path: z.string().describe('Repository-relative file path.'),
  start_line: z.number().int().describe('First line, 1-based.'),
  end_line: z.number().int().describe('Last line, 1-based.'),
  symbol_path: z.string().nullable().describe('Qualified path of the definition, null for top-level code.'),
  kind: z.string().describe('Definition kind, or top_level.'),
  score: z.number().describe('Jaccard similarity (0..1) of the two sets of normalised token shingles: 1 = same code up to names and literals.'),
  estimated: z.boolean().describe('True when score is the MinHash estimate (the file changed or could not be read), not the exact Jaccard.'),
  test: z.boolean().describe('True for test code.'),
  generated: z.boolean().describe('True for generated code (dist/, *.min.js, *_pb2.py, *.generated.*, or a generated / DO NOT EDIT header).'),
  generated_reason: z.enum(['path', 'header']).nullable().describe('Why it counts as generated.'),
  stale: z.boolean().describe('True when the file changed on disk since indexing.'),
  head: z.string().nullable().describe('First non-blank line of the chunk.'),
  shared: z.object({
    estimated_jaccard: z.number().describe('Share of equal MinHash slots (what found the candidate).'),
    shingles_shared: z.number().int().describe('Shingles both have.'),
    shingles_query: z.number().int().describe('Distinct shingles of the query.'),
    shingles_match: z.number().int().describe('Distinct shingles of the match.'),
    identifier_overlap: z.number().describe('Jaccard of the identifier sets (low with a high score: the same shape under other names).'),
    same_identifiers: z.array(z.string()).describe('Identifiers both use (first 20).'),
  }).describe('What the two have in common.'),
});

export const findSimilar = defineTool({
  name: 'find_similar',
  title: 'Find similar code',
  description: 'Code built the same way as a symbol or snippet ("how do we do this here?", near-duplicates): chunks ranked by the Jaccard similarity of token shingles with names and literals abstracted, found through MinHash signatures. The query itself is left out; tests and generated code are marked.',
  input: z.object({
    symbol: symbolParam.optional(),
    snippet: z.string().min(1).max(200_000).optional().describe('Code text to compare instead of a symbol.'),
    path: pathParam,
    repo: repoParam,
    language: languageParam,
    include_tests: z.boolean().default(true).describe('false: test code is left out (counted in tests_left_out).'),
    min_score: z.number().min(0).max(1).default(0.3).describe('Lowest score returned.'),
    ...pageInput(10),
  }),
  output: z.object({
    query: z.string().describe('The symbol argument, or the snippet\'s first line.'),
    query_shape: z.object({
      kind: z.enum(['symbol', 'snippet']).describe('What was compared.'),
      tokens: z.number().int().describe('Tokens of the query text.'),
      shingles: z.number().int().describe('Distinct shingles of the query text.'),
      identifiers: z.number().int().describe('Distinct identifiers of the query text.'),
    }).describe('The query as compared.'),
    resolved: z.array(nodeSchema).describe('The node the symbol resolved to (empty for a snippet or when ambiguous).'),
    ambiguous: z.array(nodeSchema).describe('Candidates when several symbols match: call again with one of their ids.'),
    matched_by: matchedBySchema,
    matches: z.array(matchSchema).describe('Similar chunks, highest score first; the query\'s own chunks left out.'),
    method: z.object({
      signal: z.literal('minhash_jaccard').describe('The scoring signal.'),
      shingle_tokens: z.number().int().describe('Tokens per shingle.'),
      signature_slots: z.number().int().describe('MinHash slots per chunk.'),
      lsh_bands: z.number().int().describe('LSH bands.'),
      indexed_chunks: z.number().int().describe('Chunks with a signature (large enough to compare).'),
      lsh_candidates: z.number().int().describe('Chunks sharing an LSH band with the query.'),
      scanned: z.boolean().describe('True when every signature was also estimated (banding alone could not fill the page).'),
      compared: z.number().int().describe('Chunks compared exactly.'),
    }).describe('How the matches were found.'),
    tests_left_out: z.number().int().describe('Test chunks at or above min_score left out by include_tests=false.'),
    warnings: z.array(z.string()).describe('Why the answer may be empty (query too small, nothing indexed).'),
    ...pageOutput,
    ...completeness,
  }),
  annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
  paged: 'matches',
  examples: [
    { symbol: 'PaymentRetrier.retry_failed_payment', path: 'src/payments/retry.py', repo: '.', language: 'python', include_tests: false, min_score: 0.3, limit: 10, offset: 0 },
    { snippet: 'for (const item of items) {\n  if (!item.ok) continue;\n  total += item.amount * rate;\n}\nreturn total;', min_score: 0.2 },
  ],
  async run(args, ctx) {
    const { symbol, snippet, path, repo, language, include_tests, min_score, limit, offset } = args;
    if ((symbol === undefined) === (snippet === undefined)) throw new SightlineError('invalid_arguments', 'find_similar takes either symbol or snippet (exactly one)');
    const repo_id = ctx.engine.repoFilter(repo);
    const base = { repo_id, language, include_tests, min_score, limit, offset };
    let resolved: ReturnType<typeof toNodeRef>[] = []; let matched_by: string | null = null;
    let r;
    if (symbol !== undefined) {
      const g = await ctx.engine.graph();
      const res = g.resolveOne(symbol, { repo_id, path });
      if (!res.target) {
        return { query: symbol, query_shape: { kind: 'symbol' as const, tokens: 0, shingles: 0, identifiers: 0 }, ...unresolvedAnswer(res, symbol), matches: [], method: method(), tests_left_out: 0, warnings: [], ...page(0, offset, limit, 0) };
      }
      // Overloads with bodies of their own (Java, C#, C++) are separate code: the one an id names is the
      // query and its siblings may match it. Signatures and stubs (TypeScript, Python @overload) are
      // parts of their implementation: the query is the implementation, and they are left out with it.
      const bodied = res.group.filter(n => n.end_line - n.start_line >= 2).length > 1;
      const named = bodied && hasIdPrefix(symbol, 'symbol') ? res.group.find(n => toNodeRef(n).id === symbol) : undefined;
      const t = named ?? res.target;
      resolved = [toNodeRef(t)]; matched_by = res.matched_by;
      r = await ctx.engine.similar({ ...base, target: { repo_id: t.repo_id, path: t.path, file_id: t.file_id, symbol_path: t.symbol_path, kind: t.kind, start_line: t.start_line, end_line: t.end_line, language: t.language,
        also: bodied ? [] : res.group.filter(n => n.file_id === t.file_id && n !== t).map(n => ({ start_line: n.start_line, end_line: n.end_line })) } });
    } else {
      r = await ctx.engine.similar({ ...base, snippet });
    }
    const query = symbol ?? (snippet!.split('\n').find(l => l.trim())?.trim().slice(0, 160) ?? '');
    return {
      query, query_shape: r.query, resolved, ambiguous: [], matched_by, matches: r.matches,
      method: method(r.search), tests_left_out: r.tests_left_out, warnings: r.warnings,
      ...page(r.total, offset, limit, r.matches.length), complete: r.boundaries.length === 0, boundaries: r.boundaries,
    };
  },
  render(r, budget) {
    if (!r.resolved.length && r.ambiguous.length) return renderUnresolved('find_similar', r.query, r.ambiguous);
    const what = r.resolved[0] ? `${r.resolved[0].kind} ${code(nodeLabel(r.resolved[0]))} (${r.resolved[0].path}:${r.resolved[0].line})` : `snippet ${code(r.query)}`;
    const head = `**find_similar** ${what} — ${r.total} match(es) by shape (Jaccard of ${r.method.shingle_tokens}-token shingles, names and literals abstracted; ${r.query_shape.shingles} shingles); ${r.complete ? 'complete' : '**lower bound**'}`;
    const items = r.matches.map((m, i) => {
      const marks = [m.test ? 'test' : '', m.generated ? `generated (${m.generated_reason})` : '', m.estimated ? 'estimated' : '', m.stale ? 'stale' : ''].filter(Boolean).join(', ');
      const ids = m.shared.same_identifiers.length ? ` · same names: ${m.shared.same_identifiers.slice(0, 6).map(x => code(x)).join(', ')}${m.shared.same_identifiers.length > 6 ? ' …' : ''}` : ' · no names in common';
      return `${r.offset + i + 1}. ${code(`${m.path}:${m.start_line}-${m.end_line}`)} ${m.symbol_path ? `${m.kind} ${code(m.symbol_path)}` : 'top-level code'} · score ${m.score} (${m.shared.shingles_shared}/${m.shared.shingles_query} shingles shared)${ids}${marks ? ` · ${marks}` : ''} · ${code(m.chunk_id)}`;
    });
    const footer = [pageNotice(r, 'similar chunks'), r.tests_left_out ? `${r.tests_left_out} test chunk(s) left out (include_tests=false)` : '', ...r.warnings.map(w => `⚠ ${w}`), ...r.boundaries.map(b => `⚠ ${b.kind}: ${b.detail}`),
      r.total === 0 && !r.warnings.length ? 'No chunk reaches min_score: lower it to see looser matches.' : ''].filter(Boolean).join('\n');
    return budgeted(head, items, footer, budget);
  },
});

function method(s?: { indexed_chunks: number; lsh_candidates: number; scanned: boolean; compared: number }) {
  return { signal: 'minhash_jaccard' as const, shingle_tokens: SHINGLE_K, signature_slots: SIG_SLOTS, lsh_bands: LSH_BANDS,
    indexed_chunks: s?.indexed_chunks ?? 0, lsh_candidates: s?.lsh_candidates ?? 0, scanned: s?.scanned ?? false, compared: s?.compared ?? 0 };
}
