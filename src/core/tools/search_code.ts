import { z } from 'zod';
import { defineTool, pageInput, pageOutput, page, pageNotice, budgeted, code } from './contract';
import { languageParam, queryParam, repoParam, searchHitSchema } from './shared';
import type { SearchHit } from '../search/search';
import type { SearchAnswer } from '../adapters/service';

/** Characters of a query the adapters get as is; a longer one goes as its most informative terms. */
const PEER_QUERY_CHARS = 300;
import { MemoryNotes, memoryMarkerSchema, markerText } from './memory_notes';
import { fuseLists, peerQuery, LOCAL_WEIGHT } from '../adapters/fuse';

/** A search_code chunk: the shared hit, with the marker of the project memories on it. */
const codeHitSchema = searchHitSchema.extend({ memories: memoryMarkerSchema });

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

const fileSchema = z.object({
  path: z.string().describe('Repository-relative file path.'),
  repo_id: z.string().describe('Repository of the file.'),
  language: z.string().describe('Language of the file.'),
  score: z.number().describe('Fused score (see signals).'),
  signals: z.array(z.string()).describe('Signals that ranked it: bm25_file (whole-file text), bm25_chunk (best chunk, names and paths weighted), name (a definition named like a query term), path (query terms in its path), path_hint (the text names this file), local_hash_vector.'),
  test: z.boolean().describe('A test file (ranked below source unless include_tests; less so when the query mentions tests).'),
  chunks: z.array(codeHitSchema).describe('Its best chunks, best first.'),
  memories: memoryMarkerSchema,
});

/** A result of a configured adapter (team notes, another repository's search…), in the fused order. */
const externalSchema = z.object({
  source: z.string().describe('The adapter that answered.'),
  uri: z.string().nullable().describe('Where it lives (a URL or notes:// URI; get_chunk reads URIs an adapter owns).'),
  title: z.string().describe('Its title.'),
  snippet: z.string().nullable().describe('A short excerpt (at most 300 characters).'),
  kind: z.string().nullable().describe('Its kind as the adapter says (issue, note, code…).'),
  date: z.string().nullable().describe('Its date as the adapter says.'),
  rank: z.number().int().describe('Its rank in the adapter\'s answer (1 = first).'),
  fused_rank: z.number().int().describe('Its place among local files and every adapter\'s results, by weighted reciprocal rank (1 = first).'),
});
const sourceSchema = z.object({
  name: z.string().describe('Adapter name.'),
  ok: z.boolean().describe('True when it answered.'),
  items: z.number().int().describe('Results it gave.'),
  ms: z.number().int().describe('Time it took.'),
  weight: z.number().describe('Its weight in the fusion (local results 1.0).'),
  error: z.string().nullable().describe('Why it gave nothing (timeout, unreachable, cooling down…).'),
});

/** Characters of the query echoed back (a pasted issue is not repeated whole). */
const ECHO = 200;

/** search_code's answer. */
export const searchCodeOutput = z.object({
    query: z.string().describe(`The query as given (first ${ECHO} characters).`),
    terms: z.array(z.string()).describe('The terms searched, most informative first.'),
    paths_named: z.array(z.string()).describe('File paths the query names (traceback frames, file names).'),
    files: z.array(fileSchema).describe('Files, best first (group=file).'),
    results: z.array(codeHitSchema).describe('Chunks: the listed files\' best chunks (group=file), or the ranked chunks (group=chunk).'),
    external: z.array(externalSchema).describe('Results of the configured adapters (first page only), each with its place in the fused order; local files fill the other places in their own order.'),
    sources: z.array(sourceSchema).describe('The adapters asked and how each answered (empty: none configured, or external=false).'),
    ...pageOutput,
    warnings: z.array(z.string()).describe('Why a result set may be empty or incomplete.'),
});

