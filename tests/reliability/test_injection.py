"""Hostile strings through every place a caller names something: ids, keywords, workspaces, turn ids.

Each is data: the answer is a 4xx, a structured GraphQL error or an empty/ordinary result,
within a time bound, and the graph is byte-for-byte the same afterwards (checksum of every
node id and edge in the database).
"""

from __future__ import annotations

import time
import urllib.parse

import httpx
import neo4j
import pytest

from tests.api.conftest import running
from graphsvc.graph.driver import connect, get_graph, reset_graph
from graphsvc.settings import reload_settings
from tests.query.conftest import build_workspace

from tests.reliability.conftest import graph_checksum

pytestmark = [pytest.mark.neo4j, pytest.mark.timeout(400)]

WS = "graphsvc-injection-tests"
MB = 1_000_000

HOSTILE = [
    "'",
    '"',
    "`",
    "})",
    "'}) MATCH (n) DETACH DELETE n //",
    '"}) MATCH (n) DETACH DELETE n //',
    "x` DETACH DELETE n //",
    "src/app.py#main'}) WITH 1 AS x MATCH (n) SET n.owned = true //",
    "// comment",
    "/* open comment",
    "MATCH (n) DETACH DELETE n",
    "CALL db.index.fulltext.drop('entity_search')",
    "$ws",
    "\\",
    '\\" OR 1=1 --',
    "+-&&||!(){}[]^\"~*?:\\/",
    "name:* OR id:*",
    "ＭＡＴＣＨ (n) ＤＥＴＡＣＨ ＤＥＬＥＴＥ n",  # fullwidth confusables
    "src/аpp.py#mаin",  # Cyrillic а in place of a
    "\u202emain\u202c",  # right-to-left override
    "a\x00b",
    "\x00",
    "@",
    "..",
    "",
]
SAFE_CODES = {"BAD_INPUT", "BAD_QUERY", "NOT_FOUND", "AMBIGUOUS"}


@pytest.fixture(scope="module")
def injection_server(neo4j_server):
    with pytest.MonkeyPatch.context() as mp:
        # A fresh Neo4j on a busy machine plans its first queries slowly.
        mp.setenv("GRAPHSVC_NEO4J__TRANSACTION_TIMEOUT_S", "180")
        settings = reload_settings()
        reset_graph()
        get_graph()
        graph = connect()
        build_workspace(graph, WS)
        graph.write("CALL db.awaitIndexes(60)")
        try:
            with running(settings.model_copy(deep=True)) as url:
                yield url
        finally:
            graph.write("MATCH (n:Entity) WHERE n.workspace STARTS WITH $ws DETACH DELETE n", ws=WS)
            graph.close()
    reload_settings()
    reset_graph()


def _graphql_requests(s: str) -> list[tuple[str, dict]]:
    """(query, variables) pairs putting `s` in every argument that names something."""
    q = "query($s: String!) "
    return [
        (q + "{ entity(id: $s, workspace: \"%s\") { id } }" % WS, {"s": s}),
        (q + "{ entity(id: \"main\", workspace: $s) { id } }", {"s": s}),
        (q + "{ entity(id: \"main\", turnId: $s) { id } }", {"s": s}),
        (q + "{ search(text: $s, workspace: \"%s\") { hits { entity { id } } } }" % WS, {"s": s}),
        (q + "{ search(text: \"helper\", workspace: $s) { hits { entity { id } } } }", {"s": s}),
        (q + "{ search(text: \"helper\", kinds: [$s]) { hits { entity { id } } } }", {"s": s}),
        (q + "{ neighborhood(id: $s, workspace: \"%s\") { nodes { id } } }" % WS, {"s": s}),
        (q + "{ paths(source: $s, target: \"main\", workspace: \"%s\") { paths { length } } }" % WS, {"s": s}),
        (q + "{ explain(id: $s, workspace: \"%s\") { summary } }" % WS, {"s": s}),
        (q + "{ turn(id: $s) { id } }", {"s": s}),
        (q + "{ events(turnId: $s) { id } }", {"s": s}),
        (q + "{ recall(query: $s) { ref } }", {"s": s}),
        ("query($q: String!) { contextQuery(query: $q) { operation } }", {"q": f"@{WS} {s}"}),
        ("query($q: String!) { contextQuery(query: $q) { operation } }", {"q": f"@{s} helper"}),
        ("query($q: String!) { contextQuery(query: $q) { operation } }", {"q": f"{s} helper"}),
        ("query($q: String!) { contextQuery(query: $q) { operation } }", {"q": f'@{WS} neigh="{s}"'}),
        ("query($q: String!) { contextQuery(query: $q) { operation } }", {"q": f'@{WS} "{s}"'}),
    ]


def _rest_requests(s: str) -> list[tuple[str, dict]]:
    return [
        ("/api/context/explain", {"workspace": WS, "id": s}),
        ("/api/context/explain", {"workspace": s, "id": "main"}),
        ("/api/context/explain", {"turn_id": s, "id": "main"}),
        ("/api/context/communities", {"turn_id": s}),
        ("/api/context/communities", {"workspace": s}),
        ("/api/context/query", {"q": f"@{WS} {s}"}),
        ("/api/context/query", {"q": f"{s} helper"}),
        ("/api/context/recent", {"turn_id": s}),
        ("/api/context/turns", {"workspace": s}),
        ("/api/context/turns/" + urllib.parse.quote(s, safe=""), {}),
        ("/api/cache/recall", {"q": s}),
    ]


