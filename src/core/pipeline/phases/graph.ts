/**
 * Phase "graph": once every root is parsed (and the parser workers are gone), each repository the scan
 * changed gets its heuristic graph rebuilt (`full`) or its edited files re-resolved (`partial`); a
 * repository whose files did not change keeps its graph (`none`). Resolution itself is
 * graph/resolve.ts `resolveGraph`; this phase streams its edges into the graph store.
 */
import type { Store } from '../../store/store';
import { buildTables, CyclicBases, resolveGraph, resolvePartial, resolveWith, type GEdge, type GFile, type GraphOutput } from '../../graph/resolve';
import { CLASSY, type GSymbol, type RepoInput, type RepoTables } from '../../graph/tables';
import { CROSS_FILE_KINDS, type Occurrence } from '../../parse/occurrence';
import { decodeOccurrences } from '../../store/occurrences';
import { phase } from '../runner';
import type { IndexEnv } from '../env';
import { scanPhase, type ReshapedFile } from './scan';
import { posix } from 'node:path';
import { ftsFromTokens, tokenize } from '../../util/tokens';
import { familyOf, graphRulesOf, isTestPath, testedBaseNames } from '../../languages';
import type { LanguageId } from '../../languages/types';

/** The graph part of a repository's run report. */
export interface GraphRepoReport {
  /** edges the heuristic wrote this run (null: the graph was kept) */
  edges_written: number | null;
  /** how the heuristic graph was brought up to date: rebuilt, only the edited files' own edges, or kept */
  graph_update: 'full' | 'partial' | 'none';
}

/** Outside a live engine, the graph tables of the last update are dropped after this long without another one. */
const GRAPH_TABLES_IDLE_MS = 5 * 60_000;

/**
 * Per repository, the resolver's tables of its last graph update, full or partial (`GraphOutput.tables`):
 * the next body-only edit is resolved against them without rebuilding them. They take ~70 MB per million
 * lines: the next full build replaces them; another index file drops them. A live engine (one that watches
 * or hears of edits from the editor) keeps them, since an edit after a quiet spell must be as quick as the
 * rest (rebuilding them costs seconds at millions of lines); otherwise GRAPH_TABLES_IDLE_MS without another
 * update drops them.
 */
export class GraphTablesCache {
  private readonly tables = new Map<string, { store: Store; tables: RepoTables }>();
  private timer: NodeJS.Timeout | undefined;
  private liveEngine = false;
  constructor(private readonly idleMs = GRAPH_TABLES_IDLE_MS) {}
  /** a live engine: its partial updates build (and keep) the tables, the next edit reuses them */
  get live(): boolean { return this.liveEngine; }
  get(repoId: string, store: Store): RepoTables | undefined { const t = this.tables.get(repoId); return t && t.store === store ? t.tables : undefined; }
  /** Kept without what building them memoised (RepoTables.trimMemos): later edits resolve a few files. */
  set(repoId: string, store: Store, tables: RepoTables): void { tables.trimMemos(); this.tables.set(repoId, { store, tables }); }
  delete(repoId: string): void { this.tables.delete(repoId); }
  /** a live engine keeps the tables however long it stays quiet */
  keepWhileLive(): void { this.liveEngine = true; clearTimeout(this.timer); }
  /** after an update: the tables are kept while edits keep coming */
  touch(): void {
    if (!this.tables.size || this.liveEngine) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tables.clear(), this.idleMs);
    this.timer.unref?.();
  }
  clear(): void { clearTimeout(this.timer); this.tables.clear(); }
}

export interface GraphPhaseOutput { edges_written: Map<string, number> }

