"""The API through a real HTTP client against a running server: GraphQL, REST, auth, limits."""

from __future__ import annotations

import time

import httpx
import pytest
from click.testing import CliRunner

from graphsvc.api.app import schema_sdl
from graphsvc.cli import main
from graphsvc.errors import ConfigError
from graphsvc.graph.driver import get_graph, reset_graph
from graphsvc.indexing.workspaces import drop_workspace
from graphsvc.settings import SCHEMA_DIR, reload_settings

from tests.api.conftest import WS

pytestmark = pytest.mark.neo4j

NEIGHBORHOOD = """
query($id: String!, $ws: String, $limit: Int) {
  neighborhood(id: $id, workspace: $ws, depth: 2, rels: [CALLS], limit: $limit) {
    center { id degree } nodes { id level } edges { type source target prov confidence reason } truncated limit
  }
}"""


def test_healthz_reports_neo4j_and_needs_no_token(serve):
    url = serve(token="s3cret")
    r = httpx.get(f"{url}/healthz")
    assert r.status_code == 200 and r.json() == {"status": "ok", "neo4j": {"reachable": True}, "store": {"ok": True}}


def test_context_query_over_graphql(serve, gql):
    url = serve()
    r = gql(url, "query($q: String!) { contextQuery(query: $q) { operation workspace search { hits { entity { id label } matched score } truncated } } }",
            {"q": f"@{WS} queryset OR helper"})
    body = r.json()
    assert r.status_code == 200 and "errors" not in body, body
    result = body["data"]["contextQuery"]
    assert result["operation"] == "search" and result["workspace"] == WS
    assert {h["entity"]["id"] for h in result["search"]["hits"]} >= {"src/models.py#QuerySet", "src/pkg/util.py#helper"}


def test_typed_fields(serve, gql):
    url = serve()
    n = gql(url, NEIGHBORHOOD, {"id": "main", "ws": WS}).json()["data"]["neighborhood"]
    assert n["center"]["id"] == "src/app.py#main"
    assert {x["id"]: x["level"] for x in n["nodes"]} == {
        "src/app.py#App.run": 1, "src/models.py#Model.save": 2, "src/models.py#QuerySet.filter": 2
    }
    # Every CALLS edge among those nodes, the one below 1.0 included (it clears min_conf 0.51).
    assert sorted((e["source"], e["target"], e["prov"], e["confidence"], e["reason"]) for e in n["edges"]) == sorted([
        ("src/app.py#main", "src/app.py#App.run", "INFERRED", 1.0, "scope"),
        ("src/app.py#App.run", "src/models.py#Model.save", "INFERRED", 1.0, "import"),
        ("src/app.py#App.run", "src/models.py#QuerySet.filter", "INFERRED", 1.0, "import"),
        ("src/models.py#QuerySet.filter", "src/models.py#Model.save", "INFERRED", 0.9, "self"),
    ])
    p = gql(url, f'{{ paths(source: "main", target: "join", workspace: "{WS}") {{ paths {{ length nodes {{ id }} }} }} }}').json()
    assert [x["length"] for x in p["data"]["paths"]["paths"]] == [3]
    x = gql(url, f'{{ explain(id: "f1", workspace: "{WS}") {{ summary hubsByDegree {{ entity {{ id }} degree }} hubsByPagerank {{ pagerank }} pathToHub {{ length }} }} }}').json()
    assert x["data"]["explain"]["hubsByDegree"][0]["entity"]["id"] == "src/pkg/util.py"
    e = gql(url, f'{{ entity(id: "App.run", workspace: "{WS}") {{ id qualifiedName startLine }} }}').json()
    assert e["data"]["entity"] == {"id": "src/app.py#App.run", "qualifiedName": "App.run", "startLine": 1}
    s = gql(url, f'{{ search(text: "lazy lookup", workspace: "{WS}", kinds: ["class"]) {{ hits {{ entity {{ id }} }} }} }}').json()
    assert [h["entity"]["id"] for h in s["data"]["search"]["hits"]] == ["src/models.py#QuerySet"]
    c = gql(url, f'mutation {{ computeCommunities(workspace: "{WS}", seed: 5) {{ communityCount modularity communities {{ id label size topMembers {{ id }} }} fetchS leidenS writeS stored }} }}').json()
    assert c["data"]["computeCommunities"]["communityCount"] >= 2 and c["data"]["computeCommunities"]["stored"]
    read = gql(url, f'{{ communities(workspace: "{WS}") {{ communityCount communities {{ id label size topMembers {{ id }} }} stored hint }} }}').json()
    computed = c["data"]["computeCommunities"]
    assert read["data"]["communities"] == {
        "communityCount": computed["communityCount"], "communities": computed["communities"], "stored": True, "hint": None
    }


