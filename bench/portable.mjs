#!/usr/bin/env node
// A team builds the index once, and branch switches: first-open time with and without a prebuilt index
// artifact, and what switching between two branches costs, on the ~1M-line workspace.
//
//   npm run bench:portable -- [--workspace DIR] [--repo NAME] [--switch-files N] [--json FILE]
//
// Every step is the `sightline` command in a new process (dist/cli.js), as a CI job and a teammate run it:
//   build      sightline index (the CI job's cold index) · export --out (the artifact: time, size)
//   first open a copy of the workspace in another folder (another absolute path, new file times), then
//              (a) sightline index — no artifact: a cold index, the baseline, in this run
//              (b) sightline import ARTIFACT — adopt it, then index what differs
//              (c) the same after one repository of the copy moved back some commits (a "nearby commit")
// Branch switches run in a long-lived engine (the MCP server's or the extension's): one repository of the copy
// checks out a commit that differs from HEAD in a few hundred source files, the engine indexes, then it
// switches back; each switch's parsed files and wall time are reported (content-hash reuse means only the
// files whose content differs are parsed, either way).
// Targets: a first open with the artifact parses nothing when the commit is the same and takes at most a
// quarter of the cold index; a branch switch parses only the files that differ, and switching back is as
// fast (within 1.5× of the first switch).
// Exit code: 0 when the report was produced (even with FAIL lines), 2 on usage errors or missing data.
import { spawn, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIST_DIR, MB } from './lib/common.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const o = { workspace: resolve(here, '..', '..', 'benchdata', 'ws-1m'), repo: 'sqlalchemy', switchFiles: 300, nearby: 30, json: null };
function usage(msg) {
  if (msg) console.error(`bench:portable: ${msg}`);
  console.error('usage: node bench/portable.mjs [--workspace DIR] [--repo NAME] [--switch-files N] [--json FILE]');
  process.exit(2);
}
for (let i = 0; i < argv.length; i++) {
  const a = argv[i]; const val = () => (i + 1 < argv.length ? argv[++i] : usage(`missing value for ${a}`));
  if (a === '--workspace') o.workspace = resolve(val());
  else if (a === '--repo') o.repo = val();
  else if (a === '--switch-files') o.switchFiles = Number(val());
  else if (a === '--json') o.json = resolve(val());
  else usage(`unknown argument ${a}`);
}
if (!existsSync(o.workspace)) usage(`${o.workspace} does not exist (bench/README.md says how to make ws-1m)`);
if (!existsSync(join(o.workspace, o.repo, '.git'))) usage(`${join(o.workspace, o.repo)} is not a git repository (--repo names one repository of the workspace)`);
if (!existsSync(join(DIST_DIR, 'cli.js'))) usage(`${DIST_DIR}/cli.js is missing: run "npm run build"`);

const dist = mkdtempSync(join(tmpdir(), 'sightline-portable-dist-'));
cpSync(DIST_DIR, dist, { recursive: true, filter: s => !s.endsWith('.map') });
const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'sightline-portable-')));
process.on('exit', () => { rmSync(dist, { recursive: true, force: true }); rmSync(tmp, { recursive: true, force: true }); });
const CLI = join(dist, 'cli.js');

/** One `sightline` command in a new process: its wall time and its JSON answer. */
function sightline(args) {
  const t0 = process.hrtime.bigint();
  return new Promise((res, rej) => {
    const c = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    c.stdout.on('data', d => { out += d; }); c.stderr.on('data', d => { err += d; });
    c.on('exit', code => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (code !== 0) return rej(new Error(`sightline ${args[0]} exited ${code}: ${err.slice(-2000)}`));
      try { res({ ms, data: JSON.parse(out) }); } catch { rej(new Error(`sightline ${args[0]}: no JSON on stdout: ${out.slice(0, 500)}`)); }
    });
  });
}
const git = (dir, ...a) => execFileSync('git', ['-C', dir, ...a], { encoding: 'utf8', maxBuffer: 1 << 28 }).trim();
const core = createRequire(import.meta.url)(join(dist, 'core.js'));
const s = ms => (ms / 1000).toFixed(2);

