/**
 * Phase "scan": per root, walk, decide, parse and write — one phase because the real flow is streamed:
 * each file the walk finds goes to a parser worker at once, and results are written in walk order
 * while the walk and the other workers go on (see ARCHITECTURE.md, Flow). Splitting these into phases
 * would mean waiting for the whole walk before parsing, and for all parsing before writing. Its stages
 * (walk, parse, write) are timed here: the walk's time is its wall time less the writes done meanwhile,
 * parsing's what follows the walk less the writes, so the three cover the phase once.
 *
 * Output: per repository, the run report (what the graph phase must do: `graph_update`) and the files
 * whose bodies alone changed (a partial graph update resolves them again); the run's diagnostics.
 */
import type { FileMeta, Diagnostic, Store } from '../../store/store';
import { countNotIndexed, walk, walkPaths, type NotIndexed, type WalkedFile, type WalkedExtra, type WalkResult } from '../../index/walker';
import { readHeadNoSpawn } from '../../history/git';
import { join } from 'node:path';
import { isConfigFile } from '../../links/rules';
import { ParsePool } from '../../index/pool';
import type { FileOutcome, FileTask } from '../../index/process';
import { gitState } from '../../git';
import { SightlineError } from '../../errors';
import type { Root } from '../../workspace';
import { phase, type PhaseContext } from '../runner';
import type { IndexEnv } from '../env';
import type { RepoRunReport } from '../report';
import type { GSymbol } from '../../graph/tables';
import { CROSS_FILE_KINDS, type Occurrence } from '../../parse/occurrence';
import { languageForPath } from '../../languages';

/** A text file (no language): its rows are chunks alone, nothing the graph reads. */
const graphless = (path: string) => !languageForPath(path);

/** At most this many named paths are parsed on the engine's own thread. */
const INLINE_PARSE_MAX = 16;
/** A targeted run with more files than this whose definitions changed rebuilds the graph. */
const RESHAPE_MAX = 16;

/** Diagnostics that come from parsing a file's content (the others come from the walk, every run). */
const PARSE_DIAGNOSTICS = new Set(['syntax_errors', 'invalid_utf8']);

/** What the scan counted of one repository (the rest of its run report is the graph phase's). */
export interface ScanRepoReport {
  repo_id: string; root: string; files_seen: number; files_parsed: number; files_unchanged: number; files_deleted: number;
  files_skipped: number; chunks_written: number; symbols_written: number; duration_ms: number; forced: boolean;
  /**
   * Files of no language not indexed, by why: named binary or lock files, text files whose content is
   * binary, generated or minified (no diagnostic each), a language or text files turned off in settings.
   */
  not_indexed?: NotIndexed;
}

/** Why a text file's content is not indexed: counted in the run report, not a diagnostic per file. */
const TEXT_SKIPS = new Set(['binary', 'generated', 'minified']);

/**
 * A file of a targeted run whose definitions changed (not only its bodies): what it defined and its
 * cross-file occurrences before the write, so that the graph phase can re-resolve what the change reaches
 * instead of the whole repository (graph.ts `reshapeUpdate`).
 */
export interface ReshapedFile {
  file_id: number; old_symbols: GSymbol[]; old_cross: Occurrence[];
  /** a file new to the index (it defined nothing before) */
  added?: boolean;
  /** a file gone from the index (it defines nothing now; its rows are deleted by the scan), as it was listed */
  removed?: { id: number; path: string; language: string };
}

export interface ScannedRepo {
  report: RepoRunReport;
  /** files whose bodies alone changed */
  edited: number[];
  /** files of a targeted run whose definitions changed (graph_update 'partial' with these: graph.ts decides) */
  reshaped: ReshapedFile[];
  /** config files the walk saw (links phase) */
  config_files: WalkedExtra[];
}
export interface ScanOutput { repos: ScannedRepo[]; diagnostics: Diagnostic[] }

