/**
 * Reading the graph: symbol lookup, edges into and out of a node from every provider (the heuristic
 * graph plus language-server and external providers), and the boundaries that make an answer a lower
 * bound. One scoring concept: the per-edge confidence; `resolution` is its projection (exact ≥ 0.9).
 */
import type { Store, NodeRow, ProviderCheckRow } from '../store/store';
import type { Occurrence } from '../parse/occurrence';
import {
  ASSIGN_KINDS, BASE_KINDS, DECORATOR_KINDS, DECORATOR_LINES, GUARD_KINDS, HANDOFF_KINDS, SIGNATURE_KINDS, decoratorSites,
  guardSpans, type FileFacts, type Guard,
} from './file-facts';
import { symbolId, fileNodeId, chunkId } from '../util/ids';
import { AMBIGUOUS_MAX, TIERS, parseEvidence, type Tier } from './tiers';
import { SymbolLookup, overloadBase, parseNodeId, type LookupOptions, type Resolved } from './lookup';
import { appendAll } from '../util/arrays';
import { dispatchCallers } from './dispatch';
import { callbackCallers } from './callbacks';
import { protocolCallers, type CallableType } from './protocol';
import { callableSignature, typeKey } from './type-text';
import { graphRules, graphRulesOf } from '../languages';
import { LANGUAGE_IDS, type LanguageId } from '../languages/types';
import { implicitCallBoundaries } from './unseen';
import { mentionBoundaries } from './mentions';

export const EXACT_THRESHOLD = 0.9;
export type Resolution = 'exact' | 'best_effort';
export const resolutionOf = (confidence: number): Resolution => (confidence >= EXACT_THRESHOLD ? 'exact' : 'best_effort');

/** A node as answers list it (tools/shared.ts nodeSchema). */
export interface NodeRef { id: string; kind: string; path: string; line: number }

export interface GraphEdge {
  from: string; to: string; kind: string; provider: string; confidence: number; resolution: Resolution;
  evidence: string; path: string | null; line: number | null;
  /** the heuristic tier the edge was resolved in (from its stored evidence code); null for other providers */
  tier: Tier | null;
}

/** The highest confidence an edge from a cross-boundary link gets (below exact: a string match, not a compiler's). */
export const LINK_EDGE_MAX = 0.85;

/** An edge seen from one of its ends: the node at the other end. */
export interface Neighbour { neighbour: NodeRow; edge: GraphEdge }
/** `links`: matched cross-boundary links too; `dispatch` (default on): callers of overridden base methods. */
export interface EdgeOptions {
  links?: boolean; dispatch?: boolean;
  /** incoming calls include the invokers of values a function is handed over as (graph/callbacks.ts); default on */
  callbacks?: boolean;
}

/** What can make a graph answer a lower bound (the `boundaries` of every graph tool). */
export const BOUNDARY_KINDS = [
  'heuristic_only', 'ambiguous_dispatch', 'ambiguous_target', 'unparsed_files', 'provider_incomplete', 'depth_limit',
  'dynamic_names', 'stale_graph', 'graph_pending', 'stale_files', 'history_unavailable', 'unfollowed_links', 'implicit_calls',
] as const;
export type BoundaryKind = (typeof BOUNDARY_KINDS)[number];
export interface Boundary { kind: BoundaryKind; detail: string }

/**
 * Which indexed files of a repository changed on disk since they were indexed (size or mtime differ, or
 * gone: the indexer's own pre-filter), as far as a bounded check got (`complete` false when it stopped).
 */
export type StaleFiles = (repoId: string) => { paths: string[]; complete: boolean };

/** The chunk holding a node's definition (null for a file or a definition without one). */
export function chunkIdOf(n: NodeRow): string | null {
  return n.chunk_key ? chunkId(n.repo_id, n.path, n.chunk_key) : null;
}

export function toNodeRef(n: NodeRow): NodeRef {
  const id = n.kind === 'file' ? fileNodeId(n.repo_id, n.path) : symbolId(n.repo_id, n.path, n.symbol_path!);
  return { id, kind: n.kind, path: n.path, line: n.start_line };
}