console.error(`Sightline portable-index bench — ${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}, load ${loadavg().map(x => x.toFixed(2)).join(' ')}`);
const name = o.workspace.split('/').pop();
const out = { workspace: o.workspace };

// ---- the CI job: cold index, export
const ciDb = join(tmp, 'ci.sqlite'), artifact = join(tmp, `${name}.sidx`);
console.error(`  CI: cold index of ${o.workspace} …`);
out.ci_index = await sightline(['index', o.workspace, '--db', ciDb, '--json']);
console.error(`    ${s(out.ci_index.ms)} s, ${out.ci_index.data.totals.files_parsed} files parsed`);
out.export = await sightline(['export', '--out', artifact, '--no-index', '--workspace', o.workspace, '--db', ciDb, '--json']);
console.error(`    export ${s(out.export.ms)} s: ${(out.export.data.bytes / MB).toFixed(1)} MB (index ${(out.export.data.image_bytes / MB).toFixed(1)} MB)`);

// ---- a teammate's checkout: a copy elsewhere (git keeps working: .git folders are copied along)
const copy = join(tmp, 'teammate', name);
console.error(`  copying the workspace to ${copy} …`);
cpSync(o.workspace, copy, { recursive: true });
console.error('  first open without the artifact (cold index) …');
out.cold = await sightline(['index', copy, '--db', join(tmp, 'cold.sqlite'), '--json']);
console.error(`    ${s(out.cold.ms)} s, ${out.cold.data.totals.files_parsed} parsed`);
console.error('  first open with the artifact (import, then index what differs) …');
const importDb = join(tmp, 'import.sqlite');
out.imported = await sightline(['import', artifact, '--workspace', copy, '--db', importDb, '--json']);
console.error(`    ${s(out.imported.ms)} s (import ${s(out.imported.data.import_ms)} s, index ${s(out.imported.data.index.ms)} s): ${out.imported.data.index.totals.files_parsed} parsed, ${out.imported.data.index.totals.files_unchanged} unchanged`);

// a nearby commit: one repository of the copy moved back a few commits before the first open
const repoDir = join(copy, o.repo);
const head = git(repoDir, 'rev-parse', 'HEAD');
const back = git(repoDir, 'rev-parse', `HEAD~${o.nearby}`);
const nearbyFiles = git(repoDir, 'diff', '--name-only', back, head).split('\n').filter(Boolean).length;
git(repoDir, 'checkout', '-q', back);
console.error(`  first open with the artifact, ${o.repo} ${o.nearby} commits back (${nearbyFiles} files differ) …`);
out.nearby = await sightline(['import', artifact, '--workspace', copy, '--db', join(tmp, 'nearby.sqlite'), '--json']);
out.nearby.files_differ = nearbyFiles;
console.error(`    ${s(out.nearby.ms)} s: ${out.nearby.data.index.totals.files_parsed} parsed, ${out.nearby.data.index.totals.files_deleted} deleted`);
git(repoDir, 'checkout', '-q', head);

