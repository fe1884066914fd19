; Sightline tags query — C++ (tree-sitter-cpp).
; Capture convention: see ../types.ts.
; Out-of-class member definitions (`void Foo::run() {}`, `ns::Foo<T>::run`) are
; @definition.method with @name = `run` and @receiver_type = `Foo` (the innermost
; scope). Note: a namespace-qualified free function (`void ns::f() {}`) looks the
; same syntactically and is reported with @receiver_type = `ns`.
; Functions defined/declared inside a class body are @definition.function (the
; extractor nests them into methods). Templates: the inner declaration is captured.
; Listed with c-family.scm (the patterns C and C++ share), which comes after this file.

; ---------------------------------------------------------------- definitions: functions

; free functions, and member functions defined inside a class body
(function_definition
  declarator: [
    (function_declarator
      declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)
    (pointer_declarator
      declarator: (function_declarator
        declarator: [(identifier) (field_identifier) (operator_name)] @name))
    (reference_declarator
      (function_declarator
        declarator: [(identifier) (field_identifier) (operator_name)] @name))
  ]) @definition.function

; out-of-class member definitions: Foo::run, ns::Foo::run, a::b::Foo<T>::run
(function_definition
  declarator: [
    (function_declarator
      declarator: [
        (qualified_identifier
          scope: [(namespace_identifier) @receiver_type (template_type name: (type_identifier) @receiver_type)]
          name: [(identifier) (destructor_name) (operator_name)] @name)
        (qualified_identifier
          name: (qualified_identifier
            scope: [(namespace_identifier) @receiver_type (template_type name: (type_identifier) @receiver_type)]
            name: [(identifier) (destructor_name) (operator_name)] @name))
        (qualified_identifier
          name: (qualified_identifier
            name: (qualified_identifier
              scope: [(namespace_identifier) @receiver_type (template_type name: (type_identifier) @receiver_type)]
              name: [(identifier) (destructor_name) (operator_name)] @name)))
      ])
    (pointer_declarator
      declarator: (function_declarator
        declarator: [
          (qualified_identifier
            scope: [(namespace_identifier) @receiver_type (template_type name: (type_identifier) @receiver_type)]
            name: [(identifier) (operator_name)] @name)
          (qualified_identifier
            name: (qualified_identifier
              scope: [(namespace_identifier) @receiver_type (template_type name: (type_identifier) @receiver_type)]
              name: [(identifier) (operator_name)] @name))
        ]))
    (reference_declarator
      (function_declarator
        declarator: [
          (qualified_identifier
            scope: [(namespace_identifier) @receiver_type (template_type name: (type_identifier) @receiver_type)]
            name: [(identifier) (operator_name)] @name)
          (qualified_identifier
            name: (qualified_identifier
              scope: [(namespace_identifier) @receiver_type (template_type name: (type_identifier) @receiver_type)]
              name: [(identifier) (operator_name)] @name))
        ]))
  ]) @definition.method

; member function declarations inside a class body: void run() override;
(field_declaration
  declarator: [
    (function_declarator
      declarator: [(field_identifier) (identifier) (destructor_name) (operator_name)] @name)
    (pointer_declarator
      declarator: (function_declarator
        declarator: [(field_identifier) (identifier) (operator_name)] @name))
    (reference_declarator
      (function_declarator
        declarator: [(field_identifier) (identifier) (operator_name)] @name))
  ]) @definition.function

; constructor / destructor declarations inside a class body: Worker(); ~Worker();
(field_declaration_list
  (declaration
    declarator: (function_declarator
      declarator: [(identifier) (destructor_name)] @name)) @definition.function)

; prototypes at file / namespace scope
(translation_unit
  (declaration
    declarator: (function_declarator
      declarator: (identifier) @name)) @definition.function)

(declaration_list
  (declaration
    declarator: (function_declarator
      declarator: (identifier) @name)) @definition.function)

(template_declaration
  (declaration
    declarator: (function_declarator
      declarator: (identifier) @name)) @definition.function)

(preproc_ifdef
  (declaration
    declarator: (function_declarator
      declarator: (identifier) @name)) @definition.function)

(preproc_if
  (declaration
    declarator: (function_declarator
      declarator: (identifier) @name)) @definition.function)

(linkage_specification
  body: (declaration
    declarator: (function_declarator
      declarator: (identifier) @name)) @definition.function)

; ---------------------------------------------------------------- definitions: types

(class_specifier
  name: [(type_identifier) @name (template_type name: (type_identifier) @name)]
  body: (field_declaration_list)) @definition.class

(struct_specifier
  name: [(type_identifier) @name (template_type name: (type_identifier) @name)]
  body: (field_declaration_list)) @definition.struct

(type_definition
  type: (class_specifier
    !name
    body: (field_declaration_list)) @definition.class
  .
  declarator: (type_identifier) @name)

; typedef class tag { ... } name; and typedefs of C++-only types (the C ones: c-family.scm)
(type_definition
  type: (class_specifier name: (_) body: (_))
  .
  declarator: (type_identifier) @name @definition.type)

(type_definition
  type: [(qualified_identifier) (template_type) (class_specifier !body)]
  .
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
    (function_declarator declarator: (type_identifier) @name)
    (array_declarator declarator: (type_identifier) @name)
  ]) @definition.type

; using Text = std::string;
(alias_declaration
  name: (type_identifier) @name) @definition.type

(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.module

; ---------------------------------------------------------------- definitions: constants

(declaration_list
  (declaration
    (type_qualifier)
    declarator: (init_declarator
      declarator: (identifier) @name) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

; ---------------------------------------------------------------- calls

; f<T>()
(call_expression
  function: (template_function
    name: (identifier) @name)) @reference.call

; ns::f(), Foo::make(), std::make_unique<T>()
(call_expression
  function: (qualified_identifier
    scope: (_) @receiver
    name: [
      (identifier) @name
      (template_function name: (identifier) @name)
    ])) @reference.call

(call_expression
  function: (qualified_identifier
    name: (qualified_identifier
      scope: (_) @receiver
      name: [
        (identifier) @name
        (template_function name: (identifier) @name)
      ]))) @reference.call

; obj.template run<T>(), obj.run<T>()
(call_expression
  function: (field_expression
    argument: (_) @receiver
    field: [
      (template_method name: (field_identifier) @name)
      (dependent_name (template_method name: (field_identifier) @name))
    ])) @reference.call

; new Worker(), new ns::Worker(), new Box<T>()
(new_expression
  type: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
  ]) @reference.call

(new_expression
  type: (qualified_identifier
    scope: (_) @receiver
    name: [
      (type_identifier) @name
      (template_type name: (type_identifier) @name)
    ])) @reference.call

; ---------------------------------------------------------------- inheritance

(base_class_clause
  [
    (type_identifier) @name @reference.extends
    (template_type name: (type_identifier) @name @reference.extends)
    (qualified_identifier name: (type_identifier) @name @reference.extends)
    (qualified_identifier name: (template_type name: (type_identifier) @name @reference.extends))
  ])

; ---------------------------------------------------------------- identifiers (the others: c-family.scm)

(namespace_identifier) @reference.identifier
