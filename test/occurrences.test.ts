/** The occurrence record (src/core/parse/occurrence.ts) and its packed encoding (src/core/store/occurrences.ts). */
import { strict as assert } from 'node:assert';
import { encodeOccurrences, decodeOccurrences } from '../src/core/store/occurrences';
import { CROSS_FILE_KINDS, OCCURRENCE_KINDS, type Occurrence } from '../src/core/parse/occurrence';
import { Engine } from '../src/core/engine';
import { Store } from '../src/core/store/store';
import { tempWorkspace } from './helpers/workspace';

const occ = (kind: string, name = 'f'): Occurrence =>
  ({ kind, name, line: 3, col: 4, scope: 'A.run', receiver: kind === 'call' ? 'self' : null, source: kind === 'import' ? './m' : null, alias: null }) as Occurrence;

describe('occurrences: one record, one list of kinds', () => {
  it('every kind survives encoding, in order', () => {
    const list = OCCURRENCE_KINDS.map(k => occ(k, `n_${k}`));
    assert.deepEqual(decodeOccurrences(encodeOccurrences(list)), list);
    assert.deepEqual(decodeOccurrences(encodeOccurrences(list), new Set(['import'])).map(o => o.kind), ['import']);
  });

  it('an unknown kind is an error, never stored as a call', () => {
    assert.throws(() => encodeOccurrences([occ('call'), occ('refers_to')]), /unknown occurrence kind "refers_to"/);
  });
});

describe('occurrences: imports and bases stored apart', () => {
  it('the resolver\'s table input (one query, imports and bases) equals what the full record holds of those kinds', async () => {
    const ws = tempWorkspace({
      'pkg/base.py': 'class Base:\n    def run(self):\n        return 1\n',
      'pkg/child.py': 'from pkg.base import Base\nimport os\n\nclass Child(Base):\n    def go(self):\n        return self.run() + len(os.sep)\n',
      'pkg/plain.py': 'def plain():\n    return print(2)\n',
      'web/app.ts': "import { x } from './lib';\nexport class App extends Array implements Iterable<number> {}\nexport const y = x + 1;\n",
      'web/lib.ts': 'export const x = 1;\n',
    });
    const e = await Engine.open({ roots: [ws.root], dbPath: ws.db, threads: 0 });
    const repo = e.roots[0]!.repo_id;
    await e.index();
    e.close();
    const { store } = await Store.open(ws.db);
    try {
      const cross = store.files.crossOccurrences(repo);
      const files = store.files.graphFiles(repo);
      assert.equal(files.length, 5);
      let seen = 0;
      for (const f of files) {
        const full = store.files.occurrences(f.id).filter(o => CROSS_FILE_KINDS.has(o.kind));
        const packed = cross.get(f.id);
        assert.deepEqual(packed ? decodeOccurrences(packed) : [], full, f.path);
        assert.deepEqual(store.files.occurrences(f.id, CROSS_FILE_KINDS), full, f.path);
        seen += full.length;
      }
      assert.ok(seen >= 5, 'the fixture has imports and bases');
      assert.equal(cross.get(files.find(f => f.path === 'pkg/plain.py')!.id), null, 'a file without imports or bases stores none');
    } finally { store.close(); ws.remove(); }
  });
});
