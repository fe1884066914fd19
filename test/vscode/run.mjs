#!/usr/bin/env node
// Runs test/vscode/suite/*.test.js inside a real VS Code extension host: code-server (which embeds
// VS Code) on loopback, its workbench opened in headless chromium with this repository loaded as the
// extension under development. Installs what it needs first (see setup.mjs; cached outside the clone).
//
// usage: node test/vscode/run.mjs [--workspace DIR] [--ext DIR]... [--grep PATTERN] [--timeout-ms N] [--keep]
//        [--phase main|restart|vsix|bench] [--run-dir KEPT_RUN_DIR] [--setting KEY=JSON]... [--screenshot FILE] [--screenshot-dir DIR] [--vsix FILE]
//   --workspace DIR  folder to open (default: a fresh temp copy of test/vscode-fixtures/workspace)
//   --ext DIR        an extra extension to load next to Sightline (test-only helpers); repeatable
//   --grep PATTERN   only run tests whose full title matches (mocha grep)
//   --timeout-ms N   give up after N ms (default 600000; exit code 124)
//   --keep           keep the run folder (logs, user data) even when everything passed
//   --save-logs DIR  copy the extension's own logs (Sightline.log: the engine's runs) into DIR, then clean up as usual
//   --screenshot FILE      the workbench picture the suite asks for ([sightline-screenshot])
//   --screenshot-dir DIR   where the webview pictures the suite asks for go (default: the run folder)
// Prints the extension host's console output, then a last line `N passed, N failed`.
// Exit code: the extension host's (0 = all tests passed); 1 on a harness error, 2 on a usage error.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';
import { ensureSetup } from './setup.mjs';
import { probe, watchConsole } from './webview-probe.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(here, '..', '..');
const TESTS = join(here, 'suite', 'index.js');
const FIXTURE = join(ROOT, 'test', 'vscode-fixtures', 'workspace');

function usage(msg) {
  if (msg) console.error(`error: ${msg}`);
  console.error('usage: node test/vscode/run.mjs [--workspace DIR] [--ext DIR]... [--grep PATTERN] [--timeout-ms N] [--keep]');
  process.exit(msg ? 2 : 0);
}

function parseArgs(argv) {
  const o = { exts: [], workspace: undefined, grep: undefined, timeoutMs: 600000, keep: false, saveLogs: undefined, phase: 'main', runDir: undefined, settings: {}, screenshot: undefined, screenshotDir: undefined, vsix: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => { const v = argv[++i]; if (v === undefined) usage(`${a} needs a value`); return v; };
    if (a === '--ext') o.exts.push(resolve(value()));
    else if (a === '--workspace') o.workspace = resolve(value());
    else if (a === '--grep') o.grep = value();
    else if (a === '--timeout-ms') { o.timeoutMs = Number(value()); if (!(o.timeoutMs > 0)) usage('--timeout-ms needs a positive number'); }
    else if (a === '--keep') o.keep = true;
    else if (a === '--save-logs') o.saveLogs = resolve(value());
    else if (a === '--phase') o.phase = value();
    else if (a === '--run-dir') { o.runDir = resolve(value()); o.keep = true; }
    else if (a === '--setting') { const v = value(); const i = v.indexOf('='); if (i < 1) usage('--setting needs KEY=JSON'); try { o.settings[v.slice(0, i)] = JSON.parse(v.slice(i + 1)); } catch { o.settings[v.slice(0, i)] = v.slice(i + 1); } }
    else if (a === '--screenshot') o.screenshot = resolve(value());
    else if (a === '--screenshot-dir') o.screenshotDir = resolve(value());
    else if (a === '--vsix') o.vsix = resolve(value());
    else if (a === '--help' || a === '-h') usage();
    else usage(`unknown argument: ${a}`);
  }
  for (const e of o.exts) if (!existsSync(join(e, 'package.json'))) usage(`--ext ${e}: no package.json there`);
  if (o.workspace && !existsSync(o.workspace)) usage(`--workspace ${o.workspace} does not exist`);
  if (o.runDir && !existsSync(join(o.runDir, 'user-data'))) usage(`--run-dir ${o.runDir} is not a kept run folder`);
  if (o.vsix && !existsSync(o.vsix)) usage(`--vsix ${o.vsix} does not exist`);
  return o;
}

