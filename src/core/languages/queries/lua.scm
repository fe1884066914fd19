; Sightline tags query — Lua (tree-sitter-grammars/tree-sitter-lua; after its queries/tags.scm).
; Capture convention: see ../types.ts.

; ---------------------------------------------------------------- definitions

; function helper() / local function helper()
(function_declaration
  name: (identifier) @name) @definition.function

; function Worker.new() — the table names the owner
(function_declaration
  name: (dot_index_expression
    table: (identifier) @receiver_type
    field: (identifier) @name)) @definition.function

; function Worker:run() — a method of the table
(function_declaration
  name: (method_index_expression
    table: (identifier) @receiver_type
    method: (identifier) @name)) @definition.method

; local MAX_RETRIES = 3
(variable_declaration
  (assignment_statement
    (variable_list . name: (identifier) @name)
    (expression_list . value: [(number) (string)]))
  (#match? @name "^[A-Z][A-Z0-9_]*$")) @definition.constant

; ---------------------------------------------------------------- calls

(function_call
  name: (identifier) @name
  (#not-eq? @name "require")) @reference.call

(function_call
  name: (dot_index_expression
    table: (_) @receiver
    field: (identifier) @name)) @reference.call

(function_call
  name: (method_index_expression
    table: (_) @receiver
    method: (identifier) @name)) @reference.call

; ---------------------------------------------------------------- imports

; local json = require("cjson")  /  local util = require "app.util"
(variable_declaration
  (assignment_statement
    (variable_list . name: (identifier) @import.alias)
    (expression_list
      . value: (function_call
        name: (identifier) @_require
        arguments: (arguments (string content: (string_content) @import.source)))))
  (#eq? @_require "require")) @reference.import
