; Sightline tags query — JavaScript / JSX (tree-sitter-javascript).
; Capture convention: see ../types.ts. Captures starting with `_` only feed predicates.

; ---------------------------------------------------------------- definitions

(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

; const f = () => {} / var f = function () {} (the variable_declarator is the definition)
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; obj.m = function () {} / Foo.prototype.bar = () => {}
(assignment_expression
  left: (member_expression
    property: (property_identifier) @name)
  right: [(arrow_function) (function_expression)]) @definition.function

(class_declaration
  name: (identifier) @name) @definition.class

; const K = class {}
(variable_declarator
  name: (identifier) @name
  value: (class)) @definition.class

(method_definition
  name: (_) @name) @definition.method

; class fields holding functions: onDone = () => {}
(field_definition
  property: (_) @name
  value: [(arrow_function) (function_expression)]) @definition.method

; top-level UPPER_CASE constants with a non-function value
(program
  (lexical_declaration
    kind: "const"
    (variable_declarator
      name: (identifier) @name
      value: [
        (number) (string) (template_string) (true) (false) (null) (undefined) (regex)
        (object) (array) (identifier) (member_expression) (subscript_expression)
        (call_expression) (new_expression) (binary_expression) (unary_expression)
        (ternary_expression) (parenthesized_expression) (await_expression)
      ]) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

(program
  (variable_declaration
    (variable_declarator
      name: (identifier) @name
      value: [
        (number) (string) (template_string) (true) (false) (null) (undefined) (regex)
        (object) (array) (identifier) (member_expression) (subscript_expression)
        (call_expression) (new_expression) (binary_expression) (unary_expression)
        (ternary_expression) (parenthesized_expression) (await_expression)
      ]) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

(program
  (export_statement
    declaration: (lexical_declaration
      kind: "const"
      (variable_declarator
        name: (identifier) @name
        value: [
          (number) (string) (template_string) (true) (false) (null) (undefined) (regex)
          (object) (array) (identifier) (member_expression) (subscript_expression)
          (call_expression) (new_expression) (binary_expression) (unary_expression)
          (ternary_expression) (parenthesized_expression) (await_expression)
        ]) @definition.constant))
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

; ---------------------------------------------------------------- inheritance

(class_heritage
  (identifier) @name @reference.extends)

(class_heritage
  (member_expression
    property: (property_identifier) @name @reference.extends))

; ---------------------------------------------------------------- identifiers

(identifier) @reference.identifier
(property_identifier) @reference.identifier
(shorthand_property_identifier) @reference.identifier
