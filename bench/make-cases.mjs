#!/usr/bin/env node
// Mine a repository's git history for commit-localization cases.
//
// Usage:
//   node bench/make-cases.mjs --repo <git dir or work tree> --name <label> --out <file.jsonl>
//        [--max 60] [--seed 1] [--window 2000] [--ref HEAD] [--exclude <regex>]...
//
// A case is a non-merge commit whose cleaned message (subject + body) has at least
// 4 words and which modifies 1..4 non-test source files (supported extensions),
// without adding or deleting any non-test source file. The query is the cleaned
// message; the gold set is the modified non-test source files, as paths in the
// parent commit (each checked to exist there). Output is one JSON object per line:
//   {"repo","commit","parent","query","gold","tests"}
// ("tests" lists modified test source files at the parent; informational only.)
//
// --gold text mines doc/config cases instead: a commit that modifies 1..3 text files (docs, configuration,
// SQL, Dockerfiles, Terraform: not source, not a changelog, not a lock file) and no source or test file;
// the gold set is those text files. Commit subjects that say "docs:" are kept (they are the point here).
//
// Sampling is deterministic for a given seed: eligible commits from the most recent
// --window non-merge commits are split, in history order, into --max equal strata and
// one commit is drawn from each stratum, so the sample is spread across the window.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { rng } from './lib/common.mjs';

// ---------- arguments ----------
function parseArgs(argv) {
  const opts = { max: 60, seed: 1, window: 2000, ref: 'HEAD', exclude: [], maxQueryChars: 2000, gold: 'source' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) die(`missing value for ${a}`);
      return argv[++i];
    };
    switch (a) {
      case '--repo': opts.repo = next(); break;
      case '--name': opts.name = next(); break;
      case '--out': opts.out = next(); break;
      case '--max': opts.max = toInt(next(), a); break;
      case '--seed': opts.seed = toInt(next(), a); break;
      case '--window': opts.window = toInt(next(), a); break;
      case '--ref': opts.ref = next(); break;
      case '--exclude': opts.exclude.push(new RegExp(next())); break;
      case '--max-query-chars': opts.maxQueryChars = toInt(next(), a); break;
      case '--gold': opts.gold = next(); if (!['source', 'text'].includes(opts.gold)) die(`--gold source|text, got ${opts.gold}`); break;
      case '-h': case '--help': usage(0); break;
      default: die(`unknown argument: ${a}`);
    }
  }
  if (!opts.repo || !opts.name || !opts.out) usage(2);
  return opts;
}
function toInt(s, flag) {
  const n = Number.parseInt(s, 10);
  if (!Number.isFinite(n) || n < 0) die(`bad integer for ${flag}: ${s}`);
  return n;
}
function usage(code) {
  process.stderr.write('usage: make-cases.mjs --repo <git dir|work tree> --name <label> --out <file.jsonl> ' +
    '[--max 60] [--seed 1] [--window 2000] [--ref HEAD] [--exclude <regex>]... [--max-query-chars 2000] [--gold source|text]\n');
  process.exit(code);
}
function die(msg) {
  process.stderr.write(`make-cases: ${msg}\n`);
  process.exit(2);
}