export const scanPhase = phase({
  name: 'scan', deps: [], stages: ['walk', 'parse', 'write'],
  async run(_input, env: IndexEnv, ctx): Promise<ScanOutput> {
    const repos: ScannedRepo[] = [];
    const diagnostics: Diagnostic[] = [];
    // A few named files (an edit in a long-lived engine) are parsed on this thread: starting worker
    // threads and loading their grammars would cost more than the parse.
    const named = env.paths ? [...env.paths.values()].reduce((n, ps) => n + ps.length, 0) : Infinity;
    const pool = new ParsePool(named <= INLINE_PARSE_MAX ? 0 : env.threads);
    try {
      for (const r of env.roots) {
        if (env.signal?.aborted) throw new SightlineError('cancelled', 'indexing was cancelled');
        repos.push(await scanRoot(r, env.force, pool, env, ctx, diagnostics));
      }
    } finally {
      // Parsing is over: release the workers (and their parser memory) before the graph and the save.
      await pool.close();
    }
    return { repos, diagnostics };
  },
});

async function scanRoot(r: Root, force: boolean, pool: ParsePool, env: IndexEnv, ctx: PhaseContext<'walk' | 'parse' | 'write'>, diagnostics: Diagnostic[]): Promise<ScannedRepo> {
    const started = performance.now();
    const store = env.indexFile.store; const signal = env.signal;
    // A repository whose files change is marked graph-pending until its graph is rebuilt: whatever stops a
    // run between the two (a cancel, an error, another root failing), the next run rebuilds it whole. The
    // mark is set in every transaction that changes a file (a rolled-back batch must not leave a later one
    // unmarked).
    const pendingBefore = store.graph.graphPending(r.repo_id);
    const markPending = () => store.graph.setGraphPending(r.repo_id, true);
    if (force) { store.transaction(() => { store.deleteRepo(r.repo_id); markPending(); }); env.indexFile.markUnsaved(); env.invalidateReads(); }
    // The indexed files' metas: all of them for a walk; for a targeted run only the named paths' (read below)
    let metas: Map<string, FileMeta> = new Map();
    const report: RepoRunReport = { repo_id: r.repo_id, root: r.root, files_seen: 0, files_parsed: 0, files_unchanged: 0,
      files_deleted: 0, files_skipped: 0, chunks_written: 0, symbols_written: 0, edges_written: null, graph_update: 'none', duration_ms: 0, forced: force };
    // What the graph needs after this run: files added, deleted or reshaped (definitions, imports, bases)
    // mean a rebuild; files whose bodies alone changed mean resolving just their own occurrences again.
    let reshaped = force; const edited: number[] = [];
    // a targeted run's files whose definitions changed, with what they were (at most RESHAPE_MAX; beyond, a rebuild)
    const reshapes: ReshapedFile[] = [];
    const repoDiags: Diagnostic[] = [];
    const notIndexed: NotIndexed = {};

    const seen = new Set<string>();
    const tasks: FileTask[] = [];
    // after an import: each file's stored chunks, checked against its text by the first whole run
    let imported: Map<number, [number, number, string | null][]> | null = null;
    let rederived = 0;
    // Parse diagnostics of files that are not parsed again this run carry over from the last run.
    const carried = new Set<string>();

    let writeMs = 0;
    let done = 0;
    let touched = 0; let dropped = 0;
    const batch: { task: FileTask; outcome: FileOutcome }[] = [];
    const flush = () => {
      if (!batch.length) return;
      const t = performance.now();
      const written: number[] = [];
      store.transaction(() => {
        for (const { task, outcome } of batch) {
          const existing = metas.get(task.path);
          if (outcome.status === 'unchanged') { if (existing) { store.files.touchFile(existing.file_id, outcome.mtime_ms, outcome.size); touched++; } report.files_unchanged++; carried.add(task.path); }
          else if (outcome.status === 'skipped') {
            if (existing) {
              store.files.deleteFile(existing.file_id); written.push(existing.file_id); dropped++;
              if (!graphless(task.path)) { reshaped = true; markPending(); }
            }
            const quiet = graphless(task.path) ? outcome.diagnostics.find(d => TEXT_SKIPS.has(d.code)) : undefined;
            if (quiet) countNotIndexed(notIndexed, quiet.code, task.path);
            else {
              report.files_skipped++;
              for (const d of outcome.diagnostics) repoDiags.push({ repo_id: r.repo_id, path: task.path, ...d });
            }
          } else {
            // what a named file whose shape changed defined before (read only when it may be re-resolved alone:
            // see ReshapedFile; a body-only edit reads nothing more)
            const text = graphless(task.path);
            const before = text || !targeted || reshapes.length >= RESHAPE_MAX ? null
              : !existing ? { old_symbols: [], old_cross: [], added: true }
                : store.files.shapeHash(existing.file_id) !== outcome.content.shape_hash
                  ? { old_symbols: store.symbols.graphLookup(r.repo_id).byFile(existing.file_id) as GSymbol[], old_cross: store.files.occurrences(existing.file_id, CROSS_FILE_KINDS) } : null;
            const w = store.files.writeFile(outcome.content, existing);
            written.push(w.file_id);
            store.links.writeSites(w.file_id, r.repo_id, outcome.content.link_sites);
            if (!text) {
              markPending();
              if (w.same_shape) edited.push(w.file_id);
              else if (before) reshapes.push({ file_id: w.file_id, ...before });
              else reshaped = true;
            }
            report.files_parsed++;
            if (task.verify_chunks && task.known_hash === outcome.content.hash) rederived++;
            report.chunks_written += outcome.content.chunks.length;
            report.symbols_written += outcome.content.symbols.length;
            for (const d of outcome.diagnostics) repoDiags.push({ repo_id: r.repo_id, path: task.path, ...d });
          }
        }
      });
      batch.length = 0;
      store.keepRoom(); // a growing index moves to a larger buffer between batches, not inside one
      // answers given while the run goes on (a first index: search before the graph) see what is written
      env.invalidateReads(written);
      writeMs += performance.now() - t;
    };
    // Files are parsed as the walk finds them; a bounded window of files in flight keeps memory flat.
    const WINDOW = 64;
    let next = 0; let inFlight = 0; let walking = true;
    let resolveAll!: () => void; let rejectAll!: (e: unknown) => void;
    const parsed = new Promise<void>((res, rej) => { resolveAll = res; rejectAll = rej; });
    parsed.catch(() => { /* awaited below; this keeps a failure during the walk from going unhandled */ });
    // A write that fails (or a progress callback that throws) stops the run: no more files are started,
    // and once those in flight are back the run fails with that error instead of waiting forever.
    let failure: { error: unknown } | null = null;
    const settle = () => {
      if (inFlight > 0) return;
      if (failure) rejectAll(failure.error);
      else if (!walking && (next >= tasks.length || signal?.aborted)) resolveAll();
    };
    // Results are stored in walk order, whatever order the workers finish in, so the same tree always gets
    // the same row ids (ties in search and in the graph never depend on timing). A result that arrives
    // early waits here; at most LOOKAHEAD files are started past the first one not yet stored.
    const LOOKAHEAD = 256;
    const ready = new Map<number, { task: FileTask; outcome: FileOutcome }>();
    let stored = 0;
    const onDone = (i: number, task: FileTask, outcome: FileOutcome) => {
      inFlight--; done++;
      if (!failure) {
        try {
          ready.set(i, { task, outcome });
          for (let item = ready.get(stored); item; item = ready.get(stored)) {
            ready.delete(stored++);
            batch.push(item);
            if (batch.length >= 64) flush();
          }
          if (done % 100 === 0) ctx.progress('parse', r.repo_id, done, tasks.length);
        } catch (e) { failure = { error: e }; }
      }
      launch(); settle();
    };
    const launch = () => {
      while (!failure && inFlight < WINDOW && next < tasks.length && next - stored < LOOKAHEAD && !signal?.aborted) {
        const i = next++; const task = tasks[i]!;
        inFlight++;
        pool.run(task).then(o => onDone(i, task, o), (e: unknown) => onDone(i, task, { status: 'skipped', diagnostics: [{ code: 'parse_failed', message: String(e) }] }));
      }
    };
    const onFile = (f: WalkedFile) => {
      seen.add(f.path);
      const m = metas.get(f.path);
      const check = m && imported ? imported.get(m.file_id) ?? [] : undefined;
      if (m && !check && m.size === f.size && m.mtime_ms === f.mtime_ms) { report.files_unchanged++; carried.add(f.path); return; }
      tasks.push({ root: r.root, repo_id: r.repo_id, abs: f.abs, path: f.path, language: f.language, size: f.size, mtime_ms: f.mtime_ms,
        known_hash: m?.hash ?? null, max_file_bytes: env.settings.max_file_bytes, ...(check ? { verify_chunks: check } : {}) });
      launch();
    };

    const tw = performance.now();
    ctx.progress('walk', r.repo_id, 0, 0);
    let walked: WalkResult; let git: Awaited<ReturnType<typeof gitState>>;
    const languages = env.settings.languages ? new Set(env.settings.languages) : null;
    const walkOpts = { excludes: env.settings.excludes, languages, textFiles: env.settings.text_files, maxFileBytes: env.settings.max_file_bytes,
      signal, onFile, extra: isConfigFile };
    const prevRepo = store.meta.repo(r.repo_id);
    // Named paths (a watcher's or the editor's): only they are looked at, when the repository was indexed
    // before and they can be judged one by one; otherwise the root is walked.
    let targeted: Awaited<ReturnType<typeof walkPaths>> | null = null;
    const named = env.paths?.get(r.repo_id);
    if (named && !force && prevRepo && !pendingBefore) {
      targeted = walkPaths(r.root, named, walkOpts);
      if (targeted.needs_walk) { env.log('info', `${r.name}: ${targeted.needs_walk}; walking the root`); targeted = null; }
    }
    // a targeted run reads the metas of its paths alone (a one-file edit in a large repository: one row, not all)
    let countBefore = 0;
    if (targeted) {
      countBefore = store.files.fileCount(r.repo_id);
      metas = store.files.fileMetas(r.repo_id, { paths: [...targeted.files, ...targeted.extras].map(f => f.path).concat(targeted.absent), folders: targeted.absent });
    } else if (!force) metas = store.files.fileMetas(r.repo_id);
    imported = !targeted && !force && store.meta.getMeta(verifyKey(r.repo_id)) === '1' ? importedChunks(store, r.repo_id) : null;
    try {
      if (targeted) {
        for (const f of targeted.files) onFile(f);
        const head = readHeadNoSpawn(r.root);
        git = { commit: head?.head ?? prevRepo!.indexed_commit, branch: head ? head.branch : prevRepo!.branch, dirty: prevRepo!.dirty === null ? null : !!prevRepo!.dirty, is_repo: !!head };
        walked = targetedResult(targeted, metas, seen, store.links.configFiles(r.repo_id), r.root, prevRepo!.nested_repos);
      } else {
        [walked, git] = await Promise.all([walk(r.root, walkOpts), gitState(r.root)]);
      }
    } finally { walking = false; }
    // Parsing starts during the walk: the walk's time is its wall time less the writes done meanwhile,
    // and parsing's is what follows the walk less the writes; walk + parse + write cover the phase once.
    const walkEnd = performance.now();
    const writesDuringWalk = writeMs;
    ctx.time('walk', walkEnd - tw - writesDuringWalk);
    // a targeted run's files seen as a walk would count them: the indexed files less those gone, plus new ones named
    const newNamed = targeted ? targeted.files.filter(f => !metas.has(f.path)).length : 0;
    repoDiags.unshift(...walked.diagnostics.map(d => ({ repo_id: r.repo_id, ...d })));
    // Files that were indexed but are gone (deleted, now ignored, or now unreadable) disappear.
    const gone = [...metas.values()].filter(m => !seen.has(m.path));
    report.files_seen = targeted ? countBefore - gone.length + newNamed : walked.files.length;
    // A targeted scan judged only its paths: every other path's diagnostics stand.
    const judged = targeted ? new Set([...targeted.files.map(f => f.path), ...targeted.absent]) : null;
    const under = (p: string) => !!judged && (judged.has(p) || targeted!.absent.some(a => p.startsWith(`${a}/`)));
    if (judged && targeted!.files.length + targeted!.absent.length && !git.dirty && git.dirty !== null) git.dirty = true;
    settle();
    await parsed;
    flush();
    if (signal?.aborted) {
      // Completed batches are kept (they are real work); the next run picks up the rest and, as the
      // graph-pending mark says, rebuilds the graph.
      env.indexFile.save({ collect: true });
      throw new SightlineError('cancelled', `indexing of ${r.name} was cancelled after ${done} of ${tasks.length} files; completed files were kept`);
    }
    if (imported) {
      // every file of the imported index was checked against its text; a mismatch was parsed again
      const why = "did not match their text (their chunks' lines or first lines): parsed again";
      if (rederived) env.log('warn', `${r.name}: ${rederived} file(s) of the imported index ${why}`);
      store.transaction(() => store.meta.setMeta(verifyKey(r.repo_id), ''));
    }
    ctx.time('parse', performance.now() - walkEnd - (writeMs - writesDuringWalk));
    const tdel = performance.now();
    if (judged) { for (const d of store.meta.diagnostics(r.repo_id)) if (!under(d.path) || (carried.has(d.path) && PARSE_DIAGNOSTICS.has(d.code))) repoDiags.push(d); }
    else if (!force) for (const d of store.meta.diagnostics(r.repo_id)) if (carried.has(d.path) && PARSE_DIAGNOSTICS.has(d.code)) repoDiags.push(d);
    report.files_deleted = gone.length;
    report.not_indexed = mergeNotIndexed(targeted ? previousNotIndexed(prevRepo?.last_run) : walked.not_indexed, notIndexed);
    report.duration_ms = Math.round(performance.now() - started);
    const prev = prevRepo;
    // The graph is brought up to date once every root is parsed (see index()).
    // files gone in a targeted run: what they defined is read before their rows are deleted (see ReshapedFile)
    const goneCode = gone.filter(m => !graphless(m.path));
    const goneLookup = targeted && !reshaped && prev && !pendingBefore && goneCode.length && goneCode.length + reshapes.length <= RESHAPE_MAX
      ? store.symbols.graphLookup(r.repo_id) : null;
    const removed: ReshapedFile[] | null = goneLookup && goneCode.map(m => ({ file_id: m.file_id, old_symbols: goneLookup.byFile(m.file_id) as GSymbol[],
      old_cross: store.files.occurrences(m.file_id, CROSS_FILE_KINDS), removed: store.files.graphFile(m.file_id)! }));
    if (reshaped || (goneCode.length && !removed) || !prev || pendingBefore) report.graph_update = 'full';
    else if (edited.length || reshapes.length || removed) { report.graph_update = 'partial'; if (removed) reshapes.push(...removed); }
    if (report.graph_update !== 'none') report.edges_written = 0;
    const dirtyFlag = git.dirty === null ? null : git.dirty ? 1 : 0;
    const nestedJson = JSON.stringify(walked.nested_repos);
    const diagKey = (ds: Diagnostic[]) => JSON.stringify(ds.map(d => [d.path, d.code, d.message]).sort());
    const diagJson = diagKey(repoDiags);
    const diagsChanged = diagKey(store.meta.diagnostics(r.repo_id)) !== diagJson;
    const changed = force || report.files_parsed > 0 || report.files_deleted > 0 || touched > 0 || dropped > 0 || !prev
      || prev.indexed_commit !== git.commit || prev.branch !== git.branch || prev.dirty !== dirtyFlag || prev.nested_repos !== nestedJson || diagsChanged;
    if (changed) {
      store.transaction(() => {
        for (const m of gone) store.files.deleteFile(m.file_id);
        if (goneCode.length) markPending();
        // rewritten only when they changed (an edit's run: the same rows, one statement each)
        if (diagsChanged) store.meta.replaceDiagnostics(r.repo_id, repoDiags);
        store.meta.upsertRepo({ repo_id: r.repo_id, root: r.root, name: r.name, indexed_at: Date.now(), indexed_commit: git.commit, branch: git.branch,
          dirty: dirtyFlag, nested_repos: nestedJson, last_run: JSON.stringify(report) });
      });
      env.indexFile.markUnsaved();
    }
    env.publishRun(report);
    ctx.time('write', writeMs + performance.now() - tdel);
    diagnostics.push(...repoDiags);
    if (changed) env.invalidateReads(gone.map(m => m.file_id));
    env.log('info', `indexed ${r.name}: ${report.files_parsed} parsed, ${report.files_unchanged} unchanged, ${report.files_deleted} deleted, ${report.files_skipped} skipped`);
    return { report, edited, reshaped: report.graph_update === 'partial' ? reshapes : [], config_files: walked.extras };
  }

