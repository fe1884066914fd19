#!/usr/bin/env node
/**
 * Links benchmark.
 *
 * 1. Quality: precision and recall of the HTTP links whose client call lies in the hand-checked sample
 *    files of public full-stack repositories at pinned commits (bench/links-fastapi-template.json: FastAPI
 *    with a generated TypeScript client; bench/links-proshop-mern.json: Express with a React/axios
 *    frontend — facts about those repositories, not their code), read from the mirror folder beside the checkout
 *    (../.mirror/<owner>+<name>/repo, or $SIGHTLINE_BENCH_MIRRORS). A predicted link is right when its
 *    client site (path, line) and its handler (path, symbol) are an expected one. Floor: 0.9 each.
 *    bench/links-bulletproof-react.json (mode client_sites) checks the client sites themselves: in a
 *    React app, axios calls through its api client are client calls and the request-mocking library's
 *    handlers (`http.get(url, async () => …)`) are not; a predicted site is a link whose consumer end lies
 *    in a sample file, matched or not.
 * 2. Cost: on the benchmark workspace ($SIGHTLINE_BENCH_WS, default ../benchdata/ws-1m beside the
 *    checkout) a cold index — the links phase time against the whole run (target: at most 5% of a cold
 *    index), with the sites and links found — then one-file edits (a file without sites, a file of HTTP
 *    routes, a file of SQL queries): the links phase time of each against the cold run's full match.
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

/** The repository at the spec's commit in a temporary folder, indexed; `use` gets the engine and the root. */
async function atCommit(spec, mirror, use) {
  const tmp = mkdtempSync(join(tmpdir(), 'sightline-links-'));
  try {
    const clone = join(tmp, spec.repo.split('/')[1]);
    execFileSync('git', ['clone', '-q', '--no-checkout', mirror, clone]);
    execFileSync('git', ['-C', clone, 'checkout', '-q', spec.commit]);
    const engine = await Engine.open({ roots: [spec.root ? join(clone, spec.root) : clone], dbPath: join(tmp, 'index.sqlite') });
    try { await engine.index({}); return await use(engine); } finally { engine.close(); }
  } finally { rmSync(tmp, { recursive: true, force: true }); }
}

/** A link's consumer site: a matched link's site, or an unmatched one nothing provides (not a route nothing calls). */
const isConsumerSite = l => l.matched || /nothing in the workspace provides it/.test(l.evidence);

/** Precision and recall of the client sites found in the sample files (mode client_sites). */
async function clientSites(spec, mirror) {
  if (!existsSync(mirror)) return { repo: spec.repo, skipped: `no mirror at ${mirror}` };
  return atCommit(spec, mirror, async engine => {
    const links = (await allLinks(engine, { kind: 'http' })).filter(l => spec.sample_files.includes(l.path) && isConsumerSite(l));
    const predicted = [...new Set(links.map(l => `${l.path}:${l.line}`))];
    const expected = new Set(spec.expected_client_sites.map(e => `${e.path}:${e.line}`));
    const right = predicted.filter(p => expected.has(p));
    return {
      repo: spec.repo, commit: spec.commit.slice(0, 12), expected: expected.size, predicted: predicted.length, unmatched_sites: links.filter(l => !l.matched).length,
      precision: +(right.length / Math.max(1, predicted.length)).toFixed(3), recall: +(right.length / Math.max(1, expected.size)).toFixed(3), exact_links: 0,
      wrong: predicted.filter(p => !expected.has(p)).slice(0, 5), missed: [...expected].filter(e => !predicted.includes(e)).slice(0, 5),
    };
  });
}

