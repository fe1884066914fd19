import { z } from 'zod';
import { defineTool, code, mdTable } from './contract';
import { repoParam } from './shared';
import { providerSpecSchema } from '../providers/protocol';
import { SAVE_DELAY_MS } from '../services/live';

const diagnosticSchema = z.object({
  repo_id: z.string().describe('Repository of the file.'),
  path: z.string().describe('Repository-relative path.'),
  code: z.string().describe('Machine-readable reason: too_large, binary, invalid_utf8, syntax_errors, unreadable, symlink_loop, outside_workspace, broken_symlink, parse_failed, worker_crashed, not_a_file (a FIFO, socket or device), invalid_file_name (not valid UTF-8).'),
  message: z.string().describe('What happened and what was done about it.'),
});
export { diagnosticSchema };

const DIAG_CAP = 50;

/** Files left out for one reason: how many, and the first paths. */
const notIndexedSchema = z.object({ files: z.number().int().describe('How many.'), examples: z.array(z.string()).describe('The first three paths.') });

export const indexRepo = defineTool({
  name: 'index_repo',
  title: 'Index repository',
  description: 'Indexes the workspace roots (or one repository): files, chunks, symbols, the call graph. '
    + 'Incremental; force=true rebuilds. Writes only the index in the user cache, never the repository. Returns counts, timings, diagnostics.',
  input: z.object({
    repo: repoParam,
    force: z.boolean().default(false).describe('Rebuild from scratch.'),
    paths: z.array(z.string().min(1).max(4096)).max(10000).optional().describe('Only these files changed (workspace-relative or absolute, created, edited or deleted): just they are looked at, no walk; the index file is saved shortly after. A server that watches its workspace does this by itself.'),
    reference_providers: z.array(providerSpecSchema).max(20).default([]).describe('Commands (argv, no shell) reading symbols as JSON on stdin, writing edges on stdout; only if reference providers are allowed (VS Code: trusted workspace, sightline.providers.allowExternal).'),
  }),
  output: z.object({
    repos: z.array(z.object({
      repo_id: z.string().describe('Repository id.'), root: z.string().describe('Absolute root folder.'),
      files_seen: z.number().int().describe('Files found by the walk (source and text files).'),
      files_parsed: z.number().int().describe('Files parsed in this run.'),
      files_unchanged: z.number().int().describe('Files skipped because their content did not change.'), files_deleted: z.number().int().describe('Files removed from the index.'),
      files_skipped: z.number().int().describe('Files not indexed (see diagnostics).'), chunks_written: z.number().int().describe('Chunks written.'),
      symbols_written: z.number().int().describe('Symbols written.'),
      edges_written: z.number().int().nullable().describe('Heuristic graph edges written for this repository (null when no file changed and the graph was kept).'),
      graph_update: z.enum(['full', 'partial', 'none']).describe('How the heuristic graph was brought up to date: full (files were added, deleted, or changed their definitions, imports or base classes), partial (only bodies changed: just those files\' own edges were resolved again, against the whole repository) or none (no file changed).'),
      history_update: z.enum(['none', 'incremental', 'full', 'unavailable']).optional().describe('How git history was brought up to date: none (no new commit), incremental, full, unavailable (no git history: see index_status).'),
      history_git_calls: z.number().int().optional().describe('git processes run for history (0 when HEAD is unchanged).'),
      duration_ms: z.number().int().describe('Wall time for this repository.'),
      forced: z.boolean().describe('Whether this was a forced rebuild.'),
      not_indexed: z.record(z.string(), notIndexedSchema).optional()
        .describe('Files left out by why (binary_type, lock_file, binary, generated, minified, language_off, text_off): no diagnostic each.'),
    })).describe('One report per indexed repository.'),
    totals: z.object({
      files_seen: z.number().int().describe('Sum over repositories.'), files_parsed: z.number().int().describe('Sum over repositories.'),
      files_unchanged: z.number().int().describe('Sum over repositories.'), files_deleted: z.number().int().describe('Sum over repositories.'),
      files_skipped: z.number().int().describe('Sum over repositories.'),
    }).describe('Totals of this run.'),
    timings: z.object({
      walk_ms: z.number().int().describe('Walking the folders (files are parsed as they are found; writes meanwhile count in write_ms).'), parse_ms: z.number().int().describe('Reading and parsing after the walk ended (worker threads), writes excluded.'),
      write_ms: z.number().int().describe('Writing the index tables.'), graph_ms: z.number().int().describe('Resolving graph edges (heuristic provider).'), history_ms: z.number().int().describe('Mining git history.'), memories_ms: z.number().int().describe('Reconciling project memories.'), links_ms: z.number().int().describe('Matching cross-boundary links.'), save_ms: z.number().int().describe('Saving the index file atomically.'),
      total_ms: z.number().int().describe('Whole run.'),
    }).describe('Where the time went, in milliseconds.'),
    diagnostics: z.array(diagnosticSchema).describe(`Per-file problems of this run (first ${DIAG_CAP}; index_status pages through all of them).`),
    diagnostics_total: z.number().int().describe('Number of diagnostics in this run.'),
    db_path: z.string().describe('Index file that was written.'),
    providers: z.array(z.object({
      name: z.string().describe('Provider name.'), repo_id: z.string().describe('Repository it ran on.'), ok: z.boolean().describe('Whether it ran and its output was valid.'),
      edges: z.number().int().describe('Edges stored.'), skipped_edges: z.number().int().describe('Edges whose endpoints did not resolve (non-strict).'),
      invalid_edges: z.number().int().describe('Edges rejected by validation (e.g. confidence outside 0..1).'), duration_ms: z.number().int().describe('Run time.'),
      error: z.string().nullable().describe('Why it failed or was skipped.'),
    })).describe('External reference providers of this run.'),
    provider_diagnostics: z.array(z.object({ provider: z.string().describe('Provider name.'), message: z.string().describe('What it reported.') })).describe('Diagnostics reported by providers and by the validation of their output.'),
  }),
  annotations: { read_only: false, destructive: false, idempotent: true, open_world: false },
  examples: [{ repo: '.', force: false, reference_providers: [] }, { paths: ['src/app.py'] }],
  async run(args, ctx) {
    const { repo, force, reference_providers, paths } = args;
    const report = await ctx.engine.index({
      repo, force, signal: ctx.signal, referenceProviders: reference_providers, ...(paths ? { paths, deferSaveMs: SAVE_DELAY_MS } : {}),
      onProgress: p => ctx.onProgress?.(p.phase === 'parse' ? `parsing ${p.done}/${p.total} files` : `${p.phase} ${p.repo_id}`, p.done, p.total),
    });
    return { ...report, diagnostics: report.diagnostics.slice(0, DIAG_CAP), diagnostics_total: report.diagnostics.length };
  },
  render(r) {
    const rows = r.repos.map(x => [x.repo_id, String(x.files_seen), String(x.files_parsed), String(x.files_unchanged), String(x.files_deleted), String(x.files_skipped), x.graph_update === 'none' ? 'kept' : `${x.graph_update} (${x.edges_written} edges)`, x.history_update === undefined ? '—' : x.history_update === 'none' ? 'kept' : x.history_update, `${x.duration_ms} ms`]);
    const diag = r.diagnostics.slice(0, 10).map(d => `- ${code(d.path)} ${d.code}: ${d.message}`);
    return [
      `**index_repo** done in ${r.timings.total_ms} ms (walk ${r.timings.walk_ms}, parse ${r.timings.parse_ms}, write ${r.timings.write_ms}, graph ${r.timings.graph_ms}, history ${r.timings.history_ms}, save ${r.timings.save_ms})`,
      mdTable(['repo', 'seen', 'parsed', 'unchanged', 'deleted', 'skipped', 'graph', 'history', 'time'], rows),
      ...r.providers.map(p => `provider ${code(p.name)} on ${p.repo_id}: ${p.ok ? `${p.edges} edge(s) stored${p.skipped_edges ? `, ${p.skipped_edges} skipped` : ''}${p.invalid_edges ? `, ${p.invalid_edges} invalid` : ''}` : `failed — ${p.error}`} (${p.duration_ms} ms)`),
      ...r.provider_diagnostics.slice(0, 10).map(d => `- ${d.provider}: ${d.message}`),
      r.diagnostics_total ? `${r.diagnostics_total} diagnostic(s):\n${diag.join('\n')}${r.diagnostics_total > diag.length ? `\n_${r.diagnostics_total - diag.length} more: see index_status._` : ''}` : 'No diagnostics.',
    ].join('\n');
  },
});
