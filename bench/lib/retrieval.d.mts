// Types of retrieval.mjs, for test/bench-baseline.test.ts.
export interface Score { rank: number | null; rr: number; r1: number; r5: number; r10: number; hit1: number; r1_max: number }
export function filesFromSearch(data: { results?: { path: string }[]; files?: { path: string }[] }): string[];
export function score(ranked: string[], gold: string[]): Score;
export function summarize(rows: Score[]): { n: number; r1: number; r5: number; r10: number; mrr: number; hit1: number; r1_max: number };
export function pct(xs: number[], p: number): number;
export function seededSample<T>(items: T[], n: number, seed: number | string): T[];
export function patchFiles(patch: string): { before: string[]; created: string[] };
export function readInstances(text: string): { id: string; repo: string; base: string; created_at: string | null; query: string; patch: string }[];
