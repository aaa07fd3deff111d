"""A relationship stands for every occurrence of its (type, source, target): `count` says how many."""

from __future__ import annotations

import pytest

from graphsvc.indexing.pipeline import _merge_edges, index_symbols
from graphsvc.model import CodeEdge, Rel


def test_merged_rows_keep_the_resolvers_counts():
    calls = [CodeEdge("a.py#f", "a.py#g", Rel.CALLS.value, "INFERRED", 1.0, "scope", 3, 2),
             CodeEdge("a.py#f", "a.py#g", Rel.CALLS.value, "INFERRED", 1.0, "scope", 2, 1)]
    [row] = _merge_edges(calls)[Rel.CALLS.value]
    assert (row["count"], row["line"]) == (3, 2)


@pytest.mark.neo4j
def test_repeated_calls_are_counted_in_the_graph(graph, workspace, tmp_path):
    (tmp_path / "a.py").write_text("def g():\n    return 1\n\n\ndef f():\n    g()\n    g()\n    return g()\n")
    index_symbols(tmp_path, workspace=workspace)
    rows = graph.read(
        "MATCH (:Entity {workspace: $ws, id: 'a.py#f'})-[r:CALLS]->(:Entity {workspace: $ws, id: 'a.py#g'}) "
        "RETURN r.count AS count, r.line AS line",
        ws=workspace,
    )
    assert rows == [{"count": 3, "line": 6}]