export class GraphReader {
  private nodeCache = new Map<number, NodeRow>();
  private readonly symbols: SymbolLookup;
  private staleCache = new Map<string, { paths: string[]; complete: boolean }>();
  /** Per file, read once per reader: its definitions, its decorator sites, its classes' declared bases. */
  private fileFacts = new Map<number, FileFacts>();
  private callableTypeCache = new Map<string, CallableType[]>();
  /** `staleFiles`: the engine's check of files changed on disk (none: the graph is taken as current) */
  /** `indexing`: whether an index run is under way in this engine (a pending graph is then being built, not left behind) */
  constructor(private readonly store: Store, private readonly staleFiles?: StaleFiles, private readonly indexing?: () => boolean) {
    this.symbols = new SymbolLookup(store, cls => this.edges(cls, 'out', ['extends', 'implements']).map(e => e.neighbour).filter(n => n.kind !== 'file'),
      fileId => { const f = this.nodes([-fileId]).get(-fileId); return f ? this.edges(f, 'out', ['imports']).map(e => e.neighbour) : []; });
  }

  private stale(repoId: string): { paths: string[]; complete: boolean } {
    let v = this.staleCache.get(repoId);
    if (!v) { v = this.staleFiles?.(repoId) ?? { paths: [], complete: true }; this.staleCache.set(repoId, v); }
    return v;
  }

  /** Every node a `symbol` argument may name (an id, a qualified or module-qualified path, or a name); overload sets collapsed. */
  lookup(symbol: string, opts: LookupOptions = {}): NodeRow[] {
    return this.symbols.candidates(symbol, opts).rows;
  }

  /** Resolves a `symbol` argument to one node and its overload set, or the candidates; not_found says what was tried. */
  resolveOne(symbol: string, opts: LookupOptions = {}): Resolved {
    return this.symbols.resolve(symbol, opts);
  }

  /** A node's overload set (itself when it has none). */
  overloadSet(n: NodeRow): NodeRow[] { return this.symbols.overloadSet(n); }

  nodes(nodes: number[]): Map<number, NodeRow> {
    const missing = nodes.filter(n => !this.nodeCache.has(n));
    if (missing.length) for (const [k, v] of this.store.symbols.nodes([...new Set(missing)])) this.nodeCache.set(k, v);
    const m = new Map<number, NodeRow>();
    for (const n of nodes) { const v = this.nodeCache.get(n); if (v) m.set(n, v); }
    return m;
  }

  symbolsIn(fileId: number): NodeRow[] { return this.store.symbols.symbolsInFile(fileId); }

  /** The full-text words (util/tokens.ts) of the chunks holding a definition's lines and the line above (a decorator's end). */
  wordsOf(n: NodeRow): Set<string> {
    const facts = this.factsOf(n.file_id);
    const { tokens, spans } = facts.text ??= { tokens: this.store.files.tokenText(n.file_id) ?? [], spans: this.store.files.chunkSpans(n.file_id) };
    const held = spans.filter(c => n.kind === 'file' || (c.end_line >= n.start_line - 1 && c.start_line <= n.end_line));
    return new Set(held.flatMap(c => `${tokens[1 + 2 * c.ord] ?? ''} ${tokens[2 + 2 * c.ord] ?? ''}`.split(/\s+/)));
  }

  /** The symbols of an indexed file by path (null: the file is not indexed). */
  symbolsAt(repoId: string, path: string): NodeRow[] | null {
    const f = this.store.files.fileByPath(repoId, path);
    return f ? this.symbolsIn(f.file_id) : null;
  }

  /** Integer node of a public id (for the heuristic graph). */
  nodeOf(id: string): number | undefined {
    const rows = this.lookup(id);
    return rows[0]?.node;
  }

  idOf(n: NodeRow): string { return toNodeRef(n).id; }

  /** Edges into (`in`) or out of (`out`) a node, from every provider, best confidence first per neighbour. */
  edges(node: NodeRow, dir: 'in' | 'out', kinds: readonly string[]): { neighbour: NodeRow; edge: GraphEdge }[] {
    return this.edgesOfMany([node], dir, kinds).get(node.node) ?? [];
  }

