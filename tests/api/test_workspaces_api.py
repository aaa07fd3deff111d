"""Workspaces over REST and GraphQL against a running server and the session's Neo4j."""

from __future__ import annotations

import urllib.parse

import httpx
import pytest

from graphsvc.indexing.pipeline import index_symbols
from graphsvc.indexing.state import state_path
from graphsvc.indexing.workspaces import drop_workspace, workspace
from graphsvc.settings import get_settings
from tests.api.conftest import running
from tests.graph_compare import difference, dump

pytestmark = pytest.mark.timeout(180)

TOKEN = "workspaces-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
JSON = {**AUTH, "Content-Type": "application/json"}
FIELDS = "name root indexedAt nodes edges files symbols"


@pytest.fixture
def indexed(private_graph, tmp_path, request):
    """Two small workspaces indexed through the pipeline, and a server with a token; both are
    dropped afterwards."""
    names = tuple(f"{request.node.name[:30]}-{x}" for x in "ab")
    for name in names:
        root = tmp_path / name
        root.mkdir()
        (root / "m.py").write_text("def f():\n    return g()\n\n\ndef g():\n    return 1\n")
        index_symbols(root, workspace=name, jobs=1)
    settings = get_settings().model_copy(deep=True)
    settings.server.token = TOKEN
    with running(settings) as url:
        yield url, names
    for name in names:
        drop_workspace(name, private_graph, missing_ok=True)


def _gql(url: str, query: str, variables: dict | None = None) -> dict:
    answer = httpx.post(f"{url}/graphql", json={"query": query, "variables": variables or {}}, headers=AUTH, timeout=60)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_rest_lists_shows_and_drops(private_graph, indexed):
    url, (a, b) = indexed
    for method, path in (("GET", "/api/workspaces"), ("GET", f"/api/workspaces/{a}"),
                         ("DELETE", f"/api/workspaces/{a}")):
        assert httpx.request(method, f"{url}{path}", headers={"Content-Type": "application/json"}).status_code == 401

    listed = httpx.get(f"{url}/api/workspaces", headers=AUTH).json()
    shown = workspace(a, private_graph).to_dict()
    assert {w["name"]: w for w in listed}[a] == shown and shown["nodes"] > 0 and shown["symbols"] == 2
    assert httpx.get(f"{url}/api/workspaces/{a}", headers=AUTH).json() == shown
    missing = httpx.get(f"{url}/api/workspaces/no-such-ws", headers=AUTH)
    assert missing.status_code == 404 and missing.json()["code"] == "NOT_FOUND"

    kept = dump(private_graph.read, b)
    dropped = httpx.delete(f"{url}/api/workspaces/{a}", headers=JSON)
    assert dropped.status_code == 200, dropped.text
    assert dropped.json() == {**{k: shown[k] for k in ("name", "root", "nodes", "edges", "files", "symbols")},
                              "index_state_removed": True}
    assert not state_path(get_settings().home, a, private_graph.uri).exists()
    assert a not in {w["name"] for w in httpx.get(f"{url}/api/workspaces", headers=AUTH).json()}
    assert not difference(dump(private_graph.read, b), kept, ("after the drop", "before"))
    again = httpx.delete(f"{url}/api/workspaces/{a}", headers=JSON)
    assert again.status_code == 404 and a in again.json()["error"]


def test_graphql_lists_and_drops(private_graph, indexed):
    url, (a, b) = indexed
    body = _gql(url, f"{{ workspaces {{ {FIELDS} }} }}")
    listed = {w["name"]: w for w in body["data"]["workspaces"]}
    assert listed[a]["nodes"] == workspace(a, private_graph).nodes and listed[a]["indexedAt"]
    one = _gql(url, f"query($n: String) {{ workspaces(name: $n) {{ {FIELDS} }} }}", {"n": b})
    assert one["data"]["workspaces"] == [listed[b]]
    unknown = _gql(url, "{ workspaces(name: \"nope\") { name } }")
    assert unknown["errors"][0]["extensions"]["code"] == "NOT_FOUND"

    kept = dump(private_graph.read, b)
    drop = "mutation($n: String!) { dropWorkspace(name: $n) { name nodes edges indexStateRemoved } }"
    dropped = _gql(url, drop, {"n": a})["data"]["dropWorkspace"]
    assert dropped == {"name": a, "nodes": listed[a]["nodes"], "edges": listed[a]["edges"], "indexStateRemoved": True}
    assert not difference(dump(private_graph.read, b), kept, ("after the drop", "before"))
    assert _gql(url, drop, {"n": a})["errors"][0]["extensions"]["code"] == "NOT_FOUND"


def test_drop_is_refused_over_get(private_graph, indexed):
    url, (a, _) = indexed
    query = urllib.parse.quote(f'mutation {{ dropWorkspace(name: "{a}") {{ name }} }}')
    answer = httpx.get(f"{url}/graphql?query={query}", headers=AUTH)
    assert answer.status_code == 400 and "not allowed when using GET" in answer.text, answer.text
    assert workspace(a, private_graph).nodes > 0
