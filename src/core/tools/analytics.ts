/**
 * analytics(kind): whole-repository structural views for planning and review — dependency cycles,
 * communities, dead-code candidates, hotspots. The algorithms are in `src/core/analytics/` (one file
 * per kind, each header states its rules); the data comes from `services/analytics.ts`.
 */
import { z } from 'zod';
import { defineTool, code, budgeted, pageInput, pageOutput, page, pageNotice, plural } from './contract';
import { completeness, edgeSchema, nodeLabel, nodeSchema, repoParam } from './shared';
import { toNodeRef, resolutionOf, type Boundary } from '../graph/query';
import { pathMatcher } from '../analytics/filter';
import { findCycles, CYCLE_MIN_CONFIDENCE } from '../analytics/cycles';
import { findCommunities, type Community, type CommunityLevel } from '../analytics/communities';
import { findDeadCode } from '../analytics/dead_code';
import { findHotspots } from '../analytics/hotspots';
import type { AnalyticsSource, RepoModel } from '../services/analytics';

const KINDS = ['cycles', 'communities', 'dead_code', 'hotspots'] as const;
/** Members and edges listed per cycle, files and members per community. */
const MEMBER_CAP = 12; const EDGE_CAP = 10; const FILE_CAP = 10; const TOP_CAP = 5;

const cycleSchema = z.object({
  repo_id: z.string().describe('Repository.'),
  size: z.number().int().describe('Members in the strongly connected component.'),
  members: z.array(nodeSchema).describe(`Members by path (first ${MEMBER_CAP}).`),
  cycle: z.array(z.string()).describe('One shortest closed walk through the first member: ids in order, the first again last.'),
  edges: z.array(edgeSchema).describe(`Edges between members that close it, strongest first (first ${EDGE_CAP}).`),
  edge_count: z.number().int().describe('Edges between members.'),
  fan_in: z.number().int().describe('Edges entering the cycle from outside.'),
  min_confidence: z.number().describe('Weakest edge between members.'),
});
const communityFileSchema = z.object({
  path: z.string().describe('File.'),
  members: z.number().int().optional().describe('Symbol level: members in it.'),
});
const communitySchema = z.object({
  repo_id: z.string().describe('Repository.'),
  community_id: z.number().int().describe('Index in this answer (largest first).'),
  label: z.string().describe('Most common folder of its members.'),
  size: z.number().int().describe('Members (files or symbols).'),
  files: z.array(communityFileSchema).describe(`Its files (first ${FILE_CAP}): file level, most connected first; symbol level, most members first.`),
  file_count: z.number().int().describe('Distinct files.'),
  top_members: z.array(nodeSchema).optional().describe('Symbol level: the most connected members inside it.'),
  internal_weight: z.number().describe('Summed confidence of edges inside.'),
  external_weight: z.number().describe('Summed confidence of edges leaving.'),
});
const deadSchema = z.object({
  node: nodeSchema,
  reasons: z.array(z.string()).describe('Each check it passed, and caveats.'),
  confidence: z.number().describe('0..1, below exact: the heuristic graph misses some uses.'),
  resolution: z.enum(['exact', 'best_effort']).describe('Projection of confidence.'),
  lines: z.number().int().describe('Lines of the definition.'),
});
const hotspotSchema = z.object({
  node: nodeSchema,
  lines: z.number().int().describe('Lines.'),
  branches: z.number().int().describe('Branch keywords (if, for, while, case, catch, …) in its text.'),
  complexity: z.number().int().describe('lines × (1 + branches).'),
  churn: z.number().int().describe('Mined commits touching it (0 without history).'),
  score: z.number().describe('complexity × churn, or complexity when ranked_by is complexity.'),
});

