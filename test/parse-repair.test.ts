/**
 * Grammar-gap repairs (src/core/parse/repair.ts) and the report of declarations lost in error regions.
 * The fixtures under test/fixtures/parse/ were written for these tests.
 */
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { extractSource, type Extraction } from '../src/core/parse/extract';
import { syntaxErrorMessage } from '../src/core/index/process';
import { LANGUAGES, languageForPath, type LanguageId } from '../src/core/languages';

const FIXTURES = join(__dirname, 'fixtures');
const read = (rel: string) => readFileSync(join(FIXTURES, rel), 'utf8');

/** Runs `fn` with every language's repairs switched off (what the extractor did before them). */
async function withoutRepairs<T>(fn: () => Promise<T>): Promise<T> {
  const saved = new Map<string, unknown>();
  for (const [id, spec] of Object.entries(LANGUAGES)) { saved.set(id, (spec as { repairs?: unknown }).repairs); (spec as { repairs?: unknown }).repairs = []; }
  try { return await fn(); } finally { for (const [id, spec] of Object.entries(LANGUAGES)) (spec as { repairs?: unknown }).repairs = saved.get(id); }
}

const defs = (ex: Extraction) => ex.definitions.map(d => [d.kind, d.symbol_path, d.start_line, d.end_line] as const);

/** Every definition starts where its text says so, and every call/identifier sits on its own name in the original text. */
function assertPositionsExact(source: string, ex: Extraction) {
  const lines = source.split('\n');
  for (const d of ex.definitions) {
    const at = lines[d.start_line - 1]!.slice(d.start_col);
    assert.ok(at.includes(d.name), `${d.symbol_path} at ${d.start_line}:${d.start_col} does not start its declaration: ${JSON.stringify(at)}`);
    assert.ok(d.end_line >= d.start_line && d.end_col <= lines[d.end_line - 1]!.length, `${d.symbol_path}: end ${d.end_line}:${d.end_col} outside its line`);
  }
  for (const o of ex.occurrences) {
    if (o.kind !== 'call' && o.kind !== 'identifier') continue;
    assert.ok(lines[o.line - 1]!.startsWith(o.name, o.col), `${o.kind} ${o.name} at ${o.line}:${o.col}: ${JSON.stringify(lines[o.line - 1])}`);
    assert.ok(!o.name.includes(';') && !(o.receiver ?? '').includes(';'), `${o.name}: text read from the repaired copy`);
  }
}

