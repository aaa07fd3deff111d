"""Narrowing by a type test: where ``isinstance(x, Foo)`` holds, ``x`` is a ``Foo``.

Read from the calls the language's query already found (`LanguageSpec.narrowing_calls`)
rather than by patterns of their own: four such patterns cost about a tenth of Python's query
matching (they are tried on every `if` and every body), for a call that is seldom there. The
forms, in Python's grammar (the one language with type-testing calls so far):

- ``if isinstance(x, Foo):`` (or ``elif``, or the test ``and``-ed with others): ``x`` is a
  ``Foo`` in that body;
- ``if not isinstance(x, Foo): return`` (or ``raise``, ``continue``, ``break`` as the body's
  last statement, no ``else``): ``x`` is a ``Foo`` in the statements after it, to the end of
  the body around; in the ``else`` of ``if not isinstance(x, Foo):`` too; and after
  ``assert isinstance(x, Foo)`` (after ``assert not isinstance(x, Foo)``, as below);
- where ``isinstance(x, Foo)`` failed (the ``else`` right after the test, or the statements
  after ``if isinstance(x, Foo): return``): ``x`` is what its declared type around says but
  a ``Foo`` (``x: Foo | Bar``: a ``Bar``; `indexers.resolve.types`), nor any type the ``if``
  and ``elif`` before tested it for.

Each gives a block (its first and last byte, as the query's ``@block``) and a binding match as
the query gives one: ``@local`` a node at the block's start, ``@local.narrowed`` the name,
``@local.type`` the type, or each type of a tuple (``isinstance(x, (A, B))``: one of them),
or ``@local.excluded`` the types it is not. Other conditions narrow nothing.
"""

from __future__ import annotations

from collections.abc import Callable

import tree_sitter

from indexers.languages import LanguageSpec
from indexers.loop_scopes import loop_bodies

_EXITS = frozenset({"return_statement", "raise_statement", "continue_statement", "break_statement"})
_TYPES = frozenset({"identifier", "attribute"})
_TESTS = frozenset({"if_statement", "elif_clause"})
_DEFINITIONS = frozenset({"function_definition", "class_definition", "decorated_definition"})


def narrowings(spec: LanguageSpec, calls: list[tuple[tree_sitter.Node, dict]],
               text: Callable[[tree_sitter.Node], str], bound: list[tuple[str, dict]] = ()
               ) -> tuple[list[tuple[int, int]], list[tuple[str, dict]]]:
    """The blocks and the binding matches ("local", captures) of the type tests among
    ``calls`` (call nodes with the query's captures), and of the loops among the query's
    binding matches ``bound`` (`indexers.loop_scopes`: a loop's variable in its body)."""
    blocks, binds = loop_bodies(list(bound), text)
    for node, caps in calls:
        names = caps.get("name")
        tested = _tested(node) if names and text(names[0]) in spec.narrowing_calls else None
        if tested is None:
            continue
        target, kinds = tested
        kinds = _declared_parts(target, kinds, bound, text)
        test = node.parent
        negated = test is not None and test.type == "not_operator"
        statement = test.parent if negated else test
        if statement is not None and statement.type == "assert_statement":
            asserted = _after_assert(statement, test if negated else node)
            if asserted is not None:  # `assert isinstance(x, Foo)`: x is a Foo after it (`not`: is no Foo)
                blocks.append(asserted[:2])
                binds.append(("local", {"local": [asserted[2]], "local.narrowed": [target],
                                        "local.excluded" if negated else "local.type": kinds}))
            continue
        if not negated and statement is not None and statement.type == "boolean_operator":
            _conjunct(statement, node, target, kinds, blocks, binds)  # `if isinstance(x, A) and ...:`
            continue
        if statement is None or statement.type not in _TESTS:
            continue
        if statement.child_by_field_name("condition") != (test if negated else node):
            continue
        body = statement.child_by_field_name("consequence")
        if body is None:
            continue
        if not negated:
            _narrow_body(statement, body, target, kinds, blocks, binds)
        # Where the test failed: the `else` after it, or the statements after an `if` that exits.
        failed = _after_exit(statement, body) or _else_of(statement)
        if failed is not None:
            start, end, first = failed
            blocks.append((start, end))
            caps = {"local": [first], "local.narrowed": [target]}
            if negated:
                caps["local.type"] = kinds
            else:  # the tests of the same name before it in the chain failed too
                caps["local.excluded"] = kinds + _earlier(spec, statement, text(target), text)
            binds.append(("local", caps))
    return blocks, binds


# A builtin container an `isinstance` test names, and how a declaration may write it.
_CONTAINERS = {"list": ("list", "List"), "dict": ("dict", "Dict"), "tuple": ("tuple", "Tuple"), "set": ("set", "Set"),
               "frozenset": ("frozenset", "FrozenSet")}
_UNIONS = frozenset({"Optional", "Union", "typing.Optional", "typing.Union"})


def _declared_parts(target: tree_sitter.Node, kinds: list[tree_sitter.Node], bound: list[tuple[str, dict]],
                    text: Callable[[tree_sitter.Node], str]) -> list[tree_sitter.Node]:
    """``kinds`` with a builtin container (``isinstance(value, list)``) replaced by the part of
    ``target``'s declared union that writes it with its elements (``value: A | list[A]``:
    ``list[A]``), when the function around declares ``target`` so."""
    if not any(text(k) in _CONTAINERS for k in kinds):
        return kinds
    name, function = text(target), _function_of(target)
    parts = next((_union_parts(caps["local.type"][0], text) for role, caps in bound
                  if role == "local" and "local.type" in caps and len(caps["local"]) == 1
                  and text(caps["local"][0]) == name and _function_of(caps["local"][0]) == function), [])
    out = []
    for kind in kinds:
        written = _CONTAINERS.get(text(kind), ())
        out.append(next((p for p in parts if p.type in ("subscript", "generic_type") and p.named_child_count
                         and text(p.named_children[0]) in written), kind))
    return out