  /**
   * Matched cross-boundary links into (`in`: the consumers of a route handler, a table's model, a topic's
   * producer…) or out of these nodes, as edges of provider `links`, kind `link_<kind>` (`link_http`…). A
   * link is a best-effort match of strings across a boundary, never compiler-grade: its confidence is
   * capped at LINK_EDGE_MAX.
   */
  linkEdgesOfMany(nodes: readonly NodeRow[], dir: 'in' | 'out'): Map<number, { neighbour: NodeRow; edge: GraphEdge }[]> {
    const result = new Map<number, { neighbour: NodeRow; edge: GraphEdge }[]>();
    const ids = new Map(nodes.map(n => [this.idOf(n), n]));
    const rows = this.store.links.linksOf([...ids.keys()], dir);
    this.resolveIds(rows.map(l => (dir === 'in' ? l.from_id : l.to_id)));
    for (const l of rows) {
      const self = ids.get(dir === 'in' ? l.to_id : l.from_id);
      const other = this.nodeById(dir === 'in' ? l.from_id : l.to_id);
      if (!self || !other || other.node === self.node) continue;
      const confidence = Math.min(l.confidence, LINK_EDGE_MAX);
      let list = result.get(self.node); if (!list) result.set(self.node, list = []);
      list.push({ neighbour: other, edge: { from: l.from_id, to: l.to_id, kind: `link_${l.kind}`, provider: 'links', confidence, resolution: resolutionOf(confidence),
        evidence: `cross-boundary link: ${l.evidence}`, path: l.path, line: l.line, tier: null } });
    }
    return result;
  }

  /**
   * `edges` for many nodes at once (a walk's frontier, batched). Incoming edges of each node, an overload's later
   * definition (`invoke~3`, a typing overload's implementation) with those of its whole set: calls bind to the
   * set's first definition. A sibling asked too keeps its own list (merged lists grew without bound).
   */
  dependentsOfMany(nodes: readonly NodeRow[], kinds: readonly string[], opts: EdgeOptions = {}): Map<number, Neighbour[]> {
    const asked = new Set(nodes.map(n => n.node));
    const siblings = new Map<number, NodeRow[]>();
    for (const n of nodes) if (n.symbol_path && /~\d+$/.test(n.symbol_path)) siblings.set(n.node, this.overloadSet(n).filter(m => !asked.has(m.node)));
    const edges = this.edgesOfMany([...nodes, ...[...siblings.values()].flat()], 'in', kinds, opts);
    for (const [node, members] of siblings) for (const m of members) appendAll(edges.get(node)!, edges.get(m.node) ?? []);
    return edges;
  }

