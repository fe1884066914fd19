/**
 * A file written again keeps the chunks whose key and token text did not change (store/chunks.ts): their
 * rows and full-text terms stay, only the others are replaced. Whatever the edit, the index must equal a
 * fresh index of the same tree: FTS4's own integrity check, its statistics, every chunk row.
 */
import { strict as assert } from 'node:assert';
import { Engine } from '../src/core/engine';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';
import { readSavedIndex, ftsState, chunkRows } from './helpers/saved-index';

const fn = (name: string, word: string) => `def ${name}(x):\n    """${word} helper"""\n    return x + 1\n\n\n`;
const BASE = fn('alpha', 'apricot') + fn('beta', 'blueberry') + fn('gamma', 'grape') + fn('delta', 'damson');

/** Each step: the file's new text; every step is applied as a named-path run, then checked. */
const STEPS: [string, string][] = [
  ['a comment appended', BASE + '# trailing note cranberry\n'],
  ['one body changed in the middle', BASE.replace('blueberry', 'bilberry')],
  ['a function inserted at the top (every order shifts)', fn('zeta', 'zucchini') + BASE.replace('blueberry', 'bilberry')],
  ['a function removed', fn('zeta', 'zucchini') + BASE.replace(fn('beta', 'blueberry'), '')],
  ['two functions swapped', fn('delta', 'damson') + fn('gamma', 'grape') + fn('alpha', 'apricot')],
  ['lines shift above unchanged functions', '\n\n\n' + fn('delta', 'damson') + fn('gamma', 'grape') + fn('alpha', 'apricot')],
  ['a duplicate definition (two chunks, one key)', fn('alpha', 'apricot') + fn('alpha', 'apricot') + fn('gamma', 'grape')],
  ['back to the start', BASE],
];

const rowids = (db: string) => readSavedIndex(db, d => new Map((d.exec("SELECT c.symbol_path, c.rowid FROM chunks c JOIN files f USING (file_id) WHERE f.path = 'm.py'")[0]?.values ?? [])
  .map(r => [String(r[0]), Number(r[1])])));

describe('chunk reuse on rewrite', function () {
  this.timeout(60000);
  let ws: TempWorkspace;
  let fresh: TempWorkspace;
  beforeEach(() => { ws = tempWorkspace({ 'm.py': BASE, 'other.py': fn('omega', 'orange') }); fresh = tempWorkspace({}); });
  afterEach(() => { ws.remove(); fresh.remove(); });

  it('every kind of edit leaves the index equal to a fresh one', async () => {
    { const e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 }); await e.index(); e.close(); }
    for (const [what, text] of STEPS) {
      ws.write('m.py', text);
      const e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
      await e.index({ paths: ['m.py'] }); e.close();
      const f = await Engine.open({ roots: [ws.root], dbPath: fresh.db, threads: 0 });
      await f.index({ force: true }); f.close();
      const [edited, rebuilt] = [await ftsState(ws.db, 'helper'), await ftsState(fresh.db, 'helper')];
      assert.equal(edited.integrity, 'ok', what);
      assert.deepEqual(edited.stats, rebuilt.stats, `${what}: full-text statistics`);
      assert.deepEqual(await chunkRows(ws.db), await chunkRows(fresh.db), `${what}: chunk rows`);
    }
  });

  it('a body edit keeps the other chunks (and their terms), and search sees the new words only', async () => {
    const e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    await e.index(); e.close();
    const before = await rowids(ws.db);
    ws.write('m.py', BASE.replace('blueberry', 'bilberry'));
    const e2 = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    try {
      await e2.index({ paths: ['m.py'] });
      const hits = async (q: string) => (await e2.search({ query: q, limit: 5, offset: 0, vector: false })).results.map(h => h.symbol_path);
      assert.deepEqual(await hits('bilberry'), ['beta']);
      assert.deepEqual(await hits('blueberry'), []);
      assert.deepEqual(await hits('grape'), ['gamma']);
    } finally { e2.close(); }
    const after = await rowids(ws.db);
    for (const k of ['alpha', 'gamma', 'delta']) assert.equal(after.get(k), before.get(k), `${k} kept its row`);
    assert.notEqual(after.get('beta'), before.get('beta'), 'the edited chunk was replaced');
  });
});