def _check_graphql(r: httpx.Response, what) -> None:
    assert r.status_code in (200, 400, 413), (what, r.status_code, r.text[:300])
    body = r.json()
    if r.status_code == 413:  # escaped NULs make a megabyte into six: over the body limit
        assert body["code"] == "PAYLOAD_TOO_LARGE"
        return
    for error in body.get("errors") or []:
        code = (error.get("extensions") or {}).get("code")
        # Validation errors come from graphql-core before any resolver runs: no path, no code.
        assert code in SAFE_CODES or (code is None and not error.get("path")), (what, error)
        assert "Traceback" not in error["message"]


def _check_rest(r: httpx.Response, what) -> None:
    assert r.status_code < 500, (what, r.status_code, r.text[:300])
    if r.status_code >= 400:
        body = r.json()
        assert body.get("code") in SAFE_CODES or "detail" in body, (what, body)  # "detail": FastAPI validation


def _send_graphql(client: httpx.Client, url: str, s: str) -> None:
    """Every GraphQL request carrying `s`, each answer checked."""
    for query, variables in _graphql_requests(s):
        r = client.post(f"{url}/graphql", json={"query": query, "variables": variables})
        _check_graphql(r, (s[:20], query))


def test_hostile_strings_are_data_and_leave_the_graph_unchanged(injection_server, neo4j_server):
    url = injection_server
    with neo4j.GraphDatabase.driver(neo4j_server.uri, auth=(neo4j_server.user, neo4j_server.password)) as driver:
        before = graph_checksum(driver)
        with httpx.Client(timeout=120) as client:
            for s in HOSTILE:
                _send_graphql(client, url, s)
                for path, params in _rest_requests(s):
                    r = client.get(f"{url}{path}", params=params)
                    _check_rest(r, (s, path, params))
        after = graph_checksum(driver)
        indexes = driver.execute_query("SHOW FULLTEXT INDEXES YIELD name RETURN name").records
    assert after == before
    assert indexes, "the full-text index is gone"


def test_megabyte_strings_are_bounded(injection_server, neo4j_server):
    """A megabyte in every GraphQL position (plain, 100 000 OR terms, NUL-laced, an open quote),
    and 30 KB in every REST parameter (a megabyte does not fit in a URL: the client refuses
    it). One of these once exhausted Neo4j's heap: it must still answer afterwards."""
    url = injection_server
    big = ["x" * MB, ("helper OR " * (MB // 10))[: MB - 10] + "helper", "a\x00" * (MB // 2), '"' + "y" * MB]
    long = ["x" * 30_000, "a OR " * 6_000, "\x00" * 15_000]  # httpx caps a URL at 64 KB
    with neo4j.GraphDatabase.driver(neo4j_server.uri, auth=(neo4j_server.user, neo4j_server.password)) as driver:
        before = graph_checksum(driver)
        with httpx.Client(timeout=120) as client:
            for s in big:
                _send_graphql(client, url, s)
            for s in long:
                for path, params in _rest_requests(s):
                    try:
                        r = client.get(f"{url}{path}", params=params)
                    except httpx.RemoteProtocolError:
                        continue  # the HTTP layer closed the connection: refused, not crashed
                    _check_rest(r, (s[:20], path))
        assert graph_checksum(driver) == before


def test_overlong_ids_workspaces_and_turn_ids_are_refused_at_once(injection_server):
    """Ids, workspace names and turn ids over the documented bound are a BAD_INPUT naming it,
    answered without a lookup (a megabyte id used to take seconds of suffix matching)."""
    url = injection_server
    over, at_bound = "x" * MB, "x" * 4096
    q = "query($s: String!) "
    named = [
        q + '{ entity(id: $s, workspace: "%s") { id } }' % WS,
        q + '{ entity(id: "main", workspace: $s) { id } }',
        q + '{ entity(id: "main", turnId: $s) { id } }',
        q + '{ search(text: "helper", workspace: $s) { hits { entity { id } } } }',
        q + '{ neighborhood(id: $s, workspace: "%s") { nodes { id } } }' % WS,
        q + '{ paths(source: "main", target: $s, workspace: "%s") { paths { length } } }' % WS,
        q + '{ explain(id: $s, workspace: "%s") { summary } }' % WS,
    ]
    context_queries = [f"@{over} helper", f'@{WS} neigh="{over}"', f'@{WS} path="main"->"{over}"']
    with httpx.Client(timeout=120) as client:
        for query, variables in [(n, {"s": over}) for n in named] + [
            ("query($q: String!) { contextQuery(query: $q) { operation } }", {"q": c}) for c in context_queries
        ]:
            started = time.monotonic()
            body = client.post(f"{url}/graphql", json={"query": query, "variables": variables}).json()
            assert time.monotonic() - started < 5, query
            error = body["errors"][0]
            assert error["extensions"]["code"] == "BAD_INPUT" and "at most 4096" in error["message"], (query, error)
        for path, params in [("/api/context/explain", {"workspace": WS, "id": "x" * 30_000}),
                             ("/api/context/explain", {"workspace": "x" * 30_000, "id": "main"}),
                             ("/api/context/explain", {"turn_id": "x" * 30_000, "id": "main"})]:
            r = client.get(f"{url}{path}", params=params)
            assert r.status_code == 400 and r.json()["code"] == "BAD_INPUT", (params.keys(), r.text[:300])
            assert "at most 4096" in r.json()["error"]
        # At the bound an id is looked up as usual.
        body = client.post(f"{url}/graphql", json={"query": named[0], "variables": {"s": at_bound}}).json()
        assert body["errors"][0]["extensions"]["code"] == "NOT_FOUND", body
