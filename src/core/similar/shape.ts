/**
 * The shape of code, for find_similar: a small lexer that abstracts names and values (identifiers →
 * `ID`, strings → `STR`, numbers → `NUM`; keywords, operators and punctuation kept; comments and white
 * space dropped), shingles of SHINGLE_K consecutive tokens, and a MinHash signature of the shingle set
 * (one-permutation hashing with optimal densification: one hash per shingle, SIG_SLOTS slots of 16 bits),
 * and a smaller one of the identifier set (NAME_SLOTS), which only orders candidates of equal shape.
 *
 * Two chunks that are the same code under other names and literals have the same shingles: their
 * Jaccard similarity is 1, and the share of equal signature slots estimates it. The exact Jaccard of
 * the shingle sets is what find_similar reports (computed from the text at query time); the signature
 * only finds and orders the candidates. Pure and deterministic: runs in the parser workers.
 */
import { fnv1a } from '../util/hash';
import { lineCommentOf } from '../languages';

/** Tokens a shingle spans. */
export const SHINGLE_K = 5;
/** MinHash slots a signature has (16 bits each). */
export const SIG_SLOTS = 64;
/** LSH: bands × rows = SIG_SLOTS; two chunks are candidates when one band is equal (≈ 50% chance at Jaccard 0.45, 90% at 0.6). */
export const LSH_BANDS = 16;
export const LSH_ROWS = SIG_SLOTS / LSH_BANDS;
/** Chunks with fewer distinct shingles get no signature: at that size every getter looks like every other. */
export const MIN_SHINGLES = 12;

/** Keywords of the indexed languages (one set: a word that is a keyword anywhere is kept as itself). */
const KEYWORDS = new Set(`abstract and as assert async await base begin bool boolean break byte case catch chan char class const constexpr
continue debugger def default defer del delete do double elif else elsif end ensure enum except export extends extern false final finally
float fn for foreach from func function go goto if impl implements import in include instanceof int interface is lambda let long loop
match mod module mut namespace new nil none not null object of or override package pass private protected pub public raise readonly
rescue return select self short signed sizeof static struct super switch synchronized template then this throw throws trait true try
type typedef typeof undefined union unless unsigned until use using var virtual void volatile when where while with yield None True False
elseif endif echo fun val`.split(/\s+/));
const OPERATORS = ['>>>=', '<<=', '>>=', '>>>', '===', '!==', '...', '**=', '//=', '::', '->', '=>', '==', '!=', '<=', '>=', '&&', '||', '??', '?.',
  '++', '--', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<', '>>', '**', '//', ':='];

const ID = fnv1a('\0ID'); const STR = fnv1a('\0STR'); const NUM = fnv1a('\0NUM');
const KEYWORD_CODE = new Map([...KEYWORDS].map(k => [k, fnv1a(k)] as const));
/** Operators by their first character, longest first, with their codes; and every ASCII character's own code. */
const OPS_BY_FIRST: [string, number][][] = Array.from({ length: 128 }, () => []);
for (const o of [...OPERATORS].sort((a, b) => b.length - a.length)) OPS_BY_FIRST[o.charCodeAt(0)]!.push([o, fnv1a(o)]);
const CHAR_CODE = Uint32Array.from({ length: 128 }, (_, c) => fnv1a(String.fromCharCode(c)));

export interface ShapeTokens {
  /** one code per token: ID, STR, NUM, or the hash of the keyword or operator */
  codes: Uint32Array;
  /** the identifiers, in order (for `same_identifiers`) */
  identifiers: string[];
}

const isIdStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36 || c > 127;
const isIdPart = (c: number) => isIdStart(c) || (c >= 48 && c <= 57);
const isDigit = (c: number) => c >= 48 && c <= 57;

/** Tokens of a piece of code. `language` picks the comment syntax (`#` for Python and Ruby, `//` and `/* *\/` elsewhere; PHP has both). A hand-written scanner: it runs over every chunk indexed. */
export function shapeTokens(text: string, language?: string): ShapeTokens {
  let codes = new Uint32Array(Math.max(16, text.length >> 2)); let nc = 0;
  const push = (x: number) => { if (nc === codes.length) { const g = new Uint32Array(codes.length * 2); g.set(codes); codes = g; } codes[nc++] = x; };
  const identifiers: string[] = [];
  const style = lineCommentOf(language);
  const hash = style === 'hash' || style === 'both';
  const slash = style === 'slash' || style === 'both';
  const dash = style === 'dash';
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c <= 32) { i++; continue; }
    if (isIdStart(c)) {
      const s = i; i++;
      while (i < n && isIdPart(text.charCodeAt(i))) i++;
      const w = text.slice(s, i);
      const k = KEYWORD_CODE.get(w);
      if (k !== undefined) push(k); else { push(ID); identifiers.push(w); }
      continue;
    }
    const d = i + 1 < n ? text.charCodeAt(i + 1) : 0;
    if (isDigit(c) || (c === 46 && isDigit(d))) {
      i++;
      while (i < n) { const x = text.charCodeAt(i); if (isIdPart(x) || (x === 46 && isDigit(text.charCodeAt(i + 1)))) i++; else break; }
      push(NUM); continue;
    }
    // comments
    if ((hash && c === 35 && !(style === 'both' && d === 91)) || (slash && c === 47 && d === 47) || (dash && c === 45 && d === 45)) {
      while (i < n && text.charCodeAt(i) !== 10) i++;
      continue;
    }
    if (slash && c === 47 && d === 42) { const e = text.indexOf('*/', i + 2); i = e < 0 ? n : e + 2; continue; }
    // strings: triple quotes and backticks may span lines, the others end at the line
    if (c === 34 || c === 39 || c === 96) {
      const triple = c !== 96 && d === c && text.charCodeAt(i + 2) === c;
      const end = scanString(text, i, c, triple);
      push(end > 0 ? STR : CHAR_CODE[c]!); i = end > 0 ? end : i + 1; // a lone quote: a Rust lifetime, an apostrophe
      continue;
    }
    if (c < 128) {
      let len = 1; let code = CHAR_CODE[c]!;
      for (const [o, oc] of OPS_BY_FIRST[c]!) if (text.startsWith(o, i)) { len = o.length; code = oc; break; }
      push(code); i += len;
    } else { push(fnv1a(text[i]!)); i++; }
  }
  return { codes: codes.slice(0, nc), identifiers };
}

