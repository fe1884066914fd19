/**
 * overview: the repo map an agent reads first — modules, entry points, central symbols and test suites,
 * ranked by PageRank over the graph (personalised by `focus`), fitted to a token budget.
 *
 * Fitting: the entries of the four lists are interleaved in one priority order (per round: a module,
 * an entry point, two central symbols, a module, an entry point, a central symbol, a test suite; a list
 * that runs out is skipped), and the longest prefix of that order whose Markdown rendering stays within
 * the budget is kept (binary search over the prefix length): whole entries are dropped from the end,
 * never cut mid-line. Tokens are estimated as characters / 4 (`estimateTokens`, the contract's one
 * estimate). The structured answer holds exactly the entries the Markdown shows and stays within the
 * contract's JSON allowance of the surface (`jsonBudget`: twice its max_chars), dropping further entries
 * if not, so invokeTool's `fitJson` never has to cut it.
 */
import { z } from 'zod';
import { defineTool, code, estimateTokens, jsonBudget, CHARS_PER_TOKEN, DEFAULT_MAX_CHARS, plural } from './contract';
import { boundarySchema, nodeLabel, nodeSchema, repoParam, tokenBudgetParam } from './shared';
import { emptyIndexWarnings } from './search_code';
import { ENTRY_KINDS } from '../overview/entries';
import type { OverviewData } from '../services/overview';

export const DEFAULT_BUDGET = 2000;
export const MIN_BUDGET = 200;
/** One round of the priority order (m module, e entry point, c central symbol, t test suite). */
const ROUND = ['m', 'e', 'c', 'c', 'm', 'e', 'c', 't'] as const;
type Section = (typeof ROUND)[number];

const nodeFields = nodeSchema.shape;

const moduleSchema = z.object({
  path: z.string().describe('Folder, repository-relative (. for the root).'),
  repo_id: z.string(),
  own_files_only: z.boolean().describe('True when the folder\'s sub-folders are modules of their own (listed apart).'),
  files: z.number().int().describe('Source files (tests apart).'),
  symbols: z.number().int().describe('Definitions.'),
  languages: z.array(z.string()).describe('Main languages, by lines.'),
  rank: z.number().describe('Share of the rank (0..1) its files and definitions hold.'),
  top_symbols: z.array(z.string()).describe('Its most central definitions (qualified names).'),
});
const entrySchema = z.object({
  ...nodeFields,
  kind_of_entry: z.enum(ENTRY_KINDS).describe('cli (manifest command), main, http_route, package_root, uncalled (nothing calls it; it calls many).'),
  entry_name: z.string().describe('Command, route (GET /users), package or function name.'),
  detail: z.string().describe('How it was recognised.'),
  rank: z.number().describe('Rank relative to the average node (1 = average).'),
});
const centralSchema = z.object({
  ...nodeFields,
  rank: z.number().describe('Rank relative to the average node (1 = average); personalised when focus is given.'),
  dependents: z.number().int().describe('Distinct non-test nodes with an edge into it.'),
});
const testSuiteSchema = z.object({
  path: z.string().describe('Folder of test files.'), repo_id: z.string(),
  files: z.number().int(), test_cases: z.number().int().describe('Test functions/methods (isTestCase).'), languages: z.array(z.string()),
});

