/**
 * The language table. Adding a language touches this file only:
 *   1. put the grammar `.wasm` in GRAMMAR_SOURCES (esbuild.mjs copies it into dist/grammars/),
 *   2. write `queries/<id>.scm` following the capture convention in types.ts,
 *   3. add the id to LANGUAGE_IDS in types.ts and one entry below (tsc fails until you do),
 *   4. add a fixture + expectations under test/fixtures/languages/<id>/.
 */
import { type LanguageId, type LanguageSpec, LANGUAGE_IDS } from './types';

const CLASSY = ['class', 'interface', 'struct', 'enum', 'trait', 'module', 'type'] as const;

export const LANGUAGES = {
  typescript: { wasm: 'tree-sitter-typescript.wasm', extensions: ['.ts', '.mts', '.cts'], query: ['typescript.scm', 'ecmascript.scm'], separator: '.', containerKinds: CLASSY },
  tsx: { wasm: 'tree-sitter-tsx.wasm', extensions: ['.tsx'], query: ['typescript.scm', 'ecmascript.scm', 'jsx.scm'], separator: '.', containerKinds: CLASSY },
  javascript: { wasm: 'tree-sitter-javascript.wasm', extensions: ['.js', '.mjs', '.cjs', '.jsx'], query: ['javascript.scm', 'ecmascript.scm', 'jsx.scm'], separator: '.', containerKinds: CLASSY },
  python: { wasm: 'tree-sitter-python.wasm', extensions: ['.py', '.pyi'], query: 'python.scm', separator: '.', containerKinds: CLASSY },
  java: { wasm: 'tree-sitter-java.wasm', extensions: ['.java'], query: 'java.scm', separator: '.', containerKinds: CLASSY },
  rust: { wasm: 'tree-sitter-rust.wasm', extensions: ['.rs'], query: 'rust.scm', separator: '::', containerKinds: CLASSY },
  go: { wasm: 'tree-sitter-go.wasm', extensions: ['.go'], query: 'go.scm', separator: '.', containerKinds: CLASSY },
  c: { wasm: 'tree-sitter-c.wasm', extensions: ['.c', '.h'], query: 'c.scm', separator: '.', containerKinds: CLASSY },
  cpp: { wasm: 'tree-sitter-cpp.wasm', extensions: ['.cc', '.cpp', '.cxx', '.hpp', '.hh', '.hxx', '.ipp'], query: 'cpp.scm', separator: '::', containerKinds: CLASSY },
  csharp: { wasm: 'tree-sitter-c-sharp.wasm', extensions: ['.cs'], query: 'csharp.scm', separator: '.', containerKinds: CLASSY },
  ruby: { wasm: 'tree-sitter-ruby.wasm', extensions: ['.rb', '.rake', '.gemspec'], fileNames: ['Rakefile', 'Gemfile'], query: 'ruby.scm', separator: '::', containerKinds: CLASSY },
  php: { wasm: 'tree-sitter-php.wasm', extensions: ['.php'], query: 'php.scm', separator: '\\', containerKinds: CLASSY },
} as const satisfies Record<LanguageId, LanguageSpec>;

/** Where each grammar comes from in node_modules (used by the build and by tests run from source). */
export const GRAMMAR_SOURCES: Record<string, string> = {
  'tree-sitter-typescript.wasm': '@vscode/tree-sitter-wasm/wasm/tree-sitter-typescript.wasm',
  'tree-sitter-tsx.wasm': '@vscode/tree-sitter-wasm/wasm/tree-sitter-tsx.wasm',
  'tree-sitter-javascript.wasm': '@vscode/tree-sitter-wasm/wasm/tree-sitter-javascript.wasm',
  'tree-sitter-python.wasm': '@vscode/tree-sitter-wasm/wasm/tree-sitter-python.wasm',
  'tree-sitter-java.wasm': '@vscode/tree-sitter-wasm/wasm/tree-sitter-java.wasm',
  'tree-sitter-rust.wasm': '@vscode/tree-sitter-wasm/wasm/tree-sitter-rust.wasm',
  'tree-sitter-go.wasm': '@vscode/tree-sitter-wasm/wasm/tree-sitter-go.wasm',
  'tree-sitter-c.wasm': 'tree-sitter-c/tree-sitter-c.wasm',
  'tree-sitter-cpp.wasm': '@vscode/tree-sitter-wasm/wasm/tree-sitter-cpp.wasm',
  'tree-sitter-c-sharp.wasm': '@vscode/tree-sitter-wasm/wasm/tree-sitter-c-sharp.wasm',
  'tree-sitter-ruby.wasm': '@vscode/tree-sitter-wasm/wasm/tree-sitter-ruby.wasm',
  'tree-sitter-php.wasm': '@vscode/tree-sitter-wasm/wasm/tree-sitter-php.wasm',
};

export { LANGUAGE_IDS };
export type { LanguageId, LanguageSpec };

const byExtension = new Map<string, LanguageId>();
const byFileName = new Map<string, LanguageId>();
for (const id of LANGUAGE_IDS) {
  const spec: LanguageSpec = LANGUAGES[id];
  for (const ext of spec.extensions) byExtension.set(ext, id);
  for (const name of spec.fileNames ?? []) byFileName.set(name, id);
}

/** The language of a path, by exact file name first, then by extension; undefined when unsupported. */
export function languageForPath(relPath: string): LanguageId | undefined {
  const base = relPath.slice(relPath.lastIndexOf('/') + 1);
  const exact = byFileName.get(base);
  if (exact) return exact;
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return undefined;
  return byExtension.get(base.slice(dot).toLowerCase());
}

export function isLanguageId(value: string): value is LanguageId {
  return (LANGUAGE_IDS as readonly string[]).includes(value);
}