export const graphPhase = phase({
  name: 'graph', deps: [scanPhase],
  run({ scan }, env: IndexEnv, ctx): GraphPhaseOutput {
    const written = new Map<string, number>();
    for (const { report, edited, reshaped } of scan.repos) {
      if (report.graph_update === 'none') continue; // no file changed: the stored graph stands
      ctx.progress('graph', report.repo_id, 0, 1);
      if (reshaped.length) {
        // definitions changed: what the change reaches is re-resolved against the kept tables, or the graph is rebuilt
        const n = reshapeUpdate(env, report.repo_id, edited, reshaped);
        if (n === null) report.graph_update = 'full';
        else { report.edges_written = n; written.set(report.repo_id, n); continue; }
      }
      report.edges_written = buildGraph(env, report.repo_id, report.graph_update === 'partial' ? edited : undefined);
      written.set(report.repo_id, report.edges_written);
    }
    return { edges_written: written };
  },
});

/**
 * The resolver's input for one repository. Building its tables reads every file's imports and bases: they
 * come from one query over their own column (taken once each), the rest file by file as resolution asks.
 */
function graphInput(store: Store, repoId: string): RepoInput {
  const cross = store.files.crossOccurrences(repoId);
  return {
    files: store.files.graphFiles(repoId) as GFile[], symbols: store.symbols.graphSymbols(repoId),
    occurrences: (fileId, kinds) => {
      if (kinds === CROSS_FILE_KINDS && cross.has(fileId)) { const b = cross.get(fileId)!; cross.delete(fileId); return b ? decodeOccurrences(b, kinds) : []; }
      return store.files.occurrences(fileId, kinds);
    },
  };
}

/** Rebuilds the heuristic graph of one repository from its stored symbols and occurrences. */
function buildGraph(env: IndexEnv, repoId: string, only?: readonly number[]): number {
  const store = env.indexFile.store;
  const cache = env.graphTables;
  let count = 0;
  const sink = (edges: GEdge[]) => { store.graph.insertGraphEdges(repoId, edges); count += edges.length; };
  // A partial update reuses the tables of the previous update of this repository when nothing but bodies
  // changed since (a full build replaces them; another index file discards them).
  const cached = only ? cache.get(repoId, store) : undefined;
  if (!only) cache.delete(repoId);
  store.transaction(() => {
    store.graph.beginGraph(repoId, only);
    const graph = cached ? resolveWith(cached, new Set(only), sink)
      : (only && !cache.live && only.length <= ON_DEMAND_MAX_FILES && onDemand(store, repoId, only, sink))
        || resolveGraph({ ...graphInput(store, repoId), sink, only: only ? new Set(only) : undefined });
    store.graph.finishGraph(repoId, graph.unbound);
    store.graph.setGraphPending(repoId, false);
    if (!cached && graph.tables) cache.set(repoId, store, graph.tables); // a full build's tables serve the body-only edits after it
  });
  cache.touch();
  env.indexFile.markUnsaved();
  return count;
}

/**
 * An edit that changes definitions re-resolves at most this many files against the kept tables, and at
 * most this share of the repository's files (at least RESHAPE_FILES_MIN); beyond, a rebuild costs about
 * the same.
 */
export const RESHAPE_FILES_MAX = 1500;
export const RESHAPE_FILES_SHARE = 0.25;
const RESHAPE_FILES_MIN = 64;

/** How far re-exports are followed (graph/imports.ts `exported`): a deleted file's importers this many hops away are resolved again. */
const REEXPORT_HOPS = 3;

/** Whether an import may bind one of `names` in its file (every word of it counted as bound; a star import binds anything). */
function mayBind(o: Occurrence, names: readonly string[], bareStar: boolean): boolean {
  if (o.name === '*' || (bareStar && o.name === o.source && !o.alias)) return true; // graph/imports.ts isStar
  const bound = new Set([o.name, o.alias, ...(o.source ?? '').split(/[^A-Za-z0-9_$]+/)].filter((x): x is string => !!x));
  return names.some(n => bound.has(n));
}

/** Base names of files that are their folder's module: an import names the folder. */
const FOLDER_MODULES = new Set(['__init__', 'index', 'mod', 'lib', 'main']);

