#!/usr/bin/env node
// Replays search_code's file fusion (src/core/search/files.ts) over the signals bench:quality wrote with
// --signals FILE, to tune a weight or a factor offline: per case, every candidate's normalised signals
// are fused again with the given values and the files ranked; the report is MRR and hit@1 per case kind,
// for each value of the swept parameter. The first row uses the engine's own values: it equals the run's
// MRR (the check that the replay is the fusion).
//
// usage: node bench/fusion-replay.mjs --signals FILE [--signals FILE]... [--queries CASES.jsonl]...
//          [--changed FILE] [--reports FILE]... [--set NAME=V]... [--sweep NAME=v1,v2,...] [--explain] [--halves]
//   NAME: text_factor, text_factor_mentioned, release_notes_factor, auxiliary_factor, test_factor,
//         size_prior, wording (recorded: as the run judged each query; engine: query.ts textWording
//         again, needs --queries, the make-cases files; any: every text word asks, as before 0.1.0),
//         code_first (1: a text file the query does not ask for comes after the best code file; not used)
//         recency, commit_subjects (the history signals' weights), report_chars (a query longer than this is
//         a report: an issue, a traceback), report_recency, report_commit_subjects (their weights for reports)
//   --changed FILE: JSON lines {id, changed: [paths]}: a case's gold is every file its commit changed
//   --reports FILE: bench:quality --json reports, for the query lengths of signals that lack them
//   --explain: the cases whose gold file has text files above it
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const core = require('../dist/core.js');
const args = process.argv.slice(2);
const all = name => args.flatMap((a, i) => (a === `--${name}` ? [args[i + 1]] : []));
const jsonLines = files => files.flatMap(f => readFileSync(f, 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l)));
if (!all('signals').length) { console.error('fusion-replay: --signals FILE is required'); process.exit(2); }

const F = core.FUSION;
const ENGINE = {
  text_factor: core.TEXT_FACTOR, text_factor_mentioned: core.TEXT_FACTOR_MENTIONED, release_notes_factor: core.RELEASE_NOTES_FACTOR,
  auxiliary_factor: core.AUXILIARY_FACTOR, test_factor: core.TEST_FACTOR, size_prior: core.SIZE_PRIOR, wording: 'recorded', code_first: 0,
  recency: F.recency, commit_subjects: F.commit_subjects,
  report_chars: core.REPORT_CHARS ?? Infinity, report_recency: core.REPORT_HISTORY?.recency ?? F.recency,
  report_commit_subjects: core.REPORT_HISTORY?.commit_subjects ?? F.commit_subjects,
};
const value = v => (Number.isNaN(Number(v)) ? v : Number(v));
const SET = { ...ENGINE, ...Object.fromEntries(all('set').map(s => s.split('=')).map(([k, v]) => [k, value(v)])) };
for (const k of Object.keys(SET)) if (!(k in ENGINE)) { console.error(`fusion-replay: unknown parameter ${k}`); process.exit(2); }
const RELEASE_NOTES = /(?:^|\/)(?:CHANGELOG|CHANGES|HISTORY|NEWS|RELEASE[-_]?NOTES)(?:\.[\w]+)?$/i;
const SIGNALS = ['body', 'chunk', 'name', 'path_terms'];

const cases = jsonLines(all('signals'));
const queries = new Map(jsonLines(all('queries')).map(c => [c.commit, c.query]));
const changed = new Map(jsonLines(all('changed')).map(c => [c.id, c.changed]));
// query lengths of signals written before they carried one: from the runs' --json reports
const reportChars = new Map(all('reports').flatMap(f => JSON.parse(readFileSync(f, 'utf8')).cases.map(c => [c.id, c.query_chars])));
const charsOf = k => k.query_chars ?? reportChars.get(k.id) ?? 0;

/** How a case's query asks for text: asked (ranked as code), mentioned, no. */
function modeOf(k, wording) {
  if (wording === 'recorded' || !queries.has(k.id)) return k.candidates[0]?.text_mode ?? (k.candidates[0]?.wants_text ? 'asked' : 'no');
  const w = core.textWording(queries.get(k.id));
  return wording === 'any' ? (w === 'no' ? 'no' : 'asked') : w;
}

/**
 * Each signal scaled by its largest value among the files that rank at full weight (all, or code alone when
 * text is pushed down), as searchFiles does; the recorded values are already scaled once, so ratios suffice.
 */
