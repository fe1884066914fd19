import { z } from 'zod';
import { defineTool, pageInput, pageOutput, page, pageNotice, budgeted, code, type ToolContext } from './contract';
import { FILE_KINDS, fileKindParam, languageParam, queryParam, repoParam, searchHitSchema } from './shared';
import { fileKindOf } from '../languages/text';
import type { SearchHit } from '../search/search';

import { MemoryNotes, memoryMarkerSchema, markerText } from './memory_notes';
import { externalSchema, sourceSchema, peerSearch, peerNotices, fuse } from './external';

/** A search_code chunk: the shared hit, with the marker of the project memories on it. */
const codeHitSchema = searchHitSchema.extend({ memories: memoryMarkerSchema });
/** A chunk listed under its file (group=file): the file says where it is. */
const fileChunkSchema = codeHitSchema.omit({ repo_id: true, path: true });
type FileChunk = z.infer<typeof fileChunkSchema>;
const underFile = ({ repo_id: _r, path: _p, ...rest }: SearchHit & { memories?: unknown }): FileChunk => rest as FileChunk;

/** What a chunk is: its kind and name, `top-level` code, or a text file's unnamed window (its kind). */
const chunkWhat = (h: { symbol_path: string | null; kind: string }, top = 'top-level') =>
  (h.symbol_path ? `${h.kind} ${code(h.symbol_path)}` : h.kind === 'top_level' ? top : h.kind);

export function renderHit(h: SearchHit, i: number): string {
  const what = chunkWhat(h, 'top-level code');
  return `${i}. ${code(`${h.path}:${h.start_line}-${h.end_line}`)} ${what} · score ${h.score} · chunk ${code(h.chunk_id)}`;
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
  language: z.string().describe('Language of the file, or its text format (markdown, yaml, sql, …).'),
  file_kind: z.enum(FILE_KINDS).describe('code, or what a text file is: doc, config, data, script, markup, style.'),
  score: z.number().describe('Fused score (see signals).'),
  signals: z.array(z.string()).describe('Signals that ranked it: bm25_file (whole-file text), bm25_chunk (best chunk, names and paths weighted), name (a definition named like a query term), path (query terms in its path), path_hint (the text names this file), recency (changed in the latest commits of its repository), commit_subjects (subjects of commits that changed it match the query), local_hash_vector.'),
  test: z.boolean().describe('A test file (ranked below source unless include_tests; less so when the query mentions tests).'),
  chunks: z.array(fileChunkSchema).describe('Its best chunks, best first.'),
  memories: memoryMarkerSchema,
  changed_on_disk: z.literal(true).optional().describe('Present when the file changed on disk since indexing: its lines and rank describe the indexed version.'),
});

/** The listed files (`repo\0path`) that changed on disk since they were indexed. */
function changedOnDisk(engine: ToolContext['engine'], items: readonly { repo_id: string; path: string }[]): Set<string> {
  const byRepo = new Map<string, Set<string>>();
  for (const x of items) (byRepo.get(x.repo_id) ?? byRepo.set(x.repo_id, new Set()).get(x.repo_id)!).add(x.path);
  const out = new Set<string>();
  for (const [repo, paths] of byRepo) for (const p of engine.staleIndexedFiles(repo, undefined, [...paths]).paths) out.add(`${repo}\0${p}`);
  return out;
}

/**
 * Without a watcher or an editor feeding changes (a one-shot CLI search), indexed files that changed on
 * disk but are not listed (a function appended since indexing is not in the index, so nothing lists it):
 * a bounded stat check of the repositories searched, said once as a warning.
 */