  /**
   * `links`: matched cross-boundary links too. `dispatch` (default on): incoming calls include the callers
   * of the base methods a method overrides (graph/dispatch.ts).
   */
  edgesOfMany(nodes: readonly NodeRow[], dir: 'in' | 'out', kinds: readonly string[], opts: EdgeOptions = {}): Map<number, Neighbour[]> {
    const result = new Map<number, { neighbour: NodeRow; edge: GraphEdge }[]>();
    if (!nodes.length) return result;
    const byNode = new Map(nodes.map(n => [n.node, n]));
    for (const n of nodes) result.set(n.node, []);
    const heur = this.store.graph.graphEdges([...byNode.keys()], dir, kinds);
    const nb = this.nodes(heur.map(e => (dir === 'in' ? e.from_node : e.to_node)));
    for (const e of heur) {
      const self = byNode.get(dir === 'in' ? e.to_node : e.from_node);
      const other = nb.get(dir === 'in' ? e.from_node : e.to_node);
      if (!self || !other) continue;
      const selfId = this.idOf(self); const otherId = this.idOf(other);
      const from = dir === 'in' ? otherId : selfId; const to = dir === 'in' ? selfId : otherId;
      const src = dir === 'in' ? other : self;
      result.get(self.node)!.push({ neighbour: other, edge: { from, to, kind: e.kind, provider: 'heuristic', confidence: e.confidence, resolution: resolutionOf(e.confidence),
        evidence: this.evidence(e.kind, e.evidence, src, dir === 'in' ? self : other, e.line), path: src.path, line: e.line, tier: parseEvidence(e.evidence).tier } });
    }
    const ids = new Map(nodes.map(n => [this.idOf(n), n]));
    const prov = this.store.providerEdges.providerEdges([...ids.keys()], dir, kinds);
    this.resolveIds(prov.map(e => (dir === 'in' ? e.from_id : e.to_id)));
    for (const e of prov) {
      const self = ids.get(dir === 'in' ? e.to_id : e.from_id);
      const other = this.nodeById(dir === 'in' ? e.from_id : e.to_id);
      if (!self || !other) continue;
      result.get(self.node)!.push({ neighbour: other, edge: { from: e.from_id, to: e.to_id, kind: e.kind, provider: e.provider, confidence: e.confidence, resolution: resolutionOf(e.confidence),
        evidence: e.evidence, path: (dir === 'in' ? other : self).path, line: null, tier: null } });
    }
    if (opts.links) for (const [node, list] of this.linkEdgesOfMany(nodes, dir)) appendAll(result.get(node)!, list);
    if (dir === 'in' && kinds.includes('calls') && opts.dispatch !== false) {
      for (const [node, list] of dispatchCallers(this, nodes, result)) appendAll(result.get(node)!, list);
      for (const [node, list] of protocolCallers(this, nodes)) appendAll(result.get(node)!, list);
      if (opts.callbacks !== false) for (const [node, list] of callbackCallers(this, nodes)) appendAll(result.get(node)!, list);
    }
    for (const list of result.values()) list.sort((a, b) => b.edge.confidence - a.edge.confidence || a.neighbour.path.localeCompare(b.neighbour.path) || a.neighbour.start_line - b.neighbour.start_line);
    return result;
  }

  private idCache = new Map<string, NodeRow | null>();
  /** Resolves many symbol ids into the cache in batched queries (split at the last ':'; others fall back to lookup). */
  private resolveIds(ids: string[]): void {
    const keys: { repo_id: string; path: string; symbol_path: string; id: string }[] = [];
    for (const id of new Set(ids)) {
      if (this.idCache.has(id)) continue;
      const p = parseNodeId(id);
      const cut = p?.type === 'symbol' ? p.rest.lastIndexOf(':') : -1;
      if (p && cut > 0) keys.push({ repo_id: p.repo_id, path: p.rest.slice(0, cut), symbol_path: p.rest.slice(cut + 1), id });
    }
    if (!keys.length) return;
    const found = this.store.symbols.symbolsByKeys(keys);
    for (const k of keys) { const n = found.get(`${k.repo_id}\0${k.path}\0${k.symbol_path}`); if (n) this.idCache.set(k.id, n); }
  }
  /** The node of a public id (provider edges name their ends by id), cached for the reader's life. */
  private nodeById(id: string): NodeRow | undefined {
    let n = this.idCache.get(id);
    if (n === undefined) { n = this.lookup(id)[0] ?? null; this.idCache.set(id, n); }
    return n ?? undefined;
  }

  /** Nodes by repository, path and symbol path (key `repo\0path\0symbol_path`), in batched queries. */
  symbolsByKeys(keys: { repo_id: string; path: string; symbol_path: string }[]): Map<string, NodeRow> {
    return keys.length ? this.store.symbols.symbolsByKeys(keys) : new Map();
  }

  /** Edges into any node of a set (a target and its overload set), leaving out edges between members of the set. */
  edgesInto(set: NodeRow[], kinds: readonly string[]): { neighbour: NodeRow; edge: GraphEdge }[] {
    const members = new Set(set.map(n => n.node));
    return set.flatMap(n => this.edges(n, 'in', kinds)).filter(e => !members.has(e.neighbour.node));
  }

