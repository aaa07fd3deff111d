"""A small real project (tests/fixtures/calls: Python, TypeScript, Go) indexed once, and a
server over it, for the one-call verbs on every surface."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from graphsvc.graph.driver import get_graph, reset_graph
from graphsvc.indexing.pipeline import index_symbols
from graphsvc.indexing.workspaces import drop_workspace
from graphsvc.settings import get_settings, reload_settings
from tests.api.conftest import running

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "calls"
WS = "graphsvc-verbs-tests"


@pytest.fixture(scope="module")
def calls_ws(neo4j_server, tmp_path_factory) -> Iterator[str]:
    saved = os.environ.get("GRAPHSVC_HOME")
    os.environ["GRAPHSVC_HOME"] = str(tmp_path_factory.mktemp("home"))
    reload_settings()
    reset_graph()
    index_symbols(FIXTURE, workspace=WS, jobs=1)
    yield WS
    drop_workspace(WS, get_graph())
    reset_graph()
    if saved is None:
        os.environ.pop("GRAPHSVC_HOME", None)
    else:
        os.environ["GRAPHSVC_HOME"] = saved
    reload_settings()


@pytest.fixture(scope="module")
def url(calls_ws) -> Iterator[str]:
    with running(get_settings()) as base:
        yield base


@pytest.fixture(scope="module")
def gql(url):
    def post(query: str, **variables) -> dict:
        r = httpx.post(f"{url}/graphql", json={"query": query, "variables": variables}, timeout=60)
        assert r.status_code == 200, r.text
        return r.json()

    return post
