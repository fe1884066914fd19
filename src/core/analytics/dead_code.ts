/**
 * Dead-code candidates: definitions (functions, methods, classes) that nothing is seen to use. A
 * candidate passes every check, and its `reasons` list them:
 *
 *   1. no incoming edge of any kind from any provider (a class: nor into any of its members; a
 *      function calling only itself still counts as unused), and no call site of its name left unbound;
 *   2. exported or not, by its language's rule (an exported one is listed at a lower confidence, with
 *      the reason: code outside the workspace may use it): TypeScript/JavaScript `export` (or named
 *      in an `export {…}` / `module.exports` line), Python a leading underscore or, when the module has
 *      `__all__`, not named at its top level, Go a lower-case name, Rust no `pub`, Java/C# neither
 *      `public` nor `protected`, C/C++ `static`, PHP `private`; Ruby has no rule (never a candidate);
 *   3. not an entry point: main/init, constructors and special methods, `__main__.py`, or decorated /
 *      annotated (an annotation in its own chunk, or a call/name occurrence on the line above it in the
 *      same scope: route handlers, CLI commands, fixtures, DI and overrides register that way);
 *   4. not a test (test files and test cases; Rust `tests.rs` modules);
 *   5. its name appears in no other chunk's text (the full-text index: strings, comments, calls the
 *      graph could not bind).
 * What the index cannot see (reflection, dynamic imports, getattr, DI containers, config files) is a
 * boundary of every answer. Confidence stays below `exact`: DEAD_BASE, lowered where dispatch can hide a use.
 */
import type { NodeRow } from '../store/store';
import type { AnalyticsSource, ChunkInfo, RepoModel } from '../services/analytics';
import { graphRulesOf, isInlineTest, isTestPath } from '../languages';
import { isTestCase } from '../graph/tests';
import { tokenize, ftsFromTokens } from '../util/tokens';
import type { Occurrence } from '../parse/occurrence';

export const DEAD_BASE = 0.7;
/** An exported definition nothing in the workspace uses may be used by code outside it: listed, lower. */
export const EXPORTED_PENALTY = 0.3;
const CANDIDATE_KINDS = new Set(['function', 'method', 'class']);
const ENTRY_NAMES = new Set(['main', 'init', 'constructor', 'new', 'setup', 'teardown', 'activate', 'deactivate']);

export interface DeadCandidate { node: number; reasons: string[]; confidence: number; lines: number }

interface FileTokens { top: string[]; chunks: Map<string, string[]> }

/** Tokens of a definition's own chunk before its name (modifiers, decorators, keywords); null when unknown. */
function modifiers(n: NodeRow, ft: FileTokens | null): string[] | null {
  if (!n.chunk_key || n.chunk_key !== n.symbol_path || !ft) return null;
  const body = ft.chunks.get(n.chunk_key); if (!body) return null;
  const name = ftsFromTokens(tokenize(n.name))?.split(' ')[0] ?? n.name.toLowerCase();
  const i = body.indexOf(name);
  return i < 0 ? null : body.slice(0, i);
}

