/**
 * Language-model tools: every registry tool, registered under its manifest name (`sightline_<name>`),
 * answered by the engine process through the registry, rendered within the caller's token budget.
 */
import * as vscode from 'vscode';
import { TOOL_LIST } from '../core/tools/registry';
import { lmToolName } from '../core/tools/manifest';
import type { EngineProcess } from './engineProcess';

const CHARS_PER_TOKEN = 4;

function progressMessage(tool: string, input: Record<string, unknown>): string {
  switch (tool) {
    case 'search_code': case 'vector_search': return `Searching the Sightline index for "${String(input.query ?? '')}"`;
    case 'get_chunk': return `Reading ${String(input.chunk_id ?? 'chunk')}`;
    case 'index_repo': return input.force ? 'Rebuilding the Sightline index' : 'Updating the Sightline index';
    case 'index_status': return 'Checking the Sightline index';
    default: return `Running Sightline ${tool}`;
  }
}

export function registerLanguageModelTools(engine: EngineProcess): vscode.Disposable[] {
  if (!vscode.lm?.registerTool) return [];
  return TOOL_LIST.map(def => vscode.lm.registerTool<Record<string, unknown>>(lmToolName(def.name), {
    prepareInvocation(options) {
      return { invocationMessage: progressMessage(def.name, options.input ?? {}) };
    },
    async invoke(options, token) {
      const budget = options.tokenizationOptions?.tokenBudget;
      const r = await engine.call(def.name, options.input ?? {}, { token, maxChars: budget ? Math.max(400, Math.floor(budget * CHARS_PER_TOKEN)) : undefined });
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(r.markdown)]);
    },
  }));
}
