#!/usr/bin/env node
/**
 * Links benchmark.
 *
 * 1. Quality: precision and recall of the HTTP links whose client call lies in the hand-checked sample
 *    files of a public full-stack repository at a pinned commit (bench/links-fastapi-template.json:
 *    facts about that repository, not its code), read from the mirror folder beside the checkout
 *    (../.mirror/<owner>+<name>/repo, or $SIGHTLINE_BENCH_MIRRORS). A predicted link is right when its
 *    client site (path, line) and its handler (path, symbol) are an expected one. Floor: 0.9 each.
 * 2. Cost: on the benchmark workspace ($SIGHTLINE_BENCH_WS, default ../benchdata/ws-1m beside the
 *    checkout) a cold index and then a one-file body edit; the links phase time against the whole run
 *    (target: at most 5% of a cold index), with the sites and links found.
 *
 *   node bench/links.mjs [--skip-ws]     (needs npm run build)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync, readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
const { Engine, invokeTool, findTool } = createRequire(import.meta.url)(join(here, '..', 'dist', 'core.js'));
const MIRRORS = process.env.SIGHTLINE_BENCH_MIRRORS ?? join(here, '..', '..', '.mirror');
const WS = process.env.SIGHTLINE_BENCH_WS ?? join(here, '..', '..', 'benchdata', 'ws-1m');
const FLOOR = 0.9; const COST_TARGET = 0.05;

async function allLinks(engine, args) {
  const out = []; let offset = 0;
  for (;;) {
    const r = await invokeTool(findTool('links'), { ...args, limit: 200, offset }, { engine }, { max_chars: 1_000_000 });
    if (!r.ok) throw new Error(r.markdown);
    out.push(...r.data.links);
    if (r.data.next_offset === null) return out;
    offset = r.data.next_offset;
  }
}

async function quality(specFile) {
  const spec = JSON.parse(readFileSync(join(here, specFile), 'utf8'));
  const mirror = join(MIRRORS, spec.repo.replace('/', '+'), 'repo');
  if (!existsSync(mirror)) return { repo: spec.repo, skipped: `no mirror at ${mirror}` };
  const tmp = mkdtempSync(join(tmpdir(), 'sightline-links-'));
  try {
    const root = join(tmp, spec.repo.split('/')[1]);
    execFileSync('git', ['clone', '-q', '--no-checkout', mirror, root]);
    execFileSync('git', ['-C', root, 'checkout', '-q', spec.commit]);
    const engine = await Engine.open({ roots: [root], dbPath: join(tmp, 'index.sqlite') });
    try {
      const t0 = performance.now();
      const report = await engine.index({});
      const indexMs = performance.now() - t0;
      const links = (await allLinks(engine, { kind: 'http' })).filter(l => spec.sample_files.includes(l.path));
      const key = (path, line, toPath, sym) => `${path}:${line} → ${toPath}:${sym}`;
      const expected = new Set(spec.expected.map(e => key(e.path, e.line, e.to_path, e.to_symbol)));
      const predicted = links.filter(l => l.matched).map(l => key(l.path, l.range.start_line, l.to_path, l.to.split(':').pop()));
      const right = predicted.filter(p => expected.has(p));
      const found = [...expected].filter(e => predicted.includes(e));
      const exact = links.filter(l => l.matched && l.resolution === 'exact').length;
      return {
        repo: spec.repo, commit: spec.commit.slice(0, 12), expected: expected.size, predicted: predicted.length, unmatched_sites: links.filter(l => !l.matched).length,
        precision: +(right.length / Math.max(1, predicted.length)).toFixed(3), recall: +(found.length / Math.max(1, expected.size)).toFixed(3), exact_links: exact,
        index_ms: Math.round(indexMs), links_ms: report.timings.links_ms,
        wrong: predicted.filter(p => !expected.has(p)).slice(0, 5), missed: [...expected].filter(e => !predicted.includes(e)).slice(0, 5),
      };
    } finally { engine.close(); }
  } finally { rmSync(tmp, { recursive: true, force: true }); }
}

async function cost() {
  if (!existsSync(WS)) return { skipped: `no benchmark workspace at ${WS}` };
  const roots = readdirSync(WS).map(d => join(WS, d)).filter(d => existsSync(join(d, '.git')) || true);
  const tmp = mkdtempSync(join(tmpdir(), 'sightline-links-ws-'));
  const engine = await Engine.open({ roots, dbPath: join(tmp, 'index.sqlite') });
  try {
    const cold = await engine.index({});
    const all = await allLinks(engine, {});
    // a one-file body edit: the links phase reads no other file and matches again
    const file = execFileSync('git', ['-C', roots[0], 'ls-files', '*.py', '*.ts', '*.go', '*.rs', '*.java', '*.rb'], { encoding: 'utf8' }).split('\n').filter(Boolean)[0];
    const abs = join(roots[0], file); const before = readFileSync(abs);
    let edit;
    try { writeFileSync(abs, Buffer.concat([before, Buffer.from('\n')])); edit = await engine.index({}); }
    finally { writeFileSync(abs, before); }
    const byKind = {}; for (const l of all) byKind[l.kind] = (byKind[l.kind] ?? 0) + 1;
    return {
      roots: roots.length, files: cold.totals.files_seen, cold_total_ms: cold.timings.total_ms, cold_parse_ms: cold.timings.parse_ms, cold_links_ms: cold.timings.links_ms,
      links_share: +(cold.timings.links_ms / cold.timings.total_ms).toFixed(4), edit_files_parsed: edit.totals.files_parsed, edit_links_ms: edit.timings.links_ms, edit_total_ms: edit.timings.total_ms,
      links: all.length, matched: all.filter(l => l.matched).length, by_kind: byKind,
    };
  } finally { engine.close(); rmSync(tmp, { recursive: true, force: true }); }
}

const q = await quality('links-fastapi-template.json');
console.log('\nLinks quality (hand-checked sample, HTTP client → handler)');
console.table([q]);
let ok = !q.skipped ? q.precision >= FLOOR && q.recall >= FLOOR : true;
if (!process.argv.includes('--skip-ws')) {
  const c = await cost();
  console.log('\nLinks cost on the benchmark workspace');
  console.table([c]);
  if (!c.skipped) ok = ok && c.links_share <= COST_TARGET;
}
console.log(ok ? `\nok: precision and recall ≥ ${FLOOR}, links phase ≤ ${COST_TARGET * 100}% of a cold index` : '\nBELOW FLOOR');
process.exitCode = ok ? 0 : 1;
