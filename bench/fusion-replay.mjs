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
//   --select-quick N: writes bench/quick-cases.json: per kind, the N cases (stratified by repository) whose MRR
//     comes closest to all cases' under the engine's values and under each setting of PERTURBATIONS, so the
//     subset tracks changes of the ranking rather than one ranking (bench:quality --quick runs them); with
//     --reports (the runs' --json), the baseline's MRR too
//   --quick FILE: each figure also on the quick subset (bench/quick-cases.json), to check that it tracks
//   --ablation: the history signals on and off (recency and commit_subjects at 0), per kind, all cases and
//     each half; with --results NAME it is written to bench/RESULTS.md as section replay-NAME
//   --explain: the cases whose gold file has text files above it
//   --siblings: the cases whose gold file ranks 2nd-5th, and the files above it (same folder or not) with their signals
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { writeResults } from './lib/results.mjs';
import { draw } from './lib/quick.mjs';
import { rng } from './lib/common.mjs';

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
  // no gate in the engine: the history signals weigh the same for every query (reports are what a gate would try)
  report_chars: Infinity, report_recency: F.recency, report_commit_subjects: F.commit_subjects,
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
const reported = all('reports').flatMap(f => JSON.parse(readFileSync(f, 'utf8')).cases);
const reportChars = new Map(reported.map(c => [c.id, c.query_chars]));
// the baseline's reciprocal rank per case (--select-quick keeps the baseline's figure too when reports are given)
const baselineRR = new Map(reported.map(c => [c.id, c.baseline?.rr ?? 0]));
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

// --quick FILE: also the subset of bench/quick-cases.json, to see whether it tracks the full set under each setting
const quickIds = all('quick').length ? new Set(Object.values(JSON.parse(readFileSync(all('quick')[0], 'utf8')).kinds).flat()) : null;

