/**
 * Adapters in the editor: the Index view's "Adapters" node (each adapter's state and health), the
 * command that lists them, and the command that trusts the repository's adapters after showing what
 * they would run. The adapters themselves run in the engine process (src/core/adapters/); this file
 * only asks it (engine requests `sightline/adapters`, `sightline/adapters_trust`).
 */
import * as vscode from 'vscode';
import type { EngineProcess } from './engineProcess';

interface AdapterRow {
  name: string; state: 'active' | 'inactive' | 'untrusted' | 'error'; reason?: string; trust_hint?: string; driver?: string; description?: string;
  ops: string[]; tools: string[]; cooldown?: { retry_in_ms: number; last_error: string };
}
export interface AdaptersAnswer { adapters: AdapterRow[]; config_errors: string[]; repo_files: { root: string; path: string; adapters: string[]; runs: string[] }[] }

const ICON: Record<AdapterRow['state'], string> = { active: 'pass', inactive: 'circle-slash', untrusted: 'shield', error: 'error' };

export async function fetchAdapters(engine: EngineProcess): Promise<AdaptersAnswer | undefined> {
  try { return await engine.request<AdaptersAnswer>('sightline/adapters', {}); } catch { return undefined; }
}

/** The Index view's node: one child per adapter (health: active, cooling down, inactive and why, untrusted, error). */
export function adaptersNode(a: AdaptersAnswer): { label: string; description: string; icon: string; tooltip?: string; children: { label: string; description?: string; tooltip?: string; icon?: string; command?: vscode.Command }[] } {
  const children = a.adapters.map(x => ({
    label: x.name,
    description: x.cooldown ? `cooling down (${x.cooldown.last_error})` : x.state === 'active' ? `${x.driver} · ${x.ops.join(', ') || 'tools only'}` : x.state,
    tooltip: [x.description, x.reason, x.trust_hint].filter(Boolean).join('\n') || undefined,
    icon: x.cooldown ? 'warning' : ICON[x.state],
    command: x.state === 'untrusted' ? { command: 'sightline.adapters.trust', title: 'Trust' } : undefined,
  }));
  const named = new Set(a.adapters.filter(x => x.state === 'error').map(x => x.reason));
  for (const e of a.config_errors) if (!named.has(e)) children.push({ label: 'config error', description: e, tooltip: e, icon: 'error', command: undefined });
  const active = a.adapters.filter(x => x.state === 'active').length;
  const untrusted = a.adapters.filter(x => x.state === 'untrusted').length;
  return { label: 'Adapters', description: `${active} active${untrusted ? ` · ${untrusted} untrusted` : ''}`, icon: 'plug', children };
}

