; Sightline tags query — Bash and POSIX shell (tree-sitter-bash).
; Capture convention: see ../types.ts.

; ---------------------------------------------------------------- definitions

(function_definition
  name: (word) @name) @definition.function

; ---------------------------------------------------------------- calls

; deploy "$1" (a command: a function of the script, or a program)
(command
  name: (command_name (word) @name)
  (#not-match? @name "^(source|\\.)$")) @reference.call

; ---------------------------------------------------------------- imports

; source ./lib.sh  /  . ./lib.sh
(command
  name: (command_name (word) @_cmd)
  argument: [(word) (string)] @import.source
  (#match? @_cmd "^(source|\\.)$")) @reference.import
