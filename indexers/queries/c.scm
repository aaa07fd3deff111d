; inherits: c-common
; C: what c-common.scm says, plus function definitions (also returning pointers), structs,
; typedefs of pointers, arrays and function pointers, and top-level variables. Prototypes
; are declarations, not definitions, and are not symbols.

(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition
  declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))) @definition.function

(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name @definition.type_alias))
(type_definition declarator: (array_declarator declarator: (type_identifier) @name @definition.type_alias))
(type_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name @definition.type_alias))))

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
