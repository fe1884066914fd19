/** Schema fragments several tools share, so one concept has one name and one shape everywhere. */
import { z } from 'zod';
import { LANGUAGE_IDS } from '../languages/types';
import { TEXT_KINDS } from '../languages/text';
import { code } from './contract';
import { toNodeRef, resolutionOf, BOUNDARY_KINDS, type NodeRef } from '../graph/query';
import type { TestHit } from '../graph/tests';
import { readableName, type Resolved } from '../graph/lookup';
import { nodeIdParts } from '../util/ids';

export const repoParam = z.string().min(1).optional()
  .describe('One repository (repo_id or a path in a root; default: all).');
/** The one token-budget policy: 100 to 100,000 tokens (characters / 4); each tool picks its default. */
export const TOKEN_BUDGET_MIN = 100;
export const TOKEN_BUDGET_MAX = 100_000;
export function tokenBudgetParam(defaultTokens: number, what: string) {
  return z.number().int().min(TOKEN_BUDGET_MIN).max(TOKEN_BUDGET_MAX).default(defaultTokens).describe(what);
}
export const languageParam = z.enum(LANGUAGE_IDS).optional().describe('Only this language.');
export const FILE_KINDS = ['code', ...TEXT_KINDS] as const;
export const fileKindParam = z.enum(FILE_KINDS).optional()
  .describe('Only files of this kind: code, or text files that are doc, config, data, script, markup or style '
    + '(text files rank below code unless the query asks for them or this is set).');
export const queryParam = z.string().min(1).max(1_000_000).describe('Words, identifiers or a question; you may paste a whole issue, stack trace or log.');

export const searchHitSchema = z.object({
  chunk_id: z.string().describe('Chunk id: the argument of get_chunk, and of any tool that takes a symbol (it names the chunk\'s definition).'),
  repo_id: z.string().describe('Repository the chunk belongs to.'),
  path: z.string().describe('Repository-relative file path.'),
  start_line: z.number().int().describe('First line of the chunk, 1-based.'),
  end_line: z.number().int().describe('Last line of the chunk, 1-based.'),
  symbol_path: z.string().nullable().describe('Qualified name of the enclosing definition (e.g. Worker.run), null for top-level code.'),
  kind: z.string().describe('Definition kind (function, method, class, …), top_level, or a text file\'s kind: doc, config, data, script, markup, style.'),
  score: z.number().describe('Relevance score of the primary signal (BM25, or cosine similarity for local_hash_vector-only hits).'),
  signals: z.array(z.string()).describe('Signals that found this chunk: bm25 and/or local_hash_vector.'),
  snippet: z.string().nullable().describe('The chunk\'s first non-blank line (a signature, usually), as indexed.'),
});

/**
 * A node as every answer lists it: the id to hand back (it spells the repository, the path and the
 * qualified name) and where it starts. Nothing the id already says is repeated but the path, which
 * clients open (symbolPathOf reads the qualified name back); get_chunk with the id gives its text.
 */
export const nodeSchema = z.object({
  id: z.string().describe('Stable node id (symbol:<repo_id>:<path>:<symbol_path> or file:<repo_id>:<path>): the symbol argument of other tools, and get_chunk\'s chunk_id.'),
  kind: z.string().describe('Definition kind, or file.'),
  path: z.string().describe('Repository-relative file path.'),
  line: z.number().int().describe('Line where the definition starts, 1-based (1 for a file).'),
});

