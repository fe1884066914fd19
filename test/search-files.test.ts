/** search_code on the text agents really send: files ranked, tests apart, any length, stack traces. */
import { strict as assert } from 'node:assert';
import { Engine } from '../src/core/engine';
import { TOOLS } from '../src/core/tools/registry';
import { invokeTool } from '../src/core/tools/contract';
import { analyseQuery, FIRST_DF_CAP, SELECTION_DF_CAP } from '../src/core/search/query';
import { pathHint, isAuxiliaryPath } from '../src/core/search/files';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const FILES: Record<string, string> = {
  'shop/pricing/discounts.py': [
    'class DiscountRule:',
    '    def apply_discount(self, order_total, percent):',
    '        """Apply a percentage discount to an order total."""',
    '        if percent < 0 or percent > 100:',
    '            raise InvalidDiscountError(percent)',
    '        return round(order_total * (1 - percent / 100), 2)',
    '',
    '',
    'class InvalidDiscountError(ValueError):',
    '    pass',
    '',
  ].join('\n'),
  'shop/pricing/tax.py': 'def tax_for(region, amount):\n    return amount * 0.2\n',
  'shop/cart.py': 'from shop.pricing.discounts import DiscountRule\n\n\ndef checkout(cart):\n    total = sum(i.price for i in cart.items)\n    return DiscountRule().apply_discount(total, cart.percent)\n',
  'shop/report.py': 'def monthly_report(rows):\n    """Order totals per month, with discounts and tax."""\n    return [r for r in rows]\n',
  'tests/test_discounts.py': [
    'from shop.pricing.discounts import DiscountRule, InvalidDiscountError',
    '',
    '',
    'def test_apply_discount_rounds():',
    '    assert DiscountRule().apply_discount(10.0, 15) == 8.5',
    '',
    '',
    'def test_apply_discount_rejects_negative_percent():',
    '    try:',
    '        DiscountRule().apply_discount(10.0, -5)',
    '    except InvalidDiscountError:',
    '        pass',
    '',
  ].join('\n'),
  'docs/notes.md': '# Notes\n',
  'examples/discount_demo.py': 'from shop.pricing.discounts import DiscountRule\n\n\ndef demo_apply_discount():\n    """Apply a percentage discount to an order total."""\n    return DiscountRule().apply_discount(10.0, 15)\n',
};

