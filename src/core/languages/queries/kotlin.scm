; Sightline tags query — Kotlin (tree-sitter-grammars/tree-sitter-kotlin).
; Capture convention: see ../types.ts.

; ---------------------------------------------------------------- definitions

(class_declaration "class" (identifier) @name) @definition.class

(class_declaration "interface" (identifier) @name) @definition.interface

(object_declaration (identifier) @name) @definition.class

(function_declaration (identifier) @name) @definition.function

(type_alias (identifier) @name) @definition.type

; const val and top-level or object UPPER_CASE vals
(property_declaration
  (variable_declaration (identifier) @name)
  (#match? @name "^[A-Z][A-Z0-9_]*$")) @definition.constant

; ---------------------------------------------------------------- calls

; helper(x), Worker("w")
(call_expression
  . (identifier) @name) @reference.call

; w.run(1), Worker.create(), s.repeat(n)
(call_expression
  . (navigation_expression
      (_) @receiver
      (identifier) @name .)) @reference.call

; ---------------------------------------------------------------- imports

; import a.b.C  /  import a.b.C as D
(import
  (qualified_identifier (identifier) @import.name .) @import.source
  .) @reference.import

(import
  (qualified_identifier (identifier) @import.name .) @import.source
  (identifier) @import.alias) @reference.import

; ---------------------------------------------------------------- inheritance

; class Worker : Base(), Runner — a constructor invocation is the base class, a bare type an interface
(delegation_specifier
  (constructor_invocation (user_type (identifier) @name .))) @reference.extends

(delegation_specifier
  (user_type (identifier) @name .)) @reference.implements