/** The full-text term a name is written as (util/tokens.ts: lower case, without `_` and `$`), when it has one. */
function nameTerm(name: string): string | null {
  const t = name.toLowerCase().replace(/[_$]/g, '');
  return name.length <= 64 && /^[a-z0-9]+$/.test(t) ? t : null;
}
const occKey = (o: Occurrence) => `${o.kind}\0${o.name}\0${o.scope ?? ''}\0${o.receiver ?? ''}\0${o.source ?? ''}\0${o.alias ?? ''}`;
const symKey = (s: GSymbol) => `${s.name}\0${s.sp}\0${s.kind}\0${s.parent ?? ''}`;
/** what differs between two lists, as counted keys (a multiset difference, both ways) */
function keyDiff<T>(a: readonly T[], b: readonly T[], key: (x: T) => string): T[] {
  const n = new Map<string, number>();
  for (const x of a) n.set(key(x), (n.get(key(x)) ?? 0) + 1);
  for (const x of b) n.set(key(x), (n.get(key(x)) ?? 0) - 1);
  return [...a, ...b].filter(x => n.get(key(x)) !== 0);
}

/**
 * A targeted run whose files' definitions changed, in an engine that keeps the repository's whole tables
 * (a live engine): instead of a rebuild (20 s at 5M lines), the tables take the files' new definitions
 * and what the change can reach is resolved again: the files themselves, every file with an edge into
 * their old definitions (those ids are gone), and every file whose text names a definition that came,
 * went or moved (found through the full-text index, which holds every identifier of every file). That
 * gives the edges a rebuild gives, provided the change leaves every class and every import and base-class
 * list as it was (a class's members or bases reach files that never name the changed definitions):
 * otherwise, or with no kept tables, a name the full-text index cannot hold, or more files to resolve than
 * a rebuild is worth (RESHAPE_FILES_MAX, RESHAPE_FILES_SHARE), it returns null and the caller rebuilds.
 * New and deleted files without classes are taken the same way (ReshapedFile.added, .removed): the
 * tables add or drop the file, and the files an import may now name it from (its module's name) or that
 * had edges into it (and their importers, up to REEXPORT_HOPS) are resolved again too.
 */