/**
 * A targeted scan as the walk would have reported it: every indexed file not named stays as it is (seen,
 * with its stored size and mtime), the named files found are the walked ones, named paths with nothing
 * to index now (and what was indexed under a named folder that is gone) are not seen; config files
 * likewise, so the links phase reads only the named ones.
 */
function targetedResult(t: Awaited<ReturnType<typeof walkPaths>>, metas: Map<string, FileMeta>, seen: Set<string>,
  configs: Map<string, { size: number; mtime_ms: number }>, root: string, nestedJson: string | null): WalkResult {
  const absent = new Set(t.absent);
  const isAbsent = (p: string) => absent.has(p) || t.absent.some(a => p.startsWith(`${a}/`));
  const named = new Set([...t.files.map(f => f.path), ...t.extras.map(f => f.path)]);
  for (const m of metas.values()) if (!named.has(m.path) && !isAbsent(m.path)) seen.add(m.path);
  const extras: WalkedExtra[] = [...configs].filter(([p]) => !named.has(p) && !isAbsent(p))
    .map(([p, c]) => ({ path: p, abs: join(root, p), size: c.size, mtime_ms: c.mtime_ms })).concat(t.extras);
  let nested: string[] = [];
  try { nested = nestedJson ? JSON.parse(nestedJson) as string[] : []; } catch { /* none */ }
  return { files: [], diagnostics: t.diagnostics, nested_repos: nested, extras, not_indexed: {} };
}

