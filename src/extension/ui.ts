/** The status bar item and the sidebar status view; both redraw from the scheduler's state events. */
import * as vscode from 'vscode';
import { adaptersNode, fetchAdapters } from './adapters';
import type { IndexScheduler, IndexStateSnapshot } from './indexer';
import type { EngineProcess } from './engineProcess';

/** A language row of the Index view: `3 files · 120 lines`, a text format's kind first (`doc · 3 files · 120 lines`). */
const languageDescription = (l: { file_kind?: string; files: number; lines: number }) =>
  `${l.file_kind && l.file_kind !== 'code' ? `${l.file_kind} · ` : ''}${l.files} files · ${l.lines} lines`;

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('sightline.status', vscode.StatusBarAlignment.Left, 10);
  private readonly sub: vscode.Disposable;
  constructor(scheduler: IndexScheduler) {
    this.item.name = 'Sightline';
    this.item.command = 'sightline.showStatus';
    this.render(scheduler.snapshot);
    this.item.show();
    this.sub = scheduler.onDidChangeState(s => this.render(s));
  }
  private render(s: IndexStateSnapshot): void {
    switch (s.phase) {
      case 'starting': this.item.text = '$(sync~spin) Sightline'; this.item.tooltip = 'Sightline is starting'; break;
      case 'indexing': this.item.text = `$(sync~spin) Sightline ${s.done !== undefined ? `${s.done}/${s.total}` : 'indexing'}`; this.item.tooltip = `Sightline: ${s.message}`; break;
      case 'ready': {
        const t = (s.lastReport?.totals ?? {}) as Record<string, number>;
        this.item.text = '$(telescope) Sightline';
        this.item.tooltip = `Sightline: ${s.message}${t.files_seen !== undefined ? ` — ${t.files_seen} files (${t.files_parsed} parsed in the last run)` : ''}. Click for index status.`;
        break;
      }
      case 'error': this.item.text = '$(error) Sightline'; this.item.tooltip = `Sightline: ${s.lastError ?? s.message}. Click for details.`; break;
    }
    this.item.backgroundColor = s.phase === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  }
  dispose(): void { this.sub.dispose(); this.item.dispose(); }
}

interface StatusData {
  roots: { name: string; path: string; indexed: boolean; file_count: number; chunk_count: number; symbol_count: number; indexed_at: string | null; branch: string | null; commit: string | null; dirty: boolean | null;
    changed_files: number | null; last_run: Record<string, unknown> | null; language_servers: { provider: string; symbols_checked: number; edges: number }[] }[];
  diagnostics: { path: string; code: string; message: string }[]; total: number;
  languages: { language: string; file_kind?: string; files: number; lines: number }[];
}

interface Node { label: string; description?: string; tooltip?: string; icon?: string; children?: Node[]; command?: vscode.Command }

/** Sidebar view: roots, counts, freshness and the last run's diagnostics, from index_status. */
export class StatusTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private roots: Node[] = [{ label: 'Indexing…', icon: 'sync~spin' }];
  private readonly sub: vscode.Disposable;

  constructor(private readonly engine: EngineProcess, scheduler: IndexScheduler) {
    this.sub = scheduler.onDidQuiet(() => void this.refresh());
  }

  async refresh(): Promise<void> {
    try {
      const r = await this.engine.call('index_status', { limit: 50 });
      if (!r.ok || !r.data) { this.roots = [{ label: 'Index unavailable', description: r.error?.message, icon: 'error' }]; this.emitter.fire(undefined); return; }
      const d = r.data as unknown as StatusData;
      this.roots = d.roots.map(root => {
        const run = root.last_run as Record<string, unknown> | null;
        const counters = Object.entries(run ?? {}).filter(([, v]) => typeof v === 'number') as [string, number][];
        const changed = root.changed_files;
        const state = !root.indexed ? { description: 'not indexed yet', icon: 'circle-outline' }
          : changed ? { description: `${changed} file${changed === 1 ? '' : 's'} changed since indexing`, icon: 'sync' }
          : { description: 'up to date', icon: 'pass' };
        const lsp = root.language_servers;
        const exactEdges = lsp.reduce((n, l) => n + l.edges, 0);
        return {
          label: root.name, description: `${root.file_count} files · ${state.description}`, tooltip: root.path, icon: 'repo',
          children: [
            { label: 'Status', description: state.description, icon: state.icon },
            { label: 'Files', description: String(root.file_count), icon: 'file' },
            { label: 'Chunks', description: String(root.chunk_count), icon: 'symbol-namespace' },
            { label: 'Symbols', description: String(root.symbol_count), icon: 'symbol-method' },
            {
              label: 'Language servers', icon: 'server-process',
              description: lsp.length ? `${lsp.reduce((n, l) => n + l.symbols_checked, 0)} symbols checked · ${exactEdges} exact edges` : 'not consulted yet (heuristic edges only)',
              tooltip: 'Compiler-grade references borrowed from the editor\'s language servers; the rest of the graph is best effort.',
              children: lsp.length ? lsp.map(l => ({ label: l.provider, description: `${l.symbols_checked} checked · ${l.edges} edges` })) : undefined,
            },
            {
              label: 'Last run', icon: 'history',
              description: root.indexed_at ? `${new Date(root.indexed_at).toLocaleString()}${run ? ` · ${run.files_parsed ?? 0} parsed, ${run.files_unchanged ?? 0} unchanged` : ''}` : 'never',
              tooltip: counters.length ? counters.map(([k, v]) => `${k}: ${v}`).join('\n') : undefined,
            },
            ...(root.branch || root.commit ? [{ label: 'Git', description: `${root.branch ?? 'detached'} @ ${(root.commit ?? '').slice(0, 8)}${root.dirty ? ' (dirty)' : ''}`, icon: 'git-branch' }] : []),
          ],
        };
      });
      const languages = d.languages.map(l => ({ label: l.language, description: languageDescription(l) }));
      if (languages.length) this.roots.push({ label: 'Languages', icon: 'code', children: languages });
      this.roots.push(d.total
        ? { label: 'Diagnostics', description: String(d.total), icon: 'warning', children: d.diagnostics.map(x => ({ label: x.path, description: x.code, tooltip: x.message })) }
        : { label: 'Diagnostics', description: 'none', icon: 'pass' });
      const adapters = await fetchAdapters(this.engine);
      if (adapters && (adapters.adapters.length || adapters.config_errors.length)) this.roots.push(adaptersNode(adapters));
    } catch (e) {
      this.roots = [{ label: 'Index unavailable', description: (e as Error).message, icon: 'error' }];
    }
    this.emitter.fire(undefined);
  }

  /** What the view shows, as text (tests). */
  snapshot(): { label: string; description?: string; children?: { label: string; description?: string }[] }[] {
    return this.roots.map(n => ({ label: n.label, description: n.description, children: n.children?.map(c => ({ label: c.label, description: c.description })) }));
  }

  getTreeItem(n: Node): vscode.TreeItem {
    const item = new vscode.TreeItem(n.label, n.children?.length ? (n.icon === 'server-process' || n.label === 'Diagnostics' || n.label === 'Adapters' ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded) : vscode.TreeItemCollapsibleState.None);
    item.description = n.description;
    item.tooltip = n.tooltip;
    if (n.icon) item.iconPath = new vscode.ThemeIcon(n.icon);
    item.command = n.command;
    return item;
  }
  getChildren(n?: Node): Node[] { return n ? n.children ?? [] : this.roots; }
  dispose(): void { this.sub.dispose(); this.emitter.dispose(); }
}