function reshapeUpdate(env: IndexEnv, repoId: string, edited: readonly number[], reshaped: readonly ReshapedFile[]): number | null {
  const store = env.indexFile.store;
  const cache = env.graphTables;
  const rebuild = (why: string): null => { env.log('info', `graph: rebuilt, not updated in place: ${why}`); return null; };
  // a long-lived engine's kept tables take the change in place; without them (a new process) the files it
  // reaches are resolved reading definitions on demand
  const tables = cache.get(repoId, store);
  const lookup = store.symbols.graphLookup(repoId);
  const names = new Set<string>();
  const plans: { file: number; old: readonly GSymbol[]; now: GSymbol[] }[] = [];
  const added: GFile[] = []; const removed: GFile[] = [];
  /** files whose imports changed (and that extend nothing): what they re-export may have changed */
  const reimported: number[] = [];
  /** full-text terms of what an import of an added file names (its base name, its folder's): tokens, not whole names */
  const pathTerms = new Set<string>();
  for (const r of reshaped) {
    const cross = store.files.occurrences(r.file_id, CROSS_FILE_KINDS);
    if (r.added || r.removed) {
      // a new or a deleted file: its imports are its own (resolved with it, or gone with it); base classes
      // would change member maps
      if ((r.added ? cross : r.old_cross).some(o => o.kind !== 'import')) return rebuild(`${r.added ? 'a new' : 'a deleted'} file extends or implements something`);
      const f = (r.added ? store.files.graphFile(r.file_id) : r.removed) as GFile | undefined;
      if (!f) return rebuild('a file is not in the index');
      (r.added ? added : removed).push(f);
      // a new file: an import may name it now — by its module (its base name), or its folder when the file
      // is the folder's module (__init__.py, index.ts, mod.rs) or a Go file (a package is its folder). A
      // deleted file's importers have edges into it (found below).
      if (r.added) {
        const stem = posix.basename(f.path).replace(/\.[^.]*$/, '');
        const named = [stem];
        if (FOLDER_MODULES.has(stem) || graphRulesOf(f.language)?.folderIsModule) named.push(posix.basename(posix.dirname(f.path)));
        for (const n of named) { const t = nameTerm(n); if (t !== null) pathTerms.add(t); else for (const x of tokenize(n)) pathTerms.add(x); }
      }
    } else if (keyDiff(r.old_cross, cross, occKey).length) {
      // imports changed: the file is resolved again anyway, and its importers (what it re-exports). Its
      // classes' bases resolve through its imports: an import that may bind a base's name (or a star
      // import) may change member maps.
      const diff = keyDiff(r.old_cross, cross, occKey);
      if (diff.some(o => o.kind !== 'import')) return rebuild('base classes changed');
      const bases = [...r.old_cross, ...cross].filter(o => o.kind !== 'import').map(o => o.name.split('.')[0]!);
      const bareStar = bases.length > 0 && !!graphRulesOf(store.files.graphFile(r.file_id)?.language ?? '')?.bareImportIsStar;
      if (bases.length && diff.some(o => mayBind(o, bases, bareStar))) return rebuild('an import that may name a base class changed');
      reimported.push(r.file_id);
    }
    const now = lookup.byFile(r.file_id) as GSymbol[];
    for (const s of keyDiff(r.old_symbols, now, symKey)) {
      if (CLASSY.has(s.kind)) return rebuild(`a class came, went or moved (${s.name})`);
      names.add(s.name);
    }
    plans.push({ file: r.file_id, old: r.old_symbols, now });
  }
  const terms: string[] = [...pathTerms];
  for (const n of names) {
    const t = nameTerm(n);
    if (t !== null) { terms.push(t); continue; }
    // a name that is not one identifier (`valid?`, a test's title): the files holding all of its words are
    // among those holding any of them
    const words = ftsFromTokens(tokenize(n)).split(' ').filter(Boolean);
    if (!words.length) return rebuild(`a name the full-text index cannot hold (${n})`);
    terms.push(...words);
  }
  const t0 = performance.now();
  // definitions that stayed kept their ids (FileTables.writeFile): edges into them stay valid
  const stayed = new Set(plans.flatMap(p => p.now.map(s => s.id)));
  const oldIds = reshaped.flatMap(r => r.old_symbols.map(s => s.id)).filter(id => !stayed.has(id));
  const cap = Math.min(RESHAPE_FILES_MAX, Math.max(RESHAPE_FILES_MIN, Math.floor(RESHAPE_FILES_SHARE * store.files.fileCount(repoId))));
  const files = new Set<number>([...edited, ...reshaped.map(r => r.file_id)]);
  // files with edges into removed definitions, or into a deleted file or one whose imports changed (its
  // importers), and the importers of those up to three hops away (names imported through re-exports)
  for (const f of store.graph.filesWithEdgesTo(repoId, oldIds)) files.add(f);
  let via = [...removed.map(f => f.id), ...reimported];
  for (let hop = 0; hop < REEXPORT_HOPS && via.length && files.size <= cap; hop++) {
    via = store.graph.filesWithEdgesTo(repoId, via.map(id => -id)).filter(f => !files.has(f));
    for (const f of via) files.add(f);
  }
  // test files named after an added or deleted file (test naming links them whether or not they name it)
  if (added.length || removed.length) {
    const bases = new Set([...added, ...removed].filter(f => !isTestPath(f.path)).map(f => posix.basename(f.path)));
    const tests = tables ? [...tables.testFileIds].map(id => tables.filesById.get(id)!) : store.files.graphFiles(repoId).filter(f => isTestPath(f.path));
    for (const f of tests) if (testedBaseNames(f.path).some(b => bases.has(b))) files.add(f.id);
  }
  for (let i = 0; i < terms.length && files.size <= cap; i += 50) for (const f of store.files.filesWithTerms(repoId, terms.slice(i, i + 50))) files.add(f);
  if (files.size > cap) return rebuild(`more than ${cap} files to resolve again`);
  let count = 0; const t1 = performance.now(); let t2 = t1;
  const sink = (edges: GEdge[]) => { store.graph.insertGraphEdges(repoId, edges); count += edges.length; };
  try {
    store.transaction(() => {
      store.graph.deleteEdgesFrom(repoId, oldIds);
      if (tables) {
        for (const f of added) tables.addFile(f);
        for (const p of plans) tables.replaceFileSymbols(p.file, p.old, p.now);
        for (const f of removed) tables.removeFile(f.id);
        for (const id of reimported) tables.imports.forget(id); // its imports are read again
      }
      t2 = performance.now();
      store.graph.beginGraph(repoId, [...files]);
      // without kept tables: definitions read on demand (a few files), else the tables built first, and kept
      const graph = tables ? resolveWith(tables, files, sink)
        : (files.size <= ON_DEMAND_MAX_FILES && onDemand(store, repoId, [...files], sink)) || resolveGraph({ ...graphInput(store, repoId), sink, only: files });
      if (!tables && graph.tables) cache.set(repoId, store, graph.tables);
      store.graph.finishGraph(repoId, graph.unbound);
      store.graph.setGraphPending(repoId, false);
    });
  } catch (e) {
    cache.delete(repoId); // the tables may be half changed: the next update builds them again
    throw e;
  }
  cache.touch();
  env.indexFile.markUnsaved();
  const news = [added.length ? `${added.length} new` : '', removed.length ? `${removed.length} deleted` : ''].filter(Boolean).join(', ');
  env.log('info', `graph: ${reshaped.length} file(s) with changed definitions${news ? ` (${news})` : ''}; ${files.size} file(s) resolved again ${tables ? 'against the kept tables' : 'reading definitions on demand'}`
    + ` (found in ${Math.round(t1 - t0)} ms, tables ${Math.round(t2 - t1)} ms, resolved in ${Math.round(performance.now() - t2)} ms)`);
  return count;
}