/** End (exclusive) of the string starting at `i`, or -1 when a one-line string does not close on its line. */
function scanString(text: string, i: number, q: number, triple: boolean): number {
  const n = text.length;
  if (triple) {
    const close = text[i]!.repeat(3);
    const e = text.indexOf(close, i + 3);
    return e < 0 ? n : e + 3;
  }
  for (let j = i + 1; j < n; j++) {
    const x = text.charCodeAt(j);
    if (x === 92) { j++; continue; }
    if (x === q) return j + 1;
    if (x === 10 && q !== 96) return -1;
  }
  return q === 96 ? n : -1;
}

const fmix = (h: number) => {
  h ^= h >>> 16; h = Math.imul(h, 0x85ebca6b); h ^= h >>> 13; h = Math.imul(h, 0xc2b2ae35); h ^= h >>> 16;
  return h >>> 0;
};

/** The distinct shingles (hashes of SHINGLE_K consecutive token codes), sorted. A text shorter than K tokens has one shingle of all it has. */
export function shingles(codes: Uint32Array): Uint32Array {
  const count = Math.max(codes.length - SHINGLE_K + 1, codes.length ? 1 : 0);
  const out = new Uint32Array(count);
  for (let s = 0; s < count; s++) {
    let h = 0x9747b28c;
    for (let k = s; k < Math.min(s + SHINGLE_K, codes.length); k++) h = Math.imul(h ^ codes[k]!, 0x01000193) + 0x7f4a7c15 | 0;
    out[s] = fmix(h);
  }
  out.sort();
  let w = 0;
  for (let r = 0; r < out.length; r++) if (r === 0 || out[r] !== out[r - 1]) out[w++] = out[r]!;
  return out.slice(0, w);
}

/** The shingles of a piece of code (lexer, then shingling). */
export function shingleSet(text: string, language?: string): { set: Uint32Array; identifiers: string[]; tokens: number } {
  const t = shapeTokens(text, language);
  return { set: shingles(t.codes), identifiers: t.identifiers, tokens: t.codes.length };
}

/**
 * MinHash signature by one-permutation hashing: a shingle's top 6 bits pick its slot, the slot keeps the
 * smallest of the rest; an empty slot takes the value of a slot chosen by a fixed hash sequence of its
 * index (optimal densification), so two sets with the same shingles always get the same signature.
 * 16 bits are kept per slot (an accidental equal slot: 1 in 65,536).
 */
export function signature(set: Uint32Array, slots = SIG_SLOTS): Uint16Array {
  const bits = 32 - Math.log2(slots);
  const best = new Uint32Array(slots).fill(0xffffffff);
  const filled = new Uint8Array(slots);
  for (let i = 0; i < set.length; i++) {
    const h = fmix(set[i]! ^ 0x5bd1e995);
    const slot = h >>> bits; const v = h & ((1 << bits) - 1);
    if (v < best[slot]!) best[slot] = v;
    filled[slot] = 1;
  }
  const out = new Uint16Array(slots);
  const any = filled.includes(1);
  for (let j = 0; j < slots; j++) {
    let src = j;
    for (let attempt = 1; any && !filled[src]; attempt++) src = fmix(Math.imul(j + 1, 0x9e3779b1) ^ Math.imul(attempt, 0x85ebca77)) >>> bits;
    const v = any ? best[src]! : 0;
    out[j] = (v ^ (v >>> 16)) & 0xffff;
  }
  return out;
}

