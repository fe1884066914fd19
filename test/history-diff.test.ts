/** The diff input parser (src/core/history/diff.ts): pure, tolerant, every case the seed lists. */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDiff, type DiffFile } from '../src/core/history/diff';

const lines = (...l: string[]) => l.join('\n') + '\n';
const only = (d: string): DiffFile => {
  const r = parseDiff(d);
  assert.equal(r.files.length, 1, JSON.stringify(r));
  return r.files[0]!;
};
const spans = (rs: { start_line: number; end_line: number; anchor?: true }[]) => rs.map(r => `${r.start_line}-${r.end_line}${r.anchor ? 'a' : ''}`);

describe('history: diff parser', () => {
  it('an edit: new and old ranges are the changed lines, not the context', () => {
    const f = only(lines(
      'diff --git a/src/app.py b/src/app.py', 'index 83db48f..bf269f4 100644', '--- a/src/app.py', '+++ b/src/app.py',
      '@@ -10,7 +10,8 @@ def run():', '     a = 1', '     b = 2', '     c = 3', '-    d = 4', '+    d = 5', '+    e = 6', '     f = 7', '     g = 8', '     h = 9'));
    assert.deepEqual({ path: f.path, old_path: f.old_path, status: f.status }, { path: 'src/app.py', old_path: 'src/app.py', status: 'modified' });
    assert.deepEqual(spans(f.new_ranges), ['13-14']);
    assert.deepEqual(spans(f.old_ranges), ['13-13']);
  });

  it('several hunks and several files; ranges sorted and joined when they touch', () => {
    const r = parseDiff(lines(
      'diff --git a/a.ts b/a.ts', '--- a/a.ts', '+++ b/a.ts', '@@ -1,0 +2,2 @@', '+x', '+y', '@@ -5 +7,2 @@', '-p', '+q', '+r',
      'diff --git a/b.ts b/b.ts', '--- a/b.ts', '+++ b/b.ts', '@@ -3 +3 @@', '-k', '+K'));
    assert.deepEqual(r.files.map(f => f.path), ['a.ts', 'b.ts']);
    assert.deepEqual(spans(r.files[0]!.new_ranges), ['2-3', '7-8']);
    assert.deepEqual(spans(r.files[0]!.old_ranges), ['1-1a', '5-5']);
    assert.deepEqual(spans(r.files[1]!.new_ranges), ['3-3']);
    assert.deepEqual(r.diagnostics, []);
  });

  it('an addition and a deletion', () => {
    const r = parseDiff(lines(
      'diff --git a/new.py b/new.py', 'new file mode 100644', 'index 0000000..e69de29', '--- /dev/null', '+++ b/new.py', '@@ -0,0 +1,3 @@', '+a', '+b', '+c',
      'diff --git a/gone.py b/gone.py', 'deleted file mode 100644', 'index e69de29..0000000', '--- a/gone.py', '+++ /dev/null', '@@ -1,2 +0,0 @@', '-a', '-b'));
    const [add, del] = r.files;
    assert.deepEqual(add, { path: 'new.py', old_path: null, status: 'added', new_ranges: [{ start_line: 1, end_line: 3 }], old_ranges: [] });
    assert.deepEqual(del, { path: 'gone.py', old_path: 'gone.py', status: 'deleted', new_ranges: [], old_ranges: [{ start_line: 1, end_line: 2 }] });
  });

  it('an empty file added (no hunk at all) is still an addition', () => {
    const f = only(lines('diff --git a/empty.txt b/empty.txt', 'new file mode 100644', 'index 0000000..e69de29'));
    assert.deepEqual({ path: f.path, status: f.status, old_path: f.old_path }, { path: 'empty.txt', status: 'added', old_path: null });
  });

  it('a rename reports the new path and knows the old one, with or without edits', () => {
    const r = parseDiff(lines(
      'diff --git a/lib/old.ts b/lib/new.ts', 'similarity index 100%', 'rename from lib/old.ts', 'rename to lib/new.ts',
      'diff --git a/x/a.py b/y/b.py', 'similarity index 80%', 'rename from x/a.py', 'rename to y/b.py', 'index 1..2 100644', '--- a/x/a.py', '+++ b/y/b.py', '@@ -2 +2 @@', '-old', '+new'));
    assert.deepEqual(r.files.map(f => [f.path, f.old_path, f.status]), [['lib/new.ts', 'lib/old.ts', 'renamed'], ['y/b.py', 'x/a.py', 'renamed']]);
    assert.deepEqual(spans(r.files[1]!.new_ranges), ['2-2']);
  });

  it('quoted paths: spaces, unicode, C escapes and octal UTF-8', () => {
    const r = parseDiff(lines(
      'diff --git a/dir with space/f g.py b/dir with space/f g.py', '--- a/dir with space/f g.py\t', '+++ b/dir with space/f g.py\t', '@@ -1 +1 @@', '-a', '+b',
      'diff --git "a/a\\tb.py" "b/a\\tb.py"', '--- "a/a\\tb.py"', '+++ "b/a\\tb.py"', '@@ -1 +1 @@', '-a', '+b',
      'diff --git "a/caf\\303\\251.md" "b/caf\\303\\251.md"', '--- "a/caf\\303\\251.md"', '+++ "b/caf\\303\\251.md"', '@@ -1 +1 @@', '-a', '+b',
      'diff --git a/naïve/日本.ts b/naïve/日本.ts', '--- a/naïve/日本.ts', '+++ b/naïve/日本.ts', '@@ -1 +1 @@', '-a', '+b',
      'diff --git "a/q\\"uote\\\\back.txt" "b/q\\"uote\\\\back.txt"', 'new file mode 100644', '--- /dev/null', '+++ "b/q\\"uote\\\\back.txt"', '@@ -0,0 +1 @@', '+z'));
    assert.deepEqual(r.files.map(f => f.path), ['dir with space/f g.py', 'a\tb.py', 'café.md', 'naïve/日本.ts', 'q"uote\\back.txt']);
    assert.deepEqual(r.diagnostics, []);
  });

  it('a copy is an addition that knows its source', () => {
    const f = only(lines('diff --git a/src/x.ts b/src/y.ts', 'similarity index 95%', 'copy from src/x.ts', 'copy to src/y.ts', 'index 1..2 100644', '--- a/src/x.ts', '+++ b/src/y.ts', '@@ -3 +3 @@', '-a', '+b'));
    assert.deepEqual([f.path, f.old_path, f.status, spans(f.new_ranges)], ['src/y.ts', 'src/x.ts', 'added', ['3-3']]);
  });

  it('a rename between two names with spaces, unquoted', () => {
    const f = only(lines('diff --git a/my file.txt b/your file.txt', 'similarity index 100%', 'rename from my file.txt', 'rename to your file.txt'));
    assert.deepEqual([f.path, f.old_path, f.status], ['your file.txt', 'my file.txt', 'renamed']);
  });

  it('CRLF input reads like LF input', () => {
    const lf = lines('diff --git a/w.cs b/w.cs', '--- a/w.cs', '+++ b/w.cs', '@@ -4,2 +4,3 @@', ' a', '-b', '+c', '+d');
    const crlf = lf.replace(/\n/g, '\r\n');
    assert.deepEqual(parseDiff(crlf), parseDiff(lf));
    assert.deepEqual(spans(parseDiff(crlf).files[0]!.new_ranges), ['5-6']);
  });

  it('zero-length new hunks (+12,0): a pure deletion anchors on the line before it', () => {
    const f = only(lines('diff --git a/m.go b/m.go', '--- a/m.go', '+++ b/m.go', '@@ -13,2 +12,0 @@', '-x', '-y', '@@ -1 +0,0 @@', '-top'));
    assert.deepEqual(spans(f.new_ranges), ['1-1a', '12-12a']);
    assert.deepEqual(spans(f.old_ranges), ['1-1', '13-14']);
    assert.equal(f.status, 'modified');
  });

  it('binary patches: "Binary files … differ" and "GIT binary patch"', () => {
    const r = parseDiff(lines(
      'diff --git a/logo.png b/logo.png', 'index 1a2b..3c4d 100644', 'Binary files a/logo.png and b/logo.png differ',
      'diff --git a/data.bin b/data.bin', 'new file mode 100644', 'index 0000000..7e8f9a0', 'GIT binary patch', 'literal 12', 'TcmZQzWMXDuWn^V!WdZ;I00;m9', '', 'literal 0', 'HcmV?d00001', '',
      'diff --git a/after.txt b/after.txt', '--- a/after.txt', '+++ b/after.txt', '@@ -1 +1 @@', '-a', '+b'));
    assert.deepEqual(r.files.map(f => [f.path, f.status, f.binary_change]), [['logo.png', 'binary', 'modified'], ['data.bin', 'binary', 'added'], ['after.txt', 'modified', undefined]]);
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(spans(r.files[2]!.new_ranges), ['1-1']);
  });

  it('a renamed binary keeps its old path', () => {
    const f = only(lines('diff --git a/a.png b/b.png', 'similarity index 90%', 'rename from a.png', 'rename to b.png', 'index 1..2 100644', 'Binary files a/a.png and b/b.png differ'));
    assert.deepEqual([f.path, f.old_path, f.status, f.binary_change], ['b.png', 'a.png', 'binary', 'renamed']);
  });

  it('malformed hunks are skipped with a diagnostic; the good ones around them stay', () => {
    const r = parseDiff(lines(
      'diff --git a/m.ts b/m.ts', '--- a/m.ts', '+++ b/m.ts',
      '@@ -1,3 +1,3 @@', ' a', '-b', // too short: the next hunk header comes first
      '@@ -10 +10 @@', '-p', '+q',
      '@@ -20 +20 @@', '-p', '+q', '+extra', // longer than its header
      '@@ nonsense @@', '+zz',
      'diff --git a/n.ts b/n.ts', '--- a/n.ts', '+++ b/n.ts', '@@ -5 +5 @@', '-u', '+v'));
    assert.deepEqual(r.files.map(f => f.path), ['m.ts', 'n.ts']);
    assert.deepEqual(spans(r.files[0]!.new_ranges), ['10-10']);
    assert.deepEqual(spans(r.files[1]!.new_ranges), ['5-5']);
    assert.equal(r.diagnostics.filter(d => /malformed hunk/.test(d.message)).length, 3, JSON.stringify(r.diagnostics));
    assert.ok(r.diagnostics.every(d => d.path === 'm.ts' && d.line > 0));
  });

  it('never throws: garbage, empty input, a hunk without a file, non-strings', () => {
    assert.deepEqual(parseDiff(''), { files: [], diagnostics: [] });
    assert.deepEqual(parseDiff('hello\nworld\n').files, []);
    const r = parseDiff('@@ -1 +1 @@\n-a\n+b\n');
    assert.equal(r.files.length, 0);
    assert.equal(r.diagnostics.length, 1);
    assert.deepEqual(parseDiff(undefined as unknown as string), { files: [], diagnostics: [] });
  });

  it('plain unified diffs (no git header) and format-patch mails', () => {
    const r = parseDiff(lines(
      'From 1234 Mon Sep 17 00:00:00 2001', 'Subject: [PATCH] fix', '', '---', ' a.c | 2 +-', '',
      '--- a/a.c\t2024-01-01 00:00:00', '+++ b/a.c\t2024-01-02 00:00:00', '@@ -2 +2 @@', '-x', '+y',
      '--- old.txt', '+++ new.txt', '@@ -1,2 +1,2 @@', ' same', '-a', '+b', '-- ', '2.39.5'));
    assert.deepEqual(r.files.map(f => [f.path, f.old_path, spans(f.new_ranges).join()]), [['a.c', 'a.c', '2-2'], ['new.txt', 'old.txt', '2-2']]);
    assert.deepEqual(r.diagnostics, []);
  });

  it('"\\ No newline at end of file" and a removed line that looks like a header', () => {
    const f = only(lines('diff --git a/t.txt b/t.txt', '--- a/t.txt', '+++ b/t.txt', '@@ -1,2 +1,2 @@', '--- not a header', '-last', '\\ No newline at end of file', '+++ not a header either', '+last', '\\ No newline at end of file'));
    assert.deepEqual(spans(f.new_ranges), ['1-2']);
    assert.deepEqual(spans(f.old_ranges), ['1-2']);
  });

  it('mode-only changes and combined (merge) diffs', () => {
    const r = parseDiff(lines(
      'diff --git a/run.sh b/run.sh', 'old mode 100644', 'new mode 100755',
      'diff --cc m.py', 'index 1,2..3', '--- a/m.py', '+++ b/m.py', '@@@ -1,2 -1,2 +1,3 @@@', '  a', '+ b', ' +c'));
    assert.deepEqual(r.files.map(f => [f.path, f.status, spans(f.new_ranges).join()]), [['run.sh', 'modified', ''], ['m.py', 'modified', '1-3']]);
  });

  it('reads real `git diff` output: rename with edit, unicode, CRLF file, binary, deletion, mode', function () {
    const dir = mkdtempSync(join(tmpdir(), 'sl-diff-'));
    try {
      const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
      const g = (...a: string[]) => execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...a], { cwd: dir, env }).toString();
      g('init', '-q', '.');
      mkdirSync(join(dir, 'sp ace'));
      writeFileSync(join(dir, 'sp ace/été.py'), 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n');
      writeFileSync(join(dir, 'win.txt'), 'one\r\ntwo\r\nthree\r\n');
      writeFileSync(join(dir, 'bin.dat'), Buffer.from([0, 1, 2, 3]));
      writeFileSync(join(dir, 'del.txt'), 'bye\n');
      writeFileSync(join(dir, 'tab\there.txt'), 'x\n');
      g('add', '-A'); g('commit', '-qm', 'base');
      g('mv', 'sp ace/été.py', 'sp ace/renamed é.py');
      writeFileSync(join(dir, 'sp ace/renamed é.py'), 'a\nb\nc\nd\nE\nf\ng\nh\ni\nj\n');
      writeFileSync(join(dir, 'win.txt'), 'one\r\n2\r\nthree\r\n');
      writeFileSync(join(dir, 'bin.dat'), Buffer.from([0, 9, 9, 3]));
      writeFileSync(join(dir, 'tab\there.txt'), 'y\n');
      rmSync(join(dir, 'del.txt'));
      g('add', '-A');
      for (const quotepath of ['on', 'off']) {
        const r = parseDiff(g('-c', `core.quotepath=${quotepath}`, 'diff', '--cached', '-M'));
        const byPath = Object.fromEntries(r.files.map(f => [f.path, f]));
        assert.deepEqual(Object.keys(byPath).sort(), ['bin.dat', 'del.txt', 'sp ace/renamed é.py', 'tab\there.txt', 'win.txt'], quotepath);
        assert.deepEqual([byPath['sp ace/renamed é.py']!.status, byPath['sp ace/renamed é.py']!.old_path, spans(byPath['sp ace/renamed é.py']!.new_ranges)], ['renamed', 'sp ace/été.py', ['5-5']]);
        assert.equal(byPath['bin.dat']!.status, 'binary');
        assert.equal(byPath['del.txt']!.status, 'deleted');
        assert.deepEqual(spans(byPath['win.txt']!.new_ranges), ['2-2']);
        assert.deepEqual(r.diagnostics, []);
      }
      const bin = parseDiff(g('diff', '--cached', '--binary', '--', 'bin.dat'));
      assert.deepEqual(bin.files.map(f => f.status), ['binary']);
      assert.deepEqual(bin.diagnostics, []);
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });
});
