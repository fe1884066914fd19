/** Ranking and retrieval behaviour of search_code, vector_search and get_chunk. */
import { strict as assert } from 'node:assert';
import { Engine } from '../src/core/engine';
import { tempWorkspace, SAMPLE_FILES, type TempWorkspace } from './helpers/workspace';
import { bm25 } from '../src/core/store/bm25';
import { invokeTool } from '../src/core/tools/contract';
import { TOOLS } from '../src/core/tools/registry';
import { tokenize, queryTerms } from '../src/core/util/tokens';

describe('search', () => {
  let ws: TempWorkspace;
  let e: Engine;
  before(async () => {
    ws = tempWorkspace({
      ...SAMPLE_FILES,
      // body mentions "parse config" a lot, but the definition is named otherwise
      'src/noise.ts': `export function helperRoutine() {\n  // parse config parse config parse config\n  const parse = 1; const config = 2;\n  return parse + config;\n}\n`,
      'src/config/parser.ts': `export function parseConfig(text: string) {\n  return JSON.parse(text);\n}\n`,
    });
    e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    await e.index();
  });
  after(() => { e.close(); ws.remove(); });

  const search = (query: string, extra: Partial<{ vector: boolean; limit: number; offset: number; language: string }> = {}) =>
    e.search({ query, limit: 10, offset: 0, vector: false, ...extra });

  it('splits identifiers: "user name" finds getUserName, and snake_case matches words', async () => {
    assert.deepEqual(tokenize('getUserName'), ['getusername', 'get', 'user', 'name']);
    // capitals runs, digits, separators at the edges, plain words, over-long words, non-ASCII separators
    assert.deepEqual(tokenize('HTTPServer2 __init__ $el a1b2 plain x' + 'y'.repeat(70) + ' über_Cool'),
      ['httpserver2', 'http', 'server', '2', 'init', 'el', 'a1b2', 'a', '1', 'b', '2', 'plain', 'ber_cool', 'ber', 'cool']);
    assert.deepEqual(tokenize('ABc URLs IOError'), ['abc', 'a', 'bc', 'urls', 'ur', 'ls', 'ioerror', 'io', 'error']);
    assert.deepEqual(queryTerms('MAX_RETRY_COUNT'), ['maxretrycount', 'max', 'retry', 'count']);
    assert.equal((await search('user name')).results[0]!.symbol_path, 'UserService.getUserName');
    assert.equal((await search('retry failed payment')).results[0]!.symbol_path, 'PaymentRetrier.retry_failed_payment');
    assert.equal((await search('MAX_RETRY_COUNT')).results[0]!.path, 'src/db.ts');
  });

  it('weights definition names and paths above bodies', async () => {
    const r = await search('parse config');
    assert.equal(r.results[0]!.symbol_path, 'parseConfig');
    assert.ok(r.results.findIndex(h => h.symbol_path === 'helperRoutine') > 0);
  });

  it('filters by language and pages with limit/offset', async () => {
    const py = await search('retry payment charge', { language: 'python' });
    assert.ok(py.results.length > 0 && py.results.every(h => h.path.endsWith('.py')));
    const all = await search('id name user lookup', { limit: 50 });
    const p1 = await search('id name user lookup', { limit: 2, offset: 0 });
    const p2 = await search('id name user lookup', { limit: 2, offset: 2 });
    assert.deepEqual([...p1.results, ...p2.results].map(h => h.chunk_id), all.results.slice(0, 4).map(h => h.chunk_id));
    assert.equal(p1.total, all.total);
  });

  it('vector=true only reorders exact BM25 ties and backfills after the lexical hits', async () => {
    const plain = await search('user name lookup', { limit: 50 });
    const fused = await search('user name lookup', { limit: 50, vector: true });
    const lexical = fused.results.filter(h => h.signals.includes('bm25'));
    assert.equal(lexical.length, plain.results.length);
    // BM25 scores never go up along the fused list (ties may be reordered by the vector)
    for (let i = 1; i < lexical.length; i++) assert.ok(lexical[i - 1]!.score >= lexical[i]!.score);
    assert.deepEqual(new Set(lexical.map(h => h.chunk_id)), new Set(plain.results.map(h => h.chunk_id)));
    const firstBackfill = fused.results.findIndex(h => !h.signals.includes('bm25'));
    if (firstBackfill >= 0) {
      assert.ok(fused.results.slice(firstBackfill).every(h => h.signals.join() === 'local_hash_vector'), 'backfill only after lexical hits');
      assert.ok(fused.results.length > plain.results.length);
    }
    assert.ok(lexical.some(h => h.signals.includes('local_hash_vector')), 'the vector signal is reported where it contributed');
  });

  it('vector_search uses only the local hash vector and ranks shared vocabulary first', async () => {
    const r = await e.vectorSearch({ query: 'retry failed payment charge attempt', limit: 5, offset: 0 });
    assert.ok(r.results.length > 0);
    assert.ok(r.results.every(h => h.signals.length === 1 && h.signals[0] === 'local_hash_vector'));
    assert.equal(r.results[0]!.path, 'src/payments/retry.py');
  });

  it('get_chunk returns the exact source lines and flags a stale file', async () => {
    const hit = (await search('lookup')).results.find(h => h.symbol_path === 'UserService.lookup')!;
    const c = await e.getChunk(hit.chunk_id);
    const lines = SAMPLE_FILES['src/users.ts']!.split('\n').slice(c.start_line - 1, c.end_line).join('\n');
    assert.equal(c.text, lines);
    assert.match(c.text, /private lookup\(id: string\)/);
    assert.equal(c.stale, false);
    ws.write('src/users.ts', '// moved\n' + SAMPLE_FILES['src/users.ts']);
    assert.equal((await e.getChunk(hit.chunk_id)).stale, true);
    ws.write('src/users.ts', SAMPLE_FILES['src/users.ts']!);
  });

  it('a query with no searchable words returns nothing, not everything', async () => {
    const r = await search('?!');
    assert.equal(r.total, 0);
    assert.deepEqual(r.terms, []);
  });

  it('an empty answer says why: no searchable words, or words no indexed file contains (named)', async () => {
    const warnings = async (query: string) => {
      const out = await invokeTool(TOOLS.search_code, { query }, { engine: e });
      assert.ok(out.ok, JSON.stringify(out));
      return (out.data as { warnings: string[] }).warnings;
    };
    assert.deepEqual(await warnings('?!'), ['the query has no searchable words']);
    assert.deepEqual(await warnings('frobnicated_quuxwidget'), ["no indexed file contains any of the query's words (frobnicatedquuxwidget, frobnicated, quuxwidget)"]);
    assert.equal((await search('frobnicated_quuxwidget')).plan.unknown.length, 3);
  });

  it('BM25 ranks rarer terms and shorter fields higher', () => {
    // p=1 phrase, c=1 column, n=10 docs, avg 10 tokens; doc length l; x = (tf, hits all, docs with hit)
    const mi = (l: number, tf: number, df: number) => new Uint8Array(new Uint32Array([1, 1, 10, 10, l, tf, tf * df, df]).buffer);
    assert.ok(bm25(mi(10, 1, 1), [1]) > bm25(mi(10, 1, 5), [1]), 'rarer term scores higher');
    assert.ok(bm25(mi(5, 1, 2), [1]) > bm25(mi(40, 1, 2), [1]), 'shorter field scores higher');
    assert.ok(bm25(mi(10, 3, 2), [1]) > bm25(mi(10, 1, 2), [1]), 'more occurrences score higher');
    assert.equal(bm25(mi(10, 0, 2), [1]), 0);
  });
});
