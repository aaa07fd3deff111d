; C++: classes, structs, namespaces, functions and methods (in-class and out-of-line `A::m`),
; templates, typedefs and aliases, includes, calls and base classes.

(function_definition
  declarator: (function_declarator
    declarator: [(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name)] @name)) @definition.function
(function_definition
  declarator: [(pointer_declarator) (reference_declarator)
    (function_declarator
      declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name)] @name)]) @definition.function

(class_specifier name: [(type_identifier) (template_type)] @name body: (field_declaration_list)) @definition.class
(struct_specifier name: [(type_identifier) (template_type)] @name body: (field_declaration_list)) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum
(namespace_definition name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.module
(type_definition declarator: (type_identifier) @name @definition.type_alias)
(alias_declaration name: (type_identifier) @name) @definition.type_alias

(preproc_def name: (identifier) @name) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.function

(translation_unit (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(namespace_definition body: (declaration_list
  (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable))

(base_class_clause [(type_identifier) (qualified_identifier)] @name) @reference.inherits
(base_class_clause (template_type name: [(type_identifier) (qualified_identifier)] @name)) @reference.inherits

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression argument: (_) @receiver field: (field_identifier) @name)) @reference.call
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

(preproc_include path: [(string_literal) (system_lib_string)] @import.module) @reference.import

; Prototypes: what a header promises to callers (the definition lives in a source file).
(declaration declarator: (function_declarator declarator: (identifier) @name)) @declaration
(declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @declaration

; Names bound inside functions: parameters and local variables (function pointers).
(parameter_declaration declarator: (identifier) @local)
(parameter_declaration declarator: (pointer_declarator declarator: (identifier) @local))
(parameter_declaration declarator: (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @local))))
(compound_statement (declaration declarator: (init_declarator declarator: (identifier) @local)))
(compound_statement (declaration declarator: (identifier) @local))