export const searchCode = defineTool({
  name: 'search_code',
  title: 'Search code',
  description: 'Where to look: files ranked for words, identifiers, a question, or a pasted issue, traceback or log, with their best chunks and first lines; source above tests. get_chunk gives the text.',
  input: z.object({
    query: queryParam,
    repo: repoParam,
    language: languageParam,
    path: z.string().min(1).max(500).optional().describe('Glob of files to keep (src/**/*.py).'),
    include_tests: z.boolean().default(false).describe('Rank test files like source.'),
    group: z.enum(['file', 'chunk']).default('file').describe('Rank files or chunks.'),
    vector: z.boolean().default(false).describe('Add the hash-vector signal for ties.'),
    external: z.boolean().default(true).describe('Also ask the configured adapters (team notes, other repositories); first page only.'),
    ...pageInput(10, 100),
  }),
  output: searchCodeOutput,
  annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
  paged: out => (out.files.length || !out.results.length ? 'files' : 'results'),
  examples: [{ query: 'retry failed payment', repo: '.', language: 'typescript', path: 'src/**', include_tests: false, group: 'file', vector: true, external: false, limit: 5, offset: 0 }],
  async run(args, ctx) {
    const { query, repo, language, path, include_tests, group, vector, external, limit, offset } = args;
    // adapters are asked in parallel with the local search, each bounded by its own timeout
    const adapters = external && offset === 0 ? await ctx.engine.adapters() : undefined;
    const askPeers = adapters?.list().some(a => a.state === 'active' && a.ops.includes('search'));
    // (a long query — a pasted issue — goes to them as the local search's most informative terms)
    const long = query.trim().length > PEER_QUERY_CHARS;
    const ask = (terms: readonly string[]) => (askPeers ? adapters!.search(peerQuery(query, terms, PEER_QUERY_CHARS), limit, { signal: ctx.signal }) : Promise.resolve(undefined));
    const early = long ? undefined : ask([]);
    const r = await ctx.engine.search({ query, repo, language, path, include_tests, group, vector, limit, offset, chunks_per_file: 3 });
    const peers = await (early ?? ask(r.terms));
    // the marker of the memories on each file and chunk (one check on read; nothing without memories)
    const notes = await MemoryNotes.open(ctx.engine, ctx.engine.repoFilter(repo));
    const mark = <H extends SearchHit>(h: H) => {
      const m = notes.empty ? undefined : MemoryNotes.marker(notes.on(h));
      return m ? { ...h, memories: m } : h;
    };
    const files = notes.empty ? r.files : r.files.map(f => {
      const m = MemoryNotes.marker(notes.inFile(f.repo_id, f.path));
      return { ...f, chunks: f.chunks.map(mark), ...(m ? { memories: m } : {}) };
    });
    const results = notes.empty ? r.results : r.results.map(mark);
    const warnings = r.total === 0 && r.indexed_files === 0 ? await emptyIndexWarnings(ctx.engine) : [];
    if (r.total === 0 && !warnings.length) warnings.push(r.terms.length ? 'no indexed file contains any of the search terms' : 'the query has no searchable words');
    if (r.plan.chars_read < query.length) warnings.push(`only the first ${r.plan.chars_read} characters of the query were read`);
    const shown = group === 'file' ? files.length : results.length;
    const { externalItems, sources } = fuse(peers, shown);
    if (peers) warnings.push(...peers.notices.filter(n => !/^no adapter has/.test(n)).map(n => `adapter ${n}`));
    return { query: query.length > ECHO ? `${query.slice(0, ECHO)}…` : query, terms: r.terms, paths_named: r.plan.paths, files, results, external: externalItems, sources, ...page(r.total, offset, limit, shown), warnings };
  },
  render(r, budget) {
    const q = r.query.replace(/\s+/g, ' ');
    const header = `**search_code** ${code(q.length > 80 ? `${q.slice(0, 80)}…` : q)} — ${r.total} ${r.files.length || !r.results.length ? 'file(s)' : 'chunk(s)'}; terms: ${r.terms.slice(0, 12).join(', ')}${r.terms.length > 12 ? ', …' : ''}`;
    const chunkLine = (h: z.infer<typeof codeHitSchema>) => `${h.start_line}-${h.end_line} ${h.symbol_path ? `${h.kind} ${code(h.symbol_path)}` : 'top-level'}${h.snippet ? ` — ${code(h.snippet.length > 100 ? `${h.snippet.slice(0, 100)}…` : h.snippet)}` : ''} · ${code(h.chunk_id)}${markerText(h.memories)}`;
    const local = r.files.length
      ? r.files.map((f, i) => [`${r.offset + i + 1}. ${code(f.path)}${f.test ? ' (test)' : ''} · ${f.score} · ${f.signals.join('+')}${markerText(f.memories)}`, ...f.chunks.map(h => `   - ${chunkLine(h)}`)].join('\n'))
      : r.results.map((h, i) => `${r.offset + i + 1}. ${code(h.path)} ${chunkLine(h)}`);
    // the adapters' results take their fused places among the local ones
    const items: string[] = []; let li = 0;
    const ext = [...r.external].sort((a, b) => a.fused_rank - b.fused_rank);
    for (let place = 1, ei = 0; li < local.length || ei < ext.length; place++) {
      if (ei < ext.length && ext[ei]!.fused_rank === place) { const x = ext[ei++]!; items.push(`- [${x.source}] ${x.uri ? `[${x.title}](${x.uri})` : x.title}${x.kind ? ` · ${x.kind}` : ''}${x.date ? ` · ${x.date}` : ''}${x.snippet ? ` — ${x.snippet.length > 160 ? `${x.snippet.slice(0, 160)}…` : x.snippet}` : ''}`); }
      else if (li < local.length) items.push(local[li++]!);
      else items.push(...ext.slice(ei).map(x => `- [${x.source}] ${x.title}`)), ei = ext.length;
    }
    const asked = r.sources.length ? `adapters: ${r.sources.map(x => `${x.name} ${x.ok ? `${x.items} in ${x.ms} ms` : `✗ ${x.error}`}`).join(', ')}` : '';
    const footer = [pageNotice(r, r.files.length ? 'files' : 'chunks'), asked, ...r.warnings.map(w => `⚠ ${w}`)].filter(Boolean).join('\n');
    return budgeted(header, items, footer, budget);
  },
});

