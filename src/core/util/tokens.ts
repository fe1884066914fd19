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
export function tokenize(text: string, out: string[] = []): string[] {
  WORD.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = WORD.exec(text)) !== null) {
    const word = m[0];
    if (word.length > 64) continue; // minified blobs, base64: noise for search
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
  // The FTS4 simple tokenizer treats `_` as a separator, so encode snake_case wholes without it.
  return tokenize(text).map(t => t.replace(/[_$]/g, '')).join(' ');
}

/** Query terms: distinct FTS-safe tokens in the order they appear. */
export function queryTerms(query: string): string[] {
  const seen = new Set<string>();
  const terms: string[] = [];
  for (const t of tokenize(query)) {
    const term = t.replace(/[_$]/g, '');
    if (term && !seen.has(term)) { seen.add(term); terms.push(term); }
  }
  return terms;
}
