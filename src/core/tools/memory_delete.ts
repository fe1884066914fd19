import { z } from 'zod';
import { defineTool, code } from './contract';
import { memorySchema, toMemoryOut } from './shared';

export const memoryDelete = defineTool({
  name: 'memory_delete',
  title: 'Delete project memory',
  description: 'Delete one project memory by id, from whichever scope holds it (user data folder or the repository\'s .sightline/memories.json).',
  input: z.object({ id: z.string().min(1).describe('memory:<repo_id>:<hash>') }),
  output: z.object({
    id: z.string().describe('The id asked for.'),
    deleted: z.boolean().describe('False when no memory had this id.'),
    memory: memorySchema.nullable().describe('The deleted memory, or null.'),
  }),
  annotations: { read_only: false, destructive: true, idempotent: true, open_world: false },
  examples: [{ id: 'memory:demo-0123abcd:0123456789ab' }],
  async run(args, ctx) {
    const m = await ctx.engine.memories.delete(args.id);
    return { id: args.id, deleted: !!m, memory: m ? toMemoryOut(m) : null };
  },
  render(r) { return r.memory ? `**memory_delete** deleted ${code(r.id)}: ${r.memory.text.replace(/\r?\n/g, ' ')}` : `**memory_delete** no memory ${code(r.id)} (nothing deleted)`; },
});
