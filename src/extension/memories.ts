/**
 * Project memories in the editor: one cache of the engine's memories (memory_list, checked on read),
 * and what shows it — the Memories tree view (grouped by status, stale and gone first, with a badge),
 * CodeLens on the anchored lines, hovers, and the commands that add, reconcile, re-anchor and delete.
 * Every change goes through the engine's memory tools, so the editor, agents and the CLI see one store.
 */
import * as vscode from 'vscode';
import type { EngineProcess } from './engineProcess';

export type MemoryStatus = 'current' | 'relocated' | 'stale' | 'gone';
export interface Memory {
  id: string; repo_id: string; anchor_kind: 'repo' | 'file' | 'symbol' | 'span'; anchor_id: string; anchor_path: string | null;
  start_line: number | null; end_line: number | null; text: string; source: string; confidence: number; status: MemoryStatus;
  created_at_ms: number; updated_at_ms: number; scope: 'user' | 'repo'; created_by: string;
  /** the anchored code changed since the memory was written or last confirmed (null: it did not) */
  code_change?: { since_ms: number; lines_added: number | null; lines_removed: number | null; summary: string } | null;
}
export interface RootRef { repo_id: string; path: string }

/** Stale and gone first: they need a look. */
export const STATUS_ORDER: MemoryStatus[] = ['gone', 'stale', 'relocated', 'current'];
const STATUS_ICON: Record<MemoryStatus, string> = { current: 'pass', relocated: 'arrow-swap', stale: 'warning', gone: 'error' };
const STATUS_HELP: Record<MemoryStatus, string> = {
  current: 'the anchored code is where it was',
  relocated: 'the anchor moved (renamed, or its lines found elsewhere); the memory follows it (re-anchor to confirm)',
  stale: 'the file remains but the anchored code no longer resolves',
  gone: 'the anchored file is no longer indexed',
};
/** The most memories the editor loads (memory_list pages of 100). */
const MAX_MEMORIES = 5000;

/** `code changed since 2026-12-01 (+2 −1 lines)`, or '' when it did not. */
export function codeChangeLabel(m: Memory): string {
  const c = m.code_change;
  if (!c) return '';
  const lines = [c.lines_added ? `+${c.lines_added}` : '', c.lines_removed ? `−${c.lines_removed}` : ''].filter(Boolean).join(' ');
  return `code changed since ${new Date(c.since_ms).toISOString().slice(0, 10)}${lines ? ` (${lines} lines)` : ''}`;
}

const firstLine = (t: string, n = 80) => { const l = t.split(/\r?\n/).find(x => x.trim()) ?? ''; return l.length > n ? `${l.slice(0, n - 1)}…` : l; };
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The engine's memories, reloaded after index runs and memory changes; the views redraw from its event. */
export class MemoryModel implements vscode.Disposable {
  private memories: Memory[] = [];
  private rootsList: RootRef[] = [];
  private loading: Promise<void> | undefined;
  private again = false;
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.emitter.event;
  lastError: string | undefined;

  constructor(private readonly engine: EngineProcess) {}

  get all(): readonly Memory[] { return this.memories; }
  get roots(): readonly RootRef[] { return this.rootsList; }
  count(status: MemoryStatus): number { return this.memories.filter(m => m.status === status).length; }

  /** Reloads (coalesced: a reload asked for while one runs runs once more after it). */
  refresh(): Promise<void> {
    if (this.loading) { this.again = true; return this.loading; }
    this.loading = (async () => {
      do {
        this.again = false;
        await this.load();
      } while (this.again);
    })().finally(() => { this.loading = undefined; });
    return this.loading;
  }

