/**
 * The language table. Adding a language touches this file only:
 *   1. put the grammar `.wasm` in GRAMMAR_SOURCES (esbuild.mjs copies it into dist/grammars/),
 *   2. write `queries/<id>.scm` following the capture convention in types.ts,
 *   3. add the id to LANGUAGE_IDS in types.ts and one entry below (tsc fails until you do),
 *   4. add a fixture + expectations under test/fixtures/languages/<id>/.
 */
import { type LanguageId, type LanguageSpec, LANGUAGE_IDS } from './types';

const CLASSY = ['class', 'interface', 'struct', 'enum', 'trait', 'module', 'type'] as const;

// Lines that start a keyword declaration (first matching group = the name); see LanguageSpec.declarationLine.
const TS_DECL = /^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\s*\*?|class|interface|type|enum|const\s+enum|namespace|module)\s+([A-Za-z_$][\w$]*)/;
const JS_DECL = /^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\s*\*?|class)\s+([A-Za-z_$][\w$]*)/;
const MODIFIERS = '(?:(?:public|private|protected|internal|static|final|abstract|sealed|non-sealed|partial|readonly|strictfp|unsafe|file)\\s+)*';

export const LANGUAGES = {
  typescript: { wasm: 'tree-sitter-typescript.wasm', extensions: ['.ts', '.mts', '.cts'], query: ['typescript.scm', 'ecmascript.scm'], separator: '.', containerKinds: CLASSY,
    declarationLine: TS_DECL, repairs: ['typeMemberSeparators'] },
  tsx: { wasm: 'tree-sitter-tsx.wasm', extensions: ['.tsx'], query: ['typescript.scm', 'ecmascript.scm', 'jsx.scm'], separator: '.', containerKinds: CLASSY,
    declarationLine: TS_DECL, repairs: ['typeMemberSeparators'] },
  javascript: { wasm: 'tree-sitter-javascript.wasm', extensions: ['.js', '.mjs', '.cjs', '.jsx'], query: ['javascript.scm', 'ecmascript.scm', 'jsx.scm'], separator: '.', containerKinds: CLASSY,
    declarationLine: JS_DECL },
  python: { wasm: 'tree-sitter-python.wasm', extensions: ['.py', '.pyi'], query: 'python.scm', separator: '.', containerKinds: CLASSY,
    declarationLine: /^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)/ },
  java: { wasm: 'tree-sitter-java.wasm', extensions: ['.java'], query: 'java.scm', separator: '.', containerKinds: CLASSY,
    declarationLine: new RegExp(`^\\s*${MODIFIERS}(?:class|interface|enum|record|@interface)\\s+([A-Za-z_$][\\w$]*)`) },
  rust: { wasm: 'tree-sitter-rust.wasm', extensions: ['.rs'], query: 'rust.scm', separator: '::', containerKinds: CLASSY,
    declarationLine: /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:async|const|unsafe|extern(?:\s+"[^"]*")?)\s+)*(?:fn|struct|enum|trait|mod|type|union)\s+([A-Za-z_]\w*)/ },
  go: { wasm: 'tree-sitter-go.wasm', extensions: ['.go'], query: 'go.scm', separator: '.', containerKinds: CLASSY,
    declarationLine: /^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)|^type\s+([A-Za-z_]\w*)/ },
  c: { wasm: 'tree-sitter-c.wasm', extensions: ['.c', '.h'], query: 'c.scm', separator: '.', containerKinds: CLASSY,
    declarationLine: /^\s*(?:typedef\s+)?(?:struct|enum|union)\s+([A-Za-z_]\w*)\s*\{/ },
  cpp: { wasm: 'tree-sitter-cpp.wasm', extensions: ['.cc', '.cpp', '.cxx', '.hpp', '.hh', '.hxx', '.ipp'], query: 'cpp.scm', separator: '::', containerKinds: CLASSY,
    declarationLine: /^\s*(?:template\s*<[^>]*>\s*)?(?:typedef\s+)?(?:struct|enum(?:\s+class)?|union|class|namespace)\s+([A-Za-z_]\w*)\s*(?:final\s*)?[:{]/ },
  csharp: { wasm: 'tree-sitter-c-sharp.wasm', extensions: ['.cs'], query: 'csharp.scm', separator: '.', containerKinds: CLASSY,
    declarationLine: new RegExp(`^\\s*${MODIFIERS}(?:class|interface|struct|enum|record(?:\\s+(?:class|struct))?|namespace)\\s+([A-Za-z_@][\\w]*)`) },
  ruby: { wasm: 'tree-sitter-ruby.wasm', extensions: ['.rb', '.rake', '.gemspec'], fileNames: ['Rakefile', 'Gemfile'], query: 'ruby.scm', separator: '::', containerKinds: CLASSY,
    declarationLine: /^\s*(?:def\s+(?:self\.)?([A-Za-z_]\w*[?!=]?)|(?:class|module)\s+(?:[A-Z]\w*::)*([A-Z]\w*))/ },
  php: { wasm: 'tree-sitter-php.wasm', extensions: ['.php'], query: 'php.scm', separator: '\\', containerKinds: CLASSY,
    declarationLine: /^\s*(?:(?:abstract|final|readonly|public|private|protected|static)\s+)*(?:function\s+&?([A-Za-z_]\w*)|(?:class|interface|trait|enum)\s+([A-Za-z_]\w*))/ },
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
