/**
 * The language table: everything Sightline knows of a language (grammar, extensions, tags queries,
 * declaration lines for broken files, repairs, its graph family, import and receiver rules, test
 * naming). Adding a language touches this file only:
 *   1. put the grammar `.wasm` in GRAMMAR_SOURCES (esbuild.mjs copies it into dist/grammars/),
 *   2. write `queries/<id>.scm` following the capture convention in types.ts (patterns shared with
 *      another language go in a shared file both list: `ecmascript.scm`, `jsx.scm`, `c-family.scm`),
 *   3. add the id to LANGUAGE_IDS in types.ts and one entry below (tsc fails until you do), with its
 *      graph rules (helpers in rules.ts) and test naming,
 *   4. add a fixture + expectations under test/fixtures/languages/<id>/.
 */
import { type EntryRules, type LanguageId, type LanguageSpec, type TestNaming, LANGUAGE_IDS } from './types';
import {
  GO_GRAPH, JS_GRAPH, JS_TESTS, constructedCall, constructedParen, constructsNothing, firstSegment, includeCandidates, namedTests,
  pythonCandidates, pythonSuffixes, rustCandidates,
} from './rules';
import { baseNameOf, pathLookup } from './paths';
import { TEXT_GRAMMAR_SOURCES, skippedByName, textFormatForPath, type TextFormatId } from './text';

/** What Python runs on an operand: `str(x)` its `__str__`, `for … in x` its `__iter__`, `k in x` its `__contains__`. */
const PYTHON_PROTOCOL_CALLS = {
  str: '__str__', repr: '__repr__', len: '__len__', iter: '__iter__', next: '__next__', hash: '__hash__',
  bool: '__bool__', reversed: '__reversed__', format: '__format__', for: '__iter__',
  in: '__contains__', 'not in': '__contains__', '==': '__eq__', await: '__await__', async: '__aiter__',
  // truth tests: `if x`, `while x`, `not x`, `x or y`, `x and y`, `assert x`
  if: '__bool__', elif: '__bool__', while: '__bool__', not: '__bool__', or: '__bool__', and: '__bool__', assert: '__bool__',
  // building a collection from x iterates it (list and tuple ask its length first); dict(m) reads a mapping's keys
  list: '__iter__ __len__', tuple: '__iter__ __len__', set: '__iter__', frozenset: '__iter__', sorted: '__iter__',
  enumerate: '__iter__', sum: '__iter__', min: '__iter__', max: '__iter__', any: '__iter__', all: '__iter__', dict: 'keys __getitem__',
  // type(self)(…), self.__class__(…): the object's own class constructed
  type: '__init__', __class__: '__init__',
};

/** What every Python object has: syntax running one (`a == b`, `f"{x}"`, `if x`) tells nothing of x's class. */
const PYTHON_UNIVERSAL: ReadonlySet<string> = new Set(['__eq__', '__ne__', '__bool__', '__str__', '__repr__', '__format__', '__hash__']);

/** Ruby syntax that runs a method: interpolation, and binary operators (their method has the operator's name). */
const RUBY_PROTOCOL_CALLS = {
  '#{': 'to_s', '|': '|', '&': '&', '+': '+', '-': '-', '<<': '<<', '<=>': '<=>', '==': '==', '<': '<', '<=': '<=', '>': '>', '>=': '>=',
  '|=': '|', '&=': '&', '+=': '+', '-=': '-',
};

/** Ruby: members a class gets at run time (`method_missing`, `define_method`, `class_eval`), and Object's own. */
const RUBY_DYNAMIC_MEMBERS = {
  fallback: 'method_missing', definers: ['define_method', 'class_eval', 'module_eval'],
  universal: new Set(['class', 'is_a?', 'kind_of?', 'instance_of?', 'respond_to?', 'nil?', 'frozen?', 'freeze', 'dup', 'clone',
    'send', 'public_send', '__send__', 'object_id', 'tap', 'then', 'hash', 'eql?', 'equal?', 'inspect', 'to_s', 'method', 'methods',
    'extend', 'instance_eval', 'instance_exec', 'instance_variable_get', 'instance_variable_set', 'singleton_class', 'itself',
    '==', '!=', '===', '=~', '!',
    // Kernel's private methods, called bare from any method
    'raise', 'fail', 'puts', 'print', 'p', 'pp', 'warn', 'format', 'sprintf', 'require', 'require_relative', 'load',
    'loop', 'lambda', 'proc', 'catch', 'throw', 'sleep', 'rand', 'block_given?', 'binding', 'caller', 'exit', 'abort',
    'Array', 'Hash', 'String', 'Integer', 'Float']),
};

