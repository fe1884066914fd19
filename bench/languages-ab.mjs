#!/usr/bin/env node
// Do the added languages and text files slow the languages we had? A same-run A/B of the cold index and a
// one-file edit on the ~1M-line workspace (bench/README.md "Data": ws-1m, one root), between
//   A  a build of the commit before the new languages (--base, default 3bad947^: twelve languages),
//   B  this build with text files off (the same source files as A, the grammars and language table of now),
//   C  this build as it ships (text files on).
// Each step is a `dist/cli.js index --no-compiler-edges --json` in a new process, rounds interleaved
// (A, B, C, A, B, C, …) so load drifts hit all three alike; medians. The edit appends a line to one Python
// file and indexes again (a new process: open, walk, parse one file, save).
//
//   node bench/languages-ab.mjs [--workspace DIR] [--base REF] [--rounds 3]
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BENCH_DIR, PROJECT_DIR } from './lib/common.mjs';
import { writeResults } from './lib/results.mjs';

const args = process.argv.slice(2);
const opt = (name, d) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : d; };
const WORKSPACE = resolve(opt('workspace', process.env.SIGHTLINE_BENCH_WORKSPACE ?? join(BENCH_DIR, '..', '..', 'benchdata', 'ws-1m')));
const BASE = opt('base', '3bad947^');
const ROUNDS = Number(opt('rounds', '3'));
if (!existsSync(WORKSPACE)) { console.error(`bench:languages-ab: ${WORKSPACE} not found (bench/README.md, "Data")`); process.exit(2); }
const median = xs => { const s = [...xs].sort((a, b) => a - b); const h = s.length >> 1; return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2; };
const git = (...a) => execFileSync('git', ['-C', PROJECT_DIR, ...a], { encoding: 'utf8' }).trim();

/** The base commit's tree, built beside this one (its own esbuild script, this checkout's node_modules). */
function buildBase(tmp) {
  const dir = join(tmp, 'base');
  execFileSync('sh', ['-c', `mkdir -p "${dir}" && git -C "${PROJECT_DIR}" archive "${BASE}" | tar -x -C "${dir}"`]);
  symlinkSync(join(PROJECT_DIR, 'node_modules'), join(dir, 'node_modules'), 'dir');
  execFileSync(process.execPath, ['esbuild.mjs'], { cwd: dir, stdio: 'ignore' });
  return join(dir, 'dist', 'cli.js');
}

/** One index run in a new process: wall time and what it indexed. */
function index(cli, db, extra) {
  const t = performance.now();
  const out = execFileSync(process.execPath, [cli, 'index', WORKSPACE, '--db', db, '--json', '--no-compiler-edges', ...extra], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = performance.now() - t;
  const repos = JSON.parse(out).repos ?? [];
  const sum = k => repos.reduce((a, r) => a + (r[k] ?? 0), 0);
  return { ms, files: sum('files_seen'), chunks: sum('chunks_written') };
}

const EDITED = execFileSync('git', ['-C', join(WORKSPACE, 'httpx'), 'ls-files', 'httpx/_client.py'], { encoding: 'utf8' }).trim()
  ? join(WORKSPACE, 'httpx', 'httpx', '_client.py') : null;
if (!EDITED) { console.error('bench:languages-ab: the workspace has no httpx/httpx/_client.py to edit'); process.exit(2); }
const original = readFileSync(EDITED);

const tmp = mkdtempSync(join(tmpdir(), 'sl-languages-ab-'));
const variants = [
  { name: 'A', label: `before the new languages (${git('rev-parse', '--short', BASE)})`, cli: null, extra: [] },
  { name: 'B', label: 'now, text files off', cli: join(PROJECT_DIR, 'dist', 'cli.js'), extra: ['--no-text-files'] },
  { name: 'C', label: 'now, text files on (default)', cli: join(PROJECT_DIR, 'dist', 'cli.js'), extra: [] },
];
const runs = [];
try {
  variants[0].cli = buildBase(tmp);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const v of variants) {
      const db = join(tmp, `${v.name}-${round}.sqlite`);
      const cold = index(v.cli, db, v.extra);
      appendFileSync(EDITED, '\n# edited\n');
      const edit = index(v.cli, db, v.extra);
      writeFileSync(EDITED, original);
      const r = { variant: v.name, round, cold_ms: cold.ms, edit_ms: edit.ms, files: cold.files, chunks: cold.chunks, db_bytes: statSync(db).size };
      runs.push(r);
      console.error(JSON.stringify(r));
    }
  }
} finally {
  writeFileSync(EDITED, original);
  rmSync(tmp, { recursive: true, force: true });
}

const med = (v, k) => median(runs.filter(r => r.variant === v).map(r => r[k]));
const s = x => `${(x / 1000).toFixed(1)} s`;
const pct = (v, k) => `${med('A', k) ? `${(100 * (med(v, k) - med('A', k)) / med('A', k)) >= 0 ? '+' : ''}${(100 * (med(v, k) - med('A', k)) / med('A', k)).toFixed(0)}%` : '—'}`;
const lines = [
  `Workspace: ${WORKSPACE.split('/').slice(-1)[0]} (one root); ${ROUNDS} rounds interleaved, medians; each step a new \`cli.js index --no-compiler-edges\` process.`,
  '',
  '| build | files | chunks | cold index | vs A | one-file edit (new process) | vs A | index file |',
  '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ...variants.map(v => `| ${v.name}: ${v.label} | ${med(v.name, 'files')} | ${med(v.name, 'chunks')} | ${s(med(v.name, 'cold_ms'))} | ${v.name === 'A' ? '' : pct(v.name, 'cold_ms')} | ${s(med(v.name, 'edit_ms'))} | ${v.name === 'A' ? '' : pct(v.name, 'edit_ms')} | ${(med(v.name, 'db_bytes') / 2 ** 20).toFixed(1)} MB |`),
  '',
  'A and B index the same source files: B − A is what the added languages cost the twelve we had; C − B is what text files add.',
];
writeResults('languages-ab', 'Added languages and text files on the ~1M-line workspace (`npm run bench:languages-ab`)', lines.join('\n'));
console.log(lines.join('\n'));
