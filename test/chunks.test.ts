/**
 * Chunk bounds: top-level chunks never reach across a definition that has its own chunk, every chunk's
 * token estimate is the size of the text its line range covers (what get_chunk returns), and top-level
 * chunks are capped like definition chunks.
 */
import { strict as assert } from 'node:assert';
import { extractSource, LIMITS, type Chunk } from '../src/core/parse/extract';
import { Engine } from '../src/core/engine';
import { readSavedIndex } from './helpers/saved-index';
import { tempWorkspace } from './helpers/workspace';

/** A generated test-style file: top-level data, helper functions, describe/it blocks between them. */
function testStyleFile(blocks: number): string {
  const out: string[] = ["import { strict as assert } from 'node:assert'", "import { parse, format } from '../src/codec'", ''];
  for (let i = 0; i < blocks; i++) {
    out.push(
      `const CASES_${i} = [`,
      `  { input: 'alpha-${i}', expected: ${i} },`,
      `  { input: 'beta-${i}', expected: ${i + 1} },`,
      `  { input: 'gamma-${i}', expected: ${i + 2} },`,
      ']',
      '',
      `function helper${i}(value: string): number {`,
      `  const n = value.length + ${i}`,
      '  return n * 2',
      '}',
      '',
      `describe('codec block ${i}', () => {`,
      `  for (const c of CASES_${i}) {`,
      '    it(`parses ${c.input}`, () => {',
      '      assert.equal(parse(c.input), c.expected)',
      '    })',
      '  }',
      `  it('formats block ${i}', () => {`,
      `    assert.equal(format(helper${i}('x')), '${i}')`,
      '  })',
      `  it('round-trips block ${i}', () => {`,
      `    const v = parse(format(${i}))`,
      `    assert.equal(v, ${i})`,
      '  })',
      '})',
      '',
      `export class Fixture${i} {`,
      `  value = ${i}`,
      '}',
      '',
    );
  }
  return out.join('\n') + '\n';
}

const rangeText = (lines: string[], c: { start_line: number; end_line: number }) => lines.slice(c.start_line - 1, c.end_line).join('\n');

function assertBounds(source: string, chunks: readonly (Pick<Chunk, 'key' | 'kind' | 'start_line' | 'end_line'> & { est_tokens: number })[]) {
  const lines = source.split('\n');
  const defs = chunks.filter(c => c.kind !== 'top_level');
  const tops = chunks.filter(c => c.kind === 'top_level');
  assert.ok(defs.length > 0 && tops.length > 0);
  for (const t of tops) {
    const hit = defs.find(d => d.start_line <= t.end_line && d.end_line >= t.start_line);
    assert.ok(!hit, `${t.key} (${t.start_line}-${t.end_line}) spans ${hit?.key} (${hit?.start_line}-${hit?.end_line})`);
    assert.ok(t.end_line - t.start_line + 1 <= LIMITS.maxTopLevelChunkLines, `${t.key} has ${t.end_line - t.start_line + 1} lines`);
  }
  for (const c of chunks) {
    const real = rangeText(lines, c).length / 4;
    assert.ok(Math.abs(c.est_tokens - real) <= 0.25 * real + 1, `${c.key} (${c.start_line}-${c.end_line}): estimated ${c.est_tokens} tokens, its text is ${Math.round(real)}`);
  }
}

describe('chunk bounds', () => {
  it('a 3,000-line test-style file: no top-level chunk spans a definition chunk, every estimate matches its text', async () => {
    const source = testStyleFile(100);
    assert.ok(source.split('\n').length >= 3000);
    const ex = await extractSource('typescript', source);
    assertBounds(source, ex.chunks);
    // every non-blank line is still in some chunk
    const covered = new Set<number>();
    for (const c of ex.chunks) for (let l = c.start_line; l <= c.end_line; l++) covered.add(l);
    source.split('\n').forEach((l, i) => { if (l.trim()) assert.ok(covered.has(i + 1), `line ${i + 1} is in no chunk`); });
  });

  it('stores those estimates, and get_chunk returns text of that size', async () => {
    const source = testStyleFile(100);
    const ws = tempWorkspace({ 'test/codec.test.ts': source });
    const e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    try {
      await e.index();
      const rows = await readSavedIndex(ws.db, db => db.exec('SELECT key, kind, start_line, end_line, est_tokens FROM chunks ORDER BY start_line')[0]!.values
        .map(([key, kind, start_line, end_line, est_tokens]) => ({ key: String(key), kind: String(kind) as Chunk['kind'], start_line: Number(start_line), end_line: Number(end_line), est_tokens: Number(est_tokens) })));
      assertBounds(source, rows);
      const repoId = e.roots[0]!.repo_id;
      for (const r of rows.filter(x => x.kind === 'top_level').slice(0, 20)) {
        const got = await e.getChunk(`chunk:${repoId}:test/codec.test.ts:${r.key}`);
        assert.ok(Math.abs(r.est_tokens - got.text.length / 4) <= 0.25 * got.text.length / 4 + 1, `${r.key}: ${r.est_tokens} vs ${got.text.length} chars`);
      }
    } finally { e.close(); ws.remove(); }
  });

  it('caps top-level chunks in characters as well as lines, like definition chunks', async () => {
    const long = (i: number) => `export const ROW_${i} = '${'x'.repeat(480)}'`;
    const source = [
      ...Array.from({ length: 60 }, (_, i) => long(i)), // 60 lines of ~500 characters: too big for one chunk
      'export function between() {', '  return 1', '}',
      `const ONE_LINE = '${'y'.repeat(20000)}'`, // one line longer than the cap stays whole
      'export function last() {', `  return '${'z'.repeat(500)}'.repeat(${LIMITS.maxChunkLines})`, '}',
    ].join('\n') + '\n';
    const ex = await extractSource('typescript', source);
    const tops = ex.chunks.filter(c => c.kind === 'top_level');
    for (const t of tops) {
      if (t.start_line !== t.end_line) assert.ok(t.text.length <= LIMITS.maxChunkChars, `${t.key}: ${t.text.length} characters`);
    }
    assert.ok(tops.filter(t => t.end_line <= 60).length >= 4, 'the 60 long lines are split into parts');
    assert.deepEqual(tops.filter(t => t.start_line > 60).map(t => [t.start_line, t.end_line]), [[64, 64]]);
    assertBounds(source, ex.chunks);
  });

  it('a class chunk estimates the whole class it covers, methods included (stored estimate)', async () => {
    const body = Array.from({ length: 30 }, (_, i) => `  method${i}(a: number): number {\n    return a + ${i}\n  }`).join('\n');
    const source = `export class Big {\n  field = 1\n${body}\n}\nexport default Big\n`;
    const ws = tempWorkspace({ 'src/big.ts': source });
    const e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    try {
      await e.index();
      const rows = await readSavedIndex(ws.db, db => db.exec('SELECT key, kind, start_line, end_line, est_tokens FROM chunks ORDER BY start_line')[0]!.values
        .map(([key, kind, start_line, end_line, est_tokens]) => ({ key: String(key), kind: String(kind) as Chunk['kind'], start_line: Number(start_line), end_line: Number(end_line), est_tokens: Number(est_tokens) })));
      const cls = rows.find(c => c.key === 'Big')!;
      assert.deepEqual([cls.start_line, cls.end_line], [1, 93]);
      assertBounds(source, rows);
    } finally { e.close(); ws.remove(); }
  });
});
