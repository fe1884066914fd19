#!/usr/bin/env node
// Every extension-host phase, in order, with one closing count:
//   main    – the suite on a fresh copy of the fixture workspace (run folder kept for the next phase)
//   restart – the editor starts again on the same workspace, user data and index: nothing is re-parsed
//   vsix    – the packaged extension (npm run package) installed with --install-extension, opening the workspace
//             with sightline.index.importFrom set to an artifact the CLI exported from another copy (a CI job's)
// usage: node test/vscode/all.mjs [--screenshot FILE] [--screenshot-dir DIR]   (DIR: the webview pictures)
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const arg = (name) => (process.argv.includes(name) ? resolve(process.argv[process.argv.indexOf(name) + 1]) : undefined);
const shot = arg('--screenshot');
const shotDir = arg('--screenshot-dir');

function run(args, cmd = process.execPath) {
  return new Promise(res => {
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', d => { out += d; process.stdout.write(d); });
    child.on('close', code => {
      const m = [...out.matchAll(/^(\d+) passed, (\d+) failed$/gm)].pop();
      res({ code: code ?? 1, passed: m ? Number(m[1]) : 0, failed: m ? Number(m[2]) : 1, out });
    });
  });
}

let passed = 0; let failed = 0;
const add = (r) => { passed += r.passed; failed += r.failed || (r.code !== 0 ? 1 : 0); };

// The main phase also loads the test-only pyright helper: Python references from a real language server.
const main = await run([join(here, 'run.mjs'), '--keep', '--ext', join(here, 'pyright-helper'), ...(shot ? ['--screenshot', shot] : []), ...(shotDir ? ['--screenshot-dir', shotDir] : [])]);
add(main);
const kept = /logs kept in (\S+)/.exec(main.out)?.[1];
if (kept) {
  add(await run([join(here, 'run.mjs'), '--phase', 'restart', '--run-dir', kept]));
  if (failed === 0) rmSync(kept, { recursive: true, force: true });
}
const pack = await run(['run', 'package', '--silent'], process.platform === 'win32' ? 'npm.cmd' : 'npm');
if (pack.code !== 0) { failed++; console.log('packaging the .vsix failed'); }
else {
  // A teammate's first open with the team's prebuilt index: the CLI exports it from another copy of the fixture
  // (another absolute path, as on a CI machine) in which one file differs, so only that file may be parsed.
  const ci = mkdtempSync(join(tmpdir(), 'sightline-ci-'));
  cpSync(join(here, '..', 'vscode-fixtures', 'workspace'), join(ci, 'workspace'), { recursive: true });
  appendFileSync(join(ci, 'workspace', 'src', 'orders.ts'), '\nexport function onlyInTheCiCheckout(): number { return 1; }\n');
  const artifact = join(ci, 'fixture.sidx');
  const exp = spawnSync(process.execPath, [join(root, 'dist', 'cli.js'), 'export', '--out', artifact, '-w', join(ci, 'workspace')],
    { env: { ...process.env, SIGHTLINE_CACHE_DIR: join(ci, 'cache'), SIGHTLINE_DATA_DIR: join(ci, 'data') }, encoding: 'utf8' });
  if (exp.status !== 0) { failed++; console.log(`exporting the fixture's index failed: ${exp.stderr}`); }
  else add(await run([join(here, 'run.mjs'), '--phase', 'vsix', '--vsix', join(root, 'sightline.vsix'), '--setting', `sightline.index.importFrom=${JSON.stringify(artifact)}`]));
  rmSync(ci, { recursive: true, force: true });
}
console.log(`vscode: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