def test_graphql_errors_are_structured(serve, gql):
    url = serve()
    bad = gql(url, '{ contextQuery(query: "@ws x OR") { operation } }').json()
    err = bad["errors"][0]
    assert err["extensions"]["code"] == "BAD_QUERY" and err["extensions"]["position"] == 8
    amb = gql(url, f'{{ entity(id: "run", workspace: "{WS}") {{ id }} }}').json()["errors"][0]
    assert amb["extensions"]["code"] == "AMBIGUOUS"
    assert amb["extensions"]["candidates"] == ["src/app.py#App.run", "src/pkg/util.py#run"]
    missing = gql(url, f'{{ entity(id: "nope", workspace: "{WS}") {{ id }} }}').json()["errors"][0]
    assert missing["extensions"]["code"] == "NOT_FOUND"
    rel = gql(url, '{ neighborhood(id: "x", workspace: "w", rels: [LIKES]) { truncated } }')
    # Rejected by the enum while the document is validated: nothing runs, the message names it.
    assert rel.status_code == 200 and rel.json()["data"] is None
    assert rel.json()["errors"][0]["message"] == "Value 'LIKES' does not exist in 'RelType' enum."
    assert "Traceback" not in bad and "Traceback" not in rel.text


def test_graphiql_page_on_get(serve):
    url = serve(token="s3cret")
    r = httpx.get(f"{url}/graphql", headers={"Accept": "text/html"})
    assert r.status_code == 200 and "graphiql" in r.text.lower()


def test_rest_routes_and_openapi(serve):
    url = serve()
    r = httpx.get(f"{url}/api/context/explain", params={"workspace": WS, "id": "helper"})
    assert r.status_code == 200 and r.json()["entity"]["id"] == "src/pkg/util.py#helper"
    r = httpx.post(f"{url}/api/context/communities", json={"workspace": WS, "seed": 1}, timeout=60)
    assert r.status_code == 200 and r.json()["community_count"] >= 2 and r.json()["stored"]
    computed = r.json()["communities"]
    r = httpx.get(f"{url}/api/context/communities", params={"workspace": WS}, timeout=60)
    assert r.status_code == 200 and r.json()["communities"] == computed
    r = httpx.get(f"{url}/api/context/communities", params={"workspace": WS, "seed": 1}, timeout=60)
    assert r.status_code == 400 and "POST /api/context/communities" in r.json()["error"]
    r = httpx.post(f"{url}/api/context/communities", json={"workspace": WS, "sead": 1}, timeout=60)
    assert r.status_code == 422 and [e["loc"] for e in r.json()["detail"]] == [["body", "sead"]], r.text
    r = httpx.get(f"{url}/api/context/query", params={"q": f"@{WS} path=main->join"})
    assert r.status_code == 200 and r.json()["paths"]["paths"][0]["length"] == 3
    r = httpx.get(f"{url}/api/context/query", params={"q": f"@{WS} neigh=x depth=9"})
    assert r.status_code == 400 and r.json()["code"] == "BAD_QUERY" and r.json()["position"] > 0
    r = httpx.get(f"{url}/api/context/explain", params={"workspace": WS, "id": "run"})
    assert r.status_code == 409 and len(r.json()["candidates"]) == 2
    r = httpx.get(f"{url}/api/context/explain", params={"workspace": WS, "id": "nothing-like-it"})
    assert r.status_code == 404
    r = httpx.get(f"{url}/api/context/communities", params={"turn_id": "no-such-turn"})
    assert 400 <= r.status_code < 500
    spec = httpx.get(f"{url}/openapi.json").json()
    assert {"/api/context/index-tree", "/api/context/index-symbols", "/api/context/communities",
            "/api/context/explain", "/healthz"} <= set(spec["paths"])


# Each read is asked once through GraphQL and once through REST with the same arguments.
READS = [
    ("search", {"text": "lazy lookup", "workspace": WS, "kinds": ["class"]},
     "hits { entity { id } score matched } truncated",
     lambda b: ([h["entity"]["id"] for h in b["hits"]], b["truncated"])),
    ("neighborhood", {"id": "main", "workspace": WS, "depth": 2, "rels": ["CALLS"], "minConfidence": 0.5},
     "center { id } nodes { id level } edges { source target type } truncated limit",
     lambda b: (b["center"]["id"], sorted((n["id"], n["level"]) for n in b["nodes"]), b["truncated"], b["limit"])),
    ("paths", {"source": "main", "target": "join", "workspace": WS, "maxHops": 4, "provs": ["INFERRED", "EXTRACTED"]},
     "paths { length nodes { id } }",
     lambda b: [(p["length"], [n["id"] for n in p["nodes"]]) for p in b["paths"]]),
]