const opts = parseArgs(process.argv.slice(2));
if (!existsSync(join(ROOT, 'dist', 'extension.js'))) {
  console.error('error: dist/extension.js is missing: build the extension first with `npm run build`.');
  process.exit(1);
}
if (!existsSync(join(ROOT, 'node_modules', 'mocha'))) {
  console.error('error: node_modules/mocha is missing: run `npm install` (or `npm ci`) first.');
  process.exit(1);
}

const t0 = Date.now();
const ts = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
const say = (m) => console.log(`[vscode-test ${ts()}] ${m}`);

// Extension-host console lines that are about the workbench's own (offline) services, not our tests.
// (The workbench forwards its own console here too, together with the extension host's.)
const NOISE = [
  /^(Resolving|Resolved) connection token/, /^Creating a socket/, /\[reconnection-grace-time\]/, /^\[Service Worker\]/,
  /^Updating additional builtin extensions cache/, /\[AgentHost/, /\[ChatModelSelection\]/, /AccountPolicyGate/,
  /open-vsx\.org/, /ENOTFOUND|ERR_NAME_NOT_RESOLVED|ERR_INTERNET_DISCONNECTED/, /marketplace/i, /github\.copilot/i,
  /^\s+at .*(workbench|static\/out)/, /DeprecationWarning/, /--trace-deprecation/,
];
const isNoise = (line) => NOISE.some(re => re.test(line));

const freePort = () => new Promise((res, rej) => {
  const s = createServer();
  s.on('error', rej);
  s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => res(port)); });
});

async function waitHealthy(url, ms, server) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (server.exitCode !== null) throw new Error(`code-server exited early with code ${server.exitCode}`);
    try { if ((await fetch(url)).ok) return; } catch { /* not up yet */ }
    await new Promise(r => setTimeout(r, 200));
  }
  throw new Error(`code-server did not answer ${url} within ${ms} ms`);
}

const L = await ensureSetup().catch((e) => { console.error(`error: setup failed: ${e.message}`); process.exit(1); });
const { chromium } = createRequire(join(L.dir, 'driver', 'package.json'))('playwright-core');

// --run-dir reuses a kept run folder: the same workspace, user data and index cache, i.e. an editor
// restart on the same machine (the `restart` phase proves nothing is re-parsed).
const reuse = !!opts.runDir;
const runDir = reuse ? opts.runDir : realpathSync(mkdtempSync(join(tmpdir(), 'sightline-vscode-')));
const resultsFile = join(runDir, `results-${opts.phase}.json`);
const webviewResults = join(runDir, `webview-${opts.phase}`);
let workspace = opts.workspace ?? (reuse && existsSync(join(runDir, 'workspace')) ? join(runDir, 'workspace') : undefined);
if (!workspace) {
  workspace = join(runDir, 'workspace');
  cpSync(FIXTURE, workspace, { recursive: true });
}

const userData = join(runDir, 'user-data');
mkdirSync(join(userData, 'User'), { recursive: true });
writeFileSync(join(userData, 'User', 'settings.json'), JSON.stringify({
  'telemetry.telemetryLevel': 'off', 'update.mode': 'none', 'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': 'off', 'workbench.startupEditor': 'none', 'security.workspace.trust.enabled': false,
  'workbench.enableExperiments': false, 'git.enabled': false, ...opts.settings,
}, null, 2));
for (const d of ['xdg-config', 'xdg-data', 'xdg-cache', 'tmp', 'extensions']) mkdirSync(join(runDir, d), { recursive: true });

const env = {
  ...process.env,
  // Everything code-server, the extension host and Sightline write goes into the run folder.
  XDG_CONFIG_HOME: join(runDir, 'xdg-config'), XDG_DATA_HOME: join(runDir, 'xdg-data'), XDG_CACHE_HOME: join(runDir, 'xdg-cache'),
  TMPDIR: join(runDir, 'tmp'),
  SIGHTLINE_VSCODE_RESULTS: resultsFile,
  SIGHTLINE_VSCODE_WEBVIEW_RESULTS: webviewResults, // where the webview probe answers (webview-probe.mjs)
  SIGHTLINE_VSCODE_GREP: opts.grep ?? '',
  SIGHTLINE_VSCODE_REPO: ROOT,
  SIGHTLINE_VSCODE_FIXTURE: opts.workspace ? '0' : '1', // the workspace is a copy of test/vscode-fixtures/workspace
  SIGHTLINE_VSCODE_PHASE: opts.phase,
  SIGHTLINE_VSCODE_VSIX: opts.vsix ?? '',
};
delete env.NODE_OPTIONS; // e.g. a tsx loader from the caller must not reach Node 24 / the extension host
delete env.SIGHTLINE_VSCODE_TEST_DIR;
delete env.SIGHTLINE_CACHE_DIR; // Sightline's index goes to the run folder's XDG_CACHE_HOME, not the caller's cache

