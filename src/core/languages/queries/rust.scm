; Sightline tags query — Rust (tree-sitter-rust).
; Capture convention: see ../types.ts.
; An impl block is a @definition.class named after the implementing type, so its
; functions nest as Type.method; `impl Trait for Type` also yields
; @reference.implements on the trait name.

; ---------------------------------------------------------------- definitions

(function_item
  name: (identifier) @name) @definition.function

(function_signature_item
  name: (identifier) @name) @definition.function

(macro_definition
  name: (identifier) @name) @definition.function

(struct_item
  name: (type_identifier) @name) @definition.struct

(union_item
  name: (type_identifier) @name) @definition.struct

(enum_item
  name: (type_identifier) @name) @definition.enum

(trait_item
  name: (type_identifier) @name) @definition.trait

(impl_item
  type: [
    (type_identifier) @name
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
  ]) @definition.class

(mod_item
  name: (identifier) @name) @definition.module

(type_item
  name: (type_identifier) @name) @definition.type

(const_item
  name: (identifier) @name) @definition.constant

(static_item
  name: (identifier) @name) @definition.constant

; ---------------------------------------------------------------- calls

(call_expression
  function: (identifier) @name) @reference.call

; Foo::new(), module::func()
(call_expression
  function: (scoped_identifier
    path: (_) @receiver
    name: (identifier) @name)) @reference.call

; obj.method()
(call_expression
  function: (field_expression
    value: (_) @receiver
    field: (field_identifier) @name)) @reference.call

; turbofish: f::<T>(), obj.m::<T>(), a::f::<T>()
(call_expression
  function: (generic_function
    function: (identifier) @name)) @reference.call

(call_expression
  function: (generic_function
    function: (scoped_identifier
      path: (_) @receiver
      name: (identifier) @name))) @reference.call

(call_expression
  function: (generic_function
    function: (field_expression
      value: (_) @receiver
      field: (field_identifier) @name))) @reference.call

; macro invocations count as calls: println!(), log_job!()
(macro_invocation
  macro: (identifier) @name) @reference.call

(macro_invocation
  macro: (scoped_identifier
    path: (_) @receiver
    name: (identifier) @name)) @reference.call

; ---------------------------------------------------------------- imports

; use foo;
(use_declaration
  argument: (identifier) @import.source @import.name) @reference.import

; use a::b::C;
(use_declaration
  argument: (scoped_identifier
    name: (identifier) @import.name) @import.source) @reference.import

; use a::b::C as D;
(use_declaration
  argument: (use_as_clause
    path: (scoped_identifier
      name: (identifier) @import.name) @import.source
    alias: (identifier) @import.alias)) @reference.import

; use a as b;
(use_declaration
  argument: (use_as_clause
    path: (identifier) @import.source @import.name
    alias: (identifier) @import.alias)) @reference.import

; use a::b::*;
(use_declaration
  argument: (use_wildcard
    (_) @import.source)
  (#set! import.name "*")) @reference.import

; use a::b::{C, d::E, F as G, self, h::*};  (one match per list item; source = the common path)
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.source
    list: (use_list
      [
        (identifier) @import.name
        (self) @import.name
        (scoped_identifier name: (identifier) @import.name)
        (use_as_clause path: (_) @import.name alias: (identifier) @import.alias)
      ]))) @reference.import

; extern crate serde as sd;
(extern_crate_declaration
  name: (identifier) @import.source
  alias: (identifier)? @import.alias) @reference.import

; ---------------------------------------------------------------- inheritance

; impl Trait for Type  → Type implements Trait
(impl_item
  trait: [
    (type_identifier) @name @reference.implements
    (scoped_type_identifier name: (type_identifier) @name @reference.implements)
    (generic_type type: (type_identifier) @name @reference.implements)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name @reference.implements))
  ])

; trait A: B + C  → supertraits
(trait_item
  bounds: (trait_bounds
    [
      (type_identifier) @name @reference.extends
      (scoped_type_identifier name: (type_identifier) @name @reference.extends)
      (generic_type type: (type_identifier) @name @reference.extends)
      (generic_type type: (scoped_type_identifier name: (type_identifier) @name @reference.extends))
    ]))

; ---------------------------------------------------------------- identifiers

(identifier) @reference.identifier
(type_identifier) @reference.identifier
(field_identifier) @reference.identifier
