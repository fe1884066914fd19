/**
 * Language-model tools: every registry tool, registered under its manifest name (`sightline_<name>`),
 * answered by the engine process through the registry, rendered within the caller's token budget.
 */
import * as vscode from 'vscode';
import { TOOL_LIST } from '../core/tools/registry';
import { lmToolName } from '../core/tools/manifest';
import type { EngineProcess } from './engineProcess';
import type { LspEnricher } from './lsp';

/** Tools about one symbol: its live language server is asked first (once per content of its file). */
const SYMBOL_TOOLS = new Set(['find_references', 'impact', 'related_tests']);
const ENRICH_BUDGET_MS = 6000;

const CHARS_PER_TOKEN = 4;

function progressMessage(tool: string, input: Record<string, unknown>): string {
  switch (tool) {
    case 'search_code': case 'vector_search': return `Searching the Sightline index for "${String(input.query ?? '')}"`;
    case 'get_chunk': return `Reading ${String(input.chunk_id ?? 'chunk')}`;
    case 'index_repo': return input.force ? 'Rebuilding the Sightline index' : 'Updating the Sightline index';
    case 'index_status': return 'Checking the Sightline index';
    case 'find_references': return `Finding references to ${String(input.symbol ?? '')}`;
    case 'impact': return `Working out what depends on ${String(input.symbol ?? '')}`;
    case 'related_tests': return `Finding tests of ${String(input.symbol ?? '')}`;
    case 'impact_analysis': return 'Analysing the impact of the change set';
    case 'expand_context': return 'Expanding context around the chunks';
    default: return `Running Sightline ${tool}`;
  }
}

/** When the last language-model tool call reached Sightline's handler and when it answered (performance.now()). */
export interface ToolCallTiming { tool: string; started_ms: number; ended_ms: number }

/**
 * `settle`: file changes the editor reported are applied before a tool answers (IndexScheduler.settle).
 * `timing` receives each call's start and end in this handler, which tells Sightline's part of an answer
 * from VS Code's own delivery of the call.
 */
export function registerLanguageModelTools(engine: EngineProcess, enricher: LspEnricher, settle: () => Promise<void> = async () => undefined, log?: vscode.LogOutputChannel,
  timing?: (t: ToolCallTiming) => void): vscode.Disposable[] {
  if (!vscode.lm?.registerTool) return [];
  return TOOL_LIST.map(def => vscode.lm.registerTool<Record<string, unknown>>(lmToolName(def.name), {
    prepareInvocation(options) {
      return { invocationMessage: progressMessage(def.name, options.input ?? {}) };
    },
    async invoke(options, token) {
      const budget = options.tokenizationOptions?.tokenBudget;
      const input = options.input ?? {};
      const t0 = performance.now();
      if (def.name !== 'index_repo') await settle();
      const t1 = performance.now();
      if (SYMBOL_TOOLS.has(def.name) && typeof input.symbol === 'string') {
        const [t] = await enricher.targets({ symbol: input.symbol, path: typeof input.path === 'string' ? input.path : undefined, limit: 1 });
        if (t && !t.checked) await enricher.enrich(t, ENRICH_BUDGET_MS, token);
      }
      const t2 = performance.now();
      const r = await engine.call(def.name, options.input ?? {}, { token, maxChars: budget ? Math.max(400, Math.floor(budget * CHARS_PER_TOKEN)) : undefined });
      const t3 = performance.now();
      log?.info(`tool ${def.name}: changes applied in ${Math.round(t1 - t0)} ms, language servers ${Math.round(t2 - t1)} ms, answered in ${Math.round(t3 - t2)} ms`);
      timing?.({ tool: def.name, started_ms: t0, ended_ms: t3 });
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(r.markdown)]);
    },
  }));
}
