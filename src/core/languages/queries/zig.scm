; Sightline tags query — Zig (tree-sitter-grammars/tree-sitter-zig).
; Capture convention: see ../types.ts.

; ---------------------------------------------------------------- definitions

; const Worker = struct { … } (enum, union and opaque types alike)
(variable_declaration
  (identifier) @name
  (struct_declaration)) @definition.struct

(variable_declaration
  (identifier) @name
  (enum_declaration)) @definition.enum

(variable_declaration
  (identifier) @name
  (union_declaration)) @definition.type

(function_declaration
  name: (identifier) @name) @definition.function

; pub const max_jobs: u32 = 8 (a literal value)
(variable_declaration
  (identifier) @name
  [(integer) (float) (string)]) @definition.constant

; ---------------------------------------------------------------- calls

(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (field_expression
    object: (_) @receiver
    member: (identifier) @name)) @reference.call

; ---------------------------------------------------------------- imports

; const base = @import("base.zig");
(variable_declaration
  (identifier) @import.alias
  (builtin_function
    (builtin_identifier) @_import
    (arguments (string (string_content) @import.source)))
  (#eq? @_import "@import")) @reference.import