  /** The stored short evidence code as a sentence. */
  evidence(kind: string, code: string, from: NodeRow, to: NodeRow, line: number): string {
    const { tier, detail } = parseEvidence(code);
    const fromName = from.symbol_path ?? from.path; const toName = to.symbol_path ?? to.path;
    const how = tier ? TIERS[tier].text : code.split(':')[0];
    const verb = kind === 'calls' ? 'calls' : kind === 'references' ? 'references' : kind === 'imports' ? 'imports' : kind === 'contains_test_for' ? 'tests' : kind;
    return `heuristic: ${fromName} ${verb} ${toName} at ${from.path}:${line} (${how}${detail ? ` ${detail}` : ''})`;
  }

  /** Containers of a node: its class/module chain, then its file. */
  containers(n: NodeRow): NodeRow[] {
    const out: NodeRow[] = [];
    const symbols = n.kind === 'file' ? [] : this.factsOf(n.file_id).symbols;
    for (let p = n.parent_path; p;) {
      const c = symbols.find(s => s.symbol_path === p);
      if (!c) break;
      out.push(c);
      p = c.parent_path;
    }
    if (n.kind !== 'file') { const f = this.nodes([-n.file_id]).get(-n.file_id); if (f) out.push(f); }
    return out;
  }

  /** Base-class names a class declares (last segments, as written: `textwrap.TextWrapper` → TextWrapper). */
  declaredBases(cls: NodeRow): string[] {
    const facts = this.factsOf(cls.file_id);
    if (!facts.bases) {
      facts.bases = new Map();
      for (const o of this.store.files.occurrences(cls.file_id, BASE_KINDS)) {
        let names = facts.bases.get(o.scope); if (!names) facts.bases.set(o.scope, names = []);
        names.push(o.name);
      }
    }
    return facts.bases.get(cls.symbol_path) ?? [];
  }

  /** The callable types of a repository (graph/protocol.ts), with the parameter types each names. */
  callableTypes(repoId: string): CallableType[] {
    let types = this.callableTypeCache.get(repoId);
    if (types) return types;
    types = [];
    const languages = LANGUAGE_IDS.filter(l => graphRules(l).callableType);
    for (const node of this.store.symbols.symbolsOfKind(repoId, 'type', languages)) {
      const declared = this.assignsIn(node.file_id).find(o => o.name === node.name && o.scope === node.symbol_path && o.alias);
      const signature = declared ? callableSignature(node.language, declared.alias!) : null;
      if (signature?.params.length || signature?.returns) types.push({ node, ...signature! });
    }
    this.callableTypeCache.set(repoId, types);
    return types;
  }

  /** The types of a function's typed parameters in order (self aside), without module qualifiers. */
  typedParams(fn: NodeRow): string[] {
    const selves = graphRules(fn.language as LanguageId).selfReceivers;
    return this.assignsIn(fn.file_id)
      .filter(o => o.scope === fn.symbol_path && o.alias && o.line >= fn.start_line && !selves.includes(o.name))
      .sort((a, b) => a.line - b.line || a.col - b.col).map(o => typeKey(o.alias!));
  }

  /** Whether a language's files record values handed to calls (graph/callbacks.ts). */
  handsOffValues(language: string): boolean { return !!graphRulesOf(language)?.callbacks; }

  /** A file's values handed to calls, parameters, calls and assignments (graph/callbacks.ts), read once per reader. */
  handOffs(fileId: number): Occurrence[] {
    const facts = this.factsOf(fileId);
    return facts.handOffs ??= this.store.files.occurrences(fileId, HANDOFF_KINDS);
  }

  /** The node of a scope of a file: its definition by symbol path, or the file itself (null). */
  scopeNode(fileId: number, scope: string | null): NodeRow | undefined {
    if (scope === null) return this.nodes([-fileId]).get(-fileId);
    return this.factsOf(fileId).symbols.find(s => s.symbol_path === scope);
  }

  private assignsIn(fileId: number): Occurrence[] {
    const facts = this.factsOf(fileId);
    return facts.assigns ??= this.store.files.occurrences(fileId, ASSIGN_KINDS);
  }

  private factsOf(fileId: number): FileFacts {
    let facts = this.fileFacts.get(fileId);
    if (!facts) this.fileFacts.set(fileId, facts = { symbols: this.symbolsIn(fileId) });
    return facts;
  }

