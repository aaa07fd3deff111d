"""A small Python project indexed for real (with stored communities and one cached text), and
the SDK's own MCP client over stdio (`graphsvc mcp` spawned) and over streamable HTTP (`/mcp`
of a real server)."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx2
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from graphsvc.context.cache import get_cache, reset_cache
from graphsvc.context.store import reset_store
from graphsvc.graph.driver import get_graph, reset_graph
from graphsvc.indexing.pipeline import index_symbols
from graphsvc.indexing.workspaces import drop_workspace
from graphsvc.query.communities import compute_communities
from graphsvc.settings import reload_settings

WS = "graphsvc-mcp-tests"
ROOT = Path(__file__).resolve().parents[2]
FILES = {
    "shop/__init__.py": "",
    "shop/core.py": '''\
class Base:
    def run(self):
        return helper()


class Child(Base):
    def run(self):
        return super().run() + 1


def helper():
    """Shared by every runner."""
    return 1


def main():
    return Child().run()
''',
    "tests/test_core.py": '''\
from shop.core import helper


def test_helper():
    assert helper() == 1
''',
}
CACHED_TEXT = "the basket total is recomputed whenever a coupon changes\nsecond line\n"


@pytest.fixture(scope="package")
def project(neo4j_server, tmp_path_factory) -> Iterator[str]:
    """The project indexed as `WS`, its communities stored and `CACHED_TEXT` in the content
    cache, all under a private GRAPHSVC_HOME that spawned servers inherit."""
    root = tmp_path_factory.mktemp("mcp-project")
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    saved = os.environ.get("GRAPHSVC_HOME")
    os.environ["GRAPHSVC_HOME"] = str(tmp_path_factory.mktemp("mcp-home"))
    reload_settings()
    reset_graph()
    reset_store()
    reset_cache()
    index_symbols(root, workspace=WS, jobs=1)
    compute_communities(workspace=WS, seed=1)
    get_cache().store(CACHED_TEXT, label="notes.txt")
    yield WS
    drop_workspace(WS, get_graph())
    reset_graph()
    reset_store()
    reset_cache()
    if saved is None:
        os.environ.pop("GRAPHSVC_HOME", None)
    else:
        os.environ["GRAPHSVC_HOME"] = saved
    reload_settings()


def stdio_parameters(*args: str) -> StdioServerParameters:
    """`python -m graphsvc mcp ARGS` from this checkout, with this process's settings."""
    return StdioServerParameters(command=sys.executable, args=["-m", "graphsvc", "mcp", *args], cwd=str(ROOT),
                                 env=dict(os.environ))


@asynccontextmanager
async def stdio_session(*args: str) -> AsyncIterator[ClientSession]:
    async with stdio_client(stdio_parameters(*args)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


@asynccontextmanager
async def http_session(url: str, token: str | None = None) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as client:
        async with streamable_http_client(f"{url}/mcp", http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session
