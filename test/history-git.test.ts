/** The git runner, the log miner, co-change and the line mapping on real git repositories made here. */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { diffAgainst, gitEnv, headCommit, isAncestor, probeRepository, readHeadNoSpawn, runGit, streamGit } from '../src/core/history/git';
import { LogParser, logArgs, mergeMined, mineRepository, type MinedCommit, type MineResult } from '../src/core/history/mine';
import { buildCoChange, coupling } from '../src/core/history/cochange';
import { symbolCommits } from '../src/core/history/lines';
import { parseDiff } from '../src/core/history/diff';

const TEST_ENV = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
let time = 1_700_000_000;

class Repo {
  constructor(readonly dir: string) {}
  static init(parent: string, name = 'repo'): Repo {
    const dir = join(parent, name);
    mkdirSync(dir, { recursive: true });
    const r = new Repo(dir);
    r.git('init', '-q', '-b', 'main', '.');
    return r;
  }
  git(...args: string[]): string {
    time += 60;
    const env = { ...process.env, ...TEST_ENV, GIT_AUTHOR_DATE: `${time} +0000`, GIT_COMMITTER_DATE: `${time} +0000` };
    return execFileSync('git', ['-c', 'user.name=Tess Ter', '-c', 'user.email=t@example.com', '-c', 'core.autocrlf=false', ...args], { cwd: this.dir, env, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
  }
  write(files: Record<string, string | Buffer>): this {
    for (const [p, c] of Object.entries(files)) { mkdirSync(dirname(join(this.dir, p)), { recursive: true }); writeFileSync(join(this.dir, p), c); }
    return this;
  }
  commit(subject: string, files: Record<string, string | Buffer> = {}, ...flags: string[]): string {
    this.write(files);
    this.git('add', '-A');
    this.git('commit', '-q', '--no-verify', ...flags, '-m', subject);
    return this.head();
  }
  head(): string { return this.git('rev-parse', 'HEAD').trim(); }
}

async function mined(dir: string, opts: Parameters<typeof mineRepository>[1] = {}): Promise<Extract<MineResult, { kind: 'mined' }>> {
  const r = await mineRepository(dir, opts);
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(r.value.kind, 'mined', JSON.stringify(r.value));
  return r.value as Extract<MineResult, { kind: 'mined' }>;
}
const subjects = (cs: MinedCommit[]) => cs.map(c => c.subject);
const lines = (n: number, tag = 'l') => Array.from({ length: n }, (_, i) => `${tag}${i + 1}`).join('\n') + '\n';

describe('history: git runner, miner, co-change on real repositories', function () {
  this.timeout(60_000);
  let tmp: string;
  const saved: Record<string, string | undefined> = {};
  before(() => {
    tmp = realpathSync(mkdtempSync(join(tmpdir(), 'sl-hist-')));
    // The code under test inherits the environment: no user or system git config, and no repository above tmp.
    for (const [k, v] of Object.entries({ ...TEST_ENV, GIT_CEILING_DIRECTORIES: dirname(tmp) })) { saved[k] = process.env[k]; process.env[k] = v; }
  });
  after(() => {
    for (const [k, v] of Object.entries(saved)) { if (v === undefined) delete process.env[k]; else process.env[k] = v; }
    rmSync(tmp, { recursive: true, force: true });
  });

  describe('runner', () => {
    it('typed failures: not a repository, a missing folder, git missing, no commits yet', async () => {
      const plain = join(tmp, 'plain'); mkdirSync(plain);
      const notRepo = await mineRepository(plain);
      assert.ok(!notRepo.ok && notRepo.code === 'not_a_repository', JSON.stringify(notRepo));
      const missingDir = await probeRepository(join(tmp, 'nope'));
      assert.ok(!missingDir.ok && missingDir.code === 'not_a_repository', JSON.stringify(missingDir));
      const noGit = await mineRepository(plain, { gitPath: join(tmp, 'no-such-git') });
      assert.ok(!noGit.ok && noGit.code === 'git_missing', JSON.stringify(noGit));
      const streamNoGit = await streamGit(plain, ['log'], () => {}, { gitPath: join(tmp, 'no-such-git') });
      assert.ok(!streamNoGit.ok && streamNoGit.code === 'git_missing', JSON.stringify(streamNoGit));
      const empty = Repo.init(tmp, 'empty');
      const none = await mineRepository(empty.dir);
      assert.ok(!none.ok && none.code === 'no_commits', JSON.stringify(none));
      const head = await headCommit(empty.dir);
      assert.ok(!head.ok && head.code === 'no_commits');
    });

    it('timeout and output cap become typed failures; the environment takes no optional locks', async () => {
      const fake = join(tmp, 'slow-git');
      writeFileSync(fake, '#!/bin/sh\nexec sleep 5\n'); chmodSync(fake, 0o755);
      const t0 = Date.now();
      const slow = await runGit(tmp, ['status'], { gitPath: fake, timeoutMs: 300 });
      assert.ok(!slow.ok && slow.code === 'timeout', JSON.stringify(slow));
      const slowStream = await streamGit(tmp, ['log'], () => {}, { gitPath: fake, timeoutMs: 300 });
      assert.ok(!slowStream.ok && slowStream.code === 'timeout', JSON.stringify(slowStream));
      assert.ok(Date.now() - t0 < 4000);
      const r = Repo.init(tmp, 'big');
      r.commit('big', { 'a.txt': lines(2000) });
      const cap = await runGit(r.dir, ['log', '-p'], { maxBytes: 1000 });
      assert.ok(!cap.ok && cap.code === 'output_too_large', JSON.stringify(cap));
      const capStream = await streamGit(r.dir, ['log', '-p'], () => {}, { maxBytes: 1000 });
      assert.ok(!capStream.ok && capStream.code === 'output_too_large');
      const capMine = await mineRepository(r.dir, { maxBytes: 1000 });
      assert.ok(!capMine.ok && capMine.code === 'output_too_large');
      assert.equal(gitEnv().GIT_OPTIONAL_LOCKS, '0');
    });

    it('arguments go to git by argv, never through a shell', async () => {
      const r = Repo.init(tmp, 'argv');
      r.commit('one', { 'a.txt': 'a\n' });
      const res = await runGit(r.dir, ['log', '--format=%s', '--', '$(touch pwned)', '`touch pwned2`; touch pwned3']);
      assert.ok(res.ok);
      assert.equal(res.value, '');
      for (const f of ['pwned', 'pwned2', 'pwned3']) assert.ok(!existsSync(join(r.dir, f)), f);
    });

    it('diffAgainst: the working tree against a base, a branch against its merge base, a missing ref', async () => {
      const r = Repo.init(tmp, 'diffbase');
      r.commit('base', { 'a.py': lines(5), 'b py.py': 'x\n' });
      r.git('checkout', '-q', '-b', 'topic');
      r.commit('topic', { 'a.py': lines(5).replace('l2\n', 'L2\n') });
      r.git('checkout', '-q', 'main');
      r.write({ 'b py.py': 'y\n' });
      const wt = await diffAgainst(r.dir, 'HEAD');
      assert.ok(wt.ok);
      assert.deepEqual(parseDiff(wt.value).files.map(f => [f.path, f.new_ranges]), [['b py.py', [{ start_line: 1, end_line: 1 }]]]);
      const br = await diffAgainst(r.dir, 'main', { branch: 'topic' });
      assert.ok(br.ok);
      assert.deepEqual(parseDiff(br.value).files.map(f => [f.path, f.new_ranges]), [['a.py', [{ start_line: 2, end_line: 2 }]]]);
      const missing = await diffAgainst(r.dir, 'no-such-branch');
      assert.ok(!missing.ok && missing.code === 'bad_revision', JSON.stringify(missing));
      const option = await diffAgainst(r.dir, '--output=/tmp/x');
      assert.ok(!option.ok && option.code === 'bad_revision');
    });

    it('isAncestor and headCommit', async () => {
      const r = Repo.init(tmp, 'anc');
      const a = r.commit('a', { 'f': '1\n' }), b = r.commit('b', { 'f': '2\n' });
      assert.deepEqual(await headCommit(r.dir), { ok: true, value: b });
      assert.deepEqual(await isAncestor(r.dir, a, b), { ok: true, value: true });
      assert.deepEqual(await isAncestor(r.dir, b, a), { ok: true, value: false });
      assert.deepEqual(await isAncestor(r.dir, '0'.repeat(40), b), { ok: true, value: false });
    });
  });

  describe('HEAD without a git process', () => {
    it('reads loose and packed refs, a detached HEAD, a worktree; null with no commits', async () => {
      const r = Repo.init(tmp, 'nospawn');
      assert.equal(readHeadNoSpawn(r.dir), null);
      const one = r.commit('one', { 'a': '1\n' });
      assert.deepEqual(readHeadNoSpawn(r.dir), { head: one, branch: 'main' });
      r.git('pack-refs', '--all');
      assert.ok(!existsSync(join(r.dir, '.git/refs/heads/main')));
      assert.deepEqual(readHeadNoSpawn(r.dir), { head: one, branch: 'main' });
      const two = r.commit('two', { 'a': '2\n' });
      assert.deepEqual(readHeadNoSpawn(r.dir), { head: two, branch: 'main' });
      const wt = join(tmp, 'nospawn-wt');
      r.git('worktree', 'add', '-q', '-b', 'side', wt, one);
      assert.deepEqual(readHeadNoSpawn(wt), { head: one, branch: 'side' });
      r.git('checkout', '-q', '--detach', one);
      assert.deepEqual(readHeadNoSpawn(r.dir), { head: one, branch: null });
      assert.equal(readHeadNoSpawn(join(tmp, 'plain-nothing')), null);
      const probe = await probeRepository(wt);
      assert.ok(probe.ok && probe.value.head === one);
    });
  });

  describe('miner', () => {
    it('the stream parser gives the same commits however the output is cut into chunks', async () => {
      const r = Repo.init(tmp, 'chunks');
      r.commit('add', { 'a b.txt': lines(5), 'é.md': 'x\r\n', 'bin': Buffer.from([0, 1]) });
      r.commit('edit', { 'a b.txt': lines(5).replace('l3\n', 'L3\n'), 'é.md': 'y\r\n' });
      const out = execFileSync('git', ['-c', 'core.quotepath=off', ...logArgs(500, 'HEAD')], { cwd: r.dir, env: { ...process.env, ...TEST_ENV } });
      const whole = new LogParser(); whole.push(out);
      const expected = whole.end();
      assert.equal(expected.length, 2);
      for (const size of [1, 2, 3, 7, 64]) {
        const p = new LogParser();
        for (let i = 0; i < out.length; i += size) p.push(out.subarray(i, i + size));
        assert.deepEqual(p.end(), expected, `chunks of ${size}`);
        assert.deepEqual(p.unknown, []);
      }
    });

    it('parses renames, spaces, unicode, tabs, CRLF, binary, mode-only, empty and deleting commits', async () => {
      const r = Repo.init(tmp, 'parse');
      r.commit('add', { 'src/a.py': lines(10), 'dir with space/naïve 日本.md': 'x\n', 'tab\tname.txt': 't\n', 'win.txt': 'a\r\nb\r\nc\r\n', 'bin.dat': Buffer.from([0, 1, 2, 0, 255]), 'gone.txt': 'bye\n' });
      r.commit('edit', { 'src/a.py': lines(10).replace('l2\n', 'L2\nL2b\n').replace('l8\n', ''), 'win.txt': 'a\r\nB\r\nc\r\n', 'bin.dat': Buffer.from([0, 9, 9, 0]) });
      r.git('mv', 'src/a.py', 'src/b é.py');
      r.commit('rename', { 'src/b é.py': lines(10).replace('l2\n', 'L2\nL2b\n').replace('l8\n', '').replace('l10\n', 'l10!\n') });
      chmodSync(join(r.dir, 'win.txt'), 0o755);
      r.commit('mode');
      r.commit('empty', {}, '--allow-empty');
      rmSync(join(r.dir, 'gone.txt'));
      r.commit('delete');
      const m = await mined(r.dir);
      assert.deepEqual(subjects(m.commits), ['delete', 'empty', 'mode', 'rename', 'edit', 'add']);
      const [del, empty, mode, rename, edit, add] = m.commits as [MinedCommit, MinedCommit, MinedCommit, MinedCommit, MinedCommit, MinedCommit];
      assert.deepEqual(add.files.map(f => [f.status, f.path]).sort(), [['added', 'bin.dat'], ['added', 'dir with space/naïve 日本.md'], ['added', 'gone.txt'], ['added', 'src/a.py'], ['added', 'tab\tname.txt'], ['added', 'win.txt']]);
      assert.equal(add.files.find(f => f.path === 'bin.dat')!.binary, true);
      assert.deepEqual(add.files.find(f => f.path === 'src/a.py')!.hunks, [{ old_start: 0, old_lines: 0, new_start: 1, new_lines: 10 }]);
      assert.deepEqual(edit.files.find(f => f.path === 'src/a.py')!.hunks, [{ old_start: 2, old_lines: 1, new_start: 2, new_lines: 2 }, { old_start: 8, old_lines: 1, new_start: 8, new_lines: 0 }]);
      assert.deepEqual(edit.files.find(f => f.path === 'win.txt')!.hunks, [{ old_start: 2, old_lines: 1, new_start: 2, new_lines: 1 }]);
      assert.deepEqual(edit.files.find(f => f.path === 'bin.dat'), { status: 'modified', path: 'bin.dat', old_path: null, binary: true, hunks: [] });
      assert.deepEqual(rename.files, [{ status: 'renamed', path: 'src/b é.py', old_path: 'src/a.py', binary: false, hunks: [{ old_start: 10, old_lines: 1, new_start: 10, new_lines: 1 }] }]);
      assert.deepEqual(mode.files, [{ status: 'modified', path: 'win.txt', old_path: null, binary: false, hunks: [] }]);
      assert.deepEqual(empty.files, []);
      assert.deepEqual(del.files.map(f => [f.status, f.path]), [['deleted', 'gone.txt']]);
      assert.deepEqual([add.author, add.time > 1_700_000_000, add.sha.length, add.parents, edit.parents], ['Tess Ter', true, 40, [], [add.sha]]);
      assert.equal(m.branch, 'main');
      assert.equal(m.shallow, false);
    });

    it('leaves merges out and keeps both branches\' commits; co-change is not doubled', async () => {
      const r = Repo.init(tmp, 'merge');
      r.commit('base', { 'a.ts': lines(20), 'b.ts': lines(20), 'c.ts': lines(5) });
      r.git('checkout', '-q', '-b', 'feature');
      r.commit('feat 1', { 'a.ts': lines(20).replace('l3\n', 'F3\n'), 'b.ts': lines(20).replace('l3\n', 'F3\n') });
      r.commit('feat 2', { 'a.ts': lines(20).replace('l3\n', 'F3\n').replace('l5\n', 'F5\n'), 'b.ts': lines(20).replace('l3\n', 'F3\n').replace('l5\n', 'F5\n') });
      r.git('checkout', '-q', 'main');
      r.commit('main 1', { 'c.ts': 'changed\n' });
      r.git('merge', '-q', '--no-ff', '-m', 'merge feature', 'feature');
      const m = await mined(r.dir);
      assert.ok(!subjects(m.commits).includes('merge feature'));
      assert.deepEqual(subjects(m.commits).sort(), ['base', 'feat 1', 'feat 2', 'main 1']);
      // Topological: no commit before one of its children.
      const at = new Map(m.commits.map((c, i) => [c.sha, i]));
      for (const c of m.commits) for (const p of c.parents) if (at.has(p)) assert.ok(at.get(p)! > at.get(c.sha)!);
      const cc = buildCoChange(m.commits);
      assert.equal(cc.partners('a.ts').find(p => p.path === 'b.ts')!.together_count, 3); // base + feat 1 + feat 2, the merge not again
      assert.equal(cc.files.get('c.ts')!.churn, 2);
    });

    it('a detached HEAD mines HEAD\'s history', async () => {
      const r = Repo.init(tmp, 'detached');
      const one = r.commit('one', { 'a': '1\n' });
      r.commit('two', { 'a': '2\n' });
      r.git('checkout', '-q', '--detach', one);
      const m = await mined(r.dir);
      assert.deepEqual([m.detached, m.branch, m.head, subjects(m.commits)], [true, null, one, ['one']]);
    });

    it('a shallow clone: detected, and the graft-point commit is never counted', async () => {
      const src = Repo.init(tmp, 'deep');
      for (let i = 1; i <= 5; i++) src.commit(`c${i}`, { 'a.txt': lines(i), 'b.txt': lines(i, 'b'), ...(i === 1 ? { 'lonely.txt': 'x\n' } : {}) });
      const dst = join(tmp, 'shallow');
      execFileSync('git', ['clone', '-q', '--depth', '2', `file://${src.dir}`, dst], { env: { ...process.env, ...TEST_ENV } });
      const probe = await probeRepository(dst);
      assert.ok(probe.ok && probe.value.shallow === true);
      const m = await mined(dst);
      assert.equal(m.shallow, true);
      assert.deepEqual(m.commits.map(c => [c.subject, c.boundary]), [['c5', false], ['c4', true]]);
      const cc = buildCoChange(m.commits);
      assert.equal(cc.files.get('a.txt')!.churn, 1);
      assert.equal(cc.files.has('lonely.txt'), false); // only in the boundary's "add everything" diff
      const deep = buildCoChange((await mined(src.dir)).commits);
      assert.equal(deep.files.get('a.txt')!.churn, 5);
    });

    it('a sweeping commit (> 50 indexed files) is left out of churn and co-change; only indexed files count', async () => {
      const r = Repo.init(tmp, 'sweep');
      const many = (tag: string) => Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`${i < 30 ? 'src' : 'vendor'}/f${i}.ts`, `${tag}\n`]));
      r.commit('seed', { 'x.ts': '1\n', 'y.ts': '1\n' });
      r.commit('sweep', { ...many('v1'), 'x.ts': '2\n', 'y.ts': '2\n' });
      r.commit('pair', { 'x.ts': '3\n', 'y.ts': '3\n' });
      const m = await mined(r.dir);
      assert.deepEqual(m.commits.map(c => [c.subject, c.sweeping, c.indexed_files]), [['pair', false, 2], ['sweep', true, 62], ['seed', false, 2]]);
      const cc = buildCoChange(m.commits);
      assert.equal(cc.files.get('x.ts')!.churn, 2);
      assert.equal(cc.partners('x.ts')[0]!.together_count, 2);
      assert.equal(cc.files.has('src/f0.ts'), false);
      // With vendor/ not indexed, the same commit touches 32 indexed files: not sweeping.
      const m2 = await mined(r.dir, { isIndexed: p => !p.startsWith('vendor/') });
      assert.deepEqual(m2.commits.map(c => c.sweeping), [false, false, false]);
      assert.equal(buildCoChange(m2.commits).files.get('x.ts')!.churn, 3);
    });

    it('incremental: only the commits after the last mined one; unchanged when HEAD is that commit', async () => {
      const r = Repo.init(tmp, 'incr');
      for (let i = 1; i <= 4; i++) r.commit(`c${i}`, { 'a.txt': lines(i) });
      const first = await mined(r.dir, { limit: 3 });
      assert.deepEqual([subjects(first.commits), first.truncated, first.incremental], [['c4', 'c3', 'c2'], true, false]);
      const unchanged = await mineRepository(r.dir, { since: first.head });
      assert.ok(unchanged.ok && unchanged.value.kind === 'unchanged');
      r.commit('c5', { 'a.txt': lines(5) });
      r.commit('c6', { 'b.txt': 'b\n' });
      const next = await mined(r.dir, { since: first.head });
      assert.deepEqual([subjects(next.commits), next.incremental, next.truncated], [['c6', 'c5'], true, false]);
      // Merged with what was kept, the list equals a fresh mine's.
      assert.deepEqual(subjects(mergeMined(next.commits, first.commits, 3)), subjects((await mined(r.dir, { limit: 3 })).commits));
      assert.deepEqual(subjects(mergeMined(next.commits, first.commits)), ['c6', 'c5', 'c4', 'c3', 'c2']);
    });

    it('a rewritten history (amend, reset, an unknown commit) says rewritten', async () => {
      const r = Repo.init(tmp, 'rewrite');
      r.commit('c1', { 'a.txt': '1\n' });
      const c2 = r.commit('c2', { 'a.txt': '2\n' });
      const amended = r.commit('c2 amended', { 'a.txt': '2!\n' }, '--amend');
      const afterAmend = await mineRepository(r.dir, { since: c2 });
      assert.ok(afterAmend.ok && afterAmend.value.kind === 'rewritten' && afterAmend.value.head === amended, JSON.stringify(afterAmend));
      r.git('reset', '-q', '--hard', 'HEAD~1');
      const afterReset = await mineRepository(r.dir, { since: amended });
      assert.ok(afterReset.ok && afterReset.value.kind === 'rewritten');
      const unknown = await mineRepository(r.dir, { since: 'f'.repeat(40) });
      assert.ok(unknown.ok && unknown.value.kind === 'rewritten');
      // Mined again from scratch, the history is the new one.
      assert.deepEqual(subjects((await mined(r.dir)).commits), ['c1']);
    });
  });

