/**
 * The memory editor: one webview panel showing a project memory (status, anchor, text) with Save,
 * Re-anchor, Delete and Open anchor. Reads through `memory_list`, writes through `memory_update` and
 * `memory_delete`; an engine without a tool, or a tool that fails, is said in the panel and as a
 * notification, never swallowed. The script is src/webview/memory.ts.
 */
import * as vscode from 'vscode';
import type { EngineProcess } from './engineProcess';
import { openLocation, webviewHtml, webviewOptions, type Roots } from './webviews';
import type { MemoryModel } from './memories';

/** The fields of a memory (memory_list's `memories[]`) this file reads. */
type Memory = Pick<import('./memories').Memory, 'id' | 'repo_id' | 'anchor_path' | 'start_line' | 'text' | 'status'>;
type FromView =
  | { type: 'ready' }
  | { type: 'open'; path: string; repo_id: string; line: number }
  | { type: 'memory_save'; id: string; text: string }
  | { type: 'memory_delete'; id: string }
  | { type: 'memory_reanchor'; id: string };
type ToView = { type: 'memory'; memory: Memory } | { type: 'status'; ok: boolean; message: string } | { type: 'deleted'; id: string } | { type: 'error'; message: string };

export class MemoryEditor implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private last: ToView | undefined;

  /** Reads memories from the editor's one cache (`model`), and reloads it after every change made here. */
  constructor(private readonly extensionUri: vscode.Uri, private readonly engine: EngineProcess, private readonly roots: Roots, private readonly model: MemoryModel) {}

  /** Finds memory `id` (memory_list, page by page), shows it in the panel and returns it; undefined when there is none. */
  async showMemory(id: string): Promise<Memory | undefined> {
    const found = await this.find(id);
    if (typeof found === 'string') { this.post({ type: 'error', message: found }); return undefined; }
    this.post({ type: 'memory', memory: found });
    return found;
  }

  /** The memory as the engine has it now (the cache reloaded: each memory is checked on read). */
  private async find(id: string): Promise<Memory | string> {
    await this.model.refresh();
    if (this.model.lastError) return `Sightline could not list memories: ${this.model.lastError}`;
    return this.model.all.find(m => m.id === id) ?? `No memory ${id} (it may have been deleted).`;
  }

  private post(msg: ToView): void {
    if (msg.type !== 'status') this.last = msg;
    if (!this.panel) this.create();
    else if (msg.type !== 'status') this.panel.reveal(vscode.ViewColumn.Beside, true);
    void this.panel!.webview.postMessage(msg);
  }

  /** Calls a writing tool; on failure says why in the panel and as a notification and returns undefined. */
  private async write(tool: string, args: Record<string, unknown>, what: string): Promise<Record<string, unknown> | undefined> {
    let r: Awaited<ReturnType<EngineProcess['call']>>;
    try { r = await this.engine.call(tool, args); } catch (e) { r = { ok: false, error: { code: 'internal_error', message: (e as Error).message }, markdown: '' }; }
    if (r.ok) { void this.model.refresh(); return r.data ?? {}; }
    const missing = /unknown tool/i.test(r.error?.message ?? '');
    const message = missing
      ? `Cannot ${what}: this Sightline engine has no ${tool} tool. Update Sightline to edit memories here.`
      : `Cannot ${what}: ${tool} failed (${r.error?.code ?? 'error'}): ${r.error?.message ?? 'no message'}`;
    this.post({ type: 'status', ok: false, message });
    void vscode.window.showErrorMessage(`Sightline: ${message}`);
    return undefined;
  }

  private async onMessage(m: FromView): Promise<void> {
    if (m.type === 'ready') { if (this.last) void this.panel?.webview.postMessage(this.last); return; }
    if (m.type === 'open') { await openLocation(this.roots, m); return; }
    if (m.type === 'memory_save') {
      const d = await this.write('memory_update', { id: m.id, text: m.text }, 'save the memory');
      if (d) await this.refresh(m.id, d, 'Saved.');
    } else if (m.type === 'memory_reanchor') {
      const d = await this.write('memory_update', { id: m.id, reanchor: true }, 're-anchor the memory');
      if (d) await this.refresh(m.id, d, 'Re-anchored to the code as it is now.');
    } else if (m.type === 'memory_delete') {
      // The page asked for a confirmation already (the button's second press).
      const d = await this.write('memory_delete', { id: m.id }, 'delete the memory');
      if (!d) return;
      if (d.deleted === false) this.post({ type: 'status', ok: false, message: `No memory ${m.id}: nothing was deleted.` });
      else this.post({ type: 'deleted', id: m.id });
    }
  }

  /** After a write: show the memory as the engine has it now (its id may change when it is re-anchored). */
  private async refresh(id: string, data: Record<string, unknown>, message: string): Promise<void> {
    const memory = data.memory as Memory | undefined;
    const shown = await this.showMemory(memory?.id ?? id);
    if (shown) this.post({ type: 'status', ok: true, message });
  }

  private create(): void {
    const panel = this.panel = vscode.window.createWebviewPanel('sightline.memory', 'Sightline: Memory', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
      webviewOptions(this.extensionUri));
    panel.webview.html = webviewHtml(panel.webview, this.extensionUri, 'memory', 'Sightline: Memory');
    const sub = panel.webview.onDidReceiveMessage((m: FromView) => this.onMessage(m));
    panel.onDidDispose(() => { sub.dispose(); this.panel = undefined; });
  }

  dispose(): void { this.panel?.dispose(); }
}
