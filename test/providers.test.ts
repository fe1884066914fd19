/** External reference providers: the protocol, and the runner against real child processes. */
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, realpathSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import {
  providerSpecSchema, providerSpecsSchema, providerApplies, validateProviderOutput, EVIDENCE_MAX_CHARS,
  type ProviderInput, type ProviderSymbol, type ProviderSpecInput,
} from '../src/core/providers/protocol';
import { Deadline, findOnPath } from '../src/core/providers/adapters/common';
import { runProvider, resolveEndpoints, PROVIDER_KILL_GRACE_MS, PROVIDER_STREAM_CAP_BYTES, PROVIDER_STDERR_TAIL_BYTES, type ProviderRunResult } from '../src/core/providers/external';

const FIXTURES = join(__dirname, 'fixtures', 'providers');
const REPO_ID = 'repo-0123';

function sym(path: string, symbol_path: string, kind = 'function', start_line = 1): ProviderSymbol {
  const name = symbol_path.split('.').pop()!;
  return { id: `symbol:${REPO_ID}:${path}:${symbol_path}`, path, name, symbol_path, kind, language: 'rust', start_line, start_col: 0, end_line: start_line + 2, end_col: 1 };
}
const SYMBOLS: ProviderSymbol[] = [
  sym('src/lib.rs', 'wrapper', 'function', 1),
  sym('src/lib.rs', 'run', 'function', 5),
  sym('src/other.rs', 'run', 'function', 1),
  sym('src/worker.rs', 'Worker.start', 'method', 3),
];