const overviewOutput = z.object({
  repos: z.array(z.string()).describe('Repositories covered.'),
  focus: z.object({
    query: z.string(), matched_as: z.enum(['path', 'symbol', 'search', 'none']).describe('How the focus was resolved (none: global ranks).'),
    seeds: z.array(z.string()).describe('First focus nodes (ids).'), total_seeds: z.number().int(),
  }).nullable().describe('The focus, when given.'),
  modules: z.array(moduleSchema).describe('Modules (folders), most central first.'),
  entry_points: z.array(entrySchema).describe('Entry points by kind (cli, main, http_route, package_root, uncalled), then rank; examples last.'),
  central_symbols: z.array(centralSchema).describe('Definitions by rank, test code left out.'),
  test_suites: z.array(testSuiteSchema).describe('Test folders, most test cases first.'),
  totals: z.object({
    files: z.number().int(), source_files: z.number().int(), test_files: z.number().int(), symbols: z.number().int(), edges: z.number().int(),
    modules: z.number().int(), entry_points: z.number().int(), test_suites: z.number().int(), test_cases: z.number().int(),
  }).describe('Counts before fitting.'),
  left_out: z.object({ modules: z.number().int(), entry_points: z.number().int(), central_symbols: z.number().int(), test_suites: z.number().int() }).describe('Entries dropped to fit the budget.'),
  budget: z.number().int().describe('The budget asked for (tokens).'),
  budget_applied: z.number().int().describe('The budget fitted to: budget, or less when the surface allows less.'),
  estimated_tokens: z.number().int().describe('Tokens of the Markdown answer (chars/4); ≤ budget_applied.'),
  ranking: z.object({
    nodes: z.number().int(), edges: z.number().int(), providers: z.array(z.string()),
    cached: z.boolean().describe('True when the ranks of this index state were already computed.'),
    model_ms: z.number().int().describe('Time to load the graph and rank it (0 when cached).'),
    load_ms: z.number().int(), rank_ms: z.number().int().describe('Global PageRank power iteration.'),
    iterations: z.number().int(), focus_ms: z.number().int().describe('Personalised PageRank (both directions).'),
    entry_points_ms: z.number().int(), files_read: z.number().int().describe('Files read to confirm entry points.'),
  }).describe('How the ranks were computed.'),
  notes: z.array(z.string()).describe('Manifests not read, entry points declared but not indexed, a focus that matched nothing.'),
  warnings: z.array(z.string()).describe('Why the map may be empty (nothing indexed yet).'),
  truncated: z.boolean().describe('True when entries were left out to fit the budget.'),
  complete: z.boolean().describe('False when the index is empty or a boundary applies.'),
  boundaries: z.array(boundarySchema).describe('What limits the ranks (heuristic graph only, stale or unparsed files).'),
});
export type OverviewOut = z.output<typeof overviewOutput>;

export const overview = defineTool({
  name: 'overview',
  title: 'Repo map',
  description: 'Read first: the repo map — modules, entry points (main, CLI commands, HTTP routes, package roots), central symbols by PageRank over the call graph, test suites apart; optional focus (path, symbol or free text) personalises the ranks. Fits budget (tokens), dropping whole entries from the end.',
  input: z.object({
    focus: z.string().min(1).max(2000).optional().describe('Rank toward this: a file or folder path, a symbol (id or name), or free text (via search).'),
    repo: repoParam,
    budget: tokenBudgetParam(DEFAULT_BUDGET, 'Token budget of the answer (chars/4).'),
  }),
  output: overviewOutput,
  annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
  examples: [{ budget: 2000 }, { focus: 'src/core/engine.ts', repo: '.', budget: 1000 }],
  async run(args, ctx) {
    const { focus, repo, budget } = args;
    const d = await ctx.engine.overview({ focus, repo });
    const warnings = d.totals.files === 0 ? await emptyIndexWarnings(ctx.engine) : [];
    if (d.totals.files === 0 && !warnings.length) warnings.push(repo ? `nothing of ${repo} is indexed` : 'the index is empty: run index_repo first');
    const surface = ctx.max_chars ?? DEFAULT_MAX_CHARS;
    const applied = Math.max(MIN_BUDGET, Math.min(budget, Math.floor(surface / CHARS_PER_TOKEN)));
    return fitOverview(d, budget, applied, jsonBudget({ max_chars: surface }), warnings);
  },
  render: r => renderOverview(r),
});


/** The longest prefix of the priority order whose Markdown fits `applied` tokens and whose JSON fits `jsonMax` characters. */
export function fitOverview(d: OverviewData, budget: number, applied: number, jsonMax: number, warnings: string[]): OverviewOut {
  const order = priorityOrder({ m: d.modules.length, e: d.entry_points.length, c: d.central_symbols.length, t: d.test_suites.length });
  const counts = (n: number) => { const c = { m: 0, e: 0, c: 0, t: 0 }; for (let i = 0; i < n; i++) c[order[i]!]++; return c; };
  const build = (n: number): OverviewOut => {
    const c = counts(n);
    return {
      repos: d.repos, focus: d.focus,
      modules: d.modules.slice(0, c.m), entry_points: d.entry_points.slice(0, c.e), central_symbols: d.central_symbols.slice(0, c.c), test_suites: d.test_suites.slice(0, c.t),
      totals: d.totals,
      left_out: { modules: d.modules.length - c.m, entry_points: d.entry_points.length - c.e, central_symbols: d.central_symbols.length - c.c, test_suites: d.test_suites.length - c.t },
      budget, budget_applied: applied, estimated_tokens: 0, ranking: d.ranking, notes: d.notes.slice(0, 20), warnings,
      truncated: n < order.length, complete: d.totals.files > 0 && d.boundaries.length === 0, boundaries: d.boundaries,
    };
  };
  const maxChars = applied * CHARS_PER_TOKEN;
  const fits = (o: OverviewOut) => renderOverview(o).length <= maxChars && JSON.stringify(o).length <= jsonMax;
  let lo = 0; let hi = order.length;
  if (!fits(build(hi))) {
    hi--;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (fits(build(mid))) lo = mid; else hi = mid - 1; }
  } else lo = hi;
  const out = build(lo);
  out.estimated_tokens = estimateTokens(renderOverview(out));
  return out;
}

