/**
 * Sightline in VS Code. Activation is cheap: it wires UI and registrations, then starts the engine in a
 * child process (see engineProcess.ts) and indexes in the background. Only this folder imports `vscode`.
 */
import * as vscode from 'vscode';
import { EngineProcess } from './engineProcess';
import { IndexScheduler } from './indexer';
import { StatusBar, StatusTree } from './ui';
import { registerLanguageModelTools, type ToolCallTiming } from './tools';
import { McpProvider, clientConfig } from './mcpProvider';
import { registerAdapterCommands } from './adapters';
import { engineArgs, engineEnv, readConfig } from './config';
import { LspEnricher } from './lsp';
import { ImpactView } from './impactView';
import { ImpactTree } from './impactTree';
import { MemoryLenses, MemoryModel, MemoryTree, registerMemoryCommands } from './memories';
import { UnsavedBuffers } from './unsaved';
import { MemoryEditor } from './memoryEditor';

export interface SightlineApi {
  /** Calls a registry tool through the engine process (tests and other extensions). */
  call: EngineProcess['call'];
  /** An editor-only engine request (not a tool; tests read the index as it stands through `sightline/symbol_at`). */
  request: EngineProcess['request'];
  /** Resolves when the running/pending index pass finishes. */
  whenIndexed(): Promise<void>;
  scheduler: IndexScheduler;
  activationMs: number;
  /** The last language-model tool call's start and end in Sightline's handler (performance.now() of the extension host). */
  lastToolCall(): ToolCallTiming | null;
  /** whether VS Code chat currently gets the language-model tools (false in `mcp` mode or once VS Code runs our MCP server) */
  lmToolsEnabled(): boolean;
  /** asks the language servers about one symbol now (tests, commands) */
  enrich(symbol: string, path?: string): Promise<string>;
  /** the sidebar views, as text (tests) */
  views: { status: StatusTree; memories: MemoryTree; impact: ImpactTree };
  memories: MemoryModel;
  /** the unsaved buffers the engine was last told about (root-relative paths) */
  unsaved: UnsavedBuffers;
}

