; Sightline tags query — Scala (tree-sitter-scala; after its queries/tags.scm).
; Capture convention: see ../types.ts.

; ---------------------------------------------------------------- definitions

(trait_definition
  name: (identifier) @name) @definition.trait

(class_definition
  name: (identifier) @name) @definition.class

(object_definition
  name: (identifier) @name) @definition.module

(enum_definition
  name: (identifier) @name) @definition.enum

(function_definition
  name: (identifier) @name) @definition.function

(function_declaration
  name: (identifier) @name) @definition.function

(type_definition
  name: (type_identifier) @name) @definition.type

; val MaxJobs = 8 (a constant by Scala's naming: upper camel or upper case)
(val_definition
  pattern: (identifier) @name
  (#match? @name "^[A-Z]")) @definition.constant

; ---------------------------------------------------------------- calls

(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (field_expression
    value: (_) @receiver
    field: (identifier) @name)) @reference.call

; new Worker("w")
(instance_expression
  [(type_identifier) @name
   (generic_type (type_identifier) @name)]) @reference.call

; ---------------------------------------------------------------- imports

; import a.b.C (the last identifier is the name; the path is several nodes, so no import.source)
(import_declaration
  (identifier) @import.name .) @reference.import

; import a.b.{C => D}
(import_declaration
  (namespace_selectors
    (arrow_renamed_identifier
      name: (identifier) @import.name
      alias: (identifier) @import.alias))) @reference.import

; ---------------------------------------------------------------- inheritance

(extends_clause
  type: [(type_identifier) @name (generic_type (type_identifier) @name)]) @reference.extends
