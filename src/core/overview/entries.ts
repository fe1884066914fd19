/**
 * Entry points of the indexed code, from what the index stores (files, definitions with their ranges,
 * the graph's edges) and, where the index cannot tell (a route's path string, a decorator, `static`),
 * from the source's marks (scan.ts, read through the caller and kept per content hash):
 *
 *   main          `main` functions in Go, Rust, C, C++ (any `main` function), Java and C# (`static` `main`/`Main` methods),
 *                 Python `if __name__ == "__main__":` blocks and `__main__.py` files
 *   cli           package.json `bin`, pyproject `[project.scripts]` / `[project.gui-scripts]` / `[tool.poetry.scripts]`,
 *                 Cargo `[[bin]]` and the default src/main.rs
 *   http_route    decorators `@<x>.get/post/put/delete/patch/head/options/route/api_route/websocket("/…")` (Flask,
 *                 FastAPI and the like); Spring `@GetMapping`/`@PostMapping`/`@PutMapping`/`@DeleteMapping`/
 *                 `@PatchMapping`/`@RequestMapping` and JAX-RS `@GET`/`@POST`/`@PUT`/`@DELETE`/`@PATCH` on methods;
 *                 calls `<x>.get/post/…/all("/…", handler)` (Express, Koa, Fastify, Hono, gin, echo, chi),
 *                 `HandleFunc`/`Handle("/…", h)` (net/http), `.route("/…", get(h))` (axum), Sinatra `get "/…" do`
 *   package_root  package.json `exports`/`main`/`module` (mapped from build output to the source), pyproject's
 *                 package, Cargo `[lib]` / src/lib.rs, go.mod's root package, top-level Python packages
 *                 (an `__init__.py` whose folder's parent has none), a repository's root index.ts/js
 *   uncalled      functions (not methods: dispatch hides their callers) nothing in the workspace calls or
 *                 references, that call many others (the `affected_entry_points` idea of impact: roots of the call graph)
 *
 * Test code is never an entry point (test suites are listed apart). Recognition is by pattern, not by
 * type: a route registered through a helper, or a decorator written on several lines before its path,
 * is missed; what is found is confirmed in the file as it is on disk now.
 */
import { posix } from 'node:path';
import type { OverviewModel, FileInfo } from './model';
import { parseManifest, MANIFEST_NAMES, type Declared } from './manifests';
import { scansSource, type RouteMark, type SourceMarks } from './scan';
import { entryRulesOf, graphRulesOf } from '../languages';

