/**
 * A language is data: a grammar `.wasm`, the file extensions it owns, and a tags query.
 *
 * Capture convention of every `queries/<id>.scm` (tree-sitter tags style):
 *   @definition.<kind>   the whole definition node; kind ∈ DefinitionKind
 *   @name                the defined / referenced name inside the same match
 *   @reference.call      a call expression; @name = the called name (last segment);
 *                        optional @receiver = the receiver expression (`self`, `new Worker()`, `a.b`)
 *   @reference.import    an import statement/specifier; @import.source = module specifier,
 *                        optional @import.name = imported name, optional @import.alias = local binding
 *   @reference.extends / @reference.implements   the base type name node (the enclosing class is found by position)
 *   @reference.identifier   any other identifier use (deduplicated per scope by the extractor)
 *   @reference.assign    a name bound by an assignment, `with … as`, or a typed parameter: @assign.target the
 *                        name (`x`, `self.x`), @assign.value the callee of a called value, @assign.type a declared type,
 *                        @assign.copy a name whose value is copied (`x = y`, `x = a or b`)
 *   @reference.subscript / @reference.protocol   syntax that runs a member of @receiver: a subscript, or (@name)
 *                        a built-in such as `str(x)` (language table subscriptMembers, protocolCalls)
 *   @reference.returns   a return annotation's type node; @name its class name
 *   @member.object / @member.name   a member read (`result.output`): the identifier @member.name keeps the
 *                        object's text as its receiver (a called member is claimed by its call)
 */
/** Source repairs for known grammar gaps, tried only on trees with errors (see parse/repair.ts). */
export type RepairId = 'typeMemberSeparators' | 'constructorOnNextLine';

export const DEFINITION_KINDS = [
  'function', 'method', 'class', 'interface', 'struct', 'enum', 'trait', 'type', 'module', 'constant',
] as const;
export type DefinitionKind = (typeof DEFINITION_KINDS)[number];

/** Definition kinds that may contain methods (a function inside one is a method) and whose members calls can name. */
export const CONTAINER_KINDS: ReadonlySet<DefinitionKind> = new Set<DefinitionKind>(['class', 'interface', 'struct', 'enum', 'trait', 'type', 'module']);

export const LANGUAGE_IDS = [
  'typescript', 'tsx', 'javascript', 'python', 'java', 'rust', 'go', 'c', 'cpp', 'csharp', 'ruby', 'php',
  'kotlin', 'scala', 'bash', 'lua', 'swift', 'dart', 'elixir', 'vue', 'svelte', 'zig',
] as const;
export type LanguageId = (typeof LANGUAGE_IDS)[number];

export interface LanguageSpec {
  /** Grammar file name inside the bundled `grammars/` folder. */
  readonly wasm: string;
  /** File extensions (lower case, with the dot) this language owns. */
  readonly extensions: readonly string[];
  /** Exact file names this language owns (e.g. `Rakefile`). */
  readonly fileNames?: readonly string[];
  /** Tags query file(s) inside `queries/`, concatenated in order (TSX = the TypeScript query + JSX). */
  readonly query: string | readonly string[];
  /**
   * A line that starts a keyword declaration (`class Foo`, `def run`, …); the first capture group that
   * matched is its name. Only used on files with syntax errors, to report the declarations inside error
   * regions that were not extracted (see `lostDeclarations` in parse/extract.ts).
   */
  readonly declarationLine: RegExp;
  /** Source repairs tried when the tree has errors (see parse/repair.ts). */
  readonly repairs?: readonly RepairId[];
  /**
   * The node type of a body the grammar puts beside its signature, not inside it (Dart: a method is a
   * `method_signature` followed by a `function_body`): a definition spans both.
   */
  readonly detachedBody?: string;
  /**
   * The code is in `<script>` blocks of a component file (Vue, Svelte): everything outside them is blanked
   * before parsing (same length, every line kept), so positions are the file's own; the template stays
   * searchable as the file's top-level text.
   */
  readonly scriptBlocks?: boolean;
  /** Line comments start with `#` (Python, Ruby, shell), `//` (the default: C-like), either (PHP), or `--` (Lua). */
  readonly lineComment?: 'hash' | 'slash' | 'both' | 'dash';
  /**
   * Languages of one family see each other's definitions in graph resolution (TypeScript, TSX and
   * JavaScript: `js`; C and C++: `c`); a language alone in its family names itself.
   */
  readonly family: string;
  /** How graph resolution reads this language's imports and receivers (graph/resolve.ts). */
  readonly graph: GraphRules;
  /** How this language's test files are named, and the source file a test file is named after. */
  readonly tests?: TestNaming;
  /**
   * Tests written inside source files (Rust `mod tests`): definitions whose symbol path matches are test
   * code, and so is every definition of a file the name of which matches.
   */
  readonly inlineTests?: { readonly symbolPath: RegExp; readonly file: RegExp };
  /** What makes a program's entry points in this language (overview/entries.ts, overview/scan.ts). */
  readonly entries?: EntryRules;
}

