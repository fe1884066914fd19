; Sightline tags query — JavaScript / JSX (tree-sitter-javascript).
; Capture convention: see ../types.ts. Captures starting with `_` only feed predicates.

; ---------------------------------------------------------------- definitions

; obj.m = function () {} / Foo.prototype.bar = () => {}
(assignment_expression
  left: (member_expression
    property: (property_identifier) @name)
  right: [(arrow_function) (function_expression)]) @definition.function

(class_declaration
  name: (identifier) @name) @definition.class

; class fields holding functions: onDone = () => {}
(field_definition
  property: (_) @name
  value: [(arrow_function) (function_expression)]) @definition.method

; top-level `var` UPPER_CASE constants with a non-function value (`const` ones: ecmascript.scm)
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

; ---------------------------------------------------------------- inheritance

(class_heritage
  (identifier) @name @reference.extends)

(class_heritage
  (member_expression
    property: (property_identifier) @name @reference.extends))

; definitions, calls, imports and identifiers JavaScript shares with TypeScript: ecmascript.scm
