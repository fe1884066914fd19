/**
 * The memories service: project memories kept in durable documents (durable/store.ts), never in the
 * index (which is a cache: `force`, a schema rebuild or a deleted index file leave memories as they are).
 *
 * Where they live, by `scope`:
 * - `user` (default): `<data dir>/<workspace>-<hash>/memories.json`, private to this user (durablePath);
 * - `repo`: `<root>/.sightline/memories.json`, a reviewable file the team may commit and merge
 *   (repoDurablePath), holding that repository's memories.
 * Every change is a read-modify-write under the document's lock, so two processes adding at once lose
 * none. Reconciling (model.ts `reconcile`) runs after index runs (phase `memories`) and on every read:
 * a memory whose file's text differs from the text it was last checked against is reconciled before it
 * is served, so it is never served `current` when its file changed since.
 */
import { realpathSync } from 'node:fs';
import { durablePath, repoDurablePath, JsonDocument } from '../durable/store';
import { readContainedSync } from '../util/contained';
import { readHeadNoSpawn } from '../history/git';
import { SightlineError } from '../errors';
import type { Store } from '../store/store';
import type { Root } from '../workspace';
import {
  emptyDocument, fileHash, fingerprint, memoryId, reconcile, sameText, splitLines,
  type AnchorKind, type FileNow, type MemoryDocument, type MemoryRecord, type MemoryScope, type MemoryStatus,
} from './model';

export interface MemoryAddRequest {
  repo?: string; anchor_kind: AnchorKind; path?: string; symbol?: string; start_line?: number; end_line?: number;
  text: string; source?: string; confidence?: number; scope?: MemoryScope; created_by?: string;
}
export interface MemoryFilter { repo_id?: string; status?: MemoryStatus; path?: string; symbol?: string; source?: string; text?: string; scope?: MemoryScope }
export interface ReconcileSummary { checked: number; changed: number; by_status: Record<MemoryStatus, number> }

/** The largest file whose text is fingerprinted (as the indexer's default limit). */
const MAX_BYTES = 4 * 1024 * 1024;

export class MemoryService {
  constructor(private readonly roots: readonly Root[], private readonly currentStore: () => Promise<Store>) {}

  /** The durable document of a scope (and, for `repo`, of a root). */
  document(scope: MemoryScope, root?: Root): JsonDocument<MemoryDocument> {
    const path = scope === 'user' ? durablePath(this.roots.map(r => r.root), 'memories') : repoDurablePath(root!.root, 'memories');
    return new JsonDocument<MemoryDocument>(path, emptyDocument);
  }

  private documents(): { doc: JsonDocument<MemoryDocument>; root?: Root }[] {
    return [{ doc: this.document('user') }, ...this.roots.map(root => ({ doc: this.document('repo', root), root }))];
  }

  private root(repoId: string): Root | undefined { return this.roots.find(r => r.repo_id === repoId); }

  private readFile(root: Root, path: string): string | null {
    let real: string;
    try { real = realpathSync(root.root); } catch { return null; }
    const r = readContainedSync(real, path, MAX_BYTES);
    return r.ok ? r.bytes.toString('utf8') : null;
  }

  /** The anchored file now: null when it is not indexed or cannot be read. */
  private fileNow(store: Store, m: Pick<MemoryRecord, 'repo_id' | 'anchor_path'>): FileNow | null {
    const root = this.root(m.repo_id);
    if (!root || !m.anchor_path) return null;
    const row = store.files.fileByPath(m.repo_id, m.anchor_path);
    if (!row) return null;
    const text = this.readFile(root, m.anchor_path);
    if (text === null) return null;
    const upToDate = row.hash === fileHash(text);
    const symbols = upToDate ? store.symbols.findSymbols({ repo_id: m.repo_id, path: m.anchor_path }, 100_000)
      .filter(s => s.symbol_path).map(s => ({ symbol_path: s.symbol_path!, start_line: s.start_line, end_line: s.end_line })) : null;
    return { text, symbols };
  }