def _union_parts(node: tree_sitter.Node, text: Callable[[tree_sitter.Node], str]) -> list[tree_sitter.Node]:
    """The members of a declared union (``A | B``, ``Optional[A]``, ``Union[A, B]``)."""
    if node.type == "type" and node.named_child_count:
        node = node.named_children[0]
    if node.type == "binary_operator":
        return [p for side in ("left", "right") if (child := node.child_by_field_name(side)) is not None
                for p in _union_parts(child, text)]
    if node.type == "generic_type" and node.named_child_count == 2 and text(node.named_children[0]) in _UNIONS:
        return [p for t in node.named_children[1].named_children for p in _union_parts(t, text)]
    return [node]


def _function_of(node: tree_sitter.Node) -> tree_sitter.Node | None:
    while node is not None and node.type != "function_definition":
        node = node.parent
    return node


def _earlier(spec: LanguageSpec, statement: tree_sitter.Node, name: str,
             text: Callable[[tree_sitter.Node], str]) -> list[tree_sitter.Node]:
    """The types tested of ``name`` by the ``if`` and the ``elif`` before an ``elif``."""
    if statement.type != "elif_clause" or statement.parent is None:
        return []
    chain = statement.parent
    tests = [chain.child_by_field_name("condition")] + [
        c.child_by_field_name("condition") for c in chain.children_by_field_name("alternative")
        if c.type == "elif_clause" and c.start_byte < statement.start_byte]
    found: list[tree_sitter.Node] = []
    for test in tests:
        function = test.child_by_field_name("function") if test is not None and test.type == "call" else None
        tested = _tested(test) if function is not None and text(function) in spec.narrowing_calls else None
        if tested is not None and text(tested[0]) == name:
            found.extend(tested[1])
    return found


def _tested(call: tree_sitter.Node) -> tuple[tree_sitter.Node, list[tree_sitter.Node]] | None:
    """The name a type-testing call tests and the types it tests it for (each of a tuple: one of
    them), or None when they are not a name and names."""
    args = call.child_by_field_name("arguments")
    if args is None or args.named_child_count != 2:
        return None
    target, kind = args.named_children
    kinds = kind.named_children if kind.type == "tuple" else [kind]
    if target.type != "identifier" or not kinds or any(k.type not in _TYPES for k in kinds):
        return None
    return target, kinds


def _narrow_body(statement: tree_sitter.Node, body: tree_sitter.Node, target: tree_sitter.Node, kinds: list,
                 blocks: list, binds: list) -> None:
    """``target`` is one of ``kinds`` in the test's body, from its colon on: a definition that
    starts the body is not where the name is bound."""
    colon = next((c for c in statement.children if c.type == ":"), body)
    blocks.append((colon.start_byte, body.end_byte))
    binds.append(("local", {"local": [colon], "local.narrowed": [target], "local.type": kinds}))


def _conjunct(operator: tree_sitter.Node, call: tree_sitter.Node, target: tree_sitter.Node, kinds: list,
              blocks: list, binds: list) -> None:
    """``if isinstance(x, A) and ...:`` (the test one of the ``and``-ed operands of the whole
    condition): ``x`` is an ``A`` in the body, as for the test alone; where the condition
    failed, the test may not have."""
    top = operator
    while top.parent is not None and top.parent.type == "boolean_operator":
        top = top.parent
    node = call
    while node != top:  # every operator from the test up is an `and`
        node = node.parent
        op = node.child_by_field_name("operator")
        if op is None or op.type != "and":
            return
    statement = top.parent
    if statement is None or statement.type not in _TESTS or statement.child_by_field_name("condition") != top:
        return
    body = statement.child_by_field_name("consequence")
    if body is not None:
        _narrow_body(statement, body, target, kinds, blocks, binds)


def _after_assert(statement: tree_sitter.Node, test: tree_sitter.Node) -> tuple | None:
    """The statements after ``assert isinstance(...)`` (the test its whole condition), to the
    end of the body around: (first byte, last byte, first statement); None when a definition
    comes first (the name would be bound in it) or nothing does."""
    after = statement.next_named_sibling
    if statement.named_child_count == 0 or statement.named_children[0] != test or after is None \
            or after.type in _DEFINITIONS or statement.parent is None:
        return None
    return statement.end_byte, statement.parent.end_byte, after


def _after_exit(statement: tree_sitter.Node, body: tree_sitter.Node) -> tuple | None:
    """The statements after an ``if`` (no ``elif`` or ``else``) whose body ends by leaving
    (``return``, ``raise``, ``continue``, ``break``), to the end of the body around: (first
    byte, last byte, first statement); None for any other test."""
    after = statement.next_named_sibling
    last = body.named_children[-1] if body.named_child_count else None
    if (statement.type != "if_statement" or statement.child_by_field_name("alternative") is not None
            or last is None or last.type not in _EXITS or after is None or after.type in _DEFINITIONS):
        return None  # (a definition first: the name would be bound in it)
    return statement.end_byte, statement.parent.end_byte, after


def _else_of(statement: tree_sitter.Node) -> tuple | None:
    """The body of the ``else`` right after this test (an ``if`` without ``elif``, or the last
    ``elif``): (first byte, last byte, the body); None when there is none."""
    following = (statement.child_by_field_name("alternative") if statement.type == "if_statement"
                 else statement.next_named_sibling)
    body = following.child_by_field_name("body") if following is not None and following.type == "else_clause" else None
    # From the `else` on: a definition that starts the body is not where x is bound.
    return (following.start_byte, body.end_byte, following) if body is not None else None