// ---------- git ----------
function gitDirArgs(repo) {
  const p = resolve(repo);
  if (!existsSync(p) || !statSync(p).isDirectory()) die(`not a directory: ${repo}`);
  // A work tree (has .git file/dir) or a bare git dir: `git -C` handles both.
  return ['-C', p, '-c', 'core.quotePath=false'];
}
function git(base, args, input) {
  return execFileSync('git', [...base, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    input,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
}

// ---------- file classification ----------
const SOURCE_EXT = /\.(ts|tsx|js|mjs|cjs|jsx|py|java|rs|go|c|h|cc|cpp|hpp|cs|rb|php|kt|kts|scala|swift|dart|lua|ex|exs)$/i;
const LANG = {
  ts: 'ts', tsx: 'ts', js: 'js', mjs: 'js', cjs: 'js', jsx: 'js', py: 'py', java: 'java', rs: 'rust',
  go: 'go', c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', hpp: 'cpp', cs: 'cs', rb: 'ruby', php: 'php',
  kt: 'kotlin', kts: 'kotlin', scala: 'scala', swift: 'swift', dart: 'dart', lua: 'lua', ex: 'elixir', exs: 'elixir',
};
const TEST_DIR = /(^|\/)(tests?|__tests__|__mocks__|specs?|testing|testdata|test-data|fixtures?|__snapshots__|e2e|src\/test)\//i;
const TEST_FILE = [
  /(^|\/)test_[^/]*\.py$/i, /_tests?\.py$/i, /(^|\/)conftest\.py$/i,
  /_test\.go$/i,
  /\.(test|spec|bench)\.[cm]?[jt]sx?$/i, /\.test-d\.ts$/i,
  /(Test|Tests|TestCase|IT)\.java$/,
  /_(test|spec)\.rb$/i,
  /Tests?\.cs$/, /Test\.php$/,
  /Tests?\.kts?$/, /(Spec|Suite|Tests?)\.scala$/, /Tests?\.swift$/, /_test\.dart$/, /_spec\.lua$/, /_test\.exs$/,
];
// Documentation, examples in docs, generated or vendored code: not counted as source.
const NON_SOURCE_DIR = /(^|\/)(docs?|docs_src|documentation|site|website|vendor|vendored|third_party|node_modules|dist|build|target|\.github)\//i;
// Build/config scripts and scratch files: real code, but not what a commit message describes.
const NON_SOURCE_FILE = [
  /(^|\/)(setup|noxfile|tasks|fabfile|conf)\.py$/i,
  /(^|\/)(play|playground|scratch|sandbox)\.[cm]?[jt]sx?$/i,
  /\.config\.[cm]?[jt]s$/i, /(^|\/)\.[\w-]+rc\.[cm]?js$/i,
  /(^|\/)(gruntfile|gulpfile|jakefile|rakefile)\.[cm]?js$/i,
];

// Docs and configuration a person writes (for --gold text); release notes and lock files are not.
const TEXT_FILE = /\.(md|markdown|mdx|rst|txt|adoc|ya?ml|toml|json|ini|cfg|conf|properties|sql|tf|hcl)$|(^|\/)(Dockerfile|Makefile)[^/]*$/i;
const NOT_TEXT = /(^|\/)(CHANGELOG|CHANGES|HISTORY|NEWS|RELEASE[-_]?NOTES|AUTHORS|CONTRIBUTORS)[^/]*$|(^|\/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|Cargo\.lock|poetry\.lock|go\.sum)$|(^|\/)(tests?|__tests__|fixtures?|testdata|__snapshots__)\//i;

function classify(path, exclude) {
  if (!SOURCE_EXT.test(path)) return TEXT_FILE.test(path) && !NOT_TEXT.test(path) && !exclude.some((re) => re.test(path)) ? 'text' : 'other';
  if (exclude.some((re) => re.test(path))) return 'other';
  if (NON_SOURCE_DIR.test(path) || NON_SOURCE_FILE.some((re) => re.test(path))) return 'other';
  if (/\.d\.ts$/.test(path) && /(^|\/)(generated|gen)\//.test(path)) return 'other';
  if (TEST_DIR.test(path) || TEST_FILE.some((re) => re.test(path))) return 'test';
  return 'source';
}

// ---------- message handling ----------
const SKIP_SUBJECT = [
  [/^merge\b/i, 'merge'],
  [/^"?revert\b/i, 'revert'],
  [/^((chore|build|ci|release)(\([^)]*\))?!?:\s*)?(release|releasing|cut (a )?release|prepare (for )?(the )?(next )?(release|version|v?\d))\b/i, 'release'],
  [/\brelease (notes|v?\d)/i, 'release'],
  [/^v?\d+(\.\d+)+\S*(\s|$)/i, 'version-bump'],
  [/^((chore|build)(\([^)]*\))?!?:\s*)?bump(ed|ing|s)?\b/i, 'version-bump'],
  [/\bbump(ed|ing|s)? (the )?(version|deps|dependenc|\S+ (from|to) v?\d)/i, 'version-bump'],
  [/\b(update|set|change|increment) (the )?version\b/i, 'version-bump'],
  [/\bversion (to )?v?\d+(\.\d+)+/i, 'version-bump'],
  [/^(chore|build|fix|ci)\((deps|deps-dev|release|version)\)/i, 'version-bump'],
  [/\bdependabot\b|\brenovate\b/i, 'version-bump'],
  [/\btypos?\b|\bspelling\b|\bmisspell/i, 'typo'],
  [/\b(cargo fmt|rustfmt|gofmt|goimports|clang-format|autopep8|yapf|ruff format|biome format)\b/i, 'formatting'],
  [/\b(run|apply|ran|applied|format(ted)? with|reformat(ted)? with) (the )?(black|isort|prettier|formatter|linter|autoformatter|format|fmt|code style)\b/i, 'formatting'],
  [/^(style|fmt|reformat|reformatted|whitespace|lint)\b/i, 'formatting'],
  [/^(style|chore|refactor)(\([^)]*\))?!?:\s*(format|fmt|lint|reformat|whitespace|prettier|black)\b/i, 'formatting'],
  [/^(format|formatting|code style|fix (lint|linting|linter|formatting|code style)|lint fix(es)?)(\s*(only|fixes|fix|issues|errors|warnings|changes|code|files|\.)?)*$/i, 'formatting'],
  [/\bclippy\b/i, 'formatting'],
  [/^(docs?|tests?|ci|build|style|chore\((ci|build|docs?|tests?)\))(\([^)]*\))?!?:/i, 'docs/test/ci-only'],
];