function rescale(cands, textDown) {
  const scale = textDown && cands.some(c => !c.text) ? cands.filter(c => !c.text) : cands;
  const max = get => Math.max(1e-9, ...scale.map(get));
  const m = Object.fromEntries(SIGNALS.map(k => [k, max(c => c[k])]));
  const mh = max(c => c.raw.history);
  return cands.map(c => ({ ...c, ...Object.fromEntries(SIGNALS.map(k => [k, c[k] / m[k]])), history: c.raw.history / mh }));
}

/** One file's fused score, as searchFiles computes it (include_tests: false). */
function fuse(c, p, mode, chars) {
  const textDown = mode !== 'asked';
  const report = chars > p.report_chars;
  const [wRecency, wSubjects] = report ? [p.report_recency, p.report_commit_subjects] : [p.recency, p.commit_subjects];
  const of = v => (c.text && textDown ? Math.min(1, v) : v);
  let score = F.bm25_file * of(c.body) + F.bm25_chunk * of(c.chunk) + F.name * of(c.name) + F.path * of(c.path_terms)
    + F.path_hint * c.hint + wRecency * c.raw.recent + wSubjects * of(c.history) + p.size_prior * Math.log1p(c.lines) / 10;
  if (c.test) score *= c.wants_tests ? core.TEST_FACTOR_MENTIONED : p.test_factor;
  else if (!c.hint && core.isAuxiliaryPath(c.path) && !(c.text && mode !== 'no')) score *= p.auxiliary_factor;
  if (!c.hint && textDown && c.text) score *= (mode === 'mentioned' ? p.text_factor_mentioned : p.text_factor) * (RELEASE_NOTES.test(c.path) ? p.release_notes_factor : 1);
  return Math.round(score * 10000) / 10000;
}

function ranking(k, p) {
  const mode = modeOf(k, p.wording);
  let scored = rescale(k.candidates, mode !== 'asked').map(c => ({ c, s: fuse(c, p, mode, charsOf(k)) }));
  if (p.code_first && mode !== 'asked') {
    // a text file not asked for comes after the best code file (unless named)
    const top = Math.max(0, ...scored.filter(x => !x.c.text).map(x => x.s));
    scored = scored.map(x => (x.c.text && !x.c.hint && x.s >= top ? { ...x, s: top - 1e-6 } : x));
  }
  const ranked = scored.sort((a, b) => b.s - a.s || a.c.path.localeCompare(b.c.path));
  const gold = changed.get(k.id) ?? k.gold;
  return { mode, ranked, rank: ranked.findIndex(r => gold.includes(r.c.path)) + 1 };
}

/** The cases, or one half of them by their order in the signals files (`--halves`: tune on one, check on the other). */
const halves = args.includes('--halves') ? [['even', 0], ['odd', 1]] : [];
const half = (list, h) => list.filter((_, i) => i % 2 === h);

function evaluate(p) {
  const whole = evaluateOn(cases, p);
  return halves.length ? `${whole} | ${halves.map(([n, h]) => `${n}: ${evaluateOn(half(cases, h), p)}`).join(' | ')}` : whole;
}

function evaluateOn(list, p) {
  const by = new Map();
  for (const k of list) {
    const { rank } = ranking(k, p);
    const g = by.get(k.kind) ?? { n: 0, rr: 0, r1: 0 };
    g.n++; g.rr += rank ? 1 / rank : 0; g.r1 += rank === 1 ? 1 : 0;
    by.set(k.kind, g);
  }
  return [...by].map(([kind, g]) => `${kind} ${g.n}: MRR ${(g.rr / g.n).toFixed(3)} hit@1 ${(g.r1 / g.n).toFixed(3)}`).join(' · ');
}

console.log(`engine values: ${evaluate(ENGINE)}`);
if (all('set').length) console.log(`with --set: ${evaluate(SET)}`);
const sweep = all('sweep')[0];
if (sweep) {
  const [name, list] = sweep.split('=');
  if (!(name in ENGINE)) { console.error(`fusion-replay: unknown parameter ${name}`); process.exit(2); }
  for (const v of list.split(',')) console.log(`${name} ${v}: ${evaluate({ ...SET, [name]: value(v) })}`);
}
if (args.includes('--explain')) {
  for (const k of cases) {
    const { mode, ranked, rank } = ranking(k, SET);
    const above = ranked.slice(0, Math.max(0, rank - 1)).filter(r => r.c.text);
    if (above.length) console.log(`${k.repo} ${k.id.slice(0, 8)} (${mode}) gold rank ${rank}: ${above.map(r => `${r.c.path}${r.c.hint ? ' (named)' : ''}`).join(', ')}`);
  }
}
