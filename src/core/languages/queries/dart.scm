; Sightline tags query — Dart (tree-sitter-dart). A function's body follows its signature as a sibling
; node: the language table's detachedBody makes a definition span both.
; Capture convention: see ../types.ts.

; ---------------------------------------------------------------- definitions

(class_definition name: (identifier) @name) @definition.class

(mixin_declaration (identifier) @name) @definition.trait

(extension_declaration name: (identifier) @name) @definition.class

(enum_declaration name: (identifier) @name) @definition.enum

(type_alias (type_identifier) @name) @definition.type

; methods with a body, abstract methods, constructors
(method_signature
  [(function_signature name: (identifier) @name)
   (getter_signature name: (identifier) @name)
   (setter_signature name: (identifier) @name)]) @definition.method

(declaration (function_signature name: (identifier) @name) @definition.method)

; top-level functions
(program (function_signature name: (identifier) @name) @definition.function)

; const maxJobs = 8 at the top level
(program
  (static_final_declaration_list
    (static_final_declaration (identifier) @name) @definition.constant))

; ---------------------------------------------------------------- calls

; helper(x), Worker('w'): a name followed by arguments
((identifier) @name @reference.call
  . (selector (argument_part)))

; w.run(1), math.max(a, b)
((identifier) @receiver
  . (selector (unconditional_assignable_selector (identifier) @name @reference.call))
  . (selector (argument_part)))

; Meter().read(): the constructed class names the receiver
((identifier) @receiver
  . (selector (argument_part))
  . (selector (unconditional_assignable_selector (identifier) @name @reference.call))
  . (selector (argument_part)))

; ---------------------------------------------------------------- imports

; import 'package:app/base.dart' as base;
(import_specification
  (configurable_uri (uri (string_literal) @import.source))
  (identifier)? @import.alias) @reference.import

; ---------------------------------------------------------------- inheritance

(superclass (type_identifier) @name) @reference.extends

(interfaces (type_identifier) @name) @reference.implements

(mixins (type_identifier) @name) @reference.implements
