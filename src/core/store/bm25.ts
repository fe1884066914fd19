/**
 * Okapi BM25 over FTS4 `matchinfo(..., 'pcnalx')`, registered as the SQL function `bm25`.
 * Layout of the matchinfo blob (uint32): p, c, n, a[c], l[c], then x[p][c][3] = (hits in row,
 * hits in all rows, rows with a hit). Column weights come after the blob as SQL arguments.
 */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

export function bm25(matchinfo: Uint8Array, weights: readonly number[], phraseWeights?: readonly number[]): number {
  const mi = new Uint32Array(matchinfo.buffer, matchinfo.byteOffset, matchinfo.byteLength >> 2);
  const p = mi[0]!, c = mi[1]!, n = mi[2]!;
  const aOff = 3, lOff = 3 + c, xOff = 3 + 2 * c;
  let score = 0;
  for (let i = 0; i < p; i++) {
    const pw = phraseWeights?.[i] ?? 1;
    for (let j = 0; j < c; j++) {
      const w = weights[j] ?? 1;
      if (w === 0) continue;
      const x = xOff + 3 * (i * c + j);
      const tf = mi[x]!;
      if (tf === 0) continue;
      const df = mi[x + 2]!;
      const idf = Math.max(0.01, Math.log((n - df + 0.5) / (df + 0.5) + 1));
      const avg = mi[aOff + j]! || 1;
      const len = mi[lOff + j]!;
      score += pw * w * idf * (tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * len / avg));
    }
  }
  return score;
}