// ---- branch switches in a long-lived engine (over the imported index)
const { Engine } = core;
const sourceExt = /\.(py|pyi|ts|tsx|js|jsx|mjs|cjs|go|rs|java|rb)$/;
let k = 8, target = null, differ = 0;
while (k < 5000) {
  const c = git(repoDir, 'rev-parse', `HEAD~${k}`);
  differ = git(repoDir, 'diff', '--name-only', c, head).split('\n').filter(p => sourceExt.test(p)).length;
  if (differ >= o.switchFiles) { target = c; break; }
  k = Math.ceil(k * 1.5);
}
if (!target) usage(`no commit of ${o.repo} differs from HEAD in ${o.switchFiles} source files`);
console.error(`  branch switches: ${o.repo} HEAD ⇄ HEAD~${k} (${differ} source files differ), long-lived engine …`);
const engine = await Engine.open({ roots: [copy], dbPath: importDb });
await engine.index(); // settled
const switchTo = async (rev) => {
  git(repoDir, 'checkout', '-q', rev);
  const t0 = performance.now();
  const r = await engine.index();
  return { ms: Math.round(performance.now() - t0), files_parsed: r.totals.files_parsed, files_deleted: r.totals.files_deleted, graph_update: r.repos[0].graph_update, timings: r.timings };
};
out.switch_away = await switchTo(target);
out.switch_back = await switchTo(head);
out.switch_again = await switchTo(target);
out.switch_back_again = await switchTo(head);
out.switch_differ = differ;
engine.close();
for (const k2 of ['switch_away', 'switch_back', 'switch_again', 'switch_back_again']) console.error(`    ${k2}: ${s(out[k2].ms)} s, ${out[k2].files_parsed} parsed, ${out[k2].files_deleted} deleted, graph ${out[k2].graph_update}`);

const lines = ['', `## A team builds the index once — ${new Date().toISOString()}`, `machine: ${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}; load average at the end ${loadavg().map(x => x.toFixed(2)).join(' ')}`, ''];
lines.push(`| ${name} | files | wall s | files parsed |`, '| --- | --- | --- | --- |');
lines.push(`| CI job: cold index | ${out.ci_index.data.totals.files_seen} | ${s(out.ci_index.ms)} | ${out.ci_index.data.totals.files_parsed} |`);
lines.push(`| CI job: export (${(out.export.data.bytes / MB).toFixed(1)} MB artifact, index ${(out.export.data.image_bytes / MB).toFixed(0)} MB) | | ${s(out.export.ms)} | |`);
lines.push(`| first open, no artifact (cold index of the copy) | ${out.cold.data.totals.files_seen} | ${s(out.cold.ms)} | ${out.cold.data.totals.files_parsed} |`);
lines.push(`| first open with the artifact (same commit) | ${out.imported.data.index.totals.files_seen} | ${s(out.imported.ms)} | ${out.imported.data.index.totals.files_parsed} |`);
lines.push(`| first open with the artifact (${o.repo} ${o.nearby} commits back: ${nearbyFiles} files differ) | ${out.nearby.data.index.totals.files_seen} | ${s(out.nearby.ms)} | ${out.nearby.data.index.totals.files_parsed} |`);
for (const [k2, label] of [['switch_away', 'branch switch'], ['switch_back', 'switch back'], ['switch_again', 'switch again'], ['switch_back_again', 'switch back again']]) {
  lines.push(`| ${label} (${differ} source files differ; long-lived engine) | | ${s(out[k2].ms)} | ${out[k2].files_parsed} |`);
}
lines.push('');
const v = (pass, text) => lines.push(`${pass ? 'PASS' : 'FAIL'}  ${text}`);
v(out.imported.data.index.totals.files_parsed === 0, `same commit: the first open with the artifact parses ${out.imported.data.index.totals.files_parsed} files`);
v(out.imported.ms <= out.cold.ms / 4, `first open with the artifact ${s(out.imported.ms)} s ≤ a quarter of the cold index ${s(out.cold.ms)} s (${(out.cold.ms / out.imported.ms).toFixed(1)}× faster)`);
v(out.switch_away.files_parsed <= differ, `a branch switch parses only what differs: ${out.switch_away.files_parsed} parsed, ${differ} source files differ`);
v(out.switch_back.ms <= 1.5 * out.switch_away.ms, `switching back is as fast: ${s(out.switch_back.ms)} s vs ${s(out.switch_away.ms)} s`);
console.log(lines.join('\n'));
if (o.json) writeFileSync(o.json, JSON.stringify(out, null, 2));