const TRAILER = /^\s*(signed-off-by|co-authored-by|co-authored|reviewed-by|acked-by|tested-by|reported-by|suggested-by|helped-by|cc|change-id|fixes|closes|closed|resolves|resolved|references|refs|ref|see-also|pr|pull-request|issue|bug|link|backport-of|cherry-picked from|\(cherry picked from)\b[^\n]*$/i;

// Squash-merge bullets that carry no information ("* wip", "* fix tests", "* Merge branch ...").
const JUNK_BULLET = /^(wip|checkpoint|fix(es|ed)?|lint|linting|format(ting)?|fmt|typos?|cleanup|clean ?up|tweak(s)?|update|updates|refactor|review|address(ed)? (review|feedback|comments).*|apply suggestions? from code review.*|merge (branch|remote-tracking branch|pull request).*|update (tests?|snapshots?|docs?|readme|changelog).*|add (a )?(tests?|changelog( entry)?)|(fix|update|add) (the )?(tests?|test cases?|typing|types|lint errors?|formatting|mypy|coverage))\W*$/i;
const DANGLING_REF = /^(related to|relates to|see( also)?|fixes|fixed|closes|closed|resolves|refs?|improves|follow-?up (to|of)|part of|for|from)\W*$/i;

function cleanMessage(raw, maxChars) {
  let text = raw.replace(/\r\n?/g, '\n');
  text = text.replace(/<!--[\s\S]*?-->/g, ' '); // PR-template comments
  const norm = (s) => s.toLowerCase().replace(/\(#\d+\)/g, '').replace(/[^a-z0-9]+/g, ' ').trim();
  let subjectSeen = false, subjectNorm = '';
  const lines = [];
  for (const line of text.split('\n')) {
    if (TRAILER.test(line)) continue;
    if (!subjectSeen && line.trim()) { subjectSeen = true; subjectNorm = norm(line); lines.push(line); continue; }
    const bullet = line.match(/^\s*[*-]\s+(.*)$/);
    if (bullet) {
      const b = bullet[1].trim();
      if (norm(b) === subjectNorm || JUNK_BULLET.test(b) || wordCount(b) < 2) continue;
    }
    lines.push(line);
  }
  text = lines.join('\n');
  text = text.replace(/\bhttps?:\/\/\S+/gi, ' ').replace(/\bwww\.\S+/gi, ' '); // URLs
  text = text.replace(/\[(skip ci|ci skip|no ci)\]/gi, ' ');
  // Issue / PR references: (#1234), (fixes #12, #13), gh-123, owner/repo#12, #1234
  text = text.replace(/\(\s*(?:(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|see|refs?|re|pr|issue)\s*:?\s*)?(?:[\w.-]+\/[\w.-]+)?#\d+(?:\s*[,&]?\s*(?:and\s+)?#\d+)*\s*\)/gi, ' ');
  text = text.replace(/\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|refs?|see)\s*:?\s+(?:[\w.-]+\/[\w.-]+)?#\d+(?:\s*[,&]?\s*(?:and\s+)?#\d+)*/gi, ' ');
  text = text.replace(/(?:[\w.-]+\/[\w.-]+)?#\d+\b/g, ' ');
  text = text.replace(/\bgh-\d+\b/gi, ' ');
  text = text.replace(/\bthis reverts commit [0-9a-f]{7,40}\.?/gi, ' ').replace(/\bI?[0-9a-f]{40}\b/g, ' ');
  text = text.split('\n').filter((line) => !DANGLING_REF.test(line.trim())).join('\n');
  text = text.replace(/\b(related to|relates to|see|improves|fixes|closes|resolves|refs?)\s*\.?\s*$/i, '');
  // Squash-merge bullet lists and markdown rules: keep text, drop decoration.
  text = text.replace(/^\s*[-*]{3,}\s*$/gm, ' ');
  text = text.replace(/\s+/g, ' ').trim();
  text = text.replace(/\s+([.,;:])(?=\s|$)/g, '$1').replace(/[\s:;,-]+$/, '').trim();
  if (text.length > maxChars) {
    const cut = text.slice(0, maxChars);
    const sp = cut.lastIndexOf(' ');
    text = (sp > maxChars * 0.6 ? cut.slice(0, sp) : cut).trim();
  }
  return text;
}
function wordCount(text) {
  return (text.match(/[A-Za-z][A-Za-z0-9_'.-]*/g) || []).length;
}

// ---------- sampling ----------
function stratifiedSample(items, k, seed) {
  if (items.length <= k) return items.slice();
  const rand = rng(seed * 2654435761 + 1);
  const picked = [];
  for (let s = 0; s < k; s++) {
    const lo = Math.floor((s * items.length) / k);
    const hi = Math.floor(((s + 1) * items.length) / k);
    picked.push(items[lo + Math.floor(rand() * (hi - lo))]);
  }
  return picked;
}

// ---------- main ----------
function main() {
  const opts = parseArgs(process.argv.slice(2));
  const base = gitDirArgs(opts.repo);
  git(base, ['rev-parse', '--verify', `${opts.ref}^{commit}`]);

  const RS = '\x1e', US = '\x1f';
  const log = git(base, [
    'log', `-n${opts.window}`, '--no-merges', '--no-renames', '--topo-order',
    `--format=${RS}%H${US}%P${US}%B${US}`, '--name-status', opts.ref, '--',
  ]);
  const records = log.split(RS).slice(1);

  const reasons = new Map();
  const reject = (r) => reasons.set(r, (reasons.get(r) || 0) + 1);
  const eligible = [];
  const seenQueries = new Set();

  for (const rec of records) {
    const [sha, parents, body, changes = ''] = rec.split(US);
    const parentList = parents.trim().split(/\s+/).filter(Boolean);
    if (parentList.length !== 1) { reject(parentList.length === 0 ? 'root-commit' : 'merge'); continue; }
    const subject = body.split('\n').find((l) => l.trim()) || '';
    const skip = SKIP_SUBJECT.find(([re, why]) => re.test(subject) && !(opts.gold === 'text' && why === 'docs/test/ci-only'));
    if (skip) { reject(`message:${skip[1]}`); continue; }

    const modified = [], tests = [], texts = [];
    let addDelSource = false, weird = false, nSource = 0, nTest = 0;
    for (const line of changes.split('\n')) {
      if (!line.trim()) continue;
      const [status, path] = line.split('\t');
      if (!path || path.startsWith('"')) { weird = true; continue; }
      const kind = classify(path, opts.exclude);
      if (kind === 'other') continue;
      if (kind === 'text') { if (status[0] === 'M') texts.push(path); continue; }
      if (kind === 'test') nTest++;
      if (kind === 'source') nSource++;
      const st = status[0];
      if (st === 'M') (kind === 'source' ? modified : tests).push(path);
      else if (kind === 'source' && (st === 'A' || st === 'D' || st === 'T' || st === 'C' || st === 'R')) addDelSource = true;
    }
    if (weird) { reject('quoted-path'); continue; }
    if (opts.gold === 'text') {
      if (nSource + nTest > 0) { reject('changes source or tests'); continue; }
      if (texts.length < 1 || texts.length > 3) { reject('modifies 0 or >3 text files'); continue; }
      const query = cleanMessage(body, opts.maxQueryChars);
      if (wordCount(query) < 4) { reject('message<4 words'); continue; }
      if (seenQueries.has(query.toLowerCase())) { reject('duplicate-message'); continue; }
      seenQueries.add(query.toLowerCase());
      eligible.push({ repo: opts.name, commit: sha, parent: parentList[0], query, gold: texts.sort(), tests: [] });
      continue;
    }
    if (nSource === 0) { reject('no-source-change (tests/docs/other only)'); continue; }
    if (addDelSource) { reject('adds/deletes source files'); continue; }
    if (modified.length < 1 || modified.length > 4) { reject('modifies >4 source files'); continue; }

    const query = cleanMessage(body, opts.maxQueryChars);
    if (wordCount(query) < 4) { reject('message<4 words'); continue; }
    const key = query.toLowerCase();
    if (seenQueries.has(key)) { reject('duplicate-message'); continue; }
    seenQueries.add(key);

    eligible.push({ repo: opts.name, commit: sha, parent: parentList[0], query, gold: modified.sort(), tests: tests.sort() });
  }

  // git log is newest-first; sample in oldest-to-newest order so strata follow history.
  eligible.reverse();
  let cases = stratifiedSample(eligible, opts.max, opts.seed);

  // Verify gold (and test) paths exist in the parent commit.
  const query = cases.flatMap((c) => [...c.gold, ...c.tests].map((p) => `${c.parent}:${p}`));
  const missing = new Set();
  if (query.length) {
    const out = git(base, ['cat-file', '--batch-check=%(objecttype)'], query.join('\n') + '\n').split('\n');
    query.forEach((q, i) => { if (!out[i] || !out[i].startsWith('blob')) missing.add(q); });
  }
  const dropped = [];
  cases = cases.filter((c) => {
    c.tests = c.tests.filter((p) => !missing.has(`${c.parent}:${p}`));
    const ok = c.gold.every((p) => !missing.has(`${c.parent}:${p}`));
    if (!ok) dropped.push(c.commit);
    return ok;
  });

  mkdirSync(dirname(resolve(opts.out)), { recursive: true });
  writeFileSync(opts.out, cases.map((c) => JSON.stringify(c)).join('\n') + (cases.length ? '\n' : ''));

  // ---------- summary ----------
  const goldSizes = {}, langs = {};
  for (const c of cases) {
    goldSizes[c.gold.length] = (goldSizes[c.gold.length] || 0) + 1;
    for (const p of c.gold) {
      const ext = p.slice(p.lastIndexOf('.') + 1).toLowerCase();
      langs[LANG[ext] || ext] = (langs[LANG[ext] || ext] || 0) + 1;
    }
  }
  const qlen = cases.map((c) => wordCount(c.query)).sort((a, b) => a - b);
  const e = (s) => process.stderr.write(s + '\n');
  e(`make-cases: ${opts.name} (${resolve(opts.repo)} @ ${opts.ref})`);
  e(`  scanned ${records.length} non-merge commits (window ${opts.window}); eligible ${eligible.length}; ` +
    `sampled ${cases.length + dropped.length} (max ${opts.max}, seed ${opts.seed}); written ${cases.length} -> ${opts.out}`);
  if (dropped.length) e(`  dropped ${dropped.length} (gold missing at parent): ${dropped.join(' ')}`);
  e('  rejections: ' + [...reasons.entries()].sort((a, b) => b[1] - a[1]).map(([r, n]) => `${r}=${n}`).join(', '));
  e('  gold size: ' + Object.entries(goldSizes).map(([k, v]) => `${k}:${v}`).join(' ') +
    '; gold languages: ' + Object.entries(langs).map(([k, v]) => `${k}:${v}`).join(' '));
  if (qlen.length) e(`  query words: min ${qlen[0]}, median ${qlen[qlen.length >> 1]}, max ${qlen[qlen.length - 1]}`);
  if (eligible.length) {
    const date = (sha) => git(base, ['show', '-s', '--format=%cs', sha]).trim();
    e(`  eligible span: ${date(eligible[0].commit)} .. ${date(eligible[eligible.length - 1].commit)}`);
  }
}

main();