const cut = (s: unknown, n: number): string | null => (typeof s === 'string' && s ? (s.length > n ? `${s.slice(0, n)}…` : s) : null);

/** The adapters' answers in the fused order with the page's local results (weighted reciprocal rank). */
function fuse(peers: SearchAnswer | undefined, localCount: number): { externalItems: z.infer<typeof externalSchema>[]; sources: z.infer<typeof sourceSchema>[] } {
  if (!peers) return { externalItems: [], sources: [] };
  const ok = peers.results.filter(x => x.ok && x.items.length);
  const order = fuseLists([{ source: '\0local', weight: LOCAL_WEIGHT, count: localCount }, ...ok.map(x => ({ source: x.adapter, weight: x.weight, count: x.items.length }))], '\0local');
  const externalItems: z.infer<typeof externalSchema>[] = [];
  order.forEach((e, place) => {
    if (e.source === '\0local') return;
    const it = ok.find(x => x.adapter === e.source)!.items[e.index]!;
    externalItems.push({ source: e.source, uri: typeof it.uri === 'string' ? it.uri : null, title: cut(it.title, 200) ?? '(untitled)', snippet: cut(it.snippet, 300), kind: cut(it.kind, 40), date: cut(it.date, 40), rank: e.index + 1, fused_rank: place + 1 });
  });
  const sources = peers.results.map(x => ({ name: x.adapter, ok: x.ok, items: x.items.length, ms: Math.round(x.ms), weight: x.weight, error: x.error ? `${x.error.code}: ${x.error.message}`.slice(0, 200) : null }));
  return { externalItems, sources };
}