export async function activate(context: vscode.ExtensionContext): Promise<SightlineApi> {
  const t0 = Date.now();
  const log = vscode.window.createOutputChannel('Sightline', { log: true });
  context.subscriptions.push(log);
  let cfg = readConfig();
  const folders = () => vscode.workspace.workspaceFolders ?? [];
  const args = () => engineArgs(folders(), cfg);

  const engine = new EngineProcess(context.extensionPath, args(), log, engineEnv(cfg));
  const scheduler = new IndexScheduler(engine, log, cfg.debounceMs);
  context.subscriptions.push(engine, scheduler, new StatusBar(scheduler));
  const tree = new StatusTree(engine, scheduler);
  context.subscriptions.push(tree, vscode.window.registerTreeDataProvider('sightline.status', tree));

  // Which surface VS Code's own chat uses: the language-model tools by default (in-process token budgets,
  // progress messages and cancellation, no second engine process). When VS Code starts the listed MCP
  // server, the language-model tools step aside so the agent never sees every tool twice.
  let mcpStarted = false;
  const lmToolsEnabled = () => cfg.toolSurface === 'languageModelTools' && !mcpStarted;
  const updateToolContext = () => vscode.commands.executeCommand('setContext', 'sightline.lmToolsEnabled', lmToolsEnabled());
  void updateToolContext();
  const enricher = new LspEnricher(engine, log);
  const roots = async () => ((await engine.call('index_status', { limit: 1 })).data?.roots as { repo_id: string; path: string }[] | undefined) ?? [];
  const impactView = new ImpactView(context.extensionUri, engine, roots);

  // Project memories: one cache of the engine's memories feeds the tree view, CodeLens and hovers.
  const memories = new MemoryModel(engine);
  const memoryTree = new MemoryTree(memories);
  const memoryEditor = new MemoryEditor(context.extensionUri, engine, roots, memories);
  context.subscriptions.push(impactView, memoryEditor);
  const lenses = new MemoryLenses(memories);
  let lensRegistration: vscode.Disposable | undefined;
  const updateLenses = () => {
    if (cfg.memoryCodeLens && !lensRegistration) lensRegistration = vscode.languages.registerCodeLensProvider({ scheme: 'file' }, lenses);
    if (!cfg.memoryCodeLens && lensRegistration) { lensRegistration.dispose(); lensRegistration = undefined; }
  };
  updateLenses();
  const impactTree = new ImpactTree(engine, memories, repoId => memories.roots.find(r => r.repo_id === repoId)?.path);
  const unsaved = new UnsavedBuffers(engine, log, vscode.Uri.joinPath(context.globalStorageUri, `unsaved-buffers-${process.pid}.json`).fsPath);
  context.subscriptions.push(memories, memoryTree, lenses, impactTree, unsaved, { dispose: () => lensRegistration?.dispose() },
    vscode.languages.registerHoverProvider({ scheme: 'file' }, lenses),
    ...registerMemoryCommands({ engine, model: memories, defaultScope: () => cfg.memoryScope }),
    // a memory is checked against its file on every read: saving a file re-reads the memories
    vscode.workspace.onDidSaveTextDocument(doc => { if (memories.inFile(doc.uri).length) void memories.refresh(); }),
    engine.onDidChange(() => unsaved.resend()),
  );
  // After an index run: the Memories view (reconciled by the run) and the Impact view redraw.
  context.subscriptions.push(scheduler.onDidQuiet(s => { if (s.phase === 'ready') { void memories.refresh(); } }));
  let lastToolCall: ToolCallTiming | null = null;
  context.subscriptions.push(...registerLanguageModelTools(engine, enricher, () => scheduler.settle(), log, t => { lastToolCall = t; }));
  // After each index run, ask the language servers about the most depended-on symbols, in the background.
  let background: vscode.CancellationTokenSource | undefined;
  context.subscriptions.push(scheduler.onDidChangeState(s => { if (s.phase === 'indexing') background?.cancel(); }), scheduler.onDidHandOver(() => background?.cancel()), scheduler.onDidQuiet(s => {
    if (s.phase !== 'ready' || !cfg.backgroundEnrichment || background) return;
    const cts = background = new vscode.CancellationTokenSource();
    void enricher.background(cfg.backgroundBudgetMs, cts.token).then(n => { if (n) log.info(`background: ${n} symbol(s) checked by language servers`); })
      .finally(() => { cts.dispose(); if (background === cts) background = undefined; });
  }), { dispose: () => background?.cancel() });
  // the listed server reads the index this window's engine keeps fresh (it gets the editor's file events): no watcher of its own
  const mcp = new McpProvider(() => engine.mcpScript, () => [...args(), '--no-watch', ...(unsaved.file ? ['--unsaved-buffers', unsaved.file] : [])], () => cfg.mcpServerListed, () => engineEnv(cfg));
  context.subscriptions.push(mcp, mcp.onDidStart(() => { mcpStarted = true; void updateToolContext(); }));

  context.subscriptions.push(
    vscode.commands.registerCommand('sightline.reindex', async (force?: boolean) => {
      await scheduler.runNow(force === true);
      return scheduler.snapshot;
    }),
    vscode.commands.registerCommand('sightline.rebuild', async () => { await scheduler.runNow(true); return scheduler.snapshot; }),
    vscode.commands.registerCommand('sightline.showStatus', async (opts?: { silent?: boolean }) => {
      const r = await engine.call('index_status', { limit: 50 });
      if (!opts?.silent) {
        const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: r.markdown });
        await vscode.window.showTextDocument(doc, { preview: true });
      }
      return r.data ?? r.error;
    }),
    vscode.commands.registerCommand('sightline.search', async (query?: string) => {
      const q = query ?? await vscode.window.showInputBox({ prompt: 'Search the Sightline index', placeHolder: 'words, identifiers or a question' });
      if (!q) return undefined;
      const r = await engine.call('search_code', { query: q, limit: 30, group: 'chunk' });
      if (!r.ok) { void vscode.window.showErrorMessage(`Sightline search failed: ${r.error?.message}`); return undefined; }
      const results = (r.data?.results ?? []) as { path: string; repo_id: string; start_line: number; end_line: number; symbol_path: string | null; kind: string; chunk_id: string; snippet: string | null }[];
      if (query !== undefined) return results; // programmatic use: no UI
      const roots = (await engine.call('index_status', { limit: 1 })).data?.roots as { repo_id: string; path: string }[] | undefined;
      const pick = await vscode.window.showQuickPick(results.map(h => ({
        label: h.symbol_path ?? '(top-level code)', description: `${h.path}:${h.start_line}`, detail: h.snippet ? `${h.kind} · ${h.snippet}` : h.kind, hit: h,
      })), { matchOnDescription: true, title: `Sightline: ${results.length} result(s) for "${q}"` });
      if (!pick) return undefined;
      const root = roots?.find(x => x.repo_id === pick.hit.repo_id)?.path ?? folders()[0]?.uri.fsPath;
      if (!root) return undefined;
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(vscode.Uri.file(root), pick.hit.path));
      const range = new vscode.Range(pick.hit.start_line - 1, 0, pick.hit.start_line - 1, 0);
      await vscode.window.showTextDocument(doc, { selection: range });
      return pick.hit;
    }),
    vscode.commands.registerCommand('sightline.copyMcpConfig', async () => {
      const text = clientConfig(engine.mcpScript, args());
      await vscode.env.clipboard.writeText(text);
      void vscode.window.showInformationMessage('Sightline: MCP configuration for other clients copied to the clipboard.');
      return text;
    }),
    vscode.commands.registerCommand('sightline.showLog', () => log.show(true)),
    vscode.commands.registerCommand('sightline.showImpact', (symbol?: string, path?: string) => impactView.show(symbol, path)),
    vscode.commands.registerCommand('sightline.refreshImpact', () => impactTree.showAtCursor()),
    // from a tree item (its node), a CodeLens or hover (an id), or the palette (a quick pick)
    vscode.commands.registerCommand('sightline.editMemory', (arg?: string | { memory?: { id: string } }) => {
      const id = typeof arg === 'string' ? arg : arg?.memory?.id;
      return id ? memoryEditor.showMemory(id) : vscode.commands.executeCommand('sightline.pickMemory');
    }),
    // Health check (not in the palette): answers from the extension host at once, whatever the engine is doing.
    vscode.commands.registerCommand('sightline.ping', () => scheduler.snapshot.phase),
    ...registerAdapterCommands(engine, () => void tree.refresh()),
  );

  const reconfigure = async () => {
    cfg = readConfig();
    updateLenses();
    scheduler.setDebounce(cfg.debounceMs);
    void updateToolContext();
    await engine.reconfigure(args(), engineEnv(cfg));
    mcp.refresh();
    if (cfg.autoIndex && folders().length) scheduler.schedule();
  };
  context.subscriptions.push(
    vscode.workspace.onDidChangeWorkspaceFolders(() => void reconfigure()),
    vscode.workspace.onDidGrantWorkspaceTrust(() => void reconfigure()),
    vscode.workspace.onDidChangeConfiguration(e => {
      if (e.affectsConfiguration('sightline') || e.affectsConfiguration('files.exclude') || e.affectsConfiguration('search.exclude')) void reconfigure();
    }),
  );

  if (folders().length) {
    scheduler.watch();
    if (cfg.autoIndex) void scheduler.runNow();
  }
  const activationMs = Date.now() - t0;
  log.info(`activated in ${activationMs} ms`);
  const enrich = async (symbol: string, path?: string) => {
    const [t] = await enricher.targets({ symbol, path, limit: 1 });
    return t ? enricher.enrich(t, 30000) : 'not_found';
  };
  return { call: engine.call.bind(engine), request: engine.request.bind(engine), whenIndexed: () => scheduler.runNow(), scheduler, activationMs, lastToolCall: () => lastToolCall, lmToolsEnabled, enrich,
    views: { status: tree, memories: memoryTree, impact: impactTree }, memories, unsaved };
}

export function deactivate(): void { /* disposables in context.subscriptions release everything */ }
