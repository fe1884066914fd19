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

export class EditorEdgesService {
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

  async enrichmentTargets(opts: { symbol?: string; path?: string; repo?: string; limit: number }): Promise<EnrichmentTarget[]> {
    await this.file.refresh();
    return enrichmentTargets(this.file.store, this.workspace.roots, { ...opts, repo_id: this.workspace.repoFilter(opts.repo) });
  }
}