if (opts.vsix) {
  // The packaged extension, installed the way a user installs it; the development path is then only a
  // probe extension that carries no code of ours.
  const r = spawnSync(L.node, [L.entry, '--user-data-dir', userData, '--extensions-dir', join(runDir, 'extensions'), '--install-extension', opts.vsix], { env, encoding: 'utf8' });
  say(`installed ${basename(opts.vsix)} (${(statSync(opts.vsix).size / 1024 / 1024).toFixed(2)} MB): ${(r.stdout || '').trim().split('\n').pop()}`);
  if (r.status !== 0) { console.error(r.stderr); console.log('0 passed, 1 failed'); process.exit(1); }
}

const port = await freePort();
const host = `127.0.0.1:${port}`;
const server = spawn(L.node, [L.entry,
  '--auth', 'none', '--bind-addr', host,
  '--user-data-dir', userData, '--extensions-dir', join(runDir, 'extensions'),
  '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override',
  '--vscode-option', 'enable-smoke-test-driver', // without it the workbench ignores the development/test payload
  '--vscode-option', 'disable-experiments',
  workspace,
], { env, cwd: runDir, stdio: ['ignore', 'pipe', 'pipe'], detached: true }); // detached: its own process group
const serverLog = createWriteStream(join(runDir, 'server.log'));
server.stdout.pipe(serverLog); server.stderr.pipe(serverLog);
const hostLog = createWriteStream(join(runDir, 'extension-host.log'));
say(`code-server pid ${server.pid} on ${host}; run folder ${runDir}`);

/**
 * The workbench keeps only the last `extensionDevelopmentPath` of the payload (it reads it into a map),
 * but a development path without a package.json is scanned as a folder of extensions. So with extra
 * extensions, the one development path is a folder of links to Sightline and to each of them.
 */
function devExtensionsLocation() {
  if (opts.vsix) return join(here, 'probe-extension');
  if (!opts.exts.length) return ROOT;
  const dir = join(runDir, 'dev-extensions');
  mkdirSync(dir);
  [ROOT, ...opts.exts].forEach((e, i) => symlinkSync(e, join(dir, `${i}-${basename(e)}`), 'dir'));
  return dir;
}

let browser;
let stopping = false;
let cleanupDone;
/** Closes the browser and kills code-server's whole process group (extension host, tsserver, …). */
function cleanup() {
  cleanupDone ??= (async () => {
    try { if (browser) await browser.close(); } catch { /* already gone */ }
    const killGroup = (sig) => { try { process.kill(-server.pid, sig); } catch { /* group gone */ } };
    killGroup('SIGTERM');
    const exited = server.exitCode !== null || server.signalCode !== null || await Promise.race([
      new Promise(r => server.once('exit', () => r(true))), new Promise(r => setTimeout(() => r(false), 3000))]);
    if (!exited) say('code-server did not stop on SIGTERM; killing');
    killGroup('SIGKILL'); // children that ignored SIGTERM
    await new Promise(r => hostLog.end(r));
  })();
  return cleanupDone;
}

/** Copies every Sightline.log of the run (one per extension host) into `dir`. */
function saveLogs(dir) {
  const found = [];
  const walk = d => { for (const e of (() => { try { return readdirSync(d, { withFileTypes: true }); } catch { return []; } })()) { const p = join(d, e.name); if (e.isDirectory()) walk(p); else if (e.name === 'Sightline.log') found.push(p); } };
  walk(join(runDir, 'user-data', 'logs'));
  mkdirSync(dir, { recursive: true });
  found.forEach((f, i) => cpSync(f, join(dir, found.length > 1 ? `Sightline-${i + 1}.log` : 'Sightline.log')));
  console.log(`${found.length} Sightline log(s) saved in ${dir}`);
}

