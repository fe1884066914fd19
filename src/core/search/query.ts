/**
 * Query understanding without a model: what in the text an agent sends (a few words, an identifier,
 * an issue report with code blocks, a stack trace, a log) is worth searching for.
 *
 *   1. Segments: fenced and inline code, traceback/stack frames and quoted strings are code context;
 *      the rest is prose. File paths (`pkg/mod.py`, `src/a.ts:12`) and frames' paths become path hints.
 *   2. Words: every identifier-like word, with its sub-words (`getUserName` → get, user, name). A word
 *      counts as code when it looks like code (camelCase, snake_case, dotted or `::` paths, a call `f(`,
 *      an exception name) or appears in code context. Prose stop words are dropped unless code.
 *   3. Weights: informativeness in this index (IDF over chunks) × how code-like × how often it appears
 *      (damped) × whether a stack frame named it. The heaviest MAX_TERMS terms are searched; the order of
 *      first appearance breaks ties, so what the text leads with wins.
 * The result is bounded whatever the query's length (a 100k-character log gives at most MAX_TERMS terms).
 */
import { splitIdentifier } from '../util/tokens';

export const MAX_TERMS = 40;
/** Queries are read up to this many characters; the rest is ignored (and said so). */
export const MAX_QUERY_CHARS = 200_000;

/** English function words and issue-report filler: no signal in a code search unless written as code. */
export const PROSE_STOPWORDS = new Set(('a about above after again against all also am an and any are as at be because been before being below between both but by can '
  + 'could did do does doing down during each either else even ever every few for from further get got had has have having he her here hers how however i '
  + 'if in into is it its itself just let like may me might more most much must my no nor not now of off on once only or other our out over own please '
  + 'rather really same seems she should since so some such than that the their them then there these they this those though through thus to too '
  + 'under until up upon us very via was we well were what when where whether which while who whom why will with within without would yet you your '
  + 'use used using uses want wanted try tried trying happen happens happened seem work works worked working expected expect actual instead still '
  + 'thing things something anything way example e g eg ie etc ok thanks hi hello issue bug problem report reported description steps reproduce '
  + 'version versions current currently following output result results see note new one two first second line lines code file files').split(' '));

/**
 * Document frequencies for choosing terms are counted up to this many chunks: beyond it a term is
 * common whatever its exact count, and counting common terms' whole doclists is what long queries
 * would otherwise spend their time on. (Measured: a lower cap lets more common terms tie with rarer
 * ones and be chosen, which makes the search itself slower.)
 */
export const SELECTION_DF_CAP = 2000;
/** The first, cheap count of every candidate term (see analyseQuery). */
export const FIRST_DF_CAP = 256;
/** A query of at most this many words is taken as typed keywords, not prose. */
export const SHORT_QUERY_WORDS = 6;
/** Words that carry no meaning of their own, dropped even from short queries (unless written as code). */
const FUNCTION_WORDS = new Set(('a an and are as at be by for from in into is it its of on or the to was were with').split(' '));

/** Keywords of the indexed languages: everywhere in code, so they locate nothing. */
const KEYWORDS = new Set(('def class return import from as self cls none true false null nil undefined var let const function this new if elif else for while in '
  + 'not and or is try except finally raise with yield lambda pass break continue async await public private protected static void int str bool '
  + 'float string func package type interface struct impl fn pub mut use mod match enum end do then begin module require include namespace using '
  + 'print assert').split(' '));

export interface QueryTerm { term: string; weight: number; code: boolean }
export interface QueryPlan {
  /** Terms to search, heaviest first, with BM25 phrase weights (IDF excluded: BM25 applies it). */
  terms: QueryTerm[];
  /** Repository-relative path fragments the text names (file names, frame paths), longest first. */
  paths: string[];
  /** Identifier-like words the text names (for matching definition names), most weighted first. */
  identifiers: string[];
  /** The text asks about tests (test files should not be pushed down). */
  wants_tests: boolean;
  /** The text asks about docs, configuration, data or scripts (text files should not be pushed down). */
  wants_text: boolean;
  /** The text mentions them without asking (a word in a long text): text files are pushed down less. */
  mentions_text: boolean;
  /** Words of the text that no indexed chunk contains (left out of `terms`): an empty answer names them. */
  unknown: string[];
  /** Characters of the query that were read (the rest ignored). */
  chars_read: number;
}

