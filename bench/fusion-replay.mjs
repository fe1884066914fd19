#!/usr/bin/env node
// Replays search_code's file fusion (src/core/search/files.ts) over the signals bench:quality wrote with
// --signals FILE, to tune a weight or a factor offline: per case, every candidate's normalised signals
// are fused again with the given values and the files ranked; the report is MRR and R@1 per case kind,
// for each value of the swept parameter. The first row uses the engine's own values: it must equal the
// run's MRR (a check that the replay is the fusion).
//
// usage: node bench/fusion-replay.mjs --signals FILE [--signals FILE]... [--sweep NAME=v1,v2,...]
//   NAME: text_factor, release_notes_factor, auxiliary_factor, test_factor, size_prior
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const core = require('../dist/core.js');
const args = process.argv.slice(2);
const files = args.flatMap((a, i) => (a === '--signals' ? [args[i + 1]] : []));
const sweepArg = args.flatMap((a, i) => (a === '--sweep' ? [args[i + 1]] : []))[0];
if (!files.length) { console.error('fusion-replay: --signals FILE is required'); process.exit(2); }

const F = core.FUSION;
const ENGINE = {
  text_factor: core.TEXT_FACTOR, release_notes_factor: core.RELEASE_NOTES_FACTOR, auxiliary_factor: core.AUXILIARY_FACTOR,
  test_factor: core.TEST_FACTOR, size_prior: core.SIZE_PRIOR,
};
const RELEASE_NOTES = /(?:^|\/)(?:CHANGELOG|CHANGES|HISTORY|NEWS|RELEASE[-_]?NOTES)(?:\.[\w]+)?$/i;

/** One file's fused score, as searchFiles computes it (include_tests: false). */
function fuse(c, p) {
  const textDown = !c.wants_text;
  const of = v => (c.text && textDown ? Math.min(1, v) : v);
  let score = F.bm25_file * of(c.body) + F.bm25_chunk * of(c.chunk) + F.name * of(c.name) + F.path * of(c.path_terms)
    + F.path_hint * c.hint + F.recency * c.raw.recent + F.commit_subjects * of(c.raw.history) + p.size_prior * Math.log1p(c.lines) / 10;
  if (c.test) score *= c.wants_tests ? core.TEST_FACTOR_MENTIONED : p.test_factor;
  else if (!c.hint && core.isAuxiliaryPath(c.path) && !(c.text && c.wants_text)) score *= p.auxiliary_factor;
  if (!c.hint && textDown && c.text) score *= RELEASE_NOTES.test(c.path) ? p.text_factor * p.release_notes_factor : p.text_factor;
  return Math.round(score * 10000) / 10000;
}

const cases = files.flatMap(f => readFileSync(f, 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l)));
function evaluate(p) {
  const by = new Map();
  for (const k of cases) {
    const ranked = k.candidates.map(c => ({ path: c.path, s: fuse(c, p) })).sort((a, b) => b.s - a.s || a.path.localeCompare(b.path));
    const rank = ranked.findIndex(r => k.gold.includes(r.path)) + 1;
    const g = by.get(k.kind) ?? { n: 0, rr: 0, r1: 0 };
    g.n++; g.rr += rank ? 1 / rank : 0; g.r1 += rank === 1 ? 1 : 0;
    by.set(k.kind, g);
  }
  return [...by].map(([kind, g]) => `${kind} ${g.n}: MRR ${(g.rr / g.n).toFixed(3)} hit@1 ${(g.r1 / g.n).toFixed(3)}`).join(' · ');
}

console.log(`engine values: ${evaluate(ENGINE)}`);
if (sweepArg) {
  const [name, list] = sweepArg.split('=');
  if (!(name in ENGINE)) { console.error(`fusion-replay: unknown parameter ${name}`); process.exit(2); }
  for (const v of list.split(',').map(Number)) console.log(`${name} ${v}: ${evaluate({ ...ENGINE, [name]: v })}`);
}
