/**
 * The VS Code manifest entries for the registry's tools (`contributes.languageModelTools` and a tool
 * set). Generated, never hand-edited: scripts/sync-manifest.mjs writes them into package.json and a
 * test checks they match.
 */
import { TOOL_LIST } from './registry';
import { jsonSchema } from './contract';

/** Language-model tool names are global in VS Code, so ours carry the product prefix. */
export const LM_TOOL_PREFIX = 'sightline_';
export const lmToolName = (name: string) => `${LM_TOOL_PREFIX}${name}`;

function firstSentence(text: string): string {
  const m = /^(.+?[.!?])(\s|$)/.exec(text);
  return (m ? m[1]! : text).trim();
}

export function manifestTools(): { languageModelTools: Record<string, unknown>[]; languageModelToolSets: Record<string, unknown>[] } {
  const languageModelTools = TOOL_LIST.map(t => ({
    name: lmToolName(t.name),
    displayName: `Sightline: ${t.title}`,
    toolReferenceName: lmToolName(t.name),
    canBeReferencedInPrompt: true,
    icon: '$(telescope)',
    userDescription: firstSentence(t.description),
    modelDescription: t.description,
    tags: ['sightline', 'code-search', t.annotations.read_only ? 'read-only' : 'writes-index'],
    when: 'sightline.lmToolsEnabled',
    inputSchema: jsonSchema(t.input, 'input'),
  }));
  const languageModelToolSets = [{
    name: 'sightline',
    description: 'Where to look and what is at stake: workspace search, chunks and index status from the Sightline index.',
    icon: '$(telescope)',
    tools: languageModelTools.map(t => t.name),
  }];
  return { languageModelTools, languageModelToolSets };
}
