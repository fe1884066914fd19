/**
 * The Impact tree view: what is at stake if the symbol at the cursor changes — direct callers,
 * dependents by module, related tests and memories — each marked exact (language server) or best
 * effort, with whether the list is complete or a lower bound. It follows the cursor (debounced) while
 * the view is visible, and opens the graph webview on request.
 */
import * as vscode from 'vscode';
import { posix } from 'node:path';
import type { EngineProcess } from './engineProcess';
import type { MemoryModel, Memory } from './memories';
import { memoryWhere } from './memories';
import { nodeIdParts } from '../core/util/ids';

interface NodeRef { id: string; path: string; kind: string; line: number }
/** What the id spells: the repository and the qualified name (null for a file). */
const partsOf = (n: NodeRef) => nodeIdParts(n.id, n.path) ?? { repo_id: '', symbol_path: null };
const labelOf = (n: NodeRef) => partsOf(n).symbol_path ?? n.path;
interface Affected { node: NodeRef; distance: number; resolution: 'exact' | 'best_effort'; confidence: number; via_container: boolean; name_only: boolean; via: string }
interface ImpactData {
  resolved: NodeRef[]; ambiguous: NodeRef[]; affected: Affected[]; affected_by_module: Record<string, number>;
  related_tests: RelatedTest[]; total_affected: number; total_direct: number; total_related_tests: number;
  complete: boolean; boundaries?: { kind: string; detail: string }[]; memories?: Memory[];
}

interface RelatedTest { node: NodeRef; distance: number; resolution: string; reason: string; confidence: number; likely: boolean }

type Node = { label: string; description?: string; tooltip?: string | vscode.MarkdownString; icon?: string; color?: string; children?: Node[]; open?: NodeRef; command?: vscode.Command; expanded?: boolean };

const FOLLOW_DELAY_MS = 400;

