#!/usr/bin/env node
// Retrieval quality: commit localization. For each case (query = commit message, gold = files the commit
// changed), the repository is checked out at the parent commit, indexed (incrementally, case after case),
// and search_code is asked the message. Files are ranked by their first chunk in the results. The same
// run computes a plain BM25-over-whole-files baseline (one document per file, plain word tokens, no
// identifier splitting, no field weights) on the same files. Scores: recall@1/5/10 and MRR.
//
// usage: npm run bench:quality [-- --repo NAME=GITDIR]... [--max 60] [--seed 1] [--vector] [--json FILE]
// Default repositories: the public ones listed in bench/README.md, fetched beside the project.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const core = require('../dist/core.js');
const initSqlJs = require('sql.js');

const MIRRORS = process.env.SIGHTLINE_BENCH_MIRRORS ?? resolve(here, '..', '..', '.mirror');
const DEFAULT_REPOS = { zod: 'colinhacks+zod', httpx: 'encode+httpx', cobra: 'spf13+cobra', clap: 'clap-rs+clap', jsoup: 'jhy+jsoup' };

const args = process.argv.slice(2);
const opt = (name, d) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : d; };
const repos = args.flatMap((a, i) => (a === '--repo' ? [args[i + 1]] : [])).map(s => s.split('='));
const targets = repos.length ? repos : Object.entries(DEFAULT_REPOS).map(([n, m]) => [n, join(MIRRORS, m, 'repo')]);
const MAX = Number(opt('max', '60'));
const SEED = opt('seed', '1');
const VECTOR = args.includes('--vector');
const JSON_OUT = opt('json');

for (const [name, gitDir] of targets) {
  if (!existsSync(gitDir)) { console.error(`bench:quality: repository ${name} not found at ${gitDir} (see bench/README.md to fetch it)`); process.exit(2); }
}

const git = (cwd, ...a) => execFileSync('git', a, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] });
const SQL = await initSqlJs({ locateFile: f => join(here, '..', 'dist', f) });

