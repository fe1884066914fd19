/**
 * The impact webview: "what is at stake if I change the symbol at the cursor". One panel, revealed or
 * created; the page, its CSP and its assets come from webviews.ts (the script is src/webview/impact.ts);
 * typed messages both ways.
 */
import * as vscode from 'vscode';
import type { EngineProcess } from './engineProcess';
import { openLocation, webviewHtml, webviewOptions, type Roots } from './webviews';
import { nodeIdParts } from '../core/util/ids';

type FromView = { type: 'ready' } | { type: 'open'; path: string; repo_id: string; line: number } | { type: 'edit_memory'; id: string };
type ToView = { type: 'impact'; result: unknown } | { type: 'error'; message: string };

/** The answer with what each node's id spells added (repo_id, symbol_path): the page never parses ids. */
function withIdParts(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withIdParts);
  if (!v || typeof v !== 'object') return v;
  const o = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withIdParts(x)]));
  const parts = typeof o.id === 'string' && typeof o.path === 'string' && typeof o.line === 'number' ? nodeIdParts(o.id, o.path) : null;
  return parts ? { ...o, ...parts } : o;
}

export class ImpactView implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private last: ToView | undefined;

  constructor(private readonly extensionUri: vscode.Uri, private readonly engine: EngineProcess, private readonly roots: Roots) {}

  /** Impact of the symbol at the cursor (or of `symbol` when given); returns the structured result. */
  async show(symbol?: string, path?: string): Promise<unknown> {
    const editor = vscode.window.activeTextEditor;
    if (!symbol && editor) {
      const range = editor.document.getWordRangeAtPosition(editor.selection.active);
      symbol = range ? editor.document.getText(range) : undefined;
      path = vscode.workspace.asRelativePath(editor.document.uri, false);
    }
    if (!symbol) { void vscode.window.showInformationMessage('Sightline: put the cursor on a symbol to see its impact.'); return undefined; }
    let r = await this.engine.call('impact', { symbol, ...(path ? { path } : {}), limit: 200 });
    if (!r.ok && r.error?.code === 'not_found' && path) r = await this.engine.call('impact', { symbol, limit: 200 }); // defined elsewhere
    this.post(r.ok ? { type: 'impact', result: withIdParts(r.data) } : { type: 'error', message: r.error?.message ?? 'impact failed' });
    return r.ok ? r.data : r.error;
  }

  private post(msg: ToView): void {
    this.last = msg;
    if (!this.panel) this.create();
    else this.panel.reveal(vscode.ViewColumn.Beside, true);
    void this.panel!.webview.postMessage(msg);
  }

  private create(): void {
    const panel = this.panel = vscode.window.createWebviewPanel('sightline.impact', 'Sightline: Impact', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      webviewOptions(this.extensionUri));
    panel.webview.html = webviewHtml(panel.webview, this.extensionUri, 'impact', 'Sightline: Impact');
    const sub = panel.webview.onDidReceiveMessage(async (m: FromView) => {
      if (m.type === 'ready' && this.last) void panel.webview.postMessage(this.last);
      if (m.type === 'open') await openLocation(this.roots, m);
      if (m.type === 'edit_memory') await vscode.commands.executeCommand('sightline.editMemory', m.id);
    });
    panel.onDidDispose(() => { sub.dispose(); this.panel = undefined; });
  }

  dispose(): void { this.panel?.dispose(); }
}
