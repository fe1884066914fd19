; Sightline tags query — Python (tree-sitter-python).
; Capture convention: see ../types.ts. Functions inside a class are emitted as
; @definition.function; the extractor turns them into methods by nesting.

; ---------------------------------------------------------------- definitions

; (decorated definitions: the inner function_definition / class_definition is captured)
(function_definition
  name: (identifier) @name) @definition.function

(class_definition
  name: (identifier) @name) @definition.class

; module-level UPPER_CASE assignments
(module
  (expression_statement
    (assignment
      left: (identifier) @name) @definition.constant)
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

; a callable type alias (`ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]`): a type whose
; values are called; the assignment below keeps its text, which names the parameter types (graph/protocol.ts)
(module
  (expression_statement
    (assignment
      left: (identifier) @name
      right: (subscript value: [(identifier) (attribute)] @_callable)) @definition.type)
  (#match? @_callable "(^|[.])Callable$"))

(module
  (expression_statement
    (assignment
      left: (identifier) @assign.target
      right: (subscript value: [(identifier) (attribute)] @_callable) @assign.type) @reference.assign)
  (#match? @_callable "(^|[.])Callable$"))

; ---------------------------------------------------------------- calls

(call
  function: (identifier) @name) @reference.call

(call
  function: (attribute
    object: (_) @receiver
    attribute: (identifier) @name)) @reference.call

; ---------------------------------------------------------------- imports

; import a.b
(import_statement
  name: (dotted_name) @import.source) @reference.import

; import a.b as c
(import_statement
  name: (aliased_import
    name: (dotted_name) @import.source
    alias: (identifier) @import.alias)) @reference.import

; from a import b   /  from . import b  /  from .x import b
(import_from_statement
  module_name: (_) @import.source
  name: (dotted_name) @import.name) @reference.import

; from a import b as c
(import_from_statement
  module_name: (_) @import.source
  name: (aliased_import
    name: (dotted_name) @import.name
    alias: (identifier) @import.alias)) @reference.import

; from a import *
(import_from_statement
  module_name: (_) @import.source
  (wildcard_import)
  (#set! import.name "*")) @reference.import

; ---------------------------------------------------------------- inheritance

(class_definition
  superclasses: (argument_list
    [
      (identifier) @name @reference.extends
      (attribute attribute: (identifier) @name @reference.extends)
      (subscript value: (identifier) @name @reference.extends)
      (subscript value: (attribute attribute: (identifier) @name @reference.extends))
    ]))

; ---------------------------------------------------------------- identifiers

(identifier) @reference.identifier

; ---------------------------------------------------------------- types that flow

; x = f(…), self.x = f(…), x = await f(…) (what a coroutine function returns)
(assignment
  left: [(identifier) (attribute object: (identifier) attribute: (identifier))] @assign.target
  right: [(call function: (_) @assign.value) (await (call function: (_) @assign.value))]) @reference.assign

; x: T = …, self.x: T
(assignment
  left: [(identifier) (attribute object: (identifier) attribute: (identifier))] @assign.target
  type: (type [(identifier) @assign.type (attribute) @assign.type])) @reference.assign

; x = y, self.x = y, x = self.y, x = a or b, x = a if c else b: x holds what the operands hold
(assignment
  left: [(identifier) (attribute object: (identifier) attribute: (identifier))] @assign.target
  right: [(identifier) (attribute object: (identifier) attribute: (identifier))] @assign.copy) @reference.assign
(assignment
  left: [(identifier) (attribute object: (identifier) attribute: (identifier))] @assign.target
  right: (boolean_operator left: [(identifier) (attribute object: (identifier) attribute: (identifier))] @assign.copy)) @reference.assign
(assignment
  left: [(identifier) (attribute object: (identifier) attribute: (identifier))] @assign.target
  right: (boolean_operator right: [(identifier) (attribute object: (identifier) attribute: (identifier))] @assign.copy)) @reference.assign
(assignment
  left: [(identifier) (attribute object: (identifier) attribute: (identifier))] @assign.target
  right: (boolean_operator right: (call function: (_) @assign.value))) @reference.assign
(assignment
  left: [(identifier) (attribute object: (identifier) attribute: (identifier))] @assign.target
  right: (conditional_expression . [(identifier) (attribute object: (identifier) attribute: (identifier))] @assign.copy)) @reference.assign
(assignment
  left: [(identifier) (attribute object: (identifier) attribute: (identifier))] @assign.target
  right: (conditional_expression [(identifier) (attribute object: (identifier) attribute: (identifier))] @assign.copy .)) @reference.assign
(assignment
  left: [(identifier) (attribute object: (identifier) attribute: (identifier))] @assign.target
  right: (parenthesized_expression
    (conditional_expression . [(identifier) (attribute object: (identifier) attribute: (identifier))] @assign.copy))) @reference.assign

; x: "T", x: Optional[T], x: t.Type["T"] (a class body's annotations type self.x too)
(assignment
  left: [(identifier) (attribute object: (identifier) attribute: (identifier))] @assign.target
  type: (type (string (string_content) @assign.type))) @reference.assign
(assignment
  left: [(identifier) (attribute object: (identifier) attribute: (identifier))] @assign.target
  type: (type (generic_type (identifier) @_wrap
    (type_parameter . (type [(identifier) @assign.type (string (string_content) @assign.type)]) .)))
  (#any-of? @_wrap "Optional" "Type" "type" "ClassVar")) @reference.assign
(assignment
  left: [(identifier) (attribute object: (identifier) attribute: (identifier))] @assign.target
  type: (type (subscript
    value: [(identifier) (attribute attribute: (identifier))] @_wrap
    subscript: [(identifier) @assign.type (attribute) @assign.type
      (string (string_content) @assign.type)]))
  (#match? @_wrap "(^|[.])(Optional|Type|type|ClassVar)$")) @reference.assign

; with f(…) as x, async with await f(…) as x
(with_item
  value: (as_pattern
    [(call function: (_) @assign.value) (await (call function: (_) @assign.value))]
    alias: (as_pattern_target (identifier) @assign.target))) @reference.assign

; typed parameters: def f(x: T), def f(x: T = …)
(typed_parameter
  (identifier) @assign.target
  type: (type [(identifier) @assign.type (attribute) @assign.type])) @reference.assign
(typed_default_parameter
  name: (identifier) @assign.target
  type: (type [(identifier) @assign.type (attribute) @assign.type])) @reference.assign

; def f(x: "T"), def f(x: Optional[T] = None), def f(x: T | None = None)
(typed_parameter (identifier) @assign.target
  type: (type (string (string_content) @assign.type))) @reference.assign
(typed_default_parameter name: (identifier) @assign.target
  type: (type (string (string_content) @assign.type))) @reference.assign
(typed_parameter (identifier) @assign.target
  type: (type (generic_type (identifier) @_wrap
    (type_parameter . (type [(identifier) @assign.type (string (string_content) @assign.type)]) .)))
  (#any-of? @_wrap "Optional" "Type" "type")) @reference.assign
(typed_default_parameter name: (identifier) @assign.target
  type: (type (generic_type (identifier) @_wrap
    (type_parameter . (type [(identifier) @assign.type (string (string_content) @assign.type)]) .)))
  (#any-of? @_wrap "Optional" "Type" "type")) @reference.assign
(typed_parameter (identifier) @assign.target
  type: (type (union_type . (type [(identifier) @assign.type (attribute) @assign.type (string (string_content) @assign.type)])
    . (type (none)) .))) @reference.assign
(typed_default_parameter name: (identifier) @assign.target
  type: (type (union_type . (type [(identifier) @assign.type (attribute) @assign.type (string (string_content) @assign.type)])
    . (type (none)) .))) @reference.assign
(typed_parameter (identifier) @assign.target
  type: (type (binary_operator left: [(identifier) (attribute)] @assign.type operator: "|" right: (none)))) @reference.assign
(typed_default_parameter name: (identifier) @assign.target
  type: (type (binary_operator left: [(identifier) (attribute)] @assign.type operator: "|" right: (none)))) @reference.assign

; def f(x: Mapping[str, str]), def f(x: typing.Mapping[str, str] | None = None): the parameter holds that
; container (a type outside the repository, or a generic class of it), not a class named like the parameter
(typed_parameter (identifier) @assign.target
  type: (type [(generic_type (identifier) @assign.type)
    (union_type . (type (generic_type (identifier) @assign.type)) . (type (none)) .)])
  (#not-any-of? @assign.type "Optional" "Type" "type")) @reference.assign
(typed_default_parameter name: (identifier) @assign.target
  type: (type [(generic_type (identifier) @assign.type)
    (union_type . (type (generic_type (identifier) @assign.type)) . (type (none)) .)])
  (#not-any-of? @assign.type "Optional" "Type" "type")) @reference.assign
(typed_parameter (identifier) @assign.target
  type: (type [(subscript value: [(identifier) (attribute)] @assign.type)
    (binary_operator left: (subscript value: [(identifier) (attribute)] @assign.type) operator: "|" right: (none))])) @reference.assign
(typed_default_parameter name: (identifier) @assign.target
  type: (type [(subscript value: [(identifier) (attribute)] @assign.type)
    (binary_operator left: (subscript value: [(identifier) (attribute)] @assign.type) operator: "|" right: (none))])) @reference.assign

; f: Callable[[Request], Awaitable[Response]] = …, def g(f: Callable[…]): the whole callable type (graph/flow.ts:
; calling the value gives the type's result)
(assignment
  left: (identifier) @assign.target
  type: (type (generic_type (identifier) @_callable) @assign.type)
  (#eq? @_callable "Callable")) @reference.assign
(typed_parameter (identifier) @assign.target
  type: (type (generic_type (identifier) @_callable) @assign.type)
  (#eq? @_callable "Callable")) @reference.assign
(typed_default_parameter name: (identifier) @assign.target
  type: (type (generic_type (identifier) @_callable) @assign.type)
  (#eq? @_callable "Callable")) @reference.assign

; def f(…) -> T
(function_definition
  return_type: (type [(identifier) @name (attribute) @name]) @reference.returns)
; def f(…) -> Cls[V], -> Optional[Cls], -> Cls | None, -> "Cls": the class named (a generic class of the
; repository, or the one an Optional holds); a container from outside (`-> Iterator[Cls]`) names no class of it
(function_definition
  return_type: (type [(generic_type (identifier) @name) (subscript value: [(identifier) (attribute)] @name)])
  (#not-any-of? @name "Optional" "typing.Optional" "t.Optional")) @reference.returns
(function_definition
  return_type: (type [
    (generic_type (identifier) @_wrap (type_parameter . (type [(identifier) @name (attribute) @name]) .))
    (subscript value: [(identifier) (attribute)] @_wrap subscript: [(identifier) @name (attribute) @name])])
  (#match? @_wrap "(^|[.])Optional$")) @reference.returns
(function_definition
  return_type: (type [
    (union_type . (type [(identifier) @name (attribute) @name]) . (type (none)) .)
    (binary_operator left: [(identifier) @name (attribute) @name] operator: "|" right: (none))
    (string (string_content) @name)])) @reference.returns

; def f(…): … return T(…): what a factory returns, unannotated (a capitalised callee: a class, by convention)
(return_statement
  (call function: [(identifier) @name (attribute attribute: (identifier) @name)])
  (#match? @name "^[A-Z]")) @reference.returns

; a member read (`result.output`, `self.on_close` handed over): the identifier keeps its object as
; receiver, so that graph resolution binds it like a call (a called member is claimed by the call)
(attribute
  object: (_) @member.object
  attribute: (identifier) @member.name)

; a context manager entered (its __enter__ and __exit__ run): `with make():` / `with make() as x:` (the
; callee), `with x:` / `with self.x as y:` (the object)
(with_item value: (call function: (_) @assign.value) @reference.enters)
(with_item value: (as_pattern (call function: (_) @assign.value) @reference.enters))
(with_item value: [(identifier) (attribute)] @assign.target @reference.enters)
(with_item value: (as_pattern [(identifier) (attribute)] @assign.target @reference.enters))

; a generator function: its body runs where the generator is iterated, not where it is called
(yield) @reference.yields

; a function returns what a call returns (`return command(name, cls)`): it hands out that call's closures
(return_statement (call function: [(identifier) (attribute)] @assign.value) @reference.returns_call)

; what a call returns is called: a decorator factory applied (`@click.command()`), `make(…)(x)`
(decorator (call function: (_) @assign.value) @reference.result_call)
(call function: (call function: (_) @assign.value) @reference.result_call)

; x[k], x[k] = v: the receiver's __getitem__ / __setitem__ (bound only on a known receiver type)
(subscript value: (_) @receiver) @reference.subscript

; str(x), len(x), next(x) …, for … in x: the member the operand runs (language table protocolCalls)
(call
  function: (identifier) @name
  arguments: (argument_list . (_) @receiver .)
  (#any-of? @name "str" "repr" "len" "iter" "next" "hash" "bool" "reversed" "format"
    "list" "tuple" "set" "frozenset" "sorted" "enumerate" "sum" "min" "max" "any" "all" "dict")) @reference.protocol
; `if x:`, `while x:`, `not x`, `x or y`, `assert x`: testing the operand's truth runs its __bool__ (its __len__
; when it has none: the language table's protocolFallbacks)
(if_statement "if" @name condition: (_) @receiver) @reference.protocol
(elif_clause "elif" @name condition: (_) @receiver) @reference.protocol
(while_statement "while" @name condition: (_) @receiver) @reference.protocol
(not_operator "not" @name argument: (_) @receiver) @reference.protocol
(boolean_operator left: (_) @receiver operator: ["and" "or"] @name) @reference.protocol
(assert_statement "assert" @name . (_) @receiver) @reference.protocol
(for_statement "for" @name right: (_) @receiver) @reference.protocol
(for_statement "async" @name right: (_) @receiver) @reference.protocol
(await "await" @name (_) @receiver) @reference.protocol
(for_in_clause "for" @name right: (_) @receiver) @reference.protocol
(for_in_clause "async" @name right: (_) @receiver) @reference.protocol
(comparison_operator operators: ["in" "not in"] @name . (_) @receiver) @reference.protocol
(comparison_operator . (_) @receiver . operators: "==" @name) @reference.protocol

; cls = t.cast("type[Command]", Command): the value cast, copied
(assignment
  left: (identifier) @assign.target
  right: (call
    function: [(identifier) (attribute)] @_cast
    arguments: (argument_list (_) . [(identifier) (attribute)] @assign.copy .))
  (#match? @_cast "(^|[.])cast$")) @reference.assign

; type(self)(…), self.__class__(…): the object's own class constructed (its __init__ runs)
(call
  function: (call function: (identifier) @name arguments: (argument_list . (identifier) @receiver .))
  (#eq? @name "type")) @reference.protocol
(call
  function: (attribute object: (identifier) @receiver attribute: (identifier) @name)
  (#eq? @name "__class__")) @reference.protocol

; getattr(self, f"visit_{…}"), getattr(self, "do_" + name): a method of self's class chosen by its name prefix;
; getattr(client, "patch"), and getattr(client, method) in `for method in ("patch", "post")`: those methods
(call
  function: (identifier) @_getattr
  arguments: (argument_list . (identifier) @receiver . [(string) (binary_operator) (identifier)] @name)
  (#eq? @_getattr "getattr")) @reference.by_prefix

; a value handed to a call (a callback): `runner.invoke(cli)`, `Command(callback=f)`; the function a
; decorator receives (`@pass_context`, `@click.command()`): graph/callbacks.ts follows it to its callers
(call function: (_) @receiver arguments: (argument_list [(identifier) (attribute)] @name)) @reference.argument
(call
  function: (_) @receiver
  arguments: (argument_list (keyword_argument name: (identifier) @argument.key value: [(identifier) (attribute)] @name))) @reference.argument
(decorated_definition
  (decorator [(identifier) (attribute)] @receiver)
  definition: (function_definition name: (identifier) @name)) @reference.argument
(decorated_definition
  (decorator (call function: (_) @receiver) @argument.result)
  definition: (function_definition name: (identifier) @name)) @reference.argument

; a function's parameters, in order
(function_definition parameters: (parameters) @reference.params)

; code that runs only on an error: an exception handler, a raise statement (graph/tests.ts: likely tests)
(except_clause) @reference.error_path
(raise_statement) @reference.error_path
; a block that ends by raising: all of it runs only on the way to an error
(block (raise_statement) .) @reference.error_path

; a fallback on lines of its own (`return (self.cached(x)\n  or self.build(x))`): it runs only when what comes before gives
; nothing (graph/tests.ts: a test is likely to run a call there when it names the callee)
(boolean_operator operator: "or" right: (_) @reference.memo)
