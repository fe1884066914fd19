import { z } from 'zod';
import { defineTool, code } from './contract';
import { searchHitSchema } from './shared';

export const getChunk = defineTool({
  name: 'get_chunk',
  title: 'Get chunk source',
  description: 'Returns the exact source text of one chunk by its chunk_id (from search_code, vector_search or another tool), with its path and line range. '
    + 'The text is read from the file now; stale=true means the file changed since it was indexed, so the line range may have shifted. Read-only.',
  input: z.object({
    chunk_id: z.string().min(1).describe('Chunk id as returned by search tools, e.g. chunk:<repo_id>:src/lib.rs:run.'),
  }),
  // The location fields are a search hit's (minus its ranking), plus the text itself.
  output: searchHitSchema.omit({ score: true, signals: true, qualified_name: true }).extend({
    text: z.string().describe('Source text of the line range.'),
    stale: z.boolean().describe('True when the file changed since it was indexed (re-run index_repo).'),
    file_hash: z.string().describe('Content hash of the file when it was indexed.'),
  }),
  annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
  examples: [{ chunk_id: 'chunk:demo-0123abcd:src/users.ts:UserService.getUserName' }],
  async run(args, ctx) {
    const { chunk_id } = args;
    return ctx.engine.getChunk(chunk_id);
  },
  render(r, budget) {
    const fence = r.text.includes('```') ? '````' : '```';
    let text = r.text;
    const max = budget.max_chars;
    let cut = '';
    if (max && text.length > max - 300) {
      const keep = Math.max(200, max - 300);
      const lines = text.slice(0, keep).split('\n'); lines.pop();
      cut = `\n_…cut to fit the token budget after ${lines.length} of ${r.end_line - r.start_line + 1} lines._`;
      text = lines.join('\n');
    }
    const head = `**${r.path}:${r.start_line}-${r.end_line}** ${r.symbol_path ? `${r.kind} ${code(r.symbol_path)}` : 'top-level code'}${r.stale ? ' ⚠ stale: the file changed since indexing' : ''}`;
    return `${head}\n${fence}${r.language}\n${text}\n${fence}${cut}`;
  },
});