def _rest_params(args: dict) -> dict:
    snake = {"minConfidence": "min_confidence", "maxHops": "max_hops", "turnId": "turn_id"}
    return {snake.get(k, k): ",".join(v) if isinstance(v, list) else v for k, v in args.items()}


def _gql_args(args: dict) -> str:
    def value(v):
        if isinstance(v, list):
            return "[" + ", ".join(x if x.isupper() else f'"{x}"' for x in v) + "]"
        return f'"{v}"' if isinstance(v, str) else str(v)
    return ", ".join(f"{k}: {value(v)}" for k, v in args.items())


@pytest.mark.parametrize("name, args, selection, key", READS, ids=[r[0] for r in READS])
def test_rest_reads_answer_as_graphql_does(serve, gql, name, args, selection, key):
    url = serve()
    body = gql(url, f"{{ {name}({_gql_args(args)}) {{ {selection} }} }}").json()
    assert "errors" not in body, body
    r = httpx.get(f"{url}/api/context/{name}", params=_rest_params(args), timeout=60)
    assert r.status_code == 200, r.text
    camel = {k: v for k, v in body["data"][name].items()}
    assert key(r.json()) == key(camel) and key(camel)


def test_rest_reads_keep_the_server_limits_and_error_shapes(serve):
    url = serve(max_results=2)
    r = httpx.get(f"{url}/api/context/neighborhood", params={"id": "main", "workspace": WS, "depth": 2, "limit": 500})
    assert r.status_code == 200 and r.json()["limit"] == 2 and len(r.json()["nodes"]) == 2 and r.json()["truncated"]
    r = httpx.get(f"{url}/api/context/search", params={"text": "f1 OR f2 OR f3 OR f4", "workspace": WS, "limit": 50})
    assert r.status_code == 200 and len(r.json()["hits"]) == 2 and r.json()["truncated"]
    for name, args, _, _ in READS:
        r = httpx.get(f"{url}/api/context/{name}", params=_rest_params(args) | {"limit": 0}, timeout=60)
        assert r.status_code == 400 and r.json()["code"] == "BAD_INPUT" and "limit" in r.json()["error"], r.text
    r = httpx.get(f"{url}/api/context/neighborhood", params={"id": "main", "workspace": WS, "rels": "CALLS,LIKES"})
    assert r.status_code == 400 and "LIKES" in r.json()["error"]
    r = httpx.get(f"{url}/api/context/search", params={"text": "run", "workspace": WS, "provs": "GUESSED"})
    assert r.status_code == 400 and "GUESSED" in r.json()["error"]
    r = httpx.get(f"{url}/api/context/paths", params={"source": "main", "workspace": WS})
    assert r.status_code == 422 and "target" in r.text
    r = httpx.get(f"{url}/api/context/neighborhood", params={"id": "run", "workspace": WS})
    assert r.status_code == 409 and len(r.json()["candidates"]) == 2
    spec = httpx.get(f"{url}/openapi.json").json()
    assert {"/api/context/search", "/api/context/neighborhood", "/api/context/paths"} <= set(spec["paths"])


def test_communities_limit_below_one_is_refused(serve, gql):
    """A limit of 0 or less was passed on to a list slice: 0 listed nothing, -1 all but one."""
    url = serve()
    for limit in (0, -1):
        r = httpx.get(f"{url}/api/context/communities", params={"workspace": WS, "limit": limit}, timeout=60)
        assert r.status_code == 400 and r.json()["code"] == "BAD_INPUT" and "limit" in r.json()["error"], r.text
        body = gql(url, f'{{ communities(workspace: "{WS}", limit: {limit}) {{ communityCount }} }}').json()
        assert body["errors"][0]["extensions"]["code"] == "BAD_INPUT", body


def test_auth_on_and_off(serve, gql):
    open_url = serve()
    assert gql(open_url, "{ jobs { id } }").status_code == 200
    url = serve(token="s3cret")
    assert gql(url, "{ jobs { id } }").status_code == 401
    assert gql(url, "{ jobs { id } }", token="wrong").status_code == 401
    assert gql(url, "{ jobs { id } }", token="s3cret").json() == {"data": {"jobs": []}}
    assert httpx.get(f"{url}/api/context/explain", params={"workspace": WS, "id": "helper"}).status_code == 401
    assert httpx.get(f"{url}/graphql", params={"query": "{ jobs { id } }"}).status_code == 401
    ok = httpx.get(f"{url}/api/context/explain", params={"workspace": WS, "id": "helper"},
                   headers={"Authorization": "Bearer s3cret"})
    assert ok.status_code == 200
    for name, args, _, _ in READS:
        params = _rest_params(args)
        assert httpx.get(f"{url}/api/context/{name}", params=params).status_code == 401, name
        foreign = {"Authorization": "Bearer s3cret", "Origin": "http://evil.example"}
        assert httpx.get(f"{url}/api/context/{name}", params=params, headers=foreign).status_code == 403, name
        ok = httpx.get(f"{url}/api/context/{name}", params=params, headers={"Authorization": "Bearer s3cret"})
        assert ok.status_code == 200, (name, ok.text)


