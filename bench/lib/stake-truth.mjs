// What really runs: a project's own test suite run under a tracer (bench/lib/stake_trace.py for
// Python, bench/lib/stake_trace.rb for Ruby), offline, and the trace read back as dynamic truth for
// bench/stake.mjs. Pure helpers apart from `runTracer`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BENCH_DIR } from './common.mjs';

const LIB = join(BENCH_DIR, 'lib');

/**
 * Runs the project's test suite under the tracer in a network namespace with only loopback up
 * (`unshare -n`): no test can dial out. Returns the trace file; throws when the namespace cannot be
 * made (the suite is never run with the network reachable) or no trace was written.
 */
export function runTracer(project, out, log) {
  mkdirSync(dirname(out), { recursive: true });
  const { command, env } = tracerCommand(project, out);
  const inner = `ip link set lo up 2>/dev/null || true; exec ${command}`;
  log(`${project.name}: running its test suite under the tracer (offline): ${command}`);
  const t0 = performance.now();
  const r = spawnSync('unshare', ['-n', 'sh', '-c', inner], {
    cwd: project.dir, env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 1 << 28,
  });
  if (r.error) throw new Error(`unshare -n could not run (${r.error.message}); the suite is never run online`);
  const tail = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n').slice(-3).join(' | ');
  log(`${project.name}: suite exited ${r.status} in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${tail}`);
  if (!existsSync(out)) throw new Error(`${project.name}: the tracer wrote no trace (exit ${r.status}): ${tail}`);
  const tests = JSON.parse(readFileSync(out, 'utf8')).tests.length;
  if (!tests) {
    rmSync(out);
    throw new Error(`${project.name}: no test ran under the tracer (exit ${r.status}): ${tail}`);
  }
  return out;
}

function tracerCommand(project, out) {
  const quoted = (args) => args.map(a => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  if (project.kind === 'python') {
    const pythonPath = [LIB, ...project.pythonPath.map(p => join(project.dir, p))].join(':');
    const args = ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', '-p', 'stake_trace', ...project.testArgs];
    return {
      command: quoted([project.python, ...args]),
      env: { STAKE_ROOT: project.dir, STAKE_OUT: out, PYTHONPATH: pythonPath },
    };
  }
  if (project.kind === 'ruby') {
    const args = ['-I', LIB, '-r', 'stake_trace', ...project.testArgs];
    return { command: quoted(['ruby', ...args]), env: { STAKE_ROOT: project.dir, STAKE_OUT: out } };
  }
  throw new Error(`no tracer for ${project.kind}`);
}

/**
 * The trace as graphs over truth functions (indexes into `functions`):
 *   callersOf: callee → Set(caller), direct calls only (no library frame between the two);
 *   testsOf: function → Set(test function) that executed it while the test ran.
 */
export function readTruth(file) {
  const raw = JSON.parse(readFileSync(file, 'utf8'));
  const functions = raw.functions.map(([path, qualname, line, isTest], i) => ({ i, path, qualname, line, isTest }));
  const callersOf = new Map();
  let viaLibrary = 0;
  for (const [caller, callee, via] of raw.edges) {
    if (via) { viaLibrary++; continue; }
    if (!callersOf.has(callee)) callersOf.set(callee, new Set());
    callersOf.get(callee).add(caller);
  }
  const testFn = raw.tests.map(t => t[0]);
  const testsOf = new Map();
  for (const [fn, tests] of Object.entries(raw.executed)) {
    testsOf.set(Number(fn), new Set(tests.map(t => testFn[t])));
  }
  return { functions, callersOf, testsOf, edges: raw.edges.length, viaLibrary, tests: testFn.length, testsRan: new Set(testFn) };
}

/** Every node reaching `target` over `callersOf` within `depth` edges (Infinity: any), target excluded. */
export function callersWithin(callersOf, target, depth) {
  const seen = new Set([target]);
  let frontier = [target];
  for (let d = 1; d <= depth && frontier.length; d++) {
    const next = [];
    for (const n of frontier) {
      for (const c of callersOf.get(n) ?? []) if (!seen.has(c)) { seen.add(c); next.push(c); }
    }
    frontier = next;
  }
  seen.delete(target);
  return seen;
}

/**
 * Maps each truth function to the index's node id: the symbol of that file whose symbol path is the
 * qualified name, else the innermost symbol whose lines hold the definition line (decorators put the
 * traced first line above the `def`), else the file node for module-level code. `ids.own` holds the
 * functions mapped to a function or method symbol of their own (not to an enclosing class or file: a
 * method a class defines at run time, a lambda), the ones an agent can ask about by name.
 */
export function mapToNodes(functions, symbolsOf, fileNodeId) {
  const ids = new Map();
  ids.own = new Set();
  for (const f of functions) {
    const symbols = symbolsOf(f.path);
    if (!symbols) continue;
    if (f.qualname === '<module>') { ids.set(f.i, fileNodeId(f.path)); continue; }
    const named = byPathNear(symbols, f) ?? byNameNear(symbols, f);
    const hit = named ?? innermostAt(symbols, f.line);
    if (hit) ids.set(f.i, hit.id);
    if (named && FUNCTION_KINDS.has(named.kind)) ids.own.add(f.i);
  }
  return ids;
}

const FUNCTION_KINDS = new Set(['function', 'method']);

/** The definition with the qualified name (or a later one of it, `name~2`: overloads) nearest the traced line. */
function byPathNear(symbols, f) {
  const same = symbols.filter(s => s.symbol_path === f.qualname || s.symbol_path?.startsWith(`${f.qualname}~`));
  return same.sort((a, b) => Math.abs(a.start_line - f.line) - Math.abs(b.start_line - f.line))[0];
}

/** The symbol named like the function's last name, starting at its traced line or just below it. */
function byNameNear(symbols, f) {
  const name = f.qualname.slice(f.qualname.lastIndexOf('.') + 1);
  const near = symbols.filter(s => s.name === name && s.start_line >= f.line - 1 && s.start_line <= f.line + 8);
  return near.sort((a, b) => Math.abs(a.start_line - f.line) - Math.abs(b.start_line - f.line))[0];
}

/** The smallest symbol whose lines hold `line`. */
function innermostAt(symbols, line) {
  let best = null;
  for (const s of symbols) {
    if (s.start_line > line || s.end_line < line) continue;
    if (!best || s.end_line - s.start_line < best.end_line - best.start_line) best = s;
  }
  return best;
}