  private async load(): Promise<void> {
    try {
      const st = await this.engine.call('index_status', { limit: 1 });
      this.rootsList = ((st.data?.roots ?? []) as RootRef[]).map(r => ({ repo_id: r.repo_id, path: r.path }));
      const out: Memory[] = [];
      let offset: number | null = 0;
      while (offset !== null && out.length < MAX_MEMORIES) {
        const r = await this.engine.call('memory_list', { limit: 100, offset });
        if (!r.ok) throw new Error(r.error?.message ?? 'memory_list failed');
        out.push(...(r.data?.memories as Memory[]));
        offset = (r.data?.next_offset as number | null) ?? null;
      }
      this.memories = out;
      this.lastError = undefined;
    } catch (e) {
      this.lastError = (e as Error).message;
    }
    this.emitter.fire();
  }

  uriOf(m: Pick<Memory, 'repo_id' | 'anchor_path'>): vscode.Uri | undefined {
    const root = this.rootsList.find(r => r.repo_id === m.repo_id);
    if (!root) return undefined;
    return m.anchor_path ? vscode.Uri.joinPath(vscode.Uri.file(root.path), m.anchor_path) : vscode.Uri.file(root.path);
  }

  /** (repo_id, root-relative path) of a document in one of the roots, or undefined. */
  locate(uri: vscode.Uri): { repo_id: string; path: string } | undefined {
    if (uri.scheme !== 'file') return undefined;
    const p = uri.fsPath;
    const root = this.rootsList.filter(r => p === r.path || p.startsWith(r.path.endsWith('/') ? r.path : `${r.path}/`) || p.startsWith(`${r.path}\\`))
      .sort((a, b) => b.path.length - a.path.length)[0];
    if (!root) return undefined;
    return { repo_id: root.repo_id, path: p.slice(root.path.length).replace(/^[\\/]+/, '').replace(/\\/g, '/') };
  }

  inFile(uri: vscode.Uri): Memory[] {
    const at = this.locate(uri);
    if (!at) return [];
    return this.memories.filter(m => m.repo_id === at.repo_id && m.anchor_path === at.path);
  }

  dispose(): void { this.emitter.dispose(); }
}

// ---- the tree view -------------------------------------------------------------------------------
type MemoryNode = { kind: 'group'; status: MemoryStatus; items: Memory[] } | { kind: 'memory'; memory: Memory } | { kind: 'note'; label: string; icon: string };

export function memoryWhere(m: Memory): string {
  if (m.anchor_kind === 'repo') return `repository ${m.repo_id}`;
  if (m.anchor_kind === 'file') return m.anchor_path ?? '';
  const lines = m.start_line === null ? '' : m.end_line !== null && m.end_line !== m.start_line ? `:${m.start_line}-${m.end_line}` : `:${m.start_line}`;
  return `${m.anchor_path}${lines}${m.anchor_kind === 'symbol' ? ` · ${m.anchor_id}` : ''}`;
}

/** A row's description: where, and whether its code changed since it was confirmed. */
function memoryDescription(m: Memory): string {
  return m.code_change ? `✎ ${codeChangeLabel(m)} · ${memoryWhere(m)}` : memoryWhere(m);
}

function memoryTooltip(m: Memory): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.appendMarkdown(`**${m.status}** — ${STATUS_HELP[m.status]}\n\n`);
  if (m.code_change) md.appendMarkdown(`$(edit) **${codeChangeLabel(m)}**: ${m.code_change.summary}; check it still holds, then confirm.\n\n`);
  md.appendText(m.text);
  md.appendMarkdown(`\n\n---\n\n`);
  md.appendText(`${memoryWhere(m)} · ${m.source} · ${m.scope === 'repo' ? 'shared (.sightline/memories.json)' : 'private'} · ${new Date(m.updated_at_ms).toLocaleString()}`);
  return md;
}

