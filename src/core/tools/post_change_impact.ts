import { z } from 'zod';
import { join } from 'node:path';
import { defineTool, code, budgeted } from './contract';
import { completeness, nodeSchema, repoParam } from './shared';
import { computeImpact } from '../graph/impact';
import { toNodeRef, resolutionOf } from '../graph/query';
import { changedNodes, type LineRange } from '../graph/change';
import { parseDiff } from '../history/diff';
import { SightlineError } from '../errors';
import type { NodeRow } from '../store/store';
import type { ToolServices } from './services';
import type { GraphReader } from '../graph/query';
import type { HistoryReader } from '../services/history';
import { coChangeEvidence } from './history';
import { MemoryNotes, NoteCollector, memoryNotesFields, noteLines, notesSummary } from './memory_notes';

export const locationSchema = nodeSchema.extend({
  resolution: z.enum(['exact', 'best_effort']).describe('exact: compiler-grade edges all the way.'),
});
const toLoc = (n: NodeRow, confidence = 1) => ({ ...toNodeRef(n), resolution: resolutionOf(confidence) });

const CAP = 50;

/** What filesOfDiff needs to rebase a nested repository's diff. */
export const knownPaths = (g: GraphReader, h: HistoryReader) => ({
  indexed: (repoId: string, path: string) => g.symbolsAt(repoId, path) !== null,
  nested: (repoId: string) => h.states(repoId).map(s => s.git_path).filter(Boolean),
});

export const diffParam = z.string().min(1).max(20_000_000).optional().describe('Unified diff text (git diff).');

/**
 * A diff's changed files rebased onto a root: (repo_id, path, new ranges), with the parser's
 * diagnostics. Paths are read relative to the root (or `repo`); a path the index does not hold there
 * but holds under exactly one nested git repository (a diff made inside it) is rebased onto that one.
 */
export function filesOfDiff(engine: ToolServices, diff: string, repo: string | undefined, known: { indexed(repoId: string, path: string): boolean; nested(repoId: string): string[] }) {
  const parsed = parseDiff(diff);
  const base = repo ? engine.resolveRepo(repo) : undefined;
  const files = parsed.files.map(f => {
    const { root, rel } = base ? engine.relativeToRoot(join(base.root, f.path)) : engine.relativeToRoot(f.path);
    let path = rel;
    if (!known.indexed(root.repo_id, rel)) {
      const under = known.nested(root.repo_id).map(n => `${n}/${rel}`).filter(p => known.indexed(root.repo_id, p));
      if (under.length === 1) path = under[0]!;
    }
    return { repo_id: root.repo_id, path, old_path: f.old_path, status: f.status, ranges: f.new_ranges.map(r => ({ start_line: r.start_line, end_line: r.end_line })) };
  });
  return { files, diagnostics: parsed.diagnostics.map(d => `diff line ${d.line}: ${d.message}`) };
}

