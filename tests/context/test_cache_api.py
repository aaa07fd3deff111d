"""The cache and continuity API (GraphQL and REST) through a small FastAPI app, real SQLite.

The app is built here from the cache module's pieces plus the project's one error mapping
(`graphsvc.api.app.error_body` / `StructuredErrors`), which the real server uses too.
"""

from __future__ import annotations

import base64
import hashlib

import pytest

from graphsvc.api import cache_api
from graphsvc.settings import reload_settings
from tests.context.conftest import api_client, gql


@pytest.fixture
def client(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHSVC_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GRAPHSVC_CONTEXT__BACKGROUND__TOKENIZER", "estimate")
    monkeypatch.setenv("GRAPHSVC_CACHE__MAX_BYTES", "5000")
    reload_settings()
    cache_api.reset_instances()
    with api_client(cache_api.CacheQuery, cache_api.CacheMutation, cache_api.router) as c:
        yield c
    cache_api.reset_instances()
    monkeypatch.undo()
    reload_settings()


def test_the_store_is_opened_under_graphsvc_home(client, tmp_path):
    client.get("/api/cache/stats")
    assert (tmp_path / "home" / "context" / "context.sqlite3").exists()


def test_graphql_store_expand_recall_pin_stats_reset(client):
    store = """mutation($c: String!) { cacheStore(content: $c, label: "notes.md") {
        hash ref sent payload searchable } }"""
    first = gql(client, store, c="line one\nthe parser is broken\nline three\n")["data"]["cacheStore"]
    assert first["sent"] == "full" and first["searchable"]
    again = gql(client, store, c="line one\nthe parser is broken\nline three\n")["data"]["cacheStore"]
    assert again["sent"] == "ref" and again["payload"] == first["ref"]

    expanded = gql(
        client, "query($r: String!) { expand(ref: $r, lines: \"2\") { content firstLine totalLines } }", r=first["ref"]
    )["data"]["expand"]
    assert expanded == {"content": "the parser is broken\n", "firstLine": 2, "totalLines": 3}

    hits = gql(client, '{ recall(query: "parser NEAR(", limit: 99) { ref snippet label } }')["data"]["recall"]
    assert hits[0]["ref"] == first["ref"] and "[parser]" in hits[0]["snippet"]

    pinned = gql(client, "mutation($r: String!) { pin(ref: $r) { pinned } }", r=first["hash"][:8])
    assert pinned["data"]["pin"]["pinned"] is True
    assert len(gql(client, "{ pins { hash } }")["data"]["pins"]) == 1
    stats = gql(client, "{ cacheStats { entries hits bytes maxBytes } }")["data"]["cacheStats"]
    assert stats == {"entries": 1, "hits": 1, "bytes": 41.0, "maxBytes": 5000.0}
    gql(client, "mutation($r: String!) { unpin(ref: $r) { pinned } }", r=first["hash"][:8])

    reset = gql(client, "mutation { cacheReset(scope: STATS) { scope removed { table rows } } }")
    assert reset["data"]["cacheReset"]["removed"] == [{"table": "cache_stats", "rows": 5}]
    assert gql(client, "{ cacheStats { entries hits } }")["data"]["cacheStats"] == {"entries": 1, "hits": 0}


def test_graphql_binary_content_round_trips_as_base64(client):
    raw = b"\x89PNG\x00\xff"
    stored = gql(
        client,
        "mutation($c: String!) { cacheStore(content: $c, encoding: BASE64) { hash searchable indexNote } }",
        c=base64.b64encode(raw).decode(),
    )["data"]["cacheStore"]
    assert stored["searchable"] is False and "not UTF-8" in stored["indexNote"]
    out = gql(client, "query($r: String!) { expand(ref: $r) { content encoding } }", r=stored["hash"])
    assert out["data"]["expand"]["encoding"] == "base64"
    assert base64.b64decode(out["data"]["expand"]["content"]) == raw


def test_graphql_errors_are_actionable(client):
    missing = gql(client, '{ expand(ref: "abcdef12") { hash } }')
    assert missing["errors"][0]["extensions"]["code"] == "NOT_FOUND"
    seen: dict[str, str] = {}
    i = 0
    while True:  # two contents whose hashes share the first four hex digits
        text = f"c{i}"
        prefix = hashlib.sha256(text.encode()).hexdigest()[:4]
        if prefix in seen:
            break
        seen[prefix] = text
        i += 1
    for content in (seen[prefix], text):
        gql(client, "mutation($c: String!) { cacheStore(content: $c) { hash } }", c=content)
    answer = gql(client, "query($r: String!) { expand(ref: $r) { hash } }", r=prefix)
    error = answer["errors"][0]
    assert error["extensions"]["code"] == "AMBIGUOUS"
    assert len(error["extensions"]["candidates"]) == 2
    assert "give more digits" in error["message"]
    rest = client.get(f"/api/cache/expand/{prefix}")
    assert rest.status_code == 409 and len(rest.json()["candidates"]) == 2


def test_graphql_continuity(client):
    record = """mutation($t: String!, $k: ContinuityKind!, $d: String) {
        recordContinuity(workspace: "/ws", session: "front", text: $t, kind: $k, delegate: $d) { seq kind session delegate } }"""
    gql(client, record, t="TestParseConfig fails with a nil pointer in config.go", k="TURN")
    for text in ("css padding for the header", "css hover colour", "css grid footer"):
        gql(client, record, t=text, k="TURN")
    out = gql(client, record, t="added a nil check in parseConfig", k="OUTCOME", d="cursor-agent")
    assert out["data"]["recordContinuity"] == {"seq": 5, "kind": "outcome", "session": "front", "delegate": "cursor-agent"}
    block = gql(
        client,
        '{ continuity(workspace: "/ws", task: "fix the nil pointer in parseConfig") '
        "{ text tokens tokenMethod entries { seq kind protected } } }",
    )["data"]["continuity"]
    assert [e["seq"] for e in block["entries"]] == [1, 4, 5]
    assert block["text"].startswith("## Earlier in the calling session")
    assert block["tokenMethod"].startswith("estimate")
    file = gql(
        client,
        '{ delegateContextFile(workspace: "/ws", task: "nil pointer", vendor: "agy") { fileName content } }',
    )["data"]["delegateContextFile"]
    assert file["fileName"] == "AGENTS.md" and "nil pointer" in file["content"]
    rec = gql(client, '{ continuityRecord(workspace: "/ws") { entries { seq } log { action } } }')
    assert len(rec["data"]["continuityRecord"]["entries"]) == 5
    bad = gql(client, record, t="x", k="OUTCOME", d=None)
    assert bad["errors"][0]["extensions"]["code"] == "BAD_INPUT"


def test_rest_cache_routes(client):
    r = client.post("/api/cache/store", json={"content": "alpha\nbeta\ngamma\n", "label": "a.txt"})
    assert r.status_code == 200 and r.json()["sent"] == "full"
    ref = r.json()["ref"]
    assert client.post("/api/cache/store", json={"content": "alpha\nbeta\ngamma\n"}).json()["sent"] == "ref"
    assert client.post("/api/cache/compaction-marker").status_code == 200
    assert client.post("/api/cache/store", json={"content": "alpha\nbeta\ngamma\n"}).json()["sent"] == "full"
    e = client.get(f"/api/cache/expand/{r.json()['hash'][:10]}", params={"lines": "2-3"})
    assert e.json()["content"] == "beta\ngamma\n"
    assert client.get("/api/cache/expand/0000ffff").status_code == 404
    assert client.get("/api/cache/expand/zz").status_code == 400
    hits = client.get("/api/cache/recall", params={"q": 'beta "', "limit": 0}).json()
    assert len(hits) == 1 and hits[0]["ref"] == ref
    assert client.get("/api/cache/recall", params={"q": "()"}).status_code == 400
    assert client.put(f"/api/cache/pins/{r.json()['hash'][:8]}").json()["pinned"] is True
    assert [p["ref"] for p in client.get("/api/cache/pins").json()] == [ref]
    assert client.delete(f"/api/cache/pins/{r.json()['hash'][:8]}").json()["pinned"] is False
    too_big = client.post("/api/cache/store", json={"content": "x" * 6000})
    assert too_big.status_code == 400 and "cache.max_bytes" in too_big.json()["error"]
    stats = client.get("/api/cache/stats").json()
    assert stats["entries"] == 1 and stats["counters"]["hits"] == 1
    reset = client.post("/api/cache/reset", json={"scope": "cache"}).json()
    assert reset["removed"]["cache_entries"] == 1
    assert client.get("/api/cache/stats").json()["entries"] == 0
    assert client.post("/api/cache/reset", json={"scope": "nope"}).status_code == 422


def test_rest_continuity_routes(client):
    for text in ("TestParseConfig fails: nil pointer", "css header", "css footer"):
        assert client.post(
            "/api/continuity/entries", json={"workspace": "/ws", "session": "front", "text": text}
        ).status_code == 200
    out = client.post(
        "/api/continuity/entries",
        json={"workspace": "/ws", "session": "front", "text": "fixed it", "kind": "outcome", "delegate": "codex"},
    ).json()
    assert out["kind"] == "outcome" and out["session"] == "front"
    record = client.get("/api/continuity/entries", params={"workspace": "/ws"}).json()
    assert [e["seq"] for e in record["entries"]] == [1, 2, 3, 4]
    block = client.get("/api/continuity/block", params={"workspace": "/ws", "task": "nil pointer TestParseConfig"}).json()
    assert [e["seq"] for e in block["entries"]] == [1, 3, 4]
    assert block["tokens"] > 0 and block["token_method"].startswith("estimate")
    f = client.get(
        "/api/continuity/delegate-file", params={"workspace": "/ws", "task": "x", "vendor": "claude"}
    ).json()
    assert f["file_name"] == "graphsvc-context.md"
    assert client.post("/api/continuity/compact", params={"workspace": "/ws"}).status_code == 202
    bad = client.post("/api/continuity/entries", json={"workspace": "/ws", "session": "", "text": "t"})
    assert bad.status_code == 400


def test_the_server_schema_merges_the_cache_fields():
    from graphsvc.api.app import build_schema

    sdl = build_schema().as_str()
    for field in ("expand(", "recall(", "cacheStats", "pins", "continuity(", "delegateContextFile("):
        assert field in sdl
    for field in ("cacheStore(", "pin(", "unpin(", "cacheReset(", "recordContinuity(", "compactContinuity("):
        assert field in sdl