const outputSchema = z.object({
  kind: z.enum(KINDS).describe('The view.'),
  level: z.enum(['file', 'symbol']).describe('Graph level used.'),
  results: z.array(z.union([cycleSchema, communitySchema, deadSchema, hotspotSchema])).describe('Shaped per kind: cycles, communities, dead-code candidates or hotspots, most important first.'),
  repos: z.array(z.object({
    repo_id: z.string().describe('Repository.'),
    nodes: z.number().int().describe('Nodes in the analysed graph (or candidates examined).'),
    edges: z.number().int().describe('Edges in the analysed graph.'),
    modularity: z.number().nullable().describe('communities: modularity of the partition.'),
    excluded_name_only_edges: z.number().int().nullable().describe('cycles: name-only edges left out.'),
    history_available: z.boolean().nullable().describe('hotspots: whether churn was available.'),
  })).describe('Per repository: graph size and kind-specific figures.'),
  ranked_by: z.enum(['complexity_x_churn', 'complexity', 'size', 'confidence']).describe('How results are ordered.'),
  ...pageOutput,
  ...completeness,
});
type Out = z.infer<typeof outputSchema>;

export const analytics = defineTool({
  name: 'analytics',
  title: 'Whole-repository analytics',
  description: 'Structural views for planning and review. kind=cycles: import (level=file) or call (level=symbol) cycles, only binds at confidence ≥ 0.7, never guessed or name-only; communities: Louvain clusters, modularity; dead_code: unused, unnamed definitions with reasons (exported ones after, lower); hotspots: complexity × git churn.',
  input: z.object({
    kind: z.enum(KINDS).describe('Which view.'),
    level: z.enum(['file', 'symbol']).optional().describe('Graph level: file (default; hotspots: symbol) or symbol. dead_code is per symbol.'),
    repo: repoParam,
    path: z.string().min(1).optional().describe('Folder/file prefix or glob the nodes must match.'),
    min_size: z.number().int().min(1).max(10_000).default(2).describe('cycles/communities: smallest size listed (1: self-recursion).'),
    ...pageInput(10),
  }),
  output: outputSchema,
  annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
  paged: 'results',
  examples: [{ kind: 'cycles', level: 'file', repo: '.', path: 'src', min_size: 2, limit: 10, offset: 0 }],
  async run(args, ctx) {
    const { kind, level: levelArg, repo, path, min_size, limit, offset } = args;
    const src = await ctx.engine.analytics();
    const keepPath = pathMatcher(path);
    const level = levelArg ?? (kind === 'hotspots' ? 'symbol' : kind === 'dead_code' ? 'symbol' : 'file');
    const repos = src.repos(ctx.engine.repoFilter(repo));
    const boundaries: Boundary[] = [];
    const stats: Out['repos'] = [];
    type Item = { repo: RepoModel; out: () => Out['results'][number] };
    const items: Item[] = [];
    let rankedBy: 'complexity_x_churn' | 'complexity' | 'size' | 'confidence' = kind === 'dead_code' ? 'confidence' : kind === 'hotspots' ? 'complexity_x_churn' : 'size';
    for (const repoId of repos) {
      const m = src.model(repoId);
      const keep = (n: number) => { const r = m.nodes.get(n); return !!r && keepPath(r.path); };
      boundaries.push(...src.boundaries(repoId));
      if (kind === 'cycles') {
        const r = findCycles(m, level, keep, min_size);
        stats.push({ repo_id: repoId, nodes: r.nodes, edges: r.edges, modularity: null, excluded_name_only_edges: r.excluded_name_only, history_available: null });
        if (r.excluded_name_only) boundaries.push({ kind: 'ambiguous_dispatch', detail: `${repoId}: ${r.excluded_name_only} name-only edge(s) (receiver type unknown or a shared name) were left out: they cannot close a cycle; a cycle through them may exist` });
        for (const c of r.cycles) items.push({ repo: m, out: () => cycleOut(src, m, c) });
      } else if (kind === 'communities') {
        const r = findCommunities(m, level, keep);
        stats.push({ repo_id: repoId, nodes: r.nodes, edges: r.edges, modularity: r.modularity, excluded_name_only_edges: null, history_available: null });
        r.communities.filter(c => c.members.length >= min_size).forEach(c => items.push({ repo: m, out: () => communityOut(m, level, c) }));
      } else if (kind === 'dead_code') {
        const r = findDeadCode(src, m, keepPath);
        stats.push({ repo_id: repoId, nodes: m.nodes.size, edges: m.edges.length, modularity: null, excluded_name_only_edges: null, history_available: null });
        for (const d of r) items.push({ repo: m, out: () => ({ node: toNodeRef(m.nodes.get(d.node)!), reasons: d.reasons, confidence: d.confidence, resolution: resolutionOf(d.confidence), lines: d.lines }) });
      } else {
        const states = src.historyReader.states(repoId);
        const ok = states.some(s => s.status === 'ok');
        if (!ok) {
          const reason = src.history(repoId).reason ?? 'no history';
          boundaries.push({ kind: 'history_unavailable', detail: `churn unavailable for ${repoId} (${reason}): ranked by complexity only` });
          rankedBy = 'complexity';
        }
        const r = findHotspots(src, m, level, keepPath, ok);
        stats.push({ repo_id: repoId, nodes: r.length, edges: 0, modularity: null, excluded_name_only_edges: null, history_available: ok });
        for (const h of r) items.push({ repo: m, out: () => ({ node: toNodeRef(m.nodes.get(h.node)!), lines: h.lines, branches: h.branches, complexity: h.complexity, churn: h.churn, score: h.score }) });
      }
    }
    if (kind === 'dead_code') {
      boundaries.push({ kind: 'dynamic_names', detail: 'uses the index cannot see: reflection, dynamic imports, getattr/setattr, dependency injection, framework registration by configuration, and names in files that are not indexed (JSON, YAML, docs); a candidate may still be used' });
    }
    // several repositories: listed repository by repository (each ranked), in repo_id order
    const slice = items.slice(offset, offset + limit);
    const results = slice.map(i => i.out());
    if (kind === 'communities') results.forEach((r, i) => { (r as { community_id: number }).community_id = offset + i; });
    return { kind, level, results, repos: stats, ranked_by: rankedBy, ...page(items.length, offset, limit, slice.length), complete: boundaries.length === 0, boundaries };
  },
  render(r, budget) {
    const sure = r.complete ? 'complete' : '**lower bound**';
    const lines: string[] = [];
    let head = '';
    if (r.kind === 'cycles') {
      head = `**analytics cycles** (${r.level} level, binds ≥ ${CYCLE_MIN_CONFIDENCE}, no name-only) — ${plural(r.total, 'cycle', 'cycles')}; ${sure}`;
      for (const c of r.results as z.infer<typeof cycleSchema>[]) {
        const walk = `${c.cycle.map(id => code(shortName(id))).join(' → ')}${c.size > c.cycle.length - 1 ? ' …' : ''}`;
        const first = `- **${c.size}** ${c.repo_id}: ${walk} · min conf ${c.min_confidence} · fan-in ${c.fan_in}`;
        const members = `  members: ${c.members.map(n => code(nodeLabel(n))).join(', ')}${c.size > c.members.length ? ', …' : ''}`;
        const edge = (e: (typeof c.edges)[number]) => `${code(shortName(e.from))} ${e.kind} ${code(shortName(e.to))}`;
        const edges = c.edges.map(e => `  - ${edge(e)} · ${e.resolution} ${e.confidence} — ${e.evidence}`);
        lines.push([first, members, ...edges].join('\n'));
      }
    } else if (r.kind === 'communities') {
      const mod = r.repos.map(x => `${x.repo_id} modularity ${x.modularity ?? 'n/a'}`).join(', ');
      head = `**analytics communities** (${r.level} level, Louvain) — ${plural(r.total, 'community', 'communities')}; ${mod}; ${sure}`;
      for (const c of r.results as z.infer<typeof communitySchema>[]) {
        lines.push(communityLine(c));
      }
    } else if (r.kind === 'dead_code') {
      head = `**analytics dead_code** — ${plural(r.total, 'candidate', 'candidates')} (unused, not entry points or tests, name not found elsewhere; exported ones last, lower: code outside may use them); ${sure}`;
      for (const d of r.results as z.infer<typeof deadSchema>[]) {
        const caveat = d.reasons.length > 5 ? ` · ${d.reasons.slice(5).join('; ')}` : '';
        lines.push(`- ${code(nodeLabel(d.node))} (${d.node.kind}) ${d.node.path}:${d.node.line} · ${d.lines} lines · conf ${d.confidence} · ${d.reasons[1]}${caveat}`);
      }
    } else {
      head = `**analytics hotspots** (${r.level} level) — ${plural(r.total, 'item', 'items')} ranked by ${r.ranked_by === 'complexity' ? '**complexity only (churn unavailable)**' : 'complexity × churn'}; ${sure}`;
      for (const h of r.results as z.infer<typeof hotspotSchema>[]) {
        lines.push(`- ${h.node.kind !== 'file' ? `${code(nodeLabel(h.node))} ${h.node.path}:${h.node.line}` : code(h.node.path)} · score ${h.score} = ${h.lines} lines × (1 + ${h.branches} branches)${r.ranked_by === 'complexity' ? '' : ` × churn ${h.churn}`}`);
      }
    }
    const footer = [pageNotice(r, r.kind === 'dead_code' ? 'candidates' : r.kind === 'communities' ? 'communities' : r.kind === 'cycles' ? 'cycles' : 'results'),
      ...r.boundaries.map(b => `⚠ ${b.kind}: ${b.detail}`),
      r.total === 0 ? `⚠ No ${r.kind.replace('_', ' ')} found${r.kind === 'cycles' ? ' among binds above name-only confidence' : ''}; see the boundaries for what the index cannot see.` : ''].filter(Boolean).join('\n');
    return budgeted(head, lines, footer, budget);
  },
});

