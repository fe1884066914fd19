import { z } from 'zod';
import { defineTool, code, budgeted } from './contract';
import { completeness, nodeSchema, repoParam } from './shared';
import { toNodeRef } from '../graph/query';
import { changedNodes } from '../graph/change';
import { testsOf, testsBoundaries } from '../graph/tests';
import { SightlineError } from '../errors';
import { diffParam, filesOfDiff, knownPaths } from './post_change_impact';
import type { NodeRow } from '../store/store';

const CAP = 100;
const RELATION: Record<string, [string, string]> = { // kind → [relation of an incoming edge's source, of an outgoing edge's target]
  calls: ['caller', 'callee'], references: ['referrer', 'referenced'], imports: ['importer', 'imported'], extends: ['subclass', 'base'], implements: ['implementer', 'interface'],
};

export const contextForChange = defineTool({
  name: 'context_for_change',
  title: 'Context of a change (review)',
  description: 'The symbols a change touches and their graph neighbourhood (callers, callees, bases, subclasses, importers, tests): for review and PR descriptions. From a diff, or base (and branch): every git repository of the root with that ref is diffed, others skipped and listed.',
  input: z.object({
    diff: diffParam,
    base: z.string().min(1).max(256).optional().describe('Ref to diff the working tree against (or branch against, as a PR).'),
    branch: z.string().min(1).max(256).optional().describe('Branch to compare with base instead of the working tree.'),
    repo: repoParam,
  }),
  output: z.object({
    changed: z.array(nodeSchema).describe('Indexed symbols the change overlaps.'),
    neighbourhood: z.array(nodeSchema.extend({
      relation: z.string().describe('caller, callee, referrer, importer, subclass, base, implementer, test, …'), of: z.string().describe('The changed node it relates to.') })).describe('Graph neighbours of the changed nodes (not changed themselves).'),
    changed_files: z.array(z.string()).describe('Files in the diff.'),
    repositories: z.array(z.object({ path: z.string().describe('Git repository, relative to its root.'), diffed: z.boolean().describe('False: skipped.'), reason: z.string().nullable().describe('Why skipped.') })).describe('With base: each git repository and whether it was diffed.'),
    diagnostics: z.array(z.string()).describe('Skipped diff lines, unindexed files.'),
    truncated: z.boolean().describe('True when a list was cut at 100 items.'),
    ...completeness,
  }),
  annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
  examples: [{ base: 'main', repo: '.' }, { base: 'main', branch: 'feature' },
    { diff: 'diff --git a/src/users.ts b/src/users.ts\n--- a/src/users.ts\n+++ b/src/users.ts\n@@ -9 +9 @@\n-    return this.lookup(id).name;\n+    return this.lookup(id).name.trim();\n' }],
  async run(args, ctx) {
    const { diff, base, branch, repo } = args;
    const limit = CAP;
    if (!diff && !base) throw new SightlineError('invalid_arguments', 'context_for_change needs diff or base');
    const g = await ctx.engine.graph();
    const diagnostics: string[] = [];
    const repositories: { path: string; diffed: boolean; reason: string | null }[] = [];
    let files: { repo_id: string; path: string; status: string; ranges: { start_line: number; end_line: number }[] }[] = [];
    if (diff) { const d = filesOfDiff(ctx.engine, diff, repo, knownPaths(g, await ctx.engine.history())); files = d.files; diagnostics.push(...d.diagnostics); }
    else {
      const h = await ctx.engine.history();
      const rid = ctx.engine.repoFilter(repo);
      for (const root of ctx.engine.roots.filter(r => !rid || r.repo_id === rid)) {
        const d = await h.diffAgainstBase(root, base!, branch);
        repositories.push(...d.repositories.map(x => ({ ...x, path: ctx.engine.roots.length > 1 ? `${root.name}/${x.path}`.replace(/\/$/, '') : x.path })));
        diagnostics.push(...d.diagnostics);
        files.push(...d.files.map(f => ({ repo_id: f.repo_id, path: f.path, status: f.status, ranges: f.new_ranges })));
      }
    }
    if (diff && !files.length) {
      throw new SightlineError('invalid_arguments', 'diff is not a unified diff: no "diff --git" or "---"/"+++" header with a hunk was found', { diagnostics });
    }
    if (!diff && !repositories.some(x => x.diffed)) {
      const gitless = repositories.every(x => x.reason?.startsWith('not_a_repository'));
      const why = gitless ? 'the workspace holds no git repository: pass diff instead of base'
        : `no git repository of the workspace has the ref ${base}${branch ? ` (or ${branch})` : ''}`;
      throw new SightlineError('invalid_arguments', why, { repositories, diagnostics });
    }
    if (!files.length) diagnostics.push(`no changes against ${base}`);
    const changed = new Map<number, NodeRow>();
    const unindexed: string[] = [];
    for (const f of files) {
      if (f.status === 'deleted') continue;
      if (!g.symbolsAt(f.repo_id, f.path)) { unindexed.push(f.path); continue; }
      for (const n of changedNodes(g, f.repo_id, f.path, f.ranges)) changed.set(n.node, n);
    }
    if (unindexed.length) diagnostics.push(`${unindexed.length} changed file(s) not indexed: ${unindexed.slice(0, 10).join(', ')}${unindexed.length > 10 ? ', …' : ''}`);
    const seeds = [...changed.values()];
    const near = new Map<string, { n: NodeRow; relation: string; of: string }>();
    const add = (n: NodeRow, relation: string, of: NodeRow) => { if (!changed.has(n.node)) { const k = `${n.node}:${relation}`; if (!near.has(k)) near.set(k, { n, relation, of: toNodeRef(of).id }); } };
    const kinds = Object.keys(RELATION);
    for (const [dir, i] of [['in', 0], ['out', 1]] as const) {
      const m = g.edgesOfMany(seeds, dir, kinds);
      for (const s of seeds) for (const e of m.get(s.node) ?? []) add(e.neighbour, RELATION[e.edge.kind]?.[i] ?? e.edge.kind, s);
    }
    const t = testsOf(g, seeds);
    // never complete on a graph no compiler-grade provider checked, nor when changed files are not indexed
    const boundaries = testsBoundaries(g, seeds, t);
    const missing = `${unindexed.length} changed file(s) are not indexed: their symbols and neighbours are missing`;
    if (unindexed.length) boundaries.push({ kind: 'unparsed_files', detail: missing });
    for (const x of t.tests) add(x.node, 'test', seeds[0]!);
    for (const s of seeds) for (const c of g.containers(s)) if (c.kind !== 'file') add(c, 'container', s);
    const list = [...near.values()];
    return {
      changed: seeds.slice(0, limit).map(toNodeRef), neighbourhood: list.slice(0, limit).map(x => ({ ...toNodeRef(x.n), relation: x.relation, of: x.of })),
      changed_files: [...new Set(files.map(f => f.path))], repositories, diagnostics,
      truncated: seeds.length > limit || list.length > limit, complete: boundaries.length === 0, boundaries,
    };
  },
  render(r, budget) {
    const skipped = r.repositories.filter(x => !x.diffed);
    const head = `**context_for_change** — ${r.changed.length} changed symbol(s) in ${r.changed_files.length} file(s), ${r.neighbourhood.length} neighbour(s)${skipped.length ? `; skipped ${skipped.map(x => `${x.path || '.'} (${x.reason})`).join(', ')}` : ''}`;
    const items = [...r.changed.map(c => `- changed ${code(c.id)} ${c.path}:${c.line}`), ...r.neighbourhood.map(n => `- ${n.relation} ${code(n.id)} ${n.path}:${n.line}`)];
    return budgeted(head, items, [...r.diagnostics.map(d => `⚠ ${d}`), ...r.boundaries.map(b => `⚠ ${b.kind}: ${b.detail}`)].join('\n'), budget);
  },
});