/** Ruby's Enumerable and Comparable: what each method they give a class runs of its own (`each`, `<=>`). */
const RUBY_OUTSIDE_MIXINS = {
  Enumerable: Object.fromEntries(('map collect flat_map collect_concat select filter filter_map reject find detect find_all find_index '
    + 'each_with_index each_with_object each_slice each_cons each_entry reverse_each inject reduce sum count tally to_a entries to_h '
    + 'to_set include? member? first min max minmax min_by max_by sort sort_by group_by partition chunk_while slice_when zip take '
    + 'take_while drop drop_while uniq any? all? none? one? grep grep_v lazy cycle').split(' ').map(m => [m, 'each'])),
  Comparable: Object.fromEntries(['<', '<=', '>', '>=', '==', 'between?', 'clamp'].map(m => [m, '<=>'])),
};

/** Python's collections.abc mixins: what each method they give a class runs of its own. */
const PY_MAPPING = { get: '__getitem__', __contains__: '__getitem__', keys: '__iter__', items: '__iter__ __getitem__',
  values: '__iter__ __getitem__', __eq__: '__iter__ __getitem__' };
const PY_SEQUENCE = { __contains__: '__getitem__', __iter__: '__getitem__', __reversed__: '__len__ __getitem__',
  index: '__getitem__', count: '__getitem__' };
const PYTHON_OUTSIDE_MIXINS = {
  Mapping: PY_MAPPING,
  MutableMapping: { ...PY_MAPPING, pop: '__getitem__ __delitem__', setdefault: '__getitem__ __setitem__', update: '__setitem__',
    clear: '__iter__ __delitem__', popitem: '__iter__ __getitem__ __delitem__' },
  Sequence: PY_SEQUENCE,
  MutableSequence: { ...PY_SEQUENCE, append: 'insert __len__', extend: 'insert __len__', pop: '__getitem__ __delitem__',
    remove: '__getitem__ __delitem__', reverse: '__len__ __getitem__ __setitem__' },
};

/**
 * Python bases whose own code calls no method a subclass adds (beyond dunders): builtins, typing markers,
 * the collections ABCs (their mixins call only the abstract dunders), enums, named tuples.
 */
const PYTHON_INERT_BASES = new RegExp('^(?:int|float|str|bytes|dict|list|set|frozenset|tuple|type|ABC|ABCMeta|Generic|Protocol'
  + '|NamedTuple|TypedDict|Enum|IntEnum|StrEnum|Flag|IntFlag|Mapping|MutableMapping|Sequence|MutableSequence|Set|MutableSet'
  + '|Iterable|Iterator|Collection|Container|Sized|Hashable|Callable|Awaitable|AsyncIterable|AsyncIterator)$');

const PYTHON_DECORATORS = {
  property: /^(?:property|cached_property|setter|getter|deleter)$/,
  inert: /^(?:staticmethod|classmethod|abstractmethod|overload|override|final|no_type_check|total_ordering|dataclass)$/,
};

// Lines that start a keyword declaration (first matching group = the name); see LanguageSpec.declarationLine.
const TS_DECL = /^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\s*\*?|class|interface|type|enum|const\s+enum|namespace|module)\s+([A-Za-z_$][\w$]*)/;
const JS_DECL = /^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\s*\*?|class)\s+([A-Za-z_$][\w$]*)/;
const MODIFIERS = '(?:(?:public|private|protected|internal|static|final|abstract|sealed|non-sealed|partial|readonly|strictfp|unsafe|file)\\s+)*';
/** `(?:(?:a|b|…)\s+)*`: any run of these modifier words before a declaration keyword. */
const modifiers = (words: string) => `(?:(?:${words.trim().split(/\s+/).join('|')})\\s+)*`;
const KOTLIN_DECL = new RegExp(`^\\s*${modifiers(`public private protected internal open abstract sealed data enum inner override
  suspend inline value annotation companion operator infix tailrec`)}`
  + '(?:class|interface|object|fun|typealias)\\s+(?:<[^>]*>\\s*)?(?:[A-Za-z_]\\w*\\.)?([A-Za-z_]\\w*)');
