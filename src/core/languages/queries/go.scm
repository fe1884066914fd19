; Sightline tags query — Go (tree-sitter-go).
; Capture convention: see ../types.ts.
; Methods carry @receiver_type (the receiver's type name, pointer and type
; arguments stripped) so the extractor can build ReceiverType.Method paths.

; ---------------------------------------------------------------- definitions

(function_declaration
  name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @receiver_type
        (pointer_type (type_identifier) @receiver_type)
        (generic_type type: (type_identifier) @receiver_type)
        (pointer_type (generic_type type: (type_identifier) @receiver_type))
      ]))
  name: (field_identifier) @name) @definition.method

; nested := func() {...} / var f = func() {...}
(short_var_declaration
  left: (expression_list . (identifier) @name .)
  right: (expression_list . (func_literal) .)) @definition.function

(var_spec
  . name: (identifier) @name .
  value: (expression_list . (func_literal) .)) @definition.function

(type_spec
  name: (type_identifier) @name
  type: (struct_type)) @definition.struct

(type_spec
  name: (type_identifier) @name
  type: (interface_type)) @definition.interface

(type_spec
  name: (type_identifier) @name
  type: [
    (type_identifier) (qualified_type) (generic_type) (pointer_type) (slice_type)
    (array_type) (map_type) (channel_type) (function_type) (parenthesized_type)
  ]) @definition.type

(type_alias
  name: (type_identifier) @name) @definition.type

; interface method signatures
(method_elem
  name: (field_identifier) @name) @definition.method

; const X = ... (first name of the spec)
(const_spec
  . name: (identifier) @name) @definition.constant

; ---------------------------------------------------------------- calls

(call_expression
  function: (identifier) @name) @reference.call

; pkg.Func() / obj.Method()
(call_expression
  function: (selector_expression
    operand: (_) @receiver
    field: (field_identifier) @name)) @reference.call

; ---------------------------------------------------------------- imports

(import_spec
  name: (_)? @import.alias
  path: (interpreted_string_literal) @import.source) @reference.import

; ---------------------------------------------------------------- inheritance (embedding)

; struct { Base; *Base; pkg.Base }
(field_declaration_list
  (field_declaration
    !name
    type: [
      (type_identifier) @name @reference.extends
      (qualified_type name: (type_identifier) @name @reference.extends)
      (generic_type type: (type_identifier) @name @reference.extends)
      (pointer_type (type_identifier) @name @reference.extends)
      (pointer_type (qualified_type name: (type_identifier) @name @reference.extends))
    ]))

; interface { fmt.Stringer; Base }
(interface_type
  (type_elem
    .
    [
      (type_identifier) @name @reference.extends
      (qualified_type name: (type_identifier) @name @reference.extends)
    ]
    .))

; ---------------------------------------------------------------- identifiers

(identifier) @reference.identifier
(type_identifier) @reference.identifier
(field_identifier) @reference.identifier
(package_identifier) @reference.identifier
