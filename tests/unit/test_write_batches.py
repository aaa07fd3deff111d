"""Batches of rows as the writer sends them: packed as lists, formatted as their length."""

from __future__ import annotations

import io

from neo4j._codec.packstream.v1 import Packer

from graphsvc.graph.writer import Rows, batches


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
