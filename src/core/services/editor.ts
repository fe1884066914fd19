/**
 * Language-server edges the editor records (graph/enrich.ts stores them): the symbols worth checking,
 * and recording what a server reported. Recording writes the index, so it holds the writer lock and
 * saves once a burst of checks is over.
 */
import { recordLocations, enrichmentTargets, type EditorLocation, type EnrichmentTarget } from '../graph/enrich';
import { SightlineError } from '../errors';
import type { IndexFile } from '../indexfile';
import type { Workspace } from '../workspace';

/** Language-server edges are saved this long after the last one arrives (they come in bursts). */
const RECORD_SAVE_DELAY_MS = 1500;

export interface EditorSymbol { repo_id: string; path: string; symbol_path: string; name: string; kind: string; start_line: number; end_line: number }

export class EditorEdgesService {
  private readonly unsaved = new Map<string, string>();
  constructor(private readonly file: IndexFile, private readonly workspace: Workspace) {}

  /** Stores references a live language server reported for one symbol; saves once the burst is over. */
  async recordEditorReferences(targetId: string, provider: string, locations: EditorLocation[], complete: boolean): Promise<{ stored: number; ignored: number }> {
    if (!/^lsp:[a-z0-9_-]+$/.test(provider)) throw new SightlineError('invalid_arguments', `provider must be lsp:<language>, got ${provider}`);
    if (!this.file.lockHeld) {
      this.file.acquireLock();
      await this.file.reloadIfChanged();
    }
    const r = recordLocations(this.file.store, this.workspace.roots, targetId, provider, locations, complete);
    this.file.markUnsaved();
    // Checks come in bursts (a background pass): save once the burst is over, holding the lock until then.
    this.file.scheduleSave(RECORD_SAVE_DELAY_MS);
    return r;
  }

  /** The innermost indexed definition around a line of a file (absolute or root-relative path), or null. */
  async symbolAt(path: string, line: number): Promise<EditorSymbol | null> {
    await this.file.refresh();
    let where: { root: { repo_id: string }; rel: string };
    try { where = this.workspace.relativeToRoot(path); } catch { return null; }
    const rows = this.file.store.symbols.findSymbols({ repo_id: where.root.repo_id, path: where.rel }, 100_000)
      .filter(s => s.symbol_path && s.start_line <= line && line <= s.end_line)
      .sort((a, b) => (a.end_line - a.start_line) - (b.end_line - b.start_line) || b.start_line - a.start_line);
    const s = rows[0];
    return s ? { repo_id: s.repo_id, path: s.path, symbol_path: s.symbol_path!, name: s.name, kind: s.kind, start_line: s.start_line, end_line: s.end_line } : null;
  }

  /** Editor buffers with unsaved changes, as (repo_id, path) keys; answers that name them say so. */
  setUnsaved(paths: readonly string[]): string[] {
    this.unsaved.clear();
    for (const p of paths) {
      try { const w = this.workspace.relativeToRoot(p); this.unsaved.set(`${w.root.repo_id}\0${w.rel}`, w.rel); } catch { /* outside the roots */ }
    }
    return [...this.unsaved.values()];
  }

  /** The unsaved files an answer names (its JSON mentions their paths); serialises it only when some are unsaved. */
  unsavedIn(data: unknown): string[] {
    if (!this.unsaved.size) return [];
    const json = JSON.stringify(data);
    return [...new Set(this.unsaved.values())].filter(rel => json.includes(JSON.stringify(rel)));
  }

  async enrichmentTargets(opts: { symbol?: string; path?: string; repo?: string; limit: number }): Promise<EnrichmentTarget[]> {
    await this.file.refresh();
    return enrichmentTargets(this.file.store, this.workspace.roots, { ...opts, repo_id: this.workspace.repoFilter(opts.repo) });
  }
}
