; What JavaScript and TypeScript write alike (the grammars share these node types): named
; functions, methods, top-level constants and variables, calls, ES and CommonJS imports,
; local names. javascript.scm and typescript.scm start with `; inherits: ecma`.

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method

; const f = () => {} / const f = function () {} anywhere: a named function
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; var f = (exports.f = function () {}): a named function too
(variable_declarator
  name: (identifier) @name
  value: (parenthesized_expression
    (assignment_expression right: [(arrow_function) (function_expression) (generator_function)]))) @definition.function

; return function make() {}: a named function too, what the function around it returns
(return_statement (function_expression name: (identifier) @name) @definition.function)

; top-level constants and variables (also exported)
(program (lexical_declaration "const" (variable_declarator name: (identifier) @name) @definition.constant))
(program (lexical_declaration "let" (variable_declarator name: (identifier) @name) @definition.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program (export_statement declaration: (lexical_declaration "const" (variable_declarator name: (identifier) @name) @definition.constant)))
(program (export_statement declaration: (lexical_declaration "let" (variable_declarator name: (identifier) @name) @definition.variable)))

(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (member_expression object: (_) @receiver property: [(property_identifier) (private_property_identifier)] @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.call
(new_expression constructor: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.call

; Functions and classes used as values: arguments (callbacks), defaults, assignments,
; elements of arrays and objects (handler tables), return values.
(arguments [(identifier) @name (member_expression object: (_) @receiver property: (property_identifier) @name)] @reference.value)
(assignment_pattern right: [(identifier) @name (member_expression object: (_) @receiver property: (property_identifier) @name)] @reference.value)
(variable_declarator value: [(identifier) @name (member_expression object: (_) @receiver property: (property_identifier) @name)] @reference.value)
(assignment_expression right: [(identifier) @name (member_expression object: (_) @receiver property: (property_identifier) @name)] @reference.value)
(array [(identifier) @name (member_expression object: (_) @receiver property: (property_identifier) @name)] @reference.value)
(pair value: [(identifier) @name (member_expression object: (_) @receiver property: (property_identifier) @name)] @reference.value)
(object (shorthand_property_identifier) @name @reference.value)
(return_statement [(identifier) @name (member_expression object: (_) @receiver property: (property_identifier) @name)] @reference.value)

; import x from "m" / import {a as b} from "m" / import * as ns from "m" / import "m"
(import_statement (import_clause (identifier) @import.default) source: (string) @import.module) @reference.import
(import_statement
  (import_clause (named_imports (import_specifier name: (identifier) @import.name alias: (identifier)? @import.alias)))
  source: (string) @import.module) @reference.import
(import_statement (import_clause (namespace_import (identifier) @import.alias)) source: (string) @import.module) @reference.import
(import_statement . "import" . source: (string) @import.module) @reference.import

; export * from "m" / export * as ns from "m" / export {a as b} from "m": passed on to importers
(export_statement . "export" . "*" @import.wildcard source: (string) @import.module) @reference.import @import.export
(export_statement (namespace_export (_) @import.alias) source: (string) @import.module) @reference.import @import.export
(export_statement
  (export_clause (export_specifier name: (_) @import.name alias: (_)? @import.alias))
  source: (string) @import.module) @reference.import @import.export
; export {a as b} / export default a / export default class A {}: names of this module
(export_statement
  (export_clause (export_specifier name: (_) @import.name alias: (_)? @import.alias))
  !source) @reference.import @import.export
(export_statement "default" @import.alias value: (identifier) @import.name) @reference.import @import.export
(export_statement "default" @import.alias
  declaration: [(class_declaration name: (_) @import.name) (function_declaration name: (_) @import.name)
                (generator_function_declaration name: (_) @import.name)]) @reference.import @import.export

; CommonJS: exports.f = function () {} / module.exports.f = () => {}
(expression_statement (assignment_expression
  left: (member_expression object: (identifier) @_exports property: (property_identifier) @name)
  right: [(function_expression) (arrow_function)]) @definition.function
  (#eq? @_exports "exports"))
(expression_statement (assignment_expression
  left: (member_expression
    object: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
    property: (property_identifier) @name)
  right: [(function_expression) (arrow_function)]) @definition.function
  (#eq? @_module "module") (#eq? @_exports "exports"))

; Constructor functions: Foo.prototype.m = function () {} is a method of Foo (the last of a
; chain, `Foo.prototype.m = Foo.prototype.M = function`, names it).
((assignment_expression
  left: (member_expression
    object: (member_expression object: (identifier) @qualifier property: (property_identifier) @_prototype)
    property: (property_identifier) @name)
  right: [(function_expression) (arrow_function)]) @definition.method
  (#eq? @_prototype "prototype"))
; Foo.prototype['m'] = function () {}: the same, by a string key
((assignment_expression
  left: (subscript_expression
    object: (member_expression object: (identifier) @qualifier property: (property_identifier) @_prototype)
    index: (string (string_fragment) @name))
  right: [(function_expression) (arrow_function)]) @definition.method
  (#eq? @_prototype "prototype"))
; Base.color = function () {} at the top level: a function kept on another (a static member)
(program (expression_statement (assignment_expression
  left: (member_expression object: (identifier) @qualifier property: (property_identifier) @name)
  right: [(function_expression) (arrow_function)]) @definition.function
  (#not-eq? @qualifier "exports")))
; module.exports = Foo (also `exports = module.exports = Foo`): the module's value, what
; `require` of it gives (its default export)
(expression_statement [(assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
  right: (identifier) @import.name)
  (assignment_expression left: (identifier) right: (assignment_expression
    left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
    right: (identifier) @import.name))] @import.commonjs
  (#eq? @_module "module") (#eq? @_exports "exports")) @reference.import @import.export

; var Auth = exports / var app = exports = module.exports = {} at the top level: a name for the
; module's exports (`Auth.token = function` exports `token`)
(program (_ (variable_declarator name: (identifier) @exports value: (identifier) @_exports))
  (#eq? @_exports "exports"))
(program (_ (variable_declarator name: (identifier) @exports
  value: [(member_expression object: (identifier) @_module property: (property_identifier) @_exports)
          (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports))
          (assignment_expression right: (assignment_expression
            left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)))]))
  (#eq? @_module "module") (#eq? @_exports "exports"))

; module.exports = {a: b, c} at the top level (not one of several on branches): the module's
; members a (what b is) and c
(program (expression_statement (assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
  right: (object [(pair key: (property_identifier) @import.alias value: (identifier) @import.name)
                  (shorthand_property_identifier) @import.name]))
  (#eq? @_module "module") (#eq? @_exports "exports")) @reference.import @import.export)

; const x = require("m") / const {a, b} = require("m")
(variable_declarator
  name: (identifier) @import.alias
  value: (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module))
  (#eq? @_req "require")) @reference.import @import.required
(variable_declarator
  name: (object_pattern (shorthand_property_identifier_pattern) @import.name)
  value: (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module))
  (#eq? @_req "require")) @reference.import
; const b = require("m").a: a of the module, named b
(variable_declarator
  name: (identifier) @import.alias
  value: (member_expression
    object: (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module))
    property: (property_identifier) @import.name)
  (#eq? @_req "require")) @reference.import

; Bindings (see extract.py): variables with what they are bound to (not `require` bindings,
; which are imports), the parameter of a one-parameter arrow function (the parameter lists
; differ), and fields assigned through `this` in a method.
(arrow_function parameter: (identifier) @local)
; A function written as an expression (a callback, a closure) has its own parameters and locals.
[(arrow_function) (function_expression)] @block
; What a function returns (a closure's `return` is the closure's: its block says so), also
; an arrow function's expression body (`const make = () => new Foo()`).
(return_statement (_) @return)
(arrow_function body: [(new_expression) (call_expression) (identifier) (member_expression) (this)
                       (await_expression) (parenthesized_expression) (ternary_expression)] @return)
; A function declared in a block (a closure's body) is a name of that block.
(statement_block (function_declaration name: (identifier) @local))
; Narrowing: inside `if (x instanceof Foo) { ... }`, x is a Foo.
(if_statement condition: (parenthesized_expression (binary_expression operator: "instanceof"))
  consequence: (statement_block) @block)
(if_statement
  condition: (parenthesized_expression
    (binary_expression left: (identifier) @local.narrowed operator: "instanceof"
                       right: [(identifier) (member_expression)] @local.type))
  consequence: (statement_block) @local)
((variable_declarator name: (identifier) @local value: (_) @local.value)
  (#not-match? @local.value "^require[ \t]*\\("))
(variable_declarator name: (identifier) @local !value)
; const {a, b} = obj: a is obj.a
((variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @local) value: (_) @local.of)
  (#not-match? @local.of "^require[ \t]*\\("))
; const {a: b} = obj: b is obj.a
((variable_declarator name: (object_pattern (pair_pattern key: (property_identifier) @local.key value: (identifier) @local))
                      value: (_) @local.of)
  (#not-match? @local.of "^require[ \t]*\\("))
(assignment_expression
  left: (member_expression object: (this) property: [(property_identifier) (private_property_identifier)] @field)
  right: (_) @field.value)
; Foo.prototype.a = Foo.prototype.b, also before `= function` (the last name is the method's):
; a field of Foo holding b
((assignment_expression
  left: (member_expression
    object: (member_expression object: (identifier) @_owner property: (property_identifier) @_prototype)
    property: (property_identifier) @field)
  right: [(member_expression
            object: (member_expression object: (identifier) property: (property_identifier) @_prototype2)
            property: (property_identifier)) @field.value
          (assignment_expression left: (member_expression
            object: (member_expression object: (identifier) property: (property_identifier) @_prototype2)
            property: (property_identifier)) @field.value)])
  (#eq? @_prototype "prototype") (#eq? @_prototype2 "prototype"))
; Foo.prototype[name] = function () {} (methods of names computed in a loop): `this` in it is a Foo
((assignment_expression
  left: (subscript_expression
    object: (member_expression object: (identifier) @local.type property: (property_identifier) @_prototype))
  right: (function_expression) @local @local.self)
  (#eq? @_prototype "prototype"))
; `var self = this; self.x = ...`: a field when the name is bound to `this` there (the extractor checks)
((assignment_expression
  left: (member_expression object: (identifier) @field.alias property: (property_identifier) @field)
  right: (_) @field.value)
  (#match? @field.alias "^(self|that|_this|_self|me)$"))
(for_in_statement left: (identifier) @local)
(for_in_statement left: (identifier) @local "of" right: (_) @local.element)
(catch_clause parameter: (identifier) @local)
; Names a destructuring pattern binds (parameters, see javascript.scm and typescript.scm; loop variables, `catch`, nested patterns,
; `const [a, b] = f()`, `const {a: b, c = 1} = obj`): bound to nothing known, but they hide
; the names of the scopes around. `const {a} = obj` and `require` destructuring are above.
(array_pattern [(identifier) @local (assignment_pattern left: (identifier) @local) (rest_pattern (identifier) @local)])
([(for_in_statement left: (object_pattern [(shorthand_property_identifier_pattern) @local
                                           (object_assignment_pattern left: (shorthand_property_identifier_pattern) @local)
                                           (pair_pattern value: [(identifier) @local (assignment_pattern left: (identifier) @local)])
                                           (rest_pattern (identifier) @local)]))
  (catch_clause parameter: (object_pattern [(shorthand_property_identifier_pattern) @local
                                            (object_assignment_pattern left: (shorthand_property_identifier_pattern) @local)
                                            (pair_pattern value: [(identifier) @local (assignment_pattern left: (identifier) @local)])
                                            (rest_pattern (identifier) @local)]))
  (array_pattern (object_pattern [(shorthand_property_identifier_pattern) @local
                                  (object_assignment_pattern left: (shorthand_property_identifier_pattern) @local)
                                  (pair_pattern value: [(identifier) @local (assignment_pattern left: (identifier) @local)])
                                  (rest_pattern (identifier) @local)]))
  (pair_pattern value: (object_pattern [(shorthand_property_identifier_pattern) @local
                                        (object_assignment_pattern left: (shorthand_property_identifier_pattern) @local)
                                        (pair_pattern value: [(identifier) @local (assignment_pattern left: (identifier) @local)])
                                        (rest_pattern (identifier) @local)]))])
((variable_declarator name: (object_pattern [(object_assignment_pattern left: (shorthand_property_identifier_pattern) @local)
                                              (pair_pattern value: [(identifier) @local (assignment_pattern left: (identifier) @local)])
                                              (rest_pattern (identifier) @local)])
                      value: (_) @_from)
  (#not-match? @_from "^require[ \t]*\\("))

; A member assigned (`api.run = f`, `api[k] = f`): an object literal bound to the name may
; hold something else by then.
(assignment_expression left: [(member_expression object: (identifier) @contents)
                              (subscript_expression object: (identifier) @contents)])
