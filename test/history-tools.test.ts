/** The history phase, its store and the change-loop tools, on real git repositories made here. */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Engine } from '../src/core/engine';
import { invokeTool } from '../src/core/tools/contract';
import { findTool } from '../src/core/tools/registry';

const TEST_ENV = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
let time = 1_700_000_000;

function git(dir: string, ...args: string[]): string {
  time += 60;
  const env = { ...process.env, ...TEST_ENV, GIT_AUTHOR_DATE: `${time} +0000`, GIT_COMMITTER_DATE: `${time} +0000` };
  return execFileSync('git', ['-c', 'user.name=Tess Ter', '-c', 'user.email=t@example.com', '-c', 'core.autocrlf=false', ...args], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
}
function write(dir: string, files: Record<string, string>): void {
  for (const [p, c] of Object.entries(files)) { mkdirSync(dirname(join(dir, p)), { recursive: true }); writeFileSync(join(dir, p), c); }
}
function commit(dir: string, subject: string, files: Record<string, string> = {}): string {
  write(dir, files);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '--no-verify', '--allow-empty', '-m', subject);
  return git(dir, 'rev-parse', 'HEAD').trim();
}
const fn = (name: string, body: string) => `export function ${name}(x: number): number {\n  return ${body};\n}\n`;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
async function call(engine: Engine, tool: string, args: Json): Promise<{ data: Json; markdown: string }> {
  const out = await invokeTool(findTool(tool)!, args, { engine });
  assert.ok(out.ok, JSON.stringify(out));
  return { data: out.data as Json, markdown: out.markdown };
}

