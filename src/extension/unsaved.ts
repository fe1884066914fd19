/**
 * Unsaved edits: the index holds files as saved. The extension tells its engine which open buffers
 * have unsaved changes (paths only; nothing is written anywhere), and every answer that names one of
 * them says it reflects the saved file. Sent debounced, and again whenever the engine process restarts.
 * The MCP server VS Code starts from our listing is another process the extension does not talk to: it
 * reads the same list from `file` (written atomically), named by its `--unsaved-buffers` argument.
 */
import * as vscode from 'vscode';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { EngineProcess } from './engineProcess';

const SEND_DELAY_MS = 250;

export class UnsavedBuffers implements vscode.Disposable {
  private timer: NodeJS.Timeout | undefined;
  private readonly subs: vscode.Disposable[];
  private lastSent = '';
  /** root-relative paths the engine acknowledged last */
  acknowledged: string[] = [];
  private pending: Promise<void> | undefined;

  constructor(private readonly engine: EngineProcess, private readonly log: vscode.LogOutputChannel, readonly file?: string) {
    this.writeFile([]);
    const schedule = () => { clearTimeout(this.timer); this.timer = setTimeout(() => void this.send(), SEND_DELAY_MS); };
    this.subs = [
      vscode.workspace.onDidChangeTextDocument(e => { if (e.document.uri.scheme === 'file') schedule(); }),
      vscode.workspace.onDidSaveTextDocument(schedule),
      vscode.workspace.onDidCloseTextDocument(schedule),
    ];
  }

  private dirtyPaths(): string[] {
    return vscode.workspace.textDocuments.filter(d => d.isDirty && d.uri.scheme === 'file').map(d => d.uri.fsPath).sort();
  }

  /** Sends the current set now (tests await it). */
  send(force = false): Promise<void> {
    clearTimeout(this.timer);
    const paths = this.dirtyPaths();
    const key = paths.join('\n');
    if (!force && key === this.lastSent) return this.pending ?? Promise.resolve();
    this.lastSent = key;
    this.writeFile(paths);
    this.pending = this.engine.request<{ paths: string[] }>('sightline/unsaved_buffers', { paths })
      .then(r => { this.acknowledged = r.paths; })
      .catch(e => { this.lastSent = ''; this.log.warn(`could not pass unsaved buffers to the engine: ${(e as Error).message}`); });
    return this.pending;
  }

  private writeFile(paths: string[]): void {
    if (!this.file) return;
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ paths }));
      renameSync(tmp, this.file);
    } catch (e) { this.log.warn(`could not write ${this.file}: ${(e as Error).message}`); }
  }

  /** The engine process restarted: it knows nothing yet. */
  resend(): void { if (this.lastSent) { this.lastSent = ''; void this.send(); } }

  dispose(): void {
    clearTimeout(this.timer);
    for (const s of this.subs) s.dispose();
    if (this.file) rmSync(this.file, { force: true });
  }
}
