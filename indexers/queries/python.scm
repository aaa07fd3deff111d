; Python: definitions, docstrings, imports, calls and base classes.
; Captures follow the tags.scm convention; see indexers/extract.py for what each one means.

(class_definition
  name: (identifier) @name
  body: (block . (expression_statement . (string) @doc)?)) @definition.class

; A function inside a class body becomes a method (the extractor knows the enclosing kind).
(function_definition
  name: (identifier) @name
  body: (block . (expression_statement . (string) @doc)?)) @definition.function

; Top-level assignments only; ALL_CAPS names become constants.
(module
  (expression_statement
    (assignment left: (identifier) @name) @definition.variable))

(module
  (expression_statement
    (assignment left: (identifier) @name type: (type [(identifier) (attribute)] @_t)) @definition.type_alias)
  (#match? @_t "TypeAlias$"))

(module (type_alias_statement left: (type (identifier) @name)) @definition.type_alias)
; A union written at the top level is an alias too (`LN = Union[Leaf, Node]`, `Optional[...]`).
((module
  (expression_statement
    (assignment left: (identifier) @name right: (subscript value: [(identifier) (attribute)] @_u))
    @definition.type_alias))
  (#match? @_u "(^|[.])(Union|Optional)$"))

; Base classes: plain names and dotted names, generic ones with their type arguments left
; out (`Base[int]`); keyword arguments (metaclass=...) are not bases.
(class_definition
  superclasses: (argument_list [(identifier) (attribute)] @name) @reference.inherits)
(class_definition
  superclasses: (argument_list (subscript value: [(identifier) (attribute)] @name)) @reference.inherits)

; Calls: f(), obj.f(), a.b.f()
(call function: (identifier) @name) @reference.call
(call function: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call
; f()(): a call of what a call returns; fs[0](): of an element
(call function: (call) @receiver) @reference.call
(call function: (subscript) @receiver) @reference.call
; `raise E` constructs E: a call of the class. Only capitalised names (classes by
; convention): `raise exc` re-raises an instance and is no call.
((raise_statement . (identifier) @name) @reference.call (#match? @name "^[A-Z]"))
((raise_statement . (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call
  (#match? @name "^[A-Z]"))
; A decorator is called with the definition: `@dec`, `@mod.dec`; `@make(...)`: what the call
; above returns is.
(decorator (identifier) @name) @reference.call
(decorator (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call
(decorator (call) @receiver) @reference.call

; Functions and classes used as values: arguments, keyword arguments and defaults,
; assignments, elements of lists, tuples, sets and dicts, return values.
; Arguments are also kept with their position or keyword (``@argument``).
(call arguments: (argument_list
  [(identifier) @name (attribute object: (_) @receiver attribute: (identifier) @name)] @reference.value @argument)
  @argument.list)
; An argument that is a call passes what the call returns (kept as an argument only).
(call arguments: (argument_list (call) @reference.value @argument) @argument.list)
(call arguments: (argument_list (keyword_argument
  name: (identifier) @argument.keyword
  value: [(identifier) @name (attribute object: (_) @receiver attribute: (identifier) @name)] @reference.value @argument))
  @argument.list)
(default_parameter
  value: [(identifier) @name (attribute object: (_) @receiver attribute: (identifier) @name)] @reference.value)
(typed_default_parameter
  value: [(identifier) @name (attribute object: (_) @receiver attribute: (identifier) @name)] @reference.value)
(assignment
  right: [(identifier) @name (attribute object: (_) @receiver attribute: (identifier) @name)] @reference.value)
(list [(identifier) @name (attribute object: (_) @receiver attribute: (identifier) @name)] @reference.value)
(tuple [(identifier) @name (attribute object: (_) @receiver attribute: (identifier) @name)] @reference.value)
(set [(identifier) @name (attribute object: (_) @receiver attribute: (identifier) @name)] @reference.value)
(pair
  value: [(identifier) @name (attribute object: (_) @receiver attribute: (identifier) @name)] @reference.value)
(return_statement
  [(identifier) @name (attribute object: (_) @receiver attribute: (identifier) @name)] @reference.value)

; import a.b / import a.b as c
(import_statement name: (dotted_name) @import.module) @reference.import
(import_statement
  name: (aliased_import name: (dotted_name) @import.module alias: (identifier) @import.alias)) @reference.import

; from x import y / from x import y as z / from . import y / from x import *
(import_from_statement
  module_name: (_) @import.module
  name: (dotted_name) @import.name) @reference.import
(import_from_statement
  module_name: (_) @import.module
  name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias)) @reference.import
(import_from_statement
  module_name: (_) @import.module
  (wildcard_import) @import.name) @reference.import

;; Bindings: names bound in a scope and what they are bound to (see extract.py).
; Parameters; an annotation is the declared type.
(parameters [(identifier) @local
             (default_parameter name: (identifier) @local)
             (list_splat_pattern (identifier) @local)
             (dictionary_splat_pattern (identifier) @local)])
(typed_parameter (identifier) @local type: (type) @local.type)
(typed_parameter [(list_splat_pattern (identifier) @local) (dictionary_splat_pattern (identifier) @local)])
(typed_default_parameter name: (identifier) @local type: (type) @local.type)
; A type variable's bound (`T = TypeVar("T", bound=Base)`): a value of type `T` has the
; members of `Base`. Bound in the module as `<T>` (`indexers.bindings.type_parameter`).
((assignment left: (identifier) @generic.name
   right: (call function: [(identifier) @_typevar (attribute attribute: (identifier) @_typevar)]
                arguments: (argument_list (keyword_argument name: (identifier) @_bound value: (_) @generic.type)))) @generic
  (#eq? @_typevar "TypeVar") (#eq? @_bound "bound"))
; A lambda's parameters are its own: bound inside it (its block), not in the function around.
(lambda parameters: (lambda_parameters [(identifier) @local.narrowed
                                        (default_parameter name: (identifier) @local.narrowed)])) @local
(lambda) @block
; Assignments, in functions, at module level and in class bodies (fields of the class).
(assignment left: (identifier) @local !type right: (_) @local.value)
(assignment left: (identifier) @local type: (type) @local.type right: (_)? @local.value)
(assignment left: (pattern_list (identifier) @local))
(assignment left: (tuple_pattern (identifier) @local))
(pattern_list (list_splat_pattern (identifier) @local))
(tuple_pattern (identifier) @local)
; Items assigned or deleted change what a container literal bound to the name (or to a
; field of that name: `self.table[k] = f`) holds.
; The item's key and value are kept too (`REGISTRY["json"] = load_json`: `indexers.bindings.assigned_item`).
(assignment left: (subscript value: [(identifier) @contents (attribute attribute: (identifier) @contents)
                                     (subscript value: [(identifier) (attribute attribute: (identifier))] @contents)]
                             subscript: (_) @contents.key)
            right: (_)? @contents.value)
(augmented_assignment left: (subscript value: [(identifier) @contents (attribute attribute: (identifier) @contents)]))
(delete_statement (subscript value: [(identifier) @contents (attribute attribute: (identifier) @contents)]))
; `a, b = f, g`: the values in order, when there are as many
(assignment left: (pattern_list) @local right: [(expression_list) (assignment)] @local.value)
; `a, b = f()`: the elements of one value, by position
(assignment left: [(pattern_list) (tuple_pattern)] @local right: [(call) (identifier) (attribute) (subscript)] @local.unpacked)
(augmented_assignment left: (identifier) @local)
(for_statement left: (identifier) @local right: (_) @local.element)
(for_statement left: (pattern_list (identifier) @local))
(for_statement left: (tuple_pattern (identifier) @local))
; A comprehension's names are its own (Python 3): bound inside it, not in the function around.
([(list_comprehension (for_in_clause left: (identifier) @local.narrowed right: (_) @local.element))
  (set_comprehension (for_in_clause left: (identifier) @local.narrowed right: (_) @local.element))
  (dictionary_comprehension (for_in_clause left: (identifier) @local.narrowed right: (_) @local.element))
  (generator_expression (for_in_clause left: (identifier) @local.narrowed right: (_) @local.element))] @local)
([(list_comprehension (for_in_clause left: (pattern_list (identifier) @local.narrowed)))
  (set_comprehension (for_in_clause left: (pattern_list (identifier) @local.narrowed)))
  (dictionary_comprehension (for_in_clause left: (pattern_list (identifier) @local.narrowed)))
  (generator_expression (for_in_clause left: (pattern_list (identifier) @local.narrowed)))] @local)
[(list_comprehension) (set_comprehension) (dictionary_comprehension) (generator_expression)] @block
; (a more specific pattern for the same name, with its value, wins over this one)
(as_pattern alias: (as_pattern_target (identifier) @local))
; `except Error as e`: an instance of the class caught
; (one of a tuple's classes), in the function and in its handler alone (a block: Python
; unbinds the name after it, and another handler may bind it to another class).
(except_clause (as_pattern [(identifier) (attribute) (tuple)] @local.type alias: (as_pattern_target (identifier) @local)))
(except_clause value: (as_pattern [(identifier) (attribute)] @local.type
                                  alias: (as_pattern_target (identifier) @local.narrowed)) (block) @local)
(except_clause value: (as_pattern (tuple) @local.type
                                  alias: (as_pattern_target (identifier) @local.narrowed)) (block) @local)
(except_clause value: (as_pattern alias: (as_pattern_target)) (block) @block)
; `for k, v in pairs`: each element's items, by position
(for_statement left: [(pattern_list) (tuple_pattern)] @local right: (_) @local.each)
(with_item value: (as_pattern (_) @local.enter alias: (as_pattern_target (identifier) @local)))
(named_expression name: (identifier) @local value: (_) @local.value)
(global_statement (identifier) @local)
(nonlocal_statement (identifier) @local)
; Attributes assigned through the receiver in a method (`self`, `cls` in a classmethod):
; fields of the class.
((assignment left: (attribute object: (identifier) @_self attribute: (identifier) @field) !type right: (_) @field.value)
  (#match? @_self "^(self|cls)$"))
((assignment left: (attribute object: (identifier) @_self attribute: (identifier) @field) type: (type) @field.type
   right: (_)? @field.value)
  (#match? @_self "^(self|cls)$"))
((assignment left: (pattern_list (attribute object: (identifier) @_self attribute: (identifier) @field)))
  (#match? @_self "^(self|cls)$"))
((augmented_assignment left: (attribute object: (identifier) @_self attribute: (identifier) @field))
  (#match? @_self "^(self|cls)$"))
; What functions return: the annotation, else every returned expression.
(function_definition return_type: (type) @result)
; What a type alias stands for (as `@result` of its definition).
((module (expression_statement (assignment type: (type [(identifier) (attribute)] @_t) right: (_) @result)))
  (#match? @_t "TypeAlias$"))
((module (expression_statement (assignment right: (subscript value: [(identifier) (attribute)] @_u) @result)))
  (#match? @_u "(^|[.])(Union|Optional)$"))
(module (type_alias_statement right: (type) @result))
(return_statement (_) @return)

; `__all__`: the names `from module import *` gives (none listed: every public name). A
; value that is not a literal list is declared as written: the names are then not known.
(module
  (expression_statement
    [(assignment left: (identifier) @_all right: [(list (string (string_content) @name)) (tuple (string (string_content) @name))])
     (augmented_assignment left: (identifier) @_all right: [(list (string (string_content) @name)) (tuple (string (string_content) @name))])]) @declaration
  (#eq? @_all "__all__"))
(module
  (expression_statement
    [(assignment left: (identifier) @_all right: [(identifier) (attribute) (binary_operator) (call) (list_comprehension)] @name)
     (augmented_assignment left: (identifier) @_all right: [(identifier) (attribute) (binary_operator) (call) (list_comprehension)] @name)]) @declaration
  (#eq? @_all "__all__"))
(module
  (expression_statement
    (call function: (attribute object: (identifier) @_all attribute: (identifier)) @name)) @declaration
  (#eq? @_all "__all__"))

; Parameters of a function, in order (what its callers pass them); after `*` or `*args`
; they are keyword-only.
(function_definition
  parameters: (parameters
    [(identifier) @parameter
     (default_parameter name: (identifier) @parameter value: (_) @parameter.default)
     (typed_parameter . (identifier) @parameter)
     (typed_default_parameter name: (identifier) @parameter value: (_) @parameter.default)
     (list_splat_pattern) @parameter.rest @parameter.variadic
     (typed_parameter . (list_splat_pattern)) @parameter.rest @parameter.variadic
     (keyword_separator) @parameter.rest
     (dictionary_splat_pattern) @parameter.rest]))