/** The baseline: whole files, plain tokens, one BM25 column. Kept incrementally in memory. */
class Baseline {
  constructor() {
    this.db = new SQL.Database();
    this.db.run('CREATE VIRTUAL TABLE docs USING fts4(body, tokenize=simple)');
    this.db.create_function('bm25', (mi) => core.bm25(mi, [1]));
    this.ids = new Map(); this.hash = new Map(); this.next = 1;
  }
  sync(files) {
    const seen = new Set();
    this.db.run('BEGIN');
    for (const f of files) {
      seen.add(f.path);
      const text = readFileSync(f.abs, 'utf8');
      const h = `${f.size}:${text.length}:${text.slice(0, 64)}:${text.slice(-64)}`;
      if (this.hash.get(f.path) === h) continue;
      const old = this.ids.get(f.path);
      if (old) this.db.run('DELETE FROM docs WHERE docid = ?', [old]);
      const id = this.next++;
      this.db.run('INSERT INTO docs (docid, body) VALUES (?, ?)', [id, text]);
      this.ids.set(f.path, id); this.hash.set(f.path, h);
    }
    for (const [p, id] of this.ids) if (!seen.has(p)) { this.db.run('DELETE FROM docs WHERE docid = ?', [id]); this.ids.delete(p); this.hash.delete(p); }
    this.db.run('COMMIT');
    this.byId = new Map([...this.ids].map(([p, id]) => [id, p]));
  }
  rank(query) {
    const words = [...new Set((query.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter(w => !core.STOPWORDS.has(w)))].slice(0, 64);
    if (!words.length) return [];
    const res = this.db.exec("SELECT docid, bm25(matchinfo(docs, 'pcnalx')) AS s FROM docs WHERE docs MATCH ? ORDER BY s DESC LIMIT 100", [words.join(' OR ')]);
    return res.length ? res[0].values.map(v => this.byId.get(v[0])) : [];
  }
}

function score(ranked, gold) {
  const g = new Set(gold);
  const first = ranked.findIndex(p => g.has(p));
  const recall = k => ranked.slice(0, k).filter(p => g.has(p)).length / g.size;
  return { rr: first >= 0 ? 1 / (first + 1) : 0, r1: recall(1), r5: recall(5), r10: recall(10) };
}
const mean = xs => xs.reduce((a, b) => a + b, 0) / (xs.length || 1);
const summarize = rows => ({ n: rows.length, r1: mean(rows.map(r => r.r1)), r5: mean(rows.map(r => r.r5)), r10: mean(rows.map(r => r.r10)), mrr: mean(rows.map(r => r.rr)) });

const results = [];
const work = mkdtempSync(join(tmpdir(), 'sightline-quality-'));
try {
  for (const [name, gitDir] of targets) {
    const casesFile = join(work, `${name}.jsonl`);
    execFileSync(process.execPath, [join(here, 'make-cases.mjs'), '--repo', gitDir, '--name', name, '--out', casesFile, '--max', String(MAX), '--seed', SEED], { stdio: ['ignore', 'ignore', 'ignore'] });
    const cases = readFileSync(casesFile, 'utf8').trim().split('\n').filter(Boolean).map(l => JSON.parse(l));
    const tree = join(work, name);
    execFileSync('git', ['clone', '-q', '--shared', '--no-checkout', gitDir, tree], { stdio: 'ignore' });
    const engine = await core.Engine.open({ roots: [tree], dbPath: join(work, `${name}.sqlite`) });
    const baseline = new Baseline();
    const ours = [], base = [];
    const t0 = Date.now();
    for (const c of cases) {
      git(tree, 'checkout', '-q', '-f', '--detach', c.parent);
      git(tree, 'clean', '-q', '-f', '-d', '-x');
      await engine.index();
      const walked = await core.walk(tree, { excludes: [], languages: null, maxFileBytes: engine.settings.max_file_bytes });
      baseline.sync(walked.files);
      const out = await core.invokeTool(core.TOOLS.search_code, { query: c.query, limit: 100, vector: VECTOR }, { engine });
      if (!out.ok) throw new Error(JSON.stringify(out.error));
      const files = [...new Set(out.data.results.map(r => r.path))];
      ours.push(score(files, c.gold));
      base.push(score(baseline.rank(c.query), c.gold));
    }
    engine.close();
    results.push({ repo: name, language: [...new Set(cases.flatMap(c => c.gold.map(p => core.languageForPath(p))))].join('/'), ours: summarize(ours), baseline: summarize(base), seconds: (Date.now() - t0) / 1000 });
    console.error(`${name}: ${cases.length} cases in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const f = x => x.toFixed(3);
const all = (k) => { const rows = results.map(r => r[k]); const n = rows.reduce((a, r) => a + r.n, 0); const w = m => rows.reduce((a, r) => a + r[m] * r.n, 0) / n; return { n, r1: w('r1'), r5: w('r5'), r10: w('r10'), mrr: w('mrr') }; };
const lines = ['| repo | lang | cases | ours R@1 | R@5 | R@10 | MRR | baseline R@1 | R@5 | R@10 | MRR |', '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |'];
for (const r of results) lines.push(`| ${r.repo} | ${r.language} | ${r.ours.n} | ${f(r.ours.r1)} | ${f(r.ours.r5)} | ${f(r.ours.r10)} | **${f(r.ours.mrr)}** | ${f(r.baseline.r1)} | ${f(r.baseline.r5)} | ${f(r.baseline.r10)} | ${f(r.baseline.mrr)} |`);
const O = all('ours'), B = all('baseline');
lines.push(`| **all** | | ${O.n} | ${f(O.r1)} | ${f(O.r5)} | ${f(O.r10)} | **${f(O.mrr)}** | ${f(B.r1)} | ${f(B.r5)} | ${f(B.r10)} | ${f(B.mrr)} |`);
console.log(`search_code${VECTOR ? ' (vector: true)' : ''} vs plain BM25 over whole files — commit localization, seed ${SEED}`);
console.log(lines.join('\n'));
const verdict = O.mrr > B.mrr ? 'PASS' : 'FAIL';
console.log(`${verdict}: MRR ${f(O.mrr)} vs baseline ${f(B.mrr)} (${O.mrr > B.mrr ? '+' : ''}${f(O.mrr - B.mrr)})`);
if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify({ seed: SEED, vector: VECTOR, results, all: { ours: O, baseline: B } }, null, 2));
process.exitCode = verdict === 'PASS' ? 0 : 1;
