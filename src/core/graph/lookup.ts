/**
 * From the `symbol` argument an agent writes to the node(s) it means. Agents name symbols the way
 * they read them in code or in a traceback, so besides ids and qualified paths this accepts:
 *   - other languages' separators: `Foo::bar`, `Foo#bar`, `Ns\Foo::bar` (read as `Foo.bar`);
 *   - module-qualified names: `package.module.func`, `module.Class.method` (the leading parts name the
 *     file: `package/module.py`, `package/module/__init__.py`, `src/module.ts`, …);
 *   - a method named through a subclass (`Child.method` defined on a base class or mixin), through the
 *     heuristic graph's extends/implements edges;
 *   - an overload set (TS overload signatures, Python `@overload` stubs, `name~N`), which resolves to
 *     its implementation (the last declaration) with every declaration of the set kept as a target,
 *     since calls may be bound to any of them.
 * A name that several definitions share always comes back as candidates, never as a silent pick; a
 * name that matches nothing says what was tried and suggests near names.
 */
import { distance } from 'fastest-levenshtein';
import type { Store, NodeRow } from '../store/store';
import { SightlineError } from '../errors';
import { nodeIdOfChunkId, parseId, pathKeySplits } from '../util/ids';

export interface Resolved {
  /** The one node meant, or null when several match (see ambiguous). */
  target: NodeRow | null;
  /** Every declaration the target stands for (its overload set), the target included. */
  group: NodeRow[];
  /** Candidates when the argument matches several definitions (one per overload set). */
  ambiguous: NodeRow[];
  /** How the argument was matched, when it was not an exact id or qualified path. */
  matched_by: string | null;
}

export interface LookupOptions { repo_id?: string; path?: string }

const OVERLOAD = /~\d+$/;
/** The overload set a symbol_path belongs to: `f~3` → `f`. */
export const overloadBase = (sp: string): string => sp.replace(OVERLOAD, '');

/** `symbol:<repo>:<path>:<symbol_path>` or `file:<repo>:<path>` → its parts (path/symbol_path may contain ':'). */
export function parseNodeId(id: string): { type: 'symbol' | 'file'; repo_id: string; rest: string } | null {
  const p = parseId(id);
  return p && p.type !== 'chunk' ? { type: p.type, repo_id: p.repo_id, rest: p.rest } : null;
}