function priorityOrder(sizes: Record<Section, number>): Section[] {
  const left = { ...sizes };
  const out: Section[] = [];
  while (left.m + left.e + left.c + left.t > 0) for (const s of ROUND) if (left[s] > 0) { out.push(s); left[s]--; }
  return out;
}

const pct = (x: number) => `${(x * 100).toFixed(x >= 0.1 ? 0 : 1)}%`;
const shown = (k: number, all: number) => (k < all ? `${k} of ${all}` : `${all}`);

export function renderOverview(r: OverviewOut): string {
  if (r.totals.files === 0) return [`**overview**: nothing indexed${r.repos.length ? ` in ${r.repos.join(', ')}` : ''}.`, ...r.warnings.map(w => `⚠ ${w}`)].join('\n');
  const t = r.totals;
  const focus = r.focus ? `; focus ${code(r.focus.query)} → ${r.focus.matched_as === 'none' ? 'matched nothing (global ranks)' : `${r.focus.matched_as}, ${plural(r.focus.total_seeds, 'node', 'nodes')}`}` : '';
  const lines: string[] = [`**overview** of ${r.repos.join(', ')} — ${t.source_files} source files, ${t.test_files} test files, ${t.symbols} definitions, ${t.edges} edges${focus}`];
  if (r.modules.length) {
    lines.push(`### Modules (${shown(r.modules.length, t.modules)}, by share of rank)`);
    for (const m of r.modules) lines.push(`- ${code(m.path === '.' ? './' : `${m.path}/`)}${m.own_files_only ? ' (own files)' : ''} ${m.files} files, ${m.symbols} defs, ${m.languages.join('/')} · ${pct(m.rank)}${m.top_symbols.length ? ` · ${m.top_symbols.map(s => code(s)).join(', ')}` : ''}`);
  }
  if (r.entry_points.length) {
    lines.push(`### Entry points (${shown(r.entry_points.length, t.entry_points)})`);
    for (const e of r.entry_points) {
      const label = e.kind === 'file' ? e.path : nodeLabel(e);
      const name = e.entry_name !== label && e.entry_name !== e.path ? `${code(e.entry_name)} → ` : '';
      lines.push(`- ${e.kind_of_entry} ${name}${code(label)} ${e.path}:${e.line} — ${e.detail}`);
    }
  }
  if (r.central_symbols.length) {
    lines.push(`### Central symbols (${shown(r.central_symbols.length, r.central_symbols.length + r.left_out.central_symbols)}, PageRank${r.focus?.matched_as && r.focus.matched_as !== 'none' ? ' toward the focus' : ''}; 1 = average)`);
    r.central_symbols.forEach((s, i) => lines.push(`${i + 1}. ${s.kind} ${code(nodeLabel(s))} ${s.path}:${s.line} · rank ${s.rank} · ${s.dependents} dependents`));
  }
  if (r.test_suites.length) {
    lines.push(`### Test suites (${shown(r.test_suites.length, t.test_suites)}; ${t.test_files} files, ${t.test_cases} test cases)`);
    for (const s of r.test_suites) lines.push(`- ${code(s.path === '.' ? './' : `${s.path}/`)} ${s.files} files, ${s.test_cases} test cases, ${s.languages.join('/')}`);
  }
  const lo = r.left_out;
  const dropped = [[lo.modules, 'modules'], [lo.entry_points, 'entry points'], [lo.central_symbols, 'central symbols'], [lo.test_suites, 'test suites']].filter(([n]) => (n as number) > 0).map(([n, w]) => `${n} ${w}`);
  if (dropped.length) lines.push(`_Left out to fit ${r.budget_applied} tokens: ${dropped.join(', ')}; raise budget, or narrow with focus or repo._`);
  for (const n of r.notes.slice(0, 5)) lines.push(`note: ${n}`);
  if (r.notes.length > 5) lines.push(`note: ${r.notes.length - 5} more note(s) in the structured answer`);
  for (const b of r.boundaries) lines.push(`⚠ ${b.kind}: ${b.detail}`);
  return lines.join('\n');
}
