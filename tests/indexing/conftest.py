"""Fixtures for indexing tests: a real Neo4j (session fixture) and helpers to read the graph."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys

import pytest


_counter = itertools.count()


@pytest.fixture
def graph(private_graph):
    """The session's Neo4j, with a private GRAPHSVC_HOME so index state never leaks between tests."""
    return private_graph


@pytest.fixture
def workspace(request) -> str:
    """A workspace name unique to the test, so tests share one database safely."""
    return f"t{next(_counter)}-{request.node.name[:40]}"


def entities(graph, ws: str) -> dict[str, dict]:
    rows = graph.read(
        "MATCH (n:Entity {workspace: $ws}) RETURN n.id AS id, labels(n) AS labels, "
        "elementId(n) AS eid, properties(n) AS props",
        ws=ws,
    )
    return {r["id"]: r for r in rows}


def edges(graph, ws: str, rel: str | None = None) -> set[tuple[str, str, str]]:
    rows = graph.read(
        "MATCH (a:Entity {workspace: $ws})-[r]->(b:Entity {workspace: $ws}) "
        "RETURN a.id AS src, type(r) AS type, b.id AS dst",
        ws=ws,
    )
    return {(r["src"], r["type"], r["dst"]) for r in rows if rel is None or r["type"] == rel}


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "graphsvc", *args], capture_output=True, text=True, env=full_env, timeout=300
    )
