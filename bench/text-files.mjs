#!/usr/bin/env node
// What text files and the added grammars cost: the bundle, a grammar's first load, and indexing a
// polyglot workspace with text files on and off, measured in the same run.
//
//   node bench/text-files.mjs [--repos a,b,…] [--rounds 3]
//
// 1. Grammars: each bundled grammar's bytes and deflated bytes (what it adds to the .vsix, a zip), and
//    its first load in a new process (web-tree-sitter initialised, the grammar loaded; median of three
//    processes). A grammar is loaded only by a thread that meets a file of its language or format.
// 2. Workspace: the mirrors named (default: httpx, zod, cobra, jsoup, clap — Python, TypeScript, Go,
//    Java, Rust, with their docs and configuration), each cloned at its HEAD into one multi-root
//    workspace. Per round, text files off then on (each a new index file): the cold index (wall time,
//    files, chunks, index file bytes), then a one-line edit of a source file and of a Markdown file, each
//    applied through index({ paths }) (wall time). The figure that matters: text files on must not slow
//    the code's own indexing and edits beyond the files they add.
import { execFileSync } from 'node:child_process';
import { deflateRawSync } from 'node:zlib';
import { appendFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BENCH_DIR, DIST_DIR, PROJECT_DIR, loadCore } from './lib/common.mjs';
import { writeResults } from './lib/results.mjs';

const args = process.argv.slice(2);
const opt = (name, d) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : d; };
const MIRRORS = process.env.SIGHTLINE_BENCH_MIRRORS ?? join(BENCH_DIR, '..', '..', '.mirror');
const REPOS = opt('repos', 'encode+httpx,colinhacks+zod,spf13+cobra,jhy+jsoup,clap-rs+clap').split(',');
const ROUNDS = Number(opt('rounds', '3'));
const median = xs => { const s = [...xs].sort((a, b) => a - b); const h = s.length >> 1; return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2; };
const kb = n => `${(n / 1024).toFixed(0)} KB`;
const mb = n => `${(n / 2 ** 20).toFixed(1)} MB`;

/** A grammar's first load in a fresh process: milliseconds to init the runtime and to load the grammar. */
function coldLoad(file) {
  const script = `const { Parser, Language } = require('web-tree-sitter');
    (async () => { const t0 = performance.now(); await Parser.init(); const t1 = performance.now();
      await Language.load(${JSON.stringify(file)}); const t2 = performance.now();
      console.log(JSON.stringify({ init: t1 - t0, load: t2 - t1 })); })();`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: PROJECT_DIR, encoding: 'utf8' }));
}

function grammarTable(core) {
  const textGrammars = new Set(Object.values(core.TEXT_FORMATS).flatMap(f => (f.sections ? [f.sections.wasm] : [])));
  const dir = join(DIST_DIR, 'grammars');
  const rows = readdirSync(dir).filter(f => f.endsWith('.wasm')).sort().map(f => {
    const bytes = readFileSync(join(dir, f));
    const loads = [0, 1, 2].map(() => coldLoad(join(dir, f)).load);
    return { file: f, text: textGrammars.has(f), bytes: bytes.length, deflated: deflateRawSync(bytes, { level: 9 }).length, load_ms: median(loads) };
  });
  const sum = (rs, k) => rs.reduce((a, r) => a + r[k], 0);
  const text = rows.filter(r => r.text), code = rows.filter(r => !r.text);
  const lines = ['| grammar | for | bytes | deflated (in the .vsix) | first load, median of 3 processes |', '| --- | --- | --- | --- | --- |'];
  for (const r of rows) lines.push(`| ${r.file} | ${r.text ? 'text files' : 'code'} | ${kb(r.bytes)} | ${kb(r.deflated)} | ${r.load_ms.toFixed(1)} ms |`);
  lines.push(`| **code grammars (${code.length})** | | ${mb(sum(code, 'bytes'))} | ${mb(sum(code, 'deflated'))} | |`);
  lines.push(`| **text grammars (${text.length})** | | ${mb(sum(text, 'bytes'))} | ${mb(sum(text, 'deflated'))} | ${text.length ? Math.max(...text.map(r => r.load_ms)).toFixed(1) : '—'} ms at most |`);
  return { rows, lines };
}

