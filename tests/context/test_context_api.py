"""GraphQL fields and REST routes of the context store, through a small app on a real store."""

from __future__ import annotations

import io

import pytest

from graphsvc.api.context_api import ContextMutation, ContextQuery, router
from graphsvc.context import store as store_module
from graphsvc.context.store import get_store
from graphsvc.settings import reload_settings
from tests.context.conftest import api_client, gql


@pytest.fixture
def client(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHSVC_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GRAPHSVC_CONTEXT__DIR", raising=False)
    reload_settings()
    store_module.reset_store()
    with api_client(ContextQuery, ContextMutation, router) as c:
        yield c
    store_module.reset_store()
    monkeypatch.undo()
    reload_settings()


def ok(client, query: str, **variables):
    body = gql(client, query, **variables)
    assert "errors" not in body, body
    return body["data"]


def test_the_store_lives_under_graphsvc_home(client, tmp_path):
    ok(client, 'mutation { openTurn(workspace: "/ws", id: "t1") { id } }')
    assert get_store().path == tmp_path / "home" / "context" / "context.sqlite3"


def test_graphql_turn_lifecycle_and_resolution(client):
    data = ok(
        client,
        """mutation($keys: [TurnKeyInput!]) {
             openTurn(workspace: "/ws", id: "t1", sessionId: "s1", keys: $keys) {
               id familyId key(name: "goal") keys { key value } } }""",
        keys=[{"key": "goal", "value": "fix parser"}, {"key": "file-tree", "value": "src/"}],
    )
    assert data["openTurn"] == {
        "id": "t1",
        "familyId": "t1",
        "key": "fix parser",
        "keys": [{"key": "file-tree", "value": "src/"}, {"key": "goal", "value": "fix parser"}],
    }
    ok(client, 'mutation { openTurn(workspace: "/ws", id: "t2", parentId: "t1") { id } }')
    get_store().turns.touched("t2", ["src/parser.py"])
    assert ok(client, 'mutation { bindSticky(familyId: "t1", route: "cloud") { route familyId } }')["bindSticky"] == {
        "route": "cloud",
        "familyId": "t1",
    }
    data = ok(
        client,
        """mutation($m: MessageInput!) { recordRoute(message: $m) {
             familyId turnId sticky route confidence reason kind newFamily conflicts eventId } }""",
        m={"text": "[session summary] parser work", "sessionId": "s1"},
    )
    r = data["recordRoute"]
    assert (r["familyId"], r["route"], r["reason"], r["kind"]) == ("t1", "cloud", "summary-continues-session", "summary")
    assert r["eventId"]
    data = ok(client, '{ turn(id: "t2") { familyId parentId touched sticky { route } } turns(limit: 1) { id } }')
    assert data["turn"] == {"familyId": "t1", "parentId": "t1", "touched": ["src/parser.py"], "sticky": {"route": "cloud"}}
    assert data["turns"] == [{"id": "t2"}]
    assert ok(client, '{ turn(id: "nope") { id } }')["turn"] is None
    sub = ok(client, '{ resolveTurn(message: {text: "x", parentId: "t2", metadata: {kind: "subagent"}}) { reason } }')
    assert sub["resolveTurn"]["reason"] == "subagent-of-parent"


def test_graphql_events_episodes_pack_and_prune(client):
    ok(client, 'mutation { openTurn(workspace: "/ws", id: "t1") { id } }')
    data = ok(
        client,
        'mutation($p: JSON) { recordEvent(type: "FulfilledLocal", turnId: "t1", payload: $p) { type workspace prov payload } }',
        p={"model": "local", "ms": 120},
    )
    assert data["recordEvent"] == {"type": "FulfilledLocal", "workspace": "/ws", "prov": "RUNTIME", "payload": {"model": "local", "ms": 120}}
    events = ok(client, '{ events(limit: 5, type: "FulfilledLocal") { type turnId } }')["events"]
    assert events == [{"type": "FulfilledLocal", "turnId": "t1"}]
    ok(client, 'mutation { addEpisode(sessionId: "s1", summary: "fixed the lexer") { id } }')
    data = ok(client, '{ episodes { summary } contextPack(userTurn: "and now?", sessionId: "s1") { text episodes { summary } } }')
    assert data["episodes"] == [{"summary": "fixed the lexer"}]
    assert data["contextPack"]["text"].startswith("Latest user turn:\nand now?")
    assert data["contextPack"]["episodes"] == [{"summary": "fixed the lexer"}]
    report = ok(client, "mutation { prune(dryRun: true) { removed remaining dryRun byType { type count } } }")["prune"]
    assert report == {"removed": 0, "remaining": 2, "dryRun": True, "byType": []}


def test_graphql_errors_carry_the_message_and_store_nothing(client):
    body = gql(client, 'mutation { recordEvent(type: "not valid", payload: {}) { id } }')
    assert "type: 'not valid' is not a valid event type" in body["errors"][0]["message"]
    body = gql(client, 'mutation { recordEvent(type: "Foo", payload: "{oops") { id } }')
    assert "payload: invalid JSON" in body["errors"][0]["message"]
    body = gql(client, 'mutation { bindSticky(familyId: "ghost", route: "cloud") { route } }')
    assert "unknown turn family 'ghost'" in body["errors"][0]["message"]
    assert get_store().events.count() == 0


def test_rest_routes_read_the_store(client):
    store = get_store()
    store.turns.open_turn("/ws", "t1", session_id="s1", keys={"goal": "g"})
    store.turns.touched("t1", ["src/a.py"])
    store.turns.bind_sticky("t1", "cloud")
    store.events.append("FulfilledLocal", "t1", None, {"n": 1})
    store.episodes.add("s1", "summary one")

    recent = client.get("/api/context/recent", params={"limit": 2}).json()
    assert [e["type"] for e in recent] == ["FulfilledLocal", "StickyBound"]
    assert recent[0]["payload"] == {"n": 1} and recent[0]["prov"] == "RUNTIME"
    assert client.get("/api/context/recent", params={"type": "TurnOpened"}).json()[0]["turn_id"] == "t1"

    turns = client.get("/api/context/turns").json()
    assert [t["id"] for t in turns] == ["t1"] and turns[0]["keys"] == {"goal": "g"}
    detail = client.get("/api/context/turns/t1").json()
    assert detail["touched"] == ["src/a.py"] and detail["sticky"]["route"] == "cloud"

    episodes = client.get("/api/context/episodes").json()
    assert [e["summary"] for e in episodes] == ["summary one"]


def test_rest_export_streams_the_same_jsonl_as_the_library(client):
    store = get_store()
    store.turns.open_turn("/ws", "t1")
    for i in range(2500):
        store.events.append("FulfilledLocal", "t1", None, {"i": i})
    response = client.get("/api/context/export")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/x-ndjson")
    expected = io.StringIO()
    store.events.export_jsonl(expected)
    assert response.text == expected.getvalue()
    assert len(response.text.splitlines()) == 2501


def test_rest_prune_reports_what_it_removed(client):
    store = get_store()
    store.events.append("RouteDecided", None, None, {}, at="2020-01-01T00:00:00Z")
    store.events.append("RouteDecided", None, None, {})
    dry = client.post("/api/context/prune", params={"dry_run": True}).json()
    assert (dry["removed"], dry["dry_run"], dry["remaining"]) == (1, True, 2)
    report = client.post("/api/context/prune").json()
    assert (report["removed"], report["by_type"], report["remaining"]) == (1, {"RouteDecided": 1}, 1)


def test_rest_errors_are_json_with_a_message_and_a_4xx_status(client):
    r = client.get("/api/context/turns/missing")
    assert r.status_code == 404 and r.json()["code"] == "NOT_FOUND" and "missing" in r.json()["error"]
    r = client.get("/api/context/recent", params={"type": "bad type"})
    assert r.status_code == 400 and r.json()["error"].startswith("type:")
    r = client.get("/api/context/recent", params={"since": "last tuesday"})
    assert r.status_code == 400 and r.json()["error"].startswith("time:")
    r = client.get("/api/context/recent", params={"limit": 0})
    assert r.status_code == 422


def test_the_openapi_document_describes_the_routes_precisely(client):
    doc = client.get("/openapi.json").json()
    paths = doc["paths"]
    for path in ("/api/context/recent", "/api/context/turns", "/api/context/turns/{turn_id}",
                 "/api/context/episodes", "/api/context/export"):
        assert "get" in paths[path], path
    assert "post" in paths["/api/context/prune"]
    ok_schema = paths["/api/context/recent"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok_schema["items"]["$ref"].endswith("/EventOut")
    assert set(doc["components"]["schemas"]["EventOut"]["properties"]) == {
        "id", "seq", "time", "type", "turn_id", "workspace", "prov", "payload"
    }
    assert "application/x-ndjson" in paths["/api/context/export"]["get"]["responses"]["200"]["content"]
    assert paths["/api/context/turns/{turn_id}"]["get"]["responses"]["404"]["content"]["application/json"]["schema"][
        "$ref"
    ].endswith("/ErrorOut")
