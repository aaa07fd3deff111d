"""Turns and what they touched, mirrored into a real Neo4j as RUNTIME nodes and edges."""

from __future__ import annotations

import neo4j
import pytest

from graphsvc.graph import runtime
from graphsvc.graph.driver import Graph, connect
from graphsvc.graph.writer import GraphWriter, row
from graphsvc.indexing.workspaces import drop_workspace
from graphsvc.model import FileNode, SymbolNode

WS = "graphsvc-turn-mirror-tests"
FILES = ["src/app.py", "src/util.py"]
SYMBOL = "src/app.py#App.run"


def dead_graph() -> Graph:
    """A driver aimed at a port nothing listens on: every call fails as an outage does."""
    driver = neo4j.GraphDatabase.driver(
        "bolt://127.0.0.1:9", auth=("neo4j", "x"), connection_timeout=1.0, max_transaction_retry_time=0.5
    )
    return Graph(driver, "neo4j", "bolt://127.0.0.1:9", 5.0)


def test_the_log_commits_when_neo4j_is_down_and_the_rows_stay_pending(store):
    graph = dead_graph()
    try:
        store.turns.attach_mirror(runtime.TurnMirror(graph))
        store.turns.open_turn(WS, "t1")
        store.turns.touched("t1", ["src/app.py"])
        assert store.turns.get("t1") is not None  # committed despite the outage
        assert "cannot reach Neo4j" in store.turns.mirror_error
        report = store.turns.mirror(runtime.TurnMirror(graph))
        assert report.error and (report.pending_turns, report.pending_touched) == (1, 1)
    finally:
        graph.close()


@pytest.fixture
def graph(neo4j_server):
    g = connect()
    g.timeout_s = 180.0  # a fresh server on a busy machine plans its first queries slowly
    drop_workspace(WS, g, missing_ok=True)
    writer = GraphWriter(g, WS)
    writer.upsert_files([
        row(FileNode(id=f, name=f.rsplit("/", 1)[-1], path=f, size=10, lang="python", hash=None)) | {"parent": None}
        for f in FILES
    ])
    writer.create_symbols([SymbolNode(id=SYMBOL, name="run", kind="method", file="src/app.py", qualified_name="App.run")])
    yield g
    drop_workspace(WS, g, missing_ok=True)
    g.close()


def test_turns_become_turn_nodes_with_keys_in_turn_and_touched_edges(store, graph):
    store.turns.attach_mirror(runtime.TurnMirror(graph))
    root = store.turns.open_turn(WS, "t1", session_id="s1", keys={"goal": "fix run", "file-tree": "src/"})
    child = store.turns.open_turn(WS, "t2", parent_id="t1")
    store.turns.touched("t2", ["src/app.py", SYMBOL, "src/missing.py"])
    assert store.turns.mirror_error is None

    node = runtime.turn_node(graph, root)
    props = node["turn"]
    assert (props["id"], props["kind"], props["prov"], props["workspace"]) == ("turn:t1", "turn", "RUNTIME", WS)
    assert (props["key_goal"], props["key_file_tree"], props["family"]) == ("fix run", "src/", "t1")
    assert node["up"] is None

    node = runtime.turn_node(graph, child)
    assert node["up"] == "turn:t1"  # IN_TURN: child -> parent
    assert sorted(node["touched"]) == sorted(["src/app.py", SYMBOL])  # never invents missing entities
    edges = graph.read(
        "MATCH (:Turn:Entity {workspace: $ws, id: 'turn:t2'})-[r]->(x) "
        "RETURN type(r) AS type, r.prov AS prov, r.confidence AS confidence, r.reason AS reason, x.id AS to",
        ws=WS,
    )
    assert {(e["type"], e["prov"], e["confidence"], e["reason"]) for e in edges} == {
        ("IN_TURN", "RUNTIME", 1.0, "runtime"),
        ("TOUCHED", "RUNTIME", 1.0, "runtime"),
    }
    assert graph.read("MATCH (n:Entity {workspace: $ws, id: 'src/missing.py'}) RETURN n", ws=WS) == []

    # Keys changed later reach the node; mirroring again adds nothing twice.
    store.turns.set_keys("t1", {"plan": "1. read"})
    report = store.turns.mirror(runtime.TurnMirror(graph))
    assert report.error is None and report.pending_turns == 0 and report.pending_touched == 1
    assert runtime.turn_node(graph, root)["turn"]["key_plan"] == "1. read"
    count = graph.read("MATCH (:Turn:Entity {workspace: $ws})-[r]->() RETURN count(r) AS n", ws=WS)
    assert count[0]["n"] == 3


def test_catch_up_mirrors_what_was_recorded_while_neo4j_was_down(store, graph):
    down = dead_graph()
    try:
        store.turns.attach_mirror(runtime.TurnMirror(down))
        store.turns.open_turn(WS, "a1")
        store.turns.open_turn(WS, "a2", family_id="a1")  # no parent: IN_TURN goes to the family's root
        store.turns.touched("a2", ["src/util.py"])
    finally:
        down.close()
    report = store.turns.mirror(runtime.TurnMirror(graph))
    assert (report.turns, report.touched, report.not_in_graph, report.error) == (2, 1, 0, None)
    node = runtime.turn_node(graph, store.turns.get("a2"))
    assert node["up"] == "turn:a1" and node["touched"] == ["src/util.py"]
    assert store.turns.mirror(runtime.TurnMirror(graph)).turns == 0  # nothing left to do
