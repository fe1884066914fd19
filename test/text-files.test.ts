/**
 * Text files of no language (docs, configuration, data, scripts, markup, styles): each format's chunks,
 * what is never indexed and why, and how search ranks them beside code, through the engine and search_code.
 */
import { strict as assert } from 'node:assert';
import { Engine } from '../src/core/engine';
import { extractText, sqlStatements } from '../src/core/parse/text';
import { fileLanguageFor } from '../src/core/languages';
import { TEXT_FORMAT_IDS, fileKindOf, textFormatForPath } from '../src/core/languages/text';
import { notHumanText } from '../src/core/index/process';
import { asksForText } from '../src/core/search/query';
import { invokeTool } from '../src/core/tools/contract';
import { TOOLS } from '../src/core/tools/registry';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

const chunksOf = async (path: string, text: string) => {
  const format = textFormatForPath(path);
  return (await extractText(format, path, text)).chunks.map(c => ({ key: c.key, kind: c.kind, lines: [c.start_line, c.end_line], names: c.names }));
};

const RUNBOOK = `# Payments

Handles card payments.

## Operations

### Rotating keys

Run \`bin/rotate-keys\` every 90 days.

\`\`\`sh
# a comment in a fence, not a heading
\`\`\`

## Retries

Failed payments are retried with backoff.
`;

