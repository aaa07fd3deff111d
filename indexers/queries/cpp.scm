; inherits: c-common
; C++: what c-common.scm says, plus classes, structs, namespaces, functions and methods
; (in-class and out-of-line `A::m`), templates, aliases, variables, base classes and calls
; through scopes, templates and `new`.

(function_definition
  declarator: (function_declarator
    declarator: [(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name)] @name)) @definition.function
(function_definition
  declarator: [(pointer_declarator) (reference_declarator)
    (function_declarator
      declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name)] @name)]) @definition.function

(class_specifier name: [(type_identifier) (template_type)] @name body: (field_declaration_list)) @definition.class
(struct_specifier name: [(type_identifier) (template_type)] @name body: (field_declaration_list)) @definition.struct
(namespace_definition name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.module
(alias_declaration name: (type_identifier) @name) @definition.type_alias

(translation_unit (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(namespace_definition body: (declaration_list
  (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable))

(base_class_clause [(type_identifier) (qualified_identifier)] @name) @reference.inherits
(base_class_clause (template_type name: [(type_identifier) (qualified_identifier)] @name)) @reference.inherits

(call_expression function: (qualified_identifier scope: (_) @receiver name: (identifier) @name)) @reference.call
; `a::B::f()`, `a::b::C::f()`: the receiver is the path of every scope.
(call_expression
  function: (qualified_identifier
    scope: (_) @receiver
    name: (qualified_identifier scope: (_) @receiver name: (identifier) @name))) @reference.call
(call_expression
  function: (qualified_identifier
    scope: (_) @receiver
    name: (qualified_identifier
      scope: (_) @receiver
      name: (qualified_identifier scope: (_) @receiver name: (identifier) @name)))) @reference.call
(call_expression function: (template_function name: (identifier) @name)) @reference.call
(new_expression type: (type_identifier) @name) @reference.call