interface Word { text: string; code: boolean; frame: boolean; pos: number }

const FENCE = /```[^\n]*\n([\s\S]*?)(?:```|$)/g;
const INLINE = /`([^`\n]{1,300})`/g;
/** What every Python traceback says, whatever the error, and its frames' file names: no terms (the frames' paths become path hints and their functions frame words, read apart). */
/** Words that ask about docs, configuration, data or scripts rather than code (asksForText). */
const TEXT_WORDING = new RegExp('\\b(?:docs?|documentation|documented|readme|runbooks?|guides?|wiki|changelog|adrs?|configs?|configured|configuration'
  + '|configur(?:e|ing)|settings?|env|environment variables?|yaml|yml|toml|json|ini|migrations?|schema|sql|dockerfile|docker|compose|terraform|helm'
  + '|kubernetes|k8s|deploy(?:ment|ed|ing)?|ci|workflows?|pipeline|makefile|license|licen[cs]ing|actions|travis|github|gitlab|badges?'
  + '|instructions|requirements|dependenc(?:y|ies)|contributing|sidebar|cookbook|tutorials?|faq)\\b', 'gi');
/** Formats, hosts and settings: code handles them too (`parse the JSON schema`), so they alone do not make a question about text. */
const FORMAT_WORDING = /^(?:json|ya?ml|toml|ini|sql|schema|migrations?|env|requirements|dependenc(?:y|ies)|actions|github|gitlab|settings?)$/i;
/** Questions this short are about what they name: one word of TEXT_WORDING in them is their subject. */
const QUESTION_WORDS = 12;

/**
 * How a query asks about docs, configuration, data or scripts: `asked` (text files then rank like code) —
 * a short question with one such word (`where is the retry limit configured`), a text that leads with
 * docs, ci or build (a conventional commit's type), or two such words that are not mere formats;
 * `mentioned` — one word in a long text (a commit that "makes the docs look better" while changing code);
 * else `no`. Measured on bench:quality's code and doc/config cases, both halves (bench/fusion-replay.mjs).
 */
export function textWording(text: string): 'asked' | 'mentioned' | 'no' {
  const head = text.slice(0, 2000);
  const hits = head.match(TEXT_WORDING) ?? [];
  if (!hits.length) return 'no';
  const words = head.match(/[A-Za-z]+/g)?.length ?? 0;
  const asked = words <= QUESTION_WORDS || /^\s*(?:docs?|ci|build)\b/i.test(head) || hits.filter(w => !FORMAT_WORDING.test(w)).length >= 2;
  return asked ? 'asked' : 'mentioned';
}
/** Whether a query asks about text files (textWording). */
export const asksForText = (text: string): boolean => textWording(text) === 'asked';
const TRACEBACK_WORDING = /Traceback \(most recent call last\):|\bFile "[^"\n]+", line \d+, in\b/g;
const PY_FRAME = /File "([^"]+)", line \d+, in ([\w<>.$]+)/g;
const JS_FRAME = /\bat (?:([\w$.<>[\] ]+?) )?\(?((?:[A-Za-z]:)?[^\s():]+\.[a-z]{1,5}):\d+(?::\d+)?\)?/g;
const GO_RUST_FRAME = /^\s*((?:[\w.-]+\/)*[\w.-]+\.(?:go|rs|java|kt|cs|rb|php|c|cc|cpp|h|hpp)):\d+/gm;
const PATH = /(?:^|[\s"'`(\[<,=])((?:\.{0,2}\/)?(?:[\w.-]+\/)*[\w-][\w.-]*\.(?:py|pyi|pyx|ts|tsx|js|jsx|mjs|cjs|java|kt|rs|go|c|h|cc|cpp|cxx|hpp|cs|rb|php|scala|swift|md|rst|toml|yaml|yml|json|cfg|ini))\b/g;
const WORD = /[A-Za-z_$][A-Za-z0-9_$]*(?:(?:\.|::|->)[A-Za-z_$][A-Za-z0-9_$]*)*(\()?/g;
const QUOTED = /"([^"\n]{2,120})"|'([^'\n]{2,120})'/g;

