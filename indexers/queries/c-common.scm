; What C and C++ write alike: unions, enums, plain typedefs, macros, calls, includes,
; prototypes and local names. c.scm and cpp.scm start with `; inherits: c-common`.

(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum
(type_definition declarator: (type_identifier) @name @definition.type_alias)

(preproc_def name: (identifier) @name) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.function

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
