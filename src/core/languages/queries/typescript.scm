; Sightline tags query — TypeScript (tree-sitter-typescript).
; Capture convention: see ../types.ts. Captures starting with `_` only feed predicates.

; ---------------------------------------------------------------- definitions

(function_signature
  name: (identifier) @name) @definition.function

(class_declaration
  name: (type_identifier) @name) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name) @definition.class

(abstract_method_signature
  name: (_) @name) @definition.method

(method_signature
  name: (_) @name) @definition.method

; class fields holding functions: handler = () => {}
(public_field_definition
  name: (_) @name
  value: [(arrow_function) (function_expression)]) @definition.method

(interface_declaration
  name: (type_identifier) @name) @definition.interface

(type_alias_declaration
  name: (type_identifier) @name) @definition.type

(enum_declaration
  name: (identifier) @name) @definition.enum

(internal_module
  name: [(identifier) (nested_identifier)] @name) @definition.module

(module
  name: [(identifier) (nested_identifier)] @name) @definition.module

(module
  name: (string (string_fragment) @name)) @definition.module

; top-level UPPER_CASE constants whose value is a TypeScript expression (the others: ecmascript.scm)
(program
  [
    (lexical_declaration
      kind: "const"
      (variable_declarator
        name: (identifier) @name
        value: [(as_expression) (satisfies_expression) (non_null_expression)]) @definition.constant)
    (export_statement
      declaration: (lexical_declaration
        kind: "const"
        (variable_declarator
          name: (identifier) @name
          value: [(as_expression) (satisfies_expression) (non_null_expression)]) @definition.constant))
  ]
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

; ---------------------------------------------------------------- imports (TypeScript only; the rest: ecmascript.scm)

; import x = require('./m')
(import_statement
  (import_require_clause
    (identifier) @import.alias
    source: (string) @import.source)) @reference.import

; ---------------------------------------------------------------- inheritance

(extends_clause
  value: (identifier) @name @reference.extends)

(extends_clause
  value: (member_expression
    property: (property_identifier) @name @reference.extends))

(implements_clause
  [
    (type_identifier) @name @reference.implements
    (generic_type name: (type_identifier) @name @reference.implements)
    (nested_type_identifier name: (type_identifier) @name @reference.implements)
    (generic_type name: (nested_type_identifier name: (type_identifier) @name @reference.implements))
  ])

(extends_type_clause
  type: [
    (type_identifier) @name @reference.extends
    (generic_type name: (type_identifier) @name @reference.extends)
    (nested_type_identifier name: (type_identifier) @name @reference.extends)
    (generic_type name: (nested_type_identifier name: (type_identifier) @name @reference.extends))
  ])

; ---------------------------------------------------------------- identifiers (the others: ecmascript.scm)

(type_identifier) @reference.identifier
