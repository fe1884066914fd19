/** The occurrence record (src/core/parse/occurrence.ts) and its packed encoding (src/core/store/occurrences.ts). */
import { strict as assert } from 'node:assert';
import { encodeOccurrences, decodeOccurrences } from '../src/core/store/occurrences';
import { OCCURRENCE_KINDS, type Occurrence } from '../src/core/parse/occurrence';

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
