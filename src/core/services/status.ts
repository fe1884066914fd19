/** index_status: what is indexed, by whom it is being written, and the diagnostics. */
import type { ProviderCoverage } from '../store/provider-edges';
import type { IndexFile } from '../indexfile';
import type { Workspace } from '../workspace';
import type { Diagnostic } from '../store/store';
import type { LockHolder } from '../store/persist';
import { SCHEMA_VERSION } from '../store/schema';
import type { RepoRunReport } from '../pipeline/report';
import type { HistoryStatus } from '../store/history';
import { fileKindOf, isTextFormatId, PATH_KINDED, textKindOf } from '../languages/text';

export class StatusService {
  /** counters of the last run per repository, including runs that changed nothing (and saved nothing) */
  private readonly lastRuns = new Map<string, RepoRunReport>();

  constructor(private readonly file: IndexFile, private readonly workspace: Workspace) {}

  /** A run's report, as soon as its scan is over (the graph phase fills in edges_written later). */
  publishRun(report: RepoRunReport): void { this.lastRuns.set(report.repo_id, report); }

  async status(): Promise<StatusReport> {
    await this.file.refresh();
    const rows = this.file.store.meta.repos();
    const counts = this.file.store.counts();
    const repos = this.workspace.roots.map(r => {
      const row = rows.find(x => x.repo_id === r.repo_id);
      const c = this.file.store.counts(r.repo_id);
      const nested: string[] = row?.nested_repos ? JSON.parse(row.nested_repos) : [];
      return {
        repo_id: r.repo_id, path: r.root, name: r.name, indexed: !!row, indexed_at: row?.indexed_at ? new Date(row.indexed_at).toISOString() : null,
        commit: row?.indexed_commit ?? null, branch: row?.branch ?? null, dirty: row?.dirty === null || row?.dirty === undefined ? null : row.dirty === 1,
        file_count: c.files, chunk_count: c.chunks, symbol_count: c.symbols, nested_repositories: nested,
        last_run: this.lastRuns.get(r.repo_id) ?? (row?.last_run ? JSON.parse(row.last_run) as RepoRunReport : null),
        history: this.file.store.history.states(r.repo_id).map(h => ({ path: h.git_path, status: h.status, last_mined_commit: h.head, shallow: h.shallow,
          commits_mined: h.commits_mined, commits_counted: h.commits_counted, files: h.files, pairs: h.pairs })),
        language_servers: this.coverage(r.repo_id),
      };
    });
    const indexedAt = repos.map(r => r.indexed_at).filter((x): x is string => !!x).sort().pop() ?? null;
    const single = repos.length === 1 ? repos[0]! : null;
    const dirtyValues = repos.map(r => r.dirty);
    const writer: LockHolder | null = this.file.inspectLock();
    const dirty = !repos.some(r => r.indexed) ? null : dirtyValues.some(d => d === true) ? true : dirtyValues.some(d => d === null) ? null : false;
    return {
      indexed_commit: single ? single.commit : null,
      branch: single ? single.branch : null,
      dirty,
      indexed_at: indexedAt,
      node_count: counts.symbols + counts.files,
      edge_count: counts.edges,
      repositories: repos.length > 1 ? repos.map(r => ({ path: r.path, branch: r.branch, commit: r.commit, dirty: r.dirty }))
        : (single?.nested_repositories ?? []).map(p => ({ path: p, branch: null, commit: null, dirty: null })),
      file_count: counts.files, chunk_count: counts.chunks, symbol_count: counts.symbols, occurrence_count: counts.occurrences,
      ...languagesAndKinds(this.file.store.files.languageCounts(), this.file.store.files.pathsAndLinesOf(PATH_KINDED)),
      roots: repos,
      diagnostics_count: this.diagnostics().length,
      db_path: this.file.dbPath, schema_version: SCHEMA_VERSION,
      writer_active: writer?.state === 'active',
      writer: writer ? {
        pid: writer.pid, host: writer.host, since: new Date(writer.since).toISOString(), heartbeat_at: new Date(writer.heartbeat_at).toISOString(),
        state: writer.state, this_process: writer.this_process,
      } : null,
    };
  }

  /** Compiler-grade coverage of a repository, with the checks still current for each file's content. */
  private coverage(repoId: string) {
    const metas = this.file.store.files.fileMetas(repoId);
    return this.file.store.providerEdges.providerCoverage(repoId, path => metas.get(path)?.hash);
  }

  diagnostics(repoId?: string): Diagnostic[] {
    const stored = this.file.store.meta.diagnostics(repoId);
    const problem = this.file.openProblem;
    return problem && !repoId ? [problem, ...stored] : stored;
  }
}

/** Files and lines per language (with its kind: code, or a text format's) and per kind. */
function languagesAndKinds(counts: { language: string; files: number; lines: number }[], byPath: { language: string; path: string; line_count: number }[]) {
  const pathKinded = new Set<string>(PATH_KINDED);
  const kindOf = (language: string) => (isTextFormatId(language) ? textKindOf(language) : 'code');
  const languages = counts.map(l => ({ language: l.language, file_kind: kindOf(l.language), files: l.files, lines: l.lines }));
  const kinds = new Map<string, { file_kind: string; files: number; lines: number }>();
  const eachFile = byPath.map(f => ({ file_kind: fileKindOf(f.language, f.path), files: 1, lines: f.line_count }));
  const perKind = [...languages.filter(l => !pathKinded.has(l.language)), ...eachFile];
  for (const l of perKind) {
    const k = kinds.get(l.file_kind) ?? kinds.set(l.file_kind, { file_kind: l.file_kind, files: 0, lines: 0 }).get(l.file_kind)!;
    k.files += l.files; k.lines += l.lines;
  }
  return { languages, file_kinds: [...kinds.values()].sort((a, b) => b.files - a.files || a.file_kind.localeCompare(b.file_kind)) };
}

export interface StatusReport {
  indexed_commit: string | null; branch: string | null; dirty: boolean | null; indexed_at: string | null;
  node_count: number; edge_count: number; repositories: { path: string; branch: string | null; commit: string | null; dirty: boolean | null }[];
  file_count: number; chunk_count: number; symbol_count: number; occurrence_count: number;
  languages: { language: string; file_kind: string; files: number; lines: number }[];
  file_kinds: { file_kind: string; files: number; lines: number }[];
  roots: {
    repo_id: string; path: string; name: string; indexed: boolean; indexed_at: string | null; commit: string | null; branch: string | null;
    dirty: boolean | null; file_count: number; chunk_count: number; symbol_count: number; nested_repositories: string[]; last_run: RepoRunReport | null;
    language_servers: ProviderCoverage[];
    history: { path: string; status: HistoryStatus; last_mined_commit: string | null; shallow: boolean; commits_mined: number; commits_counted: number; files: number; pairs: number }[];
  }[];
  diagnostics_count: number; db_path: string; schema_version: number; writer_active: boolean;
  writer: { pid: number; host: string; since: string; heartbeat_at: string; state: LockHolder['state']; this_process: boolean } | null;
}
