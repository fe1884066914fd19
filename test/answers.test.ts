/**
 * Answers an agent can trust: what find_references, related_tests, impact and impact_analysis return
 * for the questions agents really ask, and how symbols the agent names are found.
 */
import { strict as assert } from 'node:assert';
import { Engine } from '../src/core/engine';
import { TOOLS } from '../src/core/tools/registry';
import { invokeTool } from '../src/core/tools/contract';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';
import { testsOf } from '../src/core/graph/tests';
import { parseId } from '../src/core/util/ids';
import { sp } from './helpers/nodes';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A small HTTP-client-shaped Python package: the public API reaches the transport through several self calls. */
const PY: Record<string, string> = {
  'pkg/__init__.py': 'from .client import Client\n',
  'pkg/base.py': [
    'class BaseClient:',
    '    def send(self, request):',
    '        return self._transport(request)',
    '',
    '    def _transport(self, request):',
    '        return request',
    '',
    '',
    'class CloseMixin:',
    '    def close(self):',
    '        return None',
    '',
  ].join('\n'),
  'pkg/client.py': [
    'from .base import BaseClient, CloseMixin',
    '',
    '',
    'class Client(BaseClient, CloseMixin):',
    '    def request(self, method, url):',
    '        return self.send((method, url))',
    '',
    '    def get(self, url):',
    '        return self.request("GET", url)',
    '',
    '    def post(self, url):',
    '        return self.request("POST", url)',
    '',
  ].join('\n'),
  'pkg/util.py': [
    'from .base import BaseClient',
    '',
    '',
    'def format_request(method, url):',
    '    return f"{method} {url}"',
    '',
    '',
    'def log_one(method, url):',
    '    print(format_request(method, url))',
    '    print(format_request(method, url))',
    '    print(format_request(method, url))',
    '',
    '',
    'def log_two(method, url):',
    '    format_request(method, url)',
    '    format_request(method, url)',
    '    format_request(method, url)',
    '',
    '',
    'def log_three(method, url):',
    '    format_request(method, url)',
    '    format_request(method, url)',
    '    format_request(method, url)',
    '',
    '',
    'def describe():',
    '    return BaseClient',
    '',
  ].join('\n'),
  'pkg/typing_stubs.py': [
    'from typing import overload',
    '',
    '',
    '@overload',
    'def parse(value: int) -> int: ...',
    '',
    '',
    '@overload',
    'def parse(value: str) -> str: ...',
    '',
    '',
    'def parse(value):',
    '    return value',
    '',
    '',
    'def use_parse():',
    '    return parse(1)',
    '',
  ].join('\n'),
  'tests/test_client.py': [
    'from pkg.client import Client',
    'from pkg.util import format_request',
    '',
    '',
    'def make_and_get(url):',
    '    return Client().get(url)',
    '',
    '',
    'def test_get():',
    '    assert Client().get("/a")',
    '',
    '',
    'def test_via_helper():',
    '    assert make_and_get("/b")',
    '',
    '',
    'def test_format():',
    '    assert format_request("GET", "/") == "GET /"',
    '',
  ].join('\n'),
};

async function open(files: Record<string, string>): Promise<{ ws: TempWorkspace; e: Engine; call: (tool: keyof typeof TOOLS, args: Json) => Promise<Json>; fail: (tool: keyof typeof TOOLS, args: Json) => Promise<Json> }> {
  const ws = tempWorkspace(files);
  const e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
  await e.index();
  const call = async (tool: keyof typeof TOOLS, args: Json) => {
    const out = await invokeTool(TOOLS[tool] as never, args, { engine: e });
    if (!out.ok) throw new Error(`${tool}: ${JSON.stringify(out.error)}`);
    return { ...out.data, markdown: out.markdown } as Json;
  };
  const fail = async (tool: keyof typeof TOOLS, args: Json) => {
    const out = await invokeTool(TOOLS[tool] as never, args, { engine: e });
    assert.equal(out.ok, false, `${tool} should fail`);
    return out as Json;
  };
  return { ws, e, call, fail };
}

