import { z } from 'zod';
import type { ToolServices } from './services';
import { peerNotices } from './external';
import { defineTool, code, budgeted, pageInput, pageOutput, page, pageNotice, plural } from './contract';
import { nodeSchema, pathParam, repoParam, symbolParam, matchedBySchema, nodeLabel, renderUnresolved } from './shared';
import { toNodeRef } from '../graph/query';
import { SightlineError } from '../errors';

export const commitSchema = z.object({
  sha: z.string().describe('Commit id.'), date: z.string().describe('Author date (ISO 8601).'),
  author: z.string().describe('Author name.'), subject: z.string().describe('First line of the message.'),
});
export const partnerSchema = z.object({
  path: z.string().describe('Repository-relative path of the partner file.'),
  together_count: z.number().int().describe('Counted commits touching both files.'),
  coupling: z.number().describe('together_count / sqrt(churn of each), 0..1.'),
});
export const historyStateSchema = z.object({
  available: z.boolean().describe('False when there is no history (see reason).'),
  reason: z.string().nullable().describe('Why there is no history: not a git repository, no commits, …'),
  shallow: z.boolean().describe('Shallow clone: counts stop at its graft point.'),
  truncated: z.boolean().describe('Older commits exist beyond the 500 mined.'),
  last_mined_commit: z.string().nullable().describe('HEAD when history was last mined.'),
}).describe('How sure the counts are.');

export const history = defineTool({
  name: 'history',
  title: 'Git history of a symbol or file',
  description: 'Commits touching a symbol (or file), co-change partners, churn. Counts over the last 500 non-merge commits of its repository, commits touching >50 indexed files left out: churn = commits touching the file, together_count = commits touching both; partners ranked by coupling; Markdown takes part. Symbol commits: hunks over its range (heuristic on parallel branches).',
  input: z.object({
    symbol: symbolParam.optional(),
    path: pathParam.describe('A file, or the file narrowing symbol.'),
    repo: repoParam,
    ...pageInput(20),
  }),
  output: z.object({
    symbol: z.string().nullable().describe('The symbol argument as given.'),
    path: z.string().nullable().describe('The file whose churn and partners are given.'),
    resolved: z.array(nodeSchema).describe('The node the symbol resolved to.'),
    ambiguous: z.array(nodeSchema).describe('Candidates when several symbols match.'),
    matched_by: matchedBySchema,
    commits: z.array(commitSchema).describe('Commits touching the symbol (or file), newest first.'),
    co_change: z.array(partnerSchema).describe('Files that usually change with the file, strongest first (at most 10).'),
    churn: z.number().int().describe('Counted commits touching the file.'),
    former_paths: z.array(z.string()).describe('Earlier names of the file (renames followed).'),
    history: historyStateSchema,
    external: z.array(z.object({
      source: z.string().describe('The adapter that answered.'), title: z.string().describe('Its title.'), uri: z.string().nullable().describe('Where it lives.'),
      date: z.string().nullable().describe('Its date as the adapter says.'), snippet: z.string().nullable().describe('A short excerpt (at most 300 characters).'),
    })).describe('History items of the configured adapters with a history operation (tickets, reviews, decisions about this file; first page only).'),
    external_notices: z.array(z.string()).describe('Adapters that failed, timed out or are cooling down.'),
    ...pageOutput,
  }),
  annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
  paged: 'commits',
  examples: [{ symbol: 'UserService.lookup', path: 'src/users.ts', repo: '.', limit: 20, offset: 0 }],
  async run(args, ctx) {
    const { symbol, path, repo, limit, offset } = args;
    if (!symbol && !path) throw new SightlineError('invalid_arguments', 'history needs symbol or path');
    const h = await ctx.engine.history();
    const empty = { commits: [], co_change: [], churn: 0, former_paths: [] };
    let repoId: string, file: string, shas: string[], resolved: ReturnType<typeof toNodeRef>[] = [], matched_by: string | null = null;
    if (symbol) {
      const g = await ctx.engine.graph();
      const r = g.resolveOne(symbol, { repo_id: ctx.engine.repoFilter(repo), path });
      if (!r.target) {
        return { symbol, path: path ?? null, resolved: [], ambiguous: r.ambiguous.map(toNodeRef), matched_by: r.matched_by, ...empty, external: [], external_notices: [],
          history: { available: false, reason: r.ambiguous.length ? 'ambiguous symbol' : 'symbol not found', shallow: false, truncated: false, last_mined_commit: null }, ...page(0, offset, limit, 0) };
      }
      const n = toNodeRef(r.target);
      resolved = [n]; matched_by = r.matched_by; repoId = r.target.repo_id; file = n.path;
      shas = n.kind === 'file' ? h.file(repoId, file).shas : h.symbolShas(n.id);
    } else {
      const { root, rel } = ctx.engine.relativeToRoot(path!);
      repoId = root.repo_id; file = rel; shas = h.file(repoId, file).shas;
    }
    const f = h.file(repoId, file);
    const slice = shas.slice(offset, offset + limit);
    const ext = offset === 0 ? await adapterHistory(ctx.engine, resolved[0] ? `${file}:${resolved[0].line}` : file, ctx.signal) : { external: [], external_notices: [] };
    return { ...ext,
      symbol: symbol ?? null, path: file, resolved, ambiguous: [], matched_by,
      commits: h.commits(repoId, slice), co_change: h.partners(repoId, file, 10), churn: f.churn, former_paths: f.former_paths,
      history: h.availability(repoId, file), ...page(shas.length, offset, limit, slice.length),
    };
  },
  render(r, budget) {
    if (r.symbol && !r.resolved.length && r.ambiguous.length) return renderUnresolved('history', r.symbol, r.ambiguous);
    const what = r.resolved[0] ? code(nodeLabel(r.resolved[0])) : code(r.path ?? r.symbol ?? '');
    if (!r.history.available) return `**history** of ${what}: no history — ${r.history.reason}.`;
    const window = r.history.shallow ? ' (shallow clone: a lower bound)'
      : r.history.truncated ? ' in the last 500 commits of this repository (older ones are not mined)' : '';
    const head = `**history** of ${what} — ${plural(r.total, 'commit', 'commits')}${window}; churn ${r.churn}`;
    const items = r.commits.map(c => `- ${c.sha.slice(0, 10)} ${c.date.slice(0, 10)} ${c.author}: ${c.subject}`);
    const partners = r.co_change.length ? `Usually changes with: ${r.co_change.map(p => `${code(p.path)} ×${p.together_count}`).join(', ')}` : '';
    const ext = r.external.map(x => `- [${x.source}] ${x.uri ? `[${x.title}](${x.uri})` : x.title}${x.date ? ` · ${x.date.slice(0, 10)}` : ''}`);
    return budgeted(head, [...items, ...ext], [partners, pageNotice(r, 'commits'), ...r.external_notices.map(n => `⚠ ${n}`)].filter(Boolean).join('\n'), budget);
  },
});

