/**
 * Data-driven language tests: every `test/fixtures/languages/<id>/` holds a `sample.<ext>` and an
 * `expected.json` listing what the extractor must find in it (definitions as [kind, symbol_path],
 * calls, imports, extends, implements). Adding a language = adding a fixture directory.
 */
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { extractSource } from '../src/core/parse/extract';
import { isLanguageId, LANGUAGE_IDS } from '../src/core/languages';

interface ExpectedImport { source: string; name?: string; alias?: string }
interface Expected {
  definitions: [string, string][];
  calls?: string[];
  imports?: ExpectedImport[];
  extends?: string[];
  implements?: string[];
}

const FIXTURES = join(__dirname, 'fixtures', 'languages');
const dirs = readdirSync(FIXTURES, { withFileTypes: true }).filter(d => d.isDirectory()).map(d => d.name).sort();

/** `Foo~2` (a second definition with the same path, e.g. a Rust struct and its impl) counts as `Foo`. */
const basePath = (p: string) => p.replace(/~\d+/g, '');

describe('languages (fixtures)', () => {
  it('has a fixture for every language', () => {
    assert.deepEqual(dirs.filter(d => (LANGUAGE_IDS as readonly string[]).includes(d)), [...LANGUAGE_IDS].sort());
  });

  for (const dir of dirs) {
    describe(dir, () => {
      const root = join(FIXTURES, dir);
      const sampleName = readdirSync(root).find(f => f.startsWith('sample.'));
      const expectedFile = join(root, 'expected.json');

      it('extracts the expected symbols', async function () {
        this.timeout(20000);
        assert.ok(isLanguageId(dir), `fixture directory ${dir} is not a language id`);
        assert.ok(sampleName, `no sample.* in ${root}`);
        assert.ok(existsSync(expectedFile), `no expected.json in ${root}`);
        const expected = JSON.parse(readFileSync(expectedFile, 'utf8')) as Expected;
        const text = readFileSync(join(root, sampleName), 'utf8');
        const ex = await extractSource(dir, text);

        assert.equal(ex.syntax_errors, 0, `${dir}: the fixture should parse without errors`);

        const defs = ex.definitions.map(d => `${d.kind} ${basePath(d.symbol_path)}`);
        const missingDefs = expected.definitions.map(([k, p]) => `${k} ${p}`).filter(d => !defs.includes(d));
        assert.deepEqual(missingDefs, [], `${dir}: missing definitions; found:\n  ${defs.join('\n  ')}`);

        const ofKind = (kind: string) => ex.occurrences.filter(o => o.kind === kind);
        const calls = new Set(ofKind('call').map(o => o.name));
        assert.deepEqual((expected.calls ?? []).filter(c => !calls.has(c)), [], `${dir}: missing calls; found ${[...calls].join(', ')}`);

        const imports = ofKind('import');
        const missingImports = (expected.imports ?? []).filter(e => !imports.some(o =>
          o.source === e.source
          && (e.name === undefined || o.name === e.name)
          && (e.alias === undefined || o.alias === e.alias)));
        assert.deepEqual(missingImports, [], `${dir}: missing imports; found ${JSON.stringify(imports.map(o => ({ source: o.source, name: o.name, alias: o.alias })))}`);

        for (const kind of ['extends', 'implements'] as const) {
          const found = new Set(ofKind(kind).map(o => o.name));
          assert.deepEqual((expected[kind] ?? []).filter(n => !found.has(n)), [], `${dir}: missing ${kind}; found ${[...found].join(', ')}`);
        }
      });
    });
  }
});