describe('answers: find_references, related_tests, impact, symbol lookup', () => {
  let s: Awaited<ReturnType<typeof open>>;
  before(async () => { s = await open(PY); });
  after(() => { s.e.close(); s.ws.remove(); });

  describe('find_references returns every use', () => {
    it('a function used only by calls is found with the default kinds, one row per using function', async () => {
      const r = await s.call('find_references', { symbol: 'format_request' });
      const from = r.references.map((x: Json) => sp(x.from) ?? x.from.path).sort();
      assert.deepEqual(from, ['log_one', 'log_three', 'log_two', 'test_format', 'tests/test_client.py'], 'nine call sites in three functions, one test and one import: one row each');
      assert.equal(r.total, 5);
      assert.equal(r.counts.calls, 4);
      assert.equal(r.counts.imports, 1);
      assert.equal(r.in_tests, 2);
      assert.ok(!r.references.some((x: Json) => x.kinds.includes('contains_test_for')), 'a test call is not listed twice (calls + contains_test_for)');
      assert.equal(new Set(r.references.map((x: Json) => x.from.id)).size, r.references.length);
      assert.equal(r.references.at(-1).in_test, true, 'production uses come first');
      assert.doesNotMatch(r.markdown, /No uses found/);
    });

    it('narrowed kinds say how many uses of the other kinds exist', async () => {
      const r = await s.call('find_references', { symbol: 'BaseClient', kinds: ['extends'] });
      assert.deepEqual(r.references.map((x: Json) => sp(x.from)), ['Client']);
      assert.ok((r.other_kinds.references ?? 0) + (r.other_kinds.imports ?? 0) >= 1, JSON.stringify(r.other_kinds));
      assert.match(r.markdown, /not shown \(kinds\)/);
      const all = await s.call('find_references', { symbol: 'BaseClient' });
      assert.ok(all.total > r.total, 'the default returns every kind');
      assert.deepEqual(r.other_kinds && Object.keys(all.other_kinds), [], 'nothing is left out by default');
    });

    it('the Markdown line of a use: path:line, user, kind, resolution, confidence, then the evidence', async () => {
      const r = await s.call('find_references', { symbol: 'format_request' });
      const lines = r.markdown.split('\n').filter((l: string) => l.startsWith('- '));
      assert.equal(lines.length, 5);
      assert.match(lines[0], /^- pkg\/util\.py:\d+ `log_\w+` · calls · best_effort 0\.\d+ heuristic — heuristic: log_\w+ calls format_request at pkg\/util\.py:\d+/);
      assert.match(r.references[0].evidence, /calls format_request/, 'the long sentence stays in the JSON');
    });
  });

  describe('related_tests: tests that exercise a symbol through the public API', () => {
    it('reaches through more than three calls, lists helpers as via, never as tests', async () => {
      const r = await s.call('related_tests', { symbol: 'BaseClient._transport' });
      const names = r.tests.map((t: Json) => sp(t.node));
      assert.ok(names.includes('test_get'), `test_get → Client.get → request → send → _transport (4 hops): ${names}`);
      assert.ok(names.includes('test_via_helper'), names.join(','));
      assert.ok(!names.includes('make_and_get'), 'a helper in a test file is not a test');
      const viaHelper = r.tests.find((t: Json) => sp(t.node) === 'test_via_helper');
      assert.equal(viaHelper.via[0], 'make_and_get', 'the helper is named as via');
      assert.ok(viaHelper.distance > 4);
      const getTest = r.tests.find((t: Json) => sp(t.node) === 'test_get');
      assert.ok(getTest.distance < viaHelper.distance, 'nearest first');
      assert.ok(r.tests.indexOf(getTest) < r.tests.indexOf(viaHelper));
    });

    it('says depth_limit and complete=false when the search is cut', async () => {
      const g = await s.e.graph();
      const target = g.resolveOne('BaseClient._transport').target!;
      const cut = testsOf(g, [target], { maxDepth: 2 });
      assert.ok(cut.boundaries.some(b => b.kind === 'depth_limit'));
      assert.equal(cut.tests.length, 0);
      const full = testsOf(g, [target]);
      assert.ok(!full.boundaries.some(b => b.kind === 'depth_limit'), 'the whole graph was searched');
    });

    it('impact, impact_analysis and related_tests give the same tests for a symbol', async () => {
      const rt = await s.call('related_tests', { symbol: 'BaseClient._transport' });
      const im = await s.call('impact', { symbol: 'BaseClient._transport' });
      const ia = await s.call('impact_analysis', { changed_symbols: [rt.resolved[0].id] });
      const ids = (list: Json[]) => list.map(t => t.node.id).sort();
      assert.deepEqual(ids(im.related_tests), ids(rt.tests));
      assert.deepEqual(ids(ia.recommended_tests), ids(rt.tests));
      assert.equal(im.total_related_tests, rt.total);
    });
  });

  describe('impact shows the signal first', () => {
    it('direct dependents first; limit never cuts a direct one while an indirect one is shown', async () => {
      const r = await s.call('impact', { symbol: 'BaseClient.send', limit: 50 });
      const d = r.affected.filter((a: Json) => !a.via_container).map((a: Json) => a.distance);
      assert.deepEqual(d, [...d].sort((a: number, b: number) => a - b), 'ordered by distance');
      assert.ok(d.includes(2), 'there are indirect dependents');
      assert.ok(r.total_direct >= 1);
      const small = await s.call('impact', { symbol: 'BaseClient.send', limit: r.total_direct });
      assert.ok(small.affected.every((a: Json) => a.distance === 1 && !a.via_container), JSON.stringify(small.affected.map((a: Json) => [sp(a.node), a.distance])));
      assert.equal(small.truncated, true);
    });

    it('via-container dependents are summarised by module, after every real dependent', async () => {
      const r = await s.call('impact', { symbol: 'BaseClient._transport' });
      const firstContainer = r.affected.findIndex((a: Json) => a.via_container);
      if (firstContainer >= 0) assert.ok(r.affected.slice(firstContainer).every((a: Json) => a.via_container), 'containers last');
      assert.ok(r.total_via_container > 0, 'util.describe and the subclass depend on the class only');
      assert.equal(Object.values(r.via_container_by_module as Record<string, number>).reduce((a, b) => a + b, 0), r.total_via_container);
      const listed = r.markdown.split('\n').filter((l: string) => l.startsWith('- '));
      const firstMarked = listed.findIndex((l: string) => l.endsWith('(through a container)'));
      assert.ok(firstMarked > 0 && listed.slice(firstMarked).every((l: string) => l.endsWith('(through a container)')), 'container-only dependents are listed last, marked');
      assert.ok(listed.some((l: string) => /describe.*\(through a container\)$/.test(l)), listed.join('\n'));
      assert.match(r.markdown, /through its containers only/);
    });

    it('impact, impact_analysis and find_references agree on the direct dependents', async () => {
      const fr = await s.call('find_references', { symbol: 'format_request' });
      const im = await s.call('impact', { symbol: 'format_request' });
      const ia = await s.call('impact_analysis', { changed_symbols: ['format_request'] });
      const production = fr.references.filter((x: Json) => !x.in_test).length;
      assert.equal(im.total_direct + im.total_direct_name_only, production);
      assert.equal(ia.total_affected_symbols, im.total_affected - im.total_via_container);
      assert.notEqual(ia.risk_level, 'unknown');
    });
  });

  describe('symbols an agent names are found', () => {
    it('a method named through a subclass resolves to the inherited definition', async () => {
      const r = await s.call('find_references', { symbol: 'Client.send' });
      assert.equal(sp(r.resolved[0]), 'BaseClient.send');
      assert.match(r.matched_by, /inherited/);
      const mixin = await s.call('impact', { symbol: 'Client.close' });
      assert.equal(sp(mixin.resolved[0]), 'CloseMixin.close', 'through a mixin base');
    });

    it('module-qualified names and other languages\' separators resolve', async () => {
      assert.equal((await s.call('impact', { symbol: 'pkg.base.BaseClient.send' })).resolved[0].path, 'pkg/base.py');
      assert.equal(sp((await s.call('related_tests', { symbol: 'pkg.util.format_request' })).resolved[0]), 'format_request');
      assert.equal(sp((await s.call('find_references', { symbol: 'Client::request' })).resolved[0]), 'Client.request');
      assert.equal((await s.call('find_references', { symbol: 'pkg.client.Client' })).resolved[0].kind, 'class');
      const reexported = await s.call('find_references', { symbol: 'pkg.Client.request' });
      assert.equal(sp(reexported.resolved[0]), 'Client.request', 'through the package that re-exports it');
      const viaUtil = await s.call('impact', { symbol: 'pkg.util.BaseClient' });
      assert.equal(viaUtil.resolved[0].path, 'pkg/base.py', 'a module that imports the name resolves to its definition');
      const inFile = await s.call('find_references', { symbol: 'pkg/base.py:BaseClient.send' });
      assert.equal(sp(inFile.resolved[0]), 'BaseClient.send', 'a file path and a name: an id without its prefix');
    });

    it('a plain name shared by several definitions returns the candidates in every graph tool', async () => {
      const files = { ...PY, 'pkg/other.py': 'def request(x):\n    return x\n' };
      const t = await open(files);
      try {
        for (const tool of ['find_references', 'impact', 'related_tests'] as const) {
          const r = await t.call(tool, { symbol: 'request' });
          assert.equal(r.resolved.length, 0, tool);
          assert.deepEqual(r.ambiguous.map((n: Json) => sp(n)).sort(), ['Client.request', 'request'], tool);
          assert.equal(r.complete, false);
          assert.equal(r.boundaries[0].kind, 'ambiguous_target');
        }
        const ia = await t.call('impact_analysis', { changed_symbols: ['request'] });
        assert.equal(ia.ambiguous[0].candidates.length, 2);
        assert.equal(ia.complete, false);
      } finally { t.e.close(); t.ws.remove(); }
    });

    it('overload stubs resolve to the implementation, and calls bound to a stub count', async () => {
      const r = await s.call('find_references', { symbol: 'parse' });
      assert.equal(r.resolved.length, 1, JSON.stringify(r.ambiguous?.map((n: Json) => sp(n))));
      assert.equal(r.resolved[0].line, 12, 'the implementation (the last declaration)');
      assert.deepEqual(r.references.map((x: Json) => sp(x.from)), ['use_parse']);
      assert.match(r.matched_by, /overload set of 3/);
    });

    it('TypeScript overload signatures resolve to the implementation', async () => {
      const t = await open({
        'src/fmt.ts': 'export function fmt(a: string): string;\nexport function fmt(a: number): string;\nexport function fmt(a: unknown): string {\n  return String(a);\n}\n',
        'src/use.ts': "import { fmt } from './fmt';\nexport function show() { return fmt(1); }\n",
      });
      try {
        const r = await t.call('impact', { symbol: 'fmt' });
        assert.equal(r.resolved[0].line, 3);
        assert.deepEqual(r.affected.map((a: Json) => sp(a.node) ?? a.node.path).sort(), ['show', 'src/use.ts'], 'the caller, and the file that imports it');
      } finally { t.e.close(); t.ws.remove(); }
    });

    it('not_found says what was tried and suggests near names', async () => {
      const out = await s.fail('impact', { symbol: 'BaseClient.sendd' });
      assert.equal(out.error.code, 'not_found');
      assert.ok(out.error.details.tried.length >= 3, JSON.stringify(out.error.details));
      assert.ok(out.error.details.suggestions.includes('BaseClient.send'), JSON.stringify(out.error.details.suggestions));
      assert.match(out.error.message, /Did you mean: .*BaseClient\.send/);
      const typo = await s.fail('find_references', { symbol: 'format_reqest' });
      assert.ok(typo.error.details.suggestions.includes('format_request'));
    });

    it('internal suffixes are spelled out in the Markdown', async () => {
      const g = await s.e.graph();
      const stub = g.lookup('symbol:' + parseId((await s.call('find_references', { symbol: 'parse' })).resolved[0].id)!.repo_id + ':pkg/typing_stubs.py:parse~3');
      assert.equal(stub.length, 1);
      const r = await s.call('related_tests', { symbol: 'parse' });
      assert.match(r.markdown, /parse \(declaration 3 of an overload set\)/);
      assert.doesNotMatch(r.markdown, /parse~3/);
    });
  });
});

