/**
 * The full-text index after a large run: compacted into one segment filed above every level edits reach
 * (store/files.ts compactFullText), and still exact for what edits add and remove afterwards.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { Engine } from '../src/core/engine';
import { Store } from '../src/core/store/store';
import { invokeTool } from '../src/core/tools/contract';
import { TOOLS } from '../src/core/tools/registry';
import { tempWorkspace } from './helpers/workspace';
import { forcedCollections } from './helpers/gc';

/** a word of letters only, one full-text token: `tag` and the letters of `n` */
const word = (tag: string, n: number) => tag + [...String(n)].map(d => 'abcdefghij'[Number(d)]).join('');
const FRUIT = ['kiwi', 'plum', 'pear', 'quince', 'lime', 'date', 'yuzu'];
const fn = (f: number, i: number) => `def fn_${f}_${i}(x):\n    return x + ${i}  # ${FRUIT[f % 7]} ${word('marker', f)}\n\n`;
const files: Record<string, string> = {};
for (let f = 0; f < 90; f++) files[`pkg/m${f}.py`] = Array.from({ length: 25 }, (_, i) => fn(f, i)).join('');

describe('full-text index compaction', function () {
  this.timeout(120_000);
  it('a first index of thousands of chunks leaves one segment at the top level; searches stay exact through later edits', async () => {
    const ws = tempWorkspace(files);
    try {
      const levels = async () => { const { store } = await Store.open(ws.db); try { return store.files.fullTextLevels(); } finally { store.close(); } };
      const e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
      const paths = async (query: string) => {
        const out = await invokeTool(TOOLS.search_code, { query, limit: 100 }, { engine: e });
        assert.ok(out.ok, JSON.stringify(out));
        return new Set(((out.data as { files: { path: string }[] }).files).map(f => f.path));
      };
      try {
        let r!: Awaited<ReturnType<Engine['index']>>;
        // the save of a large run starts with a full garbage collection (the cold index's peak memory)
        assert.ok(await forcedCollections(async () => { r = await e.index(); }) >= 1, 'the first index\'s save forced no collection');
        const written = r.repos.reduce((n, x) => n + x.chunks_written, 0);
        assert.ok(written >= 2000, `${written} chunks`);
        const expect13 = new Set(Object.keys(files).filter(p => Number(/m(\d+)/.exec(p)![1]) % 7 === 3));
        assert.deepEqual(await paths('quince'), expect13);
        e.close();
        const retired = await levels();
        assert.ok(retired.length && retired.every(l => l.level >= 16), `every segment above the edits' levels: ${JSON.stringify(retired)}`);
        const e2 = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
        const find = async (q: string) => {
          const out = await invokeTool(TOOLS.search_code, { query: q, limit: 10 }, { engine: e2 });
          assert.ok(out.ok, JSON.stringify(out));
          return (out.data as { files: { path: string }[] }).files.map(f => f.path);
        };
        try {
          assert.deepEqual(await find(word('marker', 42)), ['pkg/m42.py']);
          // edits one at a time: segments at the low levels come and merge; the compacted one stays where it is
          // (their saves, a file each, force no full garbage collection)
          const forced = await forcedCollections(async () => {
            for (let k = 0; k < 20; k++) {
              ws.write(`pkg/m${k}.py`, fn(k, 0).replace(word('marker', k), word('edited', k)));
              await e2.index({ paths: [join(ws.root, `pkg/m${k}.py`)] });
            }
          });
          assert.equal(forced, 0, 'a one-file save forced a full garbage collection');
          assert.deepEqual(await find(word('edited', 7)), ['pkg/m7.py']);
          assert.deepEqual(await find(word('marker', 7)), [], 'the old text of an edited file is gone');
          assert.deepEqual(await find(word('marker', 55)), ['pkg/m55.py'], 'untouched files are still found');
        } finally { e2.close(); }
        const after = await levels();
        assert.deepEqual(after.filter(l => l.level >= 16), retired, 'the edits\' merges never reach the retired segments');
        const low = after.filter(l => l.level < 16);
        assert.ok(low.length && low.every(l => l.level < 3 && l.segments < 16), JSON.stringify(after));
        // filed away again and again, until the levels run out and everything is merged into one segment
        const { store } = await Store.open(ws.db);
        try {
          const terms = [word('edited', 3), word('marker', 60), 'quince', 'kiwi'];
          const before = terms.map(t => store.files.chunksWithTerm(t, 1000).map(c => c.key).sort());
          assert.ok(before.every(b => b.length > 0));
          for (let i = 0; i < 70; i++) store.files.compactFullText();
          const end = store.files.fullTextLevels();
          assert.ok(end.every(l => l.level >= 16 && l.level <= 1023), JSON.stringify(end));
          assert.ok(end.length < 4, `an optimize merged them: ${JSON.stringify(end)}`);
          assert.deepEqual(terms.map(t => store.files.chunksWithTerm(t, 1000).map(c => c.key).sort()), before);
        } finally { store.close(); }
      } finally { e.close(); }
    } finally { ws.remove(); }
  });
});