/** Reads a query into segments, words, path hints and weighted terms; `df` gives chunk document frequencies. */
export function analyseQuery(query: string, df: (terms: string[], cap: number) => { total: number; df: Map<string, number> }): QueryPlan {
  const text = query.length > MAX_QUERY_CHARS ? query.slice(0, MAX_QUERY_CHARS) : query;
  // Code context: spans of the text that are code (fenced, inline, frames, quoted).
  const codeSpans: [number, number][] = [];
  const frameWords = new Set<string>();
  const paths = new Map<string, number>(); // path → weight
  const mark = (re: RegExp, group = 0) => { re.lastIndex = 0; let m: RegExpExecArray | null; while ((m = re.exec(text))) { const s = m.index + (group ? m[0].indexOf(m[group]!) : 0); codeSpans.push([s, s + (m[group] ?? m[0]).length]); if (m[0].length === 0) re.lastIndex++; } };
  mark(FENCE, 1); mark(INLINE, 1); mark(QUOTED);
  for (const re of [PY_FRAME, JS_FRAME]) {
    re.lastIndex = 0; let m: RegExpExecArray | null;
    while ((m = re.exec(text))) {
      codeSpans.push([m.index, m.index + m[0].length]);
      const [file, fn] = re === PY_FRAME ? [m[1]!, m[2]] : [m[2]!, m[1]];
      addPath(paths, file, 3);
      if (fn) for (const w of fn.split(/[.<>\s[\]]+/)) if (w && !/^(anonymous|module|lambda|Object)$/.test(w)) frameWords.add(w);
    }
  }
  GO_RUST_FRAME.lastIndex = 0; { let m: RegExpExecArray | null; while ((m = GO_RUST_FRAME.exec(text))) addPath(paths, m[1]!, 2); }
  PATH.lastIndex = 0; { let m: RegExpExecArray | null; while ((m = PATH.exec(text))) addPath(paths, m[1]!, 1); }
  codeSpans.sort((a, b) => a[0] - b[0]);
  const inCode = (pos: number) => { // binary search over sorted spans (overlaps are fine: any containing span counts)
    let lo = 0, hi = codeSpans.length - 1, hit = false;
    while (lo <= hi) { const mid = (lo + hi) >> 1; if (codeSpans[mid]![0] <= pos) { if (codeSpans[mid]![1] > pos) hit = true; lo = mid + 1; } else hi = mid - 1; }
    if (hit) return true;
    for (let i = Math.min(lo, codeSpans.length) - 1, k = 0; i >= 0 && k < 8; i--, k++) if (codeSpans[i]![1] > pos) return true;
    return false;
  };

  // Words and their code-ness (a traceback's own wording blanked out: `most recent call last`, `File "…", line N, in`).
  const wordText = text.replace(TRACEBACK_WORDING, w => ' '.repeat(w.length));
  const words: Word[] = [];
  WORD.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = WORD.exec(wordText))) {
    const raw = m[0].replace(/\($/, '');
    const call = !!m[1];
    const dotted = /\.|::|->/.test(raw);
    for (const part of dotted ? raw.split(/\.|::|->/) : [raw]) {
      if (!part || part.length > 64) continue;
      const looksCode = call || dotted || /[a-z][A-Z]|[A-Z]{2,}[a-z]|_|\$|\d/.test(part) || /(Error|Exception|Warning)$/.test(part);
      words.push({ text: part, code: looksCode || inCode(m.index), frame: frameWords.has(part), pos: m.index });
    }
  }
  // test words, not identifiers that hold one (`test_parse`, `parse_test`); one pass over the words (linear)
  const testWording = text.replace(/\w+/g, w => (/^test_|_test$/.test(w) ? '' : w));
  const wantsTests = /\btests?\b|\bspec\b|\bpytest\b|\bunittest\b|\bfixture/i.test(testWording);
  const wording = textWording(text);

  // Candidate terms: whole identifiers (lower-cased, separators dropped) and their sub-words.
  interface Cand { term: string; tf: number; code: boolean; frame: boolean; compound: boolean; part: boolean; first: number; exception: boolean }
  const cands = new Map<string, Cand>();
  const add = (term: string, w: Word, compound: boolean, part: boolean) => {
    if (term.length < 2 || term.length > 64) return;
    const c = cands.get(term);
    if (c) { c.tf++; c.code ||= w.code; c.frame ||= w.frame; c.compound ||= compound; c.part &&= part; return; }
    cands.set(term, { term, tf: 1, code: w.code, frame: w.frame, compound, part, first: w.pos, exception: /(Error|Exception|Warning)$/.test(w.text) });
  };
  for (const w of words) {
    const whole = w.text.toLowerCase().replace(/[_$]/g, '');
    if (!whole) continue;
    const parts = splitIdentifier(w.text);
    const compound = parts.length > 1;
    add(whole, w, compound, false);
    if (compound) for (const p of parts) add(p, w, false, true);
  }
  // A few typed words are all meant (`undefined result`, `works`): only function words go. Longer text
  // is prose around the code: its stop words and the languages' keywords go too.
  const short = words.length <= SHORT_QUERY_WORDS;
  const all = [...cands.values()].filter(c => !/^\d+$/.test(c.term));
  const usable = all.filter(c => short
    ? !FUNCTION_WORDS.has(c.term) || c.code
    : !(KEYWORDS.has(c.term) && !c.compound) && !(PROSE_STOPWORDS.has(c.term) && !c.code));
  if (!usable.length && short) usable.push(...all); // `the` alone is still a question
  const wants = { wants_tests: wantsTests, wants_text: wording === 'asked', mentions_text: wording === 'mentioned' };
  if (!usable.length) return { terms: [], paths: [...paths.keys()], identifiers: [], ...wants, unknown: [], chars_read: text.length };
  // Document frequencies in two steps: every candidate counted up to FIRST_DF_CAP chunks, then, up to
  // SELECTION_DF_CAP, only the common ones that could still be among the MAX_TERMS heaviest (their
  // weight at the first cap is an upper bound). The choice equals counting all up to SELECTION_DF_CAP.
  const firstCap = usable.length > MAX_TERMS ? FIRST_DF_CAP : SELECTION_DF_CAP; // few terms: all are kept anyway
  const first = df(usable.map(c => c.term), firstCap);
  const N = Math.max(1, first.total);
  const idfOf = (n: number) => Math.log(1 + (N - n + 0.5) / (n + 0.5));
  const unknown: string[] = [];
  const scored = usable.flatMap(c => {
    const n = first.df.get(c.term) ?? 0;
    if (n === 0) { unknown.push(c.term); return []; } // not in the index: nothing to find
    const shape = (c.part ? 0.6 : c.compound ? 1.4 : 1) * (c.code ? 1.8 : 1) * (c.exception ? 1.3 : 1) * (c.frame ? 1.5 : 1);
    const boost = shape * (1 + Math.log(Math.min(c.tf, 20)) * 0.35);
    return [{ c, n, idf: idfOf(n), boost, score: idfOf(n) * boost }];
  });
  const exact = scored.filter(x => x.n < firstCap).map(x => x.score).sort((a, b) => b - a);
  const bar = exact.length >= MAX_TERMS ? exact[MAX_TERMS - 1]! : -Infinity;
  const refine = firstCap < SELECTION_DF_CAP ? scored.filter(x => x.n >= firstCap && x.score >= bar) : [];
  if (refine.length) {
    const second = df(refine.map(x => x.c.term), SELECTION_DF_CAP);
    for (const x of refine) { x.n = second.df.get(x.c.term) ?? x.n; x.idf = idfOf(x.n); x.score = x.idf * x.boost; }
  }
  // Short queries keep every term; long ones the most informative MAX_TERMS.
  scored.sort((a, b) => b.score - a.score || a.c.first - b.c.first);
  const top = scored.slice(0, MAX_TERMS);
  const terms = top.map(x => ({ term: x.c.term, weight: Math.round(x.boost * 1000) / 1000, code: x.c.code }));
  const identifiers = top.filter(x => x.c.code && !x.c.part && x.c.term.length >= 3).map(x => x.c.term);
  const named = [...paths].sort((a, b) => b[1] - a[1] || b[0].length - a[0].length).map(([p]) => p).slice(0, 20);
  return { terms, paths: named, identifiers, ...wants, unknown, chars_read: text.length };
}

function addPath(paths: Map<string, number>, raw: string, weight: number): void {
  let p = raw.replace(/\\/g, '/').replace(/^(\.\.?\/)+/, '').replace(/:\d+(:\d+)?$/, '');
  // Absolute paths from someone else's machine: keep the part that can be inside a repository.
  const site = p.search(/\/(site|dist)-packages\//);
  if (site >= 0) p = p.slice(site).replace(/^\/(site|dist)-packages\//, '');
  p = p.replace(/^\/+/, '');
  if (!p || p.length > 300) return;
  paths.set(p, Math.max(paths.get(p) ?? 0, weight));
}
