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
 * is served, so it is never served `current` when its file changed since. Other answers (impact,
 * pre_change_context, post_change_impact, search_code) read them the same way: one `reconcileAll`
 * with `onlyChanged` a call, then matching in memory (tools/memory_notes.ts); without documents that
 * is a failed read of each document and nothing else.
 *
 * `update` edits a memory (text, confidence, source) and re-anchors it: at its place now (a relocated
 * memory becomes current again) or at a new anchor resolved like `add`'s. With the `export` option,
 * every change (add, update, delete, a reconcile that moved something) regenerates the marked section
 * of the repository's instruction files (export.ts).
 */
import { realpathSync } from 'node:fs';
import { distance } from 'fastest-levenshtein';
import { overloadBase } from '../graph/lookup';
import { durablePath, repoDurablePath, JsonDocument } from '../durable/store';
import { readContainedSync } from '../util/contained';
import { readHeadNoSpawn } from '../history/git';
import { SightlineError } from '../errors';
import type { Store } from '../store/store';
import type { Root } from '../workspace';
import { exportMemories, type MemoryExportTarget } from './export';
import {
  emptyDocument, fileHash, fingerprint, memoryId, reconcile, sameText, splitLines,
  type AnchorKind, type FileNow, type MemoryDocument, type MemoryRecord, type MemoryScope, type MemoryStatus,
} from './model';

export interface MemoryAddRequest {
  repo?: string; anchor_kind: AnchorKind; path?: string; symbol?: string; start_line?: number; end_line?: number;
  text: string; source?: string; confidence?: number; scope?: MemoryScope; created_by?: string;
}
/** memory_update: new text/confidence/source, and either `reanchor` (at its place now) or a new anchor. */
export interface MemoryUpdateRequest {
  id: string; text?: string; confidence?: number; source?: string; reanchor?: boolean;
  /** the memory still holds for the code as it is now: clears code_change (an edit of text or anchor does too) */
  confirm?: boolean;
  /** moves it to the other store: `repo` shares it with the team (a promotion), `user` keeps it private */
  scope?: MemoryScope;
  /** the new anchor, in the memory's repository (`repo_id`, when given, must be that one) */
  anchor?: { anchor_kind: AnchorKind; path?: string; symbol?: string; start_line?: number; end_line?: number; repo_id?: string };
}
export interface MemoryServiceOptions {
  /** instruction files the current memories of each repository are exported to (default none) */
  export?: readonly MemoryExportTarget[];
  log?: (level: 'info' | 'warn' | 'error', message: string) => void;
  /**
   * After a change, for adapters' event subscriptions: `capture` when a memory was added, `promote` when
   * one was promoted to the repository scope or confirmed by a human (its source set to `human`).
   */
  onEvent?: (event: 'capture' | 'promote', memory: MemoryRecord) => void;
}
export interface MemoryFilter { repo_id?: string; status?: MemoryStatus; path?: string; symbol?: string; source?: string; text?: string; scope?: MemoryScope }
export interface ReconcileSummary { checked: number; changed: number; by_status: Record<MemoryStatus, number> }

/** The largest file whose text is fingerprinted (as the indexer's default limit). */
const MAX_BYTES = 4 * 1024 * 1024;

export class MemoryService {
  constructor(private readonly roots: readonly Root[], private readonly currentStore: () => Promise<Store>, private readonly opts: MemoryServiceOptions = {}) {}

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

