; Java: package, types, methods and constructors, imports, calls, extends/implements.

(package_declaration [(scoped_identifier) (identifier)] @package)

(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(annotation_type_declaration name: (identifier) @name) @definition.interface
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method

(superclass [(type_identifier) (scoped_type_identifier)] @name) @reference.inherits
(superclass (generic_type [(type_identifier) (scoped_type_identifier)] @name)) @reference.inherits
(super_interfaces (type_list [(type_identifier) (scoped_type_identifier)] @name)) @reference.implements
(super_interfaces (type_list (generic_type [(type_identifier) (scoped_type_identifier)] @name))) @reference.implements
(extends_interfaces (type_list [(type_identifier) (scoped_type_identifier)] @name)) @reference.inherits
(extends_interfaces (type_list (generic_type [(type_identifier) (scoped_type_identifier)] @name))) @reference.inherits

(method_invocation !object name: (identifier) @name) @reference.call
(method_invocation object: (_) @receiver name: (identifier) @name) @reference.call
; Method references are methods used as values: `this::m`, `Type::m`, `obj.f::m`.
(method_reference . [(this) (identifier) (field_access)] @receiver . (identifier) @name) @reference.value
(object_creation_expression type: [(type_identifier) (scoped_type_identifier)] @name) @reference.call
(object_creation_expression type: (generic_type [(type_identifier) (scoped_type_identifier)] @name)) @reference.call

; import a.b.C; import static a.b.C.m; import a.b.*;
((import_declaration (scoped_identifier scope: (_) @import.module name: (identifier) @import.name)) @reference.import
  (#not-match? @reference.import "[*][ \t]*;"))
(import_declaration [(scoped_identifier) (identifier)] @import.module (asterisk) @import.name) @reference.import

; Names bound inside methods: parameters and local variables.
(formal_parameter name: (identifier) @local)
(spread_parameter (variable_declarator name: (identifier) @local))
(local_variable_declaration declarator: (variable_declarator name: (identifier) @local))
(enhanced_for_statement name: (identifier) @local)
(catch_formal_parameter name: (identifier) @local)
