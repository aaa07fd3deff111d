"""The MCP server as an agent uses it, through the SDK's own client: every tool listed with its
annotations and called once on an indexed project, errors as tool errors, the same server on
stdio and on streamable HTTP (behind the API's token), and a start fast enough to spawn."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import anyio
import httpx
import psutil
import pytest

from graphsvc.context.store import get_store
from graphsvc.mcp import tools
from graphsvc.settings import get_settings
from tests.api.conftest import running
from tests.mcp.conftest import CACHED_TEXT, ROOT, WS, http_session, stdio_session

pytestmark = pytest.mark.neo4j

HELPER = "shop/core.py#helper"
# The issue's names, and what this server adds.
ISSUE_TOOLS = {
    "find_symbol", "search", "grep", "callers", "callees", "impact", "detect_changes", "subclasses", "call_path",
    "explain", "community_of", "context_query", "recall", "expand", "record_event",
}
EXTRA_TOOLS = {"superclasses", "overrides", "overridden_by", "source", "community"}
# Changes the body of `helper` (shop/core.py line 13).
HELPER_DIFF = """\
--- a/shop/core.py
+++ b/shop/core.py
@@ -13,1 +13,1 @@
-    return 1
+    return 2
"""


async def _call(session, name: str, **arguments) -> tuple[str, dict]:
    result = await session.call_tool(name, arguments)
    assert not result.is_error, f"{name}: {result.content[0].text}"
    return result.content[0].text, result.structured_content


async def _every_tool(session) -> dict[str, tuple[str, dict]]:
    """Each tool called once on the project, answers keyed by tool."""
    ws = {"workspace": WS}
    got = {
        "find_symbol": await _call(session, "find_symbol", ref="shop.core.helper", **ws),
        "search": await _call(session, "search", text="helper", **ws),
        "grep": await _call(session, "grep", pattern="helper()", **ws),
        "callers": await _call(session, "callers", ref="shop.core.helper", **ws),
        "callees": await _call(session, "callees", ref="shop/core.py#Base.run", **ws),
        "impact": await _call(session, "impact", ref=HELPER, **ws),
        "subclasses": await _call(session, "subclasses", ref="shop/core.py#Base", **ws),
        "superclasses": await _call(session, "superclasses", ref="shop/core.py#Child", **ws),
        "overrides": await _call(session, "overrides", ref="shop/core.py#Child.run", **ws),
        "overridden_by": await _call(session, "overridden_by", ref="shop/core.py#Base.run", **ws),
        "call_path": await _call(session, "call_path", **{"from": "shop/core.py#Base.run", "to": HELPER}, **ws),
        "explain": await _call(session, "explain", ref=HELPER, **ws),
        "source": await _call(session, "source", ref=HELPER, **ws),
        "community_of": await _call(session, "community_of", ref=HELPER, **ws),
        "context_query": await _call(session, "context_query", query=f"@{WS} helper"),
        "recall": await _call(session, "recall", query="coupon"),
        "record_event": await _call(session, "record_event", type="FileEdited", payload={"path": "shop/core.py"}, **ws),
    }
    got["community"] = await _call(session, "community", number=got["community_of"][1]["number"], **ws)
    got["expand"] = await _call(session, "expand", ref=got["recall"][1]["items"][0]["ref"], lines="2-2")
    got["detect_changes"] = await _call(session, "detect_changes", since=HELPER_DIFF, **ws)
    return got


def _check_answers(got: dict[str, tuple[str, dict]]) -> None:
    text = {name: answer[0] for name, answer in got.items()}
    data = {name: answer[1] for name, answer in got.items()}
    assert data["find_symbol"]["entity"]["id"] == HELPER and text["find_symbol"].startswith(HELPER)
    assert data["search"]["hits"][0]["entity"]["id"] == HELPER
    assert {(h["file"], h["line"]) for h in data["grep"]["hits"]} == {
        ("shop/core.py", 3), ("shop/core.py", 11), ("tests/test_core.py", 4), ("tests/test_core.py", 5),
    }
    assert {s["caller"] for s in data["callers"]["sites"]} == {"shop/core.py#Base.run", "tests/test_core.py#test_helper"}
    assert "shop/core.py#Base.run" in text["callers"]
    assert [s["callee"] for s in data["callees"]["sites"]] == [HELPER]
    assert data["impact"]["tests"]["items"] == ["tests/test_core.py#test_helper"]
    assert [e["id"] for e in data["subclasses"]["entities"]] == ["shop/core.py#Child"]
    assert [e["id"] for e in data["superclasses"]["entities"]] == ["shop/core.py#Base"]
    assert [e["id"] for e in data["overrides"]["entities"]] == ["shop/core.py#Base.run"]
    assert [e["id"] for e in data["overridden_by"]["entities"]] == ["shop/core.py#Child.run"]
    assert data["call_path"]["found"] and [s["callee"] for s in data["call_path"]["steps"]] == [HELPER]
    assert data["explain"]["entity"]["id"] == HELPER
    assert '"""Shared by every runner."""' in text["source"] and data["source"]["path"].endswith("/shop/core.py")
    assert data["community_of"]["member"] == HELPER and data["community"]["id"] == data["community_of"]["id"]
    assert data["context_query"]["search"]["hits"][0]["entity"]["id"] == HELPER and HELPER in text["context_query"]
    assert data["recall"]["items"][0]["label"] == "notes.txt" and "coupon" in text["recall"]
    assert text["expand"] == "second line\n" and data["expand"]["total_lines"] == 2
    assert [c["id"] for c in data["detect_changes"]["changed"]] == [HELPER]
    assert data["detect_changes"]["impact"]["tests"]["items"] == ["tests/test_core.py#test_helper"]
    assert text["detect_changes"].startswith("1 symbol changed in 1 file; ") and "; risk: low (" in text["detect_changes"]
    event = get_store().events.get(data["record_event"]["id"])
    assert (event.type, event.workspace, event.payload) == ("FileEdited", WS, {"path": "shop/core.py"})


async def _errors(session) -> dict[str, object]:
    """The text and structured content of calls that must fail, keyed by what is wrong."""
    calls = {
        "workspace": ("callers", {"ref": "helper", "workspace": "no-such-workspace"}),
        "ambiguous": ("callers", {"ref": "run", "workspace": WS}),
        "missing": ("callers", {"workspace": WS}),
        "unknown argument": ("callers", {"ref": "helper", "workspace": WS, "dept": 2}),
        "tool": ("no_such_tool", {}),
        "not git": ("detect_changes", {"workspace": WS}),
    }
    out = {}
    for what, (name, arguments) in calls.items():
        result = await session.call_tool(name, arguments)
        assert result.is_error, what
        out[what] = (result.content[0].text, result.structured_content)
    return out


def _check_errors(errors: dict[str, tuple[str, dict]]) -> None:
    assert "no-such-workspace" in errors["workspace"][0]
    message, data = errors["ambiguous"]
    assert "'run' names 2 entities" in message
    assert data["candidates"] == ["shop/core.py#Base.run", "shop/core.py#Child.run"]
    assert errors["missing"][0] == "callers: ref: Field required"
    assert "dept" in errors["unknown argument"][0]
    assert errors["tool"][0].startswith("no tool 'no_such_tool'")
    assert "is not in a git repository: give the change as a unified diff" in errors["not git"][0]


def test_stdio_lists_every_tool_and_answers_each(project):
    async def run():
        async with stdio_session() as session:
            listed = (await session.list_tools()).tools
            return listed, await _every_tool(session), await _errors(session)

    listed, got, errors = anyio.run(run)
    names = {t.name for t in listed}
    assert names == ISSUE_TOOLS | EXTRA_TOOLS
    for tool in listed:
        assert "\n" not in tool.description and len(tool.description) < 160, tool.name
        writes = tool.name == "record_event"
        assert (tool.annotations.read_only_hint, tool.annotations.destructive_hint) == (not writes, False), tool.name
        assert tool.input_schema["type"] == "object" and tool.input_schema["additionalProperties"] is False
    callers = next(t for t in listed if t.name == "callers").input_schema
    assert callers["required"] == ["ref", "workspace"]
    assert set(callers["properties"]) == {"ref", "workspace", "depth", "min_confidence", "include_candidates", "limit"}
    assert set(got) == names
    _check_answers(got)
    _check_errors(errors)


def test_stdio_default_workspace(project):
    async def run():
        async with stdio_session("--workspace", WS) as session:
            schema = next(t for t in (await session.list_tools()).tools if t.name == "callers").input_schema
            return schema, await _call(session, "callers", ref="shop.core.helper")

    schema, (text, data) = anyio.run(run)
    assert schema["required"] == ["ref"] and schema["properties"]["workspace"]["default"] == WS
    assert data["target"]["id"] == HELPER and "shop/core.py#Base.run" in text


def test_lists_are_capped_and_say_how_many_more(project):
    answer = tools.call("callers", {"ref": HELPER, "workspace": WS, "limit": 1})
    assert len(answer.structured["sites"]) == 1 and answer.structured["truncated"]
    assert "1 more" in answer.text


def test_http_needs_the_token_and_serves_the_same_tools(project):
    settings = get_settings().model_copy(deep=True)
    settings.server.token = "s3cret"
    with running(settings) as url:
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
        headers = {"Accept": "application/json, text/event-stream"}
        refused = httpx.post(f"{url}/mcp", json=initialize, headers=headers, timeout=30)
        assert refused.status_code == 401 and refused.json()["code"] == "UNAUTHENTICATED"
        wrong = httpx.post(f"{url}/mcp", json=initialize, headers=headers | {"Authorization": "Bearer nope"}, timeout=30)
        assert wrong.status_code == 401

        async def run():
            async with http_session(url, token="s3cret") as session:
                listed = (await session.list_tools()).tools
                return listed, await _every_tool(session), await _errors(session)

        listed, got, errors = anyio.run(run)
    assert {t.name for t in listed} == set(got)
    _check_answers(got)
    _check_errors(errors)


def test_stdio_answers_initialize_before_loading_the_query_engine(project):
    """The server answers `initialize` with only the SDK loaded: its CPU time to the answer is
    the SDK's import plus a little, whatever the machine's load."""
    floor = subprocess.run(
        [sys.executable, "-c", "import time; t = time.process_time(); import mcp.server.lowlevel, mcp.server.stdio; "
         "print(time.process_time())"], capture_output=True, text=True, check=True, cwd=ROOT,
    )
    sdk_cpu = float(floor.stdout)
    message = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
    started = time.perf_counter()
    server = subprocess.Popen([sys.executable, "-m", "graphsvc", "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT)
    try:
        server.stdin.write((json.dumps(message) + "\n").encode())
        server.stdin.flush()
        answer = json.loads(server.stdout.readline())
        wall = time.perf_counter() - started
        cpu = sum(psutil.Process(server.pid).cpu_times()[:2])
        mapped = [m.path for m in psutil.Process(server.pid).memory_maps()]
    finally:
        server.stdin.close()
        server.wait(30)
    assert answer["result"]["serverInfo"]["name"] == "graphsvc"
    print(f"initialize answered after {wall:.3f} s wall, {cpu:.3f} s CPU (the SDK's import alone: {sdk_cpu:.3f} s CPU)")
    assert cpu < sdk_cpu + 0.3
    # The query engine's compiled dependencies (igraph, the driver's Rust extension) are not loaded yet.
    assert not [path for path in mapped if "_igraph" in path or "neo4j/_rust" in path]