/** Whether the language's rule makes the definition visible outside its module; null: the language has no rule. */
function exported(n: NodeRow, mods: string[] | null, ft: FileTokens | null, parent: NodeRow | undefined, parentExported: boolean | null): { yes: boolean; rule: string } | null {
  const name = n.name;
  const term = ftsFromTokens(tokenize(name)).split(' ')[0] ?? '';
  switch (n.language) {
    case 'typescript': case 'tsx': case 'javascript': {
      if (n.kind === 'method' && parent) {
        if (mods?.includes('private')) return { yes: false, rule: 'a private method (TypeScript private)' };
        return { yes: parentExported !== false, rule: parentExported === false ? 'a method of a class that is not exported' : 'a method of an exported class' };
      }
      if (!mods) return { yes: true, rule: 'export unknown (definition shares its line)' };
      if (mods.includes('export')) return { yes: true, rule: 'export' };
      const listed = ft?.top.some((t, i, a) => t === term && a.slice(Math.max(0, i - 40), i).some(x => x === 'export' || x === 'exports'));
      return listed ? { yes: true, rule: 'named in an export list' } : { yes: false, rule: 'no export (JavaScript/TypeScript)' };
    }
    case 'python': {
      if (/^__.*__$/.test(name)) return { yes: true, rule: 'a special method' };
      if (name.startsWith('_')) return { yes: false, rule: 'a leading underscore (Python)' };
      if (n.kind === 'method') return { yes: true, rule: 'a public method' };
      if (n.parent_path) return { yes: false, rule: 'nested in a function (Python)' };
      if (ft?.top.includes('all')) return ft.top.includes(term) ? { yes: true, rule: 'listed in __all__' } : { yes: false, rule: 'not listed in __all__ (Python)' };
      return { yes: true, rule: 'a public module-level name' };
    }
    case 'go': return /^[A-Z]/.test(name) ? { yes: true, rule: 'a capitalised name' } : { yes: false, rule: 'a lower-case name (Go)' };
    case 'rust': return mods === null ? { yes: true, rule: 'visibility unknown' } : mods.includes('pub') ? { yes: true, rule: 'pub' } : { yes: false, rule: 'no pub (Rust)' };
    case 'java': case 'csharp':
      return mods === null ? { yes: true, rule: 'visibility unknown' } : mods.includes('public') || mods.includes('protected') ? { yes: true, rule: 'public' } : { yes: false, rule: 'neither public nor protected (Java/C#)' };
    case 'c': case 'cpp': return mods === null ? { yes: true, rule: 'linkage unknown' } : mods.includes('static') ? { yes: false, rule: 'static (C/C++)' } : { yes: true, rule: 'external linkage' };
    case 'php': return mods?.includes('private') ? { yes: false, rule: 'private (PHP)' } : { yes: true, rule: 'not private' };
    default: return null;
  }
}

