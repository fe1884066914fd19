/**
 * The impact webview: "what is at stake if I change the symbol at the cursor". One panel, revealed or
 * created; CSP with a nonce; assets only from the extension's webview folder; typed messages both ways.
 */
import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';
import type { EngineProcess } from './engineProcess';

type FromView = { type: 'ready' } | { type: 'open'; path: string; repo_id: string; line: number };
type ToView = { type: 'impact'; result: unknown } | { type: 'error'; message: string };

export class ImpactView implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private last: ToView | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly extensionUri: vscode.Uri, private readonly engine: EngineProcess, private readonly roots: () => Promise<{ repo_id: string; path: string }[]>) {}

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
    this.post(r.ok ? { type: 'impact', result: r.data } : { type: 'error', message: r.error?.message ?? 'impact failed' });
    return r.ok ? r.data : r.error;
  }

  private post(msg: ToView): void {
    this.last = msg;
    if (!this.panel) this.create();
    else this.panel.reveal(vscode.ViewColumn.Beside, true);
    void this.panel!.webview.postMessage(msg);
  }

  private create(): void {
    const media = vscode.Uri.joinPath(this.extensionUri, 'webview');
    const panel = this.panel = vscode.window.createWebviewPanel('sightline.impact', 'Sightline: Impact', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, localResourceRoots: [media], retainContextWhenHidden: false });
    const nonce = randomBytes(16).toString('base64');
    const script = panel.webview.asWebviewUri(vscode.Uri.joinPath(media, 'impact.js'));
    const style = panel.webview.asWebviewUri(vscode.Uri.joinPath(media, 'impact.css'));
    panel.webview.html = `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${panel.webview.cspSource}; script-src 'nonce-${nonce}';">
<link rel="stylesheet" href="${style}"></head><body><div id="root">Loading…</div><script nonce="${nonce}" src="${script}"></script></body></html>`;
    this.disposables.push(panel.webview.onDidReceiveMessage(async (m: FromView) => {
      if (m.type === 'ready' && this.last) void panel.webview.postMessage(this.last);
      if (m.type === 'open') {
        const root = (await this.roots()).find(r => r.repo_id === m.repo_id)?.path;
        if (!root) return;
        const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(vscode.Uri.file(root), m.path));
        await vscode.window.showTextDocument(doc, { selection: new vscode.Range(m.line - 1, 0, m.line - 1, 0), viewColumn: vscode.ViewColumn.One });
      }
    }), panel.onDidDispose(() => { this.panel = undefined; }));
  }

  dispose(): void { this.panel?.dispose(); for (const d of this.disposables) d.dispose(); }
}
