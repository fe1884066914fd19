; Sightline tags query — Elixir (tree-sitter-elixir; after its queries/tags.scm). Everything is a call:
; the keyword (`defmodule`, `def`, …) is its target.
; Capture convention: see ../types.ts.

; ---------------------------------------------------------------- definitions

(call
  target: (identifier) @_kw
  (arguments (alias) @name)
  (#any-of? @_kw "defmodule" "defprotocol")) @definition.module

(call
  target: (identifier) @_kw
  (arguments
    [(identifier) @name
     (call target: (identifier) @name)
     (binary_operator left: (call target: (identifier) @name) operator: "when")])
  (#any-of? @_kw "def" "defp" "defmacro" "defmacrop" "defguard" "defguardp" "defdelegate")) @definition.function

; @max_jobs 8 — a module attribute (documentation and type attributes are not constants)
(unary_operator
  operator: "@"
  operand: (call target: (identifier) @name)
  (#not-any-of? @name "doc" "moduledoc" "typedoc" "spec" "type" "typep" "opaque" "impl" "behaviour" "callback"
    "macrocallback" "derive" "enforce_keys" "deprecated" "since" "dialyzer" "compile" "external_resource")) @definition.constant

; ---------------------------------------------------------------- calls

; step(id), format("job", n) — not the keywords of the language
(call
  target: (identifier) @name
  (#not-any-of? @name "def" "defp" "defmacro" "defmacrop" "defguard" "defguardp" "defdelegate" "defmodule"
    "defprotocol" "defimpl" "defstruct" "defexception" "defoverridable" "alias" "import" "require" "use"
    "case" "cond" "if" "unless" "for" "with" "try" "receive" "quote" "unquote" "raise" "reraise" "throw" "fn")) @reference.call

; Registry.register(x), IO.inspect()
(call
  target: (dot
    left: (_) @receiver
    right: (identifier) @name)) @reference.call

; ---------------------------------------------------------------- imports

; alias Jobs.Registry / import Jobs.Util / require Logger / use GenServer
(call
  target: (identifier) @_kw
  (arguments . (alias) @import.source)
  (#any-of? @_kw "alias" "import" "require" "use")) @reference.import