describe('history phase and the change-loop tools (real git repositories)', function () {
  this.timeout(120_000);
  let tmp: string;
  const saved: Record<string, string | undefined> = {};
  const engines: Engine[] = [];
  const open = async (roots: string[], db: string) => { const e = await Engine.open({ roots, dbPath: db, threads: 0 }); engines.push(e); return e; };
  before(() => {
    tmp = realpathSync(mkdtempSync(join(tmpdir(), 'sl-histtools-')));
    for (const [k, v] of Object.entries({ ...TEST_ENV, GIT_CEILING_DIRECTORIES: dirname(tmp) })) { saved[k] = process.env[k]; process.env[k] = v; }
  });
  after(() => {
    for (const e of engines) e.close();
    for (const [k, v] of Object.entries(saved)) { if (v === undefined) delete process.env[k]; else process.env[k] = v; }
    rmSync(tmp, { recursive: true, force: true });
  });

  /** a.ts and b.ts change together three times, README.md with a.ts twice, c.ts alone; a sweeping commit touches 52 files. */
  function makeRepo(name: string): string {
    const dir = join(tmp, name);
    mkdirSync(dir, { recursive: true });
    git(dir, 'init', '-q', '-b', 'main', '.');
    commit(dir, 'start', { 'src/a.ts': fn('alpha', 'x + 1') + fn('beta', 'x * 2'), 'src/b.ts': `import { alpha } from './a';\n${fn('useAlpha', 'alpha(x)')}`, 'src/c.ts': fn('gamma', 'x'), 'README.md': '# r\n' });
    commit(dir, 'a and b 1', { 'src/a.ts': fn('alpha', 'x + 2') + fn('beta', 'x * 2'), 'src/b.ts': `import { alpha } from './a';\n${fn('useAlpha', 'alpha(x) + 1')}` });
    commit(dir, 'a and readme', { 'src/a.ts': fn('alpha', 'x + 3') + fn('beta', 'x * 2'), 'README.md': '# r\nalpha adds\n' });
    const many: Record<string, string> = {};
    for (let i = 0; i < 52; i++) many[`gen/g${i}.ts`] = fn(`g${i}`, String(i));
    many['src/c.ts'] = fn('gamma', 'x + 0');
    commit(dir, 'sweeping: generate', many);
    commit(dir, 'a and b 2', { 'src/a.ts': fn('alpha', 'x + 4') + fn('beta', 'x * 2'), 'src/b.ts': `import { alpha } from './a';\n${fn('useAlpha', 'alpha(x) + 2')}` });
    commit(dir, 'beta only', { 'src/a.ts': fn('alpha', 'x + 4') + fn('beta', 'x * 3'), 'README.md': '# r\nalpha adds; beta triples\n' });
    write(dir, { 'test/a.test.ts': `import { alpha } from '../src/a';\ndescribe('alpha', () => { it('adds', () => { alpha(1); }); });\n` });
    commit(dir, 'test for alpha');
    return dir;
  }

  it('mines churn, co-change (Markdown included, sweeping commits left out) and symbol commits; index_status reports them', async () => {
    const dir = makeRepo('basic');
    const e = await open([dir], join(tmp, 'basic.sqlite'));
    const r = await e.index({});
    assert.equal(r.repos[0]!.history_update, 'full');
    assert.ok(r.timings.history_ms >= 0);
    const { data, markdown } = await call(e, 'history', { path: 'src/a.ts' });
    assert.equal(data.churn, 5, 'start, a and b 1, a and readme, a and b 2, beta only');
    assert.deepEqual(data.commits.map((c: Json) => c.subject), ['beta only', 'a and b 2', 'a and readme', 'a and b 1', 'start']);
    const partners = Object.fromEntries(data.co_change.map((p: Json) => [p.path, p.together_count]));
    assert.equal(partners['src/b.ts'], 3);
    assert.equal(partners['README.md'], 3, 'Markdown takes part: start, a and readme, beta only');
    assert.equal(partners['src/c.ts'], 1, 'only the first commit: the sweeping one does not count');
    assert.ok(!Object.keys(partners).some(p => p.startsWith('gen/')));
    assert.equal(data.history.available, true);
    assert.match(markdown, /Usually changes with/);
    const c = await call(e, 'history', { path: 'src/c.ts' });
    assert.equal(c.data.churn, 1);
    // a path where a symbol is expected is understood as the file
    const asSymbol = await call(e, 'history', { symbol: 'src/a.ts' });
    assert.match(asSymbol.data.matched_by, /the file src\/a\.ts/);
    assert.deepEqual(asSymbol.data.commits.map((x: Json) => x.subject), data.commits.map((x: Json) => x.subject));
    // an answer over a window says so: none of the mined commits is not "no commits"
    const windowed = findTool('history')!.render({ ...c.data, commits: [], total: 0, churn: 0,
      history: { ...c.data.history, truncated: true } } as never, {});
    assert.match(windowed, /0 commits in the last 500 commits of this repository \(older ones are not mined\)/);
    // symbol commits: hunks over the symbol's range
    const alpha = await call(e, 'history', { symbol: 'alpha', path: 'src/a.ts' });
    assert.deepEqual(alpha.data.commits.map((x: Json) => x.subject), ['a and b 2', 'a and readme', 'a and b 1', 'start']);
    const beta = await call(e, 'history', { symbol: 'beta' });
    assert.deepEqual(beta.data.commits.map((x: Json) => x.subject), ['beta only', 'start']);
    assert.equal(beta.data.churn, 5, 'churn is the file\'s');
    // paging with the shared scheme
    const p1 = await call(e, 'history', { path: 'src/a.ts', limit: 2, offset: 0 });
    assert.equal(p1.data.commits.length, 2); assert.equal(p1.data.next_offset, 2); assert.equal(p1.data.total, 5);
    const st = await call(e, 'index_status', {});
    const h = st.data.roots[0].history[0];
    assert.equal(h.status, 'ok'); assert.equal(h.last_mined_commit, git(dir, 'rev-parse', 'HEAD').trim());
    assert.equal(h.commits_mined, 7); assert.equal(h.commits_counted, 6);
    assert.match(st.markdown, /history basic: 6 of 7 commits counted/);
  });

  it('docs the index does not hold are partners while they exist; a deleted one is not suggested', async () => {
    const dir = join(tmp, 'docs');
    mkdirSync(dir, { recursive: true });
    git(dir, 'init', '-q', '-b', 'main', '.');
    commit(dir, 'one', { 'src/a.ts': fn('alpha', 'x + 1'), 'OLD.rst': 'old\n', 'NOTES.rst': 'n\n' });
    commit(dir, 'two', { 'src/a.ts': fn('alpha', 'x + 2'), 'OLD.rst': 'old 2\n', 'NOTES.rst': 'n 2\n' });
    git(dir, 'rm', '-q', 'OLD.rst');
    commit(dir, 'drop old notes');
    const e = await open([dir], join(tmp, 'docs.sqlite'));
    await e.index({});
    const { data } = await call(e, 'history', { path: 'src/a.ts' });
    const partners = data.co_change.map((p: Json) => p.path);
    assert.ok(partners.includes('NOTES.rst'), partners.join(','));
    assert.ok(!partners.includes('OLD.rst'), `a deleted doc is not a partner: ${partners.join(',')}`);
  });

  it('a warm restart with no new commit runs no git process for history; new commits are mined incrementally; a rewrite is re-mined', async () => {
    const dir = makeRepo('incr');
    const db = join(tmp, 'incr.sqlite');
    const e1 = await open([dir], db);
    await e1.index({});
    e1.close(); engines.splice(engines.indexOf(e1), 1);
    const e2 = await open([dir], db);
    const warm = await e2.index({});
    assert.equal(warm.repos[0]!.history_update, 'none');
    assert.equal(warm.repos[0]!.history_git_calls, 0);
    // an edit of a body, no commit: no git process, the edited file's symbols are mapped again
    write(dir, { 'src/a.ts': fn('alpha', 'x + 4') + fn('beta', 'x * 3') + '// note\n' });
    const edit = await e2.index({});
    assert.equal(edit.repos[0]!.graph_update, 'partial');
    assert.equal(edit.repos[0]!.history_update, 'none');
    assert.equal(edit.repos[0]!.history_git_calls, 0);
    assert.deepEqual((await call(e2, 'history', { symbol: 'beta' })).data.commits.map((x: Json) => x.subject), ['beta only', 'start']);
    assert.equal((await call(e2, 'history', { path: 'src/a.ts' })).data.churn, 5);
    git(dir, 'checkout', '-q', '--', 'src/a.ts');
    commit(dir, 'c again', { 'src/c.ts': fn('gamma', 'x + 5') });
    const inc = await e2.index({});
    assert.equal(inc.repos[0]!.history_update, 'incremental');
    assert.equal((await call(e2, 'history', { path: 'src/c.ts' })).data.churn, 2);
    git(dir, 'commit', '-q', '--amend', '-m', 'c again, amended');
    const re = await e2.index({});
    assert.equal(re.repos[0]!.history_update, 'full', 'the old head is no longer an ancestor: mined again');
    const c = await call(e2, 'history', { path: 'src/c.ts' });
    assert.deepEqual(c.data.commits.map((x: Json) => x.subject), ['c again, amended', 'start']);
    // an edit of bodies after the re-mine maps its symbols over the new commits, not those read before it
    write(dir, { 'src/c.ts': fn('gamma', 'x + 5') + '// note\n' });
    assert.equal((await e2.index({})).repos[0]!.graph_update, 'partial');
    assert.deepEqual((await call(e2, 'history', { symbol: 'gamma' })).data.commits.map((x: Json) => x.subject), ['c again, amended', 'start']);
    git(dir, 'checkout', '-q', '--', 'src/c.ts');
    // a detached HEAD is a fine state
    git(dir, 'checkout', '-q', '--detach', 'HEAD~1');
    const det = await e2.index({});
    assert.equal(det.repos[0]!.history_update, 'full');
    assert.equal((await call(e2, 'history', { path: 'src/c.ts' })).data.churn, 1);
  });

  it('says why there is no history: not a git repository, no commits; a shallow clone says so', async () => {
    const plain = join(tmp, 'plain'); write(plain, { 'x.ts': fn('x', '1') });
    const e = await open([plain], join(tmp, 'plain.sqlite'));
    const r = await e.index({});
    assert.equal(r.repos[0]!.history_update, 'unavailable');
    const h = await call(e, 'history', { path: 'x.ts' });
    assert.equal(h.data.history.available, false);
    assert.equal(h.data.history.reason, 'not a git repository');
    assert.match(h.markdown, /no history — not a git repository/);
    const empty = join(tmp, 'empty'); write(empty, { 'y.ts': fn('y', '1') }); git(empty, 'init', '-q', '-b', 'main', '.');
    const e2 = await open([empty], join(tmp, 'empty.sqlite'));
    await e2.index({});
    assert.equal((await call(e2, 'history', { path: 'y.ts' })).data.history.reason, 'the git repository has no commits');
    const src = makeRepo('deep');
    const shallow = join(tmp, 'shallow');
    git(tmp, 'clone', '-q', '--depth', '2', `file://${src}`, shallow);
    const e3 = await open([shallow], join(tmp, 'shallow.sqlite'));
    await e3.index({});
    const s = await call(e3, 'history', { path: 'src/a.ts' });
    assert.equal(s.data.history.shallow, true);
    assert.equal(s.data.churn, 0, 'the graft point\'s whole-tree diff does not count; the last commit touched only the test');
    const st = await call(e3, 'index_status', {});
    assert.equal(st.data.roots[0].history[0].shallow, true);
  });

  it('mines nested repositories with paths rebased onto the root; context_for_change --base skips the one without the ref', async () => {
    const ws = join(tmp, 'ws'); mkdirSync(ws);
    const one = makeRepo('ws/one');
    const two = join(ws, 'two'); mkdirSync(two); git(two, 'init', '-q', '-b', 'main', '.');
    commit(two, 'two start', { 'lib.ts': fn('twoFn', 'x') });
    git(one, 'tag', 'v1', 'HEAD~1');
    const e = await open([ws], join(tmp, 'ws.sqlite'));
    await e.index({});
    const st = await call(e, 'index_status', {});
    assert.deepEqual(st.data.roots[0].history.map((x: Json) => [x.path, x.status]).sort(), [['', 'not_a_repository'], ['one', 'ok'], ['two', 'ok']]);
    const h = await call(e, 'history', { path: 'one/src/a.ts' });
    assert.equal(h.data.churn, 5);
    assert.ok(h.data.co_change.some((p: Json) => p.path === 'one/src/b.ts'));
    write(one, { 'src/c.ts': fn('gamma', 'x + 100') });
    const cfc = await call(e, 'context_for_change', { base: 'v1' });
    assert.deepEqual(cfc.data.changed_files.sort(), ['one/src/c.ts', 'one/test/a.test.ts']);
    assert.ok(cfc.data.changed.some((c: Json) => c.id.endsWith(':one/src/c.ts:gamma')));
    const skipped = cfc.data.repositories.filter((x: Json) => !x.diffed).map((x: Json) => x.path);
    assert.ok(skipped.includes('two'), JSON.stringify(cfc.data.repositories));
    assert.match(cfc.markdown, /skipped/);
    // a diff made inside the nested repository: its paths are rebased onto it
    const inner = await call(e, 'post_change_impact', { diff: git(one, 'diff') });
    assert.deepEqual(inner.data.changed_files, ['one/src/c.ts']);
    assert.ok(inner.data.changed_symbols.some((s: string) => s.endsWith(':one/src/c.ts:gamma')));
  });

  it('post_change_impact: changed symbols from a diff, dependents, recommended tests, "usually changes with" evidence', async () => {
    const dir = makeRepo('post');
    const e = await open([dir], join(tmp, 'post.sqlite'));
    await e.index({});
    write(dir, { 'src/a.ts': fn('alpha', 'x + 40') + fn('beta', 'x * 3') });
    const diff = git(dir, 'diff');
    const { data, markdown } = await call(e, 'post_change_impact', { diff });
    assert.deepEqual(data.changed_files, ['src/a.ts']);
    assert.deepEqual(data.changed_symbols.map((s: string) => s.split(':').pop()), ['alpha']);
    assert.deepEqual(data.changed_new_line_ranges['src/a.ts'], [{ start: 2, end: 2 }]);
    assert.ok(data.report.affected_symbols.some((a: Json) => a.id.endsWith(':src/b.ts:useAlpha')));
    assert.ok(data.report.recommended_tests.some((t: Json) => t.path === 'test/a.test.ts'), JSON.stringify(data.report.recommended_tests));
    assert.ok(data.report.evidence.some((x: string) => /usually changes with .*src\/a\.ts → src\/b\.ts/.test(x)), JSON.stringify(data.report.evidence));
    assert.ok(['low', 'medium', 'high'].includes(data.report.risk_level));
    assert.match(markdown, /risk \*\*/);
    // never a silent "no impact": text that is not a diff, or a ref no repository has, is an invalid argument
    for (const [tool, args] of [['post_change_impact', { diff: 'garbage\n@@ nonsense @@\n+++\n' }], ['context_for_change', { diff: 'not a diff' }],
      ['context_for_change', { diff: '' }], ['context_for_change', { base: 'no-such-ref-7f3a' }]] as const) {
      const bad = await invokeTool(findTool(tool)!, args, { engine: e });
      assert.ok(!bad.ok, `${tool} ${JSON.stringify(args)} answered instead of failing`);
      assert.equal(bad.error.code, 'invalid_arguments');
      assert.match(bad.error.message, /not a unified diff|no git repository of the workspace has the ref no-such-ref-7f3a|diff/);
    }
    // a real diff on the heuristic graph (no compiler-grade provider ran) is never complete
    const ctxAnswer = await call(e, 'context_for_change', { diff });
    assert.equal(ctxAnswer.data.complete, false);
    assert.ok(ctxAnswer.data.boundaries.some((b: Json) => b.kind === 'heuristic_only'), JSON.stringify(ctxAnswer.data.boundaries));
    const byNames = await call(e, 'post_change_impact', { changed_symbols: ['beta'] });
    assert.deepEqual(byNames.data.changed_symbols.map((s: string) => s.split(':').pop()), ['beta']);
    // impact and impact_analysis carry co-change as labelled evidence
    const imp = await call(e, 'impact', { symbol: 'alpha' });
    assert.ok(imp.data.co_change.some((c: Json) => c.partner === 'src/b.ts'));
    const ia = await call(e, 'impact_analysis', { changed_files: ['src/c.ts'], changed_symbols: [] });
    assert.ok(Array.isArray(ia.data.co_change));
  });

  it('pre_change_context: a budgeted metadata pack, symbols, edges, co-change of the top files', async () => {
    const dir = makeRepo('pre');
    const e = await open([dir], join(tmp, 'pre.sqlite'));
    await e.index({});
    const { data } = await call(e, 'pre_change_context', { query: 'useAlpha alpha', token_budget: 4000 });
    assert.ok(data.results.length > 0);
    assert.ok(data.suggested_chunk_ids.length > 0);
    assert.equal(data.total_estimated_tokens, data.context_pack.reduce((s: number, p: Json) => s + p.estimated_metadata_tokens, 0));
    assert.ok(data.total_estimated_tokens <= 4000);
    assert.ok(data.co_change.length > 0);
    assert.deepEqual(data.memories, []);
    const tiny = await call(e, 'pre_change_context', { query: 'useAlpha alpha', token_budget: 100 });
    assert.ok(tiny.data.total_estimated_tokens <= 100);
    assert.equal(tiny.data.budget_exhausted, true);
  });

  it('follows renames and leaves merge commits out', async () => {
    const dir = makeRepo('rename');
    git(dir, 'mv', 'src/c.ts', 'src/see.ts');
    commit(dir, 'rename c');
    git(dir, 'checkout', '-q', '-b', 'side');
    commit(dir, 'side: see', { 'src/see.ts': fn('gamma', 'x + 9') });
    git(dir, 'checkout', '-q', 'main');
    commit(dir, 'main: b', { 'src/b.ts': `import { alpha } from './a';\n${fn('useAlpha', 'alpha(x) + 7')}` });
    git(dir, 'merge', '-q', '--no-ff', '--no-edit', 'side');
    const e = await open([dir], join(tmp, 'rename.sqlite'));
    await e.index({});
    const h = await call(e, 'history', { path: 'src/see.ts' });
    assert.deepEqual(h.data.former_paths, ['src/c.ts']);
    assert.deepEqual(h.data.commits.map((c: Json) => c.subject), ['side: see', 'rename c', 'start'], 'older touches count under the new name; the sweeping commit does not count');
    assert.equal(h.data.churn, 3);
    const st = await call(e, 'index_status', {});
    assert.equal(st.data.roots[0].history[0].commits_mined, 10, '7 + rename + side + main: b; the merge left out');
  });
  it('search_code ranks the file that changed more recently first when the text ties (signal recency)', async () => {
    const dir = join(tmp, 'recency');
    mkdirSync(dir, { recursive: true });
    git(dir, 'init', '-q', '-b', 'main', '.');
    const body = (word: string) => `// ${word}\nexport function parseLedgerEntry(line: string): string[] {\n  return line.split(';');\n}\n`;
    commit(dir, 'start', { 'src/one.ts': body('alpha'), 'src/two.ts': body('gamma'), 'src/other.ts': fn('other', 'x') });
    commit(dir, 'two', { 'src/two.ts': body('delta') });
    for (let i = 0; i < 3; i++) commit(dir, `other ${i}`, { 'src/other.ts': fn('other', `x + ${i}`) });
    const e = await open([dir], join(tmp, 'recency.sqlite'));
    await e.index({});
    const first = async () => {
      const { data } = await call(e, 'search_code', { query: 'parse ledger entry line split' });
      return data.files.filter((f: Json) => f.path !== 'src/other.ts').map((f: Json) => [f.path, f.signals.includes('recency')]);
    };
    assert.deepEqual(await first(), [['src/two.ts', true], ['src/one.ts', true]], 'both in the history; two.ts changed 3 commits ago, one.ts 4');
    commit(dir, 'Split each ledger entry line', { 'src/one.ts': body('omega') });
    await e.index({});
    assert.deepEqual((await first()).map((f: unknown[]) => f[0]), ['src/one.ts', 'src/two.ts'], 'a new commit moves one.ts ahead');
    const { data } = await call(e, 'search_code', { query: 'parse ledger entry line split' });
    const signals = new Map(data.files.map((f: Json) => [f.path, f.signals]));
    assert.ok((signals.get('src/one.ts') as string[]).includes('commit_subjects'), 'its commit subject names the query\'s words');
    assert.ok(!(signals.get('src/two.ts') as string[]).includes('commit_subjects'));
  });
});