export const postChangeImpact = defineTool({
  name: 'post_change_impact',
  title: 'Impact of a change already made',
  description: 'After an edit: from a diff (or changed_files + changed_symbols) the changed symbols, their transitive dependents, tests to run and a heuristic risk_level. Co-change partners not touched are evidence ("usually changes with", from git), never edges. complete=false: a lower bound.',
  input: z.object({
    diff: diffParam,
    changed_files: z.array(z.string().min(1)).max(5000).optional().describe('Changed files (whole files count as changed).'),
    changed_symbols: z.array(z.string().min(1)).max(5000).optional().describe('Changed symbols (ids or names).'),
    repo: repoParam,
  }),
  output: z.object({
    changed_files: z.array(z.string()).describe('Changed files (new paths).'),
    changed_symbols: z.array(z.string()).describe('Ids of the indexed symbols the change overlaps.'),
    changed_new_line_ranges: z.record(z.string(), z.array(z.object({ start: z.number().int().describe('First line.'), end: z.number().int().describe('Last line.') }))).describe('Per file, changed lines on the new side.'),
    report: z.object({
      risk_level: z.enum(['low', 'medium', 'high']).describe('Heuristic: dependents, files reached, tests found.'),
      affected_symbols: z.array(locationSchema.extend({ distance: z.number().int().describe('Edges from the change.') })).describe('Transitive dependents, nearest first.'),
      affected_files: z.array(z.string()).describe('Files holding dependents.'),
      recommended_tests: z.array(locationSchema.extend({ reason: z.string().describe('How the test reaches the change.') })).describe('Tests reaching the changed symbols.'),
      evidence: z.array(z.string()).describe('Why: counts, and "usually changes with" partners from git history (not graph edges).'),
    }).describe('What is at stake.'),
    ...memoryNotesFields('the changed files and symbols and their dependents'),
    diagnostics: z.array(z.string()).describe('Diff lines skipped, unknown files or symbols.'),
    truncated: z.boolean().describe(`True when a list was cut at ${50} items.`),
    ...completeness,
  }),
  annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
  examples: [{ changed_files: ['src/users.ts'], changed_symbols: ['UserService.lookup'], repo: '.' },
    { diff: 'diff --git a/src/users.ts b/src/users.ts\n--- a/src/users.ts\n+++ b/src/users.ts\n@@ -9 +9 @@\n-    return this.lookup(id).name;\n+    return this.lookup(id).name.trim();\n' }],
  async run(args, ctx) {
    const { diff, changed_files, changed_symbols, repo } = args;
    const limit = CAP;
    if (!diff && !changed_files?.length && !changed_symbols?.length) throw new SightlineError('invalid_arguments', 'post_change_impact needs diff, or changed_files and/or changed_symbols');
    const g = await ctx.engine.graph();
    const h = await ctx.engine.history();
    const diagnostics: string[] = [];
    const unindexed: string[] = [];
    const files: { repo_id: string; path: string; ranges: LineRange[] | null }[] = [];
    if (diff) {
      const d = filesOfDiff(ctx.engine, diff, repo, knownPaths(g, h));
      files.push(...d.files.filter(f => f.status !== 'deleted')); diagnostics.push(...d.diagnostics);
      // Never a silent "no impact": a diff that names no file is malformed or empty, and says so.
      if (!d.files.length) {
        const why = 'diff is not a unified diff: no "diff --git" or "---"/"+++" header with a hunk was found; nothing was analysed';
        throw new SightlineError('invalid_arguments', why, { diagnostics: d.diagnostics });
      }
    }
    for (const f of changed_files ?? []) { const { root, rel } = ctx.engine.relativeToRoot(f); files.push({ repo_id: root.repo_id, path: rel, ranges: null }); }
    const targets = new Map<number, NodeRow>();
    for (const f of files) {
      const ranges = f.ranges ?? [{ start_line: 1, end_line: Number.MAX_SAFE_INTEGER }];
      const nodes = f.ranges ? changedNodes(g, f.repo_id, f.path, ranges) : (g.symbolsAt(f.repo_id, f.path) ?? []).filter(s => !s.parent_path);
      if (!g.symbolsAt(f.repo_id, f.path)) unindexed.push(f.path);
      for (const n of nodes) targets.set(n.node, n);
    }
    for (const s of changed_symbols ?? []) {
      const r = g.resolveOne(s, { repo_id: ctx.engine.repoFilter(repo) });
      if (!r.target) { diagnostics.push(`${s}: ${r.ambiguous.length ? `ambiguous (${r.ambiguous.length} matches)` : 'not found'}`); continue; }
      for (const n of r.group) targets.set(n.node, n);
    }
    if (unindexed.length) diagnostics.push(`${unindexed.length} changed file(s) not indexed (no symbols, no graph): ${unindexed.slice(0, 10).join(', ')}${unindexed.length > 10 ? ', …' : ''}`);
    const parseProblems = diagnostics.length - (unindexed.length ? 1 : 0);
    const seeds = [...targets.values()];
    const imp = computeImpact(g, seeds, 3, { withContainers: false });
    const changedPaths = [...new Set([...files.map(f => f.path), ...seeds.map(s => s.path)])];
    const affectedFiles = [...new Set(imp.affected.map(a => a.node.path))].filter(p => !changedPaths.includes(p));
    const evidence: string[] = [`${seeds.length} changed symbol(s) in ${changedPaths.length} file(s); ${imp.affected.length} dependent(s) in ${affectedFiles.length} other file(s); ${imp.tests.length} test(s) reach them`];
    const repoOf = new Map(files.map(f => [f.path, f.repo_id]));
    for (const s of seeds) repoOf.set(s.path, s.repo_id);
    const cc = coChangeEvidence(h, changedPaths.map(p => ({ repo_id: repoOf.get(p)!, path: p })));
    for (const x of cc) evidence.push(`usually changes with (git co-change, not an edge): ${x.path} → ${x.partner}, together in ${x.together_count} commits (coupling ${x.coupling})`);
    const partnersMissed = cc.length;
    const noHistory = [...new Set(changedPaths.map(p => repoOf.get(p)!))].map(r => h.availability(r)).filter(a => !a.available);
    for (const a of noHistory) evidence.push(`no co-change evidence: ${a.reason}`);
    // memories on what changed (rank 0: the changed lines and symbols) and on the dependents (by distance)
    const notes = await MemoryNotes.open(ctx.engine);
    const found = new NoteCollector();
    if (!notes.empty) {
      for (const f of files) found.add(notes.inRanges(f.repo_id, f.path, f.ranges), f.path, 0);
      for (const n of seeds) found.add(notes.onNode(n), toNodeRef(n).id, 0);
      for (const a of imp.affected) found.add(notes.onNode(a.node), toNodeRef(a.node).id, a.distance);
    }
    const memories = found.result();
    const look = memories.memories.filter(m => m.status === 'stale' || m.status === 'gone').length;
    if (look) evidence.push(`${look} project memor${look === 1 ? 'y' : 'ies'} on this code no longer resolve (stale or gone): check them with memory_update or memory_delete`);
    const complete = imp.boundaries.length === 0 && parseProblems === 0;
    let risk = imp.affected.length >= 25 || affectedFiles.length >= 10 || (imp.affected.length > 0 && imp.tests.length === 0) ? 'high'
      : imp.affected.length >= 5 || affectedFiles.length >= 3 || partnersMissed > 0 ? 'medium' : 'low';
    if (risk === 'low' && !complete) { risk = 'medium'; evidence.push('the answer is a lower bound: not rated low'); }
    const ranges: Record<string, { start: number; end: number }[]> = {};
    for (const f of files) if (f.ranges) ranges[f.path] = [...(ranges[f.path] ?? []), ...f.ranges.map(r => ({ start: r.start_line, end: r.end_line }))];
    return {
      changed_files: changedPaths, changed_symbols: seeds.map(s => toNodeRef(s).id), changed_new_line_ranges: ranges,
      report: {
        risk_level: risk as 'low' | 'medium' | 'high',
        affected_symbols: imp.affected.slice(0, limit).map(a => ({ ...toLoc(a.node, a.confidence), distance: a.distance })),
        affected_files: affectedFiles.slice(0, limit),
        recommended_tests: imp.tests.slice(0, limit).map(t => ({ ...toLoc(t.node, t.confidence), reason: t.reason })),
        evidence,
      },
      ...memories, diagnostics, truncated: imp.affected.length > limit || affectedFiles.length > limit || imp.tests.length > limit, complete, boundaries: imp.boundaries,
    };
  },
  render(r, budget) {
    const head = `**post_change_impact** risk **${r.report.risk_level}** (heuristic) — ${r.changed_symbols.length} changed symbol(s) in ${r.changed_files.length} file(s), ${r.report.affected_symbols.length} dependent(s), ${r.report.recommended_tests.length} test(s); ${r.complete ? 'complete' : '**lower bound**'}${notesSummary(r)}`;
    const items = [
      ...noteLines(r),
      ...r.report.affected_symbols.map(a => `- d${a.distance} ${code(a.id)} ${a.path}:${a.line}`),
      ...r.report.recommended_tests.map(t => `- test ${code(t.id)} ${t.path}:${t.line}`),
    ];
    const footer = [...r.report.evidence.map(e => `· ${e}`), ...r.diagnostics.map(d => `⚠ ${d}`), ...r.boundaries.map(b => `⚠ ${b.kind}: ${b.detail}`)].join('\n');
    return budgeted(head, items, footer, budget);
  },
});

