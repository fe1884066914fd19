; Sightline tags query — PHP (tree-sitter-php).
; Capture convention: see ../types.ts.
; `namespace X;` (without braces) does not contain the following declarations in
; this grammar, so they do not nest under the namespace; `namespace X { ... }` does.
; For group uses (`use A\B\{C, D as E};`) the source is the common prefix `A\B`.

; ---------------------------------------------------------------- definitions

(function_definition
  name: (name) @name) @definition.function

(class_declaration
  name: (name) @name) @definition.class

(interface_declaration
  name: (name) @name) @definition.interface

(trait_declaration
  name: (name) @name) @definition.trait

(enum_declaration
  name: (name) @name) @definition.enum

(method_declaration
  name: (name) @name) @definition.method

(namespace_definition
  name: (namespace_name) @name) @definition.module

; const X = 1; / class constants
(const_declaration
  (const_element
    .
    (name) @name) @definition.constant)

; ---------------------------------------------------------------- calls

; run(), \Foo\bar()
(function_call_expression
  function: [
    (name) @name
    (qualified_name (name) @name .)
  ]) @reference.call

; $this->run(), $obj?->run()
(member_call_expression
  object: (_) @receiver
  name: (name) @name) @reference.call

(nullsafe_member_call_expression
  object: (_) @receiver
  name: (name) @name) @reference.call

; Foo::bar(), self::bar(), parent::bar()
(scoped_call_expression
  scope: (_) @receiver
  name: (name) @name) @reference.call

; new Foo(), new \A\Foo()
(object_creation_expression
  [
    (name) @name
    (qualified_name (name) @name .)
  ]) @reference.call

; ---------------------------------------------------------------- imports

; use A\B\C;  use A\B\C as D;  use function A\f;
(namespace_use_declaration
  (namespace_use_clause
    [
      (qualified_name (name) @import.name .) @import.source
      (name) @import.source @import.name
    ]
    !alias) @reference.import)

(namespace_use_declaration
  (namespace_use_clause
    [
      (qualified_name (name) @import.name .) @import.source
      (name) @import.source @import.name
    ]
    alias: (name) @import.alias) @reference.import)

; use A\B\{C, D as E};
(namespace_use_declaration
  (namespace_name) @import.source
  body: (namespace_use_group
    (namespace_use_clause
      [
        (qualified_name (name) @import.name .)
        (name) @import.name
      ]
      !alias) @reference.import))

(namespace_use_declaration
  (namespace_name) @import.source
  body: (namespace_use_group
    (namespace_use_clause
      [
        (qualified_name (name) @import.name .)
        (name) @import.name
      ]
      alias: (name) @import.alias) @reference.import))

; require / include (string argument, also `__DIR__ . '/x.php'`)
(require_expression
  [
    (string (string_content) @import.source)
    (encapsed_string . (string_content) @import.source)
    (parenthesized_expression
      [(string (string_content) @import.source) (encapsed_string . (string_content) @import.source)])
    (binary_expression
      right: [(string (string_content) @import.source) (encapsed_string . (string_content) @import.source)])
  ]) @reference.import

(require_once_expression
  [
    (string (string_content) @import.source)
    (encapsed_string . (string_content) @import.source)
    (parenthesized_expression
      [(string (string_content) @import.source) (encapsed_string . (string_content) @import.source)])
    (binary_expression
      right: [(string (string_content) @import.source) (encapsed_string . (string_content) @import.source)])
  ]) @reference.import

(include_expression
  [
    (string (string_content) @import.source)
    (encapsed_string . (string_content) @import.source)
    (parenthesized_expression
      [(string (string_content) @import.source) (encapsed_string . (string_content) @import.source)])
    (binary_expression
      right: [(string (string_content) @import.source) (encapsed_string . (string_content) @import.source)])
  ]) @reference.import

(include_once_expression
  [
    (string (string_content) @import.source)
    (encapsed_string . (string_content) @import.source)
    (parenthesized_expression
      [(string (string_content) @import.source) (encapsed_string . (string_content) @import.source)])
    (binary_expression
      right: [(string (string_content) @import.source) (encapsed_string . (string_content) @import.source)])
  ]) @reference.import

; ---------------------------------------------------------------- inheritance

(base_clause
  [
    (name) @name @reference.extends
    (qualified_name (name) @name @reference.extends .)
  ])

(class_interface_clause
  [
    (name) @name @reference.implements
    (qualified_name (name) @name @reference.implements .)
  ])

; trait use inside a class body: use Logs;
(use_declaration
  [
    (name) @name @reference.implements
    (qualified_name (name) @name @reference.implements .)
  ])

; ---------------------------------------------------------------- identifiers

(name) @reference.identifier
