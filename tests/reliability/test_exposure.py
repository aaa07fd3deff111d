"""Who gets in and what leaks: binding, tokens on every route, secrets in logs, workspace roots, bounds.

tests/api/test_api.py already covers: `serve --host 0.0.0.0` without a token, a few routes
with and without the token, `..` / a symlink / `/etc` refused by the index routes, and the
body-size, depth and result-count limits. This module adds the rest: every route of the
OpenAPI document, the open routes listed exactly, secrets in logs and error bodies, more
ways out of a workspace root, and the Neo4j transaction-time bound.
"""

from __future__ import annotations

import logging
import re
import time

import httpx
import pytest
from click.testing import CliRunner

from tests.api.conftest import running
from graphsvc.api.app import MAX_ALIASES
from graphsvc.api.auth import is_loopback
from graphsvc.cli import main
from graphsvc.errors import ConfigError, InputError, Neo4jUnavailable
from graphsvc.graph.driver import Graph, connect, reset_graph
from graphsvc.indexing.jobs import check_index_path
from graphsvc.settings import get_settings, reload_settings

TOKEN = "tok-" + "5b1e7d" * 5


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10", "[::]", "myhost.example", "localhost.attacker.example",
                                  "::ffff:0.0.0.0"])
def test_serve_refuses_every_non_loopback_address_without_a_token(host, monkeypatch):
    monkeypatch.delenv("GRAPHSVC_SERVER__TOKEN", raising=False)
    reload_settings()
    started = []
    monkeypatch.setattr("uvicorn.run", lambda *a, **k: started.append(a))
    result = CliRunner().invoke(main, ["serve", "--host", host, "--port", "1"], standalone_mode=False)
    reload_settings()
    assert isinstance(result.exception, ConfigError) and "token" in str(result.exception)
    assert not started


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"])
def test_loopback_addresses_need_no_token(host):
    assert is_loopback(host)


def _routes(spec: dict) -> list[tuple[str, str]]:
    out = []
    for path, item in spec["paths"].items():
        for method in item:
            out.append((method.upper(), re.sub(r"\{[^}]+\}", "x", path)))
    return out


