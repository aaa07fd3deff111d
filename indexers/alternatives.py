"""Definitions of one name that are alternatives of one another, and which of them a type
checker reads: the first of ``if TYPE_CHECKING: def f`` / ``else: def f``
(`checker_alternative`), and the one on the branch of a language version test that holds
(Python's ``if sys.version_info >= (3, 10):``, `ruled_out`).

Type checkers and Jedi evaluate a version test and skip the branch it rules out, for the
version of their environment; here that is the version of the interpreter that indexes
(`TARGET`). A test they cannot evaluate rules out nothing.
"""

from __future__ import annotations

import operator
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import tree_sitter

from indexers.enclosing import decorator_names

if TYPE_CHECKING:
    from indexers.languages import LanguageSpec

TARGET: tuple[int, ...] = tuple(sys.version_info[:3])

_COMPARE: dict[str, Callable[[object, object], bool]] = {
    ">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt, "==": operator.eq, "!=": operator.ne,
}
# `sys.version_info >= (3, 10)`, `sys.version_info[:2] < (3, 8)`, `sys.version_info[0] == 3`,
# `sys.version_info.major >= 3`.
_TEST = re.compile(r"(?P<subject>\w+(?:\.\w+)*?)(?:\[(?P<index>:?\d)\]|\.(?P<part>major|minor))?\s*"
                   r"(?P<op>>=|<=|==|!=|>|<)\s*(?P<value>\(\s*\d+\s*(?:,\s*\d+\s*)*,?\s*\)|\d+)")
_PARTS = {"major": "0", "minor": "1"}


def evaluate(text: str, subjects: frozenset[str], flags: dict[str, bool] | None = None) -> bool | None:
    """The value of a version test for `TARGET`; None when ``text`` is not one (or not only one).
    ``flags``: names the module binds to a version test (``PY_3_14_PLUS = sys.version_info >= ...``)."""
    text = " ".join(text.split())
    while text.startswith("(") and text.endswith(")") and text.count("(") == 1 + text[1:].count("("):
        inner = text[1:-1]
        if inner.count("(") != inner.count(")"):
            break
        text = inner.strip()
    if flags and text in flags:
        return flags[text]
    if text.startswith("not "):
        value = evaluate(text[4:], subjects, flags)
        return None if value is None else not value
    for word, known in ((" or ", True), (" and ", False)):
        if word in text:
            values = [evaluate(part, subjects, flags) for part in text.split(word)]
            if known in values:
                return known  # one true part of an `or` (one false of an `and`) decides it
            return None if None in values else not known
    match = _TEST.fullmatch(text)
    if match is None or match["subject"] not in subjects:
        return None
    index = _PARTS.get(match["part"] or "", match["index"])
    numbers = tuple(int(n) for n in re.findall(r"\d+", match["value"]))
    if index is None:
        left: object = TARGET
    elif index.startswith(":"):
        left = TARGET[: int(index[1:])]
    else:
        left = TARGET[int(index)]
        if len(numbers) != 1 or match["value"].startswith("("):
            return None
        return _COMPARE[match["op"]](left, numbers[0])
    return _COMPARE[match["op"]](left, numbers)


def overloaded(node: tree_sitter.Node, decorators: frozenset[str], text: Callable[[tree_sitter.Node], str]) -> bool:
    """Whether the definition ``node`` is a signature of an overloaded function (``@overload``):
    a declaration for type checkers, not what the name holds once the implementation follows."""
    names = {d.rpartition(".")[2] for d in decorators}  # `@t.overload` of `import typing as t` too
    return bool(decorators) and any(d.rpartition(".")[2] in names for d in decorator_names(node, text))


def may_test(subjects: frozenset[str], data: bytes) -> bool:
    """Whether a file's text may hold a version test (one of the ``subjects``' last names)."""
    return any(subject.rpartition(".")[2].encode() in data for subject in subjects)


