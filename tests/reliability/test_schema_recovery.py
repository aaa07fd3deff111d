"""Schema setup copes with what a failed first start leaves in Neo4j.

A full disk during the first start left the constraint `entity_key`'s backing index in state
FAILED and no constraint; `CREATE CONSTRAINT … IF NOT EXISTS` then failed on every start.
Here a FAILED index is provoked the way Neo4j fails a population for any reason: a property
value too large for a range index. The migrations are probe files in a temporary directory
(their own label and names), so the shared test server's real schema is not touched, except
in the last test, which drops one real index and puts it back through `apply_schema`.
"""

from __future__ import annotations

import time

import pytest

from graphsvc.errors import Neo4jSchemaError
from graphsvc.graph.driver import connect
from graphsvc.graph.schema import apply_schema, created_names, migrations

pytestmark = [pytest.mark.neo4j, pytest.mark.timeout(300)]

NAME = "schema_probe_key"
LABEL = "SchemaProbe"
TOO_LARGE = "x" * 40_000  # over a range index's key size limit


@pytest.fixture
def graph(neo4j_server):
    graph = connect()
    try:
        yield graph
    finally:
        graph.write(f"DROP CONSTRAINT {NAME} IF EXISTS")
        graph.write(f"DROP INDEX {NAME} IF EXISTS")
        graph.write(f"MATCH (n:{LABEL}) DELETE n")
        graph.close()


@pytest.fixture
def probe_migrations(tmp_path):
    (tmp_path / "001_probe.cypher").write_text(
        f"CREATE CONSTRAINT {NAME} IF NOT EXISTS\nFOR (n:{LABEL}) REQUIRE n.key IS UNIQUE;\n"
    )
    return tmp_path


def _index(graph, name: str) -> dict | None:
    rows = graph.read("SHOW INDEXES YIELD name, state, owningConstraint WHERE name = $name "
                      "RETURN name, state, owningConstraint", name=name)
    return rows[0] if rows else None


def _failed_index(graph) -> None:
    """An index named like the probe constraint, with no constraint, whose population failed."""
    graph.write(f"CREATE (:{LABEL} {{key: $v}})", v=TOO_LARGE)
    graph.write(f"CREATE INDEX {NAME} FOR (n:{LABEL}) ON (n.key)")
    deadline = time.monotonic() + 120
    while (_index(graph, NAME) or {}).get("state") != "FAILED":
        assert time.monotonic() < deadline, _index(graph, NAME)
        time.sleep(0.2)


def test_a_failed_index_left_by_an_earlier_start_is_dropped_and_created_again(graph, probe_migrations):
    _failed_index(graph)
    graph.write(f"MATCH (n:{LABEL}) DELETE n")  # the cause is gone (the disk has space again)
    apply_schema(graph, probe_migrations)
    index = _index(graph, NAME)
    assert index == {"name": NAME, "state": "ONLINE", "owningConstraint": NAME}
    assert graph.read("SHOW CONSTRAINTS YIELD name WHERE name = $n RETURN name", n=NAME) == [{"name": NAME}]
    apply_schema(graph, probe_migrations)  # and the next start is a no-op
    assert _index(graph, NAME) == index


def test_an_index_that_fails_again_is_a_clear_error_naming_it(graph, probe_migrations):
    _failed_index(graph)  # the cause stays: building the index fails again
    with pytest.raises(Neo4jSchemaError) as err:
        apply_schema(graph, probe_migrations)
    message = str(err.value)
    assert NAME in message and "start again" in message, message
    assert "Traceback" not in message and "\n" not in message


def test_a_leftover_index_of_a_constraints_name_is_a_clear_error_with_the_fix(graph, probe_migrations):
    graph.write(f"CREATE INDEX {NAME} FOR (n:{LABEL}) ON (n.key)")  # online, but not the constraint
    with pytest.raises(Neo4jSchemaError) as err:
        apply_schema(graph, probe_migrations)
    assert f"DROP INDEX {NAME}" in str(err.value), str(err.value)
    graph.write(f"DROP INDEX {NAME}")
    apply_schema(graph, probe_migrations)
    assert _index(graph, NAME)["owningConstraint"] == NAME


def test_a_dropped_index_comes_back_and_foreign_ones_are_left_alone(graph):
    """The real migrations: one of our indexes dropped by hand, and an index that is not ours."""
    assert "entity_name" in created_names(migrations())
    graph.write("DROP INDEX entity_name")
    graph.write(f"CREATE INDEX {NAME} FOR (n:{LABEL}) ON (n.other)")
    try:
        apply_schema(graph)
        assert _index(graph, "entity_name")["state"] == "ONLINE"
        assert _index(graph, NAME)["state"] == "ONLINE"
    finally:
        graph.write("CREATE INDEX entity_name IF NOT EXISTS FOR (n:Entity) ON (n.name)")