async function quality(specFile) {
  const spec = JSON.parse(readFileSync(join(here, specFile), 'utf8'));
  const mirror = join(MIRRORS, spec.repo.replace('/', '+'), 'repo');
  if (spec.mode === 'client_sites') return clientSites(spec, mirror);
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
      const predicted = links.filter(l => l.matched).map(l => key(l.path, l.line, l.to_path, l.to.split(':').pop()));
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
    // One-file edits, each a line inserted at the top (every site of the file moves): a file with no
    // sites, a file serving HTTP routes, a file of SQL queries. The links phase matches again only the
    // groups of the sites that changed; the cold run's links time is the full match it replaces.
    const repoOf = id => id.split(':')[1]; // <type>:<repo_id>:…; repo ids hold no ':'
    const linked = new Set(all.flatMap(l => [`${repoOf(l.from)}\0${l.path}`, l.to_path ? `${repoOf(l.to)}\0${l.to_path}` : '']));
    const rootOf = id => engine.roots.find(r => r.repo_id === id)?.root;
    const route = all.find(l => l.kind === 'http' && l.matched);
    const sql = all.find(l => l.kind === 'sql' && l.path.endsWith('.py'));
    const first = engine.roots[0];
    const plainFile = execFileSync('git', ['-C', first.root, 'ls-files', '*.py', '*.ts', '*.go', '*.rs', '*.java', '*.rb'], { encoding: 'utf8' }).split('\n').filter(Boolean)
      .find(f => !linked.has(`${first.repo_id}\0${f}`));
    const edits = [
      ['no sites', first.root, plainFile],
      ['HTTP routes', route && rootOf(repoOf(route.to)), route?.to_path],
      ['SQL queries', sql && rootOf(repoOf(sql.from)), sql?.path],
    ];
    const editRows = [];
    for (const [what, root, file] of edits) {
      if (!root || !file) { editRows.push({ edit: what, skipped: 'no such file' }); continue; }
      const abs = join(root, file); const before = readFileSync(abs);
      const comment = /\.(py|rb)$/.test(file) ? '# edited\n' : '// edited\n';
      let edit;
      try { writeFileSync(abs, Buffer.concat([Buffer.from(comment), before])); edit = await engine.index({}); }
      finally { writeFileSync(abs, before); }
      editRows.push({ edit: what, file, files_parsed: edit.totals.files_parsed, links_ms: edit.timings.links_ms, total_ms: edit.timings.total_ms, full_match_ms: cold.timings.links_ms });
      await engine.index({}); // back to the original
    }
    const edit = editRows[0];
    const byKind = {}; for (const l of all) byKind[l.kind] = (byKind[l.kind] ?? 0) + 1;
    return {
      roots: roots.length, files: cold.totals.files_seen, cold_total_ms: cold.timings.total_ms, cold_parse_ms: cold.timings.parse_ms, cold_links_ms: cold.timings.links_ms,
      links_share: +(cold.timings.links_ms / cold.timings.total_ms).toFixed(4),
      links: all.length, matched: all.filter(l => l.matched).length, by_kind: byKind, edits: editRows,
    };
  } finally { engine.close(); rmSync(tmp, { recursive: true, force: true }); }
}

const qs = [];
for (const spec of ['links-fastapi-template.json', 'links-proshop-mern.json', 'links-bulletproof-react.json']) qs.push(await quality(spec));
console.log('\nLinks quality (hand-checked samples: HTTP client → handler; bulletproof-react: client sites, mock handlers are none)');
console.table(qs);
let ok = qs.every(q => q.skipped || (q.precision >= FLOOR && q.recall >= FLOOR));
if (!process.argv.includes('--skip-ws')) {
  const c = await cost();
  console.log('\nLinks cost on the benchmark workspace');
  const { edits, ...rest } = c;
  console.table([rest]);
  if (edits) { console.log('\nOne-file edits (a line inserted at the top): links phase against the full match of the cold run'); console.table(edits); }
  if (!c.skipped) ok = ok && c.links_share <= COST_TARGET;
}
console.log(ok ? `\nok: precision and recall ≥ ${FLOOR}, links phase ≤ ${COST_TARGET * 100}% of a cold index` : '\nBELOW FLOOR');
process.exitCode = ok ? 0 : 1;
