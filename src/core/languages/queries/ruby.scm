; Sightline tags query — Ruby (tree-sitter-ruby).
; Capture convention: see ../types.ts. Captures starting with `_` only feed predicates.
; Bare identifiers such as `run` (a call without parens/args/receiver) are
; indistinguishable from local variables and are only @reference.identifier.

; ---------------------------------------------------------------- definitions

(method
  name: (_) @name) @definition.method

(singleton_method
  name: (_) @name) @definition.method

(class
  name: [
    (constant) @name
    (scope_resolution name: (_) @name)
  ]) @definition.class

(module
  name: [
    (constant) @name
    (scope_resolution name: (_) @name)
  ]) @definition.module

(assignment
  left: (constant) @name) @definition.constant

; FileList = Rake::FileList: a constant naming a class stands for it
(assignment
  left: (constant) @assign.target
  right: [(constant) (scope_resolution name: (constant))] @assign.copy) @reference.assign

; ---------------------------------------------------------------- calls

(call
  !receiver
  method: [(identifier) (constant)] @name) @reference.call

(call
  receiver: _ @receiver
  method: [(identifier) (constant)] @name) @reference.call

; `futures.reverse_each(&:value)`: a symbol handed as the block calls that method on each element
(call
  receiver: _ @receiver
  arguments: (argument_list (block_argument (simple_symbol) @name))) @reference.call

; ---------------------------------------------------------------- types that flow

; x = Foo.new(…), @x = make(…): what the variable holds; x = y, @x = y: a copy
(assignment
  left: [(identifier) (instance_variable)] @assign.target
  right: (call) @assign.value) @reference.assign
; EARLY = EarlyTime.instance: what a constant holds, wherever it is named (graph/flow.ts globalType)
(assignment
  left: (constant) @assign.target
  right: (call) @assign.value) @reference.assign
(assignment
  left: [(identifier) (instance_variable)] @assign.target
  right: [(identifier) (instance_variable) (constant) (scope_resolution name: (constant))] @assign.copy) @reference.assign

; x = FileList["a", "b"]: a class's [] builds one of its instances (Set[…], FileList[…])
(assignment
  left: [(identifier) (instance_variable)] @assign.target
  right: (element_reference object: [(constant) (scope_resolution name: (constant))] @assign.type)) @reference.assign

; @x ||= Foo.new: memoised, the same
(operator_assignment
  left: [(identifier) (instance_variable)] @assign.target
  right: (call) @assign.value) @reference.assign

; what a method returns: its last expression constructs a class (`Foo.new`, `@app ||= Rake::Application.new`,
; `x = Foo.new`); a query names one node type, so methods and singleton methods each have their pattern
(method
  body: (body_statement
    [(call receiver: [(constant) @name (scope_resolution name: (constant) @name)] method: (identifier) @_new)
     (_ right: (call receiver: [(constant) @name (scope_resolution name: (constant) @name)] method: (identifier) @_new))]
    @reference.returns .)
  (#eq? @_new "new"))
(singleton_method
  body: (body_statement
    [(call receiver: [(constant) @name (scope_resolution name: (constant) @name)] method: (identifier) @_new)
     (_ right: (call receiver: [(constant) @name (scope_resolution name: (constant) @name)] method: (identifier) @_new))]
    @reference.returns .)
  (#eq? @_new "new"))

; what a method returns: its last expression, a call other than `new` (`Rake::Task.define_task(*args, &block)`),
; returns what that call returns (an implicit return)
(method
  body: (body_statement (call method: (identifier) @_m) @assign.value @reference.returns_call .)
  (#not-eq? @_m "new"))
(singleton_method
  body: (body_statement (call method: (identifier) @_m) @assign.value @reference.returns_call .)
  (#not-eq? @_m "new"))

; x[k], x[k] = v: the receiver's [] / []= (bound only on a known receiver type)
(element_reference object: (_) @receiver) @reference.subscript

; "#{chain}" runs chain.to_s; a | b, a + b, a << b … run the left operand's operator method (language table
; protocolCalls; bound only on a known receiver type)
(interpolation "#{" @name . (_) @receiver) @reference.protocol
(binary left: (_) @receiver operator: ["|" "&" "+" "-" "<<" "<=>" "==" "<" "<=" ">" ">="] @name) @reference.protocol
(operator_assignment left: (_) @receiver operator: ["|=" "&=" "+=" "-="] @name) @reference.protocol

; ---------------------------------------------------------------- imports

(call
  !receiver
  method: (identifier) @_require
  arguments: (argument_list
    .
    (string (string_content) @import.source))
  (#any-of? @_require "require" "require_relative" "load" "autoload")) @reference.import

; ---------------------------------------------------------------- inheritance

; a base named through its namespace (`< Rake::Task`, `include Rake::TaskManager`): the namespace is its receiver
(superclass
  [
    (constant) @name @reference.extends
    (scope_resolution scope: (_)? @receiver name: (constant) @name @reference.extends)
  ])

; include / prepend / extend Mod
(call
  !receiver
  method: (identifier) @_mixin
  arguments: (argument_list
    [
      (constant) @name @reference.implements
      (scope_resolution scope: (_)? @receiver name: (constant) @name @reference.implements)
    ])
  (#any-of? @_mixin "include" "prepend" "extend"))

; ---------------------------------------------------------------- identifiers

(identifier) @reference.identifier
(constant) @reference.identifier

; @app.instance_eval do … end: the block runs with @app as self (its bare calls are @app's methods)
(call
  receiver: (_) @receiver
  method: (identifier) @_eval
  block: [(do_block) (block)]
  (#any-of? @_eval "instance_eval" "instance_exec")) @reference.self_block

; ---------------------------------------------------------------- blocks handed over

; a block handed to a call runs where the callee yields (or calls its &block): graph/callbacks.ts
(call method: (_) @receiver block: [(do_block) (block)] @argument.block) @reference.argument
; a block parameter handed on (`Promise.new(args, &block)`): the callee's block is that block
(call method: (_) @receiver arguments: (argument_list (block_argument (identifier) @name))) @reference.argument
(yield "yield" @name) @reference.call

; a method's parameters, in order (`&block` among them)
(method parameters: (method_parameters) @reference.params)
(singleton_method parameters: (method_parameters) @reference.params)

; code that runs only on an error: a rescue clause (graph/tests.ts: likely tests)
(rescue) @reference.error_path
; a branch that ends by raising: all of it runs only on the way to an error
(then (call method: (identifier) @_raise) . (#match? @_raise "^(raise|fail)$")) @reference.error_path
(then (identifier) @_raise . (#match? @_raise "^(raise|fail)$")) @reference.error_path
(else (call method: (identifier) @_raise) . (#match? @_raise "^(raise|fail)$")) @reference.error_path
(else (identifier) @_raise . (#match? @_raise "^(raise|fail)$")) @reference.error_path

; code that runs only while a value is unset: `@x ||= make` (memoised: once per object, or once per run on a
; module; graph/tests.ts: a test is likely to run a call there when it names the callee)
(operator_assignment "||=" right: (_) @reference.memo)
; a fallback on lines of its own (`lookup(name) or\n  enhance_with_matching_rule(name)`): it runs only when what comes before gives nothing
(binary operator: ["or" "||"] right: (_) @reference.memo)