function workspace(tmp) {
  return REPOS.map(r => {
    const dest = join(tmp, r.split('+')[1]);
    execFileSync('git', ['clone', '-q', '--shared', join(MIRRORS, r, 'repo'), dest], { stdio: 'ignore' });
    return dest;
  });
}

/** A file of the workspace whose path matches, for the edits. */
function pick(root, re) {
  const files = execFileSync('git', ['-C', root, 'ls-files'], { encoding: 'utf8' }).split('\n').filter(f => re.test(f));
  return join(root, files.sort()[0]);
}

async function oneRun(core, roots, textFiles, tmp, round) {
  const db = join(tmp, `index-${textFiles ? 'on' : 'off'}-${round}.sqlite`);
  const engine = await core.Engine.open({ roots, dbPath: db, settings: { text_files: textFiles } });
  try {
    const t0 = performance.now();
    await engine.index();
    const cold = performance.now() - t0;
    const status = await engine.status();
    const edit = async (file) => {
      appendFileSync(file, '\n');
      const t = performance.now();
      await engine.index({ paths: [file] });
      return performance.now() - t;
    };
    const source = await edit(pick(roots[0], /^httpx\/_client\.py$|\.py$/));
    const markdown = await edit(pick(roots[0], /\.md$/));
    const kinds = Object.fromEntries(status.file_kinds.map(k => [k.file_kind, k.files]));
    return { text_files: textFiles, cold_ms: cold, files: status.file_count, chunks: status.chunk_count, kinds, db_bytes: statSync(db).size, source_edit_ms: source, markdown_edit_ms: markdown };
  } finally { engine.close(); }
}

const core = loadCore();
const grammars = grammarTable(core);
console.log(grammars.lines.join('\n'));
const tmp = mkdtempSync(join(tmpdir(), 'sl-text-files-'));
const runs = [];
try {
  const roots = workspace(tmp);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const on of [false, true]) {
      // each run starts from clean trees: the previous run's edits are undone
      for (const r of roots) execFileSync('git', ['-C', r, 'checkout', '-q', '--', '.']);
      const r = await oneRun(core, roots, on, tmp, round);
      runs.push(r);
      console.log(JSON.stringify(r));
    }
  }
} finally { rmSync(tmp, { recursive: true, force: true }); }

const side = on => runs.filter(r => r.text_files === on);
const med = (on, k) => median(side(on).map(r => r[k]));
const row = (label, k, f) => `| ${label} | ${f(med(false, k))} | ${f(med(true, k))} | ${med(false, k) ? `${((100 * (med(true, k) - med(false, k))) / med(false, k)).toFixed(0)}%` : '—'} |`;
const ms = x => `${Math.round(x)} ms`;
const n = x => String(x);
const kindsOn = side(true)[0]?.kinds ?? {};
const body = [
  `Workspace: ${REPOS.join(', ')} at their HEAD (one multi-root workspace); ${ROUNDS} round(s), text files off then on, medians.`,
  '',
  '| | text files off | text files on | change |',
  '| --- | --- | --- | --- |',
  row('cold index (wall)', 'cold_ms', ms),
  row('files indexed', 'files', n),
  row('chunks', 'chunks', n),
  row('index file', 'db_bytes', mb),
  row('one-line edit of a source file (index with paths)', 'source_edit_ms', ms),
  row('one-line edit of a Markdown file (index with paths)', 'markdown_edit_ms', ms),
  '',
  `Files by kind with text files on: ${Object.entries(kindsOn).map(([k, v]) => `${k} ${v}`).join(', ')}.`,
  '',
  'Grammars (a thread loads one only when it meets a file of its language or text format):',
  '',
  ...grammars.lines,
].join('\n');
writeResults('text-files', 'Text files and grammars (`npm run bench:text-files`)', body);
console.log(body);