function entryPoint(n: NodeRow, mods: string[] | null, parent: NodeRow | undefined, head: string | null): string | null {
  if (ENTRY_NAMES.has(n.name) || /^__.*__$/.test(n.name)) return `${n.name} is an entry point or special method`;
  if (parent && n.name === parent.name) return 'a constructor';
  if (/(^|\/)__main__\.py$/.test(n.path)) return 'in __main__.py';
  if (head && /^\s*(@|#\[)/.test(head)) return 'decorated or annotated (route handler, command, fixture, DI, override)';
  if (mods && (mods.includes('override') || mods.includes('test'))) return 'an override or annotated';
  return null;
}

export function findDeadCode(src: AnalyticsSource, m: RepoModel, keep: (path: string) => boolean): DeadCandidate[] {
  const incoming = new Set<number>();
  for (const e of m.edges) if (e.from !== e.to) incoming.add(e.to);
  const unbound = src.unboundNames(m.repo_id);
  const chunksByFile = new Map<number, ChunkInfo[]>();
  for (const c of src.chunks(m.repo_id)) (chunksByFile.get(c.file_id) ?? chunksByFile.set(c.file_id, []).get(c.file_id)!).push(c);
  const symbols = [...m.nodes.values()].filter(n => n.node > 0);
  const byPath = new Map<string, NodeRow>();
  for (const n of symbols) byPath.set(`${n.file_id}\0${n.symbol_path}`, n);
  // a class is used when any of its members is
  const usedMember = new Set<string>();
  for (const n of symbols) if (incoming.has(n.node) && n.parent_path) { let p: string | null = n.parent_path; while (p) { usedMember.add(`${n.file_id}\0${p}`); p = byPath.get(`${n.file_id}\0${p}`)?.parent_path ?? null; } }
  const tokens = new Map<number, FileTokens | null>();
  const fileTokens = (fileId: number): FileTokens | null => {
    if (tokens.has(fileId)) return tokens.get(fileId)!;
    const t = src.tokenText(fileId); let v: FileTokens | null = null;
    if (t) {
      v = { top: [], chunks: new Map() };
      for (const c of chunksByFile.get(fileId) ?? []) {
        const body = (t[2 + 2 * c.ord] ?? '').split(' ');
        if (c.kind === 'top_level') v.top.push(...body); else v.chunks.set(c.key, body);
      }
    }
    tokens.set(fileId, v); return v;
  };
  const occCache = new Map<number, Occurrence[]>();
  const occurrences = (fileId: number) => { let o = occCache.get(fileId); if (!o) occCache.set(fileId, o = src.occurrences(fileId)); return o; };
  const out: DeadCandidate[] = [];
  for (const n of symbols) {
    if (!CANDIDATE_KINDS.has(n.kind) || !keep(n.path)) continue;
    if (isTestPath(n.path) || isTestCase(n) || isInlineTest(n.language, n.path, n.symbol_path)) continue;
    if (incoming.has(n.node) || usedMember.has(`${n.file_id}\0${n.symbol_path}`) || unbound.has(n.name)) continue;
    const ft = fileTokens(n.file_id);
    const mods = modifiers(n, ft);
    const parent = n.parent_path ? byPath.get(`${n.file_id}\0${n.parent_path}`) : undefined;
    const own = (chunksByFile.get(n.file_id) ?? []).filter(c => c.start_line <= n.end_line && c.end_line >= n.start_line);
    const head = own.find(c => c.key === n.chunk_key)?.head ?? null;
    if (entryPoint(n, mods, parent, head)) continue;
    const parentExported = parent && parent.kind !== 'function' && parent.kind !== 'method' ? exported(parent, modifiers(parent, ft), ft, undefined, null)?.yes ?? null : null;
    const ex = exported(n, mods, ft, parent, parentExported);
    if (!ex) continue;
    // a decorator on the line above (Python, TypeScript): registered by it (route, command, fixture, DI)
    const occ = occurrences(n.file_id);
    if (occ.some(o => o.line === n.start_line - 1 && o.scope === n.parent_path && (o.kind === 'call' || o.kind === 'identifier'))) continue;
    // the name anywhere else in the code: a string, a comment, a call the graph could not bind
    const term = ftsFromTokens(tokenize(n.name)).split(' ')[0];
    if (!term) continue;
    const ownKeys = new Set(own.map(c => c.key));
    const hits = src.chunksWithTerm(`body:${term}`, ownKeys.size + 1);
    if (hits.some(h => h.file_id !== n.file_id || !ownKeys.has(h.key))) continue;
    const reasons = ['no incoming edge of any kind (calls, references, imports, inheritance) from any provider',
      ex.yes ? `exported (${ex.rule}): it may be used from outside the workspace` : `not exported: ${ex.rule}`,
      'not an entry point, constructor, special method or decorated definition', 'not a test',
      'its name appears in no other code (strings and comments included)'];
    let confidence = ex.yes ? DEAD_BASE - EXPORTED_PENALTY : DEAD_BASE;
    const hasBase = () => m.edges.some(e => e.from === parent?.node && (e.kind === 'extends' || e.kind === 'implements'));
    if (n.kind === 'method' && (graphRulesOf(n.language)?.traitMethods || hasBase())) {
      confidence -= 0.2; reasons.push('a method of a class with bases or a trait impl: it may be called through dispatch');
    }
    if (n.kind === 'class') { confidence -= 0.1; reasons.push('a class: it may be instantiated by reflection or a framework'); }
    out.push({ node: n.node, reasons, confidence: Math.round(confidence * 100) / 100, lines: n.end_line - n.start_line + 1 });
  }
  const order = (a: number, b: number) => { const x = m.nodes.get(a)!, y = m.nodes.get(b)!; return x.path.localeCompare(y.path) || x.start_line - y.start_line; };
  return out.sort((a, b) => b.confidence - a.confidence || b.lines - a.lines || order(a.node, b.node));
}