function shortName(id: string): string {
  // symbol:<repo>:<path>:<symbol_path> → symbol_path; file:<repo>:<path> → path
  const rest = id.slice(id.indexOf(':', id.indexOf(':') + 1) + 1);
  if (id.startsWith('file:')) return rest;
  return rest.slice(rest.lastIndexOf(':') + 1);
}

function cycleOut(src: AnalyticsSource, m: RepoModel, c: ReturnType<typeof findCycles>['cycles'][number]): z.infer<typeof cycleSchema> {
  return {
    repo_id: m.repo_id, size: c.members.length, members: c.members.slice(0, MEMBER_CAP).map(n => toNodeRef(m.nodes.get(n)!)),
    cycle: c.cycle.map(n => m.ids.get(n)!), edges: c.edges.slice(0, EDGE_CAP).map(e => src.edgeOut(m, e)), edge_count: c.edges.length, fan_in: c.fan_in,
    min_confidence: c.edges.reduce((x, e) => Math.min(x, e.confidence), 1),
  };
}

/**
 * A community as the answer gives it. File level: its members are files, so `files` lists them most
 * connected first and nothing else repeats them; symbol level: files by member count, plus the most
 * connected symbols.
 */
function communityOut(m: RepoModel, level: CommunityLevel, c: Community): z.infer<typeof communitySchema> {
  const head = { repo_id: m.repo_id, community_id: 0, label: c.label, size: c.members.length, file_count: c.files.length };
  const weights = { internal_weight: c.internal_weight, external_weight: c.external_weight };
  if (level === 'file') {
    const files = c.members.slice(0, FILE_CAP).map(x => ({ path: m.nodes.get(x.node)!.path }));
    return { ...head, files, ...weights };
  }
  const top_members = c.members.slice(0, TOP_CAP).map(x => toNodeRef(m.nodes.get(x.node)!));
  return { ...head, files: c.files.slice(0, FILE_CAP), top_members, ...weights };
}

function communityLine(c: z.infer<typeof communitySchema>): string {
  const head = `- #${c.community_id} ${code(c.label)} · ${c.size} member(s) in ${c.file_count} file(s)`;
  const more = c.file_count > c.files.length ? ', …' : '';
  const file = (f: (typeof c.files)[number]) => `${f.path}${(f.members ?? 1) > 1 ? ` (${f.members})` : ''}`;
  if (!c.top_members) return `${head}, most connected first:\n  ${c.files.map(file).join(', ')}${more}`;
  const top = c.top_members.map(n => `${code(nodeLabel(n))} (${n.kind}) ${n.path}:${n.line}`).join(', ');
  return `${head} · top: ${top}\n  files: ${c.files.map(file).join(', ')}${more}`;
}
