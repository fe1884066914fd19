/** Reads `sightline.*` settings and turns them into engine-process arguments. */
import * as vscode from 'vscode';

export type ToolSurface = 'languageModelTools' | 'mcp';

export interface SightlineConfig {
  excludes: string[];
  maxFileBytes: number;
  languages: string[];
  textFiles: boolean;
  location: string;
  /** a prebuilt index artifact (path or URL) adopted when the workspace has no index yet */
  importFrom: string;
  respectFilesExclude: boolean;
  respectSearchExclude: boolean;
  autoIndex: boolean;
  debounceMs: number;
  toolSurface: ToolSurface;
  mcpServerListed: boolean;
  backgroundEnrichment: boolean;
  backgroundBudgetMs: number;
  allowExternalProviders: boolean;
  memoryScope: 'user' | 'repo';
  memoryCodeLens: boolean;
  /** instruction files the project memories are exported to: agents_md, copilot_instructions */
  memoriesExport: string[];
  /** `sightline.adapters`: adapters declared in the editor's settings (`{ <name>: { driver, … } }`) */
  adapters: Record<string, unknown>;
}

export function readConfig(): SightlineConfig {
  const c = vscode.workspace.getConfiguration('sightline');
  return {
    excludes: c.get<string[]>('index.excludes', []),
    maxFileBytes: c.get<number>('index.maxFileBytes', 1048576),
    languages: c.get<string[]>('index.languages', []),
    textFiles: c.get<boolean>('index.textFiles', true),
    location: c.get<string>('index.location', ''),
    importFrom: c.get<string>('index.importFrom', '').trim(),
    respectFilesExclude: c.get<boolean>('index.respectFilesExclude', true),
    respectSearchExclude: c.get<boolean>('index.respectSearchExclude', true),
    autoIndex: c.get<boolean>('index.autoIndex', true),
    debounceMs: Math.max(100, c.get<number>('index.debounceMs', 300)),
    toolSurface: c.get<ToolSurface>('chat.toolSurface', 'languageModelTools'),
    mcpServerListed: c.get<boolean>('mcp.listServer', true),
    backgroundEnrichment: c.get<boolean>('languageServers.background', true),
    backgroundBudgetMs: Math.max(1000, c.get<number>('languageServers.backgroundBudgetMs', 20000)),
    allowExternalProviders: c.get<boolean>('providers.allowExternal', false),
    memoryScope: c.get<'user' | 'repo'>('memories.defaultScope', 'user') === 'repo' ? 'repo' : 'user',
    memoryCodeLens: c.get<boolean>('memories.codeLens', true),
    memoriesExport: c.get<string[]>('memories.export', []).filter(t => t === 'agents_md' || t === 'copilot_instructions'),
    adapters: (() => { const a = c.get<unknown>('adapters', {}); return a && typeof a === 'object' && !Array.isArray(a) ? a as Record<string, unknown> : {}; })(),
  };
}

/** `files.exclude` / `search.exclude` globs (enabled ones) for a folder, as gitignore-style patterns. */
export function editorExcludes(folder: vscode.WorkspaceFolder, cfg: SightlineConfig): string[] {
  const out: string[] = [];
  const take = (section: string) => {
    const map = vscode.workspace.getConfiguration(section, folder.uri).get<Record<string, boolean | { when: string }>>('exclude', {});
    for (const [glob, on] of Object.entries(map)) if (on === true) out.push(glob);
  };
  if (cfg.respectFilesExclude) take('files');
  if (cfg.respectSearchExclude) take('search');
  return [...new Set(out)];
}

/** Arguments for dist/mcp.js that point it at the same index and settings as the extension. */
export function engineArgs(folders: readonly vscode.WorkspaceFolder[], cfg: SightlineConfig): string[] {
  const args: string[] = [];
  for (const f of folders) args.push('--workspace', f.uri.fsPath);
  if (cfg.location) args.push('--db', cfg.location);
  // A prebuilt index (a path or a URL: the one download the user may configure), in a trusted workspace only.
  if (cfg.importFrom && vscode.workspace.isTrusted) args.push('--import-from', cfg.importFrom);
  const excludes = new Set(cfg.excludes);
  for (const f of folders) for (const e of editorExcludes(f, cfg)) excludes.add(e);
  for (const e of excludes) args.push('--exclude', e);
  args.push('--max-file-bytes', String(cfg.maxFileBytes));
  // External reference providers run commands: only in a trusted workspace, and only when the user opted in.
  if (cfg.allowExternalProviders && vscode.workspace.isTrusted) args.push('--allow-reference-providers');
  if (cfg.languages.length) args.push('--languages', cfg.languages.join(','));
  if (!cfg.textFiles) args.push('--no-text-files');
  // Export of project memories into the repository's instruction files writes files there: only in a trusted workspace.
  if (cfg.memoriesExport.length && vscode.workspace.isTrusted) args.push('--export-memories', [...new Set(cfg.memoriesExport)].join(','));
  // Adapters a repository declares never run in an untrusted workspace.
  if (!vscode.workspace.isTrusted) args.push('--untrusted-workspace');
  return args;
}

/** Environment for dist/mcp.js: the adapters of the settings (in the environment: they may hold headers). */
export function engineEnv(cfg: SightlineConfig): Record<string, string> {
  return Object.keys(cfg.adapters).length ? { SIGHTLINE_ADAPTERS_SETTINGS: JSON.stringify(cfg.adapters) } : {};
}