describe('parse repairs: generic call signatures without semicolons (TypeScript)', () => {
  it('a generic call signature whose type parameters span lines (with a trailing comma) loses nothing after it', async () => {
    const source = [
      'export interface Handler<E> {',
      '  (path: string): Handler<E>',
      '  <',
      '    P extends string = string,',
      '    R = any,',
      '  >(path: P, r: R): Handler<E>',
      '  <P extends string>(path: P): Handler<E>',
      '}',
      '',
      'export type Schema = { [k: string]: number }',
      '',
      'export function useSchema(s: Schema): number { return 1; }',
      '',
    ].join('\n');
    const ex = await extractSource('typescript', source);
    assert.equal(ex.syntax_errors, 0);
    assert.equal(ex.repaired, true);
    assert.deepEqual(ex.lost_declarations, []);
    assert.deepEqual(defs(ex), [['interface', 'Handler', 1, 8], ['type', 'Schema', 10, 10], ['function', 'useSchema', 12, 12]]);
    assertPositionsExact(source, ex);
  });

  it('extracts every declaration of interfaces and type literals made of generic call signatures, with their lines', async () => {
    const source = read('parse/call-signatures.ts');
    const ex = await extractSource('typescript', source);
    assert.equal(ex.syntax_errors, 0, 'the repaired tree has no error left');
    assert.equal(ex.repaired, true);
    assert.deepEqual(defs(ex), [
      ['type', 'Next', 5, 5],
      ['interface', 'Handler', 7, 15], // multi-line call signature, blank line, one-line call signature
      ['interface', 'Mount', 17, 29], // JSDoc and line comments between the members, a property in between
      ['interface', 'Factory', 31, 37], // generic construct signatures and generic method overloads
      ['method', 'Factory.make', 35, 35],
      ['method', 'Factory.make~2', 36, 36],
      ['type', 'Pair', 39, 43], // an overload list in a type literal
      ['type', 'Mixed', 45, 48], // a type literal in an intersection
      ['module', 'Routes', 50, 57], // inside a namespace
      ['interface', 'Routes.Table', 51, 55],
      ['method', 'Routes.lookup', 56, 56],
      ['class', 'Box', 59, 64],
      ['method', 'Box.constructor', 60, 60],
      ['method', 'Box.map', 61, 63],
      ['function', 'box', 66, 68],
      ['constant', 'VERSION', 70, 70],
      ['enum', 'Mode', 72, 72],
      ['interface', 'Last', 74, 76],
    ]);
    assertPositionsExact(source, ex);
    assert.deepEqual(ex.lost_declarations, []);
  });

  it('gives the same definitions, columns included, as the same file written with semicolons', async () => {
    const source = read('parse/call-signatures.ts');
    // The members that end before a line starting with `<` get an explicit `;` at the end of their line
    // (after any trailing comment there is none in the fixture): rows and start columns do not move.
    const lines = source.split('\n');
    const withSemicolons = lines.map((l, i) => {
      const next = lines.slice(i + 1).find(n => n.trim() && !/^\s*(\/\/|\/\*\*|\*)/.test(n));
      return next?.trimStart().startsWith('<') && /[\w)\]>}]$/.test(l) && !/^\s*(\/\/|\/\*\*)/.test(l) ? `${l};` : l;
    }).join('\n');
    const clean = await extractSource('typescript', withSemicolons);
    assert.equal(clean.syntax_errors, 0, 'the semicolon version parses cleanly');
    const ex = await extractSource('typescript', source);
    assert.deepEqual(ex.definitions, clean.definitions);
  });

  it('repairs TSX too and leaves JSX children alone', async () => {
    const source = read('parse/call-signatures.tsx');
    const ex = await extractSource('tsx', source);
    assert.equal(ex.syntax_errors, 0);
    assert.deepEqual(defs(ex), [
      ['interface', 'Render', 3, 6],
      ['function', 'List', 8, 16],
      ['interface', 'Slots', 18, 22],
      ['function', 'Card', 24, 29],
    ]);
    assertPositionsExact(source, ex);
  });

  it('keeps a CRLF file exact (the repair may use the \\r of the line before)', async () => {
    const lf = 'export interface Route {\n<P>(p: P): Route\n<P, Q>(p: P, q: Q): Route\n}\nexport function after() { return 1 }\n';
    const ex = await extractSource('typescript', lf.replace(/\n/g, '\r\n'));
    assert.equal(ex.syntax_errors, 0);
    assert.deepEqual(defs(ex), [['interface', 'Route', 1, 4], ['function', 'after', 5, 5]]);
    assert.deepEqual(ex.definitions.map(d => d.start_col), [7, 7]);
  });

  it('leaves files that parse cleanly exactly as before, and keeps the first tree when a repair does not help', async () => {
    const samples: [LanguageId, string][] = [];
    for (const dir of readdirSync(join(FIXTURES, 'languages'))) {
      const name = readdirSync(join(FIXTURES, 'languages', dir)).find(f => f.startsWith('sample.'))!;
      samples.push([languageForPath(name)!, read(`languages/${dir}/${name}`)]);
    }
    // Clean TypeScript full of lines that start with `<`: casts, generic arrows, a continued comparison.
    samples.push(['typescript', 'const a = 1, b = 2\nconst x =\n  <number>a\nconst f = [\n  <T>(v: T) => v,\n]\nconst lt = a\n  < b\ninterface I {\n  <T>(v: T): T;\n  <U>(v: U): U;\n}\n']);
    // Errors the repair cannot fix: the result is the unrepaired one.
    samples.push(['typescript', 'export function ok() { return 1 }\nclass {{{ nope(\nconst y = ok()\n  <number>ok\nexport function alsoOk() { return 2 }\n']);
    for (const [language, source] of samples) {
      const ex = await extractSource(language, source);
      const before = await withoutRepairs(() => extractSource(language, source));
      assert.equal(ex.repaired, false, `${language}: no repair expected`);
      assert.deepEqual(ex, before, `${language}: extraction changed`);
    }
  });
});

