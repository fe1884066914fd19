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
 */
/** Source repairs for known grammar gaps, tried only on trees with errors (see parse/repair.ts). */
export type RepairId = 'typeMemberSeparators';

export const DEFINITION_KINDS = [
  'function', 'method', 'class', 'interface', 'struct', 'enum', 'trait', 'type', 'module', 'constant',
] as const;
export type DefinitionKind = (typeof DEFINITION_KINDS)[number];

export const LANGUAGE_IDS = [
  'typescript', 'tsx', 'javascript', 'python', 'java', 'rust', 'go', 'c', 'cpp', 'csharp', 'ruby', 'php',
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
  /** Separator used when the language's own qualified names are shown (informational). */
  readonly separator: string;
  /** Definition kinds that may contain methods (a function inside one of these is a method). */
  readonly containerKinds: readonly DefinitionKind[];
  /**
   * A line that starts a keyword declaration (`class Foo`, `def run`, …); the first capture group that
   * matched is its name. Only used on files with syntax errors, to report the declarations inside error
   * regions that were not extracted (see `lostDeclarations` in parse/extract.ts).
   */
  readonly declarationLine: RegExp;
  /** Source repairs tried when the tree has errors (see parse/repair.ts). */
  readonly repairs?: readonly RepairId[];
}