function evaluate(p) {
  const whole = evaluateOn(cases, p) + (quickIds ? ` | quick: ${evaluateOn(cases.filter(k => quickIds.has(k.id)), p)}` : '');
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

// --siblings: the cases whose gold file ranks 2nd–5th, what sits above it (a sibling: the same folder) and
// their raw signals, to see which evidence would tell them apart
if (args.includes('--siblings')) {
  const dirOf = p => p.slice(0, p.lastIndexOf('/') + 1);
  const show = r => `${r.c.path} body ${r.c.body.toFixed(2)} chunk ${r.c.chunk.toFixed(2)} name ${r.c.name.toFixed(2)} `
    + `path ${r.c.path_terms.toFixed(2)} names ${JSON.stringify(r.c.raw.names)} hist ${r.c.raw.history.toFixed(2)}`;
  let near = 0, sibling = 0;
  for (const k of cases) {
    const { ranked, rank } = ranking(k, SET);
    if (rank < 2 || rank > 5) continue;
    near++;
    const gold = ranked[rank - 1];
    const above = ranked.slice(0, rank - 1);
    const sib = above.some(r => dirOf(r.c.path) === dirOf(gold.c.path));
    if (sib) sibling++;
    console.log(`${k.kind} ${k.repo} ${k.id.slice(0, 12)} gold rank ${rank}${sib ? ' (sibling above)' : ''}`);
    for (const r of above) console.log(`   above ${show(r)}`);
    console.log(`   gold  ${show(gold)}`);
  }
  console.log(`${near} case(s) with the gold file 2nd–5th; ${sibling} with a file of its folder above it`);
}

if (args.includes('--ablation')) {
  const off = { ...ENGINE, recency: 0, commit_subjects: 0 };
  const rows = [];
  for (const kind of [...new Set(cases.map(k => k.kind))]) {
    const kc = cases.filter(k => k.kind === kind);
    for (const [part, list] of [['all', kc], ['even', half(kc, 0)], ['odd', half(kc, 1)]]) {
      const on = figures(list, ENGINE), without = figures(list, off);
      rows.push(`| ${kind} | ${part} | ${list.length} | ${on.mrr.toFixed(3)} | ${without.mrr.toFixed(3)} | ${(on.mrr - without.mrr >= 0 ? '+' : '') + (on.mrr - without.mrr).toFixed(3)} | ${on.hit1.toFixed(3)} | ${without.hit1.toFixed(3)} |`);
    }
  }
  const repos = [...new Set(cases.map(k => `${k.kind} ${k.repo}`))].join(', ');
  const text = [
    `The git-history signals (recency ${F.recency}, commit_subjects ${F.commit_subjects}) on and off, replayed over the ranking signals bench:quality recorded (${repos}); halves by case order.`,
    '',
    '| kind | cases | n | MRR with history | MRR without | difference | hit@1 with | hit@1 without |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows, '',
  ].join('\n');
  console.log(text);
  const name = all('results')[0];
  if (name) console.error(`fusion-replay: wrote ${writeResults(`replay-${name}`, `History signals per query kind (bench/fusion-replay.mjs --ablation)`, text)}`);
}

/** MRR and hit@1 of a list of cases under parameters `p`. */
function figures(list, p) {
  let rr = 0, h1 = 0;
  for (const k of list) { const { rank } = ranking(k, p); rr += rank ? 1 / rank : 0; h1 += rank === 1 ? 1 : 0; }
  return { mrr: rr / Math.max(1, list.length), hit1: h1 / Math.max(1, list.length) };
}

/** Settings a quick subset must track besides the engine's (each a change of one part of the ranking). */
const PERTURBATIONS = [
  { recency: 0 }, { commit_subjects: 0 }, { text_factor: 1 }, { test_factor: 1 }, { size_prior: 0 }, { size_prior: 0.6 },
  { auxiliary_factor: 1 }, { recency: 0, commit_subjects: 0 },
];

const selectN = Number(all('select-quick')[0] ?? 0);
if (selectN) {
  const settings = [ENGINE, ...PERTURBATIONS.map(d => ({ ...ENGINE, ...d }))];
  const kinds = {}, fit = {};
  for (const kind of [...new Set(cases.map(k => k.kind))]) {
    const kc = cases.filter(k => k.kind === kind);
    // each case's reciprocal rank under each setting, once
    const withBaseline = kc.every(k => baselineRR.has(k.id));
    const rr = new Map(kc.map(k => [k.id, [...settings.map(p => { const { rank } = ranking(k, p); return rank ? 1 / rank : 0; }),
      ...(withBaseline ? [baselineRR.get(k.id)] : [])]]));
    const mean = list => rr.get(list[0].id).map((_, j) => list.reduce((a, k) => a + rr.get(k.id)[j], 0) / list.length);
    const whole = mean(kc);
    const byRepo = new Map();
    for (const k of kc) byRepo.set(k.repo, [...(byRepo.get(k.repo) ?? []), k]);
    const rand = rng(7919 + selectN);
    let best = null, bestGap = Infinity;
    for (let i = 0; i < 20000; i++) {
      const sub = draw(byRepo, kc.length, selectN, rand);
      const m = mean(sub);
      const g = Math.max(...m.map((v, j) => Math.abs(v - whole[j])));
      if (g < bestGap) { best = sub; bestGap = g; }
    }
    kinds[kind] = best.map(k => k.id).sort();
    fit[kind] = Number(bestGap.toFixed(4));
  }
  const file = new URL('./quick-cases.json', import.meta.url);
  const of = Object.fromEntries(Object.keys(kinds).map(k => [k, cases.filter(c => c.kind === k).length]));
  writeFileSync(file, JSON.stringify({ kinds, fit, settings: settings.length, of }, null, 2) + '\n');
  console.log(`quick subset: ${Object.entries(kinds).map(([k, ids]) => `${k} ${ids.length} (largest MRR gap over ${settings.length} settings and the baseline ${fit[k]})`).join(', ')}`);
}