export class MemoryTree implements vscode.TreeDataProvider<MemoryNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<MemoryNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  readonly view: vscode.TreeView<MemoryNode>;
  private readonly sub: vscode.Disposable;

  constructor(private readonly model: MemoryModel) {
    this.view = vscode.window.createTreeView('sightline.memories', { treeDataProvider: this, showCollapseAll: true });
    this.sub = model.onDidChange(() => { this.updateBadge(); this.emitter.fire(undefined); });
  }

  private updateBadge(): void {
    const n = this.model.count('stale') + this.model.count('gone');
    this.view.badge = n ? { value: n, tooltip: `${plural(n, 'memory', 'memories')} need a look (stale or gone)` } : undefined;
    this.view.description = this.model.all.length ? plural(this.model.all.length, 'memory', 'memories') : undefined;
  }

  getChildren(n?: MemoryNode): MemoryNode[] {
    if (n?.kind === 'group') return n.items.map(memory => ({ kind: 'memory', memory }));
    if (n) return [];
    if (this.model.lastError) return [{ kind: 'note', label: `Memories unavailable: ${this.model.lastError}`, icon: 'error' }];
    if (!this.model.all.length) return [];
    return STATUS_ORDER.map(status => ({ kind: 'group' as const, status, items: this.model.all.filter(m => m.status === status) })).filter(g => g.items.length);
  }

  getTreeItem(n: MemoryNode): vscode.TreeItem {
    if (n.kind === 'note') { const t = new vscode.TreeItem(n.label); t.iconPath = new vscode.ThemeIcon(n.icon); return t; }
    if (n.kind === 'group') {
      const t = new vscode.TreeItem(n.status[0]!.toUpperCase() + n.status.slice(1), n.status === 'current' && n.items.length > 20 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded);
      t.description = String(n.items.length);
      t.tooltip = STATUS_HELP[n.status];
      t.iconPath = new vscode.ThemeIcon(STATUS_ICON[n.status]);
      t.id = `group:${n.status}`;
      return t;
    }
    const m = n.memory;
    const t = new vscode.TreeItem(firstLine(m.text));
    t.id = m.id;
    t.description = memoryDescription(m);
    t.tooltip = memoryTooltip(m);
    const warn = m.status === 'stale' || m.status === 'gone' || !!m.code_change;
    const icon = m.code_change && m.status === 'current' ? 'edit' : STATUS_ICON[m.status];
    t.iconPath = new vscode.ThemeIcon(icon, warn ? new vscode.ThemeColor('problemsWarningIcon.foreground') : undefined);
    t.contextValue = `memory.${m.status}${m.code_change ? '.changed' : ''}`;
    t.command = { command: 'sightline.revealMemory', title: 'Reveal Anchor', arguments: [m.id] };
    return t;
  }

  /** What the view shows, as text (tests and the status command). */
  snapshot(): { status: MemoryStatus; count: number; items: { id: string; label: string; description: string }[] }[] {
    return STATUS_ORDER.map(status => {
      const items = this.model.all.filter(m => m.status === status);
      return { status, count: items.length, items: items.map(m => ({ id: m.id, label: firstLine(m.text), description: memoryDescription(m) })) };
    }).filter(g => g.count);
  }

  dispose(): void { this.sub.dispose(); this.emitter.dispose(); this.view.dispose(); }
}

// ---- CodeLens and hover on anchored lines --------------------------------------------------------
/** The lines (0-based) a memory covers in its file now; a file anchor covers the first line. */
function rangeOf(m: Memory): vscode.Range {
  const s = Math.max(0, (m.start_line ?? 1) - 1);
  const e = Math.max(s, (m.end_line ?? m.start_line ?? 1) - 1);
  return new vscode.Range(s, 0, e, Number.MAX_SAFE_INTEGER);
}

