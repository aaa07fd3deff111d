"""Statements that look an entity up by its key must seek the key index, whatever the statistics.

A plan is cached when it is first made. Made while the database was small, it read a whole
index ("every node of the workspace, then filter on id") once per row, and it was still used
once the database was large: indexing the standard library then spent half a minute deleting
edges that did not exist yet. The statements carry `USING INDEX SEEK` hints; these tests plan
them on a small database, where a scan looks cheapest.
"""

from __future__ import annotations

import pytest

from graphsvc.graph import reads, runtime, writer

pytestmark = pytest.mark.neo4j

KEYED = {
    "upsert workspace": writer._UPSERT_WORKSPACE,
    "upsert dirs": writer._UPSERT_DIRS,
    "upsert files": writer._UPSERT_FILES,
    "upsert symbols": writer._UPSERT_SYMBOLS,
    "upsert externals": writer._UPSERT_EXTERNALS,
    "delete by file": writer._DELETE_BY_FILE,
    "delete by id": writer._DELETE_BY_ID,
    "mark files": writer._MARK_FILES,
    "element ids": writer._ELEMENT_IDS,
    "workspace token": writer._GET_WORKSPACE_TOKEN,
    "mark workspace": writer._MARK_WORKSPACE,
    "upsert communities": writer._UPSERT_COMMUNITIES,
    "mirror turns": runtime._MIRROR_TURNS,
    "delete outgoing edges": writer._DELETE_CODE_EDGES,
    "create edges by key": writer._CREATE_EDGES_BY_KEY,
    "delete orphan externals": writer._DELETE_ORPHAN_EXTERNALS,
    "entity lookup": reads._ENTITY_EXACT,
    "community members": writer._MOVE_MEMBERS,
    "community lock": writer._LOCK_WORKSPACE,
    "turn subgraph": reads._TURN_GRAPH,
    "turn touched": runtime._MIRROR_TOUCHED,
    "turn node": runtime._TURN_NODE,
}


def _operators(plan) -> list[tuple[str, str]]:
    ops = [(plan.get("operatorType", ""), str(plan.get("args", {}).get("Details", "")))]
    for child in plan.get("children", []):
        ops += _operators(child)
    return ops


@pytest.mark.parametrize("name", sorted(KEYED))
def test_keyed_lookups_seek_the_key_index(graph, workspace, tmp_path, name):
    from graphsvc.indexing.pipeline import index_symbols

    (tmp_path / "repo").mkdir()
    for i in range(30):
        (tmp_path / "repo" / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    index_symbols(tmp_path / "repo", workspace=workspace)
    with graph.session() as session:
        plan = session.run("EXPLAIN " + KEYED[name]).consume().plan
    ops = _operators(plan)
    # A scan of an index, or a seek on the workspace alone, reads every node of the workspace.
    scans = [
        d for op, d in ops
        if op.startswith("NodeIndexScan") or d.endswith(":Entity(workspace) WHERE workspace = $ws")
    ]
    assert not scans, f"{name}: reads the whole workspace for a keyed lookup: {ops}"
    assert any("IndexSeek" in op for op, _ in ops), f"{name}: no index seek at all: {ops}"