function report(code, reason) {
  let results;
  try { results = JSON.parse(readFileSync(resultsFile, 'utf8')); } catch { /* not written */ }
  if (!results) {
    console.log(`error: no test results were written (${reason ?? 'the extension host did not run the suite'}); see ${join(runDir, 'extension-host.log')} and server.log`);
    if (code === 0) code = 1;
  } else {
    if (results.pending) console.log(`${results.pending} pending`);
    if (results.failed > 0 && code === 0) code = 1;
  }
  if (opts.saveLogs) saveLogs(opts.saveLogs);
  if (opts.keep || code !== 0) console.log(`logs kept in ${runDir}`);
  else rmSync(runDir, { recursive: true, force: true });
  console.log(`${results?.passed ?? 0} passed, ${results?.failed ?? 0} failed`);
  process.exit(code);
}

/** The one way out: first caller wins (end of run, timeout or signal). */
async function stop(code, reason) {
  if (stopping) return;
  stopping = true;
  clearTimeout(timer);
  await cleanup();
  report(code, reason);
}

const timer = setTimeout(() => { say(`timeout after ${opts.timeoutMs} ms`); stop(124, `timed out after ${opts.timeoutMs} ms`); }, opts.timeoutMs);
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => { say(`${sig}: stopping`); stop(sig === 'SIGINT' ? 130 : 143, `interrupted by ${sig}`); });
}

let code = 1;
let reason;
try {
  await waitHealthy(`http://${host}/healthz`, 60000, server);
  say('code-server is up; opening the workbench in headless chromium');
  browser = await chromium.launch({
    executablePath: L.chromium, headless: true,
    handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false, // our handlers stop code-server too
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage();
  const consoleMessages = await watchConsole(page);
  const hostExited = new Promise(r => page.exposeFunction('codeAutomationExit', (c) => r(Number(c))));
  // Do not wait for the timeout when the server or the browser is gone.
  const broken = new Promise((_, rej) => {
    server.once('exit', (c, sig) => rej(new Error(`code-server exited (${sig ?? c}) before the suite finished; see server.log`)));
    browser.once('disconnected', () => rej(new Error('the browser went away before the suite finished')));
  });
  broken.catch(() => {});
  await page.exposeFunction('codeAutomationLog', (type, args) => {
    const text = Array.isArray(args) ? format(...args) : String(args);
    hostLog.write(`[${type}] ${text}\n`);
    if (opts.screenshot && text.includes('[sightline-screenshot]')) {
      // The suite asks for the picture while the extension host is still alive (status bar, views).
      page.screenshot({ path: opts.screenshot }).then(() => say(`screenshot written to ${opts.screenshot}`), e => say(`screenshot failed: ${e.message}`));
      return;
    }
    const asked = /\[sightline-webview\] (\{.*\})/.exec(text);
    if (asked) {
      // The suite asks the harness to look inside a webview (its DOM is out of the extension host's reach).
      let req;
      try { req = JSON.parse(asked[1]); } catch (e) { say(`bad webview request: ${e.message}`); return; }
      probe(page, req, { resultsDir: webviewResults, screenshotDir: opts.screenshotDir, messages: consoleMessages })
        .then(r => say(`webview ${req.scenario} (${req.id}): ${r.error ? `failed: ${r.error.split('\n')[0]}` : 'inspected'}${r.screenshot ? `; screenshot ${r.screenshot}` : ''}`));
      return;
    }
    if (isNoise(text)) return;
    const shown = text.split('\n').filter(l => !isNoise(l)).join('\n');
    if (shown.trim()) console.log(shown);
  });
  page.on('pageerror', (e) => hostLog.write(`[pageerror] ${e.message}\n`));
  const remote = (p) => `vscode-remote://${host}${p}`;
  const payload = [
    ['extensionDevelopmentPath', remote(devExtensionsLocation())],
    ['extensionTestsPath', remote(TESTS)],
    ['enableProposedApi', ''], // proposed API for the development extensions (test-only helpers may need it)
    ['skipWelcome', 'true'],
  ];
  await page.goto(`http://${host}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`);
  say(`workbench loaded (${opts.exts.length + 1} development extension(s)); running the suite in the extension host`);
  code = await Promise.race([hostExited, broken]);
  say(`extension host finished with exit code ${code}`);

} catch (e) {
  reason = e.message;
  if (!stopping) console.error(`error: ${e.stack || e.message}`); // else: the timeout or a signal closed the browser
  code = 1;
}
await stop(code, reason);