export const ENTRY_KINDS = ['cli', 'main', 'http_route', 'package_root', 'uncalled'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

export interface Entry {
  kind: EntryKind;
  /** node index in the model (a definition, or a file) */
  node: number;
  start_line: number; end_line: number;
  /** command, route (`GET /users`), package or function name */
  name: string;
  /** how it was recognised */
  detail: string;
}

/** What the recognisers may read besides the model. */
export interface EntrySources {
  /** a source file's marks (scan.ts), null when it cannot be read now */
  marks(file: FileInfo): SourceMarks | null;
  /** a repository-relative file's text now (manifests; null: missing, unreadable, outside the root, too large) */
  read(repoId: string, path: string): string | null;
  /** whether a repository-relative file exists (manifests) */
  exists(repoId: string, path: string): boolean;
}

/** Folders checked for manifests, at most (per repository). */
export const MAX_MANIFEST_DIRS = 2000;
export const MAX_UNCALLED = 20;
/** An uncalled function counts as an entry when it reaches at least this many other nodes directly. */
export const UNCALLED_MIN_DEPENDENCIES = 5;

const FUNCTION_KINDS = new Set(['function', 'method']);

export interface EntryResult { entries: Entry[]; notes: string[] }

export function findEntryPoints(m: OverviewModel, src: EntrySources): EntryResult {
  const notes: string[] = [];
  const ctx = new Ctx(m, src, notes);
  const entries: Entry[] = [];
  entries.push(...manifestEntries(ctx));
  entries.push(...sourceEntries(ctx));
  entries.push(...packageRoots(ctx));
  const taken = new Set(entries.map(e => e.node));
  entries.push(...uncalled(m, taken));
  // one entry per (kind, node): a handler with several routes, a bin that is also a main
  const seen = new Map<string, Entry>();
  const byNode = new Map<number, EntryKind>();
  for (const e of entries) {
    const key = `${e.kind}\0${e.node}`;
    const prev = seen.get(key);
    // one handler of several routes lists them all; otherwise the first finding (a manifest's) stands
    if (prev) { if (e.kind === 'http_route' && !prev.name.split(', ').includes(e.name)) prev.name = `${prev.name}, ${e.name}`; continue; }
    // a node that is already a cli entry is not listed again as a main
    if (e.kind === 'main' && byNode.get(e.node) === 'cli') continue;
    seen.set(key, e); if (!byNode.has(e.node)) byNode.set(e.node, e.kind);
  }
  return { entries: [...seen.values()], notes };
}

class Ctx {
  /** what the manifests declare (read once, by manifestEntries) */
  manifestPackages: { repo: string; d: Declared }[] = [];
  private byFile = new Map<number, number[]>();
  private byPath = new Map<string, number>();
  constructor(readonly m: OverviewModel, readonly src: EntrySources, readonly notes: string[]) {
    for (let i = 0; i < m.n; i++) {
      if (m.kind[i] === 'file') { const f = m.files.get(m.fileOf[i]!)!; this.byPath.set(`${f.repo_id}\0${f.path}`, i); continue; }
      const list = this.byFile.get(m.fileOf[i]!); if (list) list.push(i); else this.byFile.set(m.fileOf[i]!, [i]);
    }
  }
  file(i: number): FileInfo { return this.m.files.get(this.m.fileOf[i]!)!; }
  /** the file node of a repository-relative path, if indexed */
  fileNode(repoId: string, path: string): number | undefined { return this.byPath.get(`${repoId}\0${path}`); }
  symbolsOf(fileId: number): number[] { return this.byFile.get(fileId) ?? []; }
  /** the innermost definition around a line of a file */
  innermostAt(fileId: number, line: number): number | undefined {
    let best: number | undefined;
    for (const i of this.symbolsOf(fileId)) if (this.m.start[i]! <= line && this.m.end[i]! >= line && (best === undefined || this.m.start[i]! >= this.m.start[best]!)) best = i;
    return best;
  }
  private fnByName: Map<string, number[]> | null = null;
  /** non-test functions and methods of a repository in a language with this name */
  functionsNamed(repoId: string, language: string, name: string): number[] {
    if (!this.fnByName) {
      this.fnByName = new Map();
      for (let i = 0; i < this.m.n; i++) {
        if (this.m.test[i] || !FUNCTION_KINDS.has(this.m.kind[i]!)) continue;
        const f = this.file(i);
        const k = `${f.repo_id}\0${f.language}\0${this.m.name[i]}`;
        const l = this.fnByName.get(k); if (l) l.push(i); else this.fnByName.set(k, [i]);
      }
    }
    return this.fnByName.get(`${repoId}\0${language}\0${name}`) ?? [];
  }
}

// ---- main functions and HTTP routes ----------------------------------------------------------------
function sourceEntries(c: Ctx): Entry[] {
  const { m } = c;
  const out: Entry[] = [];
  const mains = new Map<number, number[]>();
  for (let i = 0; i < m.n; i++) {
    if (m.test[i] || !FUNCTION_KINDS.has(m.kind[i]!)) continue;
    const f = c.file(i);
    if (!entryRulesOf(f.language)?.main?.includes(m.name[i]!)) continue;
    const list = mains.get(f.file_id); if (list) list.push(i); else mains.set(f.file_id, [i]);
  }
  for (const f of m.files.values()) {
    if (f.test) continue;
    const fileNode = c.fileNode(f.repo_id, f.path)!;
    const rules = entryRulesOf(f.language);
    if (rules?.mainModule && posix.basename(f.path) === rules.mainModule) {
      out.push({ kind: 'main', node: fileNode, start_line: 1, end_line: m.end[fileNode]!, name: `python -m ${posix.dirname(f.path).split('/').pop()}`, detail: '__main__.py' });
    }
    const needsText = scansSource(f.language);
    const marks = needsText ? c.src.marks(f) : null;
    for (const i of mains.get(f.file_id) ?? []) {
      // Java, C#: only a static main (its declaration's line, or an annotation line above it, says so)
      if (rules?.staticMain && !marks?.staticMain.some(l => l >= m.start[i]! && l <= Math.min(m.end[i]!, m.start[i]! + 5))) continue;
      const detail = /(^|\/)examples?\//.test(f.path) ? 'main function (example)' : posix.basename(f.path) === 'build.rs' ? 'main function (Cargo build script)' : 'main function';
      out.push({ kind: 'main', node: i, start_line: m.start[i]!, end_line: m.end[i]!, name: m.symbolPath[i] ?? m.name[i]!, detail });
    }
    if (!marks) continue;
    if (marks.pyMain) out.push({ kind: 'main', node: fileNode, start_line: marks.pyMain.line, end_line: marks.pyMain.end, name: f.path, detail: 'if __name__ == "__main__"' });
    for (const r of marks.routes) {
      const h = handlerOf(c, f, r);
      if (h && (m.test[h.node] || m.test[c.innermostAt(f.file_id, r.line) ?? h.node])) continue; // registered in, or handled by, test code (a Rust `mod tests`)
      if (h) out.push({ kind: 'http_route', node: h.node, start_line: h.start, end_line: h.end, name: r.path ? `${r.verb} ${r.path}` : r.verb, detail: `${r.how}${h.inline ? ' (inline handler)' : ''}` });
    }
  }
  return out;
}

/** The definition that handles a route: attached to the mark, named by it (this file first, then a unique one of the repository), or the mark itself when inline. */
function handlerOf(c: Ctx, f: FileInfo, r: RouteMark): { node: number; start: number; end: number; inline: boolean } | null {
  const { m } = c;
  const syms = c.symbolsOf(f.file_id);
  const span = (i: number) => ({ node: i, start: m.start[i]!, end: m.end[i]!, inline: false });
  const innermost = (line: number, fn: boolean) => {
    let best: number | undefined;
    for (const i of syms) if (m.start[i]! <= line && m.end[i]! >= line && (!fn || FUNCTION_KINDS.has(m.kind[i]!)) && (best === undefined || m.start[i]! >= m.start[best]!)) best = i;
    return best;
  };
  if (r.attached === 'next') {
    let best: number | undefined;
    for (const i of syms) if (FUNCTION_KINDS.has(m.kind[i]!) && m.start[i]! > r.line && m.start[i]! <= r.line + 12 && (best === undefined || m.start[i]! < m.start[best]!)) best = i;
    return best === undefined ? null : span(best);
  }
  if (r.attached === 'enclosing') { const i = innermost(r.line, true); return i === undefined ? null : span(i); }
  if (r.handler) {
    // `Type::new`, `users.list`: the qualifier must be the definition's container (else it is no handler of ours)
    const parts = r.handler.split(/\.|::|->/);
    const short = parts.pop()!; const qualifier = parts.pop();
    const fits = (i: number) => FUNCTION_KINDS.has(m.kind[i]!) && m.name[i] === short && (!qualifier || (m.parent[i] ?? '').split('.').pop() === qualifier);
    const local = syms.find(fits);
    if (local !== undefined) return span(local);
    const any = c.functionsNamed(f.repo_id, f.language, short).filter(fits);
    if (any.length === 1) return span(any[0]!);
    // a plain name that is no function of the repository (a client's config object, say) is no route;
    // a qualified one (`ServeDir::new`) is a service built inline
    if (!qualifier) return null;
  }
  // inline: the registering definition (or the file) at the line of the call
  const at = innermost(r.line, false);
  return { node: at ?? c.fileNode(f.repo_id, f.path)!, start: r.line, end: r.line, inline: true };
}

// ---- manifests and package roots -------------------------------------------------------------------
function manifestDirs(c: Ctx): Map<string, Set<string>> {
  const dirs = new Map<string, Set<string>>();
  for (const f of c.m.files.values()) {
    let set = dirs.get(f.repo_id); if (!set) dirs.set(f.repo_id, set = new Set(['.']));
    if (f.test || set.size >= MAX_MANIFEST_DIRS) continue;
    let d = posix.dirname(f.path);
    while (d !== '.' && !set.has(d) && set.size < MAX_MANIFEST_DIRS) { set.add(d); d = posix.dirname(d); }
  }
  return dirs;
}

function manifestEntries(c: Ctx): Entry[] {
  const out: Entry[] = [];
  const declared: { repo: string; d: Declared }[] = [];
  for (const [repo, dirs] of manifestDirs(c)) {
    for (const dir of dirs) {
      for (const name of MANIFEST_NAMES) {
        const rel = dir === '.' ? name : `${dir}/${name}`;
        if (!c.src.exists(repo, rel)) continue;
        const text = c.src.read(repo, rel); if (text === null) continue;
        const p = parseManifest(name, dir, text);
        if (p.error) c.notes.push(`manifest not read: ${p.error}`);
        for (const d of p.declared) declared.push({ repo, d });
      }
    }
  }
  c.manifestPackages = declared;
  for (const { repo, d } of declared) {
    if (d.kind !== 'cli') continue;
    const e = declaredEntry(c, repo, d);
    if (e) out.push(e);
    else if (!d.implicit) c.notes.push(`${d.manifest} declares command ${d.name} (${d.path ?? `${d.module}${d.attr ? `:${d.attr}` : ''}`}), which is not an indexed file`);
  }
  return out;
}

/** A declared file (or Python module) as an indexed node: a build output is mapped back to its source. */
function declaredEntry(c: Ctx, repo: string, d: Declared): Entry | null {
  const { m } = c;
  let node: number | undefined;
  if (d.path !== undefined) {
    for (const p of sourceCandidates(d.path)) { node = c.fileNode(repo, p); if (node !== undefined) break; }
  } else if (d.module) {
    const base = posix.dirname(d.manifest);
    const mod = d.module.replace(/\./g, '/');
    for (const p of [`${mod}.py`, `${mod}/__init__.py`, `src/${mod}.py`, `src/${mod}/__init__.py`]) { node = c.fileNode(repo, base === '.' ? p : `${base}/${p}`); if (node !== undefined) break; }
  }
  if (node === undefined) return null;
  const f = c.file(node);
  if (f.test) return null;
  // the declared function, or the file's main
  const want = d.attr ?? (d.kind === 'cli' ? 'main' : null);
  const sym = want ? c.symbolsOf(f.file_id).find(i => m.symbolPath[i] === want || (d.attr === undefined && m.name[i] === want && FUNCTION_KINDS.has(m.kind[i]!))) : undefined;
  const at = sym ?? node;
  return { kind: d.kind, node: at, start_line: m.start[at]!, end_line: m.end[at]!, name: d.name, detail: `${posix.basename(d.manifest)}${d.kind === 'cli' ? ' command' : ' package'}` };
}

/** Where the source of a declared file may be: itself, then src/ for dist|lib|build|out, .ts for .js. */
export function sourceCandidates(path: string): string[] {
  const p = path.replace(/^\.\//, '');
  const stems = new Set([p, p.replace(/(^|\/)(dist|lib|build|out|esm|cjs)\//, '$1src/')]);
  const out: string[] = [];
  for (const s of stems) {
    out.push(s);
    const noExt = s.replace(/\.d\.ts$|\.(m|c)?js$/, '');
    if (noExt !== s || !/\.\w+$/.test(s)) for (const ext of ['.ts', '.tsx', '.mts', '.js', '.mjs', '/index.ts', '/index.js']) out.push(`${noExt}${ext}`);
  }
  return [...new Set(out)];
}

function packageRoots(c: Ctx): Entry[] {
  const { m } = c;
  const out: Entry[] = [];
  for (const { repo, d } of c.manifestPackages) {
    if (d.kind !== 'package_root') continue;
    const dir = posix.dirname(d.manifest);
    if (posix.basename(d.manifest) === 'go.mod') {
      const inPackage = (f: { repo_id: string; language: string; test: boolean; path: string }) =>
        f.repo_id === repo && !!graphRulesOf(f.language)?.folderIsModule && !f.test && posix.dirname(f.path) === dir;
      const goFiles = [...m.files.values()].filter(inPackage);
      const last = d.name.split('/').pop()!;
      const pick = goFiles.find(f => posix.basename(f.path) === `${last}.go`) ?? goFiles.find(f => posix.basename(f.path) === 'doc.go') ?? goFiles.sort((a, b) => a.path.localeCompare(b.path))[0];
      const node = pick && c.fileNode(repo, pick.path);
      if (node !== undefined) out.push({ kind: 'package_root', node, start_line: 1, end_line: m.end[node]!, name: d.name, detail: 'go.mod module' });
      continue;
    }
    const e = declaredEntry(c, repo, d) ?? (posix.basename(d.manifest) === 'package.json' ? fallbackIndex(c, repo, dir, d) : null);
    if (e) out.push(e);
  }
  // top-level Python packages, Rust crate roots, a repository's root index file
  const inits = new Set<string>();
  const isInit = (f: { language: string; path: string }) => { const p = entryRulesOf(f.language)?.packageInit; return !!p && posix.basename(f.path) === p; };
  for (const f of m.files.values()) if (isInit(f)) inits.add(`${f.repo_id}\0${posix.dirname(f.path)}`);
  for (const f of m.files.values()) {
    if (f.test) continue;
    const base = posix.basename(f.path); const dir = posix.dirname(f.path);
    const node = c.fileNode(f.repo_id, f.path)!;
    const root = (name: string, detail: string): Entry => ({ kind: 'package_root', node, start_line: 1, end_line: m.end[node]!, name, detail });
    const topLevel = dir !== '.' && !inits.has(`${f.repo_id}\0${posix.dirname(dir)}`);
    if (isInit(f) && topLevel) out.push(root(dir.split('/').pop()!, 'top-level Python package'));
    else if (base === 'lib.rs') out.push(root(dir.endsWith('/src') ? posix.basename(posix.dirname(dir)) : dir, 'Rust crate root (lib.rs)'));
    else if (/^index\.(ts|tsx|js|mjs|cjs)$/.test(base) && (dir === '.' || dir === 'src')) out.push(root(f.path, 'root index file'));
  }
  return out;
}

function fallbackIndex(c: Ctx, repo: string, dir: string, d: Declared): Entry | null {
  for (const p of ['src/index.ts', 'src/index.tsx', 'src/index.js', 'src/index.mjs', 'index.ts', 'index.js', 'index.mjs']) {
    const node = c.fileNode(repo, dir === '.' ? p : `${dir}/${p}`);
    if (node !== undefined) return { kind: 'package_root', node, start_line: 1, end_line: c.m.end[node]!, name: d.name, detail: 'package.json package (index file)' };
  }
  return null;
}

// ---- roots of the call graph -----------------------------------------------------------------------
function uncalled(m: OverviewModel, taken: Set<number>): Entry[] {
  const out: number[] = [];
  for (let i = 0; i < m.n; i++) {
    if (m.test[i] || taken.has(i) || m.kind[i] !== 'function' || m.dependents[i] !== 0 || m.dependencies[i]! < UNCALLED_MIN_DEPENDENCIES) continue;
    if (/^_|^test/i.test(m.name[i]!) || m.graph.inStart[i + 1]! > m.graph.inStart[i]!) continue; // tests call it, or private
    out.push(i);
  }
  out.sort((a, b) => m.dependencies[b]! - m.dependencies[a]! || a - b);
  return out.slice(0, MAX_UNCALLED).map(i => ({ kind: 'uncalled' as const, node: i, start_line: m.start[i]!, end_line: m.end[i]!, name: m.symbolPath[i] ?? m.name[i]!, detail: `nothing in the workspace calls it; it uses ${m.dependencies[i]} others` }));
}