/** Other languages' qualifiers as dots: `Foo::bar`, `Foo#bar`, `Ns\Foo->bar` → `Foo.bar` (ids are left alone). */
export function normaliseQualified(symbol: string): string {
  const s = symbol.trim().replace(/\(\s*\)$/, '');
  if (s.startsWith('<top>')) return s;
  return s.replace(/::|->|#|\\/g, '.').replace(/^\.+/, '');
}

export class SymbolLookup {
  constructor(private readonly store: Store, private readonly bases: (cls: NodeRow) => NodeRow[],
    /** What a file imports (its import edges' targets): a module re-exporting a name names it too. */
    private readonly imported: (fileId: number) => NodeRow[] = () => []) {}

  /** Every node the argument may name, each overload set collapsed to its implementation. */
  candidates(symbol: string, opts: LookupOptions = {}): { rows: NodeRow[]; matched_by: string | null; tried: string[] } {
    const tried: string[] = [];
    const id = parseNodeId(nodeIdOfChunkId(symbol));
    if (id) {
      tried.push('id');
      if (id.type === 'file') {
        const f = this.store.files.fileByPath(id.repo_id, id.rest);
        return { rows: f ? [...this.store.symbols.nodes([-f.file_id]).values()] : [], matched_by: null, tried };
      }
      for (const { path, key } of pathKeySplits(id.rest)) {
        const rows = this.store.symbols.findSymbols({ repo_id: id.repo_id, path, symbol_path: key }, 2);
        if (rows.length) return { rows, matched_by: null, tried };
      }
      return { rows: [], matched_by: null, tried };
    }
    const q = { repo_id: opts.repo_id, path: opts.path };
    // As written first: `#` and `$` are part of member names in some languages (`Ky.#retry`, a private field).
    const literal = symbol.trim().replace(/\(\s*\)$/, '');
    if (/[#$]/.test(literal)) {
      const exact = this.store.symbols.findSymbols({ ...q, symbol_path: literal }, 200);
      if (exact.length) return { rows: collapseOverloads(exact), matched_by: null, tried: [`qualified path ${JSON.stringify(literal)}`] };
      tried.push(`qualified path ${JSON.stringify(literal)}`);
    }
    const inFile = this.pathAndName(literal, q);
    if (inFile) return { rows: collapseOverloads(inFile), matched_by: null, tried: ['a file path and a name in it'] };
    const name = normaliseQualified(symbol);
    const parts = name.split('.').filter(Boolean);
    const last = parts[parts.length - 1] ?? name;
    tried.push(`qualified path ${JSON.stringify(name)}`);
    let rows = this.store.symbols.findSymbols({ ...q, symbol_path: name }, 200);
    let matched_by: string | null = name === symbol ? null : `read as ${name}`;
    if (parts.length <= 1) {
      // A plain name: every definition with that name (a top-level `run` and `Worker.run` are both candidates).
      tried.push(`name ${JSON.stringify(last)}`);
      rows = uniqueNodes([...rows, ...this.store.symbols.findSymbols({ ...q, name: last }, 200)]);
      if (!rows.length) {
        // a private member written without its sigil: `retry` for `#retry`
        tried.push(`name ${JSON.stringify(`#${last}`)}`);
        rows = this.store.symbols.findSymbols({ ...q, name: `#${last}` }, 200);
        if (rows.length) matched_by = `private member #${last}`;
      }
    } else {
      if (!rows.length) {
        tried.push(`a definition whose qualified path ends with ${JSON.stringify(name)}`);
        rows = this.store.symbols.findSymbols({ ...q, name: last }, 500).filter(r => r.symbol_path?.endsWith(`.${name}`));
        if (rows.length) matched_by = `qualified path ending with ${name}`;
      }
      if (!rows.length) {
        tried.push('module-qualified (leading parts as the file path)');
        rows = this.moduleQualified(parts, q);
        if (rows.length) matched_by = 'module-qualified name';
      }
      if (!rows.length) {
        tried.push('a member inherited from a base class or mixin');
        rows = this.inherited(parts, q);
        if (rows.length) matched_by = `inherited: ${parts.slice(0, -1).join('.')} gets ${last} from ${rows.map(r => r.symbol_path).join(', ')}`;
      }
    }
    if (!rows.length) {
      const files = this.filesNamed(symbol, q);
      if (files.length) {
        tried.push('an indexed file with that path');
        return { rows: files, matched_by: `the file ${files.length === 1 ? files[0]!.path : symbol} (a path, not a symbol)`, tried };
      }
    }
    return { rows: collapseOverloads(rows), matched_by, tried };
  }

  /** `src/app.py:Foo.bar` (an id without its prefix): the definition at that qualified path in that file. */
  private pathAndName(literal: string, q: { repo_id?: string; path?: string }): NodeRow[] | null {
    for (const { path, key } of pathKeySplits(literal)) {
      if (!/\.[A-Za-z0-9]{1,8}$/.test(path) || !key || key.startsWith(':')) continue;
      const rows = this.store.symbols.findSymbols({ ...q, path, symbol_path: key }, 20);
      if (rows.length) return rows;
    }
    return null;
  }

  /** The file nodes of indexed files a path-like argument names (`src/app.py`, or its tail `app.py`). */
  private filesNamed(symbol: string, q: { repo_id?: string; path?: string }): NodeRow[] {
    const path = symbol.trim().replace(/\\/g, '/').replace(/^\.\//, '');
    const ext = /\.[A-Za-z0-9]{1,8}$/.exec(path);
    if (!ext || path.includes(' ')) return [];
    const hits = this.store.files.filesByStem(path.slice(0, -ext[0].length), 20)
      .filter(f => (f.path === path || f.path.endsWith(`/${path}`)) && (!q.repo_id || f.repo_id === q.repo_id));
    if (!hits.length) return [];
    return [...this.store.symbols.nodes(hits.map(f => -f.file_id)).values()];
  }

  /** Resolves to exactly one node (with its overload set), or returns the candidates; throws not_found with what was tried. */
  resolve(symbol: string, opts: LookupOptions = {}): Resolved {
    const { rows, matched_by, tried } = this.candidates(symbol, opts);
    if (!rows.length) {
      const suggestions = this.suggest(symbol, opts);
      throw new SightlineError('not_found',
        `no indexed symbol matches ${JSON.stringify(symbol)}${opts.path ? ` in ${opts.path}` : ''}${opts.repo_id ? ` (repo ${opts.repo_id})` : ''}; tried: ${tried.join('; ')}.`
        + (suggestions.length ? ` Did you mean: ${suggestions.join(', ')}?` : ' Use search_code to find the id, or index_status to check the index.'),
        { tried, suggestions });
    }
    if (rows.length === 1) {
      const group = this.overloadSet(rows[0]!);
      return { target: group[group.length - 1]!, group, ambiguous: [], matched_by: group.length > 1 && !matched_by ? `overload set of ${group.length} declarations; the implementation is the last` : matched_by };
    }
    return { target: null, group: [], ambiguous: rows, matched_by };
  }

  /** The declarations of a node's overload set (the node alone when it has none), in file order. */
  overloadSet(n: NodeRow): NodeRow[] {
    if (!n.symbol_path) return [n];
    const base = overloadBase(n.symbol_path);
    const set = this.store.symbols.findSymbols({ repo_id: n.repo_id, path: n.path, name: n.name }, 200).filter(r => r.symbol_path && overloadBase(r.symbol_path) === base);
    return set.length ? set : [n];
  }

  /** Near names for a not_found answer: same name in other letter case first, then by edit distance. */
  suggest(symbol: string, opts: LookupOptions = {}, max = 5): string[] {
    const name = normaliseQualified(parseNodeId(symbol)?.rest.split(':').pop() ?? symbol);
    const last = name.split('.').pop() || name;
    if (last.length < 2) return [];
    const pool = new Set<string>();
    for (const pattern of [`${last.slice(0, 2)}%`, `#${last.slice(0, 2)}%`, `%${last.slice(Math.max(0, last.length - 4))}%`, `%${last.slice(0, 4)}%`]) {
      for (const n of this.store.symbols.symbolNames(pattern, opts.repo_id, 3000)) pool.add(n);
    }
    const lower = last.toLowerCase();
    const bare = (n: string) => n.replace(/^#/, '').toLowerCase(); // a private member's sigil is not a typo
    const scored = [...pool].map(n => ({ n, d: bare(n) === lower ? 0 : distance(bare(n), lower) }))
      .filter(x => x.d <= Math.max(2, Math.floor(last.length / 3)) || x.n.toLowerCase().includes(lower))
      .sort((a, b) => a.d - b.d || a.n.length - b.n.length || a.n.localeCompare(b.n));
    const out: string[] = [];
    for (const { n } of scored) {
      const rows = this.store.symbols.findSymbols({ repo_id: opts.repo_id, name: n }, 3);
      for (const r of rows) if (r.symbol_path && !out.includes(r.symbol_path)) out.push(r.symbol_path);
      if (out.length >= max) break;
    }
    return out.slice(0, max);
  }

  /** `pkg.mod.func`, `mod.Class.method`: the leading parts name the file, the rest the qualified path in it. */
  private moduleQualified(parts: string[], q: LookupOptions): NodeRow[] {
    for (let i = parts.length - 1; i >= 1; i--) {
      const mod = parts.slice(0, i).join('/');
      const sp = parts.slice(i).join('.');
      const rows = this.store.symbols.findSymbols({ ...q, symbol_path: sp }, 2000).filter(r => fileNamesModule(r.path, mod));
      if (rows.length) return rows;
    }
    // `pkg.utils.helper` (or `pkg.Client.request`) where the module only imports the name from where it
    // is defined (a re-export): follow the module file's import to the definition, then the rest of the path.
    for (let i = parts.length - 1; i >= 1; i--) {
      const mod = parts.slice(0, i).join('/'); const head = parts[i]!; const rest = parts.slice(i + 1).join('.');
      for (const stem of [mod, `${mod}/__init__`, `${mod}/index`, `${mod}/mod`]) {
        for (const f of this.store.files.filesByStem(stem)) {
          if (q.repo_id && f.repo_id !== q.repo_id) continue;
          const defs = this.imported(f.file_id).filter(n => n.name === head && n.kind !== 'file' && n.symbol_path);
          const hit = rest ? defs.flatMap(d => this.store.symbols.findSymbols({ repo_id: d.repo_id, path: d.path, symbol_path: `${d.symbol_path}.${rest}` }, 5)) : defs;
          if (hit.length) return uniqueNodes(hit);
        }
      }
    }
    return [];
  }

  /** `Child.method` where `method` is defined on a base (at any depth) of the class `Child`. */
  private inherited(parts: string[], q: LookupOptions): NodeRow[] {
    const member = parts[parts.length - 1]!;
    const clsPath = parts.slice(0, -1).join('.');
    const classes = uniqueNodes([
      ...this.store.symbols.findSymbols({ ...q, symbol_path: clsPath }, 50),
      ...this.store.symbols.findSymbols({ ...q, name: parts[parts.length - 2]! }, 200).filter(r => r.symbol_path?.endsWith(`.${clsPath}`)),
      ...this.moduleQualified(parts.slice(0, -1), q),
    ]).filter(r => r.kind !== 'method' && r.kind !== 'function' && r.kind !== 'file');
    const out: NodeRow[] = [];
    for (const cls of classes) {
      const seen = new Set<number>([cls.node]);
      let frontier = [cls];
      for (let depth = 0; depth < 8 && frontier.length && !out.length; depth++) {
        const next: NodeRow[] = [];
        for (const c of frontier) {
          for (const base of this.bases(c)) {
            if (seen.has(base.node)) continue;
            seen.add(base.node);
            const hit = this.store.symbols.findSymbols({ repo_id: base.repo_id, path: base.path, symbol_path: `${base.symbol_path}.${member}` }, 5);
            if (hit.length) out.push(...hit); else next.push(base);
          }
        }
        frontier = next;
      }
    }
    return uniqueNodes(out);
  }
}

/** Whether a file path is the module `a/b` names: `a/b.py`, `a/b/__init__.py`, `src/a/b.ts`, `a/b/index.ts`, `a/b/mod.rs`, … */
export function fileNamesModule(path: string, mod: string): boolean {
  const noExt = path.replace(/\.(d\.ts|[A-Za-z0-9]+)$/, '');
  const stem = noExt.replace(/\/(__init__|index|mod)$/, '');
  return stem === mod || stem.endsWith(`/${mod}`) || noExt === mod || noExt.endsWith(`/${mod}`);
}

function uniqueNodes(rows: NodeRow[]): NodeRow[] {
  const seen = new Set<number>();
  return rows.filter(r => (seen.has(r.node) ? false : (seen.add(r.node), true)));
}

/** One row per overload set: its implementation, the last declaration in the file. */
function collapseOverloads(rows: NodeRow[]): NodeRow[] {
  const bySet = new Map<string, NodeRow>();
  const out: NodeRow[] = [];
  for (const r of rows) {
    if (!r.symbol_path) { out.push(r); continue; }
    const key = `${r.repo_id}\0${r.path}\0${overloadBase(r.symbol_path)}`;
    const prev = bySet.get(key);
    if (!prev) { bySet.set(key, r); out.push(r); continue; }
    if (r.start_line > prev.start_line) { out[out.indexOf(prev)] = r; bySet.set(key, r); }
  }
  return out;
}

/** A readable name for a node: overload and part suffixes spelled out. */
export function readableName(n: { symbol_path: string | null; path: string; kind: string }): string {
  if (!n.symbol_path) return n.kind === 'file' ? n.path : 'top-level code';
  const m = /^(.*)~(\d+)$/.exec(n.symbol_path);
  return m ? `${m[1]} (declaration ${m[2]} of an overload set)` : n.symbol_path;
}