export function registerAdapterCommands(engine: EngineProcess, refresh: () => void): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('sightline.adapters.list', async () => {
      const a = await fetchAdapters(engine);
      if (!a) { void vscode.window.showErrorMessage('Sightline: the engine did not answer.'); return; }
      if (!a.adapters.length && !a.config_errors.length) { void vscode.window.showInformationMessage('Sightline: no adapters configured (settings sightline.adapters, ~/.config/sightline/config.toml or .sightline/config.toml).'); return; }
      const pick = await vscode.window.showQuickPick([
        ...a.adapters.map(x => ({ label: `$(${ICON[x.state]}) ${x.name}`, description: `${x.state}${x.driver ? ` · ${x.driver}` : ''}`, detail: [x.description, x.reason, x.trust_hint].filter(Boolean).join(' — '), row: x })),
        ...a.config_errors.map(e => ({ label: '$(error) config error', description: '', detail: e, row: undefined })),
      ], { title: 'Sightline adapters', matchOnDetail: true });
      if (pick?.row?.state === 'untrusted') await vscode.commands.executeCommand('sightline.adapters.trust');
    }),
    vscode.commands.registerCommand('sightline.adapters.test', async () => {
      const a = await fetchAdapters(engine);
      const active = (a?.adapters ?? []).filter(x => x.state === 'active' && x.ops.length);
      if (!active.length) { void vscode.window.showInformationMessage('Sightline: no active adapter with an operation to test.'); return; }
      const pick = await vscode.window.showQuickPick(active.flatMap(x => x.ops.map(op => ({ label: `${x.name}.${op}`, description: x.description, name: x.name, op }))), { title: 'Test an adapter operation' });
      if (!pick) return;
      const query = await vscode.window.showInputBox({ title: `${pick.label}: input`, prompt: 'The query, target, URI or content the operation gets', value: 'test' });
      if (query === undefined) return;
      const r = await engine.request<{ result: { ok: boolean; ms: number; items?: { title: string; uri?: string }[]; text?: string; error?: { code: string; message: string } } }>('sightline/adapters_test', { name: pick.name, op: pick.op, query });
      const x = r.result;
      if (!x.ok) { void vscode.window.showErrorMessage(`Sightline: ${pick.label} failed in ${x.ms} ms: ${x.error?.code}: ${x.error?.message}`); return; }
      const detail = x.text ?? (x.items ?? []).map((it, i) => `${i + 1}. ${it.title}${it.uri ? ` <${it.uri}>` : ''}`).join('\n');
      void vscode.window.showInformationMessage(`Sightline: ${pick.label} answered in ${x.ms} ms`, { modal: true, detail: detail || '(empty answer)' });
      refresh();
    }),
    vscode.commands.registerCommand('sightline.adapters.inspect', async () => {
      const a = await fetchAdapters(engine);
      const mcp = (a?.adapters ?? []).filter(x => x.state === 'active' && x.driver === 'mcp');
      if (!mcp.length) { void vscode.window.showInformationMessage('Sightline: no active MCP adapter to inspect.'); return; }
      const pick = await vscode.window.showQuickPick(mcp.map(x => ({ label: x.name, description: x.description })), { title: 'Inspect an MCP adapter' });
      if (!pick) return;
      const r = await engine.request<{ result: { ok: boolean; ms: number; tools?: { name: string; description?: string; inputSchema?: unknown }[]; error?: { code: string; message: string } } }>('sightline/adapters_inspect', { name: pick.label });
      if (!r.result.ok) { void vscode.window.showErrorMessage(`Sightline: ${pick.label}: ${r.result.error?.code}: ${r.result.error?.message}`); return; }
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: `# ${pick.label}: ${r.result.tools!.length} tool(s)\n\n${r.result.tools!.map(t => `## ${t.name}\n\n${t.description ?? ''}\n\n\`\`\`json\n${JSON.stringify(t.inputSchema ?? {}, null, 2)}\n\`\`\``).join('\n\n')}\n` });
      await vscode.window.showTextDocument(doc, { preview: true });
    }),
    vscode.commands.registerCommand('sightline.adapters.sync', async () => {
      const r = await engine.request<{ queued: number; skipped: { adapter: string; reason: string }[]; flush: { delivered: unknown[]; pending: number; dead: number } }>('sightline/adapters_sync', {});
      void vscode.window.showInformationMessage(`Sightline: ${r.queued} memory deliver${r.queued === 1 ? 'y' : 'ies'} queued, ${r.flush.delivered.length} delivered; ${r.flush.pending} pending, ${r.flush.dead} given up${r.skipped.length ? ` (skipped: ${r.skipped.map(s => s.adapter).join(', ')})` : ''}.`);
      refresh();
    }),
    // `{ confirmed: true }`: a caller that showed the files itself (tests, other extensions) skips the dialog
    vscode.commands.registerCommand('sightline.adapters.trust', async (opts?: { confirmed?: boolean }) => {
      if (!vscode.workspace.isTrusted) { void vscode.window.showWarningMessage('Sightline: repository adapters never run in an untrusted workspace; trust the workspace first.'); return; }
      const a = await fetchAdapters(engine);
      const files = a?.repo_files ?? [];
      if (!files.length) { void vscode.window.showInformationMessage('Sightline: no repository of this workspace declares adapters.'); return; }
      const detail = files.map(f => `${f.path}\n  adapters: ${f.adapters.join(', ')}${f.runs.length ? `\n  ${f.runs.join('\n  ')}` : ''}`).join('\n\n');
      const ok = opts?.confirmed ? 'Trust' : await vscode.window.showWarningMessage('Trust the adapters these repositories declare? They can run the commands and call the endpoints listed. Any change to them asks again.', { modal: true, detail }, 'Trust');
      if (ok !== 'Trust') return;
      await engine.request('sightline/adapters_trust', {});
      refresh();
      if (!opts?.confirmed) void vscode.window.showInformationMessage(`Sightline: trusted the adapters of ${files.length} repositor${files.length === 1 ? 'y' : 'ies'}.`);
    }),
  ];
}
