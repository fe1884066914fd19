// Types of bm25.mjs, for test/bench-baseline.test.ts.
export function tokenize(text: string): string[];
export function queryTokens(text: string): string[];
export function idf(N: number, n: number): number;
export class Bm25Index {
  constructor(opts?: { k1?: number; b?: number });
  readonly size: number;
  readonly avgdl: number;
  docs: Map<string, { id: number; key: string | null; len: number; terms: string[] }>;
  keyOf(path: string): string | null | undefined;
  set(path: string, text: string, key?: string | null): void;
  remove(path: string): void;
  search(query: string, limit?: number): { path: string; score: number }[];
}
export function selfCheck(): string[];
