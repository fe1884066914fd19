/**
 * Lists a Sightline MCP server in VS Code's MCP registry: the bundled dist/mcp.js run with the editor's
 * own runtime, pointed at the same index as the extension. The version changes whenever the published
 * tools change, so VS Code refreshes its tool list.
 */
import * as vscode from 'vscode';
import { createHash } from 'node:crypto';
import { toolsList } from '../core/tools/golden';
import { VERSION } from '../core/version';

export const MCP_PROVIDER_ID = 'sightline.mcp';
export const MCP_SERVER_LABEL = 'Sightline';

export function toolsVersion(): string {
  return `${VERSION}+${createHash('sha1').update(JSON.stringify(toolsList())).digest('hex').slice(0, 8)}`;
}

export class McpProvider implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly registration: vscode.Disposable | undefined;
  /** Fires when VS Code starts our server (resolve is called right before a start). */
  private readonly started = new vscode.EventEmitter<void>();
  readonly onDidStart = this.started.event;

  constructor(private readonly mcpScript: () => string, private readonly args: () => string[], private readonly listed: () => boolean, private readonly env: () => Record<string, string> = () => ({})) {
    const lm = vscode.lm as typeof vscode.lm & { registerMcpServerDefinitionProvider?: typeof vscode.lm.registerMcpServerDefinitionProvider };
    if (!lm.registerMcpServerDefinitionProvider) return;
    this.registration = lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
      onDidChangeMcpServerDefinitions: this.changed.event,
      provideMcpServerDefinitions: async () => {
        if (!this.listed() || !vscode.workspace.workspaceFolders?.length) return [];
        return [new vscode.McpStdioServerDefinition(MCP_SERVER_LABEL, process.execPath, [this.mcpScript(), ...this.args()], { ...this.env(), ELECTRON_RUN_AS_NODE: '1' }, toolsVersion())];
      },
      resolveMcpServerDefinition: async def => { this.started.fire(); return def; },
    });
  }

  refresh(): void { this.changed.fire(); }

  dispose(): void { this.registration?.dispose(); this.changed.dispose(); this.started.dispose(); }
}

/** A ready stdio entry for other MCP clients (Claude Code, Cursor, …): plain `node` runs dist/mcp.js. */
export function clientConfig(mcpScript: string, args: string[]): string {
  return JSON.stringify({ mcpServers: { sightline: { command: 'node', args: [mcpScript, ...args] } } }, null, 2);
}
