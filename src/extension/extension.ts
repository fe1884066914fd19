/**
 * Minimal activation: the full editor integration (background indexing, language-model tools, MCP
 * server definition, views) builds on this in the extension work. Only this folder imports `vscode`.
 */
import * as vscode from 'vscode';

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel('Sightline', { log: true });
  context.subscriptions.push(output);
  context.subscriptions.push(vscode.commands.registerCommand('sightline.showStatus', () => {
    output.info('Sightline is installed; indexing inside the editor arrives with the extension integration.');
    output.show(true);
  }));
}

export function deactivate(): void { /* nothing to release yet */ }
