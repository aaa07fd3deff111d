"""Calls whose result a definition or a top-level name is bound to: decorators (`@actor def
f`: `f` is what `actor(f)` makes) and Python's `x = f(a, b)`, whose positional arguments type
variables make identities of (`indexers.resolve.overloads`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import tree_sitter

from indexers.bindings import ALTERNATIVES, DECORATED, FACTORY_ARGUMENTS, _text, value_of
from indexers.languages import LanguageSpec

_METHOD_WRAPPERS = frozenset({"staticmethod", "classmethod"})  # the function they wrap is what is called


def top_level_call(spec: LanguageSpec, name: tree_sitter.Node) -> tuple[str, str | None] | None:
    """The call ``name`` is assigned (`x = f(a, b)`, also inside `staticmethod(...)`): its
    value and its positional arguments, each as a bound expression ("" where it is none),
    tab-separated (None: none to keep); None: not such a call."""
    assignment = name.parent
    value = assignment.child_by_field_name("right") if assignment is not None else None
    arguments = value.child_by_field_name("arguments") if value is not None and value.type == "call" else None
    if arguments is not None and arguments.named_child_count == 1 \
            and _text(value.child_by_field_name("function")) in _METHOD_WRAPPERS:
        value = arguments.named_children[0]  # `staticmethod(f)`: f
        arguments = value.child_by_field_name("arguments") if value.type == "call" else None
        if arguments is None:
            return value_of(spec, value) or "", None
    positional = positional_arguments(arguments) if arguments is not None else None
    if positional is None:
        return None
    texts = [value_of(spec, a) or "" for a in positional]
    return value_of(spec, value) or "", "\t".join(texts) if any(texts) else None


def positional_arguments(arguments: tree_sitter.Node) -> list[tree_sitter.Node] | None:
    """The positional arguments of an argument list; None when a splat (``*xs``) makes
    their number unknown."""
    items = arguments.named_children
    if any("splat" in a.type for a in items):
        return None
    return [a for a in items if "keyword" not in a.type and a.type != "comment"]


def decorated(spec: LanguageSpec, defs: Iterable, kinds: frozenset[str]) -> Iterator[tuple]:
    """Rows of ``Binding``: each definition of ``kinds`` in a `LanguageSpec.definition_wrappers`
    node binds ``DECORATED`` to what its outermost decorator makes of it (``@actor`` ->
    ``actor()``, ``@app.task(retries=3)`` -> ``app.task()()``)."""
    for d in defs if spec.definition_wrappers else ():
        parent = d.node.parent
        if d.sym is None or d.kind not in kinds or parent is None or parent.type not in spec.definition_wrappers:
            continue
        first = parent.named_children[0]
        expression = first.named_children[0] if first != d.node and first.named_child_count else None
        chain = value_of(spec, expression) if expression is not None else None
        if chain and chain[0] not in "{[<" + ALTERNATIVES:
            yield d.sym.id, DECORATED, None, chain + "()", first.start_point[0] + 1, None, ""
            arguments = expression.child_by_field_name("arguments") if chain[-1] == ")" else None
            positional = positional_arguments(arguments) if arguments is not None else None
            if positional is not None:
                keywords = ",".join(_text(n) for a in arguments.named_children if (n := a.child_by_field_name("name")))
                yield (d.sym.id, FACTORY_ARGUMENTS, None, f"{len(positional)}:{keywords}" if keywords else str(len(positional)),
                       first.start_point[0] + 1, None, "")
