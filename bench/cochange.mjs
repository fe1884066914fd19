#!/usr/bin/env node
/**
 * Co-change benchmark: for held-later commits, how often the files changed together are predicted by
 * the co-change partners of one of them, mined from the commits before (precision@5 / recall@5),
 * against a naive baseline (the same directory's files, most churned first).
 *
 *   node bench/cochange.mjs [REPO_DIR ...]   (default: the mirrors of httpx, cobra and zod in the mirror folder
 *   beside the checkout, ../.mirror/<owner>+<name>/repo, or $SIGHTLINE_BENCH_MIRRORS)
 *
 * Per repository: the last 1000 non-merge commits are mined once (history/mine.ts; commits touching
 * more than 50 files are sweeping and count for nothing); the newest 100 counted commits touching 2..50
 * files are the test set, the 500 commits before them the training set (buildCoChange, as the index
 * does). For each test commit and each of its files f that has history in the training set, the
 * prediction is f's top 5 partners; the truth is the commit's other files. Needs `npm run build`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
const core = createRequire(import.meta.url)(join(here, '..', 'dist', 'core.js'));
const { mineRepository, buildCoChange } = core;

const RESERVED = /(hono|flask|gson|gin|ripgrep|rack|requests|pytest|pylint|seaborn|sphinx)/i;
const MIRRORS = process.env.SIGHTLINE_BENCH_MIRRORS ?? join(here, '..', '..', '.mirror');
const DEFAULT = ['encode+httpx', 'spf13+cobra', 'colinhacks+zod'].map(n => join(MIRRORS, n, 'repo')).filter(existsSync);
const repos = process.argv.slice(2).length ? process.argv.slice(2) : DEFAULT;
const K = 5, TEST = 100, TRAIN = 500;

function evaluate(commits) {
  const counted = commits.filter(c => !c.sweeping && !c.boundary && c.files.length > 0);
  const testIdx = [];
  for (let i = 0; i < counted.length && testIdx.length < TEST; i++) if (counted[i].files.length >= 2 && counted[i].files.length <= 50) testIdx.push(i);
  const split = testIdx.length ? testIdx[testIdx.length - 1] + 1 : 0;
  const train = counted.slice(split, split + TRAIN);
  const cc = buildCoChange(train);
  const byDir = new Map();
  for (const f of cc.files.values()) { const d = posix.dirname(f.path); if (!byDir.has(d)) byDir.set(d, []); byDir.get(d).push(f); }
  for (const l of byDir.values()) l.sort((a, b) => b.churn - a.churn || a.path.localeCompare(b.path));
  const acc = { co: { p: 0, r: 0, n: 0, hit: 0 }, dir: { p: 0, r: 0, n: 0, hit: 0 }, queries: 0, test_commits: testIdx.length, train_commits: train.length };
  for (const i of testIdx) {
    const files = [...new Set(counted[i].files.map(f => f.path))];
    for (const f of files) {
      if (!cc.files.has(f)) continue; // no history before: nothing to predict from
      const truth = new Set(files.filter(x => x !== f));
      acc.queries++;
      const score = (pred, a) => {
        const hits = pred.filter(p => truth.has(p)).length;
        a.n++; a.p += pred.length ? hits / pred.length : 0; a.r += hits / Math.min(K, truth.size); if (hits) a.hit++;
      };
      score(cc.partners(f, { limit: K }).map(p => p.path), acc.co);
      score((byDir.get(posix.dirname(f)) ?? []).filter(x => x.path !== f).slice(0, K).map(x => x.path), acc.dir);
    }
  }
  const fmt = a => ({ precision_at_5: +(a.p / Math.max(1, a.n)).toFixed(3), recall_at_5: +(a.r / Math.max(1, a.n)).toFixed(3), hit_rate: +(a.hit / Math.max(1, a.n)).toFixed(3) });
  return { test_commits: acc.test_commits, train_commits: acc.train_commits, queries: acc.queries, cochange: fmt(acc.co), same_directory: fmt(acc.dir) };
}

const rows = [];
for (const src of repos) {
  if (RESERVED.test(src)) { console.error(`skipping reserved repository ${src}`); continue; }
  const tmp = mkdtempSync(join(tmpdir(), 'sl-cochange-'));
  try {
    execFileSync('git', ['clone', '-q', '--no-checkout', src, join(tmp, 'r')], { stdio: 'ignore' });
    const t0 = performance.now();
    const m = await mineRepository(join(tmp, 'r'), { limit: 1000 });
    const ms = Math.round(performance.now() - t0);
    if (!m.ok) { console.error(`${src}: ${m.message}`); continue; }
    const r = { repo: src.replace(/^\/work\/\.mirror\//, '').replace(/\/repo$/, ''), mined: m.value.commits.length, mine_ms: ms, ...evaluate(m.value.commits) };
    rows.push(r);
    console.log(JSON.stringify(r));
  } finally { rmSync(tmp, { recursive: true, force: true }); }
}
const avg = k => rows.length ? +(rows.reduce((s, r) => s + k(r), 0) / rows.length).toFixed(3) : 0;
console.log(JSON.stringify({ mean: { cochange_p5: avg(r => r.cochange.precision_at_5), cochange_r5: avg(r => r.cochange.recall_at_5), dir_p5: avg(r => r.same_directory.precision_at_5), dir_r5: avg(r => r.same_directory.recall_at_5) } }));
