"""Edges as the writer sends them: from the values a run keeps to parameter rows.

A large run keeps its edges as tuples of `model.CodeEdge`'s fields in their order
(`model.edge_values`, `graphsvc.indexing.spool`) and the writer turns each into a row whose
ends are Neo4j element ids. The Linux kernel has 8 M edges: records rebuilt from the tuples,
then a row per record and four lookups of its ends took about 15 µs an edge of Python time
under the GIL; a row compiled straight from the tuple, with one lookup per end, a few.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence

from graphsvc import model
from graphsvc.graph.element_ids import ElementIds

EdgeValues = tuple  # model.CodeEdge's fields in their order
_PLACE = {name: i for i, name in enumerate(model.EDGE_FIELDS)}
SRC, DST, REASON = _PLACE["src"], _PLACE["dst"], _PLACE["reason"]


def _compiled() -> Callable[[EdgeValues, Callable[[str], str | None]], dict]:
    """``row(values, end)``: the edge's stored properties, its ends as ``end(id)`` names them.
    Compiled from the record's fields, as `graphsvc.graph.writer` compiles node rows."""
    stored = [f.name for f in model.stored_fields(model.CodeEdge) if not model.is_constant(f)]
    if any(model.derivation(f) for f in dataclasses.fields(model.CodeEdge)):
        raise TypeError("CodeEdge: a derived property has no place in the edge values")
    items = ["'src': end(v[%d])" % SRC, "'dst': end(v[%d])" % DST]
    items += [f"{name!r}: v[{_PLACE[name]}]" for name in stored]
    return eval("lambda v, end: {" + ", ".join(items) + "}")  # noqa: S307  (names are ours)


_ROW = _compiled()


def values_of(edges: Iterable[model.CodeEdge | EdgeValues]) -> list[EdgeValues]:
    """Edges as values (records are taken apart; values are kept)."""
    return [e if isinstance(e, tuple) else model.edge_values(e) for e in edges]


def ends(edges: Sequence[EdgeValues]) -> set[str]:
    return {v[SRC] for v in edges} | {v[DST] for v in edges}


def keyed_rows(eids: ElementIds, edges: Sequence[EdgeValues]) -> tuple[int, Iterable[dict]]:
    """How many of `edges` have both ends in `eids`, and their rows (built as taken), ends
    named by element id."""
    absent = eids.absent(ends(edges))
    kept = edges if not absent else [v for v in edges if v[SRC] not in absent and v[DST] not in absent]
    end, row = eids.get, _ROW
    return len(kept), (row(v, end) for v in kept)


def typed_rows(rel: str, edges: Iterable[EdgeValues]) -> list[dict]:
    """Rows of type `rel`, ends named by node id (`writer._CREATE_EDGES_BY_KEY`)."""
    return [_ROW(v, str) | {"type": rel} for v in edges]
