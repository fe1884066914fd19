; Sightline tags query — what C and C++ share (tree-sitter-c, tree-sitter-cpp); listed after
; c.scm and cpp.scm in the language table. Capture convention: see ../types.ts.
; #include <x.h> sources keep their <>.

; ---------------------------------------------------------------- definitions

(union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.struct

(enum_specifier
  name: (type_identifier) @name
  body: (enumerator_list)) @definition.enum

; typedef struct { ... } name;
(type_definition
  type: (struct_specifier
    !name
    body: (field_declaration_list)) @definition.struct
  .
  declarator: (type_identifier) @name)

(type_definition
  type: (enum_specifier
    !name
    body: (enumerator_list)) @definition.enum
  .
  declarator: (type_identifier) @name)

; typedef struct tag { ... } name;  → name is a type (node = the typedef name only)
(type_definition
  type: [
    (struct_specifier name: (_) body: (_))
    (union_specifier name: (_) body: (_))
    (enum_specifier name: (_) body: (_))
  ]
  .
  declarator: (type_identifier) @name @definition.type)

; other typedefs
(type_definition
  type: [
    (primitive_type) (type_identifier) (sized_type_specifier)
    (struct_specifier !body) (union_specifier !body) (enum_specifier !body)
  ]
  .
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
    (function_declarator declarator: (type_identifier) @name)
    (array_declarator declarator: (type_identifier) @name)
  ]) @definition.type

; macros
(preproc_def
  name: (identifier) @name
  value: (_)) @definition.constant

(preproc_function_def
  name: (identifier) @name) @definition.function

; file-scope `const` UPPER_CASE variables
(translation_unit
  (declaration
    (type_qualifier)
    declarator: (init_declarator
      declarator: (identifier) @name) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

(enumerator
  name: (identifier) @name) @definition.constant

; ---------------------------------------------------------------- calls

(call_expression
  function: (identifier) @name) @reference.call

; ops->run(w), ops.run(w), this->run()
(call_expression
  function: (field_expression
    argument: (_) @receiver
    field: (field_identifier) @name)) @reference.call

; ---------------------------------------------------------------- imports

(preproc_include
  path: (string_literal (string_content) @import.source)) @reference.import

(preproc_include
  path: (system_lib_string) @import.source) @reference.import

; ---------------------------------------------------------------- identifiers

(identifier) @reference.identifier
(type_identifier) @reference.identifier
(field_identifier) @reference.identifier