/** Two counts of files not indexed, added up (examples: the first three). */
function mergeNotIndexed(a: NotIndexed, b: NotIndexed): NotIndexed {
  const out: NotIndexed = structuredClone(a);
  for (const [reason, e] of Object.entries(b)) {
    const into = (out[reason] ??= { files: 0, examples: [] });
    into.files += e.files;
    into.examples = [...into.examples, ...e.examples].slice(0, 3);
  }
  return out;
}

/** What the last whole run did not index (a targeted run judges its named paths alone and keeps the rest). */
function previousNotIndexed(lastRun: string | null | undefined): NotIndexed {
  try { return (lastRun ? (JSON.parse(lastRun) as ScanRepoReport).not_indexed : undefined) ?? {}; } catch { return {}; }
}

/** The meta key that asks the next whole run of a repository to check its imported rows against its files. */
export const verifyKey = (repoId: string) => `verify_imported:${repoId}`;

/** Each file's stored chunks (lines, first line) of a repository whose rows came from an imported index. */
function importedChunks(store: Store, repoId: string): Map<number, [number, number, string | null][]> {
  const out = new Map<number, [number, number, string | null][]>();
  for (const c of store.files.repoChunks(repoId)) {
    let l = out.get(c.file_id); if (!l) out.set(c.file_id, l = []);
    l.push([c.start_line, c.end_line, c.head]);
  }
  return out;
}
