import { fileNodeId, hasIdPrefix } from '../util/ids';
import { z } from 'zod';
import { coChangeEvidence, coChangeEvidenceSchema } from './history';
import { defineTool, code, budgeted } from './contract';
import { completeness, nodeSchema, repoParam, testSchema, toTestRef, nodeLabel , testLine } from './shared';
import { computeImpact } from '../graph/impact';
import { toNodeRef, resolutionOf } from '../graph/query';
import type { NodeRow } from '../store/store';
import { SightlineError } from '../errors';

const CAP = 200;

export const impactAnalysis = defineTool({
  name: 'impact_analysis',
  title: 'Impact analysis of a change set',
  description: 'Risk of a change set (changed files and symbols): risk level, affected symbols and files (as impact), tests to run (as related_tests), evidence with providers. '
    + 'Risk is "unknown", never "low", when nothing was found but the answer is a lower bound.',
  input: z.object({
    changed_files: z.array(z.string().min(1)).max(500).default([]).describe('Repository-relative paths of changed files: every definition in them counts as changed.'),
    changed_symbols: z.array(z.string().min(1)).max(500).default([]).describe('Changed symbols: ids, qualified names (Worker.run) or names.'),
    depth: z.number().int().min(1).max(6).default(3).describe('Edges to follow from the changes (as impact).'),
    repo: repoParam,
  }),
  output: z.object({
    changed: z.array(nodeSchema).describe('Nodes the changes resolved to.'),
    unresolved: z.array(z.string()).describe('Changed files or symbols that match nothing in the index.'),
    ambiguous: z.array(z.object({ symbol: z.string().describe('The changed symbol as given.'), candidates: z.array(nodeSchema).describe('Definitions it may mean: pass one id instead.') })).describe('Changed symbols that match several definitions (not counted; the answer is incomplete).'),
    risk_level: z.enum(['low', 'medium', 'high', 'unknown']).describe('low: few dependents and a complete answer; medium/high by how many symbols, files and entry points depend on the change (an incomplete answer is at least medium); unknown when nothing was found but the answer is incomplete.'),
    affected_symbols: z.array(z.object({ node: nodeSchema, distance: z.number().int().describe('Edges from the change.'), resolution: z.enum(['exact', 'best_effort']).describe('Weakest link.'), provider: z.string().describe('Provider of the edge that reached it.'), name_only: z.boolean().describe('Every path found goes through a name-only binding (edge confidence < 0.5).') })).describe(`Dependents, direct first (first ${CAP}).`),
    affected_files: z.array(z.string()).describe(`Files holding dependents (first ${CAP}).`),
    recommended_tests: z.array(testSchema).describe('Tests to run: the tests of the changed symbols, as related_tests finds them.'),
    evidence: z.array(z.string()).describe('Why the direct dependents depend on the change, naming each edge\'s provider.'),
    co_change: coChangeEvidenceSchema,
    total_affected_symbols: z.number().int().describe('All dependents.'),
    total_affected_files: z.number().int().describe('All affected files.'),
    total_recommended_tests: z.number().int().describe('All recommended tests.'),
    truncated: z.boolean().describe('True when a list holds fewer items than its total (raise nothing: narrow the change set, or use impact per symbol, which pages).'),
    ...completeness,
  }),
  annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
  examples: [{ changed_files: ['src/db.ts'], changed_symbols: ['UserService.lookup'], depth: 3, repo: '.' }],
  async run(args, ctx) {
    const { changed_files, changed_symbols, depth, repo } = args;
    if (!changed_files.length && !changed_symbols.length) throw new SightlineError('invalid_arguments', 'give at least one of changed_files or changed_symbols');
    const g = await ctx.engine.graph();
    const repoId = ctx.engine.repoFilter(repo);
    const seeds = new Map<number, NodeRow>();
    const unresolved: string[] = [];
    for (const f of changed_files) {
      const { root, rel } = ctx.engine.relativeToRoot(f);
      const rows = g.lookup(fileNodeId(repoId ?? root.repo_id, rel));
      if (!rows.length) { unresolved.push(f); continue; }
      for (const r of rows) { seeds.set(r.node, r); for (const s of g.symbolsIn(r.file_id)) seeds.set(s.node, s); } // its definitions change with it
    }
    const ambiguous: { symbol: string; candidates: NodeRow[] }[] = [];
    for (const s of changed_symbols) {
      const rows = g.lookup(s, { repo_id: repoId });
      if (!rows.length) unresolved.push(s);
      else if (rows.length > 1 && !hasIdPrefix(s, 'symbol')) ambiguous.push({ symbol: s, candidates: rows });
      else for (const r of g.overloadSet(rows[0]!)) seeds.set(r.node, r);
    }
    const r = computeImpact(g, [...seeds.values()], depth, { withContainers: false });
    const files = [...new Set(r.affected.map(a => a.node.path))];
    const complete = r.boundaries.length === 0 && unresolved.length === 0 && ambiguous.length === 0;
    const n = r.affected.length;
    // An incomplete answer cannot claim low risk: nothing found → unknown, a few found → at least medium.
    const risk = n === 0 ? (complete ? 'low' : 'unknown') : n > 30 || files.length > 10 || r.entryPoints.length > 3 ? 'high' : n > 5 || files.length > 2 || !complete ? 'medium' : 'low';
    const evidence = r.affected.filter(a => a.distance === 1).slice(0, 50).map(a => a.via.evidence);
    return {
      changed: [...seeds.values()].slice(0, CAP).map(toNodeRef), unresolved, ambiguous: ambiguous.map(a => ({ symbol: a.symbol, candidates: a.candidates.slice(0, 20).map(toNodeRef) })), risk_level: risk as 'low' | 'medium' | 'high' | 'unknown',
      affected_symbols: r.affected.slice(0, CAP).map(a => ({ node: toNodeRef(a.node), distance: a.distance, resolution: resolutionOf(a.confidence), provider: a.via.provider, name_only: a.name_only })),
      affected_files: files.slice(0, CAP), recommended_tests: r.tests.slice(0, 50).map(toTestRef), evidence,
      co_change: coChangeEvidence(await ctx.engine.history(), [...new Map([...seeds.values()].map(s => [`${s.repo_id}\0${s.path}`, { repo_id: s.repo_id, path: s.path }])).values()]),
      total_affected_symbols: n, total_affected_files: files.length, total_recommended_tests: r.tests.length,
      truncated: n > CAP || files.length > CAP || r.tests.length > 50,
      complete, boundaries: [...r.boundaries, ...(unresolved.length ? [{ kind: 'unparsed_files' as const, detail: `not in the index: ${unresolved.slice(0, 10).join(', ')}` }] : []),
        ...ambiguous.map(a => ({ kind: 'ambiguous_target' as const, detail: `${a.symbol} matches ${a.candidates.length} definitions; pass one of their ids` }))],
    };
  },
  render(r, budget) {
    const head = `**impact_analysis** risk ${r.risk_level.toUpperCase()} — ${r.total_affected_symbols} affected symbol(s) in ${r.total_affected_files} file(s) from ${r.changed.length} changed node(s); ${r.complete ? 'complete' : '**lower bound**'}`;
    const items = [...r.affected_symbols.map(a => `- d${a.distance} ${a.node.kind} ${code(nodeLabel(a.node))} ${a.node.path}:${a.node.line} · ${a.name_only ? 'name-only' : a.resolution} (${a.provider})`),
      ...r.recommended_tests.map(t => testLine(t, 'test '))];
    const footer = [
      r.recommended_tests.length ? `recommended tests: ${r.total_recommended_tests}${r.total_recommended_tests > r.recommended_tests.length ? ` (the nearest ${r.recommended_tests.length} listed)` : ''}` : 'recommended tests: none found',
      r.truncated || r.affected_symbols.length < r.total_affected_symbols ? `_Lists show ${r.affected_symbols.length} of ${r.total_affected_symbols} affected symbols; call impact per symbol to page through all._` : '',
      ...r.ambiguous.map(a => `ambiguous ${code(a.symbol)}: ${a.candidates.slice(0, 5).map(c => code(c.id)).join(', ')}`),
      r.evidence.length ? `evidence:\n${r.evidence.map(e => `  - ${e}`).join('\n')}` : '',
      r.co_change.length ? `usually changes with (git co-change, not edges): ${r.co_change.map(c => `${code(c.path)} → ${code(c.partner)} ×${c.together_count}`).join(', ')}` : '',
      r.unresolved.length ? `not in the index: ${r.unresolved.join(', ')}` : '',
      ...r.boundaries.map(b => `⚠ ${b.kind}: ${b.detail}`),
    ].filter(Boolean).join('\n');
    return budgeted(head, items, footer, budget);
  },
});
