/** Schema fragments several tools share, so one concept has one name and one shape everywhere. */
import { z } from 'zod';
import { LANGUAGE_IDS } from '../languages/types';

export const repoParam = z.string().min(1).optional()
  .describe('Restrict to one repository: its repo_id, or a path inside a workspace root. Omit for every root. A path outside the workspace is an error.');
export const languageParam = z.enum(LANGUAGE_IDS).optional().describe('Restrict results to one language.');
export const queryParam = z.string().min(1).max(2000).describe('What to look for: words, identifiers (getUserName also matches "user name"), or a question.');

export const rangeSchema = z.object({
  start_line: z.number().int().describe('First line, 1-based.'),
  end_line: z.number().int().describe('Last line, 1-based, inclusive.'),
}).describe('Line range in the file, for handing the location to the editor or a language server.');

export const searchHitSchema = z.object({
  chunk_id: z.string().describe('Chunk id, for get_chunk.'),
  id: z.string().describe('Stable node id: the symbol id when the chunk belongs to a definition, else the chunk id.'),
  repo_id: z.string().describe('Repository the chunk belongs to.'),
  path: z.string().describe('Repository-relative file path.'),
  language: z.string().describe('Language of the file.'),
  start_line: z.number().int().describe('First line of the chunk, 1-based.'),
  end_line: z.number().int().describe('Last line of the chunk, 1-based.'),
  range: rangeSchema,
  symbol_path: z.string().nullable().describe('Qualified path of the enclosing definition (e.g. Worker.run), null for top-level code.'),
  qualified_name: z.string().nullable().describe('Same as symbol_path: the qualified name of the definition.'),
  kind: z.string().describe('Definition kind (function, method, class, …) or top_level.'),
  score: z.number().describe('Relevance score of the primary signal (BM25, or cosine similarity for local_hash_vector-only hits).'),
  signals: z.array(z.string()).describe('Signals that found this chunk: bm25 and/or local_hash_vector.'),
});
