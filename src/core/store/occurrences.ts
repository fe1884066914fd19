/**
 * Compact per-file encoding of raw occurrences, written by the parser workers and read a file at a
 * time by graph resolution. Layout (little endian), deflated:
 *   u32 version=2, u32 count, u32 stringBytes, strings (UTF-8, NUL-separated),
 *   then count × 8 i32 columns: kind, name, line, col, scope, receiver, source, alias (string indexes, -1 = null).
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { OCCURRENCE_KINDS, occurrenceKindIndex, type Occurrence } from '../parse/occurrence';

const VERSION = 2;

export function encodeOccurrences(occ: readonly Occurrence[]): Uint8Array {
  const strings: string[] = []; const index = new Map<string, number>();
  const s = (v: string | null) => { if (v === null) return -1; let i = index.get(v); if (i === undefined) { i = strings.length; strings.push(v.replace(/\0/g, '')); index.set(v, i); } return i; };
  const cols = new Int32Array(occ.length * 8);
  occ.forEach((o, i) => {
    const b = i * 8;
    cols[b] = occurrenceKindIndex(o.kind); cols[b + 1] = s(o.name); cols[b + 2] = o.line; cols[b + 3] = o.col;
    cols[b + 4] = s(o.scope); cols[b + 5] = s(o.receiver); cols[b + 6] = s(o.source); cols[b + 7] = s(o.alias);
  });
  const str = Buffer.from(strings.join('\0'), 'utf8');
  const head = new Uint32Array([VERSION, occ.length, str.length]);
  const pad = (4 - (str.length % 4)) % 4;
  const raw = Buffer.concat([Buffer.from(head.buffer), str, Buffer.alloc(pad), Buffer.from(cols.buffer, cols.byteOffset, cols.byteLength)]);
  return deflateRawSync(raw, { level: 1 });
}

/** Decodes a file's occurrences; with `kinds`, only those (the others never become objects). */
export function decodeOccurrences(data: Uint8Array, kinds?: ReadonlySet<string>): Occurrence[] {
  const raw = inflateRawSync(data);
  const head = new Uint32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + 12));
  if (head[0] !== VERSION) throw new Error(`unknown occurrence encoding ${head[0]}`);
  const count = head[1]!; const strBytes = head[2]!;
  const strings = strBytes ? raw.subarray(12, 12 + strBytes).toString('utf8').split('\0') : [];
  const off = 12 + strBytes + ((4 - (strBytes % 4)) % 4);
  const cols = new Int32Array(raw.buffer.slice(raw.byteOffset + off, raw.byteOffset + off + count * 32));
  const str = (i: number) => (i < 0 ? null : strings[i]!);
  const out: Occurrence[] = [];
  for (let i = 0; i < count; i++) {
    const b = i * 8;
    const kind = OCCURRENCE_KINDS[cols[b]!];
    if (kind === undefined) throw new Error(`unknown occurrence kind index ${cols[b]}`);
    if (kinds && !kinds.has(kind)) continue;
    out.push({ kind, name: str(cols[b + 1]!)!, line: cols[b + 2]!, col: cols[b + 3]!, scope: str(cols[b + 4]!), receiver: str(cols[b + 5]!), source: str(cols[b + 6]!), alias: str(cols[b + 7]!) });
  }
  return out;
}
