/**
 * Compact per-file encoding of raw occurrences: columnar JSON, deflated. Written by the parser workers,
 * read a file at a time by graph resolution.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { NewOccurrence } from './store';

const KINDS = ['call', 'import', 'extends', 'implements', 'identifier'] as const;

export function encodeOccurrences(occ: readonly NewOccurrence[]): Uint8Array {
  const strings: string[] = []; const index = new Map<string, number>();
  const s = (v: string | null) => { if (v === null) return -1; let i = index.get(v); if (i === undefined) { i = strings.length; strings.push(v); index.set(v, i); } return i; };
  const cols = { k: [] as number[], n: [] as number[], l: [] as number[], c: [] as number[], s: [] as number[], r: [] as number[], o: [] as number[], a: [] as number[] };
  for (const o of occ) {
    cols.k.push(Math.max(0, KINDS.indexOf(o.kind as (typeof KINDS)[number]))); cols.n.push(s(o.name)); cols.l.push(o.line); cols.c.push(o.col);
    cols.s.push(s(o.scope)); cols.r.push(s(o.receiver)); cols.o.push(s(o.source)); cols.a.push(s(o.alias));
  }
  return deflateRawSync(Buffer.from(JSON.stringify({ v: 1, strings, ...cols })), { level: 6 });
}

export function decodeOccurrences(data: Uint8Array): NewOccurrence[] {
  const j = JSON.parse(inflateRawSync(data).toString('utf8')) as { strings: string[]; k: number[]; n: number[]; l: number[]; c: number[]; s: number[]; r: number[]; o: number[]; a: number[] };
  const str = (i: number) => (i < 0 ? null : j.strings[i]!);
  return j.k.map((k, i) => ({ kind: KINDS[k]!, name: str(j.n[i]!)!, line: j.l[i]!, col: j.c[i]!, scope: str(j.s[i]!), receiver: str(j.r[i]!), source: str(j.o[i]!), alias: str(j.a[i]!) }));
}
