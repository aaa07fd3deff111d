"""Attacks on the HTTP surface of `graphsvc serve`: the token, other sites, malformed bodies.

Every route is enumerated from `app.routes`, so a route added later is covered without
editing this file. Spellings of a GraphQL GET are judged the way the framework reads them
(`urllib.parse.parse_qsl`, which is what starlette's `QueryParams` uses).
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterator

import httpx
import pytest
from starlette.routing import Mount
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from tests.api.conftest import running
from graphsvc.api.app import create_app
from graphsvc.settings import get_settings

pytestmark = [pytest.mark.neo4j, pytest.mark.timeout(300)]

TOKEN = "tok-" + "a4c9e1" * 5
AUTH = {"Authorization": f"Bearer {TOKEN}"}
JSON = {"Content-Type": "application/json"}
# Reachable without the token, on purpose; everything else must answer 401.
OPEN = {
    ("GET", "/healthz"),
    ("GET", "/docs"),
    ("GET", "/openapi.json"),
    ("GET", "/browser/graphsvc.grass"),
    ("OPTIONS", "/browser/graphsvc.grass"),
    ("GET", "/graphql"),  # the GraphiQL page, only with an empty query string
    ("GET", "/graphiql/graphiql.min.js"),  # the page's script files
}
JOBS = "{ jobs { id } }"


def _quote(text: str) -> str:
    return urllib.parse.quote(text, safe="")


# Query strings that carry a GraphQL document, however spelled; and some that only look close.
SPELLINGS = [
    f"query={_quote(JOBS)}",
    f"%71uery={_quote(JOBS)}",
    f"q%75ery={_quote(JOBS)}",
    f"%71%75%65%72%79={_quote(JOBS)}",
    f"%51uery={_quote(JOBS)}",  # Query: not a query for the framework, still not open
    "query={+jobs+{+id+}+}",
    f"query=&query={_quote(JOBS)}",
    f"a=1&q%75ery={_quote(JOBS)}",
    f"&&query={_quote(JOBS)}&",
    f";query={_quote(JOBS)}",
    f"query%3D{_quote(JOBS)}",
    f"QUERY={_quote(JOBS)}",
    f"query={_quote('{ __schema { types { name } } }')}",
    f"q%75ery={_quote('mutation { prune(dryRun: true) { removed } }')}",
    "variables=%7B%7D",
    "x",
    "=",
]


def _decoded_query(query_string: str) -> str | None:
    """The `query` parameter as starlette (and so strawberry) reads it: the last value wins."""
    pairs = [v for k, v in urllib.parse.parse_qsl(query_string, keep_blank_values=True) if k == "query"]
    return pairs[-1] if pairs else None


def _flat(routes, prefix: str = "") -> Iterator[tuple[str, object]]:
    for route in routes:
        included = getattr(route, "original_router", None)  # FastAPI keeps included routers nested
        if included is not None:
            yield from _flat(included.routes, prefix + route.include_context.prefix)
        else:
            yield prefix, route


def app_routes(settings=None) -> list[tuple[str, str]]:
    """(method, concrete path) of every HTTP route of the application, path parameters filled in."""
    app = create_app(settings or get_settings())
    out = []
    for prefix, route in _flat(app.routes):
        methods = getattr(route, "methods", None)
        if isinstance(route, Mount) or not methods:
            continue  # static files (in OPEN) and the websocket endpoint (tested on its own)
        path = prefix + re.sub(r"\{[^}]+\}", "x", route.path)
        out.extend((m, path) for m in sorted(methods) if m != "HEAD")
    return out


@pytest.fixture(scope="module")
def guarded(neo4j_server) -> Iterator[str]:
    settings = get_settings().model_copy(deep=True)
    settings.server.token = TOKEN
    with running(settings) as url:
        yield url


@pytest.mark.parametrize("query_string", SPELLINGS)
def test_no_spelling_of_a_graphql_get_runs_without_the_token(guarded, query_string):
    url = f"{guarded}/graphql?{query_string}"
    for headers in ({}, {"Accept": "text/html"}, {"Accept": "application/json"}):
        answer = httpx.get(url, headers=headers, timeout=30)
        assert answer.status_code == 401, (query_string, headers, answer.status_code, answer.text[:300])
    with_token = httpx.get(url, headers=AUTH, timeout=30)
    if _decoded_query(query_string) == JOBS:
        # The framework does read this spelling as a query: the test above is meaningful.
        assert with_token.status_code == 200 and "jobs" in with_token.json()["data"], with_token.text


def test_graphql_post_needs_the_token(guarded):
    for suffix in ("", "?", "?query=", "?x=1"):
        answer = httpx.post(f"{guarded}/graphql{suffix}", json={"query": JOBS}, timeout=30)
        assert answer.status_code == 401, (suffix, answer.text)
    assert httpx.post(f"{guarded}/graphql", json={"query": JOBS}, headers=AUTH, timeout=30).status_code == 200


def test_the_graphiql_page_is_open_and_runs_nothing(guarded):
    page = httpx.get(f"{guarded}/graphql", headers={"Accept": "text/html"}, timeout=30)
    assert page.status_code == 200 and "graphiql" in page.text.lower()
    assert "jobs" not in page.text


def test_every_route_but_the_open_list_needs_the_token(guarded):
    routes = app_routes()
    assert len(routes) > 20, routes
    open_found = set()
    with httpx.Client(timeout=60) as client:
        for method, path in routes + [("GET", "/graphiql/graphiql.min.js"), ("GET", "/redoc")]:
            answer = client.request(method, f"{guarded}{path}", headers=JSON, content=b"{}")
            if answer.status_code != 401:
                open_found.add((method, path))
    assert open_found <= OPEN, open_found - OPEN
    assert ("POST", "/graphql") not in open_found


def test_graphql_over_a_websocket_is_not_served():
    """No subscriptions exist; a websocket would carry queries and mutations past both the
    token and the browser's same-origin rules (websockets have no CORS). Driven at the ASGI
    level: uvicorn here has no websocket library, but a deployment may have one."""
    settings = get_settings().model_copy(deep=True)
    settings.server.token = TOKEN
    client = TestClient(create_app(settings))
    for headers in ({}, AUTH):
        with pytest.raises(WebSocketDisconnect):
            with client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"], headers=headers) as ws:
                ws.send_json({"type": "connection_init"})
                ws.send_json({"type": "subscribe", "id": "1", "payload": {"query": JOBS}})
                ws.receive_json()


# -- other sites: DNS rebinding, foreign pages, requests a browser sends without asking -----


def _port(url: str) -> str:
    return url.rsplit(":", 1)[1]


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1.evil.example:{port}",
                                  "localhost.evil.example", "192.0.2.10:{port}", "", "[::2]:{port}"])
def test_a_foreign_host_header_is_refused(guarded, host):
    """DNS rebinding: a page on evil.example whose name now resolves to 127.0.0.1 reaches the
    server with `Host: evil.example`; the token does not help when a browser holds it."""
    host = host.format(port=_port(guarded))
    for method, path in (("GET", "/healthz"), ("GET", "/graphql"), ("POST", "/graphql")):
        answer = httpx.request(method, f"{guarded}{path}", headers={"Host": host, **AUTH, **JSON},
                               content=b'{"query": "{ jobs { id } }"}', timeout=30)
        assert answer.status_code == 421, (host, path, answer.status_code)
        assert "allowed_hosts" in answer.json()["error"]


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}", "[::1]:{port}", "127.0.0.1"])
def test_the_loopback_names_are_accepted(guarded, host):
    answer = httpx.get(f"{guarded}/healthz", headers={"Host": host.format(port=_port(guarded))}, timeout=30)
    assert answer.status_code == 200 and answer.json()["status"] == "ok", answer.text


def test_allowed_hosts_follow_the_bind_address_and_the_setting():
    from graphsvc.api.auth import allowed_hosts

    assert allowed_hosts("127.0.0.1", []) == {"127.0.0.1", "localhost", "::1"}
    assert allowed_hosts("[::1]", []) >= {"::1", "localhost", "127.0.0.1"}
    assert allowed_hosts("192.0.2.10", []) == {"192.0.2.10"}
    assert "localhost" in allowed_hosts("0.0.0.0", [])
    assert allowed_hosts("127.0.0.1", ["Graph.Example"]) == {"graph.example"}
    assert allowed_hosts("127.0.0.1", ["*"]) is None


def test_the_allowed_hosts_setting_is_applied(neo4j_server):
    settings = get_settings().model_copy(deep=True)
    settings.server.allowed_hosts = ["graph.internal"]
    with running(settings) as url:
        assert httpx.get(f"{url}/healthz", headers={"Host": "graph.internal"}, timeout=30).status_code == 200
        assert httpx.get(f"{url}/healthz", timeout=30).status_code == 421  # 127.0.0.1 is no longer listed


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://localhost:3000", "http://127.0.0.1",
                                    "https://127.0.0.1.evil.example", "file://"])
def test_every_route_refuses_a_foreign_origin(guarded, origin):
    headers = {"Origin": origin, **AUTH, **JSON}
    with httpx.Client(timeout=60) as client:
        for method, path in app_routes() + [("GET", "/graphql?query=%7Bjobs%7Bid%7D%7D")]:
            answer = client.request(method, f"{guarded}{path}", headers=headers, content=b"{}")
            if path == "/browser/graphsvc.grass":
                # The Neo4j Browser is on another origin: the style and its preflight are served.
                assert answer.status_code == (204 if method == "OPTIONS" else 200), (method, answer.text)
                assert answer.headers["access-control-allow-origin"] == "*"
            else:
                assert answer.status_code == 403, (method, path, answer.status_code)
                assert answer.json()["code"] == "FOREIGN_ORIGIN"
        cross = client.get(f"{guarded}/api/context/recent", headers={"Sec-Fetch-Site": "cross-site", **AUTH})
        assert cross.status_code == 403  # an <img>/<script> GET carries no Origin, but this


def test_the_servers_own_pages_are_served(guarded):
    own = f"http://127.0.0.1:{_port(guarded)}"
    for origin in (own, own.replace("127.0.0.1", "localhost")):
        host = origin.removeprefix("http://")
        answer = httpx.post(f"{guarded}/graphql", json={"query": JOBS}, timeout=30,
                            headers={"Origin": origin, "Host": host, "Sec-Fetch-Site": "same-origin", **AUTH})
        assert answer.status_code == 200 and "jobs" in answer.json()["data"], answer.text


BODY_TYPES = [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
              "application/jsonp", "text/json", "application/json-seq"]


def test_every_state_changing_route_needs_a_json_content_type(guarded):
    """A page may post a form or `text/plain` to any site without asking (no preflight); a
    JSON content type makes the browser ask first, and the answer allows nothing."""
    changing = [(m, p) for m, p in app_routes() if m not in ("GET", "HEAD", "OPTIONS")]
    assert {("POST", "/graphql"), ("POST", "/api/context/prune"), ("PUT", "/api/cache/pins/x"),
            ("DELETE", "/api/cache/pins/x"), ("POST", "/api/cache/compaction-marker")} <= set(changing)
    with httpx.Client(timeout=60) as client:
        for method, path in changing:
            for content_type in BODY_TYPES:
                headers = {**AUTH, **({"Content-Type": content_type} if content_type else {})}
                body = None if content_type is None else b'{"query": "mutation { prune(dryRun: false) { removed } }"}'
                answer = client.request(method, f"{guarded}{path}?dry_run=false", headers=headers, content=body)
                assert answer.status_code == 415, (method, path, content_type, answer.status_code, answer.text[:200])
                assert "application/json" in answer.json()["error"]
            accepted = client.request(method, f"{guarded}{path}", headers={**AUTH, "Content-Type": "application/json; charset=utf-8"},
                                      content=b"{}")
            assert accepted.status_code != 415, (method, path)


def test_graphql_get_never_runs_a_mutation(guarded):
    mutation = _quote("mutation { prune(dryRun: true) { removed } }")
    answer = httpx.get(f"{guarded}/graphql?query={mutation}", headers=AUTH, timeout=30)
    assert answer.status_code == 400 and "mutations are not allowed when using GET" in answer.text, answer.text


def test_no_query_field_records_anything(guarded):
    """resolveTurn(record: true) was a query field that appended a RouteDecided event, so a GET
    could write; the recording form is the recordRoute mutation."""
    fields = httpx.post(f"{guarded}/graphql", headers=AUTH, timeout=30, json={"query": """
        { __schema { queryType { fields { name args { name } } } mutationType { fields { name } } } }"""}).json()
    schema = fields["data"]["__schema"]
    query_args = {f["name"]: {a["name"] for a in f["args"]} for f in schema["queryType"]["fields"]}
    assert "record" not in query_args["resolveTurn"]
    assert not [name for name, args in query_args.items() if args & {"record", "write", "store", "save"}]
    assert "recordRoute" in {f["name"] for f in schema["mutationType"]["fields"]}


# -- malformed bodies: a 400 naming the place, never a 500 or a traceback ---------------------

SURROGATE = b'"\\ud800"'
MALFORMED = {
    "lone surrogate": (b'{"content": "ok", "text": "a\\udc00b", "x": ' + SURROGATE + b'}', "surrogate"),
    "lone surrogate in a key": (b'{"\\ud800": 1}', "surrogate"),
    "invalid UTF-8": (b'{"query": "{ jobs { id } }", "content": "\xff\xfe"}', "UTF-8"),
    "5000 deep": (b'{"a": ' + b"[" * 5000 + b"]" * 5000 + b"}", "nested"),
    "100 deep": (b'{"a": ' + b'{"b": ' * 100 + b"1" + b"}" * 100 + b"}", "nested"),
    "5000-digit integer": (b'{"content": "x", "limit": ' + b"7" * 5000 + b"}", "digits"),
    "NaN": (b'{"content": "x", "limit": NaN}', "NaN"),
    "truncated": (b'{"content": "x', "line 1"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_json_on_every_route_is_a_400(guarded, case, caplog):
    body, says = MALFORMED[case]
    changing = [(m, p) for m, p in app_routes() if m not in ("GET", "HEAD", "OPTIONS")]
    with caplog.at_level("ERROR"), httpx.Client(timeout=60) as client:
        for method, path in changing:
            answer = client.request(method, f"{guarded}{path}", headers={**AUTH, **JSON}, content=body)
            assert answer.status_code == 400, (case, method, path, answer.status_code, answer.text[:300])
            assert says in answer.json()["error"], answer.text
    assert not [r for r in caplog.records if r.levelname == "ERROR"], caplog.text[:2000]


@pytest.mark.parametrize("path, body, field", [
    ("/api/cache/store", b'{"content": "\\ud800"}', "body.content"),
    ("/api/continuity/entries", b'{"workspace": "/w", "session": "s", "text": "ok \\udfff"}', "body.text"),
    ("/api/context/index-tree", b'{"path": "\\ud800", "workspace": "w"}', "body.path"),
    ("/graphql", b'{"query": "mutation($c: String!) { cacheStore(content: $c) { ref } }", "variables": {"c": "\\ud800"}}',
     "body.variables.c"),
    ("/graphql", b'{"query": "mutation($p: JSON) { recordEvent(type: \\"X\\", payload: $p) { id } }",'
                 b' "variables": {"p": {"deep": ["\\ud800"]}}}', "body.variables.p.deep[0]"),
])
def test_a_lone_surrogate_is_refused_naming_the_field(guarded, path, body, field, caplog):
    with caplog.at_level("ERROR"):
        answer = httpx.post(f"{guarded}{path}", headers={**AUTH, **JSON}, content=body, timeout=30)
    assert answer.status_code == 400 and field in answer.json()["error"], answer.text
    assert not [r for r in caplog.records if r.levelname == "ERROR"], caplog.text[:2000]


def test_graphql_get_variables_and_inline_strings_are_checked_too(guarded, caplog):
    query = _quote("query($q: String!) { recall(query: $q) { ref } }")
    with caplog.at_level("ERROR"):
        lone = _quote('{"q": "\\ud800"}')
        answer = httpx.get(f"{guarded}/graphql?query={query}&variables={lone}", headers=AUTH, timeout=30)
        assert answer.status_code == 400 and "variables.q" in answer.text, answer.text
        deep = _quote('{"q": ' + "[" * 3000 + "]" * 3000 + "}")
        answer = httpx.get(f"{guarded}/graphql?query={query}&variables={deep}", headers=AUTH, timeout=30)
        assert answer.status_code == 400 and "nested" in answer.text, answer.text
        inline = httpx.post(f"{guarded}/graphql", headers=AUTH, timeout=30,
                            json={"query": 'mutation { cacheStore(content: "\\ud800") { ref } }'}).json()
        assert inline["data"] is None and "Unicode" in inline["errors"][0]["message"], inline
    assert not [r for r in caplog.records if r.levelname == "ERROR"], caplog.text[:2000]


# -- bounds: document size, the parse caches, streamed bodies, echoed input -------------------


def test_a_graphql_document_over_max_query_bytes_is_refused(guarded):
    limit = get_settings().server.max_query_bytes
    filler = "x" * (limit + 10)
    answer = httpx.post(f"{guarded}/graphql", headers=AUTH, timeout=30,
                        json={"query": f'{{ jobs(id: "{filler}") {{ id }} }}'})
    assert answer.status_code == 413 and "max_query_bytes" in answer.text, answer.text[:300]
    fits = httpx.post(f"{guarded}/graphql", headers=AUTH, timeout=30,
                      json={"query": f'{{ jobs(id: "{filler[:limit - 100]}") {{ id }} }}'})
    assert fits.status_code == 200, fits.text[:300]


def test_the_parse_and_validation_caches_keep_short_documents_only(guarded):
    """600 distinct documents of 1.9 MB took the server from 116 MB to 1.6 GB, for good: the
    caches kept each text and its syntax tree. The server runs in this process, so the
    module-level caches are visible here."""
    from strawberry.extensions.parser_cache import _get_parse_cache
    from strawberry.extensions.validation_cache import _get_validate_cache

    from graphsvc.api.app import CACHED_DOCUMENT_CHARS, DOCUMENT_CACHE

    parse_cache, validate_cache = _get_parse_cache(DOCUMENT_CACHE), _get_validate_cache(DOCUMENT_CACHE)
    with httpx.Client(timeout=30) as client:
        short = client.post(f"{guarded}/graphql", headers=AUTH, json={"query": "{ jobs(id: \"cache-probe\") { id } }"})
        assert short.status_code == 200
        sizes = (parse_cache.cache_info().currsize, validate_cache.cache_info().currsize)
        for i in range(20):
            filler = f"{i}-" + "y" * (CACHED_DOCUMENT_CHARS + 1000)
            answer = client.post(f"{guarded}/graphql", headers=AUTH, json={"query": f'{{ jobs(id: "{filler}") {{ id }} }}'})
            assert answer.status_code == 200 and "no job" in answer.text, answer.text[:300]  # it ran
    assert (parse_cache.cache_info().currsize, validate_cache.cache_info().currsize) == sizes


def test_a_streamed_body_over_the_limit_is_413(guarded):
    limit = get_settings().server.max_body_bytes

    def chunks():
        yield b'{"content": "'
        for _ in range(limit // 65536 + 2):
            yield b"z" * 65536
        yield b'"}'

    for path in ("/api/cache/store", "/graphql"):
        answer = httpx.post(f"{guarded}{path}", headers={**AUTH, **JSON}, content=chunks(), timeout=60)
        assert answer.status_code == 413 and answer.json()["code"] == "PAYLOAD_TOO_LARGE", (path, answer.text[:300])


MEGABYTE = "!" * 1_000_000


@pytest.mark.parametrize("method, path, payload", [
    ("POST", "/api/cache/store", {"content": "x", "pin": MEGABYTE}),  # a validation error quotes the input
    ("POST", "/api/continuity/entries", {"workspace": "/w", "session": "s", "text": "t", "kind": MEGABYTE}),
    ("POST", "/graphql", {"query": "query($q: String!) { recall(query: $q) { ref } }", "variables": {"q": MEGABYTE}}),
    ("POST", "/graphql", {"query": "query($q: String!) { recall(query: $q) { ref } }", "variables": {"q": [MEGABYTE]}}),
    ("POST", "/graphql", {"query": "mutation($s: CacheResetScope!) { cacheReset(scope: $s) { scope } }",
                          "variables": {"s": MEGABYTE}}),
])
def test_errors_quote_at_most_a_few_hundred_characters_of_input(guarded, method, path, payload):
    answer = httpx.request(method, f"{guarded}{path}", headers=AUTH, json=payload, timeout=60)
    assert answer.status_code < 500, answer.text[:300]
    assert len(answer.content) < 4000, (len(answer.content), answer.text[:300])
    assert "more characters" in answer.text, answer.text[:600]
