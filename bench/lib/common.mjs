// Shared helpers for the speed/memory benchmark (bench/run.mjs and its child jobs).
import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const PROJECT_DIR = resolve(BENCH_DIR, '..');
/** dist/ of the build under test; SIGHTLINE_DIST overrides (e.g. to compare two builds). */
export const DIST_DIR = resolve(process.env.SIGHTLINE_DIST ?? join(PROJECT_DIR, 'dist'));

const require = createRequire(import.meta.url);

/** The engine library (CommonJS bundle). */
export function loadCore() {
  const file = join(DIST_DIR, 'core.js');
  if (!existsSync(file)) throw new Error(`${file} is missing; run "npm run build" first`);
  return require(file);
}

/** web-tree-sitter as the bundle was built from (same package, from the project's node_modules). */
export function loadTreeSitter() {
  return createRequire(join(PROJECT_DIR, 'package.json'))('web-tree-sitter');
}

/** Peak resident set size of this process (all threads) in bytes: VmHWM, else getrusage maxRSS. */
export function peakRssBytes() {
  try {
    const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch { /* not Linux */ }
  return process.resourceUsage().maxRSS * 1024;
}

export function currentRssBytes() {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch { /* not Linux */ }
  return process.memoryUsage().rss;
}

/** CPU seconds (user + system, all threads of this process) since `start` (a process.cpuUsage() value). */
export function cpuSecondsSince(start) {
  const d = process.cpuUsage(start);
  return { user_s: d.user / 1e6, system_s: d.system / 1e6, total_s: (d.user + d.system) / 1e6 };
}

/** Deterministic PRNG (mulberry32). */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export const MB = 1024 * 1024;
export const round = (x, d = 2) => (Number.isFinite(x) ? Math.round(x * 10 ** d) / 10 ** d : x);

/** Runs one named job of a child process and writes its result (JSON) to `resultFile`; exits 0, or 1 on failure. */
export async function runJob(jobs, job, resultFile, log) {
  try {
    if (!jobs[job]) throw new Error(`unknown job ${job}`);
    const result = await jobs[job]();
    writeFileSync(resultFile, JSON.stringify(result, null, 2));
    process.exit(0);
  } catch (e) {
    log(`failed: ${e?.stack ?? e}`);
    process.exit(1);
  }
}
