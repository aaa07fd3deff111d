"""Model records as the parameter rows of the writer's statements, and batches of rows.

Compiled from the records' field names (ours, never input), as dataclasses compiles its
__init__: the writer turns millions of records into rows, and a dict display builds one
faster than zipping an attrgetter's tuple.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any

from graphsvc import model

BATCH = 5000


def row_fields(record: type) -> tuple[str, ...]:
    """The keys of a record's row: its stored properties but the constants."""
    return tuple(f.name for f in model.stored_fields(record) if not model.is_constant(f))


def _compiled(record: type, value_of: Callable[[str], str]) -> Callable[..., dict]:
    """``lambda item: {name: value, ...}`` over the record's row fields, `value_of(name)`
    giving each value's expression in ``item``; derived properties call their function."""
    names = row_fields(record)
    if not all(name.isidentifier() for name in names):
        raise ValueError(f"{record.__name__}: a field name is not an identifier: {names}")
    derive = {f.name: model.derivation(f) for f in dataclasses.fields(record) if model.derivation(f)}
    env = {f"derive_{name}": of for name, of in derive.items()}
    values = [f"derive_{name}(item)" if name in derive else value_of(name) for name in names]
    return eval("lambda item: {" + ", ".join(f"{n!r}: {v}" for n, v in zip(names, values)) + "}", env)  # noqa: S307


_ROWS = {
    record: _compiled(record, lambda name: f"item.{name}")
    for record in (*model.NODE_RECORDS, *model.NODE_PART_RECORDS, *model.OVERLAY_NODE_RECORDS)
}
SYMBOL_ROW = _ROWS[model.SymbolNode]
EXTERNAL_ROW = _ROWS[model.ExternalNode]  # also takes the SymbolNode the resolver makes of one


def _symbol_values_row() -> Callable[[tuple], dict]:
    """The row of a symbol given as its fields' values in their order (as the index state
    keeps them): no record is built on the way (3.5 M symbols in the Linux kernel)."""
    place = {f.name: i for i, f in enumerate(f for f in dataclasses.fields(model.SymbolNode) if f.init)}
    derived = {f.name for f in dataclasses.fields(model.SymbolNode) if model.derivation(f)}
    if derived != {"words"}:
        raise TypeError(f"SymbolNode: derived fields {sorted(derived)}, the values row knows 'words' only")
    names = row_fields(model.SymbolNode)
    items = [f"{n!r}: item[{place[n]}]" for n in names if n != "words"]
    items.append(f"'words': words(item[{place['qualified_name']}])")
    return eval("lambda item: {" + ", ".join(items) + "}", {"words": model.identifier_words})  # noqa: S307


SYMBOL_VALUES_ROW = _symbol_values_row()


def row(record: Any) -> dict[str, Any]:
    """The parameters a statement of `graphsvc.graph.writer` takes for a model record."""
    return _ROWS[type(record)](record)


class Rows(list):
    """A batch of rows sent as one parameter. The driver formats a debug line of every
    statement's parameters whether or not debug logging is on (neo4j 6.4, ``Bolt5x5.run``):
    a batch's repr is its length, not its rows, whose repr cost more than packing them (about
    1.4 against 1.1 µs an edge row)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{len(self)} rows>"


def batches(rows: Iterable[Any], size: int = BATCH) -> Iterator[Rows]:
    it = iter(rows)
    while chunk := Rows(islice(it, size)):
        yield chunk
