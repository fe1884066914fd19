/**
 * Edges from a live language server, recorded by the editor: the editor asks its language servers for
 * the references and incoming calls of a symbol and hands the locations here; each location becomes an
 * edge from the innermost indexed definition that contains it, under the provider label `lsp:<language>`
 * with confidence 1. A check is recorded against the target file's content hash, so an edit makes it
 * stale (and the symbol is checked again).
 */
import { isAbsolute, relative, sep } from 'node:path';
import type { Store, NodeRow } from '../store/store';
import { GraphReader, toNodeRef } from './query';
import { SightlineError } from '../errors';
import { fileNodeId, symbolId } from '../util/ids';
import { realInsideSync } from '../util/contained';

/**
 * A location a language server reported for the target:
 *   calls / references — a use of the target (the edge goes from the definition around it to the target);
 *   implements         — an implementation of the target (from the definition there to the target);
 *   callee             — the definition of something the target calls (from the target to that definition).
 */
export interface EditorLocation { path: string; line: number; col: number; kind: 'calls' | 'references' | 'implements' | 'callee' }
export interface EnrichmentTarget { id: string; path: string; abs_path: string; name: string; language: string; start_line: number; start_col: number; end_line: number; checked: boolean }

export function recordLocations(store: Store, roots: { repo_id: string; root: string }[], targetId: string, provider: string, locations: EditorLocation[], complete: boolean):
  { stored: number; ignored: number } {
  const g = new GraphReader(store);
  const target = g.lookup(targetId)[0];
  if (!target || target.kind === 'file') throw new SightlineError('not_found', `no indexed symbol ${targetId}`);
  const targetFile = store.files.fileById(target.file_id)!;
  const edges = new Map<string, { from_id: string; to_id: string; kind: string; provider: string; confidence: number; evidence: string; file_id: number }>();
  let ignored = 0;
  const symbolsByFile = new Map<number, NodeRow[]>();
  for (const loc of locations) {
    const root = roots.find(r => !isAbsolute(loc.path) || loc.path === r.root || loc.path.startsWith(r.root + sep));
    if (!root) { ignored++; continue; }
    const rel = (isAbsolute(loc.path) ? relative(root.root, loc.path) : loc.path).split(sep).join('/');
    const file = store.files.fileByPath(root.repo_id, rel);
    if (!file) { ignored++; continue; } // outside the index (node_modules, excluded, …)
    let syms = symbolsByFile.get(file.file_id);
    if (!syms) { syms = store.symbols.symbolsInFile(file.file_id); symbolsByFile.set(file.file_id, syms); }
    let inner: NodeRow | undefined;
    for (const s of syms) {
      const inside = (loc.line > s.start_line || (loc.line === s.start_line && loc.col >= s.start_col)) && (loc.line < s.end_line || (loc.line === s.end_line && loc.col <= s.end_col));
      if (inside && (!inner || s.start_line > inner.start_line || (s.start_line === inner.start_line && s.start_col >= inner.start_col))) inner = s;
    }
    if (inner && inner.node === target.node) { ignored++; continue; } // the declaration itself, or recursion inside the target
    const otherId = inner ? symbolId(inner.repo_id, inner.path, inner.symbol_path!) : fileNodeId(root.repo_id, rel);
    if (loc.kind === 'callee') {
      if (!inner) { ignored++; continue; }
      edges.set(`${otherId}\0out`, { from_id: targetId, to_id: otherId, kind: 'calls', provider, confidence: 1,
        evidence: `${provider}: ${target.symbol_path} calls ${inner.symbol_path} (defined at ${rel}:${loc.line})`, file_id: target.file_id });
      continue;
    }
    const key = `${otherId}\0${loc.kind}`;
    const prev = edges.get(key);
    if (prev && prev.kind === 'calls') continue;
    const verb = loc.kind === 'calls' ? 'calls' : loc.kind === 'implements' ? 'implements' : 'references';
    edges.set(key, { from_id: otherId, to_id: targetId, kind: loc.kind, provider, confidence: 1,
      evidence: `${provider}: ${inner?.symbol_path ?? rel} ${verb} ${target.symbol_path} at ${rel}:${loc.line}`, file_id: file.file_id });
  }
  store.transaction(() => {
    store.providerEdges.removeProviderEdges(provider, [targetId]);
    store.providerEdges.removeProviderEdgesFrom(provider, targetId, 'calls');
    store.providerEdges.addProviderEdges([...edges.values()]);
    store.providerEdges.setProviderCheck({ symbol_id: targetId, provider, file_hash: targetFile.hash, checked_at: Date.now(), results: edges.size, complete: complete ? 1 : 0 });
  });
  return { stored: edges.size, ignored };
}

/** Symbols worth asking a language server about: the most depended-on ones without a fresh check, or the ones named. */
export function enrichmentTargets(store: Store, roots: { repo_id: string; root: string }[], opts: { symbol?: string; path?: string; repo_id?: string; limit: number }): EnrichmentTarget[] {
  const g = new GraphReader(store);
  // Without a symbol: first the symbols whose check went stale (their file changed: re-validate), then
  // the most depended-on ones.
  const rows: NodeRow[] = opts.symbol ? (() => { const r = g.resolveOne(opts.symbol, { repo_id: opts.repo_id, path: opts.path }); return r.target ? [r.target] : r.ambiguous.slice(0, opts.limit); })()
    : [...store.providerEdges.staleLspChecks(opts.limit).flatMap(id => g.lookup(id).slice(0, 1)), ...store.graph.centralSymbols(opts.limit * 3)];
  const ids = rows.map(r => toNodeRef(r).id);
  const checks = store.providerEdges.providerChecks(ids);
  const out: EnrichmentTarget[] = [];
  for (const r of rows) {
    const id = toNodeRef(r).id;
    const file = store.files.fileById(r.file_id);
    const root = roots.find(x => x.repo_id === r.repo_id);
    if (!file || !root) continue;
    const checked = checks.some(c => c.symbol_id === id && c.provider.startsWith('lsp:') && c.file_hash === file.hash && c.complete === 1);
    if (!opts.symbol && checked) continue;
    // The editor opens the file to ask its language servers: only while it stays inside the root.
    if (!realInsideSync(root.root, r.path)) continue;
    out.push({ id, path: r.path, abs_path: `${root.root}${sep}${r.path.split('/').join(sep)}`, name: r.name, language: r.language, start_line: r.start_line, start_col: r.start_col, end_line: r.end_line, checked });
    if (out.length >= opts.limit) break;
  }
  return out;
}
