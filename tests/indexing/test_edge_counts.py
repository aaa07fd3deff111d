"""A relationship stands for every occurrence of its (type, source, target): `count` says how many."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from graphsvc.indexing.pipeline import index_symbols
from graphsvc.indexing.pool import parse_files
from graphsvc.indexing.spool import EdgeSpool
from indexers.languages import language_for_path
from indexers.records import EdgeRecord
from indexers.resolve import SymbolTable, resolve_file

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "symbols"


@pytest.mark.parametrize("corpus", sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()))
def test_each_relationship_is_one_row_and_leaves_the_file_that_resolved_it(corpus):
    # What lets the run write each file's edges as they come (`EdgeSpool`): no two files
    # resolve an edge of the same type between the same ends.
    root = FIXTURES / corpus
    files = [(p.relative_to(root).as_posix(), language_for_path(p.name).name)
             for p in sorted(root.rglob("*")) if p.is_file() and language_for_path(p.name)]
    exts = {ext.path: ext for ext, _ in parse_files(str(root), files, 1, None)}
    table = SymbolTable(exts.values())
    spool, keys, added = EdgeSpool(), Counter(), []
    for path in sorted(exts):
        edges = resolve_file(exts[path], table)
        assert all(e.src == path or e.src.startswith(path + "#") for e in edges), path
        keys.update((e.type, e.src, e.dst) for e in edges)
        spool.add(edges)
        added += edges
    assert keys and max(keys.values()) == 1
    # Read back as the values of each record, every field kept.
    read = [(rel, EdgeRecord(*values)) for rel, batch in spool.rows(per_call=7) for values in batch]
    assert Counter((rel, e.src, e.dst) for rel, e in read) == keys
    assert all(rel == e.type for rel, e in read)
    assert Counter(e for _, e in read) == Counter(added)


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


def _edge(src: str, dst: str, rel: str = "CALLS"):
    from indexers.records import EdgeRecord

    return EdgeRecord(src, dst, rel, "EXTRACTED", 1.0, "scope", 1, 1)


def test_a_following_reader_gets_the_edges_added_while_it_reads():
    import threading

    spool = EdgeSpool()
    read: list[tuple[str, str]] = []
    reader = threading.Thread(target=lambda: read.extend(
        (rel, values[1]) for rel, edges in spool.rows(per_call=3, follow=True) for values in edges))
    reader.start()
    added = []
    for i in range(10):
        edges = [_edge(f"f{i}.py", f"f{i}.py#g{j}", "CALLS" if j % 2 else "CONTAINS") for j in range(4)]
        spool.add(edges)
        added += [(e.type, e.dst) for e in edges]
    spool.finish()
    reader.join(timeout=10)
    assert not reader.is_alive() and Counter(read) == Counter(added)
    spool.close()


def test_a_following_reader_stops_with_an_error_when_the_run_aborts():
    import threading

    spool = EdgeSpool()
    errors: list[BaseException] = []

    def follow() -> None:
        try:
            for _ in spool.rows(follow=True):
                pass
        except RuntimeError as exc:
            errors.append(exc)

    reader = threading.Thread(target=follow)
    reader.start()
    spool.add([_edge("a.py", "a.py#f")])
    spool.abort()
    reader.join(timeout=10)
    assert not reader.is_alive() and errors and "stopped" in str(errors[0])
    spool.close()
