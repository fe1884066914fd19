/**
 * Text formats: every file that is not code but is worth reading (docs, configuration, data, scripts,
 * markup, styles) is indexed as chunks for search and get_chunk, with no definitions or graph. Like the
 * language table, a format is data: its extensions or file names, what kind of file it is, and how it is
 * cut into chunks: by the sections a grammar finds (Markdown headings, YAML/JSON/TOML keys, HCL blocks,
 * CSS rules, HTML elements), by statements (SQL), or by bounded line windows. A format whose grammar
 * fails to load falls back to line windows.
 *
 * Adding a format touches this file only: an entry in TEXT_FORMATS (its grammar, when it has one, in
 * TEXT_GRAMMAR_SOURCES: esbuild.mjs copies it into dist/grammars/) and a case in test/text-files.test.ts.
 */
import type { Node } from 'web-tree-sitter';
import { baseNameOf, extensionOf, pathLookup } from './paths';

/** What a text file is for: a `kind` search results and index_status show. */
export const TEXT_KINDS = ['doc', 'config', 'data', 'script', 'markup', 'style'] as const;
export type TextKind = (typeof TEXT_KINDS)[number];

/** How a grammar's tree becomes sections: which nodes are sections, what each is called, and what to look inside. */
export interface SectionRules {
  /** grammar file name inside the bundled `grammars/` folder */
  readonly wasm: string;
  /** node types that are sections, and their name (null: not a section after all, its children are looked at) */
  readonly sections: Readonly<Record<string, (node: Node) => string | null>>;
  /** node types looked inside for sections (a section's own children are looked at only when it is split) */
  readonly containers: ReadonlySet<string>;
  /** every section is a chunk of its own, its subsections cut out of it (Markdown: one chunk per heading) */
  readonly flat?: boolean;
  /** sections shorter than this many lines stay in the chunk around them (one-line keys are not chunks) */
  readonly minLines: number;
  /** how a section's name joins its parent's (`retry.limit`; `Setup > Keys`) */
  readonly joiner: string;
  /** every nested section's path is a name of the chunk holding it (config keys: `payments.retry.limit`) */
  readonly keyPaths?: boolean;
}

export interface TextFormat {
  readonly kind: TextKind | ((path: string) => TextKind);
  /** file extensions (lower case, with the dot) */
  readonly extensions: readonly string[];
  /** exact base names (`Dockerfile`), and base names matching a pattern (`Dockerfile.prod`, `.env.local`) */
  readonly fileNames?: readonly string[];
  readonly fileNamePattern?: RegExp;
  /** how the file is cut: a grammar's sections, SQL statements, or (neither) line windows */
  readonly sections?: SectionRules;
  readonly statements?: boolean;
  /** `KEY=value` / `key: value` lines and `[section]` headers name the chunk holding them (.env, INI, properties) */
  readonly keyLines?: boolean;
}

