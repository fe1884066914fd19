/**
 * Per-language knowledge the heuristic resolver needs, as data in one checked table: how an import
 * specifier maps to files of the repository, which receivers mean "this object", and how tests are named.
 */
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
}

const stripExt = (p: string) => p.replace(/\.(d\.ts|tsx?|mts|cts|jsx?|mjs|cjs)$/, '');

function jsCandidates(source: string, fromPath: string): string[] {
  if (!source.startsWith('.')) return [];
  const base = posix.normalize(posix.join(posix.dirname(fromPath), stripExt(source)));
  const exts = ['.ts', '.tsx', '.mts', '.cts', '.d.ts', '.js', '.jsx', '.mjs', '.cjs'];
  return [...exts.map(e => base + e), ...exts.map(e => `${base}/index${e}`)];
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

const JS: GraphLanguage = { importCandidates: jsCandidates, selfReceivers: ['this'], constructed: constructedParen, moduleImport: true };

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