export class MemoryLenses implements vscode.CodeLensProvider, vscode.HoverProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.emitter.event;
  private readonly sub: vscode.Disposable;
  constructor(private readonly model: MemoryModel) { this.sub = model.onDidChange(() => this.emitter.fire()); }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const byLine = new Map<number, Memory[]>();
    for (const m of this.model.inFile(doc.uri)) {
      if (m.status === 'gone') continue;
      const line = Math.min(rangeOf(m).start.line, Math.max(0, doc.lineCount - 1));
      byLine.set(line, [...(byLine.get(line) ?? []), m]);
    }
    const lenses: vscode.CodeLens[] = [];
    for (const [line, ms] of byLine) {
      const range = new vscode.Range(line, 0, line, 0);
      const warn = ms.filter(m => m.status === 'stale').length;
      const changed = ms.filter(m => m.code_change).length;
      const flag = (m: Memory) => `${m.status === 'current' ? '' : `${m.status}: `}${m.code_change ? 'code changed: ' : ''}`;
      const title = ms.length === 1
        ? `$(note) ${flag(ms[0]!)}${firstLine(ms[0]!.text, 70)}`
        : `$(note) ${plural(ms.length, 'memory', 'memories')}${warn ? ` (${warn} stale)` : ''}${changed ? ` (${changed} on changed code)` : ''}: ${firstLine(ms[0]!.text, 50)}`;
      lenses.push(new vscode.CodeLens(range, { title, command: ms.length === 1 ? 'sightline.editMemory' : 'sightline.pickMemory', arguments: ms.length === 1 ? [ms[0]!.id] : [ms.map(m => m.id)], tooltip: 'Sightline memory: click to open it' }));
    }
    return lenses;
  }

  provideHover(doc: vscode.TextDocument, pos: vscode.Position): vscode.Hover | undefined {
    const ms = this.model.inFile(doc.uri).filter(m => m.status !== 'gone' && (m.anchor_kind === 'file' ? pos.line === 0 : rangeOf(m).contains(pos)));
    if (!ms.length) return undefined;
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = { enabledCommands: ['sightline.editMemory', 'sightline.reanchorMemory', 'sightline.confirmMemory'] };
    md.appendMarkdown(`**Sightline: ${plural(ms.length, 'memory', 'memories')}**\n\n`);
    if (doc.isDirty) md.appendMarkdown('_This file has unsaved changes: the lines are those of the saved file._\n\n');
    for (const m of ms) {
      md.appendMarkdown(m.status === 'stale' ? '$(warning) **stale** — the anchored code no longer resolves; check it still holds.\n\n' : m.status === 'relocated' ? '$(arrow-swap) **relocated** — the code moved; re-anchor to confirm.\n\n' : '');
      if (m.code_change) md.appendMarkdown(`$(edit) **${codeChangeLabel(m)}** — ${m.code_change.summary}; check it still holds.\n\n`);
      md.appendMarkdown(m.text); // Markdown; only the commands above may run from links
      const args = encodeURIComponent(JSON.stringify([m.id]));
      const confirm = m.code_change ? ` · [Still holds](command:sightline.confirmMemory?${args})` : '';
      md.appendMarkdown(`\n\n_${m.source} · ${memoryWhere(m)}_ · [Edit](command:sightline.editMemory?${args})${m.status === 'relocated' ? ` · [Re-anchor](command:sightline.reanchorMemory?${args})` : ''}${confirm}\n\n---\n\n`);
    }
    return new vscode.Hover(md);
  }

  dispose(): void { this.sub.dispose(); this.emitter.dispose(); }
}

// ---- commands ------------------------------------------------------------------------------------
export interface MemoryCommandsDeps {
  engine: EngineProcess;
  model: MemoryModel;
  defaultScope: () => 'user' | 'repo';
  /** opens the memory editor (the webview) when there is one */
  edit?: (id: string) => Promise<unknown>;
}