const unquote = (t: string) => t.replace(/^["'`]|["'`]$/g, '').trim();
const field = (name: string) => (n: Node) => { const k = n.childForFieldName(name); return k ? unquote(k.text) : null; };
const firstLine = (n: Node) => n.text.split('\n', 1)[0]!.replace(/\s*\{\s*$/, '').trim().slice(0, 80) || null;

/** A Markdown section's name: its heading's text. */
function headingText(n: Node): string | null {
  const h = n.namedChildren.find(c => c?.type === 'atx_heading' || c?.type === 'setext_heading');
  const inline = h?.namedChildren.find(c => c?.type === 'inline' || c?.type === 'paragraph');
  return inline ? inline.text.trim().slice(0, 80) : null;
}

/** A TOML table's name: its key (`[retry]`, `[a.b]`, `[[servers]]`). */
const tomlKey = (n: Node) => n.namedChildren.find(c => /key$/.test(c?.type ?? ''))?.text ?? null;

/** An HCL block's name: its type and labels (`resource.aws_s3_bucket.logs`). */
const hclBlock = (n: Node) => n.namedChildren.filter(c => c?.type === 'identifier' || c?.type === 'string_lit').map(c => unquote(c!.text)).join('.') || null;

/** An HTML element's name: its tag, with its id when it has one (`section#pricing`). */
function htmlElement(n: Node): string | null {
  const tag = n.namedChildren.find(c => c?.type === 'start_tag');
  const name = tag?.namedChildren.find(c => c?.type === 'tag_name')?.text;
  const id = /\bid\s*=\s*["']?([\w-]+)/.exec(tag?.text ?? '')?.[1];
  return name ? (id ? `${name}#${id}` : name) : null;
}

const keysOf = (wasm: string, pair: string, containers: string[]) => ({
  wasm, sections: { [pair]: field('key') }, containers: new Set(containers), minLines: 3, joiner: '.', keyPaths: true,
});

/** JSON that configures a tool is config; any other JSON is data. */
const CONFIG_JSON = new RegExp('(?:^|/)(?:package|tsconfig[\\w.-]*|jsconfig|composer|\\.?\\w*rc|[\\w.-]*config[\\w.-]*|[\\w.-]*settings[\\w.-]*'
  + '|manifest|app|launch|tasks|extensions)\\.json5?$', 'i');
const jsonKind = (path: string): TextKind => (CONFIG_JSON.test(path) ? 'config' : 'data');

export const TEXT_FORMATS = {
  markdown: {
    kind: 'doc', extensions: ['.md', '.markdown', '.mdx'],
    sections: { wasm: 'tree-sitter-markdown.wasm', sections: { section: headingText }, containers: new Set(['document']), flat: true,
      minLines: 1, joiner: ' > ' },
  },
  rst: { kind: 'doc', extensions: ['.rst', '.adoc', '.asciidoc', '.org', '.tex'] },
  yaml: { kind: 'config', extensions: ['.yaml', '.yml'],
    sections: keysOf('tree-sitter-yaml.wasm', 'block_mapping_pair', ['stream', 'document', 'block_node', 'block_mapping']) },
  json: { kind: jsonKind, extensions: ['.json', '.jsonc', '.json5'], fileNamePattern: /^\.\w+rc$/,
    sections: { ...keysOf('tree-sitter-json.wasm', 'pair', ['document', 'object']), sections: { pair: field('key') } } },
  toml: { kind: 'config', extensions: ['.toml'],
    sections: { wasm: 'tree-sitter-toml.wasm', sections: { table: tomlKey, table_array_element: tomlKey, pair: tomlKey },
      containers: new Set(['document']), minLines: 2, joiner: '.', keyPaths: true } },
  ini: { kind: 'config', extensions: ['.ini', '.cfg', '.conf', '.properties'], keyLines: true,
    fileNames: ['.editorconfig', '.npmrc', '.gitattributes', '.gitmodules', 'CODEOWNERS', '.gitignore', '.dockerignore', '.npmignore'],
    fileNamePattern: /^\.env(?:\.[\w.-]+)?$/ },
  hcl: { kind: 'config', extensions: ['.tf', '.tfvars', '.hcl', '.nomad'],
    sections: { wasm: 'tree-sitter-hcl.wasm', sections: { block: hclBlock }, containers: new Set(['config_file', 'body']), minLines: 2, joiner: '.' } },
  sql: { kind: 'script', extensions: ['.sql'], statements: true },
  dockerfile: { kind: 'script', extensions: ['.dockerfile'], fileNames: ['Dockerfile', 'Containerfile'],
    fileNamePattern: /^(?:Docker|Container)file\.[\w.-]+$/ },
  make: { kind: 'script', extensions: ['.mk', '.cmake', '.ps1', '.bat', '.cmd', '.nix', '.gradle', '.bzl'],
    fileNames: ['Makefile', 'GNUmakefile', 'makefile', 'CMakeLists.txt', 'Justfile', 'justfile', 'Procfile', 'BUILD', 'WORKSPACE', 'Vagrantfile', 'Brewfile'] },
  html: { kind: 'markup', extensions: ['.html', '.htm', '.xhtml'],
    sections: { wasm: 'tree-sitter-html.wasm', sections: { element: htmlElement, script_element: () => 'script', style_element: () => 'style' },
      containers: new Set(['document', 'element']), minLines: 4, joiner: ' > ' } },
  xml: { kind: 'markup', extensions: ['.xml', '.xsd', '.xsl', '.plist', '.csproj', '.fsproj', '.vbproj', '.props', '.targets', '.pom'] },
  css: { kind: 'style', extensions: ['.css', '.scss', '.sass', '.less'],
    sections: { wasm: 'tree-sitter-css.wasm', sections: { rule_set: firstLine, media_statement: firstLine, keyframes_statement: firstLine },
      containers: new Set(['stylesheet']), minLines: 3, joiner: ' ' } },
  schema: { kind: 'data', extensions: ['.graphql', '.gql', '.proto', '.thrift', '.avsc', '.prisma', '.csv', '.tsv'] },
  /** any other text file: docs when it has no extension or is `.txt` (README, LICENSE), else data */
  text: { kind: (p: string) => (/(?:^|\/)[^./]+$|\.txt$/i.test(p) ? 'doc' : 'data'), extensions: ['.txt'] },
} as const satisfies Record<string, TextFormat>;

export type TextFormatId = keyof typeof TEXT_FORMATS;
export const TEXT_FORMAT_IDS = Object.keys(TEXT_FORMATS) as TextFormatId[];

/** Where each text grammar comes from in node_modules (each the grammar's own package, but Markdown: see below). */
export const TEXT_GRAMMAR_SOURCES: Record<string, string> = {
  'tree-sitter-yaml.wasm': '@tree-sitter-grammars/tree-sitter-yaml/tree-sitter-yaml.wasm',
  'tree-sitter-json.wasm': 'tree-sitter-json/tree-sitter-json.wasm',
  'tree-sitter-toml.wasm': '@tree-sitter-grammars/tree-sitter-toml/tree-sitter-toml.wasm',
  'tree-sitter-hcl.wasm': '@tree-sitter-grammars/tree-sitter-hcl/tree-sitter-hcl.wasm',
  'tree-sitter-html.wasm': 'tree-sitter-html/tree-sitter-html.wasm',
  'tree-sitter-css.wasm': '@vscode/tree-sitter-wasm/wasm/tree-sitter-css.wasm',
  // The Markdown grammar's own package ships no .wasm; its build from the bundle that gives Swift.
  'tree-sitter-markdown.wasm': '@cursorless/tree-sitter-wasms/out/tree-sitter-markdown.wasm',
};

/**
 * Files never read as text: binary by their extension (images, archives, fonts, media, compiled code,
 * documents of office suites) or generated lock files (their content is no one's words).
 */
const BINARY_EXTENSIONS = new Set(('png jpg jpeg gif bmp ico icns webp avif tif tiff psd svg eps ai heic '
  + 'zip gz tgz bz2 xz 7z rar tar jar war ear zst lz4 whl egg deb rpm dmg iso apk ipa '
  + 'woff woff2 ttf otf eot mp3 mp4 m4a wav ogg flac mov avi mkv webm '
  + 'pdf doc docx xls xlsx ppt pptx odt ods key numbers pages '
  + 'exe dll so dylib a lib o obj class pyc pyo pyd wasm node bin dat db sqlite sqlite3 pack idx parquet '
  + 'npy npz pkl pickle h5 hdf5 onnx pt pth ckpt safetensors tfrecord map').split(/\s+/).map(e => `.${e}`));
const LOCK_FILES = new RegExp('(?:^|/)(?:package-lock\\.json|npm-shrinkwrap\\.json|yarn\\.lock|pnpm-lock\\.yaml|bun\\.lockb?|Cargo\\.lock'
  + '|poetry\\.lock|Pipfile\\.lock|uv\\.lock|pdm\\.lock|Gemfile\\.lock|composer\\.lock|go\\.sum|mix\\.lock|pubspec\\.lock|Podfile\\.lock'
  + '|flake\\.lock|packages\\.lock\\.json|gradle\\.lockfile|[\\w.-]+\\.min\\.(?:css|js))$');

/** Why a file of no language is never read (by its name alone), or null when it may be text. */
export function skippedByName(relPath: string): 'binary_type' | 'lock_file' | null {
  if (LOCK_FILES.test(relPath)) return 'lock_file';
  return BINARY_EXTENSIONS.has(extensionOf(baseNameOf(relPath))) ? 'binary_type' : null;
}

const formatOfBase = pathLookup(TEXT_FORMAT_IDS.map(id => [id, TEXT_FORMATS[id] as TextFormat] as const));

/** The text format of a path that no language owns: by name, extension, pattern; any other file is `text`. */
export function textFormatForPath(relPath: string): TextFormatId {
  const base = baseNameOf(relPath);
  const found = formatOfBase(base);
  if (found) return found;
  for (const id of TEXT_FORMAT_IDS) if ((TEXT_FORMATS[id] as TextFormat).fileNamePattern?.test(base)) return id;
  return 'text';
}

export function isTextFormatId(value: string): value is TextFormatId {
  return Object.prototype.hasOwnProperty.call(TEXT_FORMATS, value);
}

/** Text formats whose kind depends on the file's path (JSON: config or data; `text`: doc or data). */
export const PATH_KINDED: readonly TextFormatId[] = TEXT_FORMAT_IDS.filter(id => typeof (TEXT_FORMATS[id] as TextFormat).kind === 'function');

/** A text format's kind when it does not depend on the path (`text`, JSON: the kind of most of their files). */
export function textKindOf(format: TextFormatId): TextKind {
  const k = (TEXT_FORMATS[format] as TextFormat).kind;
  return typeof k === 'function' ? k('') : k;
}

/** The kind of a stored file: `code` for a language's, else its text format's kind. */
export function fileKindOf(language: string, path: string): TextKind | 'code' {
  // (a stored language string: a text format id or not)
  if (!isTextFormatId(language)) return 'code';
  const k = (TEXT_FORMATS[language] as TextFormat).kind;
  return typeof k === 'function' ? k(path) : k;
}
