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
  chunk_id: z.string().describe('Chunk id (the argument of get_chunk).'),
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

export const nodeSchema = z.object({
  id: z.string().describe('Stable node id (symbol:<repo_id>:<path>:<symbol_path> or file:<repo_id>:<path>), usable as the symbol argument of other tools.'),
  path: z.string().describe('Repository-relative file path.'),
  repo_id: z.string().describe('Repository of the node.'),
  language: z.string().describe('Language of the file.'),
  name: z.string().describe('Short name.'),
  symbol_path: z.string().nullable().describe('Qualified path (Worker.run), null for a file.'),
  kind: z.string().describe('Definition kind, or file.'),
  range: z.object({
    start_line: z.number().int().describe('First line, 1-based.'), start_column: z.number().int().describe('Column, 0-based.'),
    end_line: z.number().int().describe('Last line, 1-based.'), end_column: z.number().int().describe('Column, 0-based.'),
  }).describe('Location, to hand to the editor or a language server.'),
  chunk_id: z.string().nullable().describe('Chunk holding the definition (for get_chunk).'),
});

export const boundarySchema = z.object({
  kind: z.enum(['heuristic_only', 'ambiguous_dispatch', 'unparsed_files', 'provider_incomplete', 'depth_limit', 'dynamic_names', 'stale_graph', 'stale_files']).describe('What limits the answer (stale_files: files changed on disk since indexing, run index_repo).'),
  detail: z.string().describe('What exactly, in a sentence.'),
});

export const completeness = {
  complete: z.boolean().describe('True only when nothing below can hide results; false means the lists are a lower bound.'),
  boundaries: z.array(boundarySchema).describe('Why the answer may be incomplete (empty when complete).'),
};

export const edgeSchema = z.object({
  from: z.string().describe('Id of the node the edge starts at.'),
  to: z.string().describe('Id of the node the edge points to.'),
  kind: z.string().describe('Edge kind: calls, references, imports, implements, extends, contains_test_for.'),
  provider: z.string().describe('Who reported it: heuristic, lsp:<language>, or an external provider name.'),
  confidence: z.number().describe('Confidence in 0..1 (the one scoring concept).'),
  resolution: z.enum(['exact', 'best_effort']).describe('exact when confidence ≥ 0.9 (compiler-grade), else best_effort.'),
  evidence: z.string().describe('Why the edge exists, naming the provider.'),
  path: z.string().nullable().describe('File of the reference site.'),
  line: z.number().int().nullable().describe('Line of the reference site, when known.'),
});

export const symbolParam = z.string().min(1).max(1000).describe('The symbol: an id from another tool (symbol:<repo_id>:<path>:<symbol_path>), a qualified name (Worker.run) or a plain name. Add path to narrow a common name.');
export const pathParam = z.string().min(1).optional().describe('Repository-relative file path that narrows the symbol lookup.');