/** memory_add arguments for the active editor's selection (a span) or the definition around the cursor (a symbol). */
export async function anchorFromEditor(deps: MemoryCommandsDeps, kind: 'span' | 'symbol', editor: vscode.TextEditor | undefined): Promise<Record<string, unknown> | string> {
  if (!editor) return 'open a file first';
  const doc = editor.document;
  if (!deps.model.roots.length) await deps.model.refresh();
  const at = deps.model.locate(doc.uri);
  if (!at) return `${vscode.workspace.asRelativePath(doc.uri)} is not in an indexed folder`;
  if (doc.isDirty) return 'save the file first: memories anchor to saved code';
  if (kind === 'span') {
    const sel = editor.selection;
    const end = sel.end.character === 0 && sel.end.line > sel.start.line ? sel.end.line - 1 : sel.end.line;
    return { anchor_kind: 'span', repo: at.repo_id, path: at.path, start_line: sel.start.line + 1, end_line: end + 1 };
  }
  const sym = await deps.engine.request<{ symbol: { symbol_path: string; name: string } | null }>('sightline/symbol_at', { path: doc.uri.fsPath, line: editor.selection.active.line + 1 });
  if (!sym.symbol) return 'no indexed definition around the cursor (index the file first, or use Add Memory for Selection)';
  return { anchor_kind: 'symbol', repo: at.repo_id, path: at.path, symbol: sym.symbol.symbol_path };
}