describe('answers: every answer fits its budget', () => {
  it('impact on a symbol with hundreds of callers: Markdown and structured JSON within budget, paging consistent', async () => {
    const files: Record<string, string> = { 'lib/core.py': 'def hub(x):\n    return x\n' };
    for (let i = 0; i < 60; i++) {
      files[`app/mod_${i}.py`] = 'from lib.core import hub\n\n\n' + Array.from({ length: 10 }, (_, j) => `def caller_${i}_${j}(v):\n    return hub(v)\n\n\n`).join('');
    }
    const t = await open(files);
    try {
      const out = await invokeTool(TOOLS.impact as never, { symbol: 'hub', limit: 500 }, { engine: t.e });
      assert.ok(out.ok);
      const data = out.data as Json;
      assert.equal(data.total_direct, 600 + 60, 'six hundred callers and the sixty files that import it');
      const json = JSON.stringify(data).length;
      assert.ok(json <= 48_000, `structured answer ${json} characters`);
      assert.ok(out.markdown.length <= 24_000, `markdown ${out.markdown.length}`);
      assert.equal(data.truncated, true);
      assert.ok(data.affected.length < 500 && data.affected.length > 20, String(data.affected.length));
      assert.equal(data.next_offset, data.affected.length);
      const next = await invokeTool(TOOLS.impact as never, { symbol: 'hub', limit: 500, offset: data.next_offset }, { engine: t.e });
      const first = (next as Json).data.affected[0].node.id;
      assert.ok(!data.affected.some((a: Json) => a.node.id === first), 'the next page starts after the last item shown');
      const ia = await t.call('impact_analysis', { changed_symbols: ['hub'] });
      assert.equal(ia.truncated, true, 'impact_analysis says its lists are cut');
      assert.match(ia.markdown, /Lists show \d+ of 660 affected symbols/);
    } finally { t.e.close(); t.ws.remove(); }
  });
});