export class ImpactTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  readonly view: vscode.TreeView<Node>;
  private roots: Node[] = [];
  private timer: NodeJS.Timeout | undefined;
  private seq = 0;
  private readonly subs: vscode.Disposable[] = [];
  /** the symbol shown (symbol_path) and its file, for tests */
  current: { symbol: string; path: string; data: ImpactData } | undefined;

  constructor(private readonly engine: EngineProcess, private readonly memories: MemoryModel, private readonly rootPath: (repoId: string) => string | undefined) {
    this.view = vscode.window.createTreeView('sightline.impact', { treeDataProvider: this });
    this.subs.push(
      vscode.window.onDidChangeTextEditorSelection(e => { if (e.textEditor === vscode.window.activeTextEditor) this.follow(); }),
      vscode.window.onDidChangeActiveTextEditor(() => this.follow()),
      this.view.onDidChangeVisibility(e => { if (e.visible) this.follow(); }),
    );
  }

  private follow(): void {
    if (!this.view.visible) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.showAtCursor(), FOLLOW_DELAY_MS);
  }

  /** Impact of the definition at the cursor (or of `symbol` in `path`); returns what the view shows. */
  showAtCursor(symbol?: string, path?: string): Promise<ImpactData | undefined> {
    const p = this.inflight = this.compute(symbol, path);
    // a newer request (the cursor moved on) answers for the older ones
    return p.then(d => (this.inflight !== p ? this.inflight : d));
  }

  private inflight: Promise<ImpactData | undefined> | undefined;

  private async compute(symbol?: string, path?: string): Promise<ImpactData | undefined> {
    const my = ++this.seq;
    let repo: string | undefined;
    const editor = vscode.window.activeTextEditor;
    if (!symbol) {
      if (!editor || editor.document.uri.scheme !== 'file') { this.set([{ label: 'Put the cursor in a function, method or class', icon: 'info' }]); return undefined; }
      const at = await this.engine.request<{ symbol: { symbol_path: string; path: string; repo_id: string } | null }>('sightline/symbol_at', { path: editor.document.uri.fsPath, line: editor.selection.active.line + 1 })
        .catch(() => ({ symbol: null }));
      if (my !== this.seq) return undefined;
      if (!at.symbol) { this.set([{ label: 'No indexed definition at the cursor', description: vscode.workspace.asRelativePath(editor.document.uri), icon: 'info' }]); return undefined; }
      symbol = at.symbol.symbol_path; path = at.symbol.path; repo = at.symbol.repo_id;
    }
    const r = await this.engine.call('impact', { symbol, ...(path ? { path } : {}), ...(repo ? { repo } : {}), depth: 3, limit: 100 });
    if (my !== this.seq) return undefined;
    if (!r.ok) { this.set([{ label: `Impact unavailable: ${r.error?.message}`, icon: 'error' }]); return undefined; }
    const d = r.data as unknown as ImpactData;
    this.current = { symbol: symbol!, path: path ?? '', data: d };
    this.set(this.render(symbol!, d));
    return d;
  }

  private nodeItem(n: NodeRef, extra: Partial<Node> = {}): Node {
    return { label: labelOf(n), description: `${n.path}:${n.line}`, open: n, icon: kindIcon(n.kind), ...extra };
  }

  private render(symbol: string, d: ImpactData): Node[] {
    if (!d.resolved.length) {
      if (d.ambiguous.length) return [{ label: `${symbol} is ambiguous`, icon: 'question', expanded: true, children: d.ambiguous.map(n => this.nodeItem(n)) }];
      return [{ label: `${symbol}: not in the index`, icon: 'info' }];
    }
    const target = d.resolved[0]!;
    const sure = d.complete ? 'complete' : 'lower bound';
    const direct = d.affected.filter(a => a.distance === 1 && !a.via_container);
    const out: Node[] = [];
    out.push(this.nodeItem(target, {
      label: labelOf(target), icon: 'target',
      description: `${d.total_affected} dependent${d.total_affected === 1 ? '' : 's'} · ${sure}`,
      tooltip: new vscode.MarkdownString(`**${labelOf(target)}** in \`${target.path}\`\n\n${d.complete ? 'Every edge is known: the list is complete.' : `**Lower bound** — not "no impact": ${(d.boundaries ?? []).map(b => b.detail).join('; ') || 'some edges are heuristic'}.`}`),
    }));
    out.push({
      label: 'Direct callers and referrers', description: String(d.total_direct), icon: 'call-incoming', expanded: true,
      children: direct.length ? direct.map(a => this.nodeItem(a.node, {
        description: `${a.node.path}:${a.node.line} · ${a.resolution === 'exact' ? 'exact' : a.name_only ? 'name only' : 'best effort'}`,
        tooltip: `${a.via} (confidence ${a.confidence.toFixed(2)})`,
        icon: a.resolution === 'exact' ? 'pass-filled' : a.name_only ? 'circle-outline' : 'circle-large-outline',
      })) : [{ label: d.complete ? 'none' : 'none found (lower bound)', icon: 'dash' }],
    });
    const modules = Object.entries(d.affected_by_module);
    if (modules.length) out.push({
      label: 'Affected by module', description: String(modules.length), icon: 'folder-library', expanded: false,
      children: modules.map(([mod, n]) => ({
        label: mod === '.' ? '(root)' : mod, description: String(n), icon: 'folder',
        children: d.affected.filter(a => moduleOf(a.node.path) === mod).map(a => this.nodeItem(a.node, { description: `distance ${a.distance} · ${a.resolution === 'exact' ? 'exact' : 'best effort'}` })),
      })),
    });
    out.push({
      label: 'Related tests', description: String(d.total_related_tests), icon: 'beaker', expanded: false,
      children: d.related_tests.length ? d.related_tests.map(t => this.testItem(t))
        : [{ label: d.complete ? 'none' : 'none found (lower bound)', icon: 'dash' }],
    });
    const mems = (d.memories ?? this.memoriesOn(target, d.affected));
    if (mems.length) out.push({
      label: 'Memories', description: String(mems.length), icon: 'note', expanded: true,
      children: mems.map(m => ({ label: m.text.split(/\r?\n/)[0]!.slice(0, 80), description: `${m.status} · ${memoryWhere(m)}`, icon: m.status === 'stale' || m.status === 'gone' ? 'warning' : 'note',
        command: { command: 'sightline.revealMemory', title: 'Reveal', arguments: [m.id] } })),
    });
    out.push({ label: 'Open impact graph', icon: 'type-hierarchy', command: { command: 'sightline.showImpact', title: 'Open impact graph', arguments: [labelOf(target), target.path] } });
    return out;
  }

  /** Memories anchored on the target or on an affected symbol (from the editor's cache). */
  private memoriesOn(target: NodeRef, affected: Affected[]): Memory[] {
    const keys = new Set([target, ...affected.map(a => a.node)].map(n => `${partsOf(n).repo_id}\0${n.path}\0${partsOf(n).symbol_path ?? ''}`));
    return this.memories.all.filter(m => m.anchor_kind === 'symbol' && keys.has(`${m.repo_id}\0${m.anchor_path}\0${m.anchor_id}`));
  }

  private set(nodes: Node[]): void { this.roots = nodes; this.emitter.fire(undefined); }

  /** A related test: where it is, how sure, and (tooltip) how it reaches the target (a call, a fixture, a test client). */
  private testItem(t: RelatedTest): Node {
    const description = `${t.likely ? 'likely' : 'possible'} · ${t.node.path}:${t.node.line} · ${t.resolution === 'exact' ? 'exact' : 'best effort'}`;
    return this.nodeItem(t.node, { icon: 'beaker', description, tooltip: `${t.reason} (confidence ${t.confidence.toFixed(2)})` });
  }

  getChildren(n?: Node): Node[] { return n ? n.children ?? [] : this.roots; }
  getTreeItem(n: Node): vscode.TreeItem {
    const t = new vscode.TreeItem(n.label, n.children ? (n.expanded === false ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded) : vscode.TreeItemCollapsibleState.None);
    t.description = n.description;
    t.tooltip = n.tooltip;
    if (n.icon) t.iconPath = new vscode.ThemeIcon(n.icon);
    if (n.command) t.command = n.command;
    else if (n.open) {
      const root = this.rootPath(partsOf(n.open).repo_id);
      if (root) t.command = { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.joinPath(vscode.Uri.file(root), n.open.path), { selection: new vscode.Range(n.open.line - 1, 0, n.open.line - 1, 0) }] };
    }
    return t;
  }

  /** What the view shows, as text (tests). */
  snapshot(): { label: string; description?: string; children?: { label: string; description?: string }[] }[] {
    return this.roots.map(n => ({ label: n.label, description: n.description, children: n.children?.map(c => ({ label: c.label, description: c.description })) }));
  }

  dispose(): void { clearTimeout(this.timer); for (const s of this.subs) s.dispose(); this.emitter.dispose(); this.view.dispose(); }
}

/** The module (folder) of a path, as the engine's affected_by_module counts it (`moduleOf` in graph/impact.ts). */
const moduleOf = (p: string): string => posix.dirname(p);

function kindIcon(kind: string): string {
  switch (kind) {
    case 'class': case 'struct': return 'symbol-class';
    case 'interface': case 'trait': return 'symbol-interface';
    case 'method': return 'symbol-method';
    case 'function': return 'symbol-function';
    case 'file': return 'file';
    default: return 'symbol-field';
  }
}
