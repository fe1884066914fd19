// The standard baseline of the retrieval-quality benchmark (bench/quality.mjs): Okapi BM25 over whole
// files, with a plain identifier-splitting tokenizer. Pure functions, no engine code, so the baseline
// stays what it says whatever src/ does (checked by test/bench-baseline.test.ts and --self-check).
//
// Tokens: the text is cut into runs of ASCII letters and digits (everything else, `_` included, is a
// separator); each run is cut again before an upper-case letter that follows a lower-case letter or a
// digit (getUserName → get|User|Name), before the last upper-case letter of an upper-case run that is
// followed by a lower-case one (HTTPServer → HTTP|Server), and between letters and digits (utf8 → utf|8).
// Every piece is lower-cased. No stop list, no stemming, no minimum length.
//   = every match of /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g, lower-cased.
//
// Score of a document d for a query q (each distinct query token counted once: query term frequency
// ignored):  sum over distinct t in q of  idf(t) · tf(t,d)·(k1+1) / (tf(t,d) + k1·(1 − b + b·|d|/avgdl))
// with idf(t) = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5)), k1 = 1.2, b = 0.75, N = number of documents,
// n(t) = documents containing t, |d| = tokens in d, avgdl = mean |d|. Documents without any query token
// are not ranked; equal scores are ordered by path.

const TOKEN = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g;

/** Tokens of a text, in order, with repeats. */
export function tokenize(text) {
  const out = [];
  for (const m of text.matchAll(TOKEN)) out.push(m[0].toLowerCase());
  return out;
}

/** The distinct tokens of a query, in order of first appearance. */
export function queryTokens(text) {
  return [...new Set(tokenize(text))];
}

export function idf(N, n) {
  return Math.log(1 + (N - n + 0.5) / (n + 0.5));
}

/** An in-memory inverted index of whole documents, updated document by document. */
export class Bm25Index {
  constructor({ k1 = 1.2, b = 0.75 } = {}) {
    this.k1 = k1; this.b = b;
    /** term → Map(doc id → term frequency) */
    this.postings = new Map();
    /** path → { id, key, len, terms } */
    this.docs = new Map();
    this.paths = [];
    this.totalLen = 0;
    this.nextId = 0;
  }

  get size() { return this.docs.size; }
  get avgdl() { return this.docs.size ? this.totalLen / this.docs.size : 0; }

  /** The change key a document was last set with (e.g. its git blob id), or undefined. */
  keyOf(path) { return this.docs.get(path)?.key; }

  /** Add or replace one document. `key` is stored for keyOf (callers skip unchanged documents). */
  set(path, text, key = null) {
    this.remove(path);
    const tf = new Map();
    let len = 0;
    for (const t of tokenize(text)) { tf.set(t, (tf.get(t) ?? 0) + 1); len++; }
    const id = this.nextId++;
    for (const [t, n] of tf) {
      let p = this.postings.get(t);
      if (!p) this.postings.set(t, (p = new Map()));
      p.set(id, n);
    }
    this.docs.set(path, { id, key, len, terms: [...tf.keys()] });
    this.paths[id] = path;
    this.totalLen += len;
  }

  remove(path) {
    const d = this.docs.get(path);
    if (!d) return;
    for (const t of d.terms) {
      const p = this.postings.get(t);
      p.delete(d.id);
      if (!p.size) this.postings.delete(t);
    }
    this.docs.delete(path);
    delete this.paths[d.id];
    this.totalLen -= d.len;
  }

  /** Documents by BM25 score, best first: [{ path, score }], at most `limit`. */
  search(query, limit = 100) {
    const N = this.docs.size;
    if (!N) return [];
    const { k1, b } = this;
    const avgdl = this.avgdl || 1;
    const lenById = new Map();
    for (const d of this.docs.values()) lenById.set(d.id, d.len);
    const scores = new Map();
    for (const t of queryTokens(query)) {
      const p = this.postings.get(t);
      if (!p) continue;
      const w = idf(N, p.size);
      for (const [id, tf] of p) {
        const norm = k1 * (1 - b + (b * lenById.get(id)) / avgdl);
        scores.set(id, (scores.get(id) ?? 0) + (w * tf * (k1 + 1)) / (tf + norm));
      }
    }
    return [...scores]
      .map(([id, score]) => ({ path: this.paths[id], score }))
      .sort((x, y) => y.score - x.score || (x.path < y.path ? -1 : x.path > y.path ? 1 : 0))
      .slice(0, limit);
  }
}

/**
 * Checks of the tokenizer and of the scores on a tiny corpus, computed by hand from the formula above.
 * Returns a list of failures (empty when all hold). Used by `quality.mjs --self-check` and the unit test.
 */
export function selfCheck() {
  const fails = [];
  const eq = (name, got, want) => {
    const g = JSON.stringify(got), w = JSON.stringify(want);
    if (g !== w) fails.push(`${name}: got ${g}, want ${w}`);
  };
  const near = (name, got, want) => { if (!(Math.abs(got - want) < 1e-9)) fails.push(`${name}: got ${got}, want ${want}`); };

  eq('camelCase', tokenize('getUserName'), ['get', 'user', 'name']);
  eq('snake_case', tokenize('snake_case_x'), ['snake', 'case', 'x']);
  eq('acronym', tokenize('HTTPServer parseURL'), ['http', 'server', 'parse', 'url']);
  eq('digits', tokenize('utf8 x2y v10_2'), ['utf', '8', 'x', '2', 'y', 'v', '10', '2']);
  eq('punctuation and stop words kept', tokenize('The `a.b()` is; ÄÖ-ok'), ['the', 'a', 'b', 'is', 'ok']);
  eq('query tokens distinct', queryTokens('get get_user GetUser'), ['get', 'user']);

  // Tiny corpus: a = 4 tokens, b = 2, c = 3; avgdl = 3, N = 3.
  const ix = new Bm25Index();
  ix.set('a.py', 'user user name id');
  ix.set('b.py', 'getUser');
  ix.set('c.py', 'order_total amount');
  ix.set('c.py', 'order total sum');          // replaced: the old text must be gone
  const k1 = 1.2, b = 0.75, avgdl = 3;
  const term = (tf, n, len) => idf(3, n) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avgdl));
  near('avgdl', ix.avgdl, 3);
  near('idf', idf(3, 2), Math.log(1 + 1.5 / 2.5));
  const r = ix.search('user user getName');   // distinct tokens: user, get, name
  eq('ranking', r.map(x => x.path), ['b.py', 'a.py']);
  near('score a', r.find(x => x.path === 'a.py').score, term(2, 2, 4) + term(1, 1, 4));
  near('score b', r.find(x => x.path === 'b.py').score, term(1, 2, 2) + term(1, 1, 2));
  eq('no match', ix.search('amount'), []);
  ix.remove('a.py');
  near('after remove', ix.avgdl, 2.5);
  eq('after remove ranks', ix.search('user').map(x => x.path), ['b.py']);
  return fails;
}