export const boundarySchema = z.object({
  kind: z.enum(BOUNDARY_KINDS).describe('What limits the answer (stale_files: files changed on disk since indexing, run index_repo).'),
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

export const symbolParam = z.string().min(1).max(1000).describe('An id (or a chunk id), a qualified name (Worker.run, Worker::run, pkg.mod.func, Subclass.inherited) or a name.');
export const pathParam = z.string().min(1).optional().describe('File path narrowing the symbol lookup.');

export const matchedBySchema = z.string().nullable().describe('How the symbol argument was matched when not literally (inherited member, module-qualified name, overload set), else null.');

/** The shared part of a graph answer whose symbol matched several definitions. */
export function unresolvedAnswer(r: Resolved, symbol: string) {
  return {
    resolved: [] as NodeRef[], ambiguous: r.ambiguous.map(toNodeRef), matched_by: r.matched_by, complete: false,
    boundaries: [{ kind: 'ambiguous_target' as const, detail: `${r.ambiguous.length} definitions match ${symbol}; call again with one of their ids (or add path)` }],
  };
}

/** The qualified name a node's id spells (`symbol:<repo>:<path>:<symbol_path>`), null for a file. */
export function symbolPathOf(n: { id: string; path: string }): string | null {
  return nodeIdParts(n.id, n.path)?.symbol_path ?? null;
}

/** A node's name for Markdown: the qualified path with internal suffixes spelled out. */
export function nodeLabel(n: { id: string; path: string; kind: string }): string {
  return readableName({ symbol_path: symbolPathOf(n), path: n.path, kind: n.kind });
}

export function renderUnresolved(tool: string, name: string, ambiguous: NodeRef[]): string {
  return [`**${tool}** ${code(name)} matches ${ambiguous.length} definitions — call again with one of these ids (or add path):`,
    ...ambiguous.map(n => `- ${code(n.id)} (${n.kind}, ${n.path}:${n.line})`)].join('\n');
}

export const testSchema = z.object({
  node: nodeSchema,
  distance: z.number().int().describe('Edges between the test and the target (1 = it uses the target itself).'),
  reason: z.string().describe('How the test reaches the target.'),
  resolution: z.enum(['exact', 'best_effort']).describe('Resolution of the weakest link.'),
  confidence: z.number().describe('Lowest edge confidence on the way.'),
  likely: z.boolean().describe('Every step is a call or use bound with confidence >= 0.5, a function only registered '
    + '(a table, a class body, a hook, a callback) is named by the test, and error-only code (a handler, a raise) is '
    + 'reached only by a test expecting an error; likely tests come first.'),
  via: z.array(z.string()).describe('Qualified names of the nodes between the test and the target, nearest to the test first (a helper in the test file comes first).'),
});

/** A test as the Markdown lists it (related_tests; `test ` marks it among impact's dependents). */
export function testLine(x: z.infer<typeof testSchema>, marker = ''): string {
  const via = x.via.length ? ` · via ${x.via.slice(0, 2).map(v => code(v)).join(', ')}${x.via.length > 2 ? ' …' : ''}` : '';
  const where = `${x.node.path}:${x.node.line}`;
  const odds = x.likely ? 'likely' : 'possible';
  return `- ${marker}${x.node.kind} ${code(nodeLabel(x.node))} ${where} · ${odds} d${x.distance} ${x.resolution} ${x.confidence} — ${x.reason}${via}`;
}

export function toTestRef(t: TestHit): z.infer<typeof testSchema> {
  return {
    node: toNodeRef(t.node), distance: t.distance, reason: t.reason, resolution: resolutionOf(t.confidence), confidence: t.confidence,
    likely: t.likely, via: t.via.map(v => v.symbol_path ?? v.path),
  };
}

// ---- project memories ----------------------------------------------------------------------------
/** The memory's anchored code changed since it was written or last confirmed (apart from its status). */
export const codeChangeSchema = z.object({
  since_ms: z.number().int().describe('When the memory was written or last confirmed.'),
  lines_added: z.number().int().nullable().describe('Lines added to the anchored code (null: a file anchor).'),
  lines_removed: z.number().int().nullable().describe('Lines removed from it.'),
  summary: z.string().describe('What changed, in a sentence.'),
}).nullable().describe('Set when the anchored code changed since the memory was written or last confirmed: it may no longer hold (memory_update confirm=true clears it).');
export type CodeChangeOut = z.infer<typeof codeChangeSchema>;
/** `✎ code changed since 2026-12-01 (3 lines added)` or ''. */
export function codeChangeText(c: CodeChangeOut | undefined): string {
  if (!c) return '';
  const lines = [c.lines_added ? `+${c.lines_added}` : '', c.lines_removed ? `−${c.lines_removed}` : ''].filter(Boolean).join(' ');
  return `✎ **code changed** since ${new Date(c.since_ms).toISOString().slice(0, 10)}${lines ? ` (${lines} lines)` : ''}: check it still holds, then confirm`;
}

export const memorySchema = z.object({
  id: z.string().describe('memory:<repo_id>:<hash>'),
  repo_id: z.string(),
  anchor_kind: z.enum(['repo', 'file', 'symbol', 'span']),
  anchor_id: z.string().describe('symbol_path (symbol), path (file/span) or repo_id.'),
  anchor_path: z.string().nullable(),
  start_line: z.number().int().nullable(),
  end_line: z.number().int().nullable(),
  text: z.string(),
  source: z.string().describe('human, agent, …'),
  confidence: z.number(),
  status: z.enum(['current', 'relocated', 'stale', 'gone']).describe('current: anchor resolves; relocated: moved, new place recorded; stale: file remains, anchor gone; gone: file no longer indexed.'),
  created_at_ms: z.number().int(),
  updated_at_ms: z.number().int(),
  scope: z.enum(['user', 'repo']).describe('user: private data folder; repo: <root>/.sightline/memories.json.'),
  created_commit: z.string().nullable(),
  created_by: z.string(),
  checked_at_ms: z.number().int().describe('Last check against the file.'),
  code_change: codeChangeSchema,
});
export type MemoryOut = z.infer<typeof memorySchema>;
export function toMemoryOut(m: Omit<MemoryOut, 'code_change'> & { code_change?: MemoryOut['code_change'] }): MemoryOut {
  const { id, repo_id, anchor_kind, anchor_id, anchor_path, start_line, end_line, text, source, confidence, status, created_at_ms, updated_at_ms, scope, created_commit, created_by, checked_at_ms } = m;
  return { id, repo_id, anchor_kind, anchor_id, anchor_path, start_line, end_line, text, source, confidence, status, created_at_ms, updated_at_ms, scope, created_commit, created_by, checked_at_ms,
    code_change: m.code_change ?? null };
}
const STATUS_MARK: Record<string, string> = { current: '✓', relocated: '↪', stale: '⚠', gone: '✗' };
export function memoryLine(m: MemoryOut): string {
  const where = m.anchor_kind === 'repo' ? `repo ${m.repo_id}` : m.anchor_kind === 'file' ? m.anchor_path! : `${m.anchor_path}${m.anchor_kind === 'symbol' ? ` ${m.anchor_id}` : ''}:${m.start_line}-${m.end_line}`;
  const changed = m.code_change ? ` ${codeChangeText(m.code_change)}.` : '';
  return `- ${STATUS_MARK[m.status]} **${m.status}**${changed} ${code(where)} — ${m.text.replace(/\r?\n/g, ' ')} _(${m.source}, ${code(m.id)})_`;
}
