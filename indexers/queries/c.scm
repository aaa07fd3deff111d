; C: function definitions, structs, unions, enums, typedefs, macros, top-level variables,
; includes and calls. Prototypes are declarations, not definitions, and are not symbols.

(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition
  declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))) @definition.function

(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum
(type_definition declarator: (type_identifier) @name @definition.type_alias)
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name @definition.type_alias))
(type_definition declarator: (array_declarator declarator: (type_identifier) @name @definition.type_alias))
(type_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name @definition.type_alias))))

(preproc_def name: (identifier) @name) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.function

; Variables: declarations at the top level or in a preprocessor conditional at any depth (the
; same shapes in a function body match too, and nesting drops them: locals are not symbols).
; An `extern` declaration promises a variable defined elsewhere.
((declaration
  (storage_class_specifier)* @_storage
  declarator: [(identifier) @name
               (pointer_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])
               (array_declarator declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])
               (init_declarator
                 declarator: [(identifier) @name
                              (pointer_declarator
                                declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])
                              (array_declarator
                                declarator: [(identifier) @name (array_declarator declarator: (identifier) @name)])])]) @definition.variable
  (#not-any-of? @_storage "extern"))

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression argument: (_) @receiver field: (field_identifier) @name)) @reference.call

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
