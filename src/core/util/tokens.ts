/**
 * Identifier-aware tokenisation shared by the full-text index, the query parser and the hash vector.
 * `getUserName` yields `getusername get user name`; `MAX_RETRY_COUNT` yields `max_retry_count max retry count`.
 */
const WORD = /[A-Za-z0-9_$]+/g;

/**
 * Sub-words of one identifier, lower case, without the identifier itself: `_` and `$` separate, and
 * so do case and digit changes (`HTTPServer2` → `http server 2`, `getUserName` → `get user name`).
 */
export function splitIdentifier(word: string): string[] {
  const parts: string[] = [];
  const n = word.length;
  let j = 0;
  while (j < n) {
    const c = word.charCodeAt(j);
    let k = j + 1;
    if (c >= 65 && c <= 90) {
      while (k < n && isUpper(word.charCodeAt(k))) k++;
      if (k < n && isLower(word.charCodeAt(k))) {
        // `HTTPServer`: the last capital starts the next word; a single capital starts this one.
        if (k - j >= 2) { parts.push(word.slice(j, k - 1).toLowerCase()); j = k - 1; continue; }
        while (k < n && isLower(word.charCodeAt(k))) k++;
      }
    } else if (c >= 97 && c <= 122) {
      while (k < n && isLower(word.charCodeAt(k))) k++;
    } else if (c >= 48 && c <= 57) {
      while (k < n && isDigit(word.charCodeAt(k))) k++;
    } else { j = k; continue; } // `_`, `$` (and anything else) only separate
    parts.push(word.slice(j, k).toLowerCase());
    j = k;
  }
  return parts;
}
const isUpper = (c: number) => c >= 65 && c <= 90;
const isLower = (c: number) => c >= 97 && c <= 122;
const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * Tokens of free text: each word ([A-Za-z0-9_$]+, at most 64 characters) lower-cased, followed by its
 * sub-words when it has more than one. A hand-written scanner: this runs over every line indexed.
 */
export function tokenize(text: string, out: string[] = []): string[] {
  const n = text.length;
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    // Plain lower-case words without a letter/digit boundary (most tokens) have no sub-words.
    let simple = true; let kind = 0; // 1 letter, 2 digit
    const start = i;
    for (; i < n; i++) {
      c = text.charCodeAt(i);
      if (c >= 97 && c <= 122) { if (kind === 2) simple = false; kind = 1; }
      else if (c >= 48 && c <= 57) { if (kind === 1) simple = false; kind = 2; }
      else if ((c >= 65 && c <= 90) || c === 95 || c === 36) simple = false;
      else break;
    }
    if (i === start) { i++; continue; }
    if (i - start > 64) continue; // minified blobs, base64: noise for search
    const word = text.slice(start, i);
    if (simple) { out.push(word); continue; }
    const lower = word.toLowerCase().replace(EDGE_SEPARATORS, '');
    if (!lower) continue;
    out.push(lower);
    const parts = splitIdentifier(word);
    if (parts.length > 1) for (const p of parts) out.push(p);
  }
  return out;
}
const EDGE_SEPARATORS = /^[_$]+|[_$]+$/g;

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