def test_limits_body_depth_results(serve, gql):
    shallow = serve(max_query_depth=2)
    deep = gql(shallow, f'{{ explain(id: "f1", workspace: "{WS}") {{ pathToHub {{ nodes {{ id }} }} }} }}').json()
    assert "exceeds maximum operation depth" in deep["errors"][0]["message"] and deep.get("data") is None
    assert gql(shallow, "{ jobs { id state } }").json() == {"data": {"jobs": []}}
    url = serve(max_body_bytes=2000, max_results=2)
    r = httpx.post(f"{url}/graphql", json={"query": "{ jobs { id } }", "pad": "x" * 5000})
    assert r.status_code == 413 and r.json()["code"] == "PAYLOAD_TOO_LARGE"
    n = gql(url, NEIGHBORHOOD, {"id": "main", "ws": WS, "limit": 500}).json()["data"]["neighborhood"]
    assert n["limit"] == 2 and len(n["nodes"]) == 2 and n["truncated"]
    s = gql(url, '{ contextQuery(query: "@%s f1 OR f2 OR f3 OR f4 limit=50") { search { hits { entity { id } } truncated } } }' % WS).json()
    assert len(s["data"]["contextQuery"]["search"]["hits"]) == 2 and s["data"]["contextQuery"]["search"]["truncated"]


def test_index_jobs_only_inside_workspace_roots(serve, gql, tmp_path):
    root = tmp_path / "roots"
    repo = root / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "mod.py").write_text("def f():\n    return 1\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "escape").symlink_to(outside)
    url = serve(workspace_roots=[root])
    for path in (str(outside), "repo/../../outside", "escape", "/etc"):
        r = httpx.post(f"{url}/api/context/index-tree", json={"path": path, "workspace": "x"})
        assert r.status_code == 400, (path, r.text)
    ws = "graphsvc-api-tests-indexed"
    r = httpx.post(f"{url}/api/context/index-tree", json={"path": "repo", "workspace": ws})
    assert r.status_code == 202, r.text
    job_id = r.json()["id"]
    deadline = time.monotonic() + 120
    while True:
        jobs = gql(url, "query($id: String) { jobs(id: $id) { id state done total message error summary } }", {"id": job_id}).json()
        job = jobs["data"]["jobs"][0]
        if job["state"] in ("done", "failed") or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert job["state"] == "done", job
    assert job["summary"]["workspace"] == ws
    files = get_graph().read("MATCH (f:File {workspace: $ws}) RETURN f.id AS id", ws=ws)
    assert [f["id"] for f in files] == ["pkg/mod.py"]
    m = gql(url, 'mutation($p: String!) { indexSymbols(path: $p, workspace: "%s") { id state kind } }' % ws, {"p": str(repo)}).json()
    assert m["data"]["indexSymbols"]["kind"] == "index-symbols"
    refused = gql(url, 'mutation { indexTree(path: "/etc") { id } }').json()
    assert refused["errors"][0]["extensions"]["code"] == "BAD_INPUT"
    drop_workspace(ws)  # waits for the indexSymbols job above to end


def test_neo4j_outage_is_503(serve, monkeypatch):
    url = serve()
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:1")
    reload_settings()
    reset_graph()
    try:
        assert httpx.get(f"{url}/healthz", timeout=30).status_code == 503
        r = httpx.get(f"{url}/api/context/explain", params={"workspace": WS, "id": "helper"}, timeout=30)
        assert r.status_code == 503 and r.json()["code"] == "NEO4J_UNAVAILABLE"
    finally:
        monkeypatch.undo()
        reload_settings()
        reset_graph()


def test_sdl_file_matches_the_code():
    path = SCHEMA_DIR / "graphql" / "schema.graphql"
    assert path.read_text() == schema_sdl(), "run `graphsvc graphql-schema` and commit the result"


def test_serve_refuses_other_hosts_without_token(monkeypatch):
    monkeypatch.delenv("GRAPHSVC_SERVER__TOKEN", raising=False)
    reload_settings()
    result = CliRunner().invoke(main, ["serve", "--host", "0.0.0.0", "--port", "1"], standalone_mode=False)
    assert isinstance(result.exception, ConfigError) and "token" in str(result.exception)
