#!/usr/bin/env node
// Transparent wrapper used by bench/graph-quality.mjs as a reference provider command:
//   node graph-tee.mjs OUT_PREFIX -- COMMAND [ARGS...]
// index_repo spawns this exactly like any provider (argv, repository root as cwd, protocol JSON on
// stdin); it starts COMMAND with the same cwd, environment and stdin, passes stdout through unchanged,
// and keeps a copy of both: OUT_PREFIX.in.json (what the engine sent) and OUT_PREFIX.out.json (what the
// provider answered). stderr goes straight through. The exit code is the provider's.
// COMMAND stays in this process group, so the engine's timeout kill (a group kill) reaches it too.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';

const [prefix, sep, command, ...args] = process.argv.slice(2);
if (!prefix || sep !== '--' || !command) {
  process.stderr.write('usage: node graph-tee.mjs OUT_PREFIX -- COMMAND [ARGS...]\n');
  process.exit(2);
}
const inFile = createWriteStream(`${prefix}.in.json`);
const outFile = createWriteStream(`${prefix}.out.json`);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
child.stdin.on('error', () => undefined); // the provider may exit before reading all of stdin
process.stdout.on('error', () => undefined);
process.stdin.on('data', (d) => { inFile.write(d); child.stdin.write(d); });
process.stdin.on('end', () => { inFile.end(); child.stdin.end(); });
child.stdout.on('data', (d) => { outFile.write(d); process.stdout.write(d); });
child.once('error', (e) => { process.stderr.write(`graph-tee: cannot start ${command}: ${e.message}\n`); process.exit(1); });
// 'close' (not 'exit'): every byte of the provider's stdout has been read and passed on.
const finished = (s) => new Promise((res) => { if (s.writableFinished) res(); else { s.once('finish', res); s.once('error', res); } });
child.once('close', async (code, signal) => {
  if (!inFile.writableEnded) inFile.end();
  outFile.end();
  await Promise.all([finished(inFile), finished(outFile)]);
  process.exit(code ?? (signal ? 1 : 0));
});