  /** Whether a function is a generator: a call makes it, its body runs where it is iterated. */
  isGenerator(fn: NodeRow): boolean {
    return this.signatureOf(fn.file_id).some(o => o.kind === 'yields' && o.scope === fn.symbol_path);
  }

  /** The class a function says it returns (`-> T`, else `return T(…)`), as written; null when it says none. */
  returnTypeOf(fn: NodeRow): string | null {
    return this.signatureOf(fn.file_id).find(o => o.kind === 'returns' && o.scope === fn.symbol_path)?.name ?? null;
  }

  /** Whether an edge's site, in `from`'s own body, runs only on an error (`error`) or while a value is unset (`memo`). */
  guardedSite(edge: GraphEdge, from: NodeRow, guard: Guard): boolean {
    if (edge.line === null || from.kind === 'file') return false;
    const facts = this.factsOf(from.file_id);
    const spans = (facts.guards ??= {})[guard] ??= guardSpans(this.store.files.occurrences(from.file_id, GUARD_KINDS[guard]));
    return spans.some(s => edge.line! >= s.first && edge.line! <= s.last && s.scope === from.symbol_path);
  }

  private signatureOf(fileId: number): Occurrence[] {
    const facts = this.factsOf(fileId);
    return facts.signature ??= this.store.files.occurrences(fileId, SIGNATURE_KINDS);
  }

  /**
   * The decorators applied to a function (by name: `@app.route(…)` → route), from the lines above it: an
   * occurrence that begins right after an `@` at the definition's column (`@stack.callback`: callback).
   */

  decoratorsOf(fn: NodeRow): string[] {
    const facts = this.factsOf(fn.file_id);
    const sites = facts.decorators ??= decoratorSites(this.store.files.occurrences(fn.file_id, DECORATOR_KINDS), facts.symbols);
    const names: string[] = [];
    // upwards from the definition, until the end of the definition before it (whose decorators are its own)
    for (let line = fn.start_line - 1; line >= Math.max(1, fn.start_line - DECORATOR_LINES) && !sites.ends.has(line); line--) {
      let best: Occurrence | undefined;
      for (const o of sites.byLine.get(line) ?? []) {
        if (o.scope !== fn.parent_path || o.col !== fn.start_col + 1 + (o.receiver ? o.receiver.length + 1 : 0)) continue;
        if (!best || best.col < o.col) best = o;
      }
      if (best) names.push(best.name);
    }
    return names;
  }

  /**
   * Boundaries a walk (impact, related tests) met in the functions it passed through, beyond those of its
   * targets (`present`): one not checked by a compiler-grade provider has heuristic callers only; one
   * called implicitly is reached through calls that are not edges.
   */
  walkBoundaries(walked: readonly NodeRow[], present: readonly Boundary[]): Boundary[] {
    const fns = walked.filter(n => n.kind === 'function' || n.kind === 'method');
    if (!fns.length) return [];
    const out: Boundary[] = [];
    if (!present.some(b => b.kind === 'heuristic_only')) {
      const unchecked = this.uncheckedByProviders(fns);
      const names = `${unchecked.slice(0, 3).map(t => t.symbol_path ?? t.name).join(', ')}${unchecked.length > 3 ? ', …' : ''}`;
      const detail = `${unchecked.length} function(s) on the way (${names}) were not checked by a compiler-grade provider: `
        + 'what reaches them comes from the heuristic graph';
      if (unchecked.length) out.push({ kind: 'heuristic_only', detail });
    }
    return [...out, ...implicitCallBoundaries(this, fns, true)];
  }

  /** The symbols no compiler-grade provider checked completely against their file's current content. */
  private uncheckedByProviders(symbols: readonly NodeRow[], checks?: readonly ProviderCheckRow[]): NodeRow[] {
    const byId = new Map(symbols.map(t => [this.idOf(t), t]));
    const hashes = new Map<number, string | undefined>();
    const hashOf = (fileId: number) => {
      if (!hashes.has(fileId)) hashes.set(fileId, this.store.files.fileById(fileId)?.hash);
      return hashes.get(fileId);
    };
    const done = new Set<string>();
    for (const c of checks ?? this.store.providerEdges.providerChecks([...byId.keys()])) {
      const t = byId.get(c.symbol_id);
      if (t && c.complete === 1 && c.file_hash === hashOf(t.file_id)) done.add(c.symbol_id);
    }
    return symbols.filter(t => !done.has(this.idOf(t)));
  }