@pytest.mark.neo4j
def test_every_route_but_the_open_ones_rejects_missing_or_wrong_tokens(neo4j_server):
    settings = get_settings().model_copy(deep=True)
    settings.server.token = TOKEN
    with running(settings) as url, httpx.Client(timeout=60) as client:
        spec = client.get(f"{url}/openapi.json").json()
        routes = _routes(spec) + [("POST", "/graphql"), ("GET", "/graphql?query=%7Bjobs%7Bid%7D%7D")]
        wrong = [
            {},
            {"Authorization": "Bearer"},
            {"Authorization": TOKEN},
            {"Authorization": f"bearer {TOKEN}"},
            {"Authorization": f"Bearer {TOKEN[:-1]}"},
            {"Authorization": f"Bearer {TOKEN}x"},
            {"Authorization": f"Bearer  {TOKEN}"},
            {"Authorization": f"Basic {TOKEN}"},
            {"X-Api-Key": TOKEN},
        ]
        open_routes = set()
        for method, path in routes:
            answers = {client.request(method, f"{url}{path}", headers=h, json={}).status_code for h in wrong}
            if answers == {401}:
                continue
            open_routes.add((method, path))
        # Exactly these answer without a token (GET /graphql without a query is the GraphiQL
        # page; its queries need the token); a new open route must be added here on purpose.
        assert open_routes == {("GET", "/healthz"), ("GET", "/browser/graphsvc.grass"), ("GET", "/graphql")}, open_routes
        r = client.get(f"{url}/api/context/recent", headers={"Authorization": "Bearer nope"})
        assert TOKEN not in r.text and "nope" not in r.text
        assert client.get(f"{url}/api/context/recent", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200


@pytest.mark.neo4j
def test_secrets_stay_out_of_logs_and_error_messages(own_neo4j, caplog, monkeypatch):
    """A wrong Neo4j password and a wrong token: neither the real ones nor the guesses are echoed.

    The wrong password goes to the private server, under a user name nobody else uses: Neo4j
    locks a user out for a while after three failed logins, and the fault tests that run next
    on that server log in as `neo4j`.
    """
    if own_neo4j.status().state != "running":
        own_neo4j.start()
    caplog.set_level(logging.DEBUG)
    real_password = own_neo4j.connection_info().password
    guess = "guess-" + "9c2f" * 6
    monkeypatch.setenv("NEO4J_URI", own_neo4j.connection_info().uri)
    monkeypatch.setenv("NEO4J_USER", "intruder")
    monkeypatch.setenv("NEO4J_PASSWORD", guess)
    settings = reload_settings().model_copy(deep=True)
    settings.server.token = TOKEN
    reset_graph()
    try:
        with running(settings) as url, httpx.Client(timeout=60) as client:
            auth = {"Authorization": f"Bearer {TOKEN}"}
            # Each request opens the connection anew while it fails.
            health = client.get(f"{url}/healthz")
            explain = client.get(f"{url}/api/context/explain", params={"workspace": "w", "id": "x"}, headers=auth)
            wrong_token = client.get(f"{url}/api/context/recent", headers={"Authorization": "Bearer " + real_password})
            assert health.status_code == 503 and "refused the credentials" in health.text, health.text
            assert explain.status_code == 503 and explain.json()["code"] == "NEO4J_UNAVAILABLE", explain.text
            assert wrong_token.status_code == 401
            bodies = [health.text, explain.text, wrong_token.text]
    finally:
        monkeypatch.undo()
        reload_settings()
        reset_graph()
    text = "\n".join(bodies) + "\n" + caplog.text
    for secret in (real_password, guess, TOKEN):
        assert secret not in text


def test_index_paths_outside_the_workspace_roots_are_refused(tmp_path):
    root = tmp_path / "roots"
    repo = root / "repo"
    (repo / "sub").mkdir(parents=True)
    sibling = tmp_path / "roots-evil"  # shares the root's name as a string prefix
    sibling.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (repo / "sub" / "out").symlink_to(outside)  # a link out, nested below the root
    (repo / "file.py").write_text("x = 1\n")
    linked_root = tmp_path / "linked-root"
    linked_root.symlink_to(root)
    roots = [root]
    for path in (str(sibling), "../roots-evil", "repo/sub/out", str(repo / "sub" / "out"),
                 "repo/file.py", "repo/./../../outside", str(tmp_path), "/", "~", "", "repo\0", "%2e%2e/outside",
                 str(linked_root / ".." / "outside")):
        with pytest.raises(InputError):
            check_index_path(path, roots)
    with pytest.raises(InputError):
        check_index_path(str(repo), [])  # no roots configured: the API indexes nothing
    assert check_index_path("repo", roots) == repo.resolve()
    assert check_index_path(str(linked_root / "repo"), roots) == repo.resolve()  # a link *into* a root is fine
    assert check_index_path("repo/sub", [linked_root]) == (repo / "sub").resolve()


@pytest.mark.neo4j
def test_a_query_over_the_transaction_time_limit_is_stopped(neo4j_server):
    """Every query carries the configured timeout; Neo4j stops one that runs over it."""
    shared = connect()
    graph = Graph(shared.driver, shared.database, shared.uri, timeout_s=1.0)
    try:
        started = time.monotonic()
        with pytest.raises(InputError) as err:
            graph.read("UNWIND range(1, 20000000000) AS x WITH x WHERE x < 0 RETURN count(x) AS n")
        elapsed = time.monotonic() - started
        assert "transaction limit" in str(err.value)
        assert elapsed < 60, elapsed  # the server checks timeouts every few seconds
        assert shared.read("RETURN 1 AS one") == [{"one": 1}]  # the server and driver are still usable
    finally:
        shared.close()
    assert get_settings().neo4j.transaction_timeout_s > 0


def test_a_symlink_loop_is_refused_as_bad_input(tmp_path):
    root = tmp_path / "roots"
    (root / "repo").mkdir(parents=True)
    (root / "repo" / "loop").symlink_to(root / "repo" / "loop")
    with pytest.raises(InputError):
        check_index_path("repo/loop", [root])


def test_graphql_aliases_are_bounded():
    """Depth alone does not bound work: the same expensive field under many aliases would run
    once per alias. Up to `MAX_ALIASES` pass; one more is refused before anything runs."""
    settings = get_settings().model_copy(deep=True)
    with running(settings) as url:
        def aliased(n: int) -> dict:
            fields = " ".join(f"j{i}: jobs {{ id }}" for i in range(n))
            return httpx.post(f"{url}/graphql", json={"query": "{ " + fields + " }"}, timeout=60).json()

        ok = aliased(MAX_ALIASES)
        assert "errors" not in ok and len(ok["data"]) == MAX_ALIASES
        refused = aliased(MAX_ALIASES + 1)
        assert refused.get("data") is None and "alias" in refused["errors"][0]["message"].lower()


def test_a_login_locked_out_by_neo4j_is_an_outage_not_an_internal_error():
    """After three wrong passwords Neo4j answers Security.AuthenticationRateLimit (a ClientError,
    not an AuthError) for a while; that must reach callers as Neo4jUnavailable (503)."""
    from neo4j.exceptions import Neo4jError

    graph = Graph(driver=None, database="neo4j", uri="bolt://127.0.0.1:7687", timeout_s=1.0)
    locked = Neo4jError._hydrate_neo4j(code="Neo.ClientError.Security.AuthenticationRateLimit",
                                       message="incorrect authentication details too many times in a row")
    with pytest.raises(Neo4jUnavailable) as err:
        with graph._errors():
            raise locked
    assert "too many times" in str(err.value)
