#!/usr/bin/env node
// `npm test`: every suite, in order, with one closing line that counts them all.
//   1. build (esbuild) and type check (tsc)
//   2. unit, engine, contract, MCP and CLI suites (mocha)
//   3. MCP conformance (the official suite against the HTTP server, with a baseline of expected failures)
//   4. the extension inside a real VS Code (code-server) extension host
// Options: --skip-vscode (for quick local runs; CI never passes it).
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const skipVscode = process.argv.includes('--skip-vscode');
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

function run(name, cmd, args) {
  return new Promise(resolve => {
    process.stdout.write(`\n=== ${name}: ${cmd} ${args.join(' ')}\n`);
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
    let out = '';
    child.stdout.on('data', d => { out += d; process.stdout.write(d); });
    child.on('close', code => resolve({ name, code: code ?? 1, out }));
  });
}

const stages = [];
let passed = 0; let failed = 0;
const record = (r, p, f) => { stages.push({ ...r, p, f }); passed += p; failed += f; };

const build = await run('build', process.execPath, ['esbuild.mjs']);
record(build, build.code === 0 ? 1 : 0, build.code === 0 ? 0 : 1);
const types = await run('typecheck', process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', 'typecheck']);
record(types, types.code === 0 ? 1 : 0, types.code === 0 ? 0 : 1);

if (build.code === 0) {
  const mocha = await run('mocha', npx, ['mocha']);
  const p = Number(/(\d+) passing/.exec(mocha.out)?.[1] ?? 0);
  const f = Number(/(\d+) failing/.exec(mocha.out)?.[1] ?? (mocha.code === 0 ? 0 : 1));
  record(mocha, p, mocha.code !== 0 && f === 0 ? 1 : f);
  if (mocha.code !== 0) stages.at(-1).detail = failureDetail(mocha.out);

  const conf = await run('mcp conformance', process.execPath, ['test/conformance/run.mjs']);
  const cp = Number(/Total: (\d+) passed/.exec(conf.out)?.[1] ?? 0);
  record(conf, conf.code === 0 ? cp : 0, conf.code === 0 ? 0 : 1);

  if (!skipVscode) {
    const host = await run('vscode extension host', process.execPath, ['test/vscode/all.mjs']);
    const m = /vscode: (\d+) passed, (\d+) failed/.exec(host.out);
    record(host, m ? Number(m[1]) : 0, m ? Number(m[2]) + (host.code !== 0 && Number(m[2]) === 0 ? 1 : 0) : (host.code === 0 ? 0 : 1));
  }
}

// The failing tests again, where a log's tail will show them (the full report is far above).
function failureDetail(out) {
  const at = out.search(/\n\s*\d+ failing/);
  return at < 0 ? '' : out.slice(at, at + 4000).replace(/\n+$/, '');
}

process.stdout.write('\n=== summary\n');
for (const s of stages) {
  process.stdout.write(`${s.code === 0 ? 'ok  ' : 'FAIL'} ${s.name}: ${s.p} passed, ${s.f} failed\n`);
  if (s.detail) process.stdout.write(`${s.detail}\n\n`);
}
process.stdout.write(`tests: ${passed} passed, ${failed} failed\n`);
process.exit(failed ? 1 : 0);
