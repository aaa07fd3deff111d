"""Graph's bounded calls (every read, write and ping) run in daemon threads kept between calls:
a thread is started only when no idle one is left, and each caller gets its own answer."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import neo4j
import pytest

from graphsvc.graph.driver import Graph


def _call_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "neo4j-call"}


@pytest.fixture
def graph(neo4j_server) -> Iterator[Graph]:
    info = neo4j_server
    g = Graph(neo4j.GraphDatabase.driver(info.uri, auth=(info.user, info.password)), "neo4j", info.uri, 30.0)
    try:
        yield g
    finally:
        g.close()


def test_sequential_reads_reuse_one_thread(graph):
    graph.read("RETURN 1 AS one")
    before = _call_threads()
    for i in range(50):
        assert graph.read("RETURN $i AS i", i=i) == [{"i": i}]
    assert _call_threads() - before == set()


def test_concurrent_callers_each_get_their_own_answer(graph):
    wrong: list[tuple[int, object]] = []

    def client(k: int) -> None:
        for i in range(20):
            value = k * 1000 + i
            rows = graph.read("RETURN $v AS v", v=value)
            if rows != [{"v": value}]:
                wrong.append((value, rows))

    before = _call_threads()
    clients = [threading.Thread(target=client, args=(k,)) for k in range(8)]
    for t in clients:
        t.start()
    for t in clients:
        t.join(120)
    assert not wrong
    # At most one thread per concurrent caller, and they stay for the next calls.
    assert len(_call_threads() - before) <= 8
    with pytest.raises(neo4j.exceptions.CypherSyntaxError):
        graph.read("RETURN RETURN")  # an error reaches its caller, and the thread serves on
    assert graph.read("RETURN 2 AS two") == [{"two": 2}]
