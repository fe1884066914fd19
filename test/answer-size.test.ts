/**
 * What an answer costs the model: many MCP clients hand it the structured JSON instead of the Markdown,
 * so the JSON carries the same items as the Markdown, each once, and stays within twice its size on
 * answers with long lists, plus a fixed allowance for field names and totals (ALLOWANCE): this fixture's
 * names and evidence are shorter than a real repository's, whose answers bench:first-contact measures.
 * One exception by contract: pre_change_context keeps the seed's shape, which lists one pack three ways.
 */
import { strict as assert } from 'node:assert';
import { Engine } from '../src/core/engine';
import { TOOLS } from '../src/core/tools/registry';
import { invokeTool, type ToolOutcome } from '../src/core/tools/contract';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';
import { sp } from './helpers/nodes';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CALLERS = 30;
const TESTS = 20;
/** Characters of field names, totals and boundaries an answer carries whatever its length. */
const ALLOWANCE = 1000;

/** A ledger module used by 30 functions over 6 files and by 20 tests: every list answer is long. */
function files(): Record<string, string> {
  const out: Record<string, string> = {
    'shop/ledger.py': [
      'class Ledger:',
      '    def post_entry(self, account, amount):',
      '        """Post one entry to the ledger and return its balance."""',
      '        self.entries.append((account, amount))',
      '        return sum(a for _, a in self.entries)',
      '',
    ].join('\n'),
  };
  for (let f = 0; f < 6; f++) {
    const body = ['from shop.ledger import Ledger', ''];
    for (let i = 0; i < CALLERS / 6; i++) {
      body.push(`def settle_${f}_${i}(account):`, '    ledger = Ledger()', `    return ledger.post_entry(account, ${i})`, '', '');
    }
    out[`shop/settle_${f}.py`] = body.join('\n');
  }
  const tests = ['from shop.ledger import Ledger', ''];
  for (let t = 0; t < TESTS; t++) tests.push(`def test_post_entry_${t}():`, '    ledger = Ledger()', `    assert ledger.post_entry("a", ${t}) == ${t}`, '', '');
  out['tests/test_ledger.py'] = tests.join('\n');
  return out;
}

describe('answer size: the structured JSON next to the Markdown', () => {
  let ws: TempWorkspace;
  let engine: Engine;
  before(async () => {
    ws = tempWorkspace(files());
    engine = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    await engine.index();
  });
  after(() => { engine.close(); ws.remove(); });

  const call = async (tool: string, args: Json): Promise<ToolOutcome & { ok: true }> => {
    const out = await invokeTool(TOOLS[tool as keyof typeof TOOLS], args, { engine });
    assert.ok(out.ok, JSON.stringify(out));
    return out as ToolOutcome & { ok: true };
  };
  const size = (out: { data: unknown; markdown: string }) => ({ json: JSON.stringify(out.data).length, text: out.markdown.length });

  const questions: [string, Json, (d: Json) => number][] = [
    ['find_references', { symbol: 'Ledger.post_entry' }, d => d.references.length],
    ['impact', { symbol: 'Ledger.post_entry' }, d => d.affected.length],
    ['related_tests', { symbol: 'Ledger.post_entry' }, d => d.tests.length],
    ['impact_analysis', { changed_symbols: ['Ledger.post_entry'] }, d => d.affected_symbols.length + d.recommended_tests.length],
    ['search_code', { query: 'settle account ledger post entry', limit: 10 }, d => d.files.length],
    ['overview', { budget: 4000 }, d => d.central_symbols.length],
  ];
  for (const [tool, args, items] of questions) {
    it(`${tool}: JSON within 2× the Markdown (+ ${ALLOWANCE}) on a long answer`, async () => {
      const out = await call(tool, args);
      assert.ok(items(out.data) >= 6, `the answer is long enough to measure: ${items(out.data)} items`);
      const { json, text } = size(out);
      assert.ok(json <= 2 * text + ALLOWANCE, `${tool}: ${json} characters of JSON for ${text} of Markdown (${(json / text).toFixed(1)}×)`);
    });
  }

  it('pre_change_context: the seed fixes its shape (results, context_pack, symbols, edges restate one pack), so within 3.5×', async () => {
    const out = await call('pre_change_context', { query: 'settle account ledger post entry' });
    const d = out.data as Json;
    assert.ok(d.context_pack.length >= 6, `a long pack: ${d.context_pack.length} items`);
    for (const c of d.context_pack) assert.ok(out.markdown.includes(c.chunk_id), `pack item ${c.chunk_id} is listed`);
    const { json, text } = size(out);
    assert.ok(json <= 3.5 * text + ALLOWANCE, `${json} characters of JSON for ${text} of Markdown (${(json / text).toFixed(1)}×)`);
  });

  it('a node is its id, kind, path and line: nothing the id already spells', async () => {
    const r = (await call('impact', { symbol: 'Ledger.post_entry' })).data as Json;
    assert.deepEqual(Object.keys(r.resolved[0]).sort(), ['id', 'kind', 'line', 'path']);
    for (const a of r.affected) assert.deepEqual(Object.keys(a.node).sort(), ['id', 'kind', 'line', 'path']);
    assert.equal(sp(r.resolved[0]), 'Ledger.post_entry');
  });

  it('the Markdown lists what the JSON lists: every dependent with its evidence, every test with its reason', async () => {
    const out = await call('impact', { symbol: 'Ledger.post_entry' });
    const r = out.data as Json;
    for (const a of r.affected) assert.ok(out.markdown.includes(a.via), `the evidence of ${a.node.id} is shown`);
    for (const t of r.related_tests) assert.ok(out.markdown.includes(`${t.node.path}:${t.node.line}`), `test ${t.node.id} is listed`);
    assert.ok(r.related_tests.length <= 10 && r.total_related_tests === TESTS, 'impact lists the nearest tests; related_tests pages through all');
  });

  it('a chunk id is accepted wherever a symbol is', async () => {
    const hit = ((await call('search_code', { query: 'post entry ledger balance', group: 'chunk', limit: 1 })).data as Json).results[0];
    assert.equal(hit.symbol_path, 'Ledger.post_entry');
    const byChunk = (await call('find_references', { symbol: hit.chunk_id })).data as Json;
    assert.equal(sp(byChunk.resolved[0]), 'Ledger.post_entry');
    assert.equal(byChunk.total, CALLERS + TESTS);
  });
});