const SCALA_DECL = new RegExp(`^\\s*(?:(?:private|protected|final|sealed|abstract|implicit|lazy|override|case|inline|opaque)(?:\\[[^\\]]*\\])?\\s+)*`
  + '(?:class|trait|object|enum|def|type)\\s+([A-Za-z_]\\w*)');
const SWIFT_DECL = new RegExp(`^\\s*${modifiers('public private fileprivate internal open final static class override mutating @\\w+')}`
  + '(?:class|struct|enum|protocol|extension|actor|func|typealias)\\s+([A-Za-z_]\\w*)');
const ZIG_DECL = new RegExp(`^\\s*(?:pub\\s+)?${modifiers('export extern inline')}`
  + '(?:fn\\s+([A-Za-z_]\\w*)|const\\s+([A-Za-z_]\\w*)\\s*=\\s*(?:packed\\s+|extern\\s+)?(?:struct|enum|union))');

export const LANGUAGES = {
  typescript: { wasm: 'tree-sitter-typescript.wasm', extensions: ['.ts', '.mts', '.cts'], query: ['typescript.scm', 'ecmascript.scm'],
    entries: { routes: 'registrations' },
    declarationLine: TS_DECL, repairs: ['typeMemberSeparators'], family: 'js', graph: JS_GRAPH, tests: JS_TESTS },
  tsx: { wasm: 'tree-sitter-tsx.wasm', extensions: ['.tsx'], query: ['typescript.scm', 'ecmascript.scm', 'jsx.scm'],
    entries: { routes: 'registrations' },
    declarationLine: TS_DECL, repairs: ['typeMemberSeparators'], family: 'js', graph: JS_GRAPH, tests: JS_TESTS },
  javascript: { wasm: 'tree-sitter-javascript.wasm', extensions: ['.js', '.mjs', '.cjs', '.jsx'], query: ['javascript.scm', 'ecmascript.scm', 'jsx.scm'],
    entries: { routes: 'registrations' },
    declarationLine: JS_DECL, family: 'js', graph: JS_GRAPH, tests: JS_TESTS },
  python: { wasm: 'tree-sitter-python.wasm', extensions: ['.py', '.pyi'], query: 'python.scm', lineComment: 'hash',
    entries: { routes: 'decorators', mainModule: '__main__.py', packageInit: '__init__.py' },
    declarationLine: /^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)/, family: 'python',
    graph: {
      importCandidates: pythonCandidates, importSuffixes: pythonSuffixes, selfReceivers: ['self', 'cls'],
      constructed: constructedCall, moduleImport: firstSegment,
      constructorMember: '__init__', lastDefinitionWins: true, classScopeHidden: true, contextMembers: ['__enter__', '__exit__'],
      callMember: '__call__', callbacks: true, dynamicMembers: { fallback: '__getattr__', universal: PYTHON_UNIVERSAL },
      outsideMixins: PYTHON_OUTSIDE_MIXINS, implicitMembers: /^__\w+__$/,
      subscriptMembers: { get: '__getitem__', set: '__setitem__', del: '__delitem__' },
      protocolCalls: PYTHON_PROTOCOL_CALLS, protocolFallbacks: { __bool__: '__len__' }, inertBases: PYTHON_INERT_BASES, decorators: PYTHON_DECORATORS,
      callableType: /^(?:\w+\.)*Callable\[\[/,
      fixtures: { decorator: 'fixture', files: ['conftest.py'], parametrize: 'parametrize' },
      submodule: (source, name) => (source.endsWith('.') ? `${source}${name}` : `${source}.${name}`),
    },
    tests: namedTests(/^test_.*\.py$|_test\.py$/, [{ re: /^test_(.+)\.py$/, ext: () => 'py' }, { re: /^(.+)_test\.py$/, ext: () => 'py' }]) },
  java: { wasm: 'tree-sitter-java.wasm', extensions: ['.java'], query: 'java.scm',
    entries: { main: ['main'], staticMain: true, routes: 'annotations' },
    declarationLine: new RegExp(`^\\s*${MODIFIERS}(?:class|interface|enum|record|@interface)\\s+([A-Za-z_$][\\w$]*)`), family: 'java',
    graph: { importCandidates: (source) => { const p = source.replace(/\.\*$/, '').replace(/\./g, '/'); return [`${p}.java`, `src/main/java/${p}.java`]; }, selfReceivers: ['this'], constructed: constructedParen },
    tests: namedTests(/Tests?\.(java|kt)$/, [{ re: /^(.+?)Tests?\.(java|kt)$/, ext: m => m[2]! }]) },
  rust: { wasm: 'tree-sitter-rust.wasm', extensions: ['.rs'], query: 'rust.scm',
    entries: { main: ['main'], routes: 'axum' }, inlineTests: { symbolPath: /(^|\.)tests\./, file: /(^|\/)tests\.rs$/ },
    declarationLine: /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:async|const|unsafe|extern(?:\s+"[^"]*")?)\s+)*(?:fn|struct|enum|trait|mod|type|union)\s+([A-Za-z_]\w*)/, family: 'rust',
    graph: {
      importCandidates: rustCandidates, selfReceivers: ['self', 'Self'], traitMethods: true,
      constructed: (r) => /^([A-Z][\w]*)::new\s*\(/.exec(r.trim())?.[1] ?? null,
    } },
  go: { wasm: 'tree-sitter-go.wasm', extensions: ['.go'], query: 'go.scm',
    entries: { main: ['main'], routes: 'registrations' },
    declarationLine: /^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)|^type\s+([A-Za-z_]\w*)/, family: 'go', graph: GO_GRAPH,
    tests: namedTests(/_test\.go$/, [{ re: /^(.+)_test\.go$/, ext: () => 'go' }]) },
  c: { wasm: 'tree-sitter-c.wasm', extensions: ['.c', '.h'], query: ['c.scm', 'c-family.scm'],
    entries: { main: ['main'] },
    declarationLine: /^\s*(?:typedef\s+)?(?:struct|enum|union)\s+([A-Za-z_]\w*)\s*\{/, family: 'c',
    graph: { importCandidates: includeCandidates, selfReceivers: [], constructed: constructsNothing } },
  cpp: { wasm: 'tree-sitter-cpp.wasm', extensions: ['.cc', '.cpp', '.cxx', '.hpp', '.hh', '.hxx', '.ipp'], query: ['cpp.scm', 'c-family.scm'],
    entries: { main: ['main'] },
    declarationLine: /^\s*(?:template\s*<[^>]*>\s*)?(?:typedef\s+)?(?:struct|enum(?:\s+class)?|union|class|namespace)\s+([A-Za-z_]\w*)\s*(?:final\s*)?[:{]/, family: 'c',
    graph: { importCandidates: includeCandidates, selfReceivers: ['this'], constructed: constructedParen } },
  csharp: { wasm: 'tree-sitter-c-sharp.wasm', extensions: ['.cs'], query: 'csharp.scm',
    entries: { main: ['main', 'Main'], staticMain: true, routes: 'annotations' },
    declarationLine: new RegExp(`^\\s*${MODIFIERS}(?:class|interface|struct|enum|record(?:\\s+(?:class|struct))?|namespace)\\s+([A-Za-z_@][\\w]*)`), family: 'csharp',
    graph: { selfReceivers: ['this'], constructed: constructedParen },
    tests: namedTests(/Tests?\.cs$/, [{ re: /^(.+?)Tests?\.cs$/, ext: () => 'cs' }]) },
  ruby: { wasm: 'tree-sitter-ruby.wasm', extensions: ['.rb', '.rake', '.gemspec'], fileNames: ['Rakefile', 'Gemfile'], query: 'ruby.scm', lineComment: 'hash',
    entries: { routes: 'sinatra' },
    declarationLine: /^\s*(?:def\s+(?:self\.)?([A-Za-z_]\w*[?!=]?)|(?:class|module)\s+(?:[A-Z]\w*::)*([A-Z]\w*))/, family: 'ruby',
    graph: {
      importCandidates: (source, fromPath) => source.startsWith('.') ? [includeCandidates(source, fromPath)[0] + '.rb'] : [`lib/${source}.rb`, `${source}.rb`],
      selfReceivers: ['self'], constructed: (r) => /^([A-Z][\w:]*)\.new\b/.exec(r.trim())?.[1]?.split('::').pop() ?? null,
      constructorMember: 'initialize', newMethod: 'new', implicitMembers: /^(?:\[\]=?|[-+*\/%<>=!~^&|]+@?|each|call|to_s|to_str|to_ary|to_proc|coerce|method_missing|respond_to_missing\?)$/, lastDefinitionWins: true, openClasses: true, bareCalls: true,
      classBodyIsClass: true, subscriptMembers: { get: '[]', set: '[]=' }, protocolCalls: RUBY_PROTOCOL_CALLS, setterSuffix: '=',
      syntaxByReceiverName: true,
      callbacks: true, dynamicMembers: RUBY_DYNAMIC_MEMBERS, outsideMixins: RUBY_OUTSIDE_MIXINS,
      outsideFactories: { Singleton: ['instance'] }, globalConstants: true,
    },
    tests: namedTests(/_spec\.rb$|_test\.rb$/, [{ re: /^(.+)_test\.rb$/, ext: () => 'rb' }, { re: /^(.+)_spec\.rb$/, ext: () => 'rb' }]) },
  php: { wasm: 'tree-sitter-php.wasm', extensions: ['.php'], query: 'php.scm', lineComment: 'both',
    entries: { routes: 'registrations' },
    declarationLine: /^\s*(?:(?:abstract|final|readonly|public|private|protected|static)\s+)*(?:function\s+&?([A-Za-z_]\w*)|(?:class|interface|trait|enum)\s+([A-Za-z_]\w*))/, family: 'php',
    graph: {
      importCandidates: (source) => [source.replace(/^\\/, '').replace(/\\/g, '/') + '.php'],
      selfReceivers: ['$this', 'self', 'static'], constructed: constructedParen, constructorMember: '__construct',
    },
    tests: namedTests(/Test\.php$/, [{ re: /^(.+)Test\.php$/, ext: () => 'php' }]) },
  kotlin: { wasm: 'tree-sitter-kotlin.wasm', extensions: ['.kt', '.kts'], query: 'kotlin.scm', repairs: ['constructorOnNextLine'],
    entries: { main: ['main'] },
    declarationLine: KOTLIN_DECL,
    family: 'kotlin', graph: { selfReceivers: ['this'], constructed: constructedCall },
    tests: namedTests(/Tests?\.kts?$/, [{ re: /^(.+?)Tests?\.(kts?)$/, ext: m => m[2]! }]) },
  scala: { wasm: 'tree-sitter-scala.wasm', extensions: ['.scala', '.sc'], query: 'scala.scm',
    entries: { main: ['main'] },
    declarationLine: SCALA_DECL,
    family: 'scala', graph: { selfReceivers: ['this'], constructed: constructedParen },
    tests: namedTests(/(?:Spec|Suite|Tests?)\.scala$/, [{ re: /^(.+?)(?:Spec|Suite|Tests?)\.scala$/, ext: () => 'scala' }]) },
  bash: { wasm: 'tree-sitter-bash.wasm', extensions: ['.sh', '.bash'], query: 'bash.scm', lineComment: 'hash',
    declarationLine: /^\s*(?:function\s+([A-Za-z_][\w-]*)|([A-Za-z_][\w-]*)\s*\(\s*\)\s*\{?)/,
    family: 'bash', graph: { selfReceivers: [], constructed: constructsNothing } },
  lua: { wasm: 'tree-sitter-lua.wasm', extensions: ['.lua'], query: 'lua.scm', lineComment: 'dash',
    declarationLine: /^\s*(?:local\s+)?function\s+(?:[A-Za-z_]\w*[.:])*([A-Za-z_]\w*)/,
    family: 'lua', graph: { selfReceivers: ['self'], constructed: constructsNothing },
    tests: namedTests(/_spec\.lua$|^test_.*\.lua$/, [{ re: /^(.+)_spec\.lua$/, ext: () => 'lua' }, { re: /^test_(.+)\.lua$/, ext: () => 'lua' }]) },
  swift: { wasm: 'tree-sitter-swift.wasm', extensions: ['.swift'], query: 'swift.scm',
    declarationLine: SWIFT_DECL,
    family: 'swift', graph: { selfReceivers: ['self'], constructed: constructedCall },
    tests: namedTests(/Tests?\.swift$/, [{ re: /^(.+?)Tests?\.swift$/, ext: () => 'swift' }]) },
  dart: { wasm: 'tree-sitter-dart.wasm', extensions: ['.dart'], query: 'dart.scm', detachedBody: 'function_body',
    entries: { main: ['main'] },
    declarationLine: /^\s*(?:(?:abstract|sealed|base|final|interface)\s+)*(?:class|mixin|enum|extension|typedef)\s+([A-Za-z_]\w*)/,
    family: 'dart', graph: { selfReceivers: ['this'], constructed: constructedCall },
    tests: namedTests(/_test\.dart$/, [{ re: /^(.+)_test\.dart$/, ext: () => 'dart' }]) },
  elixir: { wasm: 'tree-sitter-elixir.wasm', extensions: ['.ex', '.exs'], query: 'elixir.scm', lineComment: 'hash',
    declarationLine: /^\s*(?:defmodule|defprotocol)\s+([A-Z][\w.]*)|^\s*(?:def|defp|defmacro|defmacrop|defguard|defguardp)\s+([a-z_]\w*[?!]?)/,
    family: 'elixir', graph: { selfReceivers: ['__MODULE__'], constructed: constructsNothing },
    tests: namedTests(/_test\.exs$/, [{ re: /^(.+)_test\.exs$/, ext: () => 'ex' }]) },
  // Single-file components: their <script> blocks read as TypeScript (a superset of what they hold), in the JS family.
  vue: { wasm: 'tree-sitter-typescript.wasm', extensions: ['.vue'], query: ['typescript.scm', 'ecmascript.scm'], scriptBlocks: true,
    declarationLine: TS_DECL, family: 'js', graph: JS_GRAPH },
  svelte: { wasm: 'tree-sitter-typescript.wasm', extensions: ['.svelte'], query: ['typescript.scm', 'ecmascript.scm'], scriptBlocks: true,
    declarationLine: TS_DECL, family: 'js', graph: JS_GRAPH },
  zig: { wasm: 'tree-sitter-zig.wasm', extensions: ['.zig'], query: 'zig.scm',
    entries: { main: ['main'] },
    declarationLine: ZIG_DECL,
    family: 'zig', graph: { selfReceivers: ['self'], constructed: constructsNothing } },
} as const satisfies Record<LanguageId, LanguageSpec>;

/** Where each grammar comes from in node_modules (used by the build and by tests run from source). */
const CODE_GRAMMAR_SOURCES: Record<string, string> = {
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
  'tree-sitter-kotlin.wasm': '@tree-sitter-grammars/tree-sitter-kotlin/tree-sitter-kotlin.wasm',
  'tree-sitter-scala.wasm': 'tree-sitter-scala/tree-sitter-scala.wasm',
  'tree-sitter-bash.wasm': '@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm',
  'tree-sitter-lua.wasm': '@tree-sitter-grammars/tree-sitter-lua/tree-sitter-lua.wasm',
  // No official Swift or Dart package ships a wasm that loads (old dylink format or none): builds of
  // the same grammars (alex-pinkus/tree-sitter-swift, UserNobody14/tree-sitter-dart) from these two.
  // (A newer Swift build misparses every file after any query is compiled; this one does not.)
  'tree-sitter-swift.wasm': '@cursorless/tree-sitter-wasms/out/tree-sitter-swift.wasm',
  'tree-sitter-dart.wasm': '@lumis-sh/wasm-dart/tree-sitter-dart.wasm',
  // tree-sitter-elixir's own package requires a `tree-sitter` peer that conflicts with tree-sitter-c's at
  // install; the same grammar, built, from the bundle that also gives Swift.
  'tree-sitter-elixir.wasm': '@cursorless/tree-sitter-wasms/out/tree-sitter-elixir.wasm',
  'tree-sitter-zig.wasm': '@tree-sitter-grammars/tree-sitter-zig/tree-sitter-zig.wasm',
};

/** Every grammar the build bundles: the languages' and the text formats'. */
export const GRAMMAR_SOURCES: Record<string, string> = { ...CODE_GRAMMAR_SOURCES, ...TEXT_GRAMMAR_SOURCES };

export { LANGUAGE_IDS };
export type { LanguageId, LanguageSpec };

/** What a stored file's `language` holds: a language of the table, or a text format (languages/text.ts). */
export type FileLanguage = LanguageId | TextFormatId;

/** Why a file is not indexed though it is not ignored (counted per run; index_status shows them). */
export type NotIndexedReason = 'binary_type' | 'lock_file' | 'language_off' | 'text_off';

/**
 * What a walked path is: a language's source, a text file (when text files are on), or not indexed and why.
 * `languages` limits the code languages (null: all); text files are on unless `textFiles` is false.
 */
export function fileLanguageFor(relPath: string, languages: ReadonlySet<LanguageId> | null, textFiles: boolean): FileLanguage | NotIndexedReason {
  const code = languageForPath(relPath);
  if (code) return !languages || languages.has(code) ? code : 'language_off';
  const skipped = skippedByName(relPath);
  if (skipped) return skipped;
  return textFiles ? textFormatForPath(relPath) : 'text_off';
}

/** Whether a stored file's language is a code language (it has definitions and graph edges). */
export const isCodeLanguage = (language: string): language is LanguageId => isLanguageId(language);

/** The graph and family rules of a language. */
export const graphRules = (id: LanguageId) => (LANGUAGES[id] as LanguageSpec).graph;
/** The graph rules of a language named by a stored string (none for an unknown one). */
export const graphRulesOf = (language: string) => (isLanguageId(language) ? graphRules(language) : undefined);
export const familyOf = (id: LanguageId): string => LANGUAGES[id].family;
/** What makes entry points in a language's files (none for an unknown language). */
export const entryRulesOf = (language: string): EntryRules | undefined => (isLanguageId(language) ? (LANGUAGES[language] as LanguageSpec).entries : undefined);
/** Whether a definition is test code written inside a source file (Rust `mod tests`, a `tests.rs`). */
export function isInlineTest(language: string, path: string, symbolPath: string | null): boolean {
  const t = isLanguageId(language) ? (LANGUAGES[language] as LanguageSpec).inlineTests : undefined;
  return !!t && (t.file.test(path) || (symbolPath !== null && t.symbolPath.test(symbolPath)));
}
/** Whether graph resolution lets definitions of `a` and `b` see each other. */
export const sameFamily = (a: LanguageId, b: LanguageId): boolean => a === b || LANGUAGES[a].family === LANGUAGES[b].family;

// Test files: a folder named like tests anywhere in the path, or a base name of some language's test naming.
const TEST_DIR = /(^|\/)(tests?|__tests__|spec|specs|testing)\//;
const TEST_NAMINGS: TestNaming[] = [...new Set(LANGUAGE_IDS.map(id => (LANGUAGES[id] as LanguageSpec).tests).filter((t): t is TestNaming => !!t))];
const TEST_FILE = new RegExp(TEST_NAMINGS.map(t => t.file.source).join('|'));

/** Test files by the conventions of the common ecosystems (also what the benchmarks count as tests). */
export function isTestPath(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return TEST_DIR.test(path) || TEST_FILE.test(base);
}

/** The source file a test file is named after (test_foo.py → foo.py, foo_test.go → foo.go, …), as base names. */
export function testedBaseNames(path: string): string[] {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return TEST_NAMINGS.flatMap(t => t.tested(base));
}

const languageOfBase = pathLookup(LANGUAGE_IDS.map(id => [id, LANGUAGES[id] as LanguageSpec] as const));

/** The language of a path, by exact file name first, then by extension; undefined when unsupported. */
export const languageForPath = (relPath: string): LanguageId | undefined => languageOfBase(baseNameOf(relPath));

/** How a language's line comments start (`//` when the language is unknown). */
export function lineCommentOf(language: string | undefined): NonNullable<LanguageSpec['lineComment']> {
  return (language && isLanguageId(language) ? (LANGUAGES[language] as LanguageSpec).lineComment : undefined) ?? 'slash';
}

export function isLanguageId(value: string): value is LanguageId {
  return (LANGUAGE_IDS as readonly string[]).includes(value);
}