describe('parse diagnostics: declarations lost in error regions', () => {
  it('names the declarations that the error recovery swallowed, with their lines', async () => {
    const broken = 'export function ok() { return 1 }\nclass {{{ nope(\nexport function alsoOk() { return 2 }\n'
      + '// interface NotReal in a comment\nconst s = "class AlsoNotReal {"\nexport interface Shape { x: number }\n';
    const ex = await extractSource('typescript', broken);
    assert.ok(ex.syntax_errors > 0);
    assert.deepEqual(ex.lost_declarations, [{ name: 'alsoOk', line: 3 }, { name: 'Shape', line: 6 }]);
    assert.equal(syntaxErrorMessage(ex), `${ex.syntax_errors} syntax error node(s); 2 declaration(s) inside the error regions were not indexed: alsoOk (line 3), Shape (line 6)`);

    const py = await extractSource('python', 'def a(:\n    pass\n\nclass B:\n    def m(self):\n        return 1\n\ndef c():\n    return (\n');
    assert.deepEqual(py.lost_declarations, [{ name: 'c', line: 8 }]);
  });

  it('reports what the call-signature pattern cost before the repair, and nothing after it', async () => {
    const source = read('parse/call-signatures.ts');
    const before = await withoutRepairs(() => extractSource('typescript', source));
    assert.deepEqual(before.lost_declarations.map(d => d.name), ['Factory', 'Pair']);
    assert.match(syntaxErrorMessage(before), /2 declaration\(s\) inside the error regions were not indexed: Factory \(line 31\), Pair \(line 39\)$/);
    const after = await extractSource('typescript', source);
    assert.deepEqual(after.lost_declarations, []);
  });

  it('lists at most five names', () => {
    const lost = Array.from({ length: 7 }, (_, i) => ({ name: `D${i}`, line: i + 1 }));
    assert.equal(syntaxErrorMessage({ syntax_errors: 3, lost_declarations: lost }),
      '3 syntax error node(s); 7 declaration(s) inside the error regions were not indexed: D0 (line 1), D1 (line 2), D2 (line 3), D3 (line 4), D4 (line 5), … 2 more');
    assert.equal(syntaxErrorMessage({ syntax_errors: 1, lost_declarations: [] }), '1 syntax error node(s); indexed what could be recovered');
  });
});

describe('parse repairs: a primary constructor on the line after the class name (Kotlin)', () => {
  const source = [
    'class Reader {',
    '  public class Options',
    '  private constructor(',
    '    internal val strings: Array<out String>,',
    '  ) {',
    '    public fun strings(): List<String> = strings.toList()',
    '  }',
    '',
    '  public class Plain<T : Any>',
    '  @Inject internal constructor(val value: T) {',
    '    fun get(): T = value',
    '  }',
    '',
    '  fun read(): Int = 1',
    '}',
    '',
  ].join('\n');
  const defs = (ex: Extraction) => ex.definitions.map(d => `${d.kind} ${d.symbol_path} ${d.start_line}-${d.end_line}`);

  it('keeps every declaration of the class, at its own lines', async () => {
    const broken = await withoutRepairs(() => extractSource('kotlin', source));
    assert.ok(broken.syntax_errors > 0 && defs(broken).includes('method Reader.strings 6-6'), 'the grammar alone loses the class bodies: its methods land in the outer class');
    const ex = await extractSource('kotlin', source);
    assert.equal(ex.syntax_errors, 0);
    assert.deepEqual(defs(ex), [
      'class Reader 1-15', 'class Reader.Options 2-7', 'method Reader.Options.strings 6-6',
      'class Reader.Plain 9-12', 'method Reader.Plain.get 11-11', 'method Reader.read 14-14',
    ]);
  });

  it('keeps a CRLF file exact', async () => {
    const ex = await extractSource('kotlin', source.replace(/\n/g, '\r\n'));
    assert.equal(ex.syntax_errors, 0);
    assert.ok(defs(ex).includes('method Reader.read 14-14'), defs(ex).join('\n'));
  });
});