describe('answers: get_chunk on a long chunk', () => {
  it('returns at most token_budget of whole lines, numbered in the Markdown, and says how to read on', async () => {
    // One function of 140 lines (generated data): with token_budget 500 it takes several answers.
    const body = Array.from({ length: 140 }, (_, i) => `    value_${i} = compute(${i}, "${'x'.repeat(30)}")`).join('\n');
    const t = await open({ 'big.py': `def huge():\n${body}\n    return 1\n`, 'min.js': `var minified_values = [${Array.from({ length: 20000 }, (_, i) => i).join(',')}];\n` });
    try {
      const hits = await t.call('search_code', { query: 'huge', limit: 1, group: 'chunk' });
      const id = hits.results[0].chunk_id;
      const r = await t.call('get_chunk', { chunk_id: id, token_budget: 500 });
      assert.equal(r.truncated, true);
      assert.ok(r.text.length <= 500 * 4, `text ${r.text.length} characters`);
      assert.ok(r.estimated_tokens <= 500);
      assert.ok(r.chunk_estimated_tokens > r.estimated_tokens);
      assert.equal(r.next_start_line, r.text_range.end_line + 1);
      assert.ok(r.markdown.length <= 500 * 4 + 600, `markdown ${r.markdown.length}`);
      assert.match(r.markdown, /call again with start_line=\d+ to read on/);
      assert.match(r.markdown, new RegExp(`\\n\\s*${r.text_range.start_line}  def huge`), 'line numbers in the Markdown');
      // Reading on covers the chunk exactly once, in order.
      let seen = r.text.split('\n').length; let next = r.next_start_line; let pages = 1;
      while (next !== null && pages < 20) {
        const more = await t.call('get_chunk', { chunk_id: id, start_line: next, token_budget: 500 });
        assert.equal(more.text_range.start_line, next);
        seen += more.text.split('\n').length; next = more.next_start_line; pages++;
      }
      assert.equal(next, null);
      assert.equal(seen, r.end_line - r.start_line + 1);
      const bad = await t.fail('get_chunk', { chunk_id: id, start_line: 999999 });
      assert.equal(bad.error.code, 'invalid_arguments');
      // A minified line longer than the whole default budget is cut, not returned whole.
      const minHit = (await t.call('search_code', { query: 'minified_values', limit: 5, group: 'chunk' })).results.find((h: Json) => h.path === 'min.js');
      const min = await t.call('get_chunk', { chunk_id: minHit.chunk_id });
      assert.ok(min.text.length <= 8000 * 4, `${min.text.length} ${min.text.split('\n').length} lines ${min.text.slice(-80)}`);
      assert.match(min.text, /line cut at \d+ characters/);
      assert.ok(min.markdown.length <= 24_000 + 600, String(min.markdown.length));
    } finally { t.e.close(); t.ws.remove(); }
  });
});

