/**
 * Edges recorded outside an index run: language-server references the editor reports (graph/enrich.ts
 * stores them: the symbols worth checking, and what a server reported), and the runs of the bundled
 * compiler-grade providers a standalone server starts in the background (surface/compiler-edges.ts).
 * Recording writes the index, so it holds the writer lock and saves once a burst is over.
 */
import { recordLocations, enrichmentTargets, type EditorLocation, type EnrichmentTarget } from '../graph/enrich';
import { SightlineError } from '../errors';
import type { ProviderRunResult } from '../providers/external';
import type { ProviderSpec } from '../providers/protocol';
import { snapshotFor, storeProviderRun, type ProviderSnapshot, type StoredRun } from '../providers/store-run';
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

  /** What a provider of these languages is given for a repository now (empty when it has no such code). */
  async providerSnapshot(repoId: string, languages: readonly string[]): Promise<ProviderSnapshot | null> {
    await this.file.refresh();
    const root = this.workspace.byId(repoId)?.root;
    return root ? snapshotFor(this.file.store, repoId, root, languages) : null;
  }

  /**
   * Stores a provider run made on `snap` (checks carry the hashes the provider analysed: a file edited
   * meanwhile reads as unchecked); saves soon after.
   */
  async recordProviderRun(spec: ProviderSpec, snap: ProviderSnapshot, res: Extract<ProviderRunResult, { ok: true }>): Promise<StoredRun> {
    if (!this.file.lockHeld) {
      this.file.acquireLock();
      await this.file.reloadIfChanged();
    }
    const stored = storeProviderRun(this.file.store, spec, snap, res);
    this.file.markUnsaved();
    this.file.scheduleSave(RECORD_SAVE_DELAY_MS);
    return stored;
  }

  /** The symbols of a snapshot that `provider` has not checked against the content they have now. */
  uncheckedNow(provider: string, snap: ProviderSnapshot): string[] {
    const hashOf = new Map(snap.symbols.map(s => [s.id, s.hash]));
    const checks = this.file.store.providerEdges.providerChecks([...hashOf.keys()]);
    const current = new Set(checks.filter(c => c.provider === provider && c.complete === 1 && c.file_hash === hashOf.get(c.symbol_id)).map(c => c.symbol_id));
    return [...hashOf.keys()].filter(id => !current.has(id));
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
