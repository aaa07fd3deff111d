; Go: package clause, functions, methods qualified by their receiver type, types, top-level
; constants and variables, imports, calls and embedding.

(package_clause (package_identifier) @package)

(function_declaration name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      name: (identifier)? @self
      type: [(type_identifier) @qualifier
             (pointer_type (type_identifier) @qualifier)
             (generic_type type: (type_identifier) @qualifier)
             (pointer_type (generic_type type: (type_identifier) @qualifier))]))
  name: (field_identifier) @name) @definition.method

(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name type: [(type_identifier) (qualified_type) (generic_type) (pointer_type) (slice_type) (map_type) (array_type) (function_type) (channel_type)]) @definition.type_alias
; What a named slice, array or map type holds: its elements are those of the type it stands for.
(type_spec type: [(slice_type) (map_type) (array_type)] @result)
(type_alias name: (type_identifier) @name) @definition.type_alias
; An alias (`type Secret = secret.Secret`) is the type it names: what a conversion gives.
(type_alias type: [(type_identifier) (qualified_type) (generic_type) (pointer_type)] @result)
(method_elem name: (field_identifier) @name) @definition.method

(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)))

; Embedded fields and interfaces: the type gets the embedded type's methods.
(field_declaration_list
  (field_declaration !name type: [(type_identifier) (qualified_type)] @name) @reference.inherits)
(field_declaration_list
  (field_declaration !name type: (pointer_type [(type_identifier) (qualified_type)] @name)) @reference.inherits)
(interface_type (type_elem [(type_identifier) (qualified_type)] @name) @reference.inherits)

(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (selector_expression operand: (_) @receiver field: (field_identifier) @name)) @reference.call
; A generic function given its type arguments, `F[int](x)` and `pkg.F[T](x)`: the grammar reads
; it as a conversion to a generic type.
(type_conversion_expression type: (generic_type type: (type_identifier) @name)) @reference.call
(type_conversion_expression
  type: (generic_type type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name)))
  @reference.call