  describe('co-change and symbols', () => {
    it('renames are followed: a file keeps its history under its new path; a new file at the old path starts fresh', async () => {
      const r = Repo.init(tmp, 'cochange');
      r.commit('1', { 'a.ts': lines(30), 'b.ts': lines(30, 'b'), 'README.md': 'r1\n' });
      r.commit('2', { 'a.ts': lines(30).replace('l1\n', 'x\n'), 'b.ts': lines(30, 'b').replace('b1\n', 'x\n') });
      r.commit('3', { 'a.ts': lines(30).replace('l2\n', 'x\n'), 'README.md': 'r3\n' });
      r.git('mv', 'a.ts', 'c.ts');
      r.commit('4 rename', { 'c.ts': lines(30).replace('l2\n', 'x\n').replace('l30\n', 'y\n') });
      r.commit('5', { 'c.ts': lines(30).replace('l4\n', 'z\n'), 'b.ts': lines(30, 'b').replace('b5\n', 'x\n') });
      r.commit('6 new a', { 'a.ts': 'fresh\n', 'README.md': 'r6\n' });
      const m = await mined(r.dir);
      const cc = buildCoChange(m.commits);
      const c = cc.files.get('c.ts')!;
      assert.equal(c.churn, 5);
      assert.deepEqual(c.former_paths, ['a.ts']);
      assert.deepEqual(c.commits.map(i => cc.commits[i]!.subject), ['5', '4 rename', '3', '2', '1']);
      assert.equal(cc.files.get('a.ts')!.churn, 1); // the new a.ts only
      const partners = cc.partners('c.ts');
      assert.deepEqual(partners.map(p => [p.path, p.together_count]), [['b.ts', 3], ['README.md', 2]]);
      assert.equal(partners[0]!.coupling, coupling(3, 5, 3));
      assert.ok(Math.abs(partners[0]!.coupling - 3 / Math.sqrt(15)) < 1e-12);
      // Markdown takes part like code. Ranked by coupling: the new a.ts 1/sqrt(3·1), c.ts 2/sqrt(3·5), b.ts 1/sqrt(3·3).
      assert.deepEqual(cc.partners('README.md').map(p => [p.path, p.together_count]), [['a.ts', 1], ['c.ts', 2], ['b.ts', 1]]);
      assert.deepEqual(buildCoChange(m.commits, { include: p => p.endsWith('.ts') }).partners('c.ts').map(p => p.path), ['b.ts']);
    });

    it('symbol commits: hunks carried back through line shifts and a rename agree with git log -L', async () => {
      const r = Repo.init(tmp, 'symbols');
      const src = (f: string[], g: string[], pad = 0) => [...Array(pad).fill('// pad'), 'function f() {', ...f, '}', '', 'function g() {', ...g, '}', ''].join('\n');
      r.commit('create', { 'm.js': src(['  return 1;'], ['  return 2;']) });
      r.commit('edit g', { 'm.js': src(['  return 1;'], ['  return 22;']) });
      r.commit('pad above', { 'm.js': src(['  return 1;'], ['  return 22;'], 3) });
      r.git('mv', 'm.js', 'n.js');
      r.commit('rename, edit f', { 'n.js': src(['  const x = 1;', '  return x;'], ['  return 22;'], 3) });
      r.commit('edit g again', { 'n.js': src(['  const x = 1;', '  return x;'], ['  return 222;'], 3) });
      const m = await mined(r.dir);
      // At HEAD: f is lines 4..7, g is lines 9..11.
      const out = symbolCommits(m.commits, new Map([['n.js', [{ id: 'f', start_line: 4, end_line: 7 }, { id: 'g', start_line: 9, end_line: 11 }]]]));
      const names = (id: string) => out.get(id)!.map(i => m.commits[i]!.subject);
      assert.deepEqual(names('f'), ['rename, edit f', 'create']);
      assert.deepEqual(names('g'), ['edit g again', 'edit g', 'create']);
      // A sweeping commit that shifts every file by a header line: the ranges move through it, and it is not listed.
      r.commit('sweep: add headers', Object.fromEntries([['n.js', '// header\n' + src(['  const x = 1;', '  return x;'], ['  return 222;'], 3)], ...Array.from({ length: 55 }, (_, i) => [`gen/f${i}.js`, `${i}\n`])]));
      const m2 = await mined(r.dir);
      assert.equal(m2.commits[0]!.sweeping, true);
      const out2 = symbolCommits(m2.commits, new Map([['n.js', [{ id: 'f', start_line: 5, end_line: 8 }, { id: 'g', start_line: 1, end_line: 1 }]]]));
      assert.deepEqual(out2.get('f')!.map(i => m2.commits[i]!.subject), ['rename, edit f', 'create']);
      assert.deepEqual(out2.get('g'), []); // the header line exists only since the sweeping commit
      r.git('reset', '-q', '--hard', 'HEAD~1');
      // The oracle: git's own line-history walk, slow but exact on this linear history.
      for (const [id, range] of [['f', '4,7'], ['g', '9,11']] as const) {
        const oracle = r.git('log', '--format=%s', '-s', '-L', `${range}:n.js`).split('\n').filter(Boolean);
        assert.deepEqual(names(id), oracle, id);
      }
    });
  });
});