export function registerMemoryCommands(deps: MemoryCommandsDeps): vscode.Disposable[] {
  const { engine, model } = deps;
  const fail = (what: string, message: string | undefined) => { void vscode.window.showErrorMessage(`Sightline: ${what}: ${message ?? 'failed'}`); };
  const find = (id: string) => model.all.find(m => m.id === id);

  const add = async (kind: 'span' | 'symbol', text?: string, scope?: 'user' | 'repo') => {
    const anchor = await anchorFromEditor(deps, kind, vscode.window.activeTextEditor);
    if (typeof anchor === 'string') { void vscode.window.showWarningMessage(`Sightline: cannot add a memory: ${anchor}.`); return { error: anchor }; }
    const body = text ?? await vscode.window.showInputBox({
      title: `Sightline: memory for ${anchor.anchor_kind === 'symbol' ? anchor.symbol : `${anchor.path}:${anchor.start_line}-${anchor.end_line}`}`,
      prompt: 'What should the next person (or agent) changing this code know? (Markdown)', ignoreFocusOut: true,
      validateInput: v => v.trim() ? undefined : 'a memory needs text',
    });
    if (!body?.trim()) return undefined;
    const r = await engine.call('memory_add', { ...anchor, text: body.trim(), source: 'human', scope: scope ?? deps.defaultScope() });
    if (!r.ok) { fail('adding the memory failed', r.error?.message); return r.error; }
    await model.refresh();
    if (r.data?.added === false) void vscode.window.showInformationMessage('Sightline: a near-identical memory is already on this code; nothing was added.');
    return r.data;
  };

  return [
    vscode.commands.registerCommand('sightline.addMemoryForSelection', (text?: string, scope?: 'user' | 'repo') => add('span', text, scope)),
    vscode.commands.registerCommand('sightline.addMemoryForSymbol', (text?: string, scope?: 'user' | 'repo') => add('symbol', text, scope)),
    vscode.commands.registerCommand('sightline.reconcileMemories', async () => {
      const r = await vscode.window.withProgress({ location: { viewId: 'sightline.memories' }, title: 'Reconciling memories' }, () => engine.call('memory_reconcile', {}));
      if (!r.ok) { fail('reconciling failed', r.error?.message); return r.error; }
      await model.refresh();
      const s = r.data?.by_status as Record<MemoryStatus, number>;
      void vscode.window.showInformationMessage(`Sightline: ${plural(r.data?.checked as number, 'memory', 'memories')} checked — ${s.current} current, ${s.relocated} relocated, ${s.stale} stale, ${s.gone} gone.`);
      return r.data;
    }),
    vscode.commands.registerCommand('sightline.refreshMemories', () => model.refresh()),
    vscode.commands.registerCommand('sightline.revealMemory', async (arg?: string | { memory?: Memory }) => {
      const id = typeof arg === 'string' ? arg : arg?.memory?.id;
      const m = id ? find(id) : undefined;
      if (!m) return undefined;
      const uri = model.uriOf(m);
      if (!uri || m.status === 'gone' || !m.anchor_path) {
        void vscode.window.showWarningMessage(`Sightline: this memory's anchor ${m.status === 'gone' ? 'is gone' : 'is the repository'} (${memoryWhere(m)}).`);
        return m;
      }
      const doc = await vscode.workspace.openTextDocument(uri);
      const r = rangeOf(m);
      await vscode.window.showTextDocument(doc, { selection: new vscode.Range(r.start.line, 0, Math.min(r.end.line, doc.lineCount - 1), 0), preview: true });
      return m;
    }),
    vscode.commands.registerCommand('sightline.pickMemory', async (ids?: string[]) => {
      if (!ids) await model.refresh();
      if (model.lastError) { fail('listing memories failed', model.lastError); return undefined; }
      const ms = (ids ?? model.all.map(m => m.id)).map(find).filter((m): m is Memory => !!m);
      if (!ms.length) { void vscode.window.showInformationMessage('Sightline: there are no project memories yet.'); return undefined; }
      const pick = await vscode.window.showQuickPick(ms.map(m => ({ label: firstLine(m.text), description: `${m.status} · ${memoryWhere(m)}`, id: m.id })), { title: 'Sightline memories' });
      if (pick) await vscode.commands.executeCommand('sightline.editMemory', pick.id);
      return pick?.id;
    }),
    vscode.commands.registerCommand('sightline.reanchorMemory', async (arg?: string | { memory?: Memory }) => {
      const id = typeof arg === 'string' ? arg : arg?.memory?.id;
      if (!id) return undefined;
      const r = await engine.call('memory_update', { id, reanchor: true });
      if (!r.ok) { fail('re-anchoring failed', r.error?.message); return r.error; }
      await model.refresh();
      return r.data;
    }),
    vscode.commands.registerCommand('sightline.confirmMemory', async (arg?: string | { memory?: Memory }) => {
      const id = typeof arg === 'string' ? arg : arg?.memory?.id;
      if (!id) return undefined;
      const r = await engine.call('memory_update', { id, confirm: true });
      if (!r.ok) { fail('confirming failed', r.error?.message); return r.error; }
      await model.refresh();
      return r.data;
    }),
    vscode.commands.registerCommand('sightline.deleteMemory', async (arg?: string | { memory?: Memory }, confirmed?: boolean) => {
      const id = typeof arg === 'string' ? arg : arg?.memory?.id;
      const m = id ? find(id) : undefined;
      if (!id) return undefined;
      if (confirmed !== true) {
        const ok = await vscode.window.showWarningMessage(`Delete this memory?\n\n${firstLine(m?.text ?? id, 200)}`, { modal: true }, 'Delete');
        if (ok !== 'Delete') return undefined;
      }
      const r = await engine.call('memory_delete', { id });
      if (!r.ok) { fail('deleting failed', r.error?.message); return r.error; }
      await model.refresh();
      return r.data;
    }),
    vscode.commands.registerCommand('sightline.editMemoryText', async (arg?: string | { memory?: Memory }, text?: string) => {
      const id = typeof arg === 'string' ? arg : arg?.memory?.id;
      const m = id ? find(id) : undefined;
      if (!id || !m) return undefined;
      const body = text ?? await vscode.window.showInputBox({ title: 'Sightline: edit memory', value: m.text, ignoreFocusOut: true, validateInput: v => v.trim() ? undefined : 'a memory needs text' });
      if (!body?.trim() || body === m.text) return undefined;
      const r = await engine.call('memory_update', { id, text: body.trim() });
      if (!r.ok) { fail('saving the memory failed', r.error?.message); return r.error; }
      await model.refresh();
      return r.data;
    }),
  ];
}
