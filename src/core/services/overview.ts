/**
 * The overview (repo map): modules, entry points, central symbols and test suites of the index, ranked
 * by PageRank over the graph (overview/rank.ts), personalised by an optional focus.
 *
 * Index-time centrality, cached: the model (nodes, rank graph, global ranks; overview/model.ts) and the
 * entry points are computed on the first call after the index changed and kept, keyed by the store
 * object and its generation (`Store.generation()`: last save + rows changed since), so every later call
 * of the same index state reuses them and a focus costs only two power iterations. Computing it lazily
 * rather than in a pipeline phase keeps it off every index run (a body-only edit indexes in ~1 s; the
 * ranks would add their load to each) and off the index file; readers in other processes compute their
 * own once. Manifests the entry points came from are checked (size, mtime) on every call.
 */
import { realpathSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { IndexFile } from '../indexfile';
import type { Workspace } from '../workspace';
import type { IndexSettings } from '../settings';
import type { Store, NodeRow } from '../store/store';
import type { CodeSearchPage } from '../search/search';
import type { SearchRequest } from './reads';
import type { GraphReader, Boundary } from '../graph/query';
import { isTestCase } from '../graph/tests';
import { readContainedSync, realInsideSync } from '../util/contained';
import { buildModel, nodeId, type OverviewModel, type FileInfo } from '../overview/model';
import { pageRank } from '../overview/rank';
import { groupModules } from '../overview/modules';
import { findEntryPoints, ENTRY_KINDS, type Entry, type EntryKind } from '../overview/entries';
import { MANIFEST_NAMES } from '../overview/manifests';
import { scanSource, type SourceMarks } from '../overview/scan';
import { sha1 } from '../util/hash';

export const MAX_MODULES = 30;
export const MAX_TEST_SUITES = 16;
/** Longest lists the service returns (the tool fits them to the token budget). */
export const LIST_CAP = 200;
/** Share of a focused walk's restarts that go to the focus (the rest: uniformly, as without focus). */
export const FOCUS_TELEPORT = 0.9;
/** Definition kinds that may be listed as central symbols (and as a module's top symbols). */
export const CENTRAL_KINDS = new Set(['function', 'method', 'class', 'interface', 'struct', 'trait', 'enum', 'type', 'module', 'constant', 'record', 'protocol', 'impl', 'object']);

export interface OverviewRequest { focus?: string; repo?: string }

export interface NodeOut { id: string; kind: string; path: string; line: number }
export interface ModuleOut { path: string; repo_id: string; own_files_only: boolean; files: number; symbols: number; languages: string[]; rank: number; top_symbols: string[] }
export interface EntryOut extends NodeOut { kind_of_entry: EntryKind; entry_name: string; detail: string; rank: number }
export interface CentralOut extends NodeOut { rank: number; dependents: number }
export interface TestSuiteOut { path: string; repo_id: string; files: number; test_cases: number; languages: string[] }
export interface FocusOut { query: string; matched_as: 'path' | 'symbol' | 'search' | 'none'; seeds: string[]; total_seeds: number }

export interface OverviewData {
  repos: string[];
  totals: { files: number; source_files: number; test_files: number; symbols: number; edges: number; modules: number; entry_points: number; test_suites: number; test_cases: number };
  focus: FocusOut | null;
  modules: ModuleOut[]; entry_points: EntryOut[]; central_symbols: CentralOut[]; test_suites: TestSuiteOut[];
  ranking: { nodes: number; edges: number; providers: string[]; cached: boolean; model_ms: number; load_ms: number; rank_ms: number; iterations: number; focus_ms: number; entry_points_ms: number; files_read: number };
  notes: string[];
  boundaries: Boundary[];
}

interface Cached {
  store: Store; generation: string; model: OverviewModel; model_ms: number;
  entries?: { list: Entry[]; notes: string[]; ms: number; files_read: number; bytes_read: number; manifests: Map<string, string> };
  modules: Map<string, { groups: { repo_id: string; path: string; own: boolean; files: FileInfo[] }[]; of: Int32Array }>;
  tests: Map<string, TestSuiteOut[]>;
  keys?: Map<string, number>;
  repos?: { names: string[]; of: Int32Array };
}

export interface OverviewDeps {
  file: IndexFile; workspace: Workspace; settings: IndexSettings;
  graph: () => Promise<GraphReader>;
  search: (q: SearchRequest) => Promise<CodeSearchPage>;
  staleFiles: (repoId: string) => { paths: string[]; complete: boolean };
}

const stampOf = (abs: string) => { try { const s = statSync(abs); return `${s.size}:${s.mtimeMs}`; } catch { return 'missing'; } };
const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

export class OverviewService {
  private cache: Cached | null = null;
  /** source marks per file, under the content hash they were read at: kept across index states */
  private marks = new Map<string, { hash: string; marks: SourceMarks }>();
  private realRoots = new Map<string, string | null>();

  constructor(private readonly d: OverviewDeps) {}

  /** Forget the cached model (a reload or another index file). */
  invalidate(): void { this.cache = null; this.realRoots.clear(); }

  private current(): { c: Cached; hit: boolean } {
    const store = this.d.file.store;
    const generation = store.generation();
    if (this.cache && this.cache.store === store && this.cache.generation === generation) return { c: this.cache, hit: true };
    const t0 = performance.now();
    const model = buildModel(store);
    this.cache = { store, generation, model, model_ms: Math.round(performance.now() - t0), modules: new Map(), tests: new Map() };
    return { c: this.cache, hit: false };
  }

  private rootReal(repoId: string): string | null {
    if (!this.realRoots.has(repoId)) {
      const r = this.d.workspace.byId(repoId);
      let real: string | null = null;
      try { real = r ? realpathSync(r.root) : null; } catch { real = null; }
      this.realRoots.set(repoId, real);
    }
    return this.realRoots.get(repoId)!;
  }

  private entries(c: Cached): NonNullable<Cached['entries']> {
    if (c.entries) {
      // a manifest edited since: read them again (sources are re-read only with the index)
      let same = true;
      for (const [abs, stamp] of c.entries.manifests) if (stampOf(abs) !== stamp) { same = false; break; }
      if (same) return c.entries;
    }
    const t0 = performance.now();
    const manifests = new Map<string, string>();
    const store = c.store;
    let filesRead = 0; let bytesRead = 0;
    const r = findEntryPoints(c.model, {
      marks: f => {
        const key = `${f.repo_id}\0${f.path}`;
        const kept = this.marks.get(key);
        if (kept && kept.hash === f.hash) return kept.marks;
        const root = this.rootReal(f.repo_id); if (!root) return null;
        const res = readContainedSync(root, f.path, this.d.settings.max_file_bytes);
        if (!res.ok) return null;
        filesRead++; bytesRead += res.bytes.length;
        // marks of the text now; kept under the indexed hash only when the file still has that content
        const marks = scanSource(f.language, res.bytes.toString('utf8'));
        if (sha1(res.bytes) === f.hash) this.marks.set(key, { hash: f.hash, marks });
        return marks;
      },
      read: (repoId, path) => {
        const root = this.rootReal(repoId); if (!root) return null;
        if ((MANIFEST_NAMES as readonly string[]).includes(posix.basename(path))) manifests.set(join(root, path), stampOf(join(root, path)));
        const res = readContainedSync(root, path, this.d.settings.max_file_bytes);
        return res.ok ? res.bytes.toString('utf8') : null;
      },
      exists: (repoId, path) => { const root = this.rootReal(repoId); return !!root && realInsideSync(root, path) !== null; },
    });
    c.entries = { list: r.entries, notes: r.notes, ms: Math.round(performance.now() - t0), files_read: filesRead, bytes_read: bytesRead, manifests };
    return c.entries;
  }

  async overview(req: OverviewRequest): Promise<OverviewData> {
    await this.d.file.refresh();
    const repoId = this.d.workspace.repoFilter(req.repo);
    const { c, hit } = this.current();
    const m = c.model;
    const repoOfNode = repoIndex(c);
    const wanted = repoId === undefined ? -1 : repoOfNode.names.indexOf(repoId);
    const inScope = (i: number) => wanted < 0 ? repoId === undefined : repoOfNode.of[i] === wanted;
    const entries = this.entries(c);
    const notes = [...entries.notes];

    // scores: global ranks, or the mean of the focused walk forwards (what the focus uses) and backwards (what uses it)
    let score = m.global.ranks; let reach = m.global.ranks;
    let focus: FocusOut | null = null; let focusMs = 0; let iterations = m.global.iterations;
    if (req.focus) {
      const f = await this.resolveFocus(c, req.focus, repoId);
      focus = { query: req.focus, matched_as: f.as, seeds: f.seeds.slice(0, 5).map(i => nodeId(m, i)), total_seeds: f.seeds.length };
      if (f.seeds.length) {
        const t0 = performance.now();
        const teleport = new Float64Array(m.n);
        let base = 0; for (let i = 0; i < m.n; i++) base += m.baseTeleport[i]!;
        let w = 0; for (const x of f.weights) w += x;
        for (let i = 0; i < m.n; i++) teleport[i] = (1 - FOCUS_TELEPORT) * m.baseTeleport[i]! / base;
        f.seeds.forEach((s, k) => { teleport[s]! += FOCUS_TELEPORT * f.weights[k]! / w; });
        const fwd = pageRank(m.graph, { teleport }); const back = pageRank(m.graph, { teleport, transpose: true });
        score = new Float64Array(m.n);
        for (let i = 0; i < m.n; i++) score[i] = (fwd.ranks[i]! + back.ranks[i]!) / 2;
        reach = back.ranks;
        iterations = Math.max(fwd.iterations, back.iterations);
        focusMs = Math.round(performance.now() - t0);
      } else notes.push(`the focus ${JSON.stringify(req.focus)} matched no indexed path, symbol or search result: ranks are global`);
    }
    let scopeNodes = 0; let scopeMass = 0;
    for (let i = 0; i < m.n; i++) if (inScope(i)) { scopeNodes++; scopeMass += score[i]!; }
    // ranks are shown relative to the average node of the scope (1 = average)
    const rel = (x: number) => (scopeMass > 0 ? round(x * scopeNodes / scopeMass) : 0);
    const ref = (i: number): NodeOut => {
      const f = m.files.get(m.fileOf[i]!)!;
      return { id: nodeId(m, i), kind: m.kind[i]!, path: f.path, line: m.start[i]! };
    };

    // central symbols
    // the LIST_CAP best, selected in one pass (a full sort of every definition costs more than the rest of a call)
    const better = (a: number, b: number) => score[a]! - score[b]! || m.dependents[a]! - m.dependents[b]! || b - a;
    const central: number[] = [];
    for (let i = 0; i < m.n; i++) {
      if (m.test[i] || !inScope(i) || !CENTRAL_KINDS.has(m.kind[i]!)) continue;
      if (central.length === LIST_CAP && better(i, central[LIST_CAP - 1]!) <= 0) continue;
      let lo = 0, hi = central.length;
      while (lo < hi) { const mid = (lo + hi) >> 1; if (better(central[mid]!, i) >= 0) lo = mid + 1; else hi = mid; }
      central.splice(lo, 0, i);
      if (central.length > LIST_CAP) central.pop();
    }

    // modules
    const mods = this.modulesOf(c, repoId);
    const mScore = new Float64Array(mods.groups.length); const mSyms = new Int32Array(mods.groups.length);
    const mTop: number[][] = mods.groups.map(() => []);
    for (let i = 0; i < m.n; i++) {
      const k = mods.of[i]!; if (k < 0) continue;
      mScore[k]! += score[i]!;
      if (m.kind[i] === 'file') continue;
      mSyms[k]!++;
      if (!CENTRAL_KINDS.has(m.kind[i]!)) continue;
      const top = mTop[k]!;
      if (top.length < 3 || score[i]! > score[top[top.length - 1]!]!) { top.push(i); top.sort((a, b) => score[b]! - score[a]!); if (top.length > 3) top.pop(); }
    }
    const total = scopeMass || 1;
    const modules: ModuleOut[] = mods.groups.map((g, k) => ({
      path: g.path, repo_id: g.repo_id, own_files_only: g.own, files: g.files.length, symbols: mSyms[k]!, languages: topLanguages(g.files), rank: round(mScore[k]! / total, 4),
      top_symbols: mTop[k]!.map(i => m.symbolPath[i] ?? m.name[i]!),
    })).sort((a, b) => b.rank - a.rank || b.files - a.files || a.path.localeCompare(b.path));

    // entry points: examples last; within each group the kinds take turns (cli, main, http_route, package_root,
    // uncalled), each kind in order of (with a focus) how much it leads to the focus, else rank, then reach
    const example = (e: Entry) => /(^|\/)(examples?|samples?|demos?|benches|benchmarks?|docs?)\//.test(m.files.get(m.fileOf[e.node]!)!.path);
    const byScore = (a: Entry, b: Entry) => reach[b.node]! - reach[a.node]! || m.dependencies[b.node]! - m.dependencies[a.node]! || a.node - b.node || a.start_line - b.start_line;
    const eps: Entry[] = [];
    for (const ex of [false, true]) {
      const queues = ENTRY_KINDS.map(k => entries.list.filter(e => e.kind === k && example(e) === ex && inScope(e.node)).sort(byScore));
      for (let i = 0; queues.some(q => i < q.length); i++) for (const q of queues) if (i < q.length) eps.push(q[i]!);
    }

    const tests = this.testsOf(c, repoId);
    const files = [...m.files.values()].filter(f => !repoId || f.repo_id === repoId);
    const testFiles = files.filter(f => f.test).length;
    let symbols = 0; for (let i = 0; i < m.n; i++) if (m.kind[i] !== 'file' && inScope(i)) symbols++;
    let edges = 0; for (let u = 0; u < m.n; u++) if (inScope(u)) edges += m.graph.outStart[u + 1]! - m.graph.outStart[u]!;
    return {
      repos: repoId ? [repoId] : [...new Set(files.map(f => f.repo_id))].sort(),
      totals: { files: files.length, source_files: files.length - testFiles, test_files: testFiles, symbols, edges, modules: modules.length, entry_points: eps.length, test_suites: tests.length, test_cases: tests.reduce((s, t) => s + t.test_cases, 0) },
      focus,
      modules,
      entry_points: eps.slice(0, LIST_CAP).map(e => ({ ...ref(e.node), line: e.start_line, kind_of_entry: e.kind, entry_name: e.name, detail: e.detail, rank: rel(score[e.node]!) })),
      central_symbols: central.map(i => ({ ...ref(i), rank: rel(score[i]!), dependents: m.dependents[i]! })),
      test_suites: tests,
      ranking: { nodes: m.n, edges: m.graph.edges, providers: m.providers, cached: hit, model_ms: hit ? 0 : c.model_ms, load_ms: m.timings.load_ms, rank_ms: m.timings.rank_ms, iterations, focus_ms: focusMs,
        entry_points_ms: entries.ms, files_read: entries.files_read },
      notes,
      boundaries: this.boundaries(c.store, m, repoId ? [repoId] : [...new Set(files.map(f => f.repo_id))]),
    };
  }

  private modulesOf(c: Cached, repoId: string | undefined) {
    const key = repoId ?? '';
    let v = c.modules.get(key);
    if (!v) {
      const m = c.model;
      const groups = groupModules([...m.files.values()].filter(f => !f.test && (!repoId || f.repo_id === repoId)), MAX_MODULES);
      const byFile = new Map<number, number>();
      groups.forEach((g, k) => { for (const f of g.files) byFile.set(f.file_id, k); });
      const of = new Int32Array(m.n).fill(-1);
      for (let i = 0; i < m.n; i++) { const k = byFile.get(m.fileOf[i]!); if (k !== undefined && !m.test[i]) of[i] = k; }
      c.modules.set(key, v = { groups, of });
    }
    return v;
  }

  private testsOf(c: Cached, repoId: string | undefined): TestSuiteOut[] {
    const key = repoId ?? '';
    let v = c.tests.get(key);
    if (!v) {
      const m = c.model;
      const testFiles = [...m.files.values()].filter(f => f.test && (!repoId || f.repo_id === repoId));
      const cases = new Map<number, number>();
      for (let i = 0; i < m.n; i++) {
        if (!m.test[i] || m.kind[i] === 'file') continue;
        const f = m.files.get(m.fileOf[i]!)!;
        if (isTestCase({ node: m.node[i]!, repo_id: f.repo_id, path: f.path, language: f.language, name: m.name[i]!, symbol_path: m.symbolPath[i] ?? null, kind: m.kind[i]!,
          start_line: m.start[i]!, start_col: 0, end_line: m.end[i]!, end_col: 0, parent_path: m.parent[i]!, file_id: f.file_id, chunk_key: null })) cases.set(f.file_id, (cases.get(f.file_id) ?? 0) + 1);
      }
      v = groupModules(testFiles, MAX_TEST_SUITES, 0).map(g => ({ path: g.path, repo_id: g.repo_id, files: g.files.length, test_cases: g.files.reduce((s, f) => s + (cases.get(f.file_id) ?? 0), 0), languages: topLanguages(g.files) }))
        .sort((a, b) => b.test_cases - a.test_cases || b.files - a.files || a.path.localeCompare(b.path));
      c.tests.set(key, v);
    }
    return v;
  }

  /** The focus as seed nodes: a path (file or folder), else a symbol (id or name), else search hits. */
  private async resolveFocus(c: Cached, focus: string, repoId: string | undefined): Promise<{ as: FocusOut['matched_as']; seeds: number[]; weights: number[] }> {
    const m = c.model;
    const fileSeeds = (match: (f: FileInfo) => boolean) => {
      const files = new Set<number>();
      for (const f of m.files.values()) if ((!repoId || f.repo_id === repoId) && match(f)) files.add(f.file_id);
      const seeds: number[] = [];
      for (let i = 0; i < m.n; i++) if (files.has(m.fileOf[i]!)) seeds.push(i);
      return seeds;
    };
    let rel = focus.trim().replace(/\\/g, '/').replace(/\/+$/, '').replace(/^\.\//, '');
    let repo = repoId;
    if (/^\/|^[A-Za-z]:\//.test(rel)) { try { const r = this.d.workspace.relativeToRoot(focus); rel = r.rel; repo = r.root.repo_id; } catch { /* not in a root */ } }
    // a path: it has a slash or a dot, or is a bare word naming a top-level folder (`backend`, `src/`)
    const bare = rel && !/[\s/.]/.test(rel);
    if (rel && !/\s/.test(rel) && (rel.includes('/') || rel.includes('.') || bare)) {
      const seeds = fileSeeds(f => (!repo || f.repo_id === repo) && (bare ? f.path.startsWith(`${rel}/`) : f.path === rel || f.path.startsWith(`${rel}/`)));
      if (seeds.length) return { as: 'path', seeds, weights: seeds.map(() => 1) };
    }
    const g = await this.d.graph();
    if (!/\s/.test(focus.trim())) {
      let rows: NodeRow[] = [];
      try { const r = g.resolveOne(focus.trim(), { repo_id: repoId }); rows = r.target ? r.group : r.ambiguous; } catch { /* not a symbol: search */ }
      const seeds = rows.map(n => m.index.get(n.node)).filter((i): i is number => i !== undefined);
      if (seeds.length) return { as: 'symbol', seeds, weights: seeds.map(() => 1) };
    }
    const hits = await this.d.search({ query: focus, limit: 10, offset: 0, vector: false, repo: repoId, group: 'chunk' });
    c.keys ??= keyIndex(m);
    const seeds: number[] = []; const weights: number[] = [];
    hits.results.forEach((h, k) => {
      const i = c.keys!.get(`${h.repo_id}\0${h.path}\0${h.symbol_path ?? ''}`);
      if (i !== undefined && !seeds.includes(i)) { seeds.push(i); weights.push(1 / (k + 1)); }
    });
    return { as: seeds.length ? 'search' : 'none', seeds, weights };
  }

  private boundaries(store: Store, m: OverviewModel, repos: string[]): Boundary[] {
    const out: Boundary[] = [];
    if (m.providers.length === 1) out.push({ kind: 'heuristic_only', detail: 'ranks come from the heuristic graph only (name-only bindings weigh a quarter); no compiler-grade provider edges are stored' });
    for (const repo of repos) {
      if (store.graph.graphPending(repo)) out.push({ kind: 'stale_graph', detail: `files of ${repo} changed after its heuristic graph was built; the next index run rebuilds it` });
      const skipped = store.meta.skippedFiles(repo);
      if (skipped) out.push({ kind: 'unparsed_files', detail: `${skipped} file(s) of ${repo} were not parsed (see index_status diagnostics)` });
      const stale = this.d.staleFiles(repo);
      if (stale.paths.length) out.push({ kind: 'stale_files', detail: `${stale.complete ? '' : 'at least '}${stale.paths.length} indexed file(s) of ${repo} changed on disk since indexing (${stale.paths.slice(0, 5).join(', ')}${stale.paths.length > 5 ? ', …' : ''}); run index_repo` });
    }
    return out;
  }
}

/** Each node's repository as an index into `names` (the repo filter is a comparison of integers). */
function repoIndex(c: Cached): { names: string[]; of: Int32Array } {
  if (!c.repos) {
    const m = c.model; const names: string[] = []; const of = new Int32Array(m.n);
    for (let i = 0; i < m.n; i++) {
      const r = m.files.get(m.fileOf[i]!)!.repo_id;
      let k = names.indexOf(r); if (k < 0) { k = names.length; names.push(r); }
      of[i] = k;
    }
    c.repos = { names, of };
  }
  return c.repos;
}

/** (repo, path, symbol_path) → node index; a file's key has an empty symbol path. */
function keyIndex(m: OverviewModel): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i < m.n; i++) { const f = m.files.get(m.fileOf[i]!)!; out.set(`${f.repo_id}\0${f.path}\0${m.symbolPath[i] ?? ''}`, i); }
  return out;
}

function topLanguages(files: readonly FileInfo[]): string[] {
  const c = new Map<string, number>();
  for (const f of files) c.set(f.language, (c.get(f.language) ?? 0) + f.line_count);
  return [...c].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 3).map(([l]) => l);
}
