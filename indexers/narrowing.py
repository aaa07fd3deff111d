"""Narrowing by a type test: where ``isinstance(x, Foo)`` holds, ``x`` is a ``Foo``.

Read from the calls the language's query already found (`LanguageSpec.narrowing_calls`)
rather than by patterns of their own: four such patterns cost about a tenth of Python's query
matching (they are tried on every `if` and every body), for a call that is seldom there. Two forms, in Python's
grammar (the one language with type-testing calls so far):

- ``if isinstance(x, Foo):`` (or ``elif``): ``x`` is a ``Foo`` in that body;
- ``if not isinstance(x, Foo): return`` (or ``raise``, ``continue``, ``break`` as the body's
  last statement, no ``else``): ``x`` is a ``Foo`` in the statements after it, to the end of
  the body around.

Each gives a block (its first and last byte, as the query's ``@block``) and a binding match as
the query gives one: ``@local`` a node at the block's start, ``@local.narrowed`` the name,
``@local.type`` the type, or each type of a tuple (``isinstance(x, (A, B))``: one of them).
Other conditions narrow nothing.
"""

from __future__ import annotations

from collections.abc import Callable

import tree_sitter

from indexers.languages import LanguageSpec

_EXITS = frozenset({"return_statement", "raise_statement", "continue_statement", "break_statement"})
_TYPES = frozenset({"identifier", "attribute"})
_TESTS = frozenset({"if_statement", "elif_clause"})


def narrowings(spec: LanguageSpec, calls: list[tuple[tree_sitter.Node, dict]],
               text: Callable[[tree_sitter.Node], str]) -> tuple[list[tuple[int, int]], list[tuple[str, dict]]]:
    """The blocks and the binding matches ("local", captures) of the type tests among
    ``calls`` (call nodes with the query's captures)."""
    blocks: list[tuple[int, int]] = []
    binds: list[tuple[str, dict]] = []
    for node, caps in calls:
        names = caps.get("name")
        if not names or text(names[0]) not in spec.narrowing_calls:
            continue
        args = node.child_by_field_name("arguments")
        if args is None or args.named_child_count != 2:
            continue
        target, kind = args.named_children
        kinds = kind.named_children if kind.type == "tuple" else [kind]  # a tuple: one of them
        if target.type != "identifier" or not kinds or any(k.type not in _TYPES for k in kinds):
            continue
        test = node.parent
        negated = test is not None and test.type == "not_operator"
        statement = test.parent if negated else test
        if statement is None or statement.type not in _TESTS:
            continue
        if statement.child_by_field_name("condition") != (test if negated else node):
            continue
        body = statement.child_by_field_name("consequence")
        if body is None:
            continue
        if not negated:
            start, end = body.start_byte, body.end_byte
            first = body
        else:
            after = statement.next_named_sibling
            last = body.named_children[-1] if body.named_child_count else None
            if (statement.type != "if_statement" or statement.child_by_field_name("alternative") is not None
                    or last is None or last.type not in _EXITS or after is None):
                continue
            start, end, first = statement.end_byte, statement.parent.end_byte, after
        blocks.append((start, end))
        binds.append(("local", {"local": [first], "local.narrowed": [target], "local.type": kinds}))
    return blocks, binds
