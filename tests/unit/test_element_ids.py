"""The writer's map of node ids to Neo4j element ids keeps numbers, and gives back the ids."""

from graphsvc.graph.element_ids import ElementIds


def test_element_ids_round_trip_and_odd_forms():
    eids = ElementIds()
    prefix = "4:3f1c0d52-8a7e-4f0e-9d7b-2a1b3c4d5e6f"
    eids.update([("a", f"{prefix}:0"), ("b", f"{prefix}:123456789"), ("c", "elsewhere:7"), ("d", f"{prefix}:007")])
    assert eids["a"] == f"{prefix}:0"
    assert eids["b"] == f"{prefix}:123456789"
    assert eids["c"] == "elsewhere:7"  # another database's prefix: kept whole
    assert eids["d"] == f"{prefix}:007"  # not a plain number: kept whole
    assert "a" in eids and "c" in eids and "z" not in eids
    assert len(eids) == 4
    eids.update([("c", f"{prefix}:9"), ("a", "5")])  # replaced, in either form
    assert eids["c"] == f"{prefix}:9" and eids["a"] == "5"
    assert len(eids) == 4
