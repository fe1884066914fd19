import { z } from 'zod';
import { isAbsolute } from 'node:path';
import { defineTool, code } from './contract';
import { memorySchema, toMemoryOut, memoryLine } from './shared';
import { SightlineError } from '../errors';

export const memoryUpdate = defineTool({
  name: 'memory_update',
  title: 'Update project memory',
  description: 'Edit a memory by id: text, confidence, source, scope (repo: share with the team); confirm=true after checking it against changed code; reanchor=true fingerprints it where it is now (relocated becomes current), or give a new anchor (anchor_kind with path/symbol/lines, as memory_add; refused when it does not resolve).',
  input: z.object({
    id: z.string().min(1).describe('memory:<repo_id>:<hash>'),
    text: z.string().min(1).max(20_000).optional().describe('New text (Markdown).'),
    confidence: z.number().min(0).max(1).optional().describe('New confidence, 0..1.'),
    source: z.string().min(1).max(100).optional().describe('New source.'),
    reanchor: z.boolean().default(false).describe('Re-anchor at its place now.'),
    confirm: z.boolean().default(false).describe('It still holds for the code as it is now: clears code_change (editing text does too).'),
    scope: z.enum(['user', 'repo']).optional().describe('Move it: repo shares it with the team (.sightline/memories.json), user keeps it private.'),
    anchor_kind: z.enum(['repo', 'file', 'symbol', 'span']).optional().describe('New anchor kind.'),
    path: z.string().min(1).optional().describe('New anchor file.'),
    symbol: z.string().min(1).optional().describe('New anchor symbol.'),
    start_line: z.number().int().min(1).optional().describe('New first line (span).'),
    end_line: z.number().int().min(1).optional().describe('New last line (span).'),
  }),
  output: z.object({
    id: z.string().describe('The id asked for.'),
    updated: z.boolean().describe('False when no memory had this id.'),
    reanchored: z.boolean().describe('True when its anchor was fingerprinted again (status current).'),
    memory: memorySchema.nullable().describe('The memory after the update, or null.'),
  }),
  annotations: { read_only: false, destructive: false, idempotent: true, open_world: false },
  examples: [
    { id: 'memory:demo-0123abcd:0123456789ab', text: 'names are never empty, nor blank', confidence: 0.9, source: 'human', reanchor: true, confirm: true, scope: 'repo' },
    { id: 'memory:demo-0123abcd:0123456789ab', anchor_kind: 'span', path: 'src/users.ts', symbol: 'UserService', start_line: 8, end_line: 10 },
  ],
  async run(args, ctx) {
    const { id, text, confidence, source, reanchor, confirm, scope, anchor_kind, path: given, symbol, start_line, end_line } = args;
    const anchored = given !== undefined || symbol !== undefined || start_line !== undefined || end_line !== undefined;
    if (anchored && !anchor_kind) throw new SightlineError('invalid_arguments', 'a new anchor needs anchor_kind (path, symbol and lines belong to it)');
    if (anchor_kind && reanchor) throw new SightlineError('invalid_arguments', 'give reanchor or a new anchor, not both');
    let path = given, repo_id: string | undefined;
    if (path && isAbsolute(path)) { const r = ctx.engine.relativeToRoot(path); path = r.rel; repo_id = r.root.repo_id; }
    const anchor = anchor_kind ? { anchor_kind, path, symbol, start_line, end_line, repo_id } : undefined;
    const r = await ctx.engine.memories.update({ id, text, confidence, source, reanchor, confirm, scope, anchor });
    return { id, updated: !!r, reanchored: r?.reanchored ?? false, memory: r ? toMemoryOut(r.memory) : null };
  },
  render(r) {
    if (!r.memory) return `**memory_update** no memory ${code(r.id)} (nothing updated)`;
    return `**memory_update** updated ${code(r.id)}${r.reanchored ? ' (re-anchored: current)' : ''}\n${memoryLine(r.memory)}`;
  },
});
