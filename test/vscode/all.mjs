#!/usr/bin/env node
// Every extension-host phase, in order, with one closing count:
//   main    – the suite on a fresh copy of the fixture workspace (run folder kept for the next phase)
//   restart – the editor starts again on the same workspace, user data and index: nothing is re-parsed
//   vsix    – the packaged extension (npm run package) installed with --install-extension
// usage: node test/vscode/all.mjs [--screenshot FILE] [--screenshot-dir DIR]   (DIR: the webview pictures)
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
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
else add(await run([join(here, 'run.mjs'), '--phase', 'vsix', '--vsix', join(root, 'sightline.vsix')]));
console.log(`vscode: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
