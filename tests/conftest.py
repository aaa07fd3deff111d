"""Fixtures shared by the whole suite.

Only tests that request `neo4j_server` (or a fixture built on it) start Neo4j: one throwaway
managed instance per session, on free ports in a temporary directory, reusing the jars of
the default install. Such tests get the `neo4j` marker, so `-m "not neo4j"` skips them.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import neo4j
import pytest

from graphsvc.graph.driver import get_graph, reset_graph
from graphsvc.neo4j import ConnectionInfo, ManagedNeo4j, free_port
from graphsvc.settings import get_settings, reload_settings

_NEO4J_ENV = ("NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD")


# Until the session's throwaway Neo4j starts (`neo4j_instance`), graphsvc is pointed at a port
# nothing listens on: code that opens the default graph from a test that did not ask for a
# server fails at once, instead of connecting to (and migrating) whatever Neo4j the machine runs.
NO_SERVER_URI = "bolt://127.0.0.1:9"


def pytest_configure(config: pytest.Config) -> None:
    os.environ["NEO4J_URI"] = NO_SERVER_URI
    for key in ("NEO4J_USER", "NEO4J_PASSWORD"):
        os.environ.pop(key, None)
    reload_settings()
    reset_graph()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "neo4j_instance" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.neo4j)


@pytest.fixture(scope="session")
def neo4j_instance() -> Iterator[ManagedNeo4j]:
    """The session's running throwaway `ManagedNeo4j` (its instance dir is deleted at the end)."""
    saved = {k: os.environ.get(k) for k in _NEO4J_ENV}
    for key in _NEO4J_ENV:
        os.environ.pop(key, None)
    base = reload_settings().neo4j
    # A small test database, with generous timeouts because test machines may be busy (the
    # client-side transaction timeout in the settings still applies).
    settings = base.model_copy(
        update={"heap": "512m", "pagecache": "128m", "start_timeout_s": 300.0, "transaction_timeout_s": 300.0}
    )
    instance_dir = Path(tempfile.mkdtemp(prefix="graphsvc-test-neo4j-"))
    server = ManagedNeo4j(
        settings, instance_dir=instance_dir, bolt_port=free_port(), http_port=free_port()
    )
    try:
        server.start(free_ports=True)
        info = server.connection_info()
        os.environ.update({"NEO4J_URI": info.uri, "NEO4J_USER": info.user, "NEO4J_PASSWORD": info.password})
        reload_settings()
        _warm_up(info)
        yield server
    finally:
        server.stop(timeout_s=90)
        shutil.rmtree(instance_dir, ignore_errors=True)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        reload_settings()


def _warm_up(info: ConnectionInfo) -> None:
    """The first queries on a fresh server compile and page in a lot; on a busy machine they can
    outlast the client's transaction limit, so run them once here with a generous one."""
    with neo4j.GraphDatabase.driver(info.uri, auth=(info.user, info.password)) as driver:
        with driver.session(database=get_settings().neo4j.database) as session:
            for cypher in ("RETURN 1", "MATCH (m:GraphsvcMeta {key: 'schema'}) RETURN m.version"):
                session.run(neo4j.Query(cypher, timeout=300)).consume()
    from graphsvc.graph.driver import connect
    from graphsvc.graph.schema import apply_schema

    graph = connect()
    try:
        apply_schema(graph)
    finally:
        graph.close()


@pytest.fixture(scope="session")
def neo4j_server(neo4j_instance: ManagedNeo4j) -> ConnectionInfo:
    """Connection info of the session's Neo4j; NEO4J_URI/USER/PASSWORD point at it while it runs."""
    return neo4j_instance.connection_info()


@pytest.fixture
def neo4j_clean(neo4j_server: ConnectionInfo) -> ConnectionInfo:
    """The session's Neo4j with every node and relationship deleted (indexes stay).

    This also deletes what session-scoped fixtures wrote; tests sharing the database should
    prefer their own workspace name and clean up only that.
    """
    with neo4j.GraphDatabase.driver(neo4j_server.uri, auth=(neo4j_server.user, neo4j_server.password)) as driver:
        with driver.session(database=get_settings().neo4j.database) as session:
            session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()
    return neo4j_server


@pytest.fixture
def private_graph(neo4j_server: ConnectionInfo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The session's Neo4j as `get_graph()` gives it, with a private GRAPHSVC_HOME so index
    state and the context store never leak between tests."""
    monkeypatch.setenv("GRAPHSVC_HOME", str(tmp_path / "home"))
    reload_settings()
    reset_graph()
    yield get_graph()
    reset_graph()
    monkeypatch.undo()
    reload_settings()


REQUESTS_DIR = Path(__file__).parent / "fixtures" / "third_party" / "requests"
REQUESTS_WS = "third-party-requests"


@pytest.fixture(scope="session")
def requests_workspace(neo4j_server: ConnectionInfo, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The vendored requests 2.32.3 (tests/fixtures/third_party/requests), indexed once per
    session (index state in a private GRAPHSVC_HOME) for the tests that check answers against
    its source."""
    from graphsvc.indexing.pipeline import index_symbols
    from graphsvc.indexing.workspaces import drop_workspace

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GRAPHSVC_HOME", str(tmp_path_factory.mktemp("requests-home")))
        reload_settings()
        reset_graph()
        drop_workspace(REQUESTS_WS, missing_ok=True)
        index_symbols(REQUESTS_DIR, workspace=REQUESTS_WS, jobs=1)
        get_graph().write("CALL db.awaitIndexes(60)")
        yield REQUESTS_WS
        drop_workspace(REQUESTS_WS)
    reset_graph()
    reload_settings()