/** How routes are declared in a language's source text (each a scanner in overview/scan.ts). */
export type RouteStyle =
  | 'decorators' // Python: @app.get("/x") on the handler
  | 'annotations' // Java, C#: @GetMapping("/x") on the handler method
  | 'registrations' // JS/TS, Go, PHP: app.get("/x", handler)
  | 'axum' // Rust: .route("/x", get(h))
  | 'sinatra'; // Ruby: get "/x" do … end

export interface EntryRules {
  /** Names of a program's main function (`main`; C# `Main`). */
  readonly main?: readonly string[];
  /** A main counts only when it is declared static (Java, C#: its line, or an annotation above it, says so). */
  readonly staticMain?: boolean;
  /** A module run as a program: its file name (Python `__main__.py`) and its `if __name__ == "__main__":` block. */
  readonly mainModule?: string;
  /** The file that makes a folder a package (Python `__init__.py`): a top-level one is a package root. */
  readonly packageInit?: string;
  /** How routes are declared in source text. */
  readonly routes?: RouteStyle;
}

/** Per-language knowledge of the heuristic resolver: imports to files, receivers that mean "this object". */
export interface GraphRules {
  /** Repository paths an import specifier may refer to (most likely first); none when it is external. */
  importCandidates?(source: string, fromPath: string): string[];
  /**
   * For a bare specifier that may name a package of the same repository (a monorepo workspace): the
   * package's folder name and the paths inside that folder it may refer to, most likely first.
   */
  packageCandidates?(source: string): { folder: string; paths: string[] } | null;
  /**
   * Path endings an import may have under any source root (`/shop/orders.py`); used when no candidate
   * path exists, and binds only when exactly one file of the repository has one of them.
   */
  importSuffixes?(source: string): string[] | null;
  /** An import names a package folder by a path it ends with (Go: the module prefix is unknown): that path. */
  packageFolder?(source: string): string;
  /** The import binds a module object (`alias.name()` calls into it): the local name an import without alias binds. */
  moduleImport?(source: string): string;
  /** Receivers that mean the enclosing class instance. */
  readonly selfReceivers: readonly string[];
  /** A receiver expression that constructs an instance of a named class: `new Worker()`, `Worker()`. */
  constructed(receiver: string): string | null;
  /**
   * The member a construction runs (`__init__`, `constructor`, `initialize`): a call that constructs a
   * class is also a call of it (inherited ones included).
   */
  readonly constructorMember?: string;
  /**
   * `from pkg import mod` may import a module of the package rather than a name it defines: the
   * specifier of that module (`pkg.mod`), resolved when the package exports no such name.
   */
  submodule?(source: string, name: string): string;
  /**
   * A later definition of a name in the same scope replaces the earlier ones (Python and Ruby at run
   * time: `@overload` stubs before an implementation, redefinitions): calls bind to the last one.
   * TypeScript overload signatures keep the first (the language service names it).
   */
  readonly lastDefinitionWins?: boolean;
  /**
   * Fixtures injected by parameter name (pytest): functions decorated with `decorator` in the test's
   * file or in one of `files` (conftest.py) of its folder or a folder above (graph/fixtures.ts). The names
   * in a `parametrize` decorator's arguments are handed to the test it decorates (graph/resolve.ts).
   */
  readonly fixtures?: { readonly decorator: string; readonly files: readonly string[]; readonly parametrize?: string };
  /**
   * Classes and modules reopen: `module Rake` in thirty files is one module (Ruby). Definitions of a
   * class with one qualified name count once when a name is looked up across the repository.
   */
  readonly openClasses?: boolean;
  /** A capitalised name is a constant visible everywhere (Ruby `Rake::EarlyTime`): one class by that name is it. */
  readonly globalConstants?: boolean;
  /** An import without names (`import x from 'x'` read as source = name, no alias) may bind every export (JS). */
  readonly bareImportIsStar?: boolean;
  /** A package is a folder: a new file may be imported by its folder's name (Go). */
  readonly folderIsModule?: boolean;
  /**
   * Interfaces are satisfied by method sets (Go): a type whose methods include every method of an
   * interface of its repository implements it without naming it (graph/dispatch.ts, at query time).
   */
  readonly structuralInterfaces?: boolean;
  /** A method may implement a trait without the class declaring a base (Rust `impl Trait for X`). */
  readonly traitMethods?: boolean;
  /**
   * A class body's names are not in scope inside its methods (Python): a bare `command` in a method (or a
   * closure inside it) is an import or a module's name, never the sibling method `command`.
   */
  readonly classScopeHidden?: boolean;
  /** A bare name can be a call of a method of the enclosing class (Ruby: `return empty if args.empty?`). */
  readonly bareCalls?: boolean;
  /**
   * In a class body the receiver of a bare call is the class itself (Ruby): `include Cloneable` there runs
   * `Module#include`, never the class's own instance method `include`.
   */
  readonly classBodyIsClass?: boolean;
  /**
   * Base classes outside the workspace whose own code calls no member a subclass defines (typing markers,
   * builtin containers): a method of a subclass is not called implicitly by them (graph/unseen.ts).
   */
  readonly inertBases?: RegExp;
  /**
   * Decorators by what they make of a function (graph/unseen.ts): `property` ones run it on an attribute
   * read; `inert` ones leave it called by its name as before (`staticmethod`, `overload`); any other hands it
   * to the decorator, which may call or register it (`@app.route`, `@stack.callback`, `@click.command()`).
   */
  readonly decorators?: { readonly property: RegExp; readonly inert: RegExp };
  /**
   * How a callable type's declared text starts (a `type` definition's annotation: `Callable[[Scope, Receive,
   * Send], …]`; the bracketed list that follows names the parameter types): functions taking those types
   * implement it (graph/protocol.ts).
   */
  readonly callableType?: RegExp;
  /** Members the language's syntax runs without naming them (`__getitem__`, `__iter__`, Ruby's `[]`, `each`). */
  readonly implicitMembers?: RegExp;
  /**
   * The members a subscript runs (`x[k]`: `__getitem__`, Ruby `[]`; `x[k] = v`: the setter). Bound only
   * when the receiver's type is known: most subscripts index built-in lists and maps.
   */
  readonly subscriptMembers?: { readonly get: string; readonly set: string; readonly del?: string };
  /**
   * What an attribute assignment calls (`x.chain = v` runs Ruby's `chain=`): the member is the name with
   * this suffix.
   */
  readonly setterSuffix?: string;
  /**
   * Built-in functions and statements that run a member of their operand (`str(x)`: `__str__`,
   * `for … in x`: `__iter__`), by the name the query captures; bound like subscripts. Several members,
   * separated by spaces, are each run (`list(x)`: `__iter__ __len__`).
   */
  readonly protocolCalls?: Readonly<Record<string, string>>;
  /** The member a protocol runs when the class has none of the first (Python truth: `__len__` without `__bool__`). */
  readonly protocolFallbacks?: Readonly<Record<string, string>>;
  /**
   * Whether a member run by syntax also binds to the one class with it that the receiver's name or the
   * calling scope names (Ruby `task | other` → Task#|: receiver names 0.80 precise in bench:stake); off where
   * containers are named like the classes (Python `headers["x"]` on a dict: 0.08).
   */
  readonly syntaxByReceiverName?: boolean;
  /** The member calling an instance runs (`__call__`): `handler(x)` on a value of a class with it. */
  readonly callMember?: string;
  /**
   * Whether the query records values handed to calls and functions' parameters (`argument`, `params`):
   * a function handed over as a value is followed to the code that calls it (graph/callbacks.ts).
   */
  readonly callbacks?: boolean;
  /**
   * Members a class has at run time without defining them in its source: a method every missing member
   * goes to (Python `__getattr__`, Ruby `method_missing`), and calls in its body that define methods
   * (Ruby `define_method`). A call on a value of such a class that names no defined member binds to that
   * method, or to the class (whose body defines it); `universal` members every object has are not missing.
   */
  readonly dynamicMembers?: { readonly fallback: string; readonly definers?: readonly string[]; readonly universal?: ReadonlySet<string> };
  /**
   * Mixins from outside the repository, by the base name a class gives (Ruby `include Enumerable`, Python
   * `Mapping`): each method the mixin gives, and the class's own members that method runs (space-separated:
   * Enumerable's `map` runs `each`, Mapping's `get` runs `__getitem__`).
   */
  readonly outsideMixins?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Class methods a mixin from outside gives that return an instance of the class (Ruby `Singleton`: `instance`). */
  readonly outsideFactories?: Readonly<Record<string, readonly string[]>>;
  /** Members a `with` statement runs on the object it enters (`__enter__`, `__exit__`). */
  readonly contextMembers?: readonly string[];
  /** A class method that constructs an instance (`Worker.new`, Ruby): a call of it constructs the receiver. */
  readonly newMethod?: string;
}

/** Test files of a language: which base names are tests, and the base names of the files they are named after. */
export interface TestNaming {
  /** matches the base name of a test file */
  readonly file: RegExp;
  /** test_foo.py → foo.py, foo_test.go → foo.go, … */
  tested(base: string): string[];
}
