; Sightline tags query — C# (tree-sitter-c-sharp).
; Capture convention: see ../types.ts.
; `this` / `base` are anonymous nodes in this grammar, so receivers use the `_` wildcard.
; A file-scoped namespace (`namespace X;`) does not contain the following declarations
; in this grammar, so its types do not nest under it.

; ---------------------------------------------------------------- definitions

(class_declaration
  name: (identifier) @name) @definition.class

(record_declaration
  name: (identifier) @name) @definition.class

(struct_declaration
  name: (identifier) @name) @definition.struct

(interface_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(delegate_declaration
  name: (identifier) @name) @definition.type

(method_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name) @definition.method

(destructor_declaration
  name: (identifier) @name) @definition.method

(local_function_statement
  name: (identifier) @name) @definition.function

(namespace_declaration
  name: [(identifier) (qualified_name)] @name) @definition.module

(file_scoped_namespace_declaration
  name: [(identifier) (qualified_name)] @name) @definition.module

; const fields
(field_declaration
  (modifier "const")
  (variable_declaration
    (variable_declarator
      name: (identifier) @name) @definition.constant))

; ---------------------------------------------------------------- calls

; Run(), Foo<T>()
(invocation_expression
  function: [
    (identifier) @name
    (generic_name (identifier) @name)
  ]) @reference.call

; obj.Run(), this.Step(), base.Run(), Foo.Bar<T>()
(invocation_expression
  function: (member_access_expression
    expression: _ @receiver
    name: [
      (identifier) @name
      (generic_name (identifier) @name)
    ])) @reference.call

; obj?.Run()
(invocation_expression
  function: (conditional_access_expression
    condition: (_) @receiver
    (member_binding_expression
      name: [
        (identifier) @name
        (generic_name (identifier) @name)
      ]))) @reference.call

; new Worker(), new List<T>(), new A.B()
(object_creation_expression
  type: [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name name: (identifier) @name)
    (qualified_name name: (generic_name (identifier) @name))
  ]) @reference.call

; ---------------------------------------------------------------- imports

; using A.B;  using static A.B;  using X = A.B;
(using_directive
  !name
  [(identifier) (qualified_name)] @import.source
  .) @reference.import

(using_directive
  name: (identifier) @import.alias
  [(identifier) (qualified_name)] @import.source
  .) @reference.import

; ---------------------------------------------------------------- inheritance (base_list does not tell classes from interfaces)

(base_list
  [
    (identifier) @name @reference.extends
    (generic_name (identifier) @name @reference.extends)
    (qualified_name name: (identifier) @name @reference.extends)
    (qualified_name name: (generic_name (identifier) @name @reference.extends))
    (primary_constructor_base_type type: (identifier) @name @reference.extends)
    (primary_constructor_base_type type: (generic_name (identifier) @name @reference.extends))
    (primary_constructor_base_type type: (qualified_name name: (identifier) @name @reference.extends))
  ])

; ---------------------------------------------------------------- identifiers

(identifier) @reference.identifier
