/**
 * Helpers of the language table's graph and test rules (index.ts): import specifiers to repository
 * paths, receivers that construct an instance, and test-file naming shared by a family.
 */
import { builtinModules } from 'node:module';
import { posix } from 'node:path';
import type { GraphRules, TestNaming } from './types';

const stripExt = (p: string) => p.replace(/\.(d\.ts|tsx?|mts|cts|jsx?|mjs|cjs)$/, '');

const JS_EXTS = ['.ts', '.tsx', '.mts', '.cts', '.d.ts', '.js', '.jsx', '.mjs', '.cjs'];
const asModule = (base: string) => [...JS_EXTS.map(e => base + e), ...JS_EXTS.map(e => `${base}/index${e}`)];

function jsCandidates(source: string, fromPath: string): string[] {
  if (!source.startsWith('.')) return [];
  const path = posix.normalize(posix.join(posix.dirname(fromPath), source));
  // a component is imported by its file name (`./Button.vue`)
  if (/\.(?:vue|svelte)$/.test(source)) return [path];
  return asModule(stripExt(path));
}

const NODE_BUILTINS = new Set(builtinModules.map(m => m.replace(/^node:/, '').split('/')[0]!));

/** `zod/v4` → folder `zod`, paths `src/v4.ts`, `src/v4/index.ts`, `v4.ts`, …; `@acme/kit` → folder `kit`, its index files. */
function jsPackageCandidates(source: string): { folder: string; paths: string[] } | null {
  if (source.startsWith('.') || source.startsWith('/') || source.startsWith('node:')) return null;
  const parts = source.split('/');
  const scoped = source.startsWith('@');
  const folder = scoped ? parts[1] : parts[0];
  if (!folder || NODE_BUILTINS.has(folder) || !/^[\w.-]+$/.test(folder)) return null;
  const sub = stripExt(parts.slice(scoped ? 2 : 1).join('/'));
  const paths = sub ? ['src/', '', 'lib/'].flatMap(r => asModule(`${r}${sub}`)) : ['src/', '', 'lib/'].flatMap(r => JS_EXTS.map(e => `${r}index${e}`));
  return { folder, paths };
}

export function pythonCandidates(source: string, fromPath: string): string[] {
  const m = /^(\.*)(.*)$/.exec(source)!;
  const dots = m[1]!.length; const rest = m[2]!.replace(/\./g, '/');
  if (dots > 0) {
    let dir = posix.dirname(fromPath);
    for (let i = 1; i < dots; i++) dir = posix.dirname(dir);
    const base = rest ? posix.join(dir, rest) : dir;
    return [`${base}.py`, `${base}/__init__.py`, `${base}.pyi`];
  }
  // Absolute: from the repository root and common source roots
  const out = ['', 'src/', 'lib/'].flatMap(r => [`${r}${rest}.py`, `${r}${rest}/__init__.py`, `${r}${rest}.pyi`]);
  // then from each folder above the importing file, a package or a module inside one (a source root that is
  // not the repository root: api/shop/cart.py imports shop.orders); never a lone module beside it, which
  // would take `import logging` in mypkg/ for mypkg/logging.py
  for (let d = posix.dirname(fromPath); d !== '.' && d !== '/'; d = posix.dirname(d)) {
    out.push(`${d}/${rest}/__init__.py`);
    if (rest.includes('/')) out.push(`${d}/${rest}.py`);
  }
  return out;
}

/**
 * `shop.orders` from a file outside the package's source root (tests/ beside api/): the path endings a
 * dotted absolute import may have anywhere in the repository.
 */
export function pythonSuffixes(source: string): string[] | null {
  if (source.startsWith('.') || !source.includes('.')) return null;
  const rest = source.replace(/\./g, '/');
  return [`/${rest}.py`, `/${rest}/__init__.py`];
}

/** An `#include "x.h"`: beside the including file, then from the repository root. */
export const includeCandidates = (source: string, fromPath: string) => [posix.normalize(posix.join(posix.dirname(fromPath), source)), source];

const constructedNew = (receiver: string) => /^new\s+([A-Za-z_$][\w$]*)(?:\s*<[^>]*>)?\s*\(/.exec(receiver.trim())?.[1] ?? null;
/** `Worker(…)`: a capitalised call constructs (Python). */
export const constructedCall = (receiver: string) => { const m = /^([A-Z][\w]*)\s*\(/.exec(receiver.trim()); return m ? m[1]! : null; };
/** `new Worker(…)`, also parenthesised. */
export const constructedParen = (receiver: string) => constructedNew(receiver.trim().replace(/^\((.*)\)$/s, '$1'));
export const constructsNothing = () => null;

/** The local name a module import without alias binds: its first segment (`os.path` → `os`, `./util` → `util`). */
export const firstSegment = (source: string) => source.replace(/^\.+/, '').split(/[./]/)[0]!;
const unquote = (source: string) => source.replace(/^["`]|["`]$/g, '');

/** TypeScript, TSX and JavaScript resolve imports alike. */
export const JS_GRAPH: GraphRules = {
  importCandidates: jsCandidates, packageCandidates: jsPackageCandidates, selfReceivers: ['this'],
  constructed: constructedParen, moduleImport: firstSegment, constructorMember: 'constructor', bareImportIsStar: true,
};

/** Go: an import path names a package folder; the package's last segment is the local name. */
export const GO_GRAPH: GraphRules = {
  packageFolder: unquote, moduleImport: source => unquote(source).split('/').pop()!, selfReceivers: [],
  constructed: constructsNothing, folderIsModule: true, structuralInterfaces: true,
};

export function rustCandidates(source: string, fromPath: string): string[] {
  const parts = source.replace(/^(crate|self|super)::/, '').split('::').filter(p => /^[a-z_][a-z0-9_]*$/.test(p));
  const out: string[] = [];
  for (let n = parts.length; n > 0; n--) { const p = parts.slice(0, n).join('/'); out.push(`src/${p}.rs`, `src/${p}/mod.rs`, posix.join(posix.dirname(fromPath), `${p}.rs`)); }
  return out;
}

/** foo.test.ts, foo.spec.jsx, …: named after foo.ts (and its other JS/TS spellings). */
export const JS_TESTS: TestNaming = {
  file: /\.(test|spec)\.[cm]?[jt]sx?$/,
  tested: base => {
    const m = /^(.+)\.(test|spec)\.([cm]?[jt]sx?)$/.exec(base);
    return m ? [m[3]!, 'ts', 'tsx', 'js', 'vue', 'svelte'].map(ext => `${m[1]}.${ext}`) : [];
  },
};

/** A test file named `<prefix>NAME<suffix>` tests NAME with the given extension, for each pattern in order. */
export function namedTests(file: RegExp, patterns: readonly { re: RegExp; ext: (m: RegExpExecArray) => string }[]): TestNaming {
  return {
    file,
    tested: base => {
      const out: string[] = [];
      for (const p of patterns) { const m = p.re.exec(base); if (m) out.push(`${m[1]}.${p.ext(m)}`); }
      return out;
    },
  };
}
