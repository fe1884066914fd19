import { z } from 'zod';
import { defineTool, code } from './contract';
import { memorySchema, toMemoryOut } from './shared';
import { SightlineError } from '../errors';

export const memoryDelete = defineTool({
  name: 'memory_delete',
  title: 'Delete project memory',
  description: 'Delete one project memory by id.',
  input: z.object({ id: z.string().min(1).describe('memory:<repo_id>:<hash>') }),
  output: z.object({ deleted: memorySchema }),
  annotations: { read_only: false, destructive: true, idempotent: true, open_world: false },
  examples: [{ id: 'memory:demo-0123abcd:0123456789ab' }],
  async run(args, ctx) {
    const m = await ctx.engine.memories.delete(args.id);
    if (!m) throw new SightlineError('not_found', `no memory ${args.id}`);
    return { deleted: toMemoryOut(m) };
  },
  render(r) { return `**memory_delete** deleted ${code(r.deleted.id)}: ${r.deleted.text.replace(/\r?\n/g, ' ')}`; },
});