describe('full-text column lengths kept in memory (searches of many rows skip per-row length lookups)', function () {
  this.timeout(180_000);
  const ledger = (f: number, i: number) => `def entry_${f}_${i}(x):\n    return x + ${i}  # ledger ${FRUIT[(f + i) % 7]}\n\n`;
  const many: Record<string, string> = {};
  for (let f = 0; f < 180; f++) many[`books/b${f}.py`] = Array.from({ length: 25 }, (_, i) => ledger(f, i)).join('');
  type Internals = { file: { store: Store } };
  const rowsOf = (c: ReturnType<Store['files']['ftsCandidates']>) => c && { count: c.count, rowids: [...c.rowids.slice(0, c.count)], mi: [...c.mi.slice(0, c.count * c.stride)] };

  it('reads the same match statistics as FTS4 does, and notices lengths older than the rows', async () => {
    const ws = tempWorkspace(many);
    const e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    try {
      await e.index();
      const store = (e as unknown as Internals).file.store;
      const lengths = store.files.chunkLengths();
      for (const [q, p] of [['ledger', 1], ['kiwi OR plum', 2], ['ledger OR yuzu OR entry', 3]] as const) {
        assert.deepEqual(rowsOf(store.files.ftsCandidates(q, p, lengths)), rowsOf(store.files.ftsCandidates(q, p)), q);
      }
      ws.write('books/b7.py', many['books/b7.py'] + ledger(7, 99) + ledger(7, 100));
      await e.index();
      const fresh = rowsOf(store.files.ftsCandidates('ledger', 1));
      assert.ok(fresh && fresh.count === 4502);
      assert.deepEqual(rowsOf(store.files.ftsCandidates('ledger', 1, lengths)), fresh, 'the edit\'s new rows have no length in the old array: read again with FTS4\'s lengths');
    } finally { e.close(); ws.remove(); }
  });

  it('a long-lived engine patches them on each edit: its answers stay those of a fresh engine', async () => {
    const ws = tempWorkspace(many);
    const e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    const ask = async (engine: Engine) => {
      const out = await invokeTool(TOOLS.search_code, { query: 'ledger', limit: 20 }, { engine });
      assert.ok(out.ok, JSON.stringify(out));
      return (out.data as { files: { path: string; score: number }[] }).files.map(f => `${f.path} ${f.score}`);
    };
    try {
      await e.index();
      const before = await ask(e); // builds the lengths
      // b3 grows by many short ledger functions and b5 loses most of its text: both move in the ranking
      ws.write('books/b3.py', many['books/b3.py'] + Array.from({ length: 40 }, (_, i) => `# ledger ledger ${i}\n`).join(''));
      ws.write('books/b5.py', ledger(5, 0));
      await e.index();
      const patched = await ask(e);
      // white-box: the patched lengths are the docsize table's for every row there is (no re-read with FTS4's lengths needed)
      const store = (e as unknown as Internals).file.store;
      const kept = (e as unknown as { reads: { lengthsCache: Uint32Array | null } }).reads.lengthsCache;
      const truth = store.files.chunkLengths();
      assert.ok(kept && kept.length >= truth.length);
      assert.deepEqual([...kept.slice(0, truth.length)].map((v, i) => (truth[i] ? v : 0)), [...truth]);
      e.close();
      const e2 = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
      try { assert.deepEqual(patched, await ask(e2)); } finally { e2.close(); }
      assert.notDeepEqual(patched, before, 'the edits changed the answer');
    } finally { e.close(); ws.remove(); }
  });
});
