/**
 * Phase "history": per indexed root, each git repository in it (the root's own, and each nested one the
 * walk found) is mined (history/mine.ts, one `git log -M -p -U0` of the last 500 non-merge commits),
 * incrementally from the stored last mined commit; a rewritten history (rebase, amend, branch switch)
 * is mined again. HEAD is first read from the repository's files (`readHeadNoSpawn`): a warm restart
 * with no new commit spawns no git process. Then churn, co-change pairs (history/cochange.ts) and
 * per-symbol commits (history/lines.ts, over the symbol ranges the scan stored) are rebuilt for the
 * root, with paths rebased onto the index's, and replaced in the history store. Sweeping commits (more
 * than 50 indexed files) count for nothing; documentation files (Markdown, reStructuredText, …) take
 * part like indexed files.
 */
import { existsSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { phase } from '../runner';
import { SightlineError } from '../../errors';
import type { IndexEnv } from '../env';
import { scanPhase } from './scan';
import { readHeadNoSpawn, probeRepository, mineRepository, mergeMined, buildCoChange, coupling, symbolCommits, type MinedCommit, type SymbolSpan } from '../../history';
import type { HistoryRepoState, HistoryStatus, HistoryFileRow } from '../../store/history';
import { symbolId } from '../../util/ids';
import type { Store } from '../../store/store';
import type { Root } from '../../workspace';

/** The history part of a repository's run report. */
export interface HistoryRepoReport {
  /** how the git history was brought up to date: none (no new commit), incremental, full, or unavailable (no git history) */
  history_update: 'none' | 'incremental' | 'full' | 'unavailable';
  /** git processes the history phase ran for this repository */
  history_git_calls: number;
}

/** Files that take part in co-change although the index does not parse them. */
export const DOC_FILE = /\.(md|mdx|markdown|rst|adoc|asciidoc|txt)$/i;

export interface HistoryPhaseOutput { repos: Map<string, HistoryRepoReport> }

const posix = (p: string) => p.split(sep).join('/');

/** index path ↔ git path of one git repository in a root. */
export function rebaser(root: string, top: string): { toIndex: (p: string) => string | null; toGit: (p: string) => string | null } {
  const rel = posix(relative(root, top));
  if (rel === '') return { toIndex: p => p, toGit: p => p };
  if (!rel.startsWith('..')) return { toIndex: p => `${rel}/${p}`, toGit: p => p.startsWith(rel + '/') ? p.slice(rel.length + 1) : null };
  const sub = posix(relative(top, root)); // the root is a folder inside the repository
  return { toIndex: p => p.startsWith(sub + '/') ? p.slice(sub.length + 1) : null, toGit: p => `${sub}/${p}` };
}

export const historyPhase = phase({
  name: 'history', deps: [scanPhase],
  async run({ scan }, env: IndexEnv): Promise<HistoryPhaseOutput> {
    const out = new Map<string, HistoryRepoReport>();
    for (const { report, edited } of scan.repos) {
      const root = env.roots.find(r => r.repo_id === report.repo_id);
      if (!root) continue;
      if (env.signal?.aborted) throw new SightlineError('cancelled', 'indexing was cancelled before the git history');
      // bodies only (same files, same definitions): co-change stands, only the edited files' symbols move
      const filesChanged = report.graph_update === 'partial' ? edited : report.graph_update !== 'none' || report.files_parsed > 0 || report.files_deleted > 0;
      const h = await historyOfRoot(env, root, filesChanged);
      Object.assign(report, h);
      out.set(report.repo_id, h);
    }
    return { repos: out };
  },
});

async function historyOfRoot(env: IndexEnv, r: Root, filesChanged: boolean | readonly number[]): Promise<HistoryRepoReport> {
  const store = env.indexFile.store;
  const row = store.meta.repo(r.repo_id);
  const nested: string[] = row?.nested_repos ? JSON.parse(row.nested_repos) : [];
  const gitPaths = ['', ...nested];
  let indexedPaths: Set<string> | undefined; // read when mining or rebuilding needs it (not for an edit of bodies)
  const indexed = { has: (p: string) => (indexedPaths ??= new Set(store.files.fileMetas(r.repo_id).keys())).has(p) };
  const prevStates = new Map(store.history.states(r.repo_id).map(s => [s.git_path, s]));
  let calls = 0, anyMined = false, anyIncremental = false, anyOk = false;
  const fresh = new Map<string, MinedCommit[]>();
  const states: HistoryRepoState[] = [];
  // Each git repository of the root is probed and mined on its own; two at a time (git computes the
  // patches in its own process, so two keep both cores busy), the results taken in the roots' order.
  type One = { state: HistoryRepoState; calls: number; mined: boolean; ok: boolean; incremental: boolean; fresh?: MinedCommit[]; write?: HistoryRepoState };
  const one = async (gp: string): Promise<One> => {
    const cwd = gp ? join(r.root, gp) : r.root;
    const prev = prevStates.get(gp);
    const base: HistoryRepoState = { repo_id: r.repo_id, git_path: gp, top: null, status: 'ok', message: null, head: null, branch: null, shallow: false,
      commits_mined: 0, commits_counted: 0, files: 0, pairs: 0, truncated: false, mined_at: Date.now() };
    if (prev && !env.force) {
      if (prev.status === 'ok' && prev.top) {
        const nh = readHeadNoSpawn(prev.top);
        if (nh && nh.head === prev.head) return { state: prev, calls: 0, mined: false, ok: true, incremental: false };
      } else if (prev.status !== 'ok' && !readHeadNoSpawn(cwd)) return { state: prev, calls: 0, mined: false, ok: false, incremental: false }; // still no history
    }
    let calls = 3;
    const probe = await probeRepository(cwd);
    if (!probe.ok) {
      const status: HistoryStatus = probe.code === 'not_a_repository' || probe.code === 'no_commits' || probe.code === 'git_missing' ? probe.code : 'failed';
      const st = { ...base, status, message: probe.message };
      return { state: st, write: st, calls, mined: true, ok: false, incremental: false };
    }
    const top = probe.value.top;
    if (prev && !env.force && prev.status === 'ok' && prev.head === probe.value.head) return { state: { ...prev, top }, calls, mined: false, ok: true, incremental: false };
    const rb = rebaser(r.root, top);
    const isIndexed = (p: string) => { const ip = rb.toIndex(p); return ip !== null && indexed.has(ip); };
    const since = prev && !env.force && prev.status === 'ok' ? prev.head : null;
    calls += since ? 2 : 1;
    let mine = await mineRepository(cwd, { since, isIndexed });
    if (mine.ok && mine.value.kind === 'rewritten') { calls += 4; mine = await mineRepository(cwd, { isIndexed }); }
    if (!mine.ok) {
      const st = { ...base, top, status: 'failed' as const, message: mine.message };
      return { state: st, write: st, calls, mined: true, ok: false, incremental: false };
    }
    const m = mine.value;
    if (m.kind === 'unchanged') return { state: { ...(prev ?? base), top }, calls, mined: false, ok: true, incremental: false };
    const incremental = m.kind === 'mined' && m.incremental;
    const commits = incremental ? mergeMined(m.commits, store.history.mined(r.repo_id, gp)) : m.commits;
    const st: HistoryRepoState = { ...base, top, head: m.head, branch: m.branch, shallow: m.shallow, commits_mined: commits.length,
      truncated: m.kind === 'mined' && (m.truncated || commits.length >= 500) };
    return { state: st, calls, mined: true, ok: true, incremental, fresh: commits };
  };
  const results: One[] = new Array(gitPaths.length);
  let next = 0;
  const worker = async () => { while (next < gitPaths.length) { const i = next++; results[i] = await one(gitPaths[i]!); } };
  await Promise.all([worker(), worker()]);
  for (const [i, res] of results.entries()) {
    states.push(res.state);
    if (res.write) { const w = res.write; store.transaction(() => store.history.setState(w, null)); }
    if (res.fresh) fresh.set(gitPaths[i]!, res.fresh);
    calls += res.calls; anyMined ||= res.mined; anyOk ||= res.ok; anyIncremental ||= res.incremental;
  }
  const derivedMissing = anyOk && store.history.counts(r.repo_id).commits === 0 && states.some(s => s.status === 'ok' && s.commits_counted > 0);
  if (anyMined || filesChanged === true || derivedMissing || env.force) {
    rebuildDerived(store, r, states, fresh, indexed);
    env.indexFile.markUnsaved();
  } else if (Array.isArray(filesChanged) && filesChanged.length) {
    const paths = new Set(filesChanged.map(id => store.files.fileById(id)?.path).filter((p): p is string => !!p));
    rebuildSymbols(store, r, states, paths);
    env.indexFile.markUnsaved();
  }
  return { history_update: !anyOk ? 'unavailable' : !anyMined && !fresh.size ? 'none' : anyIncremental ? 'incremental' : fresh.size ? 'full' : 'none', history_git_calls: calls };
}

function rebuildDerived(store: Store, r: Root, states: HistoryRepoState[], fresh: Map<string, MinedCommit[]>, indexed: { has(p: string): boolean }): void {
  const spans = store.symbols.spans(r.repo_id);
  const commitsOut = new Map<string, { sha: string; time: number; author: string; subject: string }>();
  const files: HistoryFileRow[] = [];
  const pairs: { a: string; b: string; together_count: number; coupling: number }[] = [];
  const symbols = new Map<string, string[]>();
  const nestedPaths = states.map(s => s.git_path).filter(Boolean);
  store.transaction(() => {
    for (const s of states) {
      if (s.status !== 'ok' || !s.top) { store.history.setState(s, null); continue; }
      const mined = fresh.get(s.git_path) ?? store.history.mined(r.repo_id, s.git_path);
      const rb = rebaser(r.root, s.top);
      // Docs the index does not hold take part while they still exist (a CHANGES.rst replaced by
      // CHANGES.md is history, not a partner to suggest).
      const docs = new Map<string, boolean>();
      const docExists = (ip: string) => { let e = docs.get(ip); if (e === undefined) { e = existsSync(join(r.root, ip)); docs.set(ip, e); } return e; };
      const include = (p: string) => { const ip = rb.toIndex(p); return ip !== null && (indexed.has(ip) || (DOC_FILE.test(ip) && docExists(ip))); };
      const cc = buildCoChange(mined, { include });
      for (const c of cc.commits) commitsOut.set(c.sha, c);
      let nFiles = 0;
      for (const f of cc.files.values()) {
        const ip = rb.toIndex(f.path); if (ip === null) continue;
        nFiles++;
        files.push({ path: ip, churn: f.churn, commits: f.commits.map(i => cc.commits[i]!.sha), former_paths: f.former_paths.map(p => rb.toIndex(p) ?? p) });
      }
      let nPairs = 0;
      for (const [k, n] of cc.pairs) {
        const [a, b] = k.split('\0') as [string, string];
        const ia = rb.toIndex(a), ib = rb.toIndex(b);
        if (ia === null || ib === null) continue;
        nPairs++;
        const [x, y] = ia < ib ? [ia, ib] : [ib, ia];
        pairs.push({ a: x, b: y, together_count: n, coupling: coupling(n, cc.files.get(a)!.churn, cc.files.get(b)!.churn) });
      }
      // symbols of the files this git repository holds (not those of a repository nested in it)
      const here = new Map<string, SymbolSpan[]>();
      for (const [ip, list] of spans) {
        if (s.git_path === '' ? nestedPaths.some(n => ip.startsWith(n + '/')) : !ip.startsWith(s.git_path + '/')) continue;
        const gp = rb.toGit(ip); if (gp === null) continue;
        here.set(gp, list.map(x => ({ id: symbolId(r.repo_id, ip, x.symbol_path), start_line: x.start_line, end_line: x.end_line })));
      }
      for (const [id, idx] of symbolCommits(mined, here)) {
        if (!idx.length) continue;
        const shas = idx.map(i => mined[i]!.sha);
        const prev = symbols.get(id);
        symbols.set(id, prev ? [...new Set([...prev, ...shas])] : shas);
      }
      store.history.setState({ ...s, commits_mined: mined.length, commits_counted: cc.commits.length, files: nFiles, pairs: nPairs }, fresh.has(s.git_path) ? mined : 'keep');
    }
    store.history.keepStates(r.repo_id, states.map(s => s.git_path));
    store.history.replaceDerived(r.repo_id, { commits: [...commitsOut.values()], files, pairs, symbols });
  });
}

/** The git repository (state) holding an index path: the longest nested folder containing it, else the root's. */
function stateOf(states: readonly HistoryRepoState[], ip: string): HistoryRepoState | undefined {
  return states.filter(s => s.git_path && ip.startsWith(s.git_path + '/')).sort((a, b) => b.git_path.length - a.git_path.length)[0] ?? states.find(s => s.git_path === '');
}

/** After an edit of bodies only, no new commit: the edited files' symbol commits again (their ranges moved). */
function rebuildSymbols(store: Store, r: Root, states: HistoryRepoState[], paths: ReadonlySet<string>): void {
  const spans = store.symbols.spans(r.repo_id, [...paths]);
  const byState = new Map<HistoryRepoState, Map<string, SymbolSpan[]>>();
  const ids: string[] = [];
  for (const ip of paths) {
    const s = stateOf(states, ip);
    const list = spans.get(ip) ?? [];
    for (const x of list) ids.push(symbolId(r.repo_id, ip, x.symbol_path));
    if (!s || s.status !== 'ok' || !s.top) continue;
    const gp = rebaser(r.root, s.top).toGit(ip); if (gp === null) continue;
    let m = byState.get(s); if (!m) byState.set(s, m = new Map());
    m.set(gp, list.map(x => ({ id: symbolId(r.repo_id, ip, x.symbol_path), start_line: x.start_line, end_line: x.end_line })));
  }
  const symbols = new Map<string, string[]>();
  for (const [s, files] of byState) {
    const mined = store.history.mined(r.repo_id, s.git_path);
    for (const [id, idx] of symbolCommits(mined, files)) {
      if (!idx.length) continue;
      const prev = symbols.get(id); const shas = idx.map(i => mined[i]!.sha);
      symbols.set(id, prev ? [...new Set([...prev, ...shas])] : shas);
    }
  }
  store.transaction(() => store.history.replaceSymbols(r.repo_id, ids, symbols));
}
