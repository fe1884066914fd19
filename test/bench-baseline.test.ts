/** The retrieval-quality benchmark's own baseline and scoring (bench/lib/bm25.mjs, bench/lib/retrieval.mjs). */
import { strict as assert } from 'node:assert';

type Bm25 = typeof import('../bench/lib/bm25.mjs');
type Retrieval = typeof import('../bench/lib/retrieval.mjs');

describe('bench: BM25 baseline and scoring', () => {
  let m: Bm25;
  let r: Retrieval;
  before(async () => {
    m = await import('../bench/lib/bm25.mjs');
    r = await import('../bench/lib/retrieval.mjs');
  });

  it('tokenizes: lower-cased ASCII letter and digit runs split at camelCase, acronym, snake_case and digit boundaries', () => {
    assert.deepEqual(m.tokenize('getUserName'), ['get', 'user', 'name']);
    assert.deepEqual(m.tokenize('snake_case_x'), ['snake', 'case', 'x']);
    assert.deepEqual(m.tokenize('XMLHttpRequest __init__ a1b2'), ['xml', 'http', 'request', 'init', 'a', '1', 'b', '2']);
    assert.deepEqual(m.tokenize('the THE The'), ['the', 'the', 'the'], 'no stop list');
    assert.deepEqual(m.queryTokens('parse parseConfig config'), ['parse', 'config'], 'query tokens once each');
  });

  it('scores a tiny corpus as the Okapi BM25 formula says (k1 1.2, b 0.75)', () => {
    assert.deepEqual(m.selfCheck(), []);
    const ix = new m.Bm25Index();
    ix.set('x.py', 'alpha beta beta');
    ix.set('y.py', 'beta gamma');
    // N = 2, avgdl = 2.5; "beta" is in both documents, "alpha" in one.
    const w = (tf: number, n: number, len: number) => Math.log(1 + (2 - n + 0.5) / (n + 0.5)) * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len / 2.5));
    const got = ix.search('alpha beta alpha');
    assert.deepEqual(got.map(g => g.path), ['x.py', 'y.py']);
    assert.ok(Math.abs(got[0]!.score - (w(1, 1, 3) + w(2, 2, 3))) < 1e-12);
    assert.ok(Math.abs(got[1]!.score - w(1, 2, 2)) < 1e-12);
    ix.set('x.py', 'gamma');
    assert.deepEqual(ix.search('alpha'), [], 'a replaced document loses its old tokens');
    assert.equal(ix.keyOf('y.py'), null);
  });

  it('maps search_code answers to files: a files list when there is one, else chunks by first appearance', () => {
    const results = [{ path: 'b.py' }, { path: 'a.py' }, { path: 'b.py' }, { path: 'c.py' }];
    assert.deepEqual(r.filesFromSearch({ results }), ['b.py', 'a.py', 'c.py']);
    assert.deepEqual(r.filesFromSearch({ results, files: [{ path: 'c.py' }, { path: 'a.py' }] }), ['c.py', 'a.py']);
  });

  it('scores recall@k as the share of gold files and MRR from the first gold file', () => {
    const s = r.score(['x', 'g1', 'y', 'z', 'w', 'g2'], ['g1', 'g2']);
    assert.deepEqual(s, { rank: 2, rr: 0.5, r1: 0, r5: 0.5, r10: 1, hit1: 0, r1_max: 0.5 });
    assert.deepEqual(r.score([], ['g']), { rank: null, rr: 0, r1: 0, r5: 0, r10: 0, hit1: 0, r1_max: 1 });
    assert.deepEqual(r.score(['g2', 'g1'], ['g1', 'g2', 'g3', 'g4']), { rank: 1, rr: 1, r1: 0.25, r5: 0.5, r10: 0.5, hit1: 1, r1_max: 0.25 });
  });

  it('reads gold files from a patch at their paths before it (renames included, created files apart)', () => {
    const patch = [
      'diff --git a/old.py b/new.py', 'similarity index 100%', 'rename from old.py', 'rename to new.py',
      'diff --git a/n.py b/n.py', 'new file mode 100644', '--- /dev/null', '+++ b/n.py', '@@ -0,0 +1 @@', '+x',
      'diff --git a/d.py b/d.py', 'deleted file mode 100644', '--- a/d.py', '+++ /dev/null', '@@ -1 +0,0 @@', '-x',
      'diff --git a/pkg/m.py b/pkg/m.py', '--- a/pkg/m.py', '+++ b/pkg/m.py', '@@ -1 +1 @@', '-x', '+y', '',
    ].join('\n');
    assert.deepEqual(r.patchFiles(patch), { before: ['d.py', 'old.py', 'pkg/m.py'], created: ['n.py'] });
  });

  it('samples with a seed: the same seed, the same cases', () => {
    const items = Array.from({ length: 50 }, (_, i) => i);
    assert.deepEqual(r.seededSample(items, 10, 1), r.seededSample(items, 10, 1));
    assert.notDeepEqual(r.seededSample(items, 10, 1), r.seededSample(items, 10, 2));
    assert.deepEqual([...r.seededSample(items, 99, 3)].sort((a, b) => a - b), items);
  });
});
