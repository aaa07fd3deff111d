"""Rows as the writer sends them: built from records or values alike; batches packed as lists,
formatted as their length."""

from __future__ import annotations

import dataclasses
import io

from neo4j._codec.packstream.v1 import Packer

from graphsvc import model
from graphsvc.graph import edge_rows
from graphsvc.graph.element_ids import ElementIds
from graphsvc.graph.rows import SYMBOL_ROW, SYMBOL_VALUES_ROW, Rows, batches, row_fields


def _packed(value) -> bytes:
    out = io.BytesIO()
    Packer(out).pack(value)
    return out.getvalue()


def test_batches_split_rows_and_keep_every_one():
    rows = [{"id": str(i)} for i in range(12)]
    chunks = list(batches(rows, 5))
    assert [len(c) for c in chunks] == [5, 5, 2]
    assert [r for c in chunks for r in c] == rows
    assert all(isinstance(c, Rows) for c in chunks)


def test_a_batch_is_formatted_as_its_length_and_packed_as_a_list():
    rows = [{"src": f"4:x:{i}", "dst": f"4:x:{i + 1}", "confidence": 0.5, "line": i} for i in range(1000)]
    chunk = next(batches(rows, 1000))
    # The driver formats every statement's parameters for its debug log, at any log level.
    assert repr({"rows": chunk}) == "{'rows': <1000 rows>}"
    assert _packed({"ws": "w", "rows": chunk}) == _packed({"ws": "w", "rows": rows})


def test_a_symbol_s_row_from_its_values_is_the_row_of_its_record():
    symbols = [
        model.SymbolNode("a.py#C.f", "f", "method", "a.py", "C.f", "def f(self)", "python", 3, 9, "a.py#C", "Doc."),
        model.SymbolNode("fs/x.c#HTTPGet", "HTTPGet", "function", "fs/x.c", "HTTPGet", lang="c"),
    ]
    for s in symbols:
        values = tuple(getattr(s, f.name) for f in dataclasses.fields(s) if f.init)
        assert SYMBOL_VALUES_ROW(values) == SYMBOL_ROW(s)


def test_an_edge_s_row_names_its_ends_by_element_id_and_skips_edges_without_both():
    eids = ElementIds()
    eids.update([("a.py#f", "4:db:1"), ("a.py#g", "4:db:2")])
    edges = [model.CodeEdge("a.py#f", "a.py#g", "CALLS", "INFERRED", 0.5, "candidate", 7, 2),
             model.CodeEdge("a.py#f", "b.py#h", "CALLS", "EXTRACTED")]
    count, rows = edge_rows.keyed_rows(eids, edge_rows.values_of(edges))
    rows = list(rows)
    assert count == len(rows) == 1
    assert rows[0] == {"src": "4:db:1", "dst": "4:db:2", "prov": "INFERRED", "confidence": 0.5,
                       "reason": "candidate", "line": 7, "count": 2}
    assert set(rows[0]) == {"src", "dst", *row_fields(model.CodeEdge)}
