; Sightline tags query — Java (tree-sitter-java).
; Capture convention: see ../types.ts.

; ---------------------------------------------------------------- definitions

(class_declaration
  name: (identifier) @name) @definition.class

(record_declaration
  name: (identifier) @name) @definition.class

(interface_declaration
  name: (identifier) @name) @definition.interface

(annotation_type_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(method_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name) @definition.method

(compact_constructor_declaration
  name: (identifier) @name) @definition.method

(annotation_type_element_declaration
  name: (identifier) @name) @definition.method

; static final UPPER_CASE fields, interface constants, enum constants
(field_declaration
  (modifiers "final")
  declarator: (variable_declarator
    name: (identifier) @name) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

(constant_declaration
  declarator: (variable_declarator
    name: (identifier) @name) @definition.constant)

(enum_constant
  name: (identifier) @name) @definition.constant

; ---------------------------------------------------------------- calls

(method_invocation
  !object
  name: (identifier) @name) @reference.call

(method_invocation
  object: (_) @receiver
  name: (identifier) @name) @reference.call

(object_creation_expression
  type: [
    (type_identifier) @name
    (scoped_type_identifier (type_identifier) @name .)
    (generic_type (type_identifier) @name)
    (generic_type (scoped_type_identifier (type_identifier) @name .))
  ]) @reference.call

; ---------------------------------------------------------------- imports

; import a.b.C;  import static a.b.C.m;
(import_declaration
  (scoped_identifier
    name: (identifier) @import.name) @import.source
  .) @reference.import

; import a.b.*;
(import_declaration
  (scoped_identifier) @import.source
  (asterisk)
  (#set! import.name "*")) @reference.import

; ---------------------------------------------------------------- inheritance

(superclass
  [
    (type_identifier) @name @reference.extends
    (scoped_type_identifier (type_identifier) @name @reference.extends .)
    (generic_type (type_identifier) @name @reference.extends)
    (generic_type (scoped_type_identifier (type_identifier) @name @reference.extends .))
  ])

(super_interfaces
  (type_list
    [
      (type_identifier) @name @reference.implements
      (scoped_type_identifier (type_identifier) @name @reference.implements .)
      (generic_type (type_identifier) @name @reference.implements)
      (generic_type (scoped_type_identifier (type_identifier) @name @reference.implements .))
    ]))

(extends_interfaces
  (type_list
    [
      (type_identifier) @name @reference.extends
      (scoped_type_identifier (type_identifier) @name @reference.extends .)
      (generic_type (type_identifier) @name @reference.extends)
      (generic_type (scoped_type_identifier (type_identifier) @name @reference.extends .))
    ]))

; ---------------------------------------------------------------- identifiers

(identifier) @reference.identifier
(type_identifier) @reference.identifier