/** A partial update of at most this many files, without kept tables, reads definitions on demand. */
export const ON_DEMAND_MAX_FILES = 32;

/**
 * A partial update without kept tables (a new process after an edit; not a live engine, which keeps
 * them): the edited files are resolved against definitions read as they are asked for, instead of
 * building the whole repository's tables first (seconds at millions of lines). Null when they reach a
 * class whose bases lead into a cycle (nothing was written): the caller builds the tables.
 */
function onDemand(store: Store, repoId: string, only: readonly number[], sink: (edges: GEdge[]) => void): GraphOutput | null {
  try {
    return resolvePartial({ files: store.files.graphFiles(repoId) as GFile[], symbols: [], lookup: store.symbols.graphLookup(repoId),
      occurrences: (fileId, kinds) => store.files.occurrences(fileId, kinds), sink, only: new Set(only) });
  } catch (e) {
    if (e instanceof CyclicBases) return null;
    throw e;
  }
}

/**
 * Builds a repository's resolver tables ahead of its first body-only edit (a long-lived engine that starts
 * watching): that edit is then resolved against them instead of building them first (seconds at millions
 * of lines). Nothing is written; a repository whose graph is pending (a full build comes next) is skipped.
 */
export function prepareGraphTables(store: Store, cache: GraphTablesCache, repoId: string): void {
  if (cache.get(repoId, store) || store.graph.graphPending(repoId)) return;
  const tables = buildTables(graphInput(store, repoId));
  cache.set(repoId, store, tables);
  cache.touch();
}
