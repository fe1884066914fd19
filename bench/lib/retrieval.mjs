// Pure helpers of the retrieval-quality benchmark (bench/quality.mjs): scores, the search_code adapter,
// and reading SWE-bench Lite instances (gold files from the patch, seeded sample).
import { createRequire } from 'node:module';
import { rng } from './common.mjs';

const require = createRequire(import.meta.url);

/**
 * Files of a search_code answer, best first, each once. A `files` list ([{ path, … }]) is used when the
 * answer has one; otherwise the chunk results, a file ranked where its first chunk appears.
 */
export function filesFromSearch(data) {
  const rows = Array.isArray(data?.files) ? data.files : (data?.results ?? []);
  return [...new Set(rows.map(r => r.path))];
}

/**
 * Reciprocal rank of the first gold file, recall@1/5/10 (share of the gold files in the top k), hit@1
 * (the first file is a gold file) and the best recall@1 any ranking could reach (1 / number of gold files).
 */
export function score(ranked, gold) {
  const g = new Set(gold);
  const first = ranked.findIndex(p => g.has(p));
  const recall = k => ranked.slice(0, k).filter(p => g.has(p)).length / g.size;
  return { rank: first >= 0 ? first + 1 : null, rr: first >= 0 ? 1 / (first + 1) : 0, r1: recall(1), r5: recall(5), r10: recall(10), hit1: first === 0 ? 1 : 0, r1_max: Math.min(1, 1 / Math.max(1, g.size)) };
}

const mean = xs => xs.reduce((a, b) => a + b, 0) / (xs.length || 1);
/** Mean scores of a list of score() rows. */
export function summarize(rows) {
  return { n: rows.length, r1: mean(rows.map(r => r.r1)), r5: mean(rows.map(r => r.r5)), r10: mean(rows.map(r => r.r10)), mrr: mean(rows.map(r => r.rr)), hit1: mean(rows.map(r => r.hit1 ?? 0)), r1_max: mean(rows.map(r => r.r1_max ?? 1)) };
}

/** Nearest-rank percentile of unsorted numbers (NaN for none). */
export function pct(xs, p) {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** Seeded sample of n items (all of them when n ≥ length), in a seeded random order (Fisher–Yates). */
export function seededSample(items, n, seed) {
  const rand = rng(Number(seed) * 2654435761 + 7);
  const a = items.slice();
  for (let i = a.length - 1; i > 0; i--) { const j = Math.floor(rand() * (i + 1)); [a[i], a[j]] = [a[j], a[i]]; }
  return a.slice(0, Math.min(n, a.length));
}

const strip = (name) => (name && name !== '/dev/null' ? name.replace(/^[ab]\//, '') : null);

/**
 * Files a unified (git) diff changes, as paths that exist before it: modified and deleted files by their
 * old path, renamed files by their old path (also rename-only entries, which jsdiff's parsePatch skips);
 * files it creates are listed apart (they do not exist at the base commit).
 */
export function patchFiles(patch) {
  const { parsePatch } = require('diff');
  const before = new Set(), created = new Set();
  for (const f of parsePatch(patch)) {
    const oldPath = strip(f.oldFileName), newPath = strip(f.newFileName);
    if (oldPath) before.add(oldPath);
    else if (newPath) created.add(newPath);
  }
  for (const m of patch.matchAll(/^rename from (.+)$/gm)) before.add(m[1]);
  return { before: [...before].sort(), created: [...created].sort() };
}

/** SWE-bench instances from JSON (an array, or JSON lines), with the Lite keys either capitalised or not. */
export function readInstances(text) {
  const t = text.trim();
  const rows = t.startsWith('[') ? JSON.parse(t) : t.split('\n').filter(Boolean).map(l => JSON.parse(l));
  const get = (o, k) => o[k] ?? o[k.toLowerCase()];
  return rows.map(o => ({
    id: get(o, 'Instance_id'),
    repo: get(o, 'Repo'),
    base: get(o, 'Base_commit'),
    created_at: get(o, 'Created_at') ?? null,
    query: get(o, 'Problem_statement'),
    patch: get(o, 'Patch'),
  }));
}
