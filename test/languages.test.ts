/**
 * Data-driven language tests: every `test/fixtures/languages/<id>/` holds a `sample.<ext>` and an
 * `expected.json` listing what the extractor must find in it (definitions as [kind, symbol_path],
 * calls, imports, extends, implements). Adding a language = adding a fixture directory.
 */
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { extractSource } from '../src/core/parse/extract';
import { isLanguageId, LANGUAGE_IDS, LANGUAGES, isTestPath, testedBaseNames, sameFamily, type LanguageId } from '../src/core/languages';

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

// One example of each language's test naming: [test file, the source file it is named after]; null: none.
const TEST_NAMING = {
  typescript: ['src/util.test.ts', 'util.ts'], tsx: ['src/View.spec.tsx', 'View.tsx'], javascript: ['lib/a.test.mjs', 'a.mjs'],
  python: ['pkg/test_store.py', 'store.py'], java: ['src/WorkerTest.java', 'Worker.java'], rust: null, go: ['pkg/store_test.go', 'store.go'],
  c: null, cpp: null, csharp: ['App/RepoTests.cs', 'Repo.cs'], ruby: ['lib/store_spec.rb', 'store.rb'], php: ['src/StoreTest.php', 'Store.php'],
  kotlin: ['src/WorkerTest.kt', 'Worker.kt'], scala: ['src/WorkerSpec.scala', 'Worker.scala'], bash: null,
  lua: ['spec/worker_spec.lua', 'worker.lua'], swift: ['Tests/WorkerTests.swift', 'Worker.swift'], dart: ['test/worker_test.dart', 'worker.dart'],
  elixir: ['test/worker_test.exs', 'worker.ex'], zig: null, vue: null, svelte: null,
} as const satisfies Record<LanguageId, readonly [string, string] | null>;

describe('the language table is complete: adding a language touches one place', () => {
  it('every language has its graph rules and family in the table', () => {
    for (const id of LANGUAGE_IDS) {
      const spec = LANGUAGES[id] as (typeof LANGUAGES)[LanguageId];
      assert.equal(typeof spec.family, 'string', `${id}: family`);
      assert.ok(spec.graph, `${id}: graph rules`);
      assert.ok(Array.isArray(spec.graph.selfReceivers), `${id}: selfReceivers`);
      assert.equal(typeof spec.graph.constructed, 'function', `${id}: constructed`);
      assert.ok(!('separator' in spec) && !('containerKinds' in spec), `${id}: no unused fields`);
    }
    assert.ok(sameFamily('typescript', 'javascript') && sameFamily('c', 'cpp') && !sameFamily('python', 'ruby'));
  });

  it('test naming comes from the table: each language\'s example is a test of its source file', () => {
    for (const id of LANGUAGE_IDS) {
      const example = TEST_NAMING[id];
      const naming = (LANGUAGES[id] as { tests?: unknown }).tests;
      if (!example) { assert.equal(naming, undefined, `${id}: test naming without an example`); continue; }
      assert.ok(naming, `${id}: no test naming`);
      assert.ok(isTestPath(example[0]), `${id}: ${example[0]} is a test file`);
      assert.ok(testedBaseNames(example[0]).includes(example[1]), `${id}: ${example[0]} tests ${example[1]}`);
      assert.ok(!isTestPath(`src/${example[1]}`), `${id}: ${example[1]} is no test file`);
    }
    assert.ok(isTestPath('tests/helpers.rs') && isTestPath('a/__tests__/x.js') && !isTestPath('src/contest.py'));
  });
});

describe('grammar builds that misbehave', () => {
  it('Swift: a conditional compilation block parses cleanly once the tags query is compiled', async () => {
    // a newer build of the same grammar read every file after a query was compiled as broken here
    const ex = await extractSource('swift', 'import Foundation\n\n#if DEBUG\nlet verbose = true\n#endif\n\nfunc run() -> Int { 1 }\n');
    assert.equal(ex.syntax_errors, 0);
    assert.deepEqual(ex.definitions.map(d => d.symbol_path), ['run']);
  });
});