function unlistedChanges(engine: ToolContext['engine'], repo: string | undefined): string | null {
  if (engine.live.followsChanges) return null;
  const paths: string[] = []; let complete = true;
  const only = engine.repoFilter(repo);
  for (const r of only ? [only] : engine.roots.map(x => x.repo_id)) {
    const s = engine.staleIndexedFiles(r);
    paths.push(...s.paths); complete &&= s.complete;
  }
  if (!paths.length) return null;
  const list = `${paths.slice(0, 5).join(', ')}${paths.length > 5 ? ', …' : ''}`;
  const count = `${paths.length}${complete ? '' : '+'}`;
  return `${count} indexed file(s) changed on disk since indexing (${list}): what changed in them is not searched yet; `
    + 'run index_repo (a running MCP server or the editor catches up by itself)';
}

function changedWarning(paths: string[]): string {
  const list = `${paths.slice(0, 5).join(', ')}${paths.length > 5 ? ', …' : ''}`;
  return `${paths.length} listed file(s) changed on disk since indexing (${list}): their lines and ranking describe the indexed version; run index_repo (a running MCP server or the editor catches up by itself)`;
}

/** Characters of the query echoed back (a pasted issue is not repeated whole). */
const ECHO = 200;

/** search_code's answer. */
export const searchCodeOutput = z.object({
    query: z.string().describe(`The query as given (first ${ECHO} characters).`),
    terms: z.array(z.string()).describe('The terms searched, most informative first.'),
    paths_named: z.array(z.string()).describe('File paths the query names (traceback frames, file names).'),
    files: z.array(fileSchema).describe('Files, best first (group=file).'),
    results: z.array(codeHitSchema).describe('The ranked chunks (group=chunk); empty with group=file, whose chunks are in files.'),
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
    file_kind: fileKindParam,
    path: z.string().min(1).max(500).optional().describe('Glob of files to keep (src/**/*.py).'),
    include_tests: z.boolean().default(false).describe('Rank test files like source.'),
    group: z.enum(['file', 'chunk']).default('file').describe('Rank files or chunks.'),
    vector: z.boolean().default(false).describe('Add the hash-vector signal for ties.'),
    external: z.boolean().default(true).describe('Also ask the configured adapters (team notes, other repositories); first page only.'),
    ...pageInput(10),
  }),
  output: searchCodeOutput,
  annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
  paged: out => (out.files.length || !out.results.length ? 'files' : 'results'),
  examples: [{ query: 'retry failed payment', repo: '.', language: 'typescript', file_kind: 'code',
    path: 'src/**', include_tests: false, group: 'file', vector: true, external: false, limit: 5, offset: 0 }],
  async run(args, ctx) {
    const { query, repo, language, file_kind, path, include_tests, group, vector, external, limit, offset } = args;
    // adapters are asked in parallel with the local search, each bounded by its own timeout (first page only)
    const peers = peerSearch(ctx, external && offset === 0, query, limit);
    const r = await ctx.engine.search({ query, repo, language, file_kind, path, include_tests, group, vector, limit, offset, chunks_per_file: 3 });
    const answered = await peers.answer(r.terms);
    // the marker of the memories on each file and chunk (one check on read; nothing without memories)
    const notes = await MemoryNotes.open(ctx.engine, ctx.engine.repoFilter(repo));
    const mark = <H extends SearchHit>(h: H) => {
      const m = notes.empty ? undefined : MemoryNotes.marker(notes.on(h));
      return m ? { ...h, memories: m } : h;
    };
    const files = r.files.map(f => {
      const m = notes.empty ? undefined : MemoryNotes.marker(notes.inFile(f.repo_id, f.path));
      return { ...f, file_kind: fileKindOf(f.language, f.path), chunks: f.chunks.map(h => underFile(mark(h))), ...(m ? { memories: m } : {}) };
    });
    // group=file: the chunks are in their files (not repeated as results)
    const results = group === 'file' ? [] : notes.empty ? r.results : r.results.map(mark);
    const changed = changedOnDisk(ctx.engine, [...files, ...results]);
    const flagged = files.map(f => (changed.has(`${f.repo_id}\0${f.path}`) ? { ...f, changed_on_disk: true as const } : f));
    const warnings = r.total === 0 && r.indexed_files === 0 ? await emptyIndexWarnings(ctx.engine) : [];
    if (r.total === 0 && !warnings.length && r.path_matches === 0) {
      warnings.push(`no indexed file matches path ${path}${repo || language || file_kind ? ' (with the repo, language and kind asked)' : ''}`);
    }
    if (r.total === 0 && !warnings.length) warnings.push(r.terms.length ? 'no indexed file contains any of the search terms'
      : r.plan.unknown.length ? `no indexed file contains any of the query's words (${r.plan.unknown.slice(0, 8).join(', ')})` : 'the query has no searchable words');
    if (r.plan.chars_read < query.length) warnings.push(`only the first ${r.plan.chars_read} characters of the query were read`);
    const shown = group === 'file' ? files.length : results.length;
    const { externalItems, sources } = fuse(answered, shown);
    warnings.push(...peerNotices(answered));
    if (changed.size) warnings.push(changedWarning([...changed].map(k => k.slice(k.indexOf('\0') + 1))));
    else { const others = unlistedChanges(ctx.engine, repo); if (others) warnings.push(others); }
    const echoed = query.length > ECHO ? `${query.slice(0, ECHO)}…` : query;
    return { query: echoed, terms: r.terms, paths_named: r.plan.paths, files: flagged, results, external: externalItems, sources,
      ...page(r.total, offset, limit, shown), warnings };
  },
  render(r, budget) {
    const q = r.query.replace(/\s+/g, ' ');
    const header = `**search_code** ${code(q.length > 80 ? `${q.slice(0, 80)}…` : q)} — ${r.total} ${r.files.length || !r.results.length ? 'file(s)' : 'chunk(s)'}; terms: ${r.terms.slice(0, 12).join(', ')}${r.terms.length > 12 ? ', …' : ''}`;
    const snippet = (h: FileChunk) => (h.snippet ? ` — ${code(h.snippet.length > 100 ? `${h.snippet.slice(0, 100)}…` : h.snippet)}` : '');
    const chunkLine = (h: FileChunk) => `${h.start_line}-${h.end_line} ${chunkWhat(h)}${snippet(h)} · ${code(h.chunk_id)}${markerText(h.memories)}`;
    const local = r.files.length
      ? r.files.map((f, i) => [`${r.offset + i + 1}. ${code(f.path)}${f.test ? ' (test)' : ''}${f.changed_on_disk ? ' ⚠ changed on disk' : ''} · ${f.score} · ${f.signals.join('+')}${markerText(f.memories)}`, ...f.chunks.map(h => `   - ${chunkLine(h)}`)].join('\n'))
      : r.results.map((h, i) => `${r.offset + i + 1}. ${code(h.path)} ${chunkLine(h)}`);
    // the adapters' results take their fused places among the local ones (which keep their order)
    const ext = [...r.external].sort((a, b) => a.fused_rank - b.fused_rank);
    const items = [...local];
    for (const x of ext) items.splice(Math.min(x.fused_rank - 1, items.length), 0, `- [${x.source}] ${x.uri ? `[${x.title}](${x.uri})` : x.title}${x.kind ? ` · ${x.kind}` : ''}${x.date ? ` · ${x.date}` : ''}${x.snippet ? ` — ${x.snippet.length > 160 ? `${x.snippet.slice(0, 160)}…` : x.snippet}` : ''}`);
    const asked = r.sources.length ? `adapters: ${r.sources.map(x => `${x.name} ${x.ok ? `${x.items} in ${x.ms} ms` : `✗ ${x.error}`}`).join(', ')}` : '';
    const footer = [pageNotice(r, r.files.length ? 'files' : 'chunks'), asked, ...r.warnings.map(w => `⚠ ${w}`)].filter(Boolean).join('\n');
    return budgeted(header, items, footer, budget);
  },
});
