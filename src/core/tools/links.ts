import { z } from 'zod';
import { defineTool, code, budgeted, pageInput, pageOutput, page, pageNotice, plural } from './contract';
import { completeness, nodeSchema, pathParam, repoParam, matchedBySchema, nodeLabel, renderUnresolved } from './shared';
import { toNodeRef, resolutionOf, type Boundary } from '../graph/query';
import { SightlineError } from '../errors';
import type { ToolServices } from './services';
import { RECOGNISED_IDS, LINK_KINDS, parseKeyNode, type LinkKind, type LinkRow } from '../services/links';

const linkSchema = z.object({
  kind: z.enum(LINK_KINDS).describe('http (route↔client), env, config, sql (table↔query/model), topic (producer↔consumer), flag.'),
  from: z.string().describe('The consumer\'s node id (client call, reader, query, subscriber, flag check; its definition or file), or the provider\'s when unmatched.'),
  to: z.string().describe('The provider\'s node id (route handler, .env/config file, model, producer), or a key node (route:GET /users/{id}, env:X, table:t, topic:kafka:t, flag:f) when unmatched.'),
  path: z.string().describe('File of the site (the from side): the call, read, query or declaration.'),
  line: z.number().int().describe('Line of the site, 1-based.'),
  to_path: z.string().nullable().describe('File of the provider site (another repository is normal: see the to id); null when unmatched, or matched through a shared key nothing defines (to is the key node).'),
  to_line: z.number().int().nullable().describe('Line of the provider site, or null as to_path.'),
  key: z.string().describe('The key as the provider spells it (GET /users/{id}, DATABASE_URL, users, kafka:orders).'),
  matched: z.boolean().describe('False: nothing in the workspace answers it (external service, prefix set elsewhere, unrecognised API).'),
  resolution: z.enum(['exact', 'best_effort']).describe('exact when confidence ≥ 0.9.'),
  confidence: z.number().describe('0..1: the sites\' extraction confidence times how exactly the keys match; unmatched ≤ 0.5.'),
  evidence: z.string().describe('Which rules recognised the sites and how the keys matched.'),
});

function toLink(l: LinkRow): z.infer<typeof linkSchema> {
  return { kind: l.kind, from: l.from_id, to: l.to_id, path: l.path, line: l.line, to_path: l.to_path, to_line: l.to_path ? l.to_line : null,
    key: l.key, matched: l.matched, resolution: resolutionOf(l.confidence), confidence: l.confidence, evidence: l.evidence };
}

/** Key nodes a bare name may stand for (`SHOP_PAYMENT_KEY` → `env:SHOP_PAYMENT_KEY`, `orders` → `table:orders`). */
const KEY_PREFIXES = ['env', 'config', 'table', 'flag', 'topic'] as const;

/** The links of the key node a bare name names, when it names no symbol (null: none does, or a symbol does). */
type LinkReaderLike = Awaited<ReturnType<ToolServices['links']>>;
function keyRows(reader: LinkReaderLike, name: string, repo_id: string | undefined, matched: boolean | undefined): { node: string; rows: LinkRow[] } | null {
  if (/\s/.test(name) || name.includes(':')) return null;
  for (const prefix of KEY_PREFIXES) {
    const node = `${prefix}:${name}`;
    const rows = reader.query({ keyNode: node, repo_id, matched });
    if (rows.length) return { node, rows };
  }
  return null;
}

/** What limits a links answer: always heuristic; sites with no counterpart; nothing stored at all. */
function linkBoundaries(reader: LinkReaderLike, rows: readonly LinkRow[], kind: LinkKind | undefined, unmatched: number): Boundary[] {
  const kinds = [...new Set(kind ? [kind] : rows.length ? rows.map(l => l.kind) : LINK_KINDS)] as LinkKind[];
  const recognised = kinds.map(k => `${k}: ${RECOGNISED_IDS[k].join(', ')}`).join(' | ');
  const heuristic = `links are read from source text by recognising these APIs (rule ids; docs/links.md spells them out)`
    + ` — ${recognised}. Wrappers, names built at run time and other frameworks are not seen`;
  const boundaries: Boundary[] = [{ kind: 'heuristic_only', detail: heuristic }];
  if (unmatched) boundaries.push({ kind: 'dynamic_names', detail: `${plural(unmatched, 'site has', 'sites have')} no counterpart in the workspace (matched=false): an external service, a mount prefix or base URL set elsewhere, or an API not recognised` });
  if (!reader.count()) boundaries.push({ kind: 'unparsed_files', detail: 'no links are stored: index the workspace (index_repo) first, or it recognises none of the APIs above' });
  return boundaries;
}

