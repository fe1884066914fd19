; Sightline tags query — Swift (tree-sitter-swift).
; Capture convention: see ../types.ts.

; ---------------------------------------------------------------- definitions

(class_declaration "class" name: (type_identifier) @name) @definition.class
(class_declaration "actor" name: (type_identifier) @name) @definition.class
(class_declaration "struct" name: (type_identifier) @name) @definition.struct
(class_declaration "enum" name: (type_identifier) @name) @definition.enum

; extension Worker { … }: its members are Worker's
(class_declaration "extension" name: (user_type (type_identifier) @name)) @definition.class

(protocol_declaration name: (type_identifier) @name) @definition.interface

(function_declaration name: (simple_identifier) @name) @definition.function

(protocol_function_declaration name: (simple_identifier) @name) @definition.function

(typealias_declaration name: (type_identifier) @name) @definition.type

; ---------------------------------------------------------------- calls

; helper(x), Worker(name: "w")
(call_expression
  . (simple_identifier) @name) @reference.call

; w.run(id: 1), Registry.register(w)
(call_expression
  . (navigation_expression
      target: (_) @receiver
      suffix: (navigation_suffix suffix: (simple_identifier) @name))) @reference.call

; ---------------------------------------------------------------- imports

(import_declaration
  (identifier (simple_identifier) @import.name .) @import.source) @reference.import

; ---------------------------------------------------------------- inheritance

; class Worker: WorkerBase, Runner — Swift does not say which is the class: the first of a class is
; taken as its base, the others (and every one of a struct, enum, actor or extension) as protocols
(class_declaration
  "class"
  name: (_)
  . (inheritance_specifier inherits_from: (user_type (type_identifier) @name)) @reference.extends)

(class_declaration
  ["struct" "enum" "actor" "extension"]
  name: (_)
  . (inheritance_specifier inherits_from: (user_type (type_identifier) @name)) @reference.implements)

(class_declaration
  (inheritance_specifier)
  . (inheritance_specifier inherits_from: (user_type (type_identifier) @name)) @reference.implements)
