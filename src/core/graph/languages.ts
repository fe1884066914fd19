/**
 * Per-language knowledge the heuristic resolver needs, as data in one checked table: how an import
 * specifier maps to files of the repository, which receivers mean "this object", and how tests are named.
 */
import { builtinModules } from 'node:module';
import { posix } from 'node:path';
import type { LanguageId } from '../languages/types';

export interface GraphLanguage {
  /** Repository paths an import specifier may refer to (most likely first); empty when it is external. */
  importCandidates(source: string, fromPath: string): string[];
  /** Receivers that mean the enclosing class instance. */
  selfReceivers: readonly string[];
  /** A receiver expression that constructs an instance of a named class: `new Worker()`, `Worker()`. */
  constructed(receiver: string): string | null;
  /** Whether the import binds a module object (so `alias.name()` calls into that module). */
  moduleImport: boolean;
  /**
   * For a bare specifier that may name a package of the same repository (a monorepo workspace): the
   * package's folder name and the paths inside that folder it may refer to, most likely first.
   */
  packageCandidates?(source: string): { folder: string; paths: string[] } | null;
}

const stripExt = (p: string) => p.replace(/\.(d\.ts|tsx?|mts|cts|jsx?|mjs|cjs)$/, '');

const JS_EXTS = ['.ts', '.tsx', '.mts', '.cts', '.d.ts', '.js', '.jsx', '.mjs', '.cjs'];
const asModule = (base: string) => [...JS_EXTS.map(e => base + e), ...JS_EXTS.map(e => `${base}/index${e}`)];

function jsCandidates(source: string, fromPath: string): string[] {
  if (!source.startsWith('.')) return [];
  return asModule(posix.normalize(posix.join(posix.dirname(fromPath), stripExt(source))));
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

function pythonCandidates(source: string, fromPath: string): string[] {
  const m = /^(\.*)(.*)$/.exec(source)!;
  const dots = m[1]!.length; const rest = m[2]!.replace(/\./g, '/');
  if (dots > 0) {
    let dir = posix.dirname(fromPath);
    for (let i = 1; i < dots; i++) dir = posix.dirname(dir);
    const base = rest ? posix.join(dir, rest) : dir;
    return [`${base}.py`, `${base}/__init__.py`, `${base}.pyi`];
  }
  // Absolute: from the repository root, and from common source roots.
  return ['', 'src/', 'lib/'].flatMap(r => [`${r}${rest}.py`, `${r}${rest}/__init__.py`, `${r}${rest}.pyi`]);
}

const constructedNew = (receiver: string) => /^new\s+([A-Za-z_$][\w$]*)(?:\s*<[^>]*>)?\s*\(/.exec(receiver.trim())?.[1] ?? null;
const constructedCall = (receiver: string) => { const m = /^([A-Z][\w]*)\s*\(/.exec(receiver.trim()); return m ? m[1]! : null; };
const constructedParen = (receiver: string) => constructedNew(receiver.trim().replace(/^\((.*)\)$/s, '$1'));

const JS: GraphLanguage = { importCandidates: jsCandidates, packageCandidates: jsPackageCandidates, selfReceivers: ['this'], constructed: constructedParen, moduleImport: true };

export const GRAPH_LANGUAGES = {
  typescript: JS,
  tsx: JS,
  javascript: JS,
  python: { importCandidates: pythonCandidates, selfReceivers: ['self', 'cls'], constructed: constructedCall, moduleImport: true },
  java: {
    importCandidates: (source) => { const p = source.replace(/\.\*$/, '').replace(/\./g, '/'); return [`${p}.java`, `src/main/java/${p}.java`]; },
    selfReceivers: ['this'], constructed: constructedParen, moduleImport: false,
  },
  csharp: { importCandidates: () => [], selfReceivers: ['this'], constructed: constructedParen, moduleImport: false },
  go: {
    // Import paths name a package folder; the module prefix is unknown here, so the resolver matches suffixes.
    importCandidates: (source) => [source.replace(/^["`]|["`]$/g, '')],
    selfReceivers: [], constructed: () => null, moduleImport: true,
  },
  rust: {
    importCandidates: (source, fromPath) => {
      const parts = source.replace(/^(crate|self|super)::/, '').split('::').filter(p => /^[a-z_][a-z0-9_]*$/.test(p));
      const out: string[] = [];
      for (let n = parts.length; n > 0; n--) { const p = parts.slice(0, n).join('/'); out.push(`src/${p}.rs`, `src/${p}/mod.rs`, posix.join(posix.dirname(fromPath), `${p}.rs`)); }
      return out;
    },
    selfReceivers: ['self', 'Self'], constructed: (r) => /^([A-Z][\w]*)::new\s*\(/.exec(r.trim())?.[1] ?? null, moduleImport: false,
  },
  c: { importCandidates: (source, fromPath) => [posix.normalize(posix.join(posix.dirname(fromPath), source)), source], selfReceivers: [], constructed: () => null, moduleImport: false },
  cpp: { importCandidates: (source, fromPath) => [posix.normalize(posix.join(posix.dirname(fromPath), source)), source], selfReceivers: ['this'], constructed: constructedParen, moduleImport: false },
  ruby: {
    importCandidates: (source, fromPath) => source.startsWith('.') ? [posix.normalize(posix.join(posix.dirname(fromPath), source)) + '.rb'] : [`lib/${source}.rb`, `${source}.rb`],
    selfReceivers: ['self'], constructed: (r) => /^([A-Z][\w:]*)\.new\b/.exec(r.trim())?.[1]?.split('::').pop() ?? null, moduleImport: false,
  },
  php: { importCandidates: (source) => [source.replace(/^\\/, '').replace(/\\/g, '/') + '.php'], selfReceivers: ['$this', 'self', 'static'], constructed: constructedParen, moduleImport: false },
} as const satisfies Record<LanguageId, GraphLanguage>;

/** Test files by the conventions of the common ecosystems. */
export function isTestPath(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return /(^|\/)(tests?|__tests__|spec|specs|testing)\//.test(path)
    || /^test_.*\.py$|_test\.py$|_test\.go$|\.(test|spec)\.[cm]?[jt]sx?$|Tests?\.(java|cs|kt)$|_spec\.rb$|_test\.rb$|Test\.php$/.test(base);
}

/** The source file a test file is named after (test_foo.py → foo.py, foo_test.go → foo.go, …), as base names. */
export function testedBaseNames(path: string): string[] {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const out: string[] = [];
  let m: RegExpExecArray | null;
  if ((m = /^test_(.+)\.py$/.exec(base))) out.push(`${m[1]}.py`);
  if ((m = /^(.+)_test\.(py|go|rb)$/.exec(base))) out.push(`${m[1]}.${m[2]}`);
  if ((m = /^(.+)\.(test|spec)\.([cm]?[jt]sx?)$/.exec(base))) out.push(`${m[1]}.${m[3]}`, `${m[1]}.ts`, `${m[1]}.tsx`, `${m[1]}.js`);
  if ((m = /^(.+?)Tests?\.(java|cs|kt)$/.exec(base))) out.push(`${m[1]}.${m[2]}`);
  if ((m = /^(.+)_spec\.rb$/.exec(base))) out.push(`${m[1]}.rb`);
  if ((m = /^(.+)Test\.php$/.exec(base))) out.push(`${m[1]}.php`);
  return out;
}