  /** Boundaries that can hide dependents of the given targets. */
  boundaries(targets: NodeRow[], lowConfidenceSeen: number): Boundary[] {
    const out: Boundary[] = [];
    const symbols = targets.filter(t => t.kind !== 'file');
    const checks = this.store.providerEdges.providerChecks(symbols.map(t => this.idOf(t)));
    const unchecked = this.uncheckedByProviders(symbols, checks);
    if (unchecked.length) {
      const names = [...new Set(unchecked.map(t => overloadBase(t.symbol_path ?? t.path)))];
      out.push({ kind: 'heuristic_only', detail: `${names.length} target(s) not checked by a compiler-grade provider (language server or external provider): ${names.slice(0, 5).join(', ')}; dependents come from the heuristic graph` });
    }
    out.push(...implicitCallBoundaries(this, symbols));
    const incomplete = checks.filter(c => c.complete === 0);
    if (incomplete.length) out.push({ kind: 'provider_incomplete', detail: `${incomplete.length} provider check(s) timed out or answered partially (${[...new Set(incomplete.map(c => c.provider))].join(', ')})` });
    const repos = [...new Set(targets.map(t => t.repo_id))];
    for (const repo of repos) {
      const names = [...new Set(symbols.filter(t => t.repo_id === repo).map(t => t.name))];
      const sites = this.store.graph.unboundSites(repo, names);
      for (const [name, n] of sites) out.push({ kind: 'dynamic_names', detail: `${n} call site(s) of ${name}() could not be bound: more than ${AMBIGUOUS_MAX} definitions share the name` });
      if (this.store.graph.graphPending(repo)) {
        if (this.indexing?.()) out.push({ kind: 'graph_pending', detail: `an index run is building the graph of ${repo} (search answers meanwhile): this answer is from the graph as it stands; ask again when index_repo has finished` });
        else out.push({ kind: 'stale_graph', detail: `files of ${repo} changed after its heuristic graph was built (an indexing run stopped early); the next index run rebuilds it` });
      }
      // Files edited since indexing: the graph describes their indexed version.
      const stale = this.stale(repo);
      if (stale.paths.length) {
        const changed = new Set(stale.paths);
        const inTargets = [...new Set(targets.filter(t => t.repo_id === repo && changed.has(t.path)).map(t => t.path))];
        const others = stale.paths.filter(p => !inTargets.includes(p));
        const list = (ps: string[]) => `${ps.slice(0, 5).join(', ')}${ps.length > 5 ? ', …' : ''}`;
        if (inTargets.length) out.push({ kind: 'stale_files', detail: `the target's file changed on disk since it was indexed (${list(inTargets)}): its definitions and edges describe the indexed version; run index_repo` });
        if (others.length) out.push({ kind: 'stale_files', detail: `${stale.complete ? '' : 'at least '}${others.length} other indexed file(s) of ${repo} changed on disk since indexing (${list(others)}): references added or removed there are not in the graph; run index_repo` });
      }
      const skipped = this.store.meta.skippedFiles(repo);
      if (skipped) out.push({ kind: 'unparsed_files', detail: `${skipped} file(s) of ${repo} were not parsed (see index_status diagnostics)` });
    }
    if (lowConfidenceSeen) out.push({ kind: 'ambiguous_dispatch', detail: `${lowConfidenceSeen} edge(s) on the way were bound by name only (receiver type unknown or name shared); some listed dependents may not be real and others may be missing` });
    // complete so far: names the graph cannot account for still bound it (graph/mentions.ts)
    if (!out.length) out.push(...mentionBoundaries(this, (term, limit) => this.store.files.chunksWithTerm(term, limit), symbols));
    return out;
  }
}