describe('text files', () => {
  it('names every path: a language, a text format, or why it is not indexed', () => {
    assert.equal(fileLanguageFor('src/a.kt', null, true), 'kotlin');
    assert.equal(fileLanguageFor('src/a.kt', new Set(['python']), true), 'language_off');
    assert.equal(fileLanguageFor('README.md', null, true), 'markdown');
    assert.equal(fileLanguageFor('README.md', null, false), 'text_off');
    assert.equal(fileLanguageFor('docs/logo.png', null, true), 'binary_type');
    assert.equal(fileLanguageFor('package-lock.json', null, true), 'lock_file');
    assert.equal(fileLanguageFor('web/app.min.css', null, true), 'lock_file');
    const formats: [string, string, string][] = [
      ['Dockerfile', 'dockerfile', 'script'], ['deploy/Dockerfile.prod', 'dockerfile', 'script'], ['.env.example', 'ini', 'config'],
      ['infra/main.tf', 'hcl', 'config'], ['db/001_init.sql', 'sql', 'script'], ['tsconfig.json', 'json', 'config'],
      ['data/cities.json', 'json', 'data'], ['LICENSE', 'text', 'doc'], ['notes.weird', 'text', 'data'], ['web/site.scss', 'css', 'style'],
      ['pyproject.toml', 'toml', 'config'], ['Makefile', 'make', 'script'], ['web/index.html', 'html', 'markup'],
    ];
    for (const [path, format, kind] of formats) {
      assert.equal(textFormatForPath(path), format, path);
      assert.equal(fileKindOf(format, path), kind, path);
    }
    assert.equal(fileKindOf('python', 'a.py'), 'code');
    assert.ok(TEXT_FORMAT_IDS.includes('text'));
  });

  it('Markdown: one chunk per heading, named by its headings, fences are not headings', async () => {
    const chunks = await chunksOf('RUNBOOK.md', RUNBOOK);
    assert.deepEqual(chunks.map(c => [c.key, c.lines]), [
      ['Payments', [1, 4]], ['Payments > Operations', [5, 6]], ['Payments > Operations > Rotating keys', [7, 14]], ['Payments > Retries', [15, 17]],
    ]);
    assert.ok(chunks.every(c => c.kind === 'doc'));
  });

  it('YAML, JSON and TOML: top-level keys, their nested key paths as names, one-line keys in the chunk around them', async () => {
    const yaml = 'name: shop\npayments:\n  retry:\n    limit: 5\n    backoff: 2s\n  currency: EUR\nversion: 2\n';
    const y = await chunksOf('config/app.yaml', yaml);
    assert.deepEqual(y.map(c => [c.key, c.lines, c.kind]), [['<top>#1', [1, 1], 'config'], ['payments', [2, 6], 'config'], ['<top>#2', [7, 7], 'config']]);
    assert.match(y[1]?.names ?? '', /payments\.retry\.limit/);
    const json = '{\n  "name": "x",\n  "scripts": {\n    "test": "mocha",\n    "build": "tsc"\n  }\n}\n';
    const j = await chunksOf('package.json', json);
    assert.deepEqual(j.filter(c => !c.key.startsWith('<top>')).map(c => [c.key, c.lines]), [['scripts', [3, 6]]]);
    assert.match(j.find(c => c.key === 'scripts')!.names!, /scripts\.test/);
    const toml = 'title = "x"\n\n[retry]\nlimit = 5\nbackoff = 2\n\n[[servers]]\nname = "a"\n';
    const t = await chunksOf('app.toml', toml);
    assert.deepEqual(t.filter(c => !c.key.startsWith('<top>')).map(c => [c.key, c.lines]), [['retry', [3, 5]], ['servers', [7, 8]]]);
  });

  it('.env and INI files: each key (under its [section]) is a name of the chunk that holds it', async () => {
    const env = await chunksOf('.env.example', '# the port\nexport SENTRY_BIND=9000\nRETRY_LIMIT=5\n');
    assert.equal(env[0]?.names, 'SENTRY_BIND RETRY_LIMIT');
    const ini = await chunksOf('setup.cfg', '[tool:pytest]\naddopts = -q\n\n[flake8]\nmax-line-length: 100\n');
    assert.equal(ini.map(c => c.names).join(' '), 'tool:pytest tool:pytest.addopts flake8 flake8.max-line-length');
  });

  it('a section longer than a chunk is cut at its subsections; a key used twice gets ~2', async () => {
    const big = ['services:', ...Array.from({ length: 3 }, (_, i) => [`  svc${i}:`, ...Array.from({ length: 70 }, (_, k) => `    k${k}: v`)]).flat(), ''].join('\n');
    const c = await chunksOf('compose.yaml', big);
    assert.deepEqual(c.filter(x => !x.key.includes('#')).map(x => x.key), ['services', 'services.svc0', 'services.svc1', 'services.svc2']);
    const twice = await chunksOf('a.md', '# A\n\nx\n\n# A\n\ny\n');
    assert.deepEqual(twice.map(x => x.key), ['A', 'A~2']);
  });

  it('SQL: statements, not semicolons inside strings, comments or dollar-quoted bodies', async () => {
    const sql = "-- init\nCREATE TABLE orders (\n  id int,\n  note text default 'a;b'\n);\nCREATE FUNCTION f() RETURNS int AS $$\nBEGIN\n  RETURN 1;\nEND;\n$$ LANGUAGE plpgsql;\nINSERT INTO orders VALUES (1, 'x');\n";
    assert.deepEqual(sqlStatements(sql).map(s => [s.start, s.end]), [[2, 5], [6, 10], [11, 11]]);
    const c = await chunksOf('db/001.sql', sql);
    assert.deepEqual(c.filter(x => !x.key.startsWith('<top>')).map(x => [x.key, x.kind]), [['create table orders', 'script'], ['create function f', 'script']]);
  });

  it('HCL blocks, CSS rules and HTML elements are sections; other text is cut into bounded windows', async () => {
    const tf = 'resource "aws_s3_bucket" "logs" {\n  bucket = "x"\n}\n\nvariable "region" {\n  default = "eu"\n}\n';
    assert.deepEqual((await chunksOf('main.tf', tf)).map(c => c.key), ['resource.aws_s3_bucket.logs', 'variable.region']);
    const css = '.button {\n  color: red;\n  padding: 0;\n}\n@media (max-width: 600px) {\n  .button { color: blue; }\n  a { x: y; }\n}\n';
    assert.deepEqual((await chunksOf('a.css', css)).map(c => c.key), ['.button', '@media (max-width 600px)']);
    const long = Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n');
    const w = await chunksOf('notes.txt', long);
    assert.ok(w.length >= 3 && w.every(c => c.lines[1]! - c.lines[0]! < 80 && c.kind === 'doc'), JSON.stringify(w.map(c => c.lines)));
  });

  it('generated and minified text is not human text', () => {
    assert.equal(notHumanText('// Code generated by protoc. DO NOT EDIT.\nx')?.code, 'generated');
    assert.equal(notHumanText(`${'a'.repeat(6000)}\n`)?.code, 'minified');
    assert.equal(notHumanText('# Title\n\nplain words\n'), null);
  });

  it('text files change no code file\'s rank against another (code is ranked on the statistics of code alone)', async function () {
    this.timeout(60000);
    const files: Record<string, string> = {
      'src/ledger.py': 'def settle_ledger(entry):\n    # settle the ledger entry\n    return entry\n',
      'src/refund.py': 'def refund(order):\n    # a refund reverses the order\n    return order\n',
      'src/other.py': 'def unrelated():\n    return 1\n',
    };
    // many docs about ledgers make "ledger" common in the index as a whole, not in its code
    for (let i = 0; i < 30; i++) files[`docs/ledger-${i}.md`] = `# Ledger ${i}\n\nThe ledger, the ledger entry, the ledger book.\n`;
    const order = async (textFiles: boolean) => {
      const ws = tempWorkspace(files);
      const engine = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0, settings: { text_files: textFiles } });
      try {
        await engine.index();
        const r = await invokeTool(TOOLS.search_code, { query: 'settle ledger refund order', external: false }, { engine });
        assert.ok(r.ok);
        const data = r.data as { files: { path: string; file_kind: string; score: number }[] };
        return data.files.filter(f => f.file_kind === 'code').map(f => `${f.path} ${f.score}`);
      } finally { engine.close(); ws.remove(); }
    };
    assert.deepEqual(await order(true), await order(false));
  });

  describe('through the engine and search_code', () => {
    let ws: TempWorkspace;
    let e: Engine;
    before(async function () {
      this.timeout(60000);
      ws = tempWorkspace({
        'src/pay.py': 'class PaymentRetrier:\n    def retry_failed_payment(self, payment):\n        return self.charge(payment)\n\n    def charge(self, payment):\n        # a declined card is charged once more\n        return True\n',
        'README.md': RUNBOOK,
        'docs/payments.md': '# Payments\n\n## Retry a failed payment\n\nA failed payment whose card is declined is retried once more: the payment is charged again.\n',
        'config/payments.yaml': 'payments:\n  retry:\n    limit: 5\n    backoff_seconds: 30\n  currency: EUR\n',
        'db/001_init.sql': 'CREATE TABLE payments (\n  id int,\n  amount numeric\n);\n',
        'Dockerfile': 'FROM python:3.12\nRUN pip install .\n',
        'CHANGELOG.md': `# Changelog\n\n${[1, 2, 3].map(v => `## 1.${v}\n\n- a declined card: the card is charged again when declined\n`).join('\n')}`,
        'assets/logo.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]),
        'blob.weird': new Uint8Array([1, 2, 0, 3]),
        'package-lock.json': '{"lockfileVersion": 3}\n',
        'gen/api.yaml': '# @generated by the API tool\nopenapi: 3.0.0\n',
      });
      e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
      await e.index();
    });
    after(() => { e.close(); ws.remove(); });

    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tools' structured answers, read as JSON
    const call = async (tool: keyof typeof TOOLS, args: Record<string, unknown>): Promise<Record<string, any>> => {
      const r = await invokeTool(TOOLS[tool], args, { engine: e });
      assert.ok(r.ok, JSON.stringify(r));
      return r.data;
    };

    it('indexes text files with their kind, and says what it did not index and why', async () => {
      const s = await call('index_status', {});
      const languages = Object.fromEntries((s.languages as { language: string; files: number; file_kind: string }[]).map(l => [l.language, l]));
      assert.deepEqual(Object.keys(languages).sort(), ['dockerfile', 'markdown', 'python', 'sql', 'yaml']);
      assert.equal(languages.markdown?.files, 3);
      assert.equal(languages.markdown?.file_kind, 'doc');
      assert.equal(languages.yaml?.file_kind, 'config');
      const kinds = Object.fromEntries((s.file_kinds as { file_kind: string; files: number }[]).map(k => [k.file_kind, k.files]));
      assert.deepEqual(kinds, { code: 1, config: 1, doc: 3, script: 2 });
      const not = s.roots[0].last_run.not_indexed as Record<string, { files: number; examples: string[] }>;
      assert.deepEqual(Object.keys(not).sort(), ['binary', 'binary_type', 'generated', 'lock_file']);
      assert.deepEqual(not.binary_type!.examples, ['assets/logo.png']);
      assert.deepEqual(not.generated!.examples, ['gen/api.yaml']);
      assert.deepEqual(s.diagnostics, [], 'files not indexed for what they are make no diagnostics');
    });

    it('a code question finds code first; a question about docs or configuration finds the text first', async () => {
      const code = await call('search_code', { query: 'retry failed payment', external: false });
      assert.equal(code.files[0].path, 'src/pay.py');
      const charge = await call('search_code', { query: 'declined card', external: false });
      assert.equal(charge.files[0].path, 'src/pay.py', 'release notes that say it more often do not outrank the code');
      assert.equal(code.files[0].file_kind, 'code');
      const config = await call('search_code', { query: 'where is the retry limit configured?', external: false });
      assert.equal(config.files[0].path, 'config/payments.yaml');
      assert.equal(config.files[0].file_kind, 'config');
      const docs = await call('search_code', { query: 'what does the runbook say about rotating keys', external: false });
      assert.equal(docs.files[0].path, 'README.md');
      assert.equal(docs.files[0].chunks[0].symbol_path, 'Payments > Operations > Rotating keys');
      // a long text about code that mentions the docs once is still about code
      const commit = await call('search_code', { external: false,
        query: 'Retry a failed payment once more when the card is declined, so that the retried payment is charged again; the docs say it is' });
      assert.equal(commit.files[0].path, 'src/pay.py');
    });

    it('asks about text: a short question naming docs or configuration, a docs/ci type, two such words; not one word in a long text, not formats alone', () => {
      const long = (s: string) => `${s} ${'and the code changes that go with it'.repeat(2)}`;
      assert.equal(asksForText('where is the retry limit configured?'), true);
      assert.equal(asksForText('what does the runbook say about rotating keys'), true);
      assert.equal(asksForText(long('docs: explain how retries back off')), true);
      assert.equal(asksForText(long('Update the deployment guide and the CI workflow for tagged releases')), true);
      assert.equal(asksForText(long('Use func (c *Command) consistently; it makes the docs look better')), false);
      assert.equal(asksForText(long('fix(json-schema): keep __proto__ keys as own properties in schema conversion')), false);
      assert.equal(asksForText('retry failed payment'), false);
    });

    it('file_kind keeps one kind; get_chunk reads a text chunk', async () => {
      const only = await call('search_code', { query: 'payments table', file_kind: 'script', external: false });
      assert.deepEqual(only.files.map((f: { path: string }) => f.path), ['db/001_init.sql']);
      const chunk = await call('get_chunk', { chunk_id: only.files[0].chunks[0].chunk_id });
      assert.equal(chunk.kind, 'script');
      assert.match(chunk.text, /CREATE TABLE payments/);
    });

    it('an edited text file is read again without touching the graph', async () => {
      ws.write('README.md', `${RUNBOOK}\n## Refunds\n\nRefunds go back to the card.\n`);
      const r = await e.index();
      assert.equal(r.repos[0]!.files_parsed, 1);
      assert.equal(r.repos[0]!.graph_update, 'none');
      const hit = await call('search_code', { query: 'refunds docs', external: false });
      assert.equal(hit.files[0].chunks[0].symbol_path, 'Payments > Refunds');
    });
  });
});
