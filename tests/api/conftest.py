"""A real uvicorn server on a free port, in a thread, over the session's Neo4j."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import httpx
import pytest
import uvicorn

from graphsvc.api.app import create_app
from graphsvc.graph.driver import connect, get_graph, reset_graph
from graphsvc.indexing.workspaces import drop_workspace
from graphsvc.settings import Settings, get_settings
from tests.query.conftest import build_workspace

WS = "graphsvc-api-tests"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running(settings: Settings) -> Iterator[str]:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture(scope="module")
def api_workspace(neo4j_server) -> Iterator[str]:
    reset_graph()
    get_graph()
    g = connect()
    build_workspace(g, WS)
    g.write("CALL db.awaitIndexes(60)")
    yield WS
    drop_workspace(WS, g)
    g.close()


@pytest.fixture
def serve(api_workspace) -> Iterator[Callable[..., str]]:
    """`serve(token=..., max_results=...)` starts a server with those `server.*` settings."""
    stack = []

    def start(**server_settings) -> str:
        settings = get_settings().model_copy(deep=True)
        for key, value in server_settings.items():
            setattr(settings.server, key, value)
        cm = running(settings)
        url = cm.__enter__()
        stack.append(cm)
        return url

    yield start
    for cm in reversed(stack):
        cm.__exit__(None, None, None)


@pytest.fixture
def gql():
    def post(url: str, query: str, variables: dict | None = None, token: str | None = None) -> httpx.Response:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.post(f"{url}/graphql", json={"query": query, "variables": variables or {}}, headers=headers, timeout=60)

    return post
