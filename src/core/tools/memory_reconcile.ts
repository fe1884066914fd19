import { z } from 'zod';
import { defineTool, budgeted } from './contract';
import { repoParam, memoryLine, memorySchema, toMemoryOut } from './shared';

export const memoryReconcile = defineTool({
  name: 'memory_reconcile',
  title: 'Reconcile project memories',
  description: 'Re-check every memory (of a repo) against the files and index now; returns the statuses and the memories that are not current.',
  input: z.object({ repo: repoParam }),
  output: z.object({
    checked: z.number().int().describe('Memories checked.'), changed: z.number().int().describe('Memories whose status or place changed.'),
    by_status: z.object({ current: z.number().int(), relocated: z.number().int(), stale: z.number().int(), gone: z.number().int() }).describe('Memories per status after the check.'),
    not_current: z.array(memorySchema).describe('Relocated, stale and gone memories (at most 100).'),
  }),
  annotations: { read_only: false, destructive: false, idempotent: true, open_world: false },
  examples: [{ repo: 'demo-0123abcd' }],
  async run(args, ctx) {
    const { memories, summary } = await ctx.engine.memories.reconcileAll({ repo_id: ctx.engine.repoFilter(args.repo) });
    return { ...summary, not_current: memories.filter(m => m.status !== 'current').slice(0, 100).map(m => toMemoryOut(m)) };
  },
  render(r, budget) {
    const s = r.by_status;
    return budgeted(`**memory_reconcile** ${r.checked} checked, ${r.changed} changed: ${s.current} current, ${s.relocated} relocated, ${s.stale} stale, ${s.gone} gone`,
      r.not_current.map(memoryLine), '', budget);
  },
});
