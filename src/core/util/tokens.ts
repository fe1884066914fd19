/**
 * Identifier-aware tokenisation shared by the full-text index, the query parser and the hash vector.
 * `getUserName` yields `getusername get user name`; `MAX_RETRY_COUNT` yields `max_retry_count max retry count`.
 */
const WORD = /[A-Za-z0-9_$]+/g;
const CAMEL = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g;

/** Sub-words of one identifier, lower case, without the identifier itself. */
export function splitIdentifier(word: string): string[] {
  const parts: string[] = [];
  for (const piece of word.split(/[_$]+/)) {
    if (!piece) continue;
    const m = piece.match(CAMEL);
    if (m) for (const p of m) parts.push(p.toLowerCase());
  }
  return parts;
}

/** Tokens of free text: each word lower-cased, followed by its sub-words when it has more than one. */
const SIMPLE = /^[a-z0-9]+$/;
const DIGITS_TAIL = /[a-z][0-9]|[0-9][a-z]/;

export function tokenize(text: string, out: string[] = []): string[] {
  WORD.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = WORD.exec(text)) !== null) {
    const word = m[0];
    if (word.length > 64) continue; // minified blobs, base64: noise for search
    // Fast path: a plain lower-case word (most tokens) has no sub-words.
    if (SIMPLE.test(word) && !DIGITS_TAIL.test(word)) { out.push(word); continue; }
    const lower = word.toLowerCase().replace(/^[_$]+|[_$]+$/g, '');
    if (!lower) continue;
    out.push(lower);
    const parts = splitIdentifier(word);
    if (parts.length > 1) for (const p of parts) out.push(p);
  }
  return out;
}

/** Text for an FTS4 column (simple tokenizer): tokens joined by spaces. `_` is kept inside a token by our splitter only. */
export function ftsText(text: string): string {
  return ftsFromTokens(tokenize(text));
}

/** The FTS4 simple tokenizer treats `_` as a separator, so snake_case wholes are written without it. */
export function ftsFromTokens(tokens: readonly string[]): string {
  let out = '';
  for (const t of tokens) { const v = t.includes('_') || t.includes('$') ? t.replace(/[_$]/g, '') : t; out += out ? ` ${v}` : v; }
  return out;
}

/** Query terms: distinct FTS-safe tokens in the order they appear. */
export function queryTerms(query: string): string[] {
  return weightedQueryTerms(query).map(t => t.term);
}

/** Weight of a whole compound identifier (getUserName) and of each of its sub-words. */
export const COMPOUND_WEIGHT = 2;
export const PART_WEIGHT = 0.6;

/**
 * Query terms with weights: a compound identifier counts more than its sub-words, so the chunk that
 * has the exact identifier wins over chunks that only share its parts.
 */
export function weightedQueryTerms(query: string): { term: string; weight: number }[] {
  const out = new Map<string, number>();
  WORD.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = WORD.exec(query)) !== null) {
    const word = m[0];
    if (word.length > 64) continue;
    const whole = word.toLowerCase().replace(/[_$]/g, '');
    if (!whole) continue;
    const parts = splitIdentifier(word);
    const compound = parts.length > 1;
    out.set(whole, Math.max(out.get(whole) ?? 0, compound ? COMPOUND_WEIGHT : 1));
    if (compound) for (const p of parts) out.set(p, Math.max(out.get(p) ?? 0, PART_WEIGHT));
  }
  return [...out].map(([term, weight]) => ({ term, weight }));
}
