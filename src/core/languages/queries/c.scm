; Sightline tags query — C (tree-sitter-c).
; Capture convention: see ../types.ts.
; `typedef struct {...} Name;` is one @definition.struct (node = the struct
; specifier, @name = the typedef name). For `typedef struct tag {...} Name;` the
; struct is `tag` and `Name` is a @definition.type whose node is just the typedef
; name (so it does not swallow the struct).
; Listed with c-family.scm (the patterns C and C++ share), which comes after this file.

; ---------------------------------------------------------------- definitions

(function_definition
  declarator: (function_declarator
    declarator: (identifier) @name)) @definition.function

(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: (identifier) @name))) @definition.function

(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator
        declarator: (identifier) @name)))) @definition.function

; prototypes (headers)
(declaration
  declarator: (function_declarator
    declarator: (identifier) @name)) @definition.function

(declaration
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: (identifier) @name))) @definition.function

(struct_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.struct

(type_definition
  type: (union_specifier
    !name
    body: (field_declaration_list)) @definition.struct
  .
  declarator: (type_identifier) @name)

; typedefs of tagged and plain types, macros, constants, calls, includes and identifiers: c-family.scm
