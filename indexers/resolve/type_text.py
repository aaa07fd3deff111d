"""Types as written (``Optional["Foo"]``, ``List[Foo]``, ``A | B``, ``Map<K, V>``): their
names and arguments, read from the text without evaluating it."""

from __future__ import annotations

import re
from collections.abc import Iterator

from indexers.resolve.common import SPLIT

# Type text: wrappers that say "this type or nothing" and how a type is referred to.
_OPTIONAL = re.compile(r"^(?:[\w.]+\.)?Optional\[(.*)\]$", re.S)
_UNION_NONE = re.compile(r"^(.*?)\s*\|\s*None$|^None\s*\|\s*(.*)$", re.S)
_TYPE_NAME = re.compile(r"^[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*")


def parse_type(text: str, nulls: frozenset[str] = frozenset()) -> tuple[str, str | None] | None:
    """A type as written: its name and the text of its first type argument, if any.
    ``Optional["Foo"]`` / ``Foo | None`` / ``*Foo`` -> ``Foo``; ``List[Foo]`` -> ``List``,
    ``Foo``. None when the text is not one named type (a union, a function type, an array
    ``Foo[]``). ``nulls``: the language's null values, dropped from a union (``Foo | undefined``)."""
    found = _generic(text, nulls)
    if found is None:
        return None
    name, arguments = found
    return name, None if arguments is None else split_top(arguments, ",")[0]


def type_arguments(text: str, nulls: frozenset[str] = frozenset()) -> list[str]:
    """Every type argument of a type as written (``Tuple[A, B]``, ``Map<K, V>``), read as
    ``parse_type`` reads the type; [] for none."""
    found = _generic(text, nulls)
    return split_top(found[1], ",") if found is not None and found[1] is not None else []


def union_parts(text: str) -> list[str]:
    """The members of a union type as written (``A | B``, ``Union[A, B]``); [] for any other
    type (``Optional[A]`` and ``A | None`` are ``A`` to ``parse_type`` already)."""
    text = text.strip().strip("\"'").strip()
    parts = split_top(text, "|")
    if len(parts) > 1:
        return parts
    found = _generic(text, frozenset())
    if found is None or found[1] is None or SPLIT.split(found[0])[-1] != "Union":
        return []
    return type_arguments(text)


def _generic(text: str, nulls: frozenset[str]) -> tuple[str, str | None] | None:
    """A type's name and the text between its type brackets (None without them)."""
    text = text.strip().strip("\"'").strip()
    if nulls and "|" in text:
        kept = [p for p in (p.strip() for p in text.split("|")) if p and p not in nulls]
        text = kept[0] if len(kept) == 1 else text
    for _ in range(3):
        m = _OPTIONAL.match(text) or _UNION_NONE.match(text)
        if m is None:
            break
        text = (m.group(1) or m.group(2) or "").strip().strip("\"'").strip()
    text = text.lstrip("*&").strip()
    m = _TYPE_NAME.match(text)
    if m is None:
        return None
    rest = text[m.end():].strip()
    if not rest:
        return m.group(0), None
    if rest[0] not in "<[" or closing(rest) != len(rest) - 1 or not rest[1:-1].strip():
        return None  # `A | B`, `A, B`, `fn(...)`, `A[]`, `A<T> | B<T>`
    return m.group(0), rest[1:-1]


def _with_depth(text: str) -> Iterator[tuple[int, str, int]]:
    """Each character of ``text`` with its index and the bracket depth once it is read (an
    opening bracket counts itself in, a closing one itself out)."""
    depth = 0
    for i, ch in enumerate(text):
        if ch in "[<(":
            depth += 1
        elif ch in "]>)":
            depth -= 1
        yield i, ch, depth


def closing(text: str) -> int:
    """Where the bracket that opens ``text`` closes (-1: nowhere)."""
    return next((i for i, ch, depth in _with_depth(text) if ch in "]>)" and not depth), -1)


def split_top(text: str, sep: str) -> list[str]:
    """``text`` split at each ``sep`` outside brackets, the parts stripped."""
    parts, last = [], 0
    for i, ch, depth in _with_depth(text):
        if ch == sep and not depth:
            parts.append(text[last:i].strip())
            last = i + 1
    return [*parts, text[last:].strip()]