describe('search_code: where to look', () => {
  let ws: TempWorkspace; let e: Engine;
  const call = async (args: Json) => {
    const out = await invokeTool(TOOLS.search_code as never, args, { engine: e });
    if (!out.ok) throw new Error(JSON.stringify(out.error));
    return { ...out.data, markdown: out.markdown } as Json;
  };
  before(async () => {
    ws = tempWorkspace(FILES);
    e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    await e.index();
  });
  after(() => { e.close(); ws.remove(); });

  it('ranks files, each with its best chunks and their first lines; limit counts files', async () => {
    const r = await call({ query: 'apply discount to the order total', limit: 2 });
    assert.equal(r.files.length, 2);
    assert.equal(r.files[0].path, 'shop/pricing/discounts.py', JSON.stringify(r.files.map((f: Json) => f.path)));
    const best = r.files[0].chunks[0];
    assert.equal(best.symbol_path, 'DiscountRule.apply_discount');
    assert.equal(best.snippet, 'def apply_discount(self, order_total, percent):');
    assert.ok(r.files[0].signals.includes('bm25_file') && r.files[0].signals.includes('bm25_chunk'), r.files[0].signals.join(','));
    assert.equal(new Set(r.files.map((f: Json) => f.path)).size, 2, 'distinct files');
    assert.match(r.markdown, /1\. `shop\/pricing\/discounts\.py`/);
    assert.match(r.markdown, /— `def apply_discount\(self, order_total, percent\):`/);
  });

  it('ranks product code above examples, docs and tooling that match as well, unless the query names the file', async () => {
    assert.ok(isAuxiliaryPath('examples/discount_demo.py') && isAuxiliaryPath('docs/conf.py') && isAuxiliaryPath('noxfile.py') && isAuxiliaryPath('.github/scripts/x.js') && isAuxiliaryPath('rollup.config.js'));
    assert.ok(!isAuxiliaryPath('shop/cart.py') && !isAuxiliaryPath('src/docstring.ts') && !isAuxiliaryPath('lib/sitemap.py'));
    const plain = await call({ query: 'apply a percentage discount to an order total', limit: 10 });
    const paths = plain.files.map((f: Json) => f.path);
    assert.ok(paths.indexOf('shop/pricing/discounts.py') < paths.indexOf('examples/discount_demo.py'), paths.join(','));
    const named = await call({ query: 'a bug in examples/discount_demo.py: apply a percentage discount', limit: 3 });
    assert.equal(named.files[0].path, 'examples/discount_demo.py', 'a file the query names is not demoted');
  });

  it('ranks source above tests that match as well, unless the query asks for tests or include_tests is set', async () => {
    const r = await call({ query: 'apply_discount InvalidDiscountError', limit: 5 });
    const paths = r.files.map((f: Json) => f.path);
    assert.ok(paths.indexOf('shop/pricing/discounts.py') < paths.indexOf('tests/test_discounts.py'), paths.join(','));
    assert.equal(r.files.find((f: Json) => f.path === 'tests/test_discounts.py').test, true);
    const t = await call({ query: 'apply_discount InvalidDiscountError', include_tests: true, limit: 5 });
    const tp = t.files.find((f: Json) => f.path === 'tests/test_discounts.py').score;
    const rp = r.files.find((f: Json) => f.path === 'tests/test_discounts.py').score;
    assert.ok(tp > rp, 'include_tests lifts the test file');
    const asks = await call({ query: 'which test covers apply_discount rejecting a negative percent', limit: 5 });
    assert.equal(asks.files[0].path, 'tests/test_discounts.py', 'a query about tests finds the test first');
  });

  it('filters by path glob, language and repo', async () => {
    const r = await call({ query: 'discount total', path: 'shop/pricing/**' });
    assert.ok(r.files.length >= 1);
    assert.ok(r.files.every((f: Json) => f.path.startsWith('shop/pricing/')), JSON.stringify(r.files.map((f: Json) => f.path)));
  });

  it('accepts a whole issue with a traceback of 100k characters: bounded terms, frames and named files count', async () => {
    const trace = [
      'Traceback (most recent call last):',
      '  File "/home/someone/venv/lib/python3.11/site-packages/shop/cart.py", line 6, in checkout',
      '    return DiscountRule().apply_discount(total, cart.percent)',
      '  File "/home/someone/venv/lib/python3.11/site-packages/shop/pricing/discounts.py", line 5, in apply_discount',
      '    raise InvalidDiscountError(percent)',
      'shop.pricing.discounts.InvalidDiscountError: -5',
    ].join('\n');
    const filler = 'When I check out a cart with a coupon the app crashes and I do not know why this happens to my users every day. '.repeat(900);
    const query = `Checkout crashes with a negative coupon\n\n${filler}\n\n\`\`\`\n${trace}\n\`\`\`\n`;
    assert.ok(query.length > 100_000);
    const t0 = Date.now();
    const r = await call({ query, limit: 3 });
    assert.ok(Date.now() - t0 < 5000);
    assert.ok(r.terms.length <= 40 && r.terms.length > 0, String(r.terms.length));
    assert.ok(r.query.length <= 201, 'the answer does not echo the whole query');
    assert.ok(r.paths_named.includes('shop/pricing/discounts.py'), JSON.stringify(r.paths_named));
    assert.deepEqual(r.files.slice(0, 2).map((f: Json) => f.path).sort(), ['shop/cart.py', 'shop/pricing/discounts.py']);
    assert.ok(r.files[0].signals.includes('path_hint'));
    assert.ok(r.terms.includes('invaliddiscounterror'), r.terms.join(','));
    assert.ok(!r.terms.includes('the') && !r.terms.includes('users'), 'prose stop words are not searched');
  });

  it('a query that is one word a million characters long is bounded: read in part, answered at once, never stalling the engine', async () => {
    const t0 = Date.now();
    const r = await call({ query: 'a'.repeat(1_000_000) });
    // (it took 32 s: a pattern that rescanned the rest of the word at every character)
    assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);
    assert.equal(r.total, 0);
    assert.ok(r.warnings.some((w: string) => /only the first \d+ characters of the query were read/.test(w)), JSON.stringify(r.warnings));
    const after = await call({ query: 'discount total' });
    assert.ok(after.files.length > 0, 'the next call is answered as usual');
  });

  it('chunk results stay available with group=chunk (the seed\'s shape, signals named)', async () => {
    const r = await call({ query: 'apply discount', path: 'shop/**', group: 'chunk', limit: 3 });
    assert.equal(r.files.length, 0);
    assert.equal(r.results.length, 3);
    assert.deepEqual(r.results[0].signals, ['bm25']);
    assert.equal(r.results[0].symbol_path, 'DiscountRule.apply_discount');
  });

  it('query analysis: code-like words and frames weigh more than prose; a pasted log gives at most 40 terms', () => {
    const df = (terms: string[]) => ({ total: 1000, df: new Map(terms.map(t => [t, 10])) });
    const plan = analyseQuery('the order total is wrong when `apply_discount` runs in checkout()', df);
    const w = (t: string) => plan.terms.find(x => x.term === t)?.weight ?? 0;
    assert.ok(w('applydiscount') > w('order'), JSON.stringify(plan.terms));
    assert.ok(w('checkout') > w('order'), 'a call is code');
    assert.equal(w('the'), 0);
    const log = Array.from({ length: 3000 }, (_, i) => `2024-01-01 ERROR worker_${i} failed: ConnectionResetError in handler_${i % 97}`).join('\n');
    assert.ok(analyseQuery(log, df).terms.length <= 40);
    assert.equal(pathHint('src/shop/cart.py', ['shop/cart.py']), 1);
    assert.ok(pathHint('shop/cart.py', ['lib/python3.11/site-packages/shop/cart.py']) === 1);
  });

  it("a traceback's own wording gives no terms; its frames still give paths and function names", () => {
    const df = (terms: string[]) => ({ total: 1000, df: new Map(terms.map(t => [t, 3])) });
    const tb = 'Applying a discount fails\n\nTraceback (most recent call last):\n  File "shop/cart.py", line 6, in checkout\n    return DiscountRule().apply_discount(total, cart.percent)\n'
      + '  File "shop/pricing/discounts.py", line 5, in apply_discount\n    raise InvalidDiscountError(percent)\nshop.pricing.discounts.InvalidDiscountError: 120\n';
    const plan = analyseQuery(tb, df);
    const terms = plan.terms.map(t => t.term);
    for (const noise of ['traceback', 'most', 'recent', 'call', 'last', 'file', 'line', 'py']) assert.ok(!terms.includes(noise), `${noise} in ${terms.join(' ')}`);
    for (const kept of ['checkout', 'applydiscount', 'invaliddiscounterror', 'discountrule']) assert.ok(terms.includes(kept), `${kept} missing from ${terms.join(' ')}`);
    assert.deepEqual(plan.paths.slice(0, 2).sort(), ['shop/cart.py', 'shop/pricing/discounts.py']);
  });

  it('long queries count common terms cheaply first, and choose the same terms as a full count', () => {
    // 300 distinct identifiers with document frequencies spread from rare to very common.
    const words = Array.from({ length: 300 }, (_, i) => `ident${i}value`);
    const freq = new Map(words.map((w, i) => [w.toLowerCase(), 1 + ((i * 7919) % 9000)]));
    const text = words.map((w, i) => (i % 3 ? w : `${w}(${w})`)).join(' ');
    let counted = 0;
    const capped = (terms: string[], cap: number) => { counted += terms.length; return { total: 100_000, df: new Map(terms.map(t => [t, Math.min(freq.get(t) ?? 0, cap)])) }; };
    const full = (terms: string[]) => ({ total: 100_000, df: new Map(terms.map(t => [t, Math.min(freq.get(t) ?? 0, SELECTION_DF_CAP)])) });
    const two = analyseQuery(text, capped);
    assert.deepEqual(two.terms, analyseQuery(text, full).terms);
    assert.equal(two.terms.length, 40);
    assert.ok(counted < 2 * words.length, `each term counted at most about once: ${counted}`);
    const rare = [...freq].filter(([, n]) => n < 300).map(([t]) => t);
    assert.ok(rare.length >= 5 && rare.every(t => two.terms.some(x => x.term === t)), 'the rarest terms are chosen');
  });

  it('a few typed words are all searched, even words that are filler in prose; long prose drops them', () => {
    const df = (terms: string[]) => ({ total: 1000, df: new Map(terms.map(t => [t, 10])) });
    const terms = (q: string) => analyseQuery(q, df).terms.map(t => t.term).sort();
    assert.deepEqual(terms('undefined result'), ['result', 'undefined']);
    assert.deepEqual(terms('works'), ['works']);
    assert.deepEqual(terms('the file'), ['file'], 'function words still go');
    assert.deepEqual(terms('the'), ['the'], 'a query of function words only is still a question');
    const prose = terms('I tried this and the result works differently from what I expected in the example file');
    assert.ok(!prose.includes('result') && !prose.includes('works') && prose.includes('differently'), prose.join(','));
  });
});
