; inherits: ecma
; JavaScript (also JSX): what ecma.scm says, plus classes, class fields, extends, renamed
; CommonJS imports and parameters as the JavaScript grammar writes them.

(class_declaration name: (identifier) @name) @definition.class

; class fields holding functions: handle = () => {}
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method

(class_declaration (class_heritage [(identifier) (member_expression)] @name) @reference.inherits)

; const {a, b: c} = require("m")
(variable_declarator
  name: (object_pattern (pair_pattern key: (property_identifier) @import.name value: (identifier) @import.alias))
  value: (call_expression function: (identifier) @_req arguments: (arguments . (string) @import.module))
  (#eq? @_req "require")) @reference.import

; class fields: what they are first bound to
(field_definition property: [(property_identifier) (private_property_identifier)] @local value: (_) @local.value)

(formal_parameters [(identifier) @local (assignment_pattern left: (identifier) @local) (rest_pattern (identifier) @local)])
(formal_parameters (object_pattern [(shorthand_property_identifier_pattern) @local
                                     (object_assignment_pattern left: (shorthand_property_identifier_pattern) @local)
                                     (pair_pattern value: [(identifier) @local (assignment_pattern left: (identifier) @local)])
                                     (rest_pattern (identifier) @local)]))

; util.inherits(Child, Base), inherits(Child, Base): Node's idiom for a constructor function's base
((call_expression
   function: [(identifier) @_inherits (member_expression property: (property_identifier) @_inherits)]
   arguments: (arguments . (identifier) @subject . [(identifier) (member_expression)] @name .))
  (#eq? @_inherits "inherits")) @reference.inherits
