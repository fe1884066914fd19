import { z } from 'zod';
import { defineTool, pageInput, pageOutput, page, pageNotice, code, mdTable } from './contract';
import { diagnosticSchema } from './index_repo';

const nullableBool = z.boolean().nullable();

const pct = (n: number, of: number) => `${of ? Math.round((100 * n) / of) : 0}%`;

/** One provider's coverage of a root: `python 480 of 500 symbols checked as they are now (96%), …`. */
function coverageText(l: { provider: string; symbols_checked: number; symbols_current: number; edges: number }, symbols: number): string {
  const before = l.symbols_checked - l.symbols_current;
  const now = `${l.symbols_current} of ${symbols} symbols checked as they are now (${pct(l.symbols_current, symbols)})`;
  return `${l.provider} ${now}${before > 0 ? `, ${before} before an edit` : ''}, ${l.edges} edges`;
}

/** What each reason a file is not indexed means, for the Markdown. */
const NOT_INDEXED: Record<string, string> = {
  binary_type: 'binary by their name', lock_file: 'lock or minified files by their name', binary: 'with binary content',
  generated: 'generated', minified: 'minified', language_off: 'of languages turned off', text_off: 'text files (turned off)',
};

export const indexStatus = defineTool({
  name: 'index_status',
  title: 'Index status',
  description: 'Freshness and size of the index: indexed commit, branch, dirty flag, when, files changed on disk since, node and edge counts, per-root counts, the writer, the last run and its diagnostics (paged). '
    + 'Call it before trusting an empty answer.',
  input: z.object({ ...pageInput(20) }),
  output: z.object({
    indexed_commit: z.string().nullable().describe('Commit indexed (single-root workspace), null when unknown or multi-root.'),
    branch: z.string().nullable().describe('Branch indexed (single-root workspace), null when detached, unknown or multi-root.'),
    dirty: nullableBool.describe('Whether any working tree had uncommitted changes at index time (git); null when unknown. Files edited since indexing are in changed_since_index.'),
    changed_since_index: z.object({
      count: z.number().int().describe('Files that changed on disk since they were indexed, as the next index_repo would see them (size or mtime differ, new, or gone); 0 means the index is current.'),
      complete: z.boolean().describe('False when the check stopped at its time budget (2 s): count is then a lower bound and removed files are not counted.'),
      files: z.array(z.object({
        repo_id: z.string().describe('Repository of the file.'),
        path: z.string().describe('Repository-relative path.'),
        change: z.enum(['modified', 'added', 'removed']).describe('modified: size or mtime differ; added: not indexed yet; removed: indexed but gone (deleted, now ignored or too large).'),
      })).describe('The first 20 changed files.'),
      truncated: z.boolean().describe('True when more files changed than are listed.'),
    }).describe('Files changed on disk since indexing (checked now): when count > 0, re-run index_repo before trusting graph answers about them.'),
    indexed_at: z.string().nullable().describe('ISO time of the newest indexing run, null when never indexed.'),
    node_count: z.number().int().describe('Graph nodes: files plus symbols.'),
    edge_count: z.number().int().describe('Graph edges of every provider.'),
    repositories: z.array(z.object({
      path: z.string().describe('Root path, or a nested repository path relative to the root.'),
      branch: z.string().nullable().describe('Branch, when known.'), commit: z.string().nullable().describe('Commit, when known.'),
      dirty: nullableBool.describe('Dirty flag, when known.'),
    })).describe('Repositories under the workspace: every root of a multi-root workspace, or nested repositories of a single root.'),
    file_count: z.number().int().describe('Indexed files.'),
    chunk_count: z.number().int().describe('Indexed chunks.'),
    symbol_count: z.number().int().describe('Indexed definitions.'),
    occurrence_count: z.number().int().describe('Stored raw occurrences (calls, imports, identifiers, extends/implements).'),
    languages: z.array(z.object({
      language: z.string().describe('Language id, or a text format (markdown, yaml, sql, …).'),
      file_kind: z.string().describe('code, or the text format\'s kind: doc, config, data, script, markup, style.'),
      files: z.number().int().describe('Files.'), lines: z.number().int().describe('Lines.'),
    })).describe('Files and lines per language and text format.'),
    file_kinds: z.array(z.object({ file_kind: z.string().describe('code, doc, config, data, script, markup or style.'),
      files: z.number().int().describe('Files.'), lines: z.number().int().describe('Lines.') })).describe('Files and lines per kind.'),
    roots: z.array(z.object({
      repo_id: z.string().describe('Stable repository id.'), path: z.string().describe('Absolute root.'), name: z.string().describe('Folder name.'),
      indexed: z.boolean().describe('Whether this root has been indexed.'), indexed_at: z.string().nullable().describe('ISO time of its last run.'),
      commit: z.string().nullable().describe('Indexed commit.'), branch: z.string().nullable().describe('Indexed branch.'), dirty: nullableBool.describe('Dirty at index time.'),
      file_count: z.number().int().describe('Files.'), chunk_count: z.number().int().describe('Chunks.'), symbol_count: z.number().int().describe('Symbols.'),
      nested_repositories: z.array(z.string()).describe('Git repositories nested in the root.'),
      changed_files: z.number().int().nullable().describe('Files of this root changed on disk since indexing; null when never indexed or not checked within the budget.'),
      last_run: z.record(z.string(), z.unknown()).nullable()
        .describe('Counters of the last indexing run (files_parsed, files_unchanged, …; not_indexed: files left out by why, with examples).'),
      language_servers: z.array(z.object({
        provider: z.string().describe('Edge provider (lsp:<language>, scip:…, an external provider).'),
        symbols_checked: z.number().int().describe('Symbols of this root it was asked about.'),
        symbols_current: z.number().int().describe('Of those, checked against the content their file has now (an edit since makes a check stale).'),
        edges: z.number().int().describe('Edges it stored onto them.'),
      })).describe('Compiler-grade coverage per provider (empty: only heuristic edges so far).'),
      history: z.array(z.object({
        path: z.string().describe('Git repository folder relative to the root (\'\' for the root).'),
        status: z.enum(['ok', 'not_a_repository', 'no_commits', 'git_missing', 'failed']).describe('Whether history could be mined, else why not.'),
        last_mined_commit: z.string().nullable().describe('HEAD when history was last mined.'),
        shallow: z.boolean().describe('Shallow clone: history stops at its graft point.'),
        commits_mined: z.number().int().describe('Non-merge commits read (at most 500).'),
        commits_counted: z.number().int().describe('Of those, commits counted (not sweeping, not a graft point).'),
        files: z.number().int().describe('Files with history.'), pairs: z.number().int().describe('Co-change pairs.'),
      })).describe('Git history per repository of the root (empty before the first run).'),
    })).describe('Per-root details.'),
    diagnostics_count: z.number().int().describe('Diagnostics recorded by the last runs.'),
    db_path: z.string().describe('Index file.'),
    schema_version: z.number().int().describe('Index schema version.'),
    writer_active: z.boolean().describe('True while a live process holds the writer lock (indexing); false when nobody does or its holder is dead or stale.'),
    writer: z.object({
      pid: z.number().int().describe('Process id of the holder (-1 when the lock file is unreadable).'),
      host: z.string().describe('Host name of the holder.'),
      since: z.string().describe('ISO time the lock was taken.'),
      heartbeat_at: z.string().describe('ISO time of the holder\'s last heartbeat (it refreshes the lock every few seconds).'),
      state: z.enum(['active', 'stale', 'dead']).describe('active: it may be writing; dead: its process is gone (same host); stale: no heartbeat for 30 s (pid reused, hung, or another host). The next writer takes over a dead or stale lock.'),
      this_process: z.boolean().describe('True when this server holds it.'),
    }).nullable().describe('Who holds the writer lock, null when nobody does.'),
    diagnostics: z.array(diagnosticSchema).describe('This page of diagnostics.'),
    ...pageOutput,
  }),
  annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
  examples: [{ limit: 20, offset: 0 }],
  async run(args, ctx) {
    const { limit, offset } = args;
    const s = await ctx.engine.status();
    const changed = await ctx.engine.changedSinceIndex();
    const all = ctx.engine.diagnostics();
    const diagnostics = all.slice(offset, offset + limit);
    const { per_root, ...changed_since_index } = changed;
    return { ...s, changed_since_index,
      roots: s.roots.map(r => ({ ...r, last_run: r.last_run as unknown as Record<string, unknown> | null, changed_files: per_root[r.repo_id] ?? null })),
      diagnostics, ...page(all.length, offset, limit, diagnostics.length) };
  },
  render(s) {
    const lines = [
      `**index_status** ${s.file_count} files · ${s.chunk_count} chunks · ${s.symbol_count} symbols · ${s.edge_count} edges · indexed ${s.indexed_at ?? 'never'}`,
    ];
    if (s.indexed_commit || s.branch) lines.push(`commit ${code(s.indexed_commit ?? '?')} on ${s.branch ?? '(detached)'}${s.dirty ? ' (dirty)' : s.dirty === false ? ' (clean)' : ''}`);
    lines.push(mdTable(['root', 'repo_id', 'files', 'chunks', 'indexed'], s.roots.map(r => [r.path, r.repo_id, String(r.file_count), String(r.chunk_count), r.indexed_at ?? 'never'])));
    for (const r of s.roots) {
      const coverage = r.language_servers.map(l => coverageText(l, r.symbol_count)).join('; ');
      if (coverage) lines.push(`language servers ${r.name}: ${coverage}`);
    }
    for (const r of s.roots) for (const h of r.history) lines.push(`history ${r.name}${h.path ? '/' + h.path : ''}: ${h.status === 'ok' ? `${h.commits_counted} of ${h.commits_mined} commits counted, ${h.files} files, ${h.pairs} pairs, at ${code((h.last_mined_commit ?? '?').slice(0, 10))}${h.shallow ? ' (shallow)' : ''}` : h.status}`);
    if (s.languages.length) lines.push(`languages: ${s.languages.map(l => `${l.language} ${l.files}`).join(', ')}`);
    if (s.file_kinds.length > 1) lines.push(`kinds: ${s.file_kinds.map(k => `${k.file_kind} ${k.files}`).join(', ')}`);
    for (const r of s.roots) {
      const not = Object.entries((r.last_run?.not_indexed ?? {}) as Record<string, { files: number; examples: string[] }>);
      const each = not.map(([why, e]) => `${e.files} ${NOT_INDEXED[why] ?? why} (${e.examples.map(code).join(', ')})`);
      if (each.length) lines.push(`not indexed in ${r.name}: ${each.join('; ')}`);
    }
    if (s.file_count === 0) lines.push('⚠ nothing is indexed yet: run index_repo.');
    const c = s.changed_since_index;
    if (c.count > 0) {
      const some = c.files.slice(0, 5).map(f => `${code(f.path)} ${f.change}`).join(', ');
      lines.push(`⚠ ${c.complete ? '' : 'at least '}${c.count} file(s) changed on disk since indexing (${some}${c.count > 5 ? ', …' : ''}): run index_repo before trusting answers about them.`);
    } else if (!c.complete) lines.push('changes on disk since indexing: not fully checked (time budget).');
    if (s.writer) {
      const who = `pid ${s.writer.pid} on ${s.writer.host} since ${s.writer.since}, last heartbeat ${s.writer.heartbeat_at}`;
      lines.push(s.writer.state === 'active' ? `indexing is in progress (${s.writer.this_process ? 'this process' : who}).`
        : `a ${s.writer.state} writer lock is left (${who}); the next index run takes it over.`);
    }
    if (s.diagnostics.length) {
      lines.push(`diagnostics:`);
      for (const d of s.diagnostics) lines.push(`- ${code(d.path)} ${d.code}: ${d.message}`);
      lines.push(pageNotice(s, 'diagnostics'));
    }
    return lines.join('\n');
  },
});