  async add(req: MemoryAddRequest): Promise<{ memory: MemoryRecord; duplicates: MemoryRecord[]; added: boolean }> {
    const root = req.repo ? this.roots.find(r => r.repo_id === req.repo || r.name === req.repo) : this.roots.length === 1 ? this.roots[0] : undefined;
    if (!root) throw new SightlineError('invalid_arguments', req.repo ? `unknown repo ${req.repo}` : 'several roots: name the repo');
    const store = await this.currentStore();
    const kind = req.anchor_kind;
    const fail = (why: string) => { throw new SightlineError('not_found', `memory anchor does not resolve: ${why}`, { reason: 'anchor_unresolved', anchor_kind: kind, path: req.path ?? null, symbol: req.symbol ?? null }); };
    let anchor_id = root.repo_id, anchor_path: string | null = null, start: number | null = null, end: number | null = null;
    let fp: MemoryRecord['fingerprint'] = null, checked: string | null = null;
    if (kind !== 'repo') {
      if (!req.path) fail(`anchor_kind ${kind} needs a path`);
      anchor_path = req.path!.replace(/\\/g, '/').replace(/^\.\//, '');
      const file = this.fileNow(store, { repo_id: root.repo_id, anchor_path });
      if (!file) fail(`${anchor_path} is not an indexed file of ${root.repo_id}`);
      const lines = splitLines(file!.text);
      checked = fileHash(file!.text);
      anchor_id = anchor_path;
      if (kind === 'symbol') {
        if (!req.symbol) fail('anchor_kind symbol needs a symbol');
        if (!file!.symbols) fail(`${anchor_path} changed since it was indexed: run index_repo first`);
        const s = file!.symbols!.find(x => x.symbol_path === req.symbol) ?? file!.symbols!.filter(x => x.symbol_path.split('.').pop() === req.symbol)[0];
        if (!s) fail(`no symbol ${req.symbol} in ${anchor_path}`);
        anchor_id = s!.symbol_path; start = s!.start_line; end = s!.end_line;
      } else if (kind === 'span') {
        start = req.start_line ?? null; end = req.end_line ?? req.start_line ?? null;
        if (start === null || end === null || start > end || end > lines.length) fail(`span ${start}-${end} is not inside ${anchor_path} (${lines.length} lines)`);
      }
      if (start !== null && end !== null) fp = fingerprint(lines, start, end);
    }
    const now = Date.now();
    const scope = req.scope ?? 'user';
    const head = readHeadNoSpawn(root.root);
    const base = { repo_id: root.repo_id, anchor_kind: kind, anchor_id, anchor_path, text: req.text, created_at_ms: now };
    const memory: MemoryRecord = {
      id: memoryId(base), ...base, start_line: start, end_line: end, source: req.source ?? 'agent', confidence: req.confidence ?? 1,
      status: 'current', updated_at_ms: now, scope, fingerprint: fp, created_commit: head?.head ?? null, created_by: req.created_by ?? req.source ?? 'agent',
      checked_file_hash: checked, checked_at_ms: now,
    };
    let duplicates: MemoryRecord[] = [];
    this.document(scope, root).update(d => {
      duplicates = d.memories.filter(o => o.repo_id === memory.repo_id && o.anchor_kind === kind && o.anchor_path === anchor_path && o.anchor_id === anchor_id && sameText(o.text, memory.text));
      return duplicates.length ? d : { ...d, memories: [...d.memories, memory] };
    });
    // the other scope may hold the same memory too
    const other = this.document(scope === 'user' ? 'repo' : 'user', root).read().memories
      .filter(o => o.repo_id === memory.repo_id && o.anchor_kind === kind && o.anchor_path === anchor_path && o.anchor_id === anchor_id && sameText(o.text, memory.text));
    duplicates = [...duplicates, ...other];
    return duplicates.length ? { memory: duplicates[0]!, duplicates, added: false } : { memory, duplicates: [], added: true };
  }

  async delete(id: string): Promise<MemoryRecord | null> {
    for (const { doc } of this.documents()) {
      let found: MemoryRecord | null = null;
      if (!doc.read().memories.some(m => m.id === id)) continue;
      doc.update(d => { found = d.memories.find(m => m.id === id) ?? null; return { ...d, memories: d.memories.filter(m => m.id !== id) }; });
      if (found) return found;
    }
    return null;
  }

  /**
   * Reconciles memories (of one repository, or all) and stores what changed. `onlyChanged`: only those
   * whose file's text differs from the last check (the check on read, and after an index run).
   */
  async reconcileAll(opts: { repo_id?: string; onlyChanged?: boolean; store?: Store } = {}): Promise<{ memories: MemoryRecord[]; summary: ReconcileSummary }> {
    const store = opts.store ?? await this.currentStore();
    const all: MemoryRecord[] = [];
    const summary: ReconcileSummary = { checked: 0, changed: 0, by_status: { current: 0, relocated: 0, stale: 0, gone: 0 } };
    for (const { doc } of this.documents()) {
      const before = doc.read().memories;
      const updates = new Map<string, MemoryRecord>();
      const indexed = new Set(store.meta.repos().map(r => r.repo_id));
      for (const m of before) {
        if (opts.repo_id && m.repo_id !== opts.repo_id) continue;
        // a repository the index does not hold (yet: a deleted or rebuilt index) tells nothing about its files
        if (!indexed.has(m.repo_id)) continue;
        const file = m.anchor_kind === 'repo' ? null : this.fileNow(store, m);
        const hash = file ? fileHash(file.text) : null;
        if (opts.onlyChanged && m.anchor_kind !== 'repo' && hash === m.checked_file_hash && (file !== null) === (m.status !== 'gone')) continue;
        summary.checked++;
        const r = reconcile(m, file, !!this.root(m.repo_id));
        const moved = r.status !== m.status || r.start_line !== m.start_line || r.end_line !== m.end_line || r.anchor_id !== m.anchor_id;
        const now = Date.now();
        updates.set(m.id, { ...m, ...r, checked_at_ms: now, updated_at_ms: moved ? now : m.updated_at_ms });
        if (moved) summary.changed++;
      }
      if (updates.size) {
        // re-applied under the lock onto the document as it is then (another process may have changed it)
        doc.update(d => ({ ...d, memories: d.memories.map(m => {
          const u = updates.get(m.id);
          return u && m.updated_at_ms === before.find(b => b.id === m.id)?.updated_at_ms ? { ...m, ...pickReconciled(u) } : m;
        }) }));
      }
      for (const m of doc.read().memories) if (!opts.repo_id || m.repo_id === opts.repo_id) all.push(updates.get(m.id) ?? m);
    }
    for (const m of all) summary.by_status[m.status]++;
    return { memories: all, summary };
  }

  /** Memories matching the filter, each checked against its file now. */
  async list(f: MemoryFilter): Promise<MemoryRecord[]> {
    const { memories } = await this.reconcileAll({ repo_id: f.repo_id, onlyChanged: true });
    const text = f.text?.toLowerCase();
    return memories.filter(m => (!f.status || m.status === f.status) && (!f.source || m.source === f.source) && (!f.scope || m.scope === f.scope)
      && (!f.path || m.anchor_path === f.path || (m.anchor_path ?? '').startsWith(f.path.replace(/\/?$/, '/')))
      && (!f.symbol || (m.anchor_kind === 'symbol' && (m.anchor_id === f.symbol || m.anchor_id.split('.').pop() === f.symbol)))
      && (!text || m.text.toLowerCase().includes(text)))
      .sort((a, b) => STATUS_ORDER[a.status] - STATUS_ORDER[b.status] || b.updated_at_ms - a.updated_at_ms || a.id.localeCompare(b.id));
  }
}

/** Stale and gone first: they need a look. */
const STATUS_ORDER: Record<MemoryStatus, number> = { gone: 0, stale: 1, relocated: 2, current: 3 };

function pickReconciled(u: MemoryRecord): Partial<MemoryRecord> {
  const { status, anchor_id, start_line, end_line, fingerprint: fp, checked_file_hash, checked_at_ms, updated_at_ms } = u;
  return { status, anchor_id, start_line, end_line, fingerprint: fp, checked_file_hash, checked_at_ms, updated_at_ms };
}