/** Estimated Jaccard similarity: the share of equal slots of two signatures (`b` at slot offset `bOff` of a packed array). */
export function estimate(a: Uint16Array, b: Uint16Array, bOff = 0, slots = SIG_SLOTS): number {
  let eq = 0;
  for (let j = 0; j < slots; j++) if (a[j] === b[bOff + j]) eq++;
  return eq / slots;
}

/** Slots of the identifier signature: it only orders candidates of equal shape (the copy before a look-alike). */
export const NAME_SLOTS = 16;

/** The distinct identifiers of a text as a sorted hash set (for the identifier signature). */
export function identifierSet(identifiers: readonly string[]): Uint32Array {
  const out = Uint32Array.from(new Set(identifiers), w => fnv1a(w));
  out.sort();
  return out;
}

/** Exact Jaccard similarity of two sorted shingle sets, and how many shingles they share. */
export function jaccard(a: Uint32Array, b: Uint32Array): { jaccard: number; shared: number } {
  let i = 0, j = 0, shared = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) { shared++; i++; j++; } else if (a[i]! < b[j]!) i++; else j++;
  }
  const union = a.length + b.length - shared;
  return { jaccard: union ? shared / union : 0, shared };
}

/** The LSH key of band `band` of a signature (at slot offset `off` of a packed array). */
export function bandKey(sig: Uint16Array, band: number, off = 0): number {
  let h = 0x811c9dc5 ^ band;
  for (let r = 0; r < LSH_ROWS; r++) h = Math.imul(h ^ sig[off + band * LSH_ROWS + r]!, 0x01000193);
  return fmix(h);
}

// ---- storage: one blob per file ----------------------------------------------------------------------
/** Bytes of one entry of a file's blob: chunk ord (u16), distinct shingles (u16, capped), SIG_SLOTS × u16 of shape, NAME_SLOTS × u16 of identifiers. */
export const ENTRY_BYTES = 4 + 2 * (SIG_SLOTS + NAME_SLOTS);

/** The signatures of a file's chunks (texts in ord order), packed; chunks under MIN_SHINGLES are left out. Null: none qualifies. */
export function packShapes(texts: readonly string[], language: string): Uint8Array | null {
  const entries: { ord: number; count: number; sig: Uint16Array; names: Uint16Array }[] = [];
  texts.forEach((t, ord) => {
    if (ord > 0xffff) return;
    const { set, identifiers } = shingleSet(t, language);
    if (set.length < MIN_SHINGLES) return;
    entries.push({ ord, count: Math.min(set.length, 0xffff), sig: signature(set), names: signature(identifierSet(identifiers), NAME_SLOTS) });
  });
  if (!entries.length) return null;
  const out = new Uint8Array(entries.length * ENTRY_BYTES);
  const dv = new DataView(out.buffer);
  entries.forEach((e, k) => {
    const o = k * ENTRY_BYTES;
    dv.setUint16(o, e.ord, true); dv.setUint16(o + 2, e.count, true);
    for (let j = 0; j < SIG_SLOTS; j++) dv.setUint16(o + 4 + 2 * j, e.sig[j]!, true);
    for (let j = 0; j < NAME_SLOTS; j++) dv.setUint16(o + 4 + 2 * (SIG_SLOTS + j), e.names[j]!, true);
  });
  return out;
}

/** Entries of a packed blob: calls `each(ord, count, view, byte offset of the shape signature)`; the identifier signature follows it. */
export function unpackShapes(data: Uint8Array, each: (ord: number, count: number, dv: DataView, sigByte: number) => void): void {
  const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
  for (let o = 0; o + ENTRY_BYTES <= data.byteLength; o += ENTRY_BYTES) each(dv.getUint16(o, true), dv.getUint16(o + 2, true), dv, o + 4);
}

// ---- generated code ----------------------------------------------------------------------------------
const GENERATED_PATH = /(^|\/)(dist|build|out|gen|generated|__generated__)\/|\.min\.(js|css|mjs)$|_pb2(_grpc)?\.pyi?$|\.pb\.(go|cc|h)$|\.g\.(dart|cs)$|\.generated\.[^/]+$|\.designer\.cs$|_generated\.[^/]+$/i;
const GENERATED_HEADER = /\b(@generated|do not edit|auto-?generated|generated by|code generated)\b/i;

/** Why a file looks generated (`path` convention or a `header` line among its first five), or null. */
export function generatedReason(path: string, head?: string): 'path' | 'header' | null {
  if (GENERATED_PATH.test(path)) return 'path';
  if (head !== undefined) {
    const first = head.split('\n', 5).join('\n');
    if (GENERATED_HEADER.test(first)) return 'header';
  }
  return null;
}
