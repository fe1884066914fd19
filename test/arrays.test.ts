/** util/arrays.ts: appending a list of any length in place. */
import { strict as assert } from 'node:assert';
import { appendAll } from '../src/core/util/arrays';

describe('appendAll', () => {
  it('appends a list longer than a call can take as arguments, where push(...list) overflows the stack', () => {
    const big = Array.from({ length: 500_000 }, (_, i) => i);
    assert.throws(() => [0].push(...big), RangeError, 'the spread this replaces overflows at this size');
    const out = appendAll([-1], big);
    assert.equal(out.length, 500_001);
    assert.equal(out[0], -1);
    assert.equal(out[500_000], 499_999);
  });
});
