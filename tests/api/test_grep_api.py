"""grep over GraphQL and REST: one operation, one shape, the errors a caller can act on."""

from __future__ import annotations

import json

import httpx
import pytest

from graphsvc.graph.driver import get_graph
from graphsvc.indexing.pipeline import index_symbols
from graphsvc.indexing.workspaces import drop_workspace

WS = "graphsvc-api-grep"
SOURCE = '''\
class Settings:
    def language(self, request):
        return request.headers.get("Accept-Language", "en")
'''
QUERY = """query($p: String!, $ws: String!, $regex: Boolean!, $paths: [String!]) {
  grep(pattern: $p, workspace: $ws, regex: $regex, paths: $paths) {
    total limit truncated complete hits { file line column text symbol symbolKind }
  }
}"""


@pytest.fixture(scope="module")
def grep_workspace(neo4j_server, tmp_path_factory):
    root = tmp_path_factory.mktemp("grep-src")
    (root / "app").mkdir()
    (root / "app" / "settings.py").write_text(SOURCE)
    (root / "app" / "many.py").write_text("".join(f"value_{i} = 'needle {i}'\n" for i in range(500)))
    index_symbols(root, workspace=WS, jobs=1)
    yield WS
    drop_workspace(WS, get_graph())


def test_graphql_and_rest_answer_alike(serve, gql, grep_workspace):
    url = serve()
    body = gql(url, QUERY, {"p": "Accept-Language", "ws": WS, "regex": False, "paths": ["app/*"]}).json()
    assert "errors" not in body, body
    found = body["data"]["grep"]
    assert found["hits"] == [{"file": "app/settings.py", "line": 3, "column": 37,
                              "text": '        return request.headers.get("Accept-Language", "en")',
                              "symbol": "app/settings.py#Settings.language", "symbolKind": "method"}]
    r = httpx.get(f"{url}/api/context/grep", params={"pattern": "Accept-Language", "workspace": WS, "paths": "app/*"})
    assert r.status_code == 200, r.text
    rest = r.json()
    assert rest["total"] == found["total"] == 1
    assert [(h["file"], h["line"], h["symbol"]) for h in rest["hits"]] == [
        (h["file"], h["line"], h["symbol"]) for h in found["hits"]]


def test_the_default_answer_stays_small(serve, grep_workspace):
    url = serve()
    r = httpx.get(f"{url}/api/context/grep", params={"pattern": "needle", "workspace": WS})
    body = r.json()
    assert r.status_code == 200 and body["total"] == 500 and body["truncated"] and len(body["hits"]) == body["limit"]
    assert len(json.dumps(body)) < 8 * 1024


def test_errors(serve, gql, grep_workspace):
    url = serve()
    r = httpx.get(f"{url}/api/context/grep", params={"pattern": "[unclosed", "workspace": WS, "regex": "true"})
    assert r.status_code == 400 and r.json()["code"] == "BAD_INPUT" and "invalid regular expression" in r.json()["error"]
    r = httpx.get(f"{url}/api/context/grep", params={"pattern": "x", "workspace": "no-such-workspace"})
    assert r.status_code == 404 and r.json()["code"] == "NOT_FOUND", r.text
    body = gql(url, QUERY, {"p": "(", "ws": WS, "regex": True}).json()
    assert body["errors"][0]["extensions"]["code"] == "BAD_INPUT" and "invalid regular expression" in body["errors"][0]["message"]