export const links = defineTool({
  name: 'links',
  title: 'Cross-boundary links',
  description: 'Edges no language server sees: HTTP route↔client call (any language pair), env var/config key↔readers, SQL table↔queries/ORM models, message topic producer↔consumer, feature flag↔checks. symbol: a node, or a key node (route:GET /users/{id}, env:X, table:t); none: all links, paged. Unmatched sites are listed (matched=false).',
  input: z.object({
    symbol: z.string().min(1).max(1000).optional().describe('A node id or name (links from or to it and its body), or a key node: route:GET /x, env:X, config:a.b, table:t, topic:kafka:t, flag:f.'),
    path: pathParam.describe('A file: its links (or the file narrowing symbol).'),
    repo: repoParam,
    kind: z.enum(LINK_KINDS).optional().describe('Only this kind.'),
    matched: z.boolean().optional().describe('Only matched (true) or unmatched (false) links.'),
    ...pageInput(20),
  }),
  output: z.object({
    symbol: z.string().nullable().describe('The symbol argument as given.'),
    resolved: z.array(nodeSchema).describe('The node the symbol resolved to (empty for a key node or no symbol).'),
    ambiguous: z.array(nodeSchema).describe('Candidates when several symbols match: call again with one id.'),
    matched_by: matchedBySchema,
    links: z.array(linkSchema).describe('Links, matched first, strongest first.'),
    total_unmatched: z.number().int().describe('Links among all pages with nothing on the other side.'),
    ...pageOutput,
    ...completeness,
  }),
  annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
  paged: 'links',
  examples: [
    { symbol: 'UserService.lookup', path: 'src/users.ts', repo: '.', kind: 'http', matched: true, limit: 20, offset: 0 },
    { symbol: 'env:DATABASE_URL' },
  ],
  async run(args, ctx) {
    const { symbol, path, repo, kind, matched, limit, offset } = args;
    const reader = await ctx.engine.links();
    const answer = (found: LinkRow[], matchedBy: string | null, resolvedTo: ReturnType<typeof toNodeRef>[]) => {
      const all = kind ? found.filter(l => l.kind === kind) : found;
      const slice = all.slice(offset, offset + limit);
      const unmatched = all.filter(l => !l.matched).length;
      return { symbol: symbol ?? null, resolved: resolvedTo, ambiguous: [], matched_by: matchedBy, links: slice.map(toLink), total_unmatched: unmatched,
        ...page(all.length, offset, limit, slice.length), complete: false, boundaries: linkBoundaries(reader, all, kind, unmatched) };
    };
    const repo_id = ctx.engine.repoFilter(repo);
    let resolved: ReturnType<typeof toNodeRef>[] = []; let matched_by: string | null = null;
    let rows: LinkRow[];
    if (symbol && parseKeyNode(symbol)) rows = reader.query({ keyNode: symbol, repo_id, matched });
    else if (symbol) {
      const g = await ctx.engine.graph();
      let r: ReturnType<typeof g.resolveOne>;
      try { r = g.resolveOne(symbol, { repo_id, path }); } catch (e) {
        // no symbol has that name: the key of that name, if some site reads or defines it
        const found = e instanceof SightlineError && e.code === 'not_found' && !path ? keyRows(reader, symbol, repo_id, matched) : null;
        if (!found) throw e;
        return answer(found.rows, `the key ${found.node} (no symbol is named ${symbol})`, []);
      }
      if (!r.target) {
        return { symbol, resolved: [], ambiguous: r.ambiguous.map(toNodeRef), matched_by: r.matched_by, links: [], total_unmatched: 0, ...page(0, offset, limit, 0), complete: false,
          boundaries: [{ kind: 'ambiguous_target' as const, detail: `${r.ambiguous.length} definitions match ${symbol}; call again with one of their ids (or add path)` }] };
      }
      const t = toNodeRef(r.target); resolved = [t]; matched_by = r.matched_by;
      const ids = [...new Set(r.group.map(n => toNodeRef(n).id))];
      const body = t.kind === 'file' ? { start_line: 1, end_line: 1e9 } : { start_line: r.target.start_line, end_line: r.target.end_line };
      rows = reader.query({ ids, at: { repo_id: r.target.repo_id, path: t.path, ...body }, kind, matched });
    } else if (path) {
      const { root, rel } = ctx.engine.relativeToRoot(path);
      rows = reader.query({ at: { repo_id: root.repo_id, path: rel, start_line: 1, end_line: 1e9 }, kind, matched });
    } else rows = reader.query({ repo_id, kind, matched });
    return answer(rows, matched_by, resolved);
  },
  render(r, budget) {
    if (r.symbol && !r.resolved.length && r.ambiguous.length) return renderUnresolved('links', r.symbol, r.ambiguous);
    const what = r.resolved[0] ? ` of ${code(nodeLabel(r.resolved[0]))}` : r.symbol ? ` of ${code(r.symbol)}` : '';
    const head = `**links**${what} — ${plural(r.total, 'link', 'links')} (${r.total - r.total_unmatched} matched); lower bound`;
    const other = (l: (typeof r.links)[number]) => (l.to_path ? `${l.to_path}:${l.to_line} ${code(l.to)}`
      : l.matched ? `${code(l.to)} (shared key: read elsewhere too)` : `_unmatched_ ${code(l.to)}`);
    const items = r.links.map(l => `- ${l.kind} ${code(l.key)} ${l.path}:${l.line} → ${other(l)} · ${l.resolution} ${l.confidence} — ${l.evidence}`);
    const footer = [pageNotice(r, 'links'), ...r.boundaries.map(b => `⚠ ${b.kind}: ${b.detail}`)].filter(Boolean).join('\n');
    return budgeted(head, items, footer, budget);
  },
});
