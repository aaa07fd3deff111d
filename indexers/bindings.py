"""Bindings: what the ``@local``, ``@field``, ``@result``, ``@return`` and ``@signature``
captures say about a name (see the capture vocabulary in ``indexers/extract.py``): its
declared type as written, or the expression it is bound to as a chain (``indexers/text.py``).
The resolver's ``types`` module evaluates them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from operator import itemgetter

import tree_sitter

from graphsvc.model import _slot_init
from indexers.languages import LanguageSpec
from indexers.text import MAX_VALUE, may_start_chain, strip_string, unqualified_type, value_chain, without_postfix

BINDING_ROLES = frozenset({"local", "field", "result", "return", "signature", "generic"})
# The name a function's result is bound to in ``Binding`` (no identifier can be it).
RESULT = "()"
# The name a decorated function's own scope binds to what its decorators make of it, and
# (when its outermost decorator is a call: ``@app.task(retries=3)``) to how many positional
# arguments that call passes, as digits.
DECORATED = "@"
FACTORY_ARGUMENTS = "@()"
# After a name bound at a module's or class's top level to a call (`alias = wrap("a", f)`):
# the name that binds the call's positional arguments, as written, tab-separated.
ARGUMENTS = "()"


# A chain step and binding name (no identifier can be it): what the function called passes
# as parameter ``b`` to the function it takes as parameter ``a`` (``operate((s, sub) => ...)``);
# ``b`` is the self name for what it passes as the function's ``this``.
# ``a`` may be a member's name: what a value of a type passes as parameter ``b`` to the
# function its member ``a`` holds (``{ effect: (action, api) => ... }`` of a declared
# ``Options``); ``b`` is ``GIVEN`` for what the function is given as its parameter ``a``.
CALLBACK = re.compile(r"\((\d+|[A-Za-z_$][\w$]*)\.(\d+|=|[A-Za-z_$][\w$]*)\)")
GIVEN = "="


def callback_parameter(argument: int | str, parameter: int | str) -> str:
    return f"({argument}.{parameter})"
ELEMENT = "[]"  # in a bound expression: one element of what precedes it
ANY_KEY = "?"  # the key of a literal's entry whose key is no literal
UNREAD = "0"  # the value of an object literal's member that is no chain (`{a: 1}`): not known
SPREAD = "..."  # the key of an object literal's spread entry (`{...a}`): the members of its value
# In a bound expression: every element of what precedes it in turn (a loop's variable). Read
# as ``ELEMENT`` by the types; a call of a name bound so calls each entry of a literal.
EACH = "[*]"


def type_parameter(name: str) -> str:
    """The binding name of a type parameter ``name`` (``<T extends Base>``: ``<T>``), bound in
    the generic definition to its constraint (no identifier can be it)."""
    return f"<{name}>"
ANONYMOUS = "<anonymous>"  # a bound expression that is a function without a symbol (a lambda)
# A bound expression that is the definition whose id follows (``#m.ts#f@2``): the name a function literal is given (`const f = () => ...`).
DEFINED = "#"
# A bound expression that is one of several chains (``a if c else b``): ``?a|b``.
ALTERNATIVES = "?"
STRAIGHT = "~"  # a block of statements run in place (`Binding.block`), not a closure
# A chain whose head is a cast to a named type (``(x as Foo).a`` -> ``<Foo>.a``): an instance
# of the type, whatever ``x`` is.
CAST = "<"
# A bound array literal of one element chain (``[new Subject()]`` -> ``[Subject()]``): a
# container of what the chain is.
TYPED_ARRAY = "["
# A declared type that is what the name's declared type around says but these
# (``~A | B``: where ``isinstance(x, (A, B))`` failed).
EXCLUDED = "~"
# The types a cast head may name: no union, list or function type, whose separators chains use.
_CAST_TYPE = re.compile(r"[A-Za-z_$][\w$.]*(?:<[\w$.<> \[\]]*>)?")
_CHAIN_LINKS = frozenset({"member_expression", "call_expression", "subscript_expression", "non_null_expression",
                          "attribute", "call", "subscript"})

_WS = re.compile(r"\s+")
_START = itemgetter(1)
_TYPE_VALUE = {role: (f"{role}.type", f"{role}.value") for role in ("local", "field")}
_KEY = re.compile(r"[\w.-]*")  # keys a chain can name (``d["k"]``)
_CALLABLE_DEFS = frozenset({"function", "method"})  # a field holding a function is a method


@_slot_init  # built by the hundred thousand, in extraction and decoding
@dataclass(slots=True, frozen=True)
class Binding:
    """A name bound in a scope, with what it is bound to as far as the source says."""

    scope: str  # id of the function, type (a field) or file the name is bound in
    name: str  # RESULT for what a function returns
    type: str | None  # declared type as written
    value: str | None  # bound expression (``@local.value``); both None: bound to something unknown
    line: int
    context: str | None = None  # where ``value`` is read when not in ``scope`` (the method of ``self.x = v``)
    # The blocks (``@block``) around the name inside ``scope``, outermost first ("" for none):
    # a name bound in a closure is not the same name outside it. Statements after an
    # assignment of a name bound again (`indexers.rebinding`) are STRAIGHT + start: they run in place.
    block: str = ""


def binding_items(spec: LanguageSpec, binds: list[tuple[str, dict]]) -> list[tuple]:
    """(first byte, role, name node, type text, value text, name or None for the node's text)
    of each bound name of the matches, in source order. A name matched by a general and a specific pattern keeps what the specific one
    says (a declared type over a value, a value over nothing). A list of names bound to a list of values (``a, b = f, g``) pairs them in order
    when there are as many, else binds them to nothing known. Names bound to the null
    literal are left out."""
    best: dict[tuple[str, int], tuple] = {}
    for role, caps in binds:
        if len(caps) == 1 and (role == "local" or role == "field"):
            nodes = caps[role]
            if len(nodes) == 1:
                # The name alone (parameters, loop variables): says nothing, unless a
                # nested pattern whose names have their own matches.
                node = nodes[0]
                if node.named_child_count:
                    continue
                start = node.start_byte
                if (role, start) not in best:
                    best[(role, start)] = (0, start, role, node, None, None, None)
                continue
        for node, type_text, value_text in _bound(spec, role, caps):
            name = _signature_name(spec, caps) if role == "signature" else (
                type_parameter(_text(caps["generic.name"][0])) if role == "generic" else
                _text(caps["local.narrowed"][0]) if "local.narrowed" in caps else
                min(spec.self_names) if "local.self" in caps else None)
            if value_text == "":  # the null literal: says nothing about the name, its declared type does
                if type_text is None:
                    continue
                value_text = None
            if name is None and (role == "local" or role == "field") and node.named_child_count:
                continue  # a nested pattern (`a, (b, c) = ...`): its names have their own matches
            # What a match says: nothing, a value, or a declared type (`new(T)` beside `f()`).
            known = 2 if type_text is not None else 1 if value_text is not None else 0
            start = node.start_byte
            # A narrowing block (Python's) starts where its first statement does: a name.
            key = (role, start) if "local.narrowed" not in caps else (role, start, name)
            old = best.get(key)
            if old is None or known > old[0]:
                best[key] = (known, start, role, node, type_text, value_text, name)
    return [item[1:] for item in sorted(best.values(), key=_START)]


def defined_names(items: list[tuple], enclosing: list) -> dict[int, str]:
    """The items (of ``binding_items``) that name the function around them as its definition
    does (`const f = () => ...`), with what they are bound to: that definition (``DEFINED``).
    Such a name is bound in the scope around the definition, so that closures side by side
    may each define one of that name."""
    out = {}
    for i, ((_, role, node, _, _, _), encl) in enumerate(zip(items, enclosing)):
        # The name first: a node's parent is found by a walk down from the root.
        if encl is None or encl.kind not in _CALLABLE_DEFS or encl.sym is None:
            continue
        if (role == "local" and _text(node) == encl.name and node.parent is not None and node.parent.id == encl.node.id
                or role == "return" and node.id == encl.node.id):  # `return function make() {}`
            out[i] = DEFINED + encl.sym.id
    return out


def _bound(spec: LanguageSpec, role: str, caps: dict) -> list[tuple]:
    nodes = caps[role]
    if role == "result":
        return [(nodes[0], _result_tuple(spec, nodes[0]) or type_text(nodes[0]), None)]
    if role == "return":
        return [(nodes[0], None, value_of(spec, nodes[0]))]
    if role == "signature":
        return [(caps["signature.parameter"][0], type_text(caps["signature.type"][0]), None)]
    if role == "generic":
        return [(nodes[0], type_text(caps["generic.type"][0]), None)]
    if role + ".unpacked" in caps:
        return _unpacked(spec, nodes[0].named_children, value_of(spec, caps[role + ".unpacked"][0]))
    if role + ".each" in caps:
        names, iterable = nodes[0].named_children, caps[role + ".each"][0]
        return _each_of(spec, names, iterable) or _unpacked(spec, names, elements_of(spec, iterable))
    if "local.repeated" in caps:  # Go's `const ( A Color = iota; B )`: B is of A's type
        return [(nodes[0], _repeated_type(caps["local.repeated"][0]), None)]
    if role == "local" and "local.excluded" in caps:  # a failed type test (`indexers.narrowing`)
        return [(nodes[0], EXCLUDED + " | ".join(filter(None, map(type_text, caps["local.excluded"]))), None)]
    type_cap, value_cap = _TYPE_VALUE[role]
    decl, values = caps.get(type_cap), caps.get(value_cap)
    if len(nodes) == 1 and values and nodes[0].named_child_count:
        value = _assigned(spec, values[0])
        if value.type in spec.sequence_literals:
            return _paired(spec, nodes[0].named_children, value.named_children)
        return _unpacked(spec, nodes[0].named_children, value_of(spec, value))
    if len(nodes) != 1:
        return [(n, None, None) for n in nodes]
    # Several type nodes, or a tuple of them: a union (`isinstance(x, (A, B))`, `except (A, B) as e`).
    if decl and len(decl) == 1 and decl[0].type in spec.sequence_literals:
        decl = [n for n in decl[0].named_children if n.type not in spec.comment_node_types]
    declared = (type_text(decl[0]) if len(decl) == 1 else " | ".join(map(type_text, decl))) if decl else None
    if declared and spec.type_qualifiers:
        declared = unqualified_type(declared, spec.type_qualifiers)
    if values:
        return [(nodes[0], declared, value_of(spec, values[0]))]
    return [(nodes[0], declared, _bound_value(spec, role, caps))]


def _repeated_type(spec_node: tree_sitter.Node) -> str | None:
    """The type a constant without type and value repeats: the nearest one above it in its
    group that has a type; None when the nearest with a value has none (an untyped one)."""
    node = spec_node.prev_named_sibling
    while node is not None:
        if node.type == spec_node.type:
            declared = node.child_by_field_name("type")
            if declared is not None:
                return type_text(declared)
            if node.child_by_field_name("value") is not None:
                return None
        node = node.prev_named_sibling
    return None


def _result_tuple(spec: LanguageSpec, node: tree_sitter.Node) -> str | None:
    """Go's results when there are several (``(c *Conn, err error)``, ``(a, b int)``): the tuple
    of their types, "(*Conn, error)"; None for one result."""
    if spec.result_lists is None:
        return None
    decl = node.parent
    if decl is None or decl.type != spec.result_lists[1] or decl.parent is None or decl.parent.type != spec.result_lists[0]:
        return None
    types = []
    for d in decl.parent.named_children:
        t = d.child_by_field_name("type") if d.type == spec.result_lists[1] else None
        if t is None:
            return None
        text = type_text(t)
        if text is None:
            return None
        types += [text] * max(1, len(d.children_by_field_name("name")))
    return "(" + ", ".join(types) + ")" if len(types) > 1 else None


def _assigned(spec: LanguageSpec, node: tree_sitter.Node) -> tree_sitter.Node:
    """The value a chain of assignments assigns (``b = c = f``: ``f``)."""
    while node.type in spec.chained_assignments and node.child_by_field_name("right") is not None:
        node = node.child_by_field_name("right")
    return node


def _paired(spec: LanguageSpec, names: list[tree_sitter.Node], elements: list[tree_sitter.Node]) -> list[tuple]:
    """A list of names bound to a list of values (``a, b = f, g``): each name with the value at
    its place, counted from the end after a starred name (``a, *b, c = f, g, h, i``: ``b`` is
    the list of those between); a nested list of names with the elements of its value
    (``a, (b, c) = f, (g, h)``). Names of lists that do not line up are bound to nothing known."""
    stars = [i for i, n in enumerate(names) if "splat" in n.type]
    if len(stars) > 1 or len(elements) < len(names) - len(stars) or (not stars and len(elements) != len(names)):
        return [(n, None, None) for n in names]
    star = stars[0] if stars else len(names)
    tail = len(names) - star - 1  # names after the starred one, matched from the end
    out: list[tuple] = []
    for i, name in enumerate(names):
        if i == star:
            middle = elements[star:len(elements) - tail]
            rest = [value_of(spec, v) for v in middle]
            listed = "{" + ",".join(f"i:{k}={v}" for k, v in enumerate(rest)) + "}"
            ok = rest and all(rest) and len(listed) <= MAX_VALUE
            out.append((name.named_children[0] if name.named_child_count else name, None, listed if ok else None))
            continue
        value = elements[i] if i < star else elements[len(elements) - (len(names) - i)]
        if name.named_child_count:  # a nested list of names: the elements of its value
            inner = value.named_children if value.type in spec.sequence_literals else None
            if inner is not None:
                out.extend(_paired(spec, name.named_children, inner))
            else:
                out.extend(_unpacked(spec, name.named_children, value_of(spec, value)))
            continue
        out.append((name, None, value_of(spec, value)))
    return out


def _unpacked(spec: LanguageSpec, names: list[tree_sitter.Node], value: str | None) -> list[tuple]:
    """Names bound to the elements of one value by position (``a, b = f()``: ``f()[i:0]``,
    ``f()[i:1]``); from a splat on (``a, *rest = ...``), positions are not known."""
    out = []
    for k, name in enumerate(names):
        if name.named_child_count:  # a splat or a nested list: its names are unknown
            value = None
            out.append((name, None, None))
            continue
        out.append((name, None, _then(value, f"[i:{k}]")))
    return out


def elements_of(spec: LanguageSpec, iterable: tree_sitter.Node, step: str = ELEMENT) -> str | None:
    """An element of ``iterable`` as a chain (``EACH`` for a loop's: every one in turn): its
    elements, or those of the argument of a builtin that gives the same ones (``sorted(xs)``:
    ``xs[]``)."""
    args = _element_call(spec, iterable, 0)
    return _then(value_of(spec, args[0] if args and len(args) == 1 else iterable), step)


def _each_of(spec: LanguageSpec, names: list[tree_sitter.Node], iterable: tree_sitter.Node) -> list[tuple] | None:
    """Names a loop binds to the numbered or paired elements of builtins (``for i, x in
    enumerate(xs)``: ``x`` is an element of ``xs``; ``for a, b in zip(xs, ys)``); None for
    any other loop."""
    if any(n.named_child_count for n in names):
        return None
    numbered, paired = _element_call(spec, iterable, 1), _element_call(spec, iterable, 2)
    if numbered and len(numbered) == 1 and len(names) == 2:
        return [(names[0], None, None), (names[1], None, elements_of(spec, numbered[0], EACH))]
    if paired and len(paired) == len(names):
        return [(name, None, elements_of(spec, arg, EACH)) for name, arg in zip(names, paired)]
    return None


def _element_call(spec: LanguageSpec, node: tree_sitter.Node, form: int) -> list[tree_sitter.Node] | None:
    """The positional arguments of a call of one of the language's `element_calls` of the
    ``form`` (0: same elements, 1: numbered, 2: paired, 3: one, 4: the next); None for others."""
    forms = spec.element_calls.get(node.type)
    function, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if forms is None or function is None or args is None or _text(function) not in forms[form]:
        return None
    return [a for a in args.named_children if a.child_by_field_name("name") is None
            and a.type not in spec.comment_node_types and "splat" not in a.type]


def _async_enter(spec: LanguageSpec, node: tree_sitter.Node) -> str:
    """The language's ``context_enter_async`` when ``node`` is the context of an ``async with``."""
    for _ in range(4):  # as_pattern, with_item, with_clause, with_statement
        node = node.parent
        if node is None or node.type == "with_statement":
            break
    return spec.context_enter_async if node is not None and node.child(0).type == "async" else ""


def _bound_value(spec: LanguageSpec, role: str, caps: dict) -> str | None:
    """What ``.enter`` / ``.element`` / ``.of`` captures bind a name to, as a chain."""
    if len(caps) == 1:
        return None  # the name alone (most bindings): nothing said
    if role + ".enter" in caps and spec.context_enter:
        node = caps[role + ".enter"][0]
        value = value_of(spec, node)
        return _then(value, f".{_async_enter(spec, node) or spec.context_enter}()")
    if role + ".element" in caps:
        node = caps[role + ".element"][0]
        loop = node.parent
        if spec.async_iteration and loop is not None and loop.child(0).type == "async":  # `async for x in y`
            return _then(value_of(spec, node), ".{}().{}()".format(*spec.async_iteration))
        return elements_of(spec, node, EACH)
    if role + ".of" in caps or role + ".of_type" in caps:  # by the name, or the key it is bound from (`{a: b}`)
        value = value_of(spec, caps[role + ".of"][0]) if role + ".of" in caps else _an_instance(caps[role + ".of_type"][0])
        return _then(value, f".{_text(caps.get(role + '.key', caps[role])[0])}")
    if role + ".callee" in caps:
        return _callback_value(spec, caps, role)
    if role + ".declared" in caps:  # `const o: Options = { effect: (action, api) => ... }`
        held = _an_instance(caps[role + ".declared"][0])
        return held and f"{held}.{_member_parameter(spec, caps, role)}"
    if role + ".alias" in caps:  # `const h: Handler = (api) => ...`: what the alias's function type passes
        alias = _text(caps[role + ".alias"][0])
        return f"{alias}.{callback_parameter(alias, _parameter_position(spec, caps, role, caps[role + '.function'][0]))}"
    return None


def _an_instance(type_node: tree_sitter.Node) -> str | None:
    """A value of a declared type (`({ filter }: Opts)`) as a chain's head: an instance of the
    type when it is named (`Opts`, `Opts<T>`, `A | B`), None for one written out."""
    text = type_text(type_node)
    return f"{CAST}{text}>" if text and not any(c in text for c in "{(=&") else None


def _callback_value(spec: LanguageSpec, caps: dict, role: str) -> str | None:
    """A parameter of a function written as an argument (``operate((source, sub) => ...)``):
    what the called function passes for it, as its declared parameter type says; of a
    function written as a member of an object literal argument (``start({ effect: (action,
    api) => ... })``): what the type the callee declares for that argument says."""
    callee = value_of(spec, caps[role + ".callee"][0])
    if not callee:
        return None
    argument = _position(spec, caps[role + ".argument"][0])
    if role + ".property" in caps:
        return f"{callee}.{callback_parameter(argument, GIVEN)}.{_member_parameter(spec, caps, role)}"
    if role + ".self" in caps:
        return f"{callee}.{callback_parameter(argument, min(spec.self_names))}"
    return f"{callee}.{callback_parameter(argument, _parameter_position(spec, caps, role, caps[role + '.argument'][0]))}"


def _parameter_position(spec: LanguageSpec, caps: dict, role: str, function: tree_sitter.Node) -> int:
    item = (caps.get(role + ".parameter") or caps[role])[0]
    return 0 if item.parent == function else _position(spec, item)


def _member_parameter(spec: LanguageSpec, caps: dict, role: str) -> str:
    """The step to a parameter of the function an object literal's member holds (``.property``)."""
    function = caps[role + ".function"][0]
    return callback_parameter(_text(caps[role + ".property"][0]), _parameter_position(spec, caps, role, function))


def _signature_name(spec: LanguageSpec, caps: dict) -> str:
    """The binding name of a parameter of a function-typed parameter (``@signature``), of a
    type's function-typed member (``@signature.name``), or of the function's own typed
    parameter (``@signature.given``)."""
    parameter = caps["signature.parameter"][0]
    if "signature.given" in caps:  # the function's own parameter (`start(opts: Options)`)
        return callback_parameter(_position(spec, parameter), GIVEN)
    which = _text(parameter.named_children[0]) if _is_self(spec, parameter) else _position(spec, parameter)
    held = _text(caps["signature.name"][0]) if "signature.name" in caps else _position(spec, caps["signature"][0])
    return callback_parameter(held, which)


def _position(spec: LanguageSpec, item: tree_sitter.Node) -> int:
    """Where an argument or parameter stands in its list: comments and a declared ``this``
    (which no caller passes) do not count."""
    position = 0
    prev = item.prev_named_sibling
    while prev is not None:
        if prev.type != "comment" and not _is_self(spec, prev):
            position += 1
        prev = prev.prev_named_sibling
    return position


def _is_self(spec: LanguageSpec, item: tree_sitter.Node) -> bool:
    first = item.named_child(0) if item.named_child_count else None
    return first is not None and _text(first) in spec.self_names


def value_of(spec: LanguageSpec, node: tree_sitter.Node) -> str | None:
    """A bound expression as a chain with arguments dropped (``a.b().c``); "" for the
    language's null literal; ``ANONYMOUS`` for a function without a name (a lambda, in
    parentheses or not); None when it is anything else."""
    node = _assigned(spec, node)
    while node.type == "satisfies_expression" and node.named_child_count:  # `{...} satisfies T`: the value as it is
        node = node.named_children[0]
    kind = node.type
    awaited = False
    while kind in spec.await_expressions and node.named_child_count == 1:
        node = node.named_children[0]
        kind = node.type
        awaited = True
    if awaited and spec.await_method:
        return _then(value_of(spec, node), f".{spec.await_method}()")
    if spec.anonymous_functions:
        while kind == "parenthesized_expression" and node.named_child_count == 1:
            node = node.named_children[0]
            kind = node.type
        if kind in spec.anonymous_functions:
            return ANONYMOUS
    if kind in spec.sequence_literals or kind in spec.mapping_literals:
        return _literal(spec, node)
    if kind in spec.comprehensions:
        return _comprehension(spec, node)
    if kind in spec.conditional_expressions:
        children = node.named_children
        if len(children) <= max(spec.conditional_branches, default=0):
            return None
        return _alternatives(spec, [children[i] for i in spec.conditional_branches])
    if kind in spec.either_expressions:
        op = node.child_by_field_name("operator")
        if op is None or op.type not in spec.either_operators:
            return None
        return _alternatives(spec, [node.child_by_field_name("left"), node.child_by_field_name("right")])
    if kind in spec.cast_expressions:
        return _cast_type(spec, node)
    if kind in spec.cast_calls:
        cast = _cast_call(spec, node)
        if cast is not None:
            return cast
    if kind in spec.element_calls and _calls_builtin(spec, node) \
            and (one := _one_element(spec, node) or _same_elements(spec, node)):
        return one  # `x = next(it)`, `max(xs)`: an element; `sorted(xs)`: a container of the same
    if kind in spec.typed_arrays:
        return _array_of(spec, node)
    if kind in spec.operator_expressions:
        return _operator(spec, node)
    if kind in spec.typed_literals:  # Go's `[]T{...}`: a value of the type it is written with
        written = node.child_by_field_name("type")
        text = type_text(written) if written is not None else None
        return f"{CAST}{text}>" if text and "<" not in text and ">" not in text else None
    if spec.string_type and kind == "attribute" and (obj := node.child_by_field_name("object")) is not None \
            and obj.type == spec.string_literal and (attr := node.child_by_field_name("attribute")) is not None:
        return f"{spec.string_type}.{_text(attr)}"  # `concat = "".join`: a builtin's method
    text = _text(node)
    if text in spec.null_literals:
        return ""
    chain = _spec_chain(spec, text)
    if chain is None and spec.values_skip_comments and "(" in text and _may_comment(spec, text) \
            and may_start_chain(text):  # blanking comments keeps the first character (no node starts with one)
        bare = _without_comments(spec, node, text)  # a comment may hold a lone quote
        if bare is not text:
            chain = _spec_chain(spec, bare)
    if chain is not None and (spec.cast_calls or spec.element_calls) and casts_first(spec, chain):
        return cast_chain(spec, node) or chain  # `cast(Foo, x).a`: of the type it names
    return chain if chain is not None or not spec.cast_expressions else cast_chain(spec, node)


def receiver_chain(spec: LanguageSpec, node: tree_sitter.Node | None, text: str) -> str | None:
    """A receiver's text (of ``node``, when it is one node) as a chain in the language's terms,
    read through a cast at its head (``(x as Foo).m()``, ``cast(Foo, x).m()``)."""
    chain = value_chain(text, spec.new_operator, spec.new_function, spec.class_of) if "(" in text or "[" in text else None
    if node is not None and (chain is None and spec.cast_expressions
                             or chain and (spec.cast_calls or spec.element_calls) and casts_first(spec, chain)):
        return cast_chain(spec, node) or chain
    return chain


def casts_first(spec: LanguageSpec, chain: str) -> bool:
    """Whether a chain starts with a call of the language's cast function (``t.cast().a``) or
    of a builtin giving an element of its argument (``next().a``, ``sorted()[i:0].a``)."""
    called, paren, _ = chain.partition("(")
    if not paren:
        return False
    casts, elements = _call_heads(spec)
    return called in elements or called.rpartition(".")[2] in casts


_HEADS: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
_BUILTIN_CALLEES = frozenset({"identifier", "member_expression"})  # `list(xs)`, `Array.from(xs)`


def _call_heads(spec: LanguageSpec) -> tuple[frozenset[str], frozenset[str]]:
    """The language's cast functions and element-giving builtins, by name (asked per chain)."""
    found = _HEADS.get(spec.name)
    if found is None:
        found = _HEADS[spec.name] = (frozenset(n for names in spec.cast_calls.values() for n in names),
                                     frozenset(n for forms in spec.element_calls.values() for ns in forms for n in ns))
    return found


def _calls_builtin(spec: LanguageSpec, call: tree_sitter.Node) -> bool:
    """Whether a call's function is one of the language's element-giving builtins, by name."""
    function = call.child_by_field_name("function")
    return function is not None and function.type in _BUILTIN_CALLEES and _text(function) in _call_heads(spec)[1]


def _element_head(spec: LanguageSpec, call: tree_sitter.Node,
                  parent: tree_sitter.Node | None) -> tuple[str, tree_sitter.Node] | None:
    """The head of a chain that is an element of a builtin call's one argument, as a chain of
    the argument's element (``xs[]``), with the node it ends: the call for one giving an
    element (``next(it)``, ``max(xs)``), the element read for one giving the same elements
    (``sorted(xs)[0]``); or a container of those elements read on (``Array.from(xs).sort()``:
    ``[xs[]].sort()``)."""
    one = _one_element(spec, call)
    if one:
        return one, call
    args = _element_call(spec, call, 0)
    if not args or len(args) != 1:
        return None
    if parent is None or parent.type not in spec.element_reads or ":" in _text(parent)[call.end_byte - parent.start_byte:]:
        if call.child_by_field_name("function").type == "identifier":
            return None  # `sorted(xs).index()`, `list(xs)[1:]`: no element (a builtin's method)
        element = elements_of(spec, args[0])  # `Array.from(xs).sort()`: the container, read on
        return (f"{TYPED_ARRAY}{element}]", call) if element else None
    return elements_of(spec, args[0]), parent


def _same_elements(spec: LanguageSpec, call: tree_sitter.Node) -> str | None:
    """A call of a builtin giving the elements of its one argument (``sorted(xs)``) as a
    container of them (``[xs[]]``); None for any other."""
    args = _element_call(spec, call, 0)
    element = elements_of(spec, args[0]) if args and len(args) == 1 else None
    return f"{TYPED_ARRAY}{element}]" if element else None


def _one_element(spec: LanguageSpec, call: tree_sitter.Node) -> str | None:
    """A call of a builtin giving one element of its one argument as a chain: one it iterates
    through (``max(xs)``: ``xs[]``), the next of an iterator (``next(it)``: ``it.__next__()``)."""
    args = _element_call(spec, call, 3)
    if args is not None and len(args) == 1:
        return elements_of(spec, args[0])
    args = _element_call(spec, call, 4)
    if args is None or len(args) != 1 or not spec.iteration_methods:
        return None
    return _then(value_of(spec, args[0]), f".{spec.iteration_methods[1]}()")


def _comprehension(spec: LanguageSpec, node: tree_sitter.Node) -> str | None:
    """``[f for f in fs if f]``, ``(f.a for f in fs)``: a container of what its body is, the
    loop's name read as an element of what it loops over (one loop over one name); None for
    any other."""
    body = node.child_by_field_name("body")
    loops = [c for c in node.named_children if c.child_by_field_name("left") is not None]
    if body is None or len(loops) != 1:
        return None
    name, iterable = loops[0].child_by_field_name("left"), loops[0].child_by_field_name("right")
    chain = value_of(spec, body)
    if iterable is None or name.type != "identifier" or not chain or chain[0] in "{[<" + ALTERNATIVES:
        return None
    head = _text(name)
    if chain == head or chain.startswith(head) and chain[len(head)] in ".([":
        element = elements_of(spec, iterable)
        chain = element + chain[len(head):] if element else None
    return f"{TYPED_ARRAY}{chain}]" if chain else None


def _operator(spec: LanguageSpec, node: tree_sitter.Node) -> str | None:
    """``a + b`` as ``a.__add__()``, ``~a`` as ``a.__invert__()``: what the method of the (left)
    operand for the operator returns; None for an operator without one."""
    operator, left = node.child_by_field_name("operator"), node.child_by_field_name("left")
    operand = left if left is not None else node.child_by_field_name("argument")
    method = spec.operator_methods.get(operator.type if left is not None else "u" + operator.type) \
        if operator is not None and operand is not None else None
    return _then(value_of(spec, operand), f".{method}()") if method else None


def _spec_chain(spec: LanguageSpec, text: str) -> str | None:
    """``text`` as a chain in the language's terms (its non-null postfix, its `new`)."""
    return value_chain(without_postfix(text, spec.non_null_postfix), spec.new_operator, spec.new_function, spec.class_of)


def _may_comment(spec: LanguageSpec, text: str) -> bool:
    """Whether ``text`` may hold a comment (one of the comment markers is in it): the walk
    over an expression's nodes that finds comments costs more than these searches."""
    return any(prefix in text for prefix in spec.comment_prefixes)


def _without_comments(spec: LanguageSpec, node: tree_sitter.Node, text: str) -> str:
    """``text`` (of ``node``) with the comments inside it blanked out; ``text`` itself when
    there are none."""
    cuts = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in spec.comment_node_types:
            cuts.append((n.start_byte - node.start_byte, n.end_byte - node.start_byte))
        elif n.child_count:
            stack.extend(n.children)
    if not cuts:
        return text
    data = bytearray(node.text)
    for start, end in cuts:
        data[start:end] = b" " * (end - start)
    return data.decode("utf-8", "replace")


def cast_chain(spec: LanguageSpec, node: tree_sitter.Node) -> str | None:
    """An expression that starts with a parenthesized cast (``(x as Foo).a.b()``) or a call of
    the cast function (``cast(Foo, x).a.b()``) as a chain whose head is the type
    (``<Foo>.a.b()``); one that starts with an element of a builtin's argument (``next(it).a``,
    ``sorted(xs)[0].a``) as one of that element (``it[].a``, ``xs[].a``); None for others."""
    head, written, parent = node, None, None
    while head.type in _CHAIN_LINKS and head.named_child_count:
        if head.type in spec.cast_calls and (written := _cast_call(spec, head)) is not None:
            break
        if head.type in spec.element_calls and (element := _element_head(spec, head, parent)) is not None:
            written, head = element
            break
        parent, head = head, head.named_children[0]
    if written is None:
        if head.type != "parenthesized_expression" or head.named_child_count != 1:
            return None
        cast = head.named_children[0]
        written = _cast_type(spec, cast) if cast.type in spec.cast_expressions else None
        if written is None:
            return None
    rest = _text(node)[head.end_byte - node.start_byte:]
    chain = _spec_chain(spec, "x" + rest)
    return written + chain[1:] if chain is not None else None


def _array_of(spec: LanguageSpec, node: tree_sitter.Node) -> str | None:
    """An array literal whose elements are one chain (``[new Subject()]``) as ``[chain]``: a
    container of what the chain is (``TYPED_ARRAY``); None for any other."""
    chains = {value_of(spec, child) for child in node.named_children if child.type not in spec.comment_node_types}
    chain = chains.pop() if len(chains) == 1 else None
    if not chain or chain == ANONYMOUS or chain[0] in "{[" + ALTERNATIVES or "|" in chain:
        return None
    return f"[{chain}]"


def _cast_call(spec: LanguageSpec, call: tree_sitter.Node) -> str | None:
    """A call of the language's cast function (``cast(Foo, x)``, ``t.cast("Foo", x)``) as the
    head of a chain for its type (``CAST``); None for any other call."""
    function, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
    if function is None or args is None or not args.named_child_count:
        return None
    if _text(function).rpartition(".")[2] not in spec.cast_calls[call.type]:
        return None
    written = args.named_children[0]
    text = type_text(written)
    if text is not None and written.type == spec.string_literal:
        text = strip_string(text).strip()
    return f"{CAST}{text}>" if text is not None and _CAST_TYPE.fullmatch(text) else None


def _cast_type(spec: LanguageSpec, cast: tree_sitter.Node) -> str | None:
    """The head of a chain for a cast to a named type (``CAST``); None for other types."""
    written = cast.named_children[-1] if cast.named_child_count else None
    if written is None or written.type not in spec.named_types:
        return None
    text = type_text(written)
    return f"{CAST}{text}>" if text is not None and _CAST_TYPE.fullmatch(text) else None


def _then(value: str | None, step: str) -> str | None:
    """``value`` followed by a chain ``step`` (each alternative of ``?a|b``); None for nothing."""
    if not value:
        return None
    if value[0] == ALTERNATIVES:
        return ALTERNATIVES + "|".join(alt + step for alt in value[1:].split("|"))
    return value + step


def _alternatives(spec: LanguageSpec, branches: list[tree_sitter.Node | None]) -> str | None:
    """The branches of a conditional expression (or the operands of ``a or b``): the chain
    they share, or ``?a|b`` for the resolver to check that they agree; a null branch says
    nothing (``Foo() if c else None`` is a ``Foo``). None when a branch is not a chain."""
    chains: list[str] = []
    for branch in branches:
        if branch is None:
            return None
        text = value_of(spec, branch)
        if text is None or text == ANONYMOUS or text[:1] == "{":
            return None
        if text and text not in chains:
            chains.extend(text[1:].split("|") if text[0] == ALTERNATIVES else [text])
    if len(chains) <= 1:
        return chains[0] if chains else ""
    out = ALTERNATIVES + "|".join(dict.fromkeys(chains))
    return out if len(out) <= MAX_VALUE else None


def _literal(spec: LanguageSpec, node: tree_sitter.Node) -> str | None:
    """A list, tuple, dict or object literal as ``{key=value,...}`` (keys ``i:0``, ``s:name``,
    ``...`` for a spread), the entries whose key and value can be written so; None when there
    are none, positions are not known (a splat), an object's member is not written or the text
    gets too long."""
    if node.end_byte - node.start_byte > 4 * MAX_VALUE:
        return None  # a table too large to keep (its text would be longer than a value may be)
    entries, position = [], 0
    for child in node.named_children:
        if child.type in spec.comment_node_types:
            continue
        if "spread" in child.type and spec.literal_keys:  # `{...a, b}`: a's members, then b
            key, value = SPREAD, child.named_children[0] if child.named_child_count else None
        elif "splat" in child.type or "spread" in child.type:
            return None
        elif node.type in spec.sequence_literals:
            key, value, position = f"i:{position}", child, position + 1
        else:  # a key that is no literal (`{CLIENT: Connection()}`): an entry all the same, by no key
            key_node, value = (child, child) if child.type in spec.literal_keys else (  # `{f}`: f's value as f
                child.child_by_field_name("key"), child.child_by_field_name("value"))
            key = (_key(spec, key_node) or ANY_KEY) if key_node is not None else None
        text = value_of(spec, value) if key is not None and value is not None else None
        if text:
            entries.append(f"{key}={text}")
        elif spec.literal_keys and key is not None and value is not None and value is not child:
            entries.append(f"{key}={UNREAD}")  # `{a: 1}`: a member whose value is not read
        elif spec.literal_keys:
            return None  # a member not written (`{m() {}}`): the object is not read
    out = "{" + ",".join(entries) + "}"
    # (A table of a few dozen handlers is longer than a chain may be, and still read.)
    return out if entries and len(out) <= 4 * MAX_VALUE else None  # `x = []`, `(1, 2)`: nothing to keep


def assigned_item(spec: LanguageSpec, name: str, caps: dict) -> tuple[str | None, str | None]:
    """An item assigned by a literal key (`d["k"] = f`): its name as a chain reads it
    (``d[s:k]``) and what it is assigned; (None, None) for another key or an annotation alone."""
    value = caps.get("contents.value")
    key = _key(spec, caps["contents.key"][0]) if value and "[" not in name else None
    return (f"{name}[{key}]", value_of(spec, value[0]) or None) if key and key != ANY_KEY else (None, None)


def _key(spec: LanguageSpec, node: tree_sitter.Node) -> str | None:
    text = _text(node)
    if node.type == spec.integer_literal and text.isdigit():
        return f"i:{int(text)}"
    if node.type in spec.literal_keys:
        return f"s:{text}"
    key = strip_string(text) if node.type == spec.string_literal else None
    return f"s:{key}" if key is not None and _KEY.fullmatch(key) else None


def type_text(node: tree_sitter.Node) -> str | None:
    text = _text(node)
    if "\n" in text and _STRUCT.search(text):  # Go's fields, a line each: kept apart (`struct { a A; b B }`)
        text = _LINE_BREAKS.sub("; ", text)
    text = _WS.sub(" ", text).strip()
    return text if len(text) <= MAX_VALUE else None


_LINE_BREAKS = re.compile(r"\s*\n\s*")
_STRUCT = re.compile(r"\bstruct\s*\{")


def _text(node: tree_sitter.Node) -> str:
    return node.text.decode("utf-8", "replace")