/** true when the process is gone: ESRCH, or a zombie nobody reaps (orphans reparented to a PID 1 that does not wait). */
function isDead(pid: number): boolean {
  try { process.kill(pid, 0); } catch (e) { return (e as NodeJS.ErrnoException).code === 'ESRCH'; }
  try { return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8')); } catch { return false; }
}
const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));
async function waitFor<T>(what: string, get: () => T | undefined, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
function failed(r: ProviderRunResult) {
  assert.equal(r.ok, false, `expected a failure, got ${JSON.stringify(r).slice(0, 300)}`);
  return r as Extract<ProviderRunResult, { ok: false }>;
}
function succeeded(r: ProviderRunResult) {
  assert.ok(r.ok, `expected success, got ${JSON.stringify(r).slice(0, 600)}`);
  return r as Extract<ProviderRunResult, { ok: true }>;
}

describe('reference providers', () => {
  let dir: string, repo: string, pidFile: string, inputFile: string;
  const started: number[] = [];
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'sightline-providers-')));
    repo = dir; pidFile = join(dir, 'pids.json'); inputFile = join(dir, 'input.json');
  });
  afterEach(() => {
    for (const pid of started.splice(0)) if (!isDead(pid)) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
    rmSync(dir, { recursive: true, force: true });
  });

  const input = (symbols: ProviderSymbol[] = SYMBOLS, provider = 'fixture'): ProviderInput => ({
    protocol_version: 1, repo, repo_id: REPO_ID, provider, compiler_grade: true, symbols,
    chunks: symbols.map(s => ({ id: s.id.replace(/^symbol:/, 'chunk:'), path: s.path, language: s.language, start_line: s.start_line, end_line: s.end_line, symbol_path: s.symbol_path, kind: s.kind })),
  });
  const env = () => ({ ...process.env, SIGHTLINE_TEST_PID_FILE: pidFile, SIGHTLINE_TEST_INPUT_FILE: inputFile });
  const spec = (script: string, extra: Partial<ProviderSpecInput> = {}): ProviderSpecInput =>
    ({ name: 'fixture', command: process.execPath, ...extra, args: [join(FIXTURES, script), ...(extra.args ?? [])] });
  const run = (script: string, extra: Partial<ProviderSpecInput> = {}, opts: { signal?: AbortSignal; in?: ProviderInput } = {}) =>
    runProvider(spec(script, extra), opts.in ?? input(), { cwd: repo, env: env(), signal: opts.signal });
  const pids = async (keys: ('child' | 'grandchild')[]) => {
    const p = await waitFor('pid file', () => {
      if (!existsSync(pidFile)) return undefined;
      try { const j = JSON.parse(readFileSync(pidFile, 'utf8')) as Record<string, number>; return keys.every(k => j[k]) ? j : undefined; } catch { return undefined; }
    });
    for (const k of keys) started.push(p[k]!);
    return p;
  };

  describe('protocol', () => {
    it('spec schema applies the defaults and bounds, and describes every field', () => {
      const s = providerSpecSchema.parse({ name: 'scip-rust', command: 'scip-rust-provider' });
      assert.deepEqual(s, { name: 'scip-rust', command: 'scip-rust-provider', args: [], languages: [], compiler_grade: false, strict: false, timeout_ms: 120000 });
      const full = providerSpecSchema.parse({ name: 'scip_rust', command: 'x', args: ['--workspace', '.'], languages: ['rust'], compiler_grade: true, strict: true, timeout_ms: 30000 });
      assert.equal(full.timeout_ms, 30000);
      for (const bad of [
        { name: 'Scip Rust', command: 'x' }, { name: '', command: 'x' }, { name: 'a', command: '' },
        { name: 'a', command: 'x', timeout_ms: 99 }, { name: 'a', command: 'x', timeout_ms: 3_600_001 }, { name: 'a', command: 'x', timeout_ms: 1.5 },
        { name: 'a', command: 'x', languages: ['klingon'] }, { name: 'a', command: 'x', args: 'a b' },
      ]) assert.equal(providerSpecSchema.safeParse(bad).success, false, JSON.stringify(bad));
      const json = z.toJSONSchema(providerSpecSchema, { io: 'input' }) as { properties: Record<string, { description?: string }>; required?: string[] };
      assert.deepEqual(Object.keys(json.properties).sort(), ['args', 'command', 'compiler_grade', 'languages', 'name', 'strict', 'timeout_ms']);
      for (const [k, v] of Object.entries(json.properties)) assert.ok(v.description && v.description.length > 10, `${k} has no description`);
      assert.deepEqual(json.required?.sort(), ['command', 'name']);
    });

    it('provider names must be unique; languages filter by indexed chunk language', () => {
      const dup = providerSpecsSchema.safeParse([{ name: 'a', command: 'x' }, { name: 'b', command: 'x' }, { name: 'a', command: 'y' }]);
      assert.equal(dup.success, false);
      assert.match(dup.error!.issues[0]!.message, /"a" is used more than once/);
      assert.deepEqual(dup.error!.issues[0]!.path, [2, 'name']);
      assert.equal(providerSpecsSchema.safeParse([{ name: 'a', command: 'x' }, { name: 'b', command: 'x' }]).success, true);
      assert.equal(providerApplies({ languages: [] }, []), true);
      assert.equal(providerApplies({ languages: ['rust'] }, ['typescript', 'rust']), true);
      assert.equal(providerApplies({ languages: ['rust'] }, ['typescript']), false);
    });

    it('rejects a malformed envelope but only lists bad edges and odd diagnostics', () => {
      assert.equal(validateProviderOutput([]).ok, false);
      assert.equal(validateProviderOutput({ edges: 'x' }).ok, false);
      assert.equal(validateProviderOutput({ edges: [], diagnostics: 'x' }).ok, false);
      const v = validateProviderOutput({ edges: [{ from_id: 'a', to_id: 'b', kind: 'calls', confidence: 1, evidence: 'e' }, null], diagnostics: ['s', { message: 'm' }, 7] });
      assert.ok(v.ok);
      assert.equal(v.output.edges.length, 1);
      assert.deepEqual(v.output.invalid_edges.map(e => e.index), [1]);
      assert.deepEqual(v.output.diagnostics.slice(0, 2), ['s', 'm']);
      assert.match(v.output.diagnostics[2]!, /neither a string nor \{message\}/);
    });
  });

  describe('runner', () => {
    it('a well-behaved provider gets the input on stdin, runs in the repo, and its edges resolve', async () => {
      const r = succeeded(await run('echo.mjs'));
      const received = JSON.parse(readFileSync(inputFile, 'utf8'));
      assert.deepEqual(received, input());
      assert.equal(received.protocol_version, 1);
      assert.equal(r.exit_code, 0);
      assert.deepEqual(r.output.invalid_edges, []);
      assert.deepEqual(r.provider_diagnostics.slice(1), [
        { provider: 'fixture', message: `cwd ${repo}` },
        { provider: 'fixture', message: 'received protocol_version=1 symbols=4 chunks=4' },
      ]);
      const res = resolveEndpoints(r.output.edges, SYMBOLS, { strict: true });
      assert.deepEqual(res.unresolved, []);
      assert.equal(res.failed, false);
      const ids = (e: { from_id: string; to_id: string; kind: string }) => `${e.from_id} -${e.kind}-> ${e.to_id}`;
      const w = SYMBOLS[0]!.id;
      assert.deepEqual(res.resolved.map(ids).sort(), [
        `${w} -calls-> ${SYMBOLS[1]!.id}`, // the path-qualified protocol example: run in src/lib.rs, not src/other.rs
        `${w} -calls-> ${SYMBOLS[3]!.id}`, // by name "start", from_path "./src/lib.rs"
        `${w} -references-> ${SYMBOLS[1]!.id}`, `${w} -references-> ${SYMBOLS[2]!.id}`, `${w} -references-> ${SYMBOLS[3]!.id}`,
      ].sort());
      const example = res.resolved.find(e => e.evidence === 'SCIP call graph wrapper -> run')!;
      assert.equal(example.confidence, 1);
    });

    it('passes argv literally: spaces and shell metacharacters are not interpreted', async () => {
      const args = ['two words', '; rm -rf x', '$(echo hi)', '`id`', '*', '"quoted" \'single\'', 'a|b&&c>out.txt'];
      const r = succeeded(await run('echo.mjs', { args }));
      assert.equal(r.output.diagnostics[0], `argv ${JSON.stringify(args)}`);
      assert.equal(existsSync(join(repo, 'out.txt')), false);
    });

    it('a large input (> 1 MiB) is written completely', async () => {
      const many = Array.from({ length: 6000 }, (_, i) => sym(`src/gen/f${Math.floor(i / 100)}.rs`, `item_${i}_${'p'.repeat(40)}`, 'function', i + 1));
      const inp = input(many);
      assert.ok(JSON.stringify(inp).length > 1024 * 1024);
      const r = succeeded(await run('echo.mjs', {}, { in: inp }));
      assert.deepEqual(JSON.parse(readFileSync(inputFile, 'utf8')), inp);
      assert.equal(r.output.edges.filter(e => e.kind === 'references').length, many.length - 1);
      const res = resolveEndpoints(r.output.edges, many, { strict: false });
      assert.equal(res.resolved.length, many.length); // 5999 references + the by-name call; the protocol example does not resolve here
      assert.equal(res.unresolved.length, 1);
    });

    it('a provider that exits without reading a large input is not an EPIPE crash', async () => {
      const many = Array.from({ length: 8000 }, (_, i) => sym('src/big.rs', `fn_${i}_${'q'.repeat(60)}`, 'function', i + 1));
      const r = succeeded(await run('no-read.mjs', {}, { in: input(many) }));
      assert.deepEqual(r.output.diagnostics, ['did not read stdin']);
    });

    it('a hanging provider times out and is gone afterwards', async () => {
      const timeout = 400;
      const r = failed(await run('hang.mjs', { timeout_ms: timeout }));
      assert.equal(r.error.code, 'provider_timeout');
      assert.match(r.error.message, /within 400 ms/);
      assert.ok(r.duration_ms >= timeout - 5, `returned after ${r.duration_ms} ms`);
      assert.ok(r.duration_ms < timeout + PROVIDER_KILL_GRACE_MS + 1500, `returned after ${r.duration_ms} ms`);
      const { child } = await pids(['child']);
      await waitFor(`provider ${child} to die`, () => (isDead(child!) ? true : undefined), PROVIDER_KILL_GRACE_MS + 2000);
      assert.match(r.stderr_tail, new RegExp(`hang pid=${child}`));
    });

    it('a provider that ignores SIGTERM is SIGKILLed after the grace period', async () => {
      const r = failed(await run('hang.mjs', { timeout_ms: 300, args: ['--ignore-term'] }));
      assert.equal(r.error.code, 'provider_timeout');
      // POSIX: SIGTERM first, SIGKILL after the grace (Windows: taskkill /F at once)
      if (process.platform !== 'win32') assert.ok(r.duration_ms >= 300 + PROVIDER_KILL_GRACE_MS - 50, `SIGKILL came early: ${r.duration_ms} ms`);
      assert.ok(r.duration_ms < 300 + PROVIDER_KILL_GRACE_MS + 1500, `returned after ${r.duration_ms} ms`);
      const { child } = await pids(['child']);
      await waitFor(`provider ${child} to die`, () => (isDead(child!) ? true : undefined), PROVIDER_KILL_GRACE_MS + 2000);
      if (process.platform !== 'win32') assert.match(r.stderr_tail, /ignoring SIGTERM/);
    });

    it('timeout kills the whole tree: the child and its grandchild (which ignores SIGTERM and holds the pipes)', async () => {
      const r = failed(await run('tree.mjs', { timeout_ms: 1000 }));
      assert.equal(r.error.code, 'provider_timeout');
      assert.ok(r.duration_ms < 1000 + PROVIDER_KILL_GRACE_MS + 1500, `returned after ${r.duration_ms} ms`);
      const { child, grandchild } = await pids(['child', 'grandchild']);
      // the kill signals are sent before the run returns; on a loaded machine their delivery can lag a little
      await waitFor(`child ${child} to die`, () => (isDead(child!) ? true : undefined), PROVIDER_KILL_GRACE_MS + 2000);
      await waitFor(`grandchild ${grandchild} to die`, () => (isDead(grandchild!) ? true : undefined), PROVIDER_KILL_GRACE_MS + 2000);
    });

    it('processes a provider leaves behind after exiting are terminated', async () => {
      const r = succeeded(await run('tree.mjs', { args: ['--exit-ok'] }));
      assert.deepEqual(r.output.diagnostics, ['left a grandchild behind']);
      const { grandchild } = await pids(['child', 'grandchild']);
      await waitFor('grandchild to die', () => (isDead(grandchild!) ? true : undefined), PROVIDER_KILL_GRACE_MS + 2000);
    });

    describe('descendants that left the process group (setsid)', () => {
      const posix = function (this: Mocha.Context, tool?: string) { if (process.platform === 'win32' || (tool && !findOnPath(tool))) this.skip(); };
      const leakFile = () => join(dir, 'leak.pid');
      const leaked = async () => {
        const pid = await waitFor('leak pid', () => { try { const n = Number(readFileSync(leakFile(), 'utf8')); return n > 0 ? n : undefined; } catch { return undefined; } });
        started.push(pid);
        return pid;
      };
      const sh = (script: string, timeout_ms = 60_000) => runProvider({ name: 'fixture', command: 'sh', args: ['-c', script], timeout_ms }, input(), { cwd: repo });

      it('a timeout kills a child that called setsid (setsid sleep) with the rest of the tree', async function () {
        posix.call(this, 'setsid');
        const r = failed(await sh(`setsid sleep 600 & echo $! > ${leakFile()}; exec sleep 600`, 700));
        assert.equal(r.error.code, 'provider_timeout');
        const pid = await leaked();
        await waitFor(`setsid child ${pid} to die`, () => (isDead(pid) ? true : undefined), 3000);
      });

      it('a timeout kills a child that called os.setsid() itself (python)', async function () {
        posix.call(this, 'python3');
        const py = `import os, sys, time\npid = os.fork()\nif pid == 0:\n    os.setsid()\n    time.sleep(600)\nelse:\n    open(sys.argv[1], 'w').write(str(pid))\n    time.sleep(600)\n`;
        const r = failed(await runProvider({ name: 'fixture', command: 'python3', args: ['-c', py, leakFile()], timeout_ms: 1500 }, input(), { cwd: repo }));
        assert.equal(r.error.code, 'provider_timeout');
        const pid = await leaked();
        await waitFor(`setsid child ${pid} to die`, () => (isDead(pid) ? true : undefined), 3000);
      });

      it('a setsid child a provider leaves behind after exiting is terminated too', async function () {
        posix.call(this, 'setsid');
        succeeded(await sh(`setsid sleep 600 & echo $! > ${leakFile()}; sleep 1.6; echo '{"edges": []}'`));
        const pid = await leaked();
        await waitFor(`setsid child ${pid} to die`, () => (isDead(pid) ? true : undefined), 3000);
      });

      it('the adapters\' deadline kills the same trees (one implementation): on timeout, and what an exited child left', async function () {
        posix.call(this, 'setsid');
        const d = new Deadline(600);
        const child = d.spawn('sh', ['-c', `setsid sleep 600 & echo $! > ${leakFile()}; exec sleep 600`], { stdio: 'ignore' });
        started.push(child.pid!);
        await assert.rejects(d.expired, /timed out/);
        const pid = await leaked();
        await waitFor(`setsid child ${pid} to die`, () => (isDead(pid) && isDead(child.pid!) ? true : undefined), 3000);
        rmSync(leakFile());
        const d2 = new Deadline(undefined);
        const quick = d2.spawn('sh', ['-c', `setsid sleep 600 & echo $! > ${leakFile()}; sleep 1.6`], { stdio: 'ignore' });
        await new Promise(res => quick.once('exit', res));
        const pid2 = await leaked();
        assert.ok(!isDead(pid2), 'left behind, alive');
        d2.dispose();
        await waitFor(`setsid child ${pid2} to die`, () => (isDead(pid2) ? true : undefined), 3000);
      });
    });

    it('an AbortSignal cancels the run and kills the tree', async () => {
      const ac = new AbortController();
      const t0 = Date.now();
      const pending = run('tree.mjs', { timeout_ms: 60_000 }, { signal: ac.signal });
      const { child, grandchild } = await pids(['child', 'grandchild']);
      assert.ok(!isDead(child!) && !isDead(grandchild!), 'both run before the abort');
      ac.abort();
      const r = failed(await pending);
      assert.equal(r.error.code, 'cancelled');
      assert.ok(Date.now() - t0 < 10_000);
      assert.ok(isDead(child!), `child ${child} alive`);
      assert.ok(isDead(grandchild!), `grandchild ${grandchild} alive`);
      // an already aborted signal starts nothing
      const again = failed(await run('echo.mjs', {}, { signal: ac.signal }));
      assert.equal(again.error.code, 'cancelled');
      assert.equal(existsSync(inputFile), false);
    });

    it('stdout beyond 16 MiB is provider_output_too_large, promptly, and the provider is killed', async () => {
      const t0 = Date.now();
      const r = failed(await run('flood-stdout.mjs', { timeout_ms: 60_000 }));
      assert.equal(r.error.code, 'provider_output_too_large');
      assert.match(r.error.message, new RegExp(String(PROVIDER_STREAM_CAP_BYTES)));
      assert.ok(Date.now() - t0 < 15_000, `took ${Date.now() - t0} ms`);
      const { child } = await pids(['child']);
      await waitFor(`provider ${child} to die`, () => (isDead(child!) ? true : undefined), PROVIDER_KILL_GRACE_MS + 2000);
    });

    it('stderr beyond 16 MiB is drained and truncated; the answer still counts', async () => {
      const r = succeeded(await run('flood-stderr.mjs', { timeout_ms: 60_000 }));
      assert.ok(r.stderr_bytes > PROVIDER_STREAM_CAP_BYTES, `stderr_bytes ${r.stderr_bytes}`);
      assert.ok(Buffer.byteLength(r.stderr_tail) <= PROVIDER_STDERR_TAIL_BYTES);
      assert.match(r.stderr_tail, /STDERR-END-MARKER\n$/);
      assert.match(r.output.diagnostics[0]!, /^wrote \d+ bytes to stderr$/);
    });

    it('bad confidence, kind, evidence or endpoints reject that edge with a reason; valid ones are kept', async () => {
      const r = succeeded(await run('bad-edges.mjs'));
      assert.deepEqual(r.output.edges.map(e => e.index), [0, 6, 11]);
      assert.deepEqual(r.output.edges.map(e => e.confidence), [1, 0, 0.25]);
      assert.equal(r.output.edges[2]!.evidence.length, EVIDENCE_MAX_CHARS);
      const why = new Map(r.output.invalid_edges.map(e => [e.index, e.reason]));
      assert.deepEqual([...why.keys()], [1, 2, 3, 4, 5, 7, 8, 9, 10, 12]);
      assert.match(why.get(1)!, /confidence .*within 0\.\.1, got 1\.5/);
      assert.match(why.get(2)!, /got -0\.1/);
      assert.match(why.get(3)!, /confidence .*got "NaN"/);
      assert.match(why.get(4)!, /confidence .*got "high"/);
      assert.match(why.get(5)!, /confidence .*got Infinity/);
      assert.match(why.get(7)!, /evidence must be a non-empty string/);
      assert.match(why.get(8)!, /kind must be one of .*got "invokes"/);
      assert.match(why.get(9)!, /missing from_id or from_symbol/);
      assert.match(why.get(10)!, /edge must be an object/);
      assert.match(why.get(12)!, /evidence/);
      const res = resolveEndpoints(r.output.edges, SYMBOLS, { strict: true });
      assert.deepEqual(res.resolved.map(e => e.kind).sort(), ['calls', 'extends']); // calls 1 and calls 0 collapse into one
      assert.equal(res.resolved.find(e => e.kind === 'calls')!.confidence, 1);
    });

    it('unresolvable and ambiguous endpoints: skipped when not strict, failing when strict', async () => {
      const r = succeeded(await run('echo.mjs', { args: ['--with-unknown'] }));
      assert.deepEqual(r.output.invalid_edges, []);
      const lax = resolveEndpoints(r.output.edges, SYMBOLS, { strict: false });
      const strict = resolveEndpoints(r.output.edges, SYMBOLS, { strict: true });
      assert.equal(lax.failed, false);
      assert.equal(strict.failed, true);
      assert.deepEqual(strict.unresolved, lax.unresolved);
      assert.equal(lax.resolved.length, 5);
      assert.deepEqual(lax.unresolved.map(u => u.index), [5, 6, 7, 8]);
      const [amb, unknownId, unknownName, wrongPath] = lax.unresolved.map(u => u.reason);
      assert.match(amb!, /to_symbol "run" is ambiguous: 2 symbols match \(src\/lib\.rs:5, src\/other\.rs:1\)/);
      assert.match(unknownId!, /from_id "symbol:nope:src\/none\.rs:ghost" is not an indexed symbol/);
      assert.match(unknownName!, /to_symbol "ghost": no symbol .* in src\/lib\.rs/);
      assert.match(wrongPath!, /is in src\/lib\.rs, not from_path src\/elsewhere\.rs/);
    });

    it('resolves by symbol_path before name, and absolute paths inside the repo', () => {
      const syms = [sym('a.py', 'run'), sym('b.py', 'Job.run', 'method')];
      const v = validateProviderOutput({ edges: [
        { from_symbol: 'Job.run', to_symbol: 'run', kind: 'calls', confidence: 1, evidence: 'symbol_path wins over name' },
        { from_symbol: 'run', from_path: join('/r', 'b.py'), to_id: syms[0]!.id, kind: 'calls', confidence: 1, evidence: 'absolute path' },
      ] });
      assert.ok(v.ok);
      const res = resolveEndpoints(v.output.edges, syms, { strict: true, repo: '/r' });
      assert.deepEqual(res.unresolved, []);
      assert.deepEqual(res.resolved.map(e => [e.from_id, e.to_id]), [[syms[1]!.id, syms[0]!.id]]);
    });

    it('a non-zero exit is provider_failed with the stderr message', async () => {
      const r = failed(await run('fail.mjs'));
      assert.equal(r.error.code, 'provider_failed');
      assert.match(r.error.message, /exited with code 3/);
      assert.match(r.error.message, /fatal: compile_commands\.json not found in workspace/);
      assert.match(r.stderr_tail, /fatal: compile_commands/);
    });

    it('stdout that is not one JSON object with edges is provider_output_invalid', async () => {
      for (const [mode, msg] of [
        ['text', /not one JSON object .*starts with: "Compiling sightline-fixture/],
        ['array', /got an array/],
        ['edges-not-array', /"edges" must be an array/],
        ['two-objects', /not one JSON object/],
        ['empty', /wrote nothing to stdout/],
      ] as const) {
        const r = failed(await run('not-json.mjs', { args: [mode] }));
        assert.equal(r.error.code, 'provider_output_invalid', mode);
        assert.match(r.error.message, msg, mode);
      }
    });

    it('a missing executable or working directory is provider_spawn_failed', async () => {
      for (const command of ['sightline-no-such-provider-7f3a', join(dir, 'missing', 'provider')]) {
        const r = failed(await runProvider({ name: 'missing', command }, input(), { cwd: repo }));
        assert.equal(r.error.code, 'provider_spawn_failed', command);
        assert.match(r.error.message, /ENOENT/);
      }
      const r = failed(await runProvider({ name: 'x', command: process.execPath }, input(), { cwd: join(dir, 'nope') }));
      assert.equal(r.error.code, 'provider_spawn_failed');
      assert.match(r.error.message, /working directory .* does not exist/);
      await assert.rejects(runProvider({ name: 'Bad Name', command: 'x' }, input(), { cwd: repo }), /invalid reference provider spec/);
    });
  });
});