  /** An anchor as memory_add takes it, resolved against the file and index now (refused when it does not resolve). */
  private resolveAnchor(store: Store, root: Root, req: { anchor_kind: AnchorKind; path?: string; symbol?: string; start_line?: number; end_line?: number }) {
    const kind = req.anchor_kind;
    const fail = (why: string, suggestions: string[] = []): never => {
      throw new SightlineError('not_found', `memory anchor does not resolve: ${why}${suggestions.length ? `. Did you mean: ${suggestions.join(', ')}?` : ''}`,
        { reason: 'anchor_unresolved', anchor_kind: kind, path: req.path ?? null, symbol: req.symbol ?? null, suggestions });
    };
    let anchor_id = root.repo_id, anchor_path: string | null = null, start: number | null = null, end: number | null = null;
    let fp: MemoryRecord['fingerprint'] = null, checked: string | null = null;
    if (kind !== 'repo') {
      if (!req.path) fail(`anchor_kind ${kind} needs a path`);
      anchor_path = req.path!.replace(/\\/g, '/').replace(/^\.\//, '');
      const file = this.fileNow(store, { repo_id: root.repo_id, anchor_path }) ?? fail(`${anchor_path} is not an indexed file of ${root.repo_id}`);
      const lines = splitLines(file.text);
      checked = fileHash(file.text);
      anchor_id = anchor_path;
      if (kind === 'symbol') {
        if (!req.symbol) fail('anchor_kind symbol needs a symbol');
        const symbols = file.symbols ?? fail(`${anchor_path} changed since it was indexed: run index_repo first`);
        const s = findSymbol(symbols, req.symbol!) ?? fail(`no symbol ${req.symbol} in ${anchor_path}`, nearestSymbols(symbols, req.symbol!));
        anchor_id = s.symbol_path; start = s.start_line; end = s.end_line;
      } else if (kind === 'span') {
        start = req.start_line ?? null; end = req.end_line ?? req.start_line ?? null;
        if (start === null || end === null || start > end || end > lines.length) fail(`span ${start}-${end} is not inside ${anchor_path} (${lines.length} lines)`);
      }
      if (start !== null && end !== null) fp = fingerprint(lines, start, end);
    }
    return { anchor_kind: kind, anchor_id, anchor_path, start_line: start, end_line: end, fingerprint: fp, checked_file_hash: checked };
  }

  async add(req: MemoryAddRequest): Promise<{ memory: MemoryRecord; duplicates: MemoryRecord[]; added: boolean }> {
    const root = req.repo ? this.roots.find(r => r.repo_id === req.repo || r.name === req.repo) : this.roots.length === 1 ? this.roots[0] : undefined;
    if (!root) throw new SightlineError('invalid_arguments', req.repo ? `unknown repo ${req.repo}` : 'several roots: name the repo');
    const store = await this.currentStore();
    const kind = req.anchor_kind;
    const { anchor_id, anchor_path, start_line: start, end_line: end, fingerprint: fp, checked_file_hash: checked } = this.resolveAnchor(store, root, req);
    const now = Date.now();
    const scope = req.scope ?? 'user';
    const head = readHeadNoSpawn(root.root);
    const base = { repo_id: root.repo_id, anchor_kind: kind, anchor_id, anchor_path, text: req.text, created_at_ms: now };
    const memory: MemoryRecord = {
      id: memoryId(base), ...base, start_line: start, end_line: end, source: req.source ?? 'agent', confidence: req.confidence ?? 1,
      status: 'current', updated_at_ms: now, scope, fingerprint: fp, created_commit: head?.head ?? null, created_by: req.created_by ?? req.source ?? 'agent',
      checked_file_hash: checked, checked_at_ms: now,
      confirmed_fingerprint: fp, confirmed_file_hash: checked, confirmed_at_ms: now, code_change: null,
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
    if (!duplicates.length) { this.exportRepos([root.repo_id]); this.event('capture', memory); }
    return duplicates.length ? { memory: duplicates[0]!, duplicates, added: false } : { memory, duplicates: [], added: true };
  }

  async delete(id: string): Promise<MemoryRecord | null> {
    for (const { doc } of this.documents()) {
      let found: MemoryRecord | null = null;
      if (!doc.read().memories.some(m => m.id === id)) continue;
      doc.update(d => { found = d.memories.find(m => m.id === id) ?? null; return { ...d, memories: d.memories.filter(m => m.id !== id) }; });
      if (found) { this.exportRepos([(found as MemoryRecord).repo_id]); return found; }
    }
    return null;
  }

  /**
   * Edits a memory under its document's lock (read-modify-write): text, confidence, source, and its
   * anchor — `reanchor` fingerprints it again where it is now (a relocated memory becomes current; a
   * stale or gone one cannot be re-anchored: give a new anchor), or a new anchor (resolved like
   * memory_add's). Null when no memory has the id.
   */
  async update(req: MemoryUpdateRequest): Promise<{ memory: MemoryRecord; reanchored: boolean } | null> {
    const held = this.documents().map(d => ({ ...d, m: d.doc.read().memories.find(m => m.id === req.id) })).find(d => d.m);
    if (!held) return null;
    const m = held.m!;
    const patch: Partial<MemoryRecord> = {};
    if (req.text !== undefined) patch.text = req.text;
    if (req.confidence !== undefined) patch.confidence = req.confidence;
    if (req.source !== undefined) patch.source = req.source;
    let reanchored = false;
    if (req.confirm || req.text !== undefined) Object.assign(patch, await this.confirmation(m));
    if (req.anchor || req.reanchor) {
      const root = this.root(m.repo_id);
      if (!root) throw new SightlineError('not_found', `memory anchor does not resolve: ${m.repo_id} is not a root of this workspace`, { reason: 'anchor_unresolved', anchor_kind: m.anchor_kind, path: m.anchor_path, symbol: null });
      const store = await this.currentStore();
      let a: ReturnType<MemoryService['resolveAnchor']>;
      if (req.anchor) {
        if (req.anchor.repo_id && req.anchor.repo_id !== m.repo_id) throw new SightlineError('invalid_arguments', `${m.id} belongs to ${m.repo_id}: its new anchor must be in that repository, not ${req.anchor.repo_id}`);
        a = this.resolveAnchor(store, root, req.anchor);
      }
      else {
        // where it is now (reconciled), then fingerprinted there afresh
        const file = m.anchor_kind === 'repo' ? null : this.fileNow(store, m);
        const r = reconcile(m, file, true);
        if (r.status === 'stale' || r.status === 'gone') {
          throw new SightlineError('not_found', `memory anchor does not resolve: ${m.id} is ${r.status} (its ${m.anchor_kind} is no longer found); give a new anchor`, { reason: 'anchor_unresolved', anchor_kind: m.anchor_kind, path: m.anchor_path, symbol: m.anchor_kind === 'symbol' ? m.anchor_id : null });
        }
        const lines = file ? splitLines(file.text) : [];
        a = { anchor_kind: m.anchor_kind, anchor_id: r.anchor_id, anchor_path: m.anchor_path, start_line: r.start_line, end_line: r.end_line,
          fingerprint: r.start_line !== null && r.end_line !== null && file ? fingerprint(lines, r.start_line, r.end_line) : null, checked_file_hash: r.checked_file_hash };
      }
      Object.assign(patch, a, { status: 'current' as const, checked_at_ms: Date.now() },
        { confirmed_fingerprint: a.fingerprint, confirmed_file_hash: a.checked_file_hash, confirmed_at_ms: Date.now(), code_change: null });
      reanchored = true;
    }
    let out: MemoryRecord | null = null;
    const moving = req.scope !== undefined && req.scope !== m.scope;
    if (moving) {
      const root = this.root(m.repo_id);
      if (!root) throw new SightlineError('not_found', `${m.id} belongs to ${m.repo_id}, which is not a root of this workspace: its scope cannot change here`);
      patch.scope = req.scope;
      // written to its new store first: a failure in between leaves two copies, never none
      this.document(req.scope!, root).update(d => {
        out = { ...m, ...patch, updated_at_ms: Math.max(Date.now(), m.updated_at_ms + 1) } as MemoryRecord;
        return { ...d, memories: [...d.memories.filter(x => x.id !== m.id), out] };
      });
      held.doc.update(d => ({ ...d, memories: d.memories.filter(x => x.id !== m.id) }));
    } else {
      held.doc.update(d => ({ ...d, memories: d.memories.map(x => {
        if (x.id !== req.id) return x;
        out = { ...x, ...patch, updated_at_ms: Math.max(Date.now(), x.updated_at_ms + 1) };
        return out;
      }) }));
    }
    if (!out) return null;
    this.exportRepos([m.repo_id]);
    const memory = out as MemoryRecord;
    if ((moving && memory.scope === 'repo') || (req.source === 'human' && m.source !== 'human')) this.event('promote', memory);
    return { memory, reanchored };
  }

  /** The fields that confirm a memory for its code as it is now (reconciled first: its lines may have moved). */
  private async confirmation(m: MemoryRecord): Promise<Partial<MemoryRecord>> {
    const now = Date.now();
    if (m.anchor_kind === 'repo') return { confirmed_at_ms: now, code_change: null };
    const store = await this.currentStore();
    const file = this.fileNow(store, m);
    const r = reconcile(m, file, true);
    if (r.status === 'stale' || r.status === 'gone') return { confirmed_at_ms: now, code_change: null };
    const confirmed = { confirmed_fingerprint: r.fingerprint, confirmed_file_hash: r.checked_file_hash, confirmed_at_ms: now };
    return { ...r, checked_at_ms: now, ...confirmed, code_change: null };
  }

  private event(event: 'capture' | 'promote', memory: MemoryRecord): void {
    try { this.opts.onEvent?.(event, memory); } catch (e) { this.opts.log?.('warn', `memory event ${event} not delivered: ${(e as Error).message}`); }
  }

  /** Regenerates the exported instruction files of these repositories (when export is on); never throws. */
  private exportRepos(repoIds: readonly string[]): void {
    const targets = this.opts.export ?? [];
    if (!targets.length) return;
    for (const repoId of new Set(repoIds)) {
      const root = this.root(repoId);
      if (!root) continue;
      try {
        const memories = this.documents().flatMap(({ doc }) => doc.read().memories.filter(m => m.repo_id === repoId));
        exportMemories(root.root, memories, targets);
      } catch (e) {
        this.opts.log?.('warn', `memories of ${repoId} were not exported: ${(e as Error).message}`);
      }
    }
  }

  /**
   * Reconciles memories (of one repository, or all) and stores what changed. `onlyChanged`: only those
   * whose file's text differs from the last check (the check on read, and after an index run).
   */
  async reconcileAll(opts: { repo_id?: string; onlyChanged?: boolean; store?: Store } = {}): Promise<{ memories: MemoryRecord[]; summary: ReconcileSummary }> {
    const store = opts.store ?? await this.currentStore();
    const all: MemoryRecord[] = [];
    const summary: ReconcileSummary = { checked: 0, changed: 0, by_status: { current: 0, relocated: 0, stale: 0, gone: 0 } };
    const changedRepos = new Set<string>();
    // each anchored file is read (and its symbols looked up) once a pass, however many memories it holds
    const files = new Map<string, FileNow | null>();
    const fileOf = (m: MemoryRecord) => {
      const key = `${m.repo_id}\0${m.anchor_path}`;
      if (!files.has(key)) files.set(key, this.fileNow(store, m));
      return files.get(key)!;
    };
    let indexed: Set<string> | null = null;
    for (const { doc } of this.documents()) {
      const before = doc.read().memories;
      // no memories (no document): nothing to read
      if (!before.length) continue;
      const updates = new Map<string, MemoryRecord>();
      indexed ??= new Set(store.meta.repos().map(r => r.repo_id));
      for (const m of before) {
        if (opts.repo_id && m.repo_id !== opts.repo_id) continue;
        // a repository the index does not hold (yet: a deleted or rebuilt index) tells nothing about its files
        if (!indexed.has(m.repo_id)) continue;
        const file = m.anchor_kind === 'repo' ? null : fileOf(m);
        const hash = file ? fileHash(file.text) : null;
        if (opts.onlyChanged && m.anchor_kind !== 'repo' && hash === m.checked_file_hash && (file !== null) === (m.status !== 'gone')) continue;
        summary.checked++;
        const r = reconcile(m, file, !!this.root(m.repo_id));
        const moved = r.status !== m.status || r.start_line !== m.start_line || r.end_line !== m.end_line || r.anchor_id !== m.anchor_id
          || JSON.stringify(r.code_change ?? null) !== JSON.stringify(m.code_change ?? null);
        const now = Date.now();
        // a memory written before confirmations were kept: as confirmed when it was last written
        const baseline = m.confirmed_at_ms === undefined
          ? { confirmed_fingerprint: m.fingerprint, confirmed_file_hash: m.checked_file_hash, confirmed_at_ms: m.updated_at_ms } : {};
        updates.set(m.id, { ...m, ...baseline, ...r, checked_at_ms: now, updated_at_ms: moved ? now : m.updated_at_ms });
        if (moved) { summary.changed++; changedRepos.add(m.repo_id); }
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
    // an explicit reconcile regenerates the export even when nothing moved (a hand-edited section comes back)
    this.exportRepos(opts.onlyChanged ? [...changedRepos] : opts.repo_id ? [opts.repo_id] : this.roots.map(r => r.repo_id));
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

/** Sigils that are part of a member's name in the index but not how people write it (`#private`, `$var`, `@attr`). */
const bare = (name: string) => name.replace(/^[#$@_]+/, '');

/** A symbol by qualified path, else by its last segment (sigils aside), else by a qualified path without sigils. */
function findSymbol<T extends { symbol_path: string; start_line: number }>(symbols: readonly T[], wanted: string): T | undefined {
  const last = (p: string) => p.split('.').pop() ?? p;
  // An overload set (`f`, `f~2`, `f~3`) stands for its implementation, the last declaration, as in graph lookups.
  const sets = symbols.map(x => ({ x, sp: overloadBase(x.symbol_path) }));
  const pick = (match: (sp: string) => boolean) => sets.filter(e => match(e.sp)).map(e => e.x).sort((a, b) => b.start_line - a.start_line)[0];
  return pick(sp => sp === wanted) ?? pick(sp => last(sp) === wanted)
    ?? pick(sp => bare(last(sp)) === bare(last(wanted)) && (!wanted.includes('.') || sp.split('.').map(bare).join('.') === wanted.split('.').map(bare).join('.')));
}

/** Up to three names in the file closest to one that does not resolve (for the error). */
function nearestSymbols(symbols: readonly { symbol_path: string }[], wanted: string): string[] {
  const w = bare(wanted.split('.').pop() ?? wanted).toLowerCase();
  return symbols.map(s => ({ p: s.symbol_path, d: distance(w, bare(s.symbol_path.split('.').pop() ?? '').toLowerCase()) }))
    .filter(x => x.d <= Math.max(2, Math.floor(w.length / 3))).sort((a, b) => a.d - b.d || a.p.localeCompare(b.p)).slice(0, 3).map(x => x.p);
}

/** Stale and gone first: they need a look. */
const STATUS_ORDER: Record<MemoryStatus, number> = { gone: 0, stale: 1, relocated: 2, current: 3 };

function pickReconciled(u: MemoryRecord): Partial<MemoryRecord> {
  const { status, anchor_id, start_line, end_line, fingerprint: fp, checked_file_hash, checked_at_ms, updated_at_ms, code_change } = u;
  const { confirmed_fingerprint, confirmed_file_hash, confirmed_at_ms } = u;
  return { status, anchor_id, start_line, end_line, fingerprint: fp, checked_file_hash, checked_at_ms, updated_at_ms, code_change,
    confirmed_fingerprint, confirmed_file_hash, confirmed_at_ms };
}
