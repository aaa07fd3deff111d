; inherits: ecma
; TypeScript: what ecma.scm says, plus classes, interfaces, type aliases, enums, namespaces,
; overload signatures, extends and implements clauses, `import x = require()` and typed
; parameters.

(function_signature name: (identifier) @name) @definition.function
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type_alias
(enum_declaration name: (identifier) @name) @definition.enum
(internal_module name: [(identifier) (nested_identifier)] @name) @definition.module
(method_signature name: (property_identifier) @name) @definition.method
(abstract_method_signature name: (property_identifier) @name) @definition.method

(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method

(class_heritage (extends_clause value: [(identifier) (member_expression)] @name) @reference.inherits)
(class_heritage (implements_clause [(type_identifier) (nested_type_identifier)] @name) @reference.implements)
(class_heritage (implements_clause (generic_type name: [(type_identifier) (nested_type_identifier)] @name)) @reference.implements)
(interface_declaration (extends_type_clause type: [(type_identifier) (nested_type_identifier)] @name) @reference.inherits)
(interface_declaration (extends_type_clause type: (generic_type name: [(type_identifier) (nested_type_identifier)] @name)) @reference.inherits)

(import_statement (import_require_clause (identifier) @import.alias source: (string) @import.module)) @reference.import

; The parameters of a function type (`cb: (r: Reaction) => void`) bind nothing outside it.
(function_type) @block
(required_parameter pattern: (identifier) @local)
(optional_parameter pattern: (identifier) @local)
; A destructured parameter (`({ a, b: c }: Props)`, `([x]: T)`): its names are locals.
([(required_parameter pattern: (object_pattern [(shorthand_property_identifier_pattern) @local
                                                (object_assignment_pattern left: (shorthand_property_identifier_pattern) @local)
                                                (pair_pattern value: [(identifier) @local (assignment_pattern left: (identifier) @local)])
                                                (rest_pattern (identifier) @local)]))
  (optional_parameter pattern: (object_pattern [(shorthand_property_identifier_pattern) @local
                                                (object_assignment_pattern left: (shorthand_property_identifier_pattern) @local)
                                                (pair_pattern value: [(identifier) @local (assignment_pattern left: (identifier) @local)])
                                                (rest_pattern (identifier) @local)]))])
(required_parameter pattern: (rest_pattern (identifier) @local))
; ... of a declared type (`({ filter }: Opts)`): `filter` is the member of that name of an Opts.
([(required_parameter pattern: (object_pattern [(shorthand_property_identifier_pattern) @local
                                                (object_assignment_pattern left: (shorthand_property_identifier_pattern) @local)
                                                (pair_pattern key: (property_identifier) @local.key
                                                              value: [(identifier) @local (assignment_pattern left: (identifier) @local)])])
                      type: (type_annotation (_) @local.of_type))
  (optional_parameter pattern: (object_pattern [(shorthand_property_identifier_pattern) @local
                                                (object_assignment_pattern left: (shorthand_property_identifier_pattern) @local)
                                                (pair_pattern key: (property_identifier) @local.key
                                                              value: [(identifier) @local (assignment_pattern left: (identifier) @local)])])
                      type: (type_annotation (_) @local.of_type))])
; Declared types: parameters (`this: Foo` declares what `this` is in a function), variables (a cast `x as Foo` declares too), class fields and
; constructor parameters that are fields; and declared results of functions and methods.
([(required_parameter pattern: [(identifier) (this)] @local type: (type_annotation (_) @local.type))
  (optional_parameter pattern: (identifier) @local type: (type_annotation (_) @local.type))])
(variable_declarator name: (identifier) @local type: (type_annotation (_) @local.type) value: (_)? @local.value)
(variable_declarator name: (identifier) @local !type
  value: (as_expression (_) @_cast [(type_identifier) (generic_type) (nested_type_identifier)] @local.type))
(public_field_definition name: [(property_identifier) (private_property_identifier)] @local
  type: (type_annotation (_) @local.type) value: (_)? @local.value)
(public_field_definition name: [(property_identifier) (private_property_identifier)] @local !type value: (_) @local.value)
; The properties of an interface or of an alias of an object type are its fields (`window: Subject<T>`).
([(interface_body (property_signature name: (property_identifier) @local type: (type_annotation (_) @local.type)))
  (type_alias_declaration value: (object_type (property_signature name: (property_identifier) @local
                                                                   type: (type_annotation (_) @local.type))))])
([(required_parameter (accessibility_modifier) pattern: (identifier) @field type: (type_annotation (_) @field.type))
  (required_parameter "readonly" pattern: (identifier) @field type: (type_annotation (_) @field.type))
  (optional_parameter (accessibility_modifier) pattern: (identifier) @field type: (type_annotation (_) @field.type))])
([(function_declaration return_type: (type_annotation (_) @result))
  (generator_function_declaration return_type: (type_annotation (_) @result))
  (method_definition return_type: (type_annotation (_) @result))
  (function_signature return_type: (type_annotation (_) @result))
  (method_signature return_type: (type_annotation (_) @result))
  (abstract_method_signature return_type: (type_annotation (_) @result))
  (variable_declarator value: [(arrow_function return_type: (type_annotation (_) @result))
                               (function_expression return_type: (type_annotation (_) @result))])
  (public_field_definition value: [(arrow_function return_type: (type_annotation (_) @result))
                                   (function_expression return_type: (type_annotation (_) @result))])
  (return_statement (function_expression name: (identifier) return_type: (type_annotation (_) @result)))])
; What a type alias stands for (`type AnyRouter = RouterCore<any>`): its members are that type's.
(type_alias_declaration value: [(type_identifier) (generic_type) (nested_type_identifier) (union_type)] @result)
; A parameter's default value is a value (see ecma.scm for the others).
(required_parameter value: [(identifier) @name (member_expression object: (_) @receiver property: (property_identifier) @name)] @reference.value)

(export_statement "default" @import.alias
  declaration: (abstract_class_declaration name: (_) @import.name)) @reference.import @import.export

; Contextual typing: a function-typed parameter says what the function passes to the
; function it is given (`init: (source: Observable<T>, subscriber: Subscriber<R>) => void`),
; and an untyped parameter of a function written as an argument is bound to that.
([(required_parameter type: (type_annotation (function_type parameters: (formal_parameters
    [(required_parameter pattern: (identifier) type: (type_annotation (_) @signature.type))
     (optional_parameter pattern: (identifier) type: (type_annotation (_) @signature.type))] @signature.parameter))))
  (optional_parameter type: (type_annotation (function_type parameters: (formal_parameters
    [(required_parameter pattern: (identifier) type: (type_annotation (_) @signature.type))
     (optional_parameter pattern: (identifier) type: (type_annotation (_) @signature.type))] @signature.parameter))))] @signature)
([(call_expression function: (_) @local.callee
   arguments: (arguments [(arrow_function parameters: (formal_parameters (required_parameter pattern: (identifier) @local !type) @local.parameter))
                          (function_expression parameters: (formal_parameters (required_parameter pattern: (identifier) @local !type) @local.parameter))
                          (arrow_function parameter: (identifier) @local)] @local.argument))
  (new_expression constructor: (_) @local.callee
   arguments: (arguments [(arrow_function parameters: (formal_parameters (required_parameter pattern: (identifier) @local !type) @local.parameter))
                          (function_expression parameters: (formal_parameters (required_parameter pattern: (identifier) @local !type) @local.parameter))
                          (arrow_function parameter: (identifier) @local)] @local.argument))])
; The same in either branch of a conditional argument (`scheduler ? (s) => ... : (s) => ...`).
([(call_expression function: (_) @local.callee
   arguments: (arguments (ternary_expression
     [(arrow_function parameters: (formal_parameters (required_parameter pattern: (identifier) @local !type) @local.parameter))
      (function_expression parameters: (formal_parameters (required_parameter pattern: (identifier) @local !type) @local.parameter))
      (arrow_function parameter: (identifier) @local)]) @local.argument))
  (new_expression constructor: (_) @local.callee
   arguments: (arguments (ternary_expression
     [(arrow_function parameters: (formal_parameters (required_parameter pattern: (identifier) @local !type) @local.parameter))
      (function_expression parameters: (formal_parameters (required_parameter pattern: (identifier) @local !type) @local.parameter))
      (arrow_function parameter: (identifier) @local)]) @local.argument))])
;; What a function is given as each typed parameter (`start(opts: Options)`), for a function
; written as a member of an object literal passed there (below).
((formal_parameters [(required_parameter pattern: (identifier) type: (type_annotation (_) @signature.type))
                     (optional_parameter pattern: (identifier) type: (type_annotation (_) @signature.type))]
   @signature.parameter @signature.given) @signature)
; A type's member holding a function (`effect: (action: A, api: Api) => void`) says what a
; value of the type passes to the function it holds; a function written as a member of an
; object literal that is an argument (`start({ effect: (action, api) => ... })`), or the
; value of a variable of a declared type, binds its untyped parameters to that.
(property_signature name: (property_identifier) @signature.name
  type: (type_annotation (function_type parameters: (formal_parameters
    [(required_parameter pattern: (identifier) type: (type_annotation (_) @signature.type))
     (optional_parameter pattern: (identifier) type: (type_annotation (_) @signature.type))] @signature.parameter)))) @signature
; The same of a function type's alias (`type Handler = (api: Api) => void`), for a function a
; variable of that type holds (`const h: Handler = (api) => ...`).
(type_alias_declaration name: (type_identifier) @signature.name
  value: (function_type parameters: (formal_parameters
    [(required_parameter pattern: (identifier) type: (type_annotation (_) @signature.type))
     (optional_parameter pattern: (identifier) type: (type_annotation (_) @signature.type))] @signature.parameter))) @signature
(variable_declarator type: (type_annotation (type_identifier) @local.alias)
  value: [(arrow_function parameters: (formal_parameters (required_parameter pattern: (identifier) @local !type) @local.parameter))
          (function_expression parameters: (formal_parameters (required_parameter pattern: (identifier) @local !type) @local.parameter))
          (arrow_function parameter: (identifier) @local)] @local.function)
([(call_expression function: (_) @local.callee arguments: (arguments (object [(pair key: (property_identifier) @local.property
                value: [(arrow_function parameters: (formal_parameters (required_parameter pattern: (identifier) @local !type) @local.parameter))
                      (function_expression parameters: (formal_parameters (required_parameter pattern: (identifier) @local !type) @local.parameter))
                      (arrow_function parameter: (identifier) @local)] @local.function)
          (method_definition name: (property_identifier) @local.property
            parameters: (formal_parameters (required_parameter pattern: (identifier) @local !type) @local.parameter)) @local.function]) @local.argument))
  (new_expression constructor: (_) @local.callee arguments: (arguments (object [(pair key: (property_identifier) @local.property
                value: [(arrow_function parameters: (formal_parameters (required_parameter pattern: (identifier) @local !type) @local.parameter))
                      (function_expression parameters: (formal_parameters (required_parameter pattern: (identifier) @local !type) @local.parameter))
                      (arrow_function parameter: (identifier) @local)] @local.function)
          (method_definition name: (property_identifier) @local.property
            parameters: (formal_parameters (required_parameter pattern: (identifier) @local !type) @local.parameter)) @local.function]) @local.argument))])
(variable_declarator type: (type_annotation (_) @local.declared) value: (object [(pair key: (property_identifier) @local.property
                value: [(arrow_function parameters: (formal_parameters (required_parameter pattern: (identifier) @local !type) @local.parameter))
                      (function_expression parameters: (formal_parameters (required_parameter pattern: (identifier) @local !type) @local.parameter))
                      (arrow_function parameter: (identifier) @local)] @local.function)
          (method_definition name: (property_identifier) @local.property
            parameters: (formal_parameters (required_parameter pattern: (identifier) @local !type) @local.parameter)) @local.function]))
; The `this` of a `function` written as an argument is what the callee declares it passes
; as `this` to the function it is given (`work: (this: SchedulerAction<T>) => void`).
([(required_parameter type: (type_annotation (function_type parameters: (formal_parameters
    (required_parameter pattern: (this) type: (type_annotation (_) @signature.type)) @signature.parameter))))
  (optional_parameter type: (type_annotation (function_type parameters: (formal_parameters
    (required_parameter pattern: (this) type: (type_annotation (_) @signature.type)) @signature.parameter))))] @signature)
([(call_expression function: (_) @local.callee arguments: (arguments (function_expression) @local @local.argument @local.self))
  (new_expression constructor: (_) @local.callee arguments: (arguments (function_expression) @local @local.argument @local.self))])

; A type parameter's constraint (`<T extends Base>`): a value of type `T` has the members of
; `Base`. Bound in the generic definition as `<T>` (`indexers.bindings.type_parameter`).
(type_parameter name: (type_identifier) @generic.name constraint: (constraint (_) @generic.type)) @generic