; ... and with an argument list a conversion cannot have, `F[T](x, y)`: the call of `F[T]`, as of
; any element (`handlers[i](x)`).
(call_expression function: (index_expression) @receiver) @reference.call
; A method of a composite literal, `T{}.m()` / `(&T{}).m()`, or of `new(T)`: the receiver is
; of the type T.
((call_expression
  function: (selector_expression
    operand: (call_expression function: (identifier) @_new arguments: (argument_list . (_) @receiver))
    field: (field_identifier) @name)) @reference.call
  (#eq? @_new "new"))
(call_expression
  function: (selector_expression
    operand: [(composite_literal type: (_) @receiver)
              (parenthesized_expression [(composite_literal type: (_) @receiver)
                                         (unary_expression operand: (composite_literal type: (_) @receiver))])]
    field: (field_identifier) @name)) @reference.call

; Functions used as values: arguments (callbacks), elements and field values of composite
; literals (handler tables), right sides of assignments, return values.
(argument_list [(identifier) @name (selector_expression operand: (_) @receiver field: (field_identifier) @name)] @reference.value)
; (a keyed element's key is a field name or a map key, not a reference)
(literal_value (literal_element [(identifier) @name (selector_expression operand: (_) @receiver field: (field_identifier) @name)] @reference.value))
(keyed_element value: (literal_element [(identifier) @name (selector_expression operand: (_) @receiver field: (field_identifier) @name)] @reference.value))
(assignment_statement right: (expression_list [(identifier) @name (selector_expression operand: (_) @receiver field: (field_identifier) @name)] @reference.value))
(short_var_declaration right: (expression_list [(identifier) @name (selector_expression operand: (_) @receiver field: (field_identifier) @name)] @reference.value))
(var_spec value: (expression_list [(identifier) @name (selector_expression operand: (_) @receiver field: (field_identifier) @name)] @reference.value))
(return_statement (expression_list [(identifier) @name (selector_expression operand: (_) @receiver field: (field_identifier) @name)] @reference.value))

(import_spec
  name: [(package_identifier) (dot) (blank_identifier)]? @import.alias
  path: [(interpreted_string_literal) (raw_string_literal)] @import.module) @reference.import

;; Bindings: names bound in a scope and what they are bound to (see extract.py). A Go name
;; keeps the static type of its declaration: plain assignments do not rebind it.
; A function literal's parameters and locals are its own; so are the names an `if`, `for`,
; `switch` or `select` statement, one of its cases or a nested block declares
; (`if v, ok := x.(T); ok {}` beside `if v, ok := x.(U); ok {}`).
[(func_literal) (if_statement) (for_statement) (expression_switch_statement) (type_switch_statement)
 (select_statement) (expression_case) (type_case) (default_case) (communication_case)] @block
(statement_list (block) @block)
; Parameters, receivers and named results, with their declared types.
(parameter_declaration name: (identifier) @local type: (_) @local.type)
(variadic_parameter_declaration name: (identifier) @local)
; `x := ...` and `var x = ...`: the first name takes the first value; the names a call with
; several results gives take them by position (`x, err := New()`: `New()[i:0]`, `[i:1]`). A
; composite literal `T{}` / `&T{}`, a type assertion `v.(T)` and `new(T)` state the type.
(short_var_declaration left: (expression_list (identifier) @local))
(short_var_declaration
  left: (expression_list . (identifier) @local .)
  right: (expression_list . [(call_expression) (identifier) (selector_expression) (index_expression)
                             (type_conversion_expression)] @local.value))
(short_var_declaration
  left: (expression_list . (identifier) @local (_))
  right: (expression_list . [(identifier) (selector_expression) (index_expression)] @local.value))
(short_var_declaration
  left: (expression_list . (identifier) @local (_))
  right: (expression_list . [(call_expression) (type_conversion_expression)] @local.value (_)))
; (`New2Q[int, int](128)` reads as a conversion; with two names it is a generic call.)
(short_var_declaration
  left: (expression_list (_) (_)) @local
  right: (expression_list . [(call_expression) (type_conversion_expression)] @local.unpacked .))
(short_var_declaration
  left: (expression_list . (identifier) @local)
  right: (expression_list . [(composite_literal type: (_) @local.type)
                             (unary_expression operator: "&" operand: (composite_literal type: (_) @local.type))
                             (type_assertion_expression type: (_) @local.type)]))
((short_var_declaration
  left: (expression_list . (identifier) @local)
  right: (expression_list . (call_expression function: (identifier) @_new arguments: (argument_list . (_) @local.type))))
  (#eq? @_new "new"))
; Constants of a declared type; in a group, one written without type and value repeats the
; one above (`FgHiBlack Color = iota + 90`, then `FgHiRed`: a Color too).
(const_spec name: (identifier) @local type: (_) @local.type)
((const_spec name: (identifier) @local !type !value) @local.repeated)
(var_spec name: (identifier) @local)
(var_spec name: (identifier) @local type: (_) @local.type)
(var_spec
  name: (identifier) @local
  !type
  value: (expression_list . [(call_expression) (identifier) (selector_expression) (index_expression)
                             (type_conversion_expression)] @local.value))
(var_spec
  name: (identifier) @local
  !type
  value: (expression_list . [(composite_literal type: (_) @local.type)
                             (unary_expression operator: "&" operand: (composite_literal type: (_) @local.type))]))
(range_clause left: (expression_list (identifier) @local))
; The second of `for i, v := range xs`: an element of a slice, array or map.
(range_clause left: (expression_list (_) . (identifier) @local) right: (_) @local.element)
(type_switch_statement alias: (expression_list (identifier) @local))
; In a case of one type, the alias is of that type.
(type_switch_statement alias: (expression_list (identifier) @local.narrowed)
  (type_case . type: (_) @local.type . (statement_list)) @local)
; Fields of a struct type, with their declared types. An embedded one (a base, above) is also
; a field named by its type: `e.RouterGroup`.
(type_spec type: (struct_type (field_declaration_list
  (field_declaration name: (field_identifier) @local type: (_) @local.type))))
(type_spec type: (struct_type (field_declaration_list
  (field_declaration !name type: [(type_identifier) @local
                                  (qualified_type name: (type_identifier) @local)
                                  (pointer_type [(type_identifier) @local
                                                 (qualified_type name: (type_identifier) @local)])] @local.type))))
; Declared results: the type, or the first of several (a slice or map: of its elements).
(function_declaration result: [(type_identifier) (pointer_type) (qualified_type) (generic_type) (slice_type) (array_type) (map_type)] @result)
(function_declaration result: (parameter_list . (parameter_declaration type: (_) @result)))
(method_declaration result: [(type_identifier) (pointer_type) (qualified_type) (generic_type) (slice_type) (array_type) (map_type)] @result)
(method_declaration result: (parameter_list . (parameter_declaration type: (_) @result)))
(method_elem result: [(type_identifier) (pointer_type) (qualified_type) (generic_type) (slice_type) (array_type) (map_type)] @result)
(method_elem result: (parameter_list . (parameter_declaration type: (_) @result)))

; A type parameter's constraint (`[T Stringer]`): a value of type `T` has the methods of
; `Stringer`. Bound in the generic definition as `<T>` (`indexers.bindings.type_parameter`).
(type_parameter_declaration name: (identifier) @generic.name type: (type_constraint (_) @generic.type)) @generic
