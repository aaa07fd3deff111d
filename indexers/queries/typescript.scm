; TypeScript: JavaScript's definitions plus interfaces, type aliases, enums, namespaces,
; overload signatures and implements clauses.

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(function_signature name: (identifier) @name) @definition.function
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type_alias
(enum_declaration name: (identifier) @name) @definition.enum
(internal_module name: [(identifier) (nested_identifier)] @name) @definition.module
(method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method
(method_signature name: (property_identifier) @name) @definition.method
(abstract_method_signature name: (property_identifier) @name) @definition.method

(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(public_field_definition
  name: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.method

(program (lexical_declaration "const" (variable_declarator name: (identifier) @name) @definition.constant))
(program (lexical_declaration "let" (variable_declarator name: (identifier) @name) @definition.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program (export_statement declaration: (lexical_declaration "const" (variable_declarator name: (identifier) @name) @definition.constant)))
(program (export_statement declaration: (lexical_declaration "let" (variable_declarator name: (identifier) @name) @definition.variable)))

(class_heritage (extends_clause value: [(identifier) (member_expression)] @name) @reference.inherits)
(class_heritage (implements_clause [(type_identifier) (nested_type_identifier)] @name) @reference.implements)
(class_heritage (implements_clause (generic_type name: [(type_identifier) (nested_type_identifier)] @name)) @reference.implements)
(interface_declaration (extends_type_clause type: [(type_identifier) (nested_type_identifier)] @name) @reference.inherits)
(interface_declaration (extends_type_clause type: (generic_type name: [(type_identifier) (nested_type_identifier)] @name)) @reference.inherits)

(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (member_expression object: (_) @receiver property: [(property_identifier) (private_property_identifier)] @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.call
(new_expression constructor: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.call

(import_statement (import_clause (identifier) @import.default) source: (string) @import.module) @reference.import
(import_statement
  (import_clause (named_imports (import_specifier name: (identifier) @import.name alias: (identifier)? @import.alias)))
  source: (string) @import.module) @reference.import
(import_statement (import_clause (namespace_import (identifier) @import.alias)) source: (string) @import.module) @reference.import
(import_statement . "import" . source: (string) @import.module) @reference.import
(import_statement (import_require_clause (identifier) @import.alias source: (string) @import.module)) @reference.import

(variable_declarator
  name: (identifier) @import.alias
  value: (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module))
  (#eq? @_req "require")) @reference.import
(variable_declarator
  name: (object_pattern (shorthand_property_identifier_pattern) @import.name)
  value: (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module))
  (#eq? @_req "require")) @reference.import

; Names bound inside functions: parameters and local variables (not `require` bindings,
; which are imports).
(required_parameter pattern: (identifier) @local)
(optional_parameter pattern: (identifier) @local)
(arrow_function parameter: (identifier) @local)
((variable_declarator name: (identifier) @local value: (_)? @_value)
  (#not-match? @_value "^require[ \t]*\\("))
(for_in_statement left: (identifier) @local)
(catch_clause parameter: (identifier) @local)
