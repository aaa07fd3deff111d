; Rust: items, impl blocks as scopes, trait impls, use declarations, calls.

(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type_alias
(mod_item name: (identifier) @name body: (declaration_list)) @definition.module
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable
(macro_definition name: (identifier) @name) @definition.function

; `impl Type { fn m() }` qualifies m as Type.m without being a symbol itself.
(impl_item type: [(type_identifier) (scoped_type_identifier) (generic_type)] @name) @scope

(impl_item
  trait: [(type_identifier) (scoped_type_identifier) (generic_type)] @name
  type: [(type_identifier) (scoped_type_identifier) (generic_type)] @subject) @reference.implements
(trait_item bounds: (trait_bounds [(type_identifier) (scoped_type_identifier)] @name) @reference.inherits)

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (scoped_identifier path: (_) @receiver name: (identifier) @name)) @reference.call
(call_expression function: (field_expression value: (_) @receiver field: (field_identifier) @name)) @reference.call
; Functions used as values: arguments (callbacks), array elements, `let` values.
(arguments [(identifier) @name (scoped_identifier path: (_) @receiver name: (identifier) @name)] @reference.value)
(array_expression [(identifier) @name (scoped_identifier path: (_) @receiver name: (identifier) @name)] @reference.value)
(let_declaration value: [(identifier) @name (scoped_identifier path: (_) @receiver name: (identifier) @name)] @reference.value)
(call_expression function: (generic_function function: (identifier) @name)) @reference.call
(call_expression
  function: (generic_function function: (scoped_identifier path: (_) @receiver name: (identifier) @name))) @reference.call
(call_expression
  function: (generic_function function: (field_expression value: (_) @receiver field: (field_identifier) @name))) @reference.call

; use a; use a::b; use a::b as c; use a::{b, c as d}; use a::*;
(use_declaration argument: (identifier) @import.module) @reference.import
(use_declaration argument: (scoped_identifier path: (_) @import.module name: (identifier) @import.name)) @reference.import
(use_declaration
  argument: (use_as_clause path: (scoped_identifier path: (_) @import.module name: (identifier) @import.name) alias: (identifier) @import.alias)) @reference.import
(use_declaration
  argument: (use_as_clause path: (identifier) @import.module alias: (identifier) @import.alias)) @reference.import
(use_declaration
  argument: (scoped_use_list path: (_) @import.module list: (use_list [(identifier) (self)] @import.name))) @reference.import
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.module
    list: (use_list (use_as_clause path: (identifier) @import.name alias: (identifier) @import.alias)))) @reference.import
(use_declaration argument: (use_wildcard (_) @import.module) @import.wildcard) @reference.import

; Names bound inside functions: parameters and let bindings.
(parameter pattern: (identifier) @local)
(let_declaration pattern: (identifier) @local)
(closure_parameters (identifier) @local)
(for_expression pattern: (identifier) @local)