def ruled_out(node: tree_sitter.Node, subjects: frozenset[str], text: Callable[[tree_sitter.Node], str],
              stop: frozenset[str], flags: dict[str, bool] | None = None) -> bool:
    """Whether ``node`` stands on a branch of an ``if`` that a version test rules out, up to
    the nearest node of a ``stop`` type (the function or class it is defined in)."""
    if not subjects:
        return False
    child, parent = node, node.parent
    while parent is not None and parent.type not in stop:
        if parent.type in ("elif_clause", "else_clause"):
            statement = parent.parent
            if statement is not None and statement.type == "if_statement" and _branch_ruled_out(
                    statement, parent, subjects, text, flags):
                return True
        elif parent.type == "if_statement" and child == parent.child_by_field_name("consequence"):
            if _value(parent, subjects, text, flags) is False:
                return True
        child, parent = parent, parent.parent
    return False


def _branch_ruled_out(statement: tree_sitter.Node, clause: tree_sitter.Node, subjects: frozenset[str],
                      text: Callable[[tree_sitter.Node], str], flags: dict[str, bool] | None) -> bool:
    """An ``elif`` or ``else`` is ruled out when a test before it holds, an ``elif`` also when
    its own test fails."""
    if _value(statement, subjects, text, flags) is True:
        return True
    for other in statement.children_by_field_name("alternative"):
        if other == clause:
            break
        if other.type == "elif_clause" and _value(other, subjects, text, flags) is True:
            return True
    return clause.type == "elif_clause" and _value(clause, subjects, text, flags) is False


def _value(node: tree_sitter.Node, subjects: frozenset[str], text: Callable[[tree_sitter.Node], str],
           flags: dict[str, bool] | None) -> bool | None:
    condition = node.child_by_field_name("condition")
    return evaluate(text(condition), subjects, flags) if condition is not None else None


def version_flags(root: tree_sitter.Node, subjects: frozenset[str],
                  text: Callable[[tree_sitter.Node], str]) -> dict[str, bool]:
    """The names a module binds at its top to a version test it can evaluate
    (``PY_3_14_PLUS = sys.version_info[:2] >= (3, 14)``), with their values."""
    flags: dict[str, bool] = {}
    for statement in root.named_children:
        assignment = statement.named_children[0] if statement.named_child_count == 1 else None
        if assignment is None or assignment.type != "assignment":
            continue
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        if left is not None and right is not None and left.type == "identifier":
            value = evaluate(text(right), subjects, flags)
            if value is not None:
                flags[text(left)] = value
    return flags


def checker_alternative(spec: LanguageSpec, node: tree_sitter.Node, earlier: tree_sitter.Node,
                        statements: Callable[[tree_sitter.Node], tree_sitter.Node | None],
                        text: Callable[[tree_sitter.Node], str]) -> bool:
    """Is ``node`` defined in the ``else`` of an ``if TYPE_CHECKING:`` (or ``if ... and
    TYPE_CHECKING:``) that defines the name first? Type checkers read the first.
    ``statements``: the statement list a definition is written in."""
    if not (guards := spec.type_checking_guards):
        return False
    statement, alternative = spec.type_checking_if
    first, then = statements(earlier), statements(node)
    guard = first.parent if first is not None else None
    if guard is None or guard.type != statement or then is None or then.parent is None:
        return False
    condition = guard.child_by_field_name("condition")
    return (then.parent.type == alternative and then.parent.parent == guard and condition is not None
            and any(part.strip() in guards for part in text(condition).split(" and ")))


def checker_unseen(spec: LanguageSpec, node: tree_sitter.Node,
                   statements: Callable[[tree_sitter.Node], tree_sitter.Node | None],
                   text: Callable[[tree_sitter.Node], str]) -> bool:
    """Is ``node`` defined where type checkers never look: the body of ``if not
    TYPE_CHECKING:`` (or ``if not TYPE_CHECKING and ...:``), a fallback for what the module
    imports elsewhere (``else: from ._impl import f`` ... ``if not TYPE_CHECKING and not
    have_impl: def f``)?"""
    if not (guards := spec.type_checking_guards):
        return False
    body = statements(node)
    guard = body.parent if body is not None else None
    if guard is None or guard.type != spec.type_checking_if[0]:
        return False
    condition = guard.child_by_field_name("condition")
    if condition is None or guard.child_by_field_name("consequence") != body:
        return False
    return any(part.strip().startswith("not ") and part.strip()[4:].strip() in guards
               for part in text(condition).split(" and "))
