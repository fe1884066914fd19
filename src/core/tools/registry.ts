/**
 * The tool registry: every tool Sightline publishes, defined once. MCP, VS Code language-model tools
 * and the CLI all serve exactly this table (the `satisfies` check makes a declared-but-unwired tool a
 * compile error).
 */
import type { ToolDef } from './contract';
import { indexRepo } from './index_repo';
import { searchCode } from './search_code';
import { vectorSearch } from './vector_search';
import { getChunk } from './get_chunk';
import { readExternal } from './read_external';
import { adapterTool } from './adapter_tool';
import { indexStatus } from './index_status';
import { findReferences } from './find_references';
import { expandContext } from './expand_context';
import { impactAnalysis } from './impact_analysis';
import { impact } from './impact';
import { relatedTests } from './related_tests';
import { history } from './history';
import { postChangeImpact } from './post_change_impact';
import { contextForChange } from './context_for_change';
import { preChangeContext } from './pre_change_context';
import { memoryAdd } from './memory_add';
import { memoryList } from './memory_list';
import { memoryUpdate } from './memory_update';
import { memoryDelete } from './memory_delete';
import { memoryReconcile } from './memory_reconcile';
import { links } from './links';
import { analytics } from './analytics';
import { findSimilar } from './find_similar';
import { overview } from './overview';

export const TOOL_NAMES = [
  'overview', 'index_repo', 'search_code', 'vector_search', 'get_chunk', 'index_status',
  'find_references', 'expand_context', 'impact_analysis', 'impact', 'related_tests',
  'history', 'post_change_impact', 'context_for_change', 'pre_change_context',
  'memory_add', 'memory_list', 'memory_update', 'memory_delete', 'memory_reconcile', 'links',
  'analytics', 'find_similar', 'read_external', 'adapter_tool',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

export const TOOLS = {
  overview,
  index_repo: indexRepo,
  search_code: searchCode,
  vector_search: vectorSearch,
  get_chunk: getChunk,
  index_status: indexStatus,
  find_references: findReferences,
  expand_context: expandContext,
  impact_analysis: impactAnalysis,
  impact,
  related_tests: relatedTests,
  history,
  post_change_impact: postChangeImpact,
  context_for_change: contextForChange,
  pre_change_context: preChangeContext,
  memory_add: memoryAdd,
  memory_list: memoryList,
  memory_update: memoryUpdate,
  memory_delete: memoryDelete,
  memory_reconcile: memoryReconcile,
  links,
  analytics,
  find_similar: findSimilar,
  read_external: readExternal,
  adapter_tool: adapterTool,
} satisfies Record<ToolName, ToolDef<any, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const TOOL_LIST: readonly ToolDef[] = TOOL_NAMES.map(n => TOOLS[n] as unknown as ToolDef);

export function findTool(name: string): ToolDef | undefined {
  return (TOOL_NAMES as readonly string[]).includes(name) ? TOOLS[name as ToolName] as unknown as ToolDef : undefined;
}
