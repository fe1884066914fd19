/**
 * The page every Sightline webview loads: a strict Content Security Policy (nothing by default; scripts
 * only with this page's nonce; style sheets only from the extension's resources, no inline style), and
 * its script and style sheets from dist/webview/ only (the built src/webview).
 */
import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';

export const webviewRoot = (extensionUri: vscode.Uri): vscode.Uri => vscode.Uri.joinPath(extensionUri, 'dist', 'webview');

export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [webviewRoot(extensionUri)], retainContextWhenHidden: false };
}

/** `name`.js with base.css and `name`.css, under a policy that allows nothing else. */
export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, name: string, title: string): string {
  const nonce = randomBytes(16).toString('base64');
  const asset = (file: string) => webview.asWebviewUri(vscode.Uri.joinPath(webviewRoot(extensionUri), file)).toString();
  const csp = `default-src 'none'; style-src ${webview.cspSource}; script-src 'nonce-${nonce}';`;
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="${asset('base.css')}"><link rel="stylesheet" href="${asset(`${name}.css`)}"></head>
<body><main id="root" data-view="${name}">Loading…</main><script nonce="${nonce}" src="${asset(`${name}.js`)}"></script></body></html>`;
}

export type Roots = () => Promise<{ repo_id: string; path: string }[]>;

/** Opens `path` of repository `repo_id` at `line` (1-based) in the first editor group. */
export async function openLocation(roots: Roots, m: { path: string; repo_id: string; line: number }): Promise<boolean> {
  const root = (await roots()).find(r => r.repo_id === m.repo_id)?.path;
  if (!root) { void vscode.window.showWarningMessage(`Sightline: repository ${m.repo_id} is not open in this window.`); return false; }
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(vscode.Uri.file(root), m.path));
  const line = Math.max(0, Math.min(doc.lineCount - 1, m.line - 1));
  await vscode.window.showTextDocument(doc, { selection: new vscode.Range(line, 0, line, 0), viewColumn: vscode.ViewColumn.One });
  return true;
}