/** What the adapters with a history operation say about a target (`path` or `path:line`), each bounded by its timeout. */
async function adapterHistory(engine: ToolServices, target: string, signal?: AbortSignal): Promise<{ external: { source: string; title: string; uri: string | null; date: string | null; snippet: string | null }[]; external_notices: string[] }> {
  const answer = await (await engine.adapters()).search(target, 10, { signal, ops: ['history'], inputs: { target } });
  const str = (v: unknown, n: number) => (typeof v === 'string' && v ? v.slice(0, n) : null);
  return {
    external: answer.results.flatMap(r => r.items.map(it => ({ source: r.adapter, title: str(it.title, 200) ?? '(untitled)', uri: str(it.uri, 500), date: str(it.date, 40), snippet: str(it.snippet, 300) }))),
    external_notices: peerNotices(answer),
  };
}

export const coChangeEvidenceSchema = z.array(z.object({
  path: z.string().describe('A changed (or target) file.'), partner: z.string().describe('A file that usually changes with it and is not in the change.'),
  together_count: z.number().int().describe('Counted commits touching both.'), coupling: z.number().describe('together_count / sqrt(churn of each).'),
})).describe('Git co-change evidence, labelled apart from the graph (never an edge): partners not in the change.');

/** Co-change partners of `paths` that are not among them (together ≥ 2, coupling ≥ 0.3, at most 3 a file, 10 in all). */
export function coChangeEvidence(h: { partners(repoId: string, path: string, limit?: number): { path: string; together_count: number; coupling: number }[] }, files: readonly { repo_id: string; path: string }[]) {
  const inChange = new Set(files.map(f => f.path));
  const out: { path: string; partner: string; together_count: number; coupling: number }[] = [];
  for (const f of files) {
    for (const x of h.partners(f.repo_id, f.path, 10).filter(x => x.together_count >= 2 && x.coupling >= 0.3 && !inChange.has(x.path)).slice(0, 3)) {
      if (out.length >= 10) return out;
      out.push({ path: f.path, partner: x.path, together_count: x.together_count, coupling: Math.round(x.coupling * 1000) / 1000 });
    }
  }
  return out;
}