describe('answers: what impact follows, and chunks that go on', () => {
  it('a chain of imports is listed once, not followed: importers of the importer are no dependents', async () => {
    const t = await open({
      'pkg/core.py': 'def target(x):\n    return x\n',
      'pkg/api.py': 'from pkg.core import target\n\n\ndef wrapped(x):\n    return target(x)\n',
      'pkg/__init__.py': 'from pkg import api\n',
      'app/one.py': 'import pkg\n\n\ndef run():\n    return 1\n',
      'app/two.py': 'import pkg.api\n',
    });
    try {
      const r = await t.call('impact', { symbol: 'target' });
      const names = r.affected.map((a: Json) => sp(a.node) ?? a.node.path).sort();
      assert.ok(names.includes('wrapped') && names.includes('pkg/api.py'), names.join(','));
      assert.ok(!names.includes('app/one.py') && !names.includes('pkg/__init__.py') && !names.includes('app/two.py'), `import chains are not dependents: ${names.join(',')}`);
    } finally { t.e.close(); t.ws.remove(); }
  });

  it('get_chunk names the next part of a split definition, and takes a symbol id', async () => {
    const body = Array.from({ length: 400 }, (_, i) => `    step_${i} = ${i}`).join('\n');
    const t = await open({ 'long.py': `def long_one():\n${body}\n    return 0\n` });
    try {
      const g = await t.e.graph();
      const sym = g.resolveOne('long_one').target!;
      const id = `symbol:${sym.repo_id}:long.py:long_one`;
      const r = await t.call('get_chunk', { chunk_id: id });
      assert.equal(r.symbol_path, 'long_one');
      assert.equal(r.truncated, false);
      assert.match(r.next_chunk_id, /long_one#2$/);
      assert.match(r.markdown, /The definition goes on in/);
      const second = await t.call('get_chunk', { chunk_id: r.next_chunk_id });
      assert.equal(second.start_line, r.end_line + 1);
    } finally { t.e.close(); t.ws.remove(); }
  });
});

describe('answers: Go types', () => {
  it('uses of a struct from other files of its package are references (same folder = same package)', async () => {
    const t = await open({
      'go.mod': 'module example.com/x\n',
      'command.go': 'package cli\n\ntype Command struct {\n\tName string\n}\n\nfunc (cmd *Command) Run() error {\n\treturn nil\n}\n',
      'app.go': 'package cli\n\nfunc NewApp() *Command {\n\treturn &Command{Name: "x"}\n}\n\nfunc use(c *Command) {\n\tc.Run()\n}\n',
    });
    try {
      const r = await t.call('find_references', { symbol: 'Command' });
      assert.deepEqual(r.references.map((x: Json) => sp(x.from)).sort(), ['NewApp', 'use']);
      assert.equal(r.counts.references, 2);
      const im = await t.call('impact', { symbol: 'Command' });
      assert.ok(im.total_direct >= 2, String(im.total_direct));
    } finally { t.e.close(); t.ws.remove(); }
  });
});
