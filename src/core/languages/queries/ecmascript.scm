; Sightline tags query — definitions, calls, imports and identifiers shared by JavaScript, TypeScript
; and TSX (their grammars name these nodes alike). Loaded after each language's own query (see ../index.ts).

; ---------------------------------------------------------------- definitions

(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

; const f = () => {} / const f = function () {} (the variable_declarator is the definition)
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; const f = asyncHandler(async (req, res) => {}) / memo(function Card() {}) / useCallback(() => {}, []):
; a function wrapped in a call is still the function the name defines
(variable_declarator
  name: (identifier) @name
  value: (call_expression
    arguments: (arguments . [(arrow_function) (function_expression)]))) @definition.function

; const K = class {}
(variable_declarator
  name: (identifier) @name
  value: (class)) @definition.class

(method_definition
  name: (_) @name) @definition.method

; top-level UPPER_CASE constants with a non-function value (TypeScript adds its own expressions)
(program
  [
    (lexical_declaration
      kind: "const"
      (variable_declarator
        name: (identifier) @name
        value: [
          (number) (string) (template_string) (true) (false) (null) (undefined) (regex)
          (object) (array) (identifier) (member_expression) (subscript_expression)
          (call_expression) (new_expression) (binary_expression) (unary_expression)
          (ternary_expression) (parenthesized_expression) (await_expression)
        ]) @definition.constant)
    (export_statement
      declaration: (lexical_declaration
        kind: "const"
        (variable_declarator
          name: (identifier) @name
          value: [
            (number) (string) (template_string) (true) (false) (null) (undefined) (regex)
            (object) (array) (identifier) (member_expression) (subscript_expression)
            (call_expression) (new_expression) (binary_expression) (unary_expression)
            (ternary_expression) (parenthesized_expression) (await_expression)
          ]) @definition.constant))
  ]
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

; ---------------------------------------------------------------- calls

(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (member_expression
    object: (_) @receiver
    property: [(property_identifier) (private_property_identifier)] @name)) @reference.call

(new_expression
  constructor: (identifier) @name) @reference.call

(new_expression
  constructor: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.call

; ---------------------------------------------------------------- imports

; import { A as B } from './m'  (one match per specifier)
(import_statement
  (import_clause
    (named_imports
      (import_specifier
        name: (_) @import.name
        alias: (_)? @import.alias) @reference.import))
  source: (string) @import.source)

; import D from './m'   (name "default" via #set!)
(import_statement
  (import_clause
    (identifier) @import.alias)
  source: (string) @import.source
  (#set! import.name "default")) @reference.import

; import * as ns from './m'
(import_statement
  (import_clause
    (namespace_import (identifier) @import.alias))
  source: (string) @import.source) @reference.import

; import './side-effect'
(import_statement
  .
  source: (string) @import.source) @reference.import

; export { X as Y } from './m'
(export_statement
  (export_clause
    (export_specifier
      name: (_) @import.name
      alias: (_)? @import.alias) @reference.import)
  source: (string) @import.source)

; export { X as Y } (a local re-export, no source): recorded as an import without source
(export_statement
  (export_clause
    (export_specifier
      name: (_) @import.name
      alias: (_)? @import.alias) @reference.import)
  !source)

; export * as ns from './m'
(export_statement
  (namespace_export (_) @import.alias)
  source: (string) @import.source) @reference.import

; export * from './m'
(export_statement
  .
  source: (string) @import.source) @reference.import

; require('./m') / import('./m')
(call_expression
  function: (identifier) @_require
  arguments: (arguments . (string) @import.source)
  (#eq? @_require "require")) @reference.import

(call_expression
  function: (import)
  arguments: (arguments . (string) @import.source)) @reference.import

; ---------------------------------------------------------------- identifiers

(identifier) @reference.identifier
(property_identifier) @reference.identifier
(shorthand_property_identifier) @reference.identifier

; a generator function: its body runs where the generator is iterated, not where it is called
(yield_expression) @reference.yields

; code that runs only on an error: a catch clause, a throw statement (graph/tests.ts: likely tests)
(catch_clause) @reference.error_path
(throw_statement) @reference.error_path
; a block that ends by throwing: all of it runs only on the way to an error
(statement_block (throw_statement) .) @reference.error_path

; code that runs only while a value is unset: `x ??= make()`, `x ||= make()` (memoised; graph/tests.ts: a test
; is likely to run a call there when it names the callee)
(augmented_assignment_expression operator: ["||=" "??="] right: (_) @reference.memo)
; a fallback on lines of its own (`return cached(x) ||\n  build(x)`): it runs only when what comes before gives nothing
(binary_expression operator: ["||" "??"] right: (_) @reference.memo)
