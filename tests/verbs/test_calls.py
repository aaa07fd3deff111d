"""`callers`, `callees` and `callPath` on a small indexed project, in the library, over GraphQL,
REST and the CLI; and errors that name the argument."""

from __future__ import annotations

import json

import httpx
import pytest

from graphsvc.errors import AmbiguousError, InputError, NotFoundError
from graphsvc.query.calls import call_path, callees, callers
from tests.indexing.conftest import run_cli

pytestmark = pytest.mark.neo4j

HELPER = "src/shop/util.py#helper"


def _rows(result) -> list[tuple]:
    return [(s.depth, s.caller, s.callee, s.line, s.reason) for s in result.sites]


def test_callers_by_depth_with_unresolved_sites_of_the_name(calls_ws):
    got = callers("shop.util.helper", workspace=calls_ws)
    assert got.target.id == HELPER and got.target.match == "module path"
    assert _rows(got) == [
        (1, "src/shop/engine.py#Engine.start", HELPER, 7, "import"),
        (1, "src/shop/engine.py#Engine.run", HELPER, 14, "import"),
        (1, "src/shop/util.py#report", HELPER, 12, "scope"),
    ]
    assert got.sites[1].count == 2 and got.total == 3 and not got.truncated
    # `plugin.helper()` and `hooks.helper()`: calls of this name the index could not resolve.
    assert got.unresolved_sites == 2
    assert {(u.file, u.line, u.text) for u in got.unresolved} == {
        ("src/shop/engine.py", 25, "plugin.helper()"), ("src/shop/util.py", 11, "hooks.helper()"),
    }

    deep = callers("shop.util.helper", workspace=calls_ws, depth=3)
    assert [(d.depth, d.count) for d in deep.by_depth] == [(1, 3), (2, 2), (3, 1)]
    assert ("src/shop/other.py#main", "src/shop/engine.py#restart") in {(s.caller, s.callee) for s in deep.sites}
    cut = callers("shop.util.helper", workspace=calls_ws, depth=3, limit=2)
    assert len(cut.sites) == 2 and cut.total == 6 and cut.truncated


def test_candidates_and_confidence_are_separate_filters(calls_ws):
    plain = {s.caller for s in callers(HELPER, workspace=calls_ws).sites}
    assert "src/shop/cli.py#go" not in plain
    withc = callers(HELPER, workspace=calls_ws, include_candidates=True)
    assert [(s.caller, s.reason, s.confidence) for s in withc.sites if s.caller == "src/shop/cli.py#go"] == [
        ("src/shop/cli.py#go", "candidate", 0.5)
    ]
    # unique-name guesses are followed by default, and left out by a confidence floor above them.
    assert {s.caller for s in callers("Engine.start", workspace=calls_ws).sites} == {"src/shop/engine.py#restart"}
    assert callers("Engine.start", workspace=calls_ws, min_confidence=0.9).total == 0


def test_callees_with_the_unresolved_calls_as_written(calls_ws):
    got = callees("src/shop/engine.py#restart", workspace=calls_ws)
    assert [(s.callee, s.line) for s in got.sites] == [("src/shop/engine.py#Engine.start", 24)]
    assert got.unresolved_calls == 2
    assert [(u.line, u.text) for u in got.unresolved] == [(25, "plugin.helper()"), (26, "plugin.audit()")]
    two = callees("Engine.start", workspace=calls_ws, depth=2)
    assert [(d.depth, d.count) for d in two.by_depth] == [(1, 3), (2, 3)]
    assert {s.callee for s in two.sites if s.depth == 2} == {"src/shop/util.py#audit", HELPER, "src/shop/engine.py#finish"}


def test_call_path_directed_and_its_frontier(calls_ws):
    got = call_path("shop.other.main", "shop.util.helper", workspace=calls_ws)
    assert got.found and [s.callee for s in got.steps] == [
        "src/shop/engine.py#restart", "src/shop/engine.py#Engine.start", HELPER,
    ]
    assert [s.line for s in got.steps] == [8, 24, 7]
    # Calls are directed: back from the helper there is none; the frontier says where the walk stops.
    back = call_path(HELPER, "shop.other.main", workspace=calls_ws)
    assert not back.found and back.steps == [] and back.frontier == []
    stop = call_path("shop.util.report", "src/shop/other.py#helper", workspace=calls_ws)
    assert not stop.found
    assert [(f.id, f.depth, f.unresolved) for f in stop.frontier] == [("src/shop/util.py#report", 0, ["11: hooks.helper()"])]
    # A candidate hop left out is part of the frontier; with candidates the path exists.
    cand = call_path("shop.cli.go", "src/shop/other.py#helper", workspace=calls_ws)
    assert not cand.found and cand.frontier[0].skipped == ["src/shop/other.py#helper", HELPER]
    assert call_path("shop.cli.go", "src/shop/other.py#helper", workspace=calls_ws, include_candidates=True).found


def test_errors_name_the_argument(calls_ws):
    with pytest.raises(InputError, match="^depth must be 1..5, got 0"):
        callers(HELPER, workspace=calls_ws, depth=0)
    with pytest.raises(InputError, match="^maxHops must be 1..10, got 11"):
        call_path(HELPER, HELPER, workspace=calls_ws, max_hops=11)
    with pytest.raises(InputError, match="^minConfidence must be between 0 and 1"):
        callees(HELPER, workspace=calls_ws, min_confidence=2)
    with pytest.raises(AmbiguousError, match="^ref 'helper' names 2 entities"):
        callers("helper", workspace=calls_ws)
    with pytest.raises(AmbiguousError, match="^to 'helper' names 2 entities"):
        call_path("Engine.start", "helper", workspace=calls_ws)
    with pytest.raises(NotFoundError, match="^from 'shop.nope'"):
        call_path("shop.nope", HELPER, workspace=calls_ws)


CALLERS = """query($r: String!, $ws: String!, $d: Int!) { callers(ref: $r, workspace: $ws, depth: $d) {
  target { id } sites { caller line reason depth } byDepth { depth count } total truncated unresolvedSites } }"""
CALLEES = "query($r: String!, $ws: String!) { callees(ref: $r, workspace: $ws) { sites { callee } unresolvedCalls unresolved { line text } } }"
CALL_PATH = """query($a: String!, $b: String!, $ws: String!) { callPath(from: $a, to: $b, workspace: $ws, maxHops: 4) {
  found steps { caller callee line } frontier { id unresolved } } }"""


def test_calls_over_graphql(calls_ws, gql):
    got = gql(CALLERS, r="shop.util.helper", ws=calls_ws, d=2)["data"]["callers"]
    assert got["target"]["id"] == HELPER and got["byDepth"] == [{"depth": 1, "count": 3}, {"depth": 2, "count": 2}]
    assert got["sites"][0] == {"caller": "src/shop/engine.py#Engine.start", "line": 7, "reason": "import", "depth": 1}
    assert got["unresolvedSites"] == 2 and got["total"] == 5 and not got["truncated"]
    got = gql(CALLEES, r="src/shop/engine.py#restart", ws=calls_ws)["data"]["callees"]
    assert got["unresolvedCalls"] == 2 and got["unresolved"][0] == {"line": 25, "text": "plugin.helper()"}
    got = gql(CALL_PATH, a="shop.other.main", b="shop.util.helper", ws=calls_ws)["data"]["callPath"]
    assert got["found"] and [s["line"] for s in got["steps"]] == [8, 24, 7]
    errors = gql(CALLERS, r="helper", ws=calls_ws, d=1)["errors"]
    assert errors[0]["extensions"]["code"] == "AMBIGUOUS" and errors[0]["extensions"]["candidates"] == [
        "src/shop/other.py#helper", HELPER]
    errors = gql(CALLERS, r=HELPER, ws=calls_ws, d=7)["errors"]
    assert errors[0]["extensions"]["code"] == "BAD_INPUT" and errors[0]["message"].startswith("depth must be")


def test_calls_over_rest(calls_ws, url):
    r = httpx.get(f"{url}/api/context/callers", params={"ref": HELPER, "workspace": calls_ws, "depth": 3}, timeout=60)
    assert r.status_code == 200 and r.json()["total"] == 6 and r.json()["unresolved_sites"] == 2
    r = httpx.get(f"{url}/api/context/callees", params={"ref": "shop.cli.go", "workspace": calls_ws,
                                                        "include_candidates": "true"}, timeout=60)
    assert r.status_code == 200 and r.json()["total"] == 3
    r = httpx.get(f"{url}/api/context/call-path", params={"from": "shop.other.main", "to": HELPER, "workspace": calls_ws},
                  timeout=60)
    assert r.status_code == 200 and r.json()["found"]
    r = httpx.get(f"{url}/api/context/callers", params={"ref": "helper", "workspace": calls_ws}, timeout=60)
    assert r.status_code == 409 and r.json()["code"] == "AMBIGUOUS"


def test_calls_on_the_command_line(calls_ws):
    out = run_cli("callers", "shop.util.helper", "--workspace", calls_ws, "--depth", "2")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == f"callers of {HELPER}: 5 (depth 1: 3, depth 2: 2)"
    assert "unresolved calls of this name: 2" in out.stdout
    out = run_cli("callees", "src/shop/engine.py#restart", "-w", calls_ws, "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["unresolved_calls"] == 2
    out = run_cli("call-path", "shop.other.main", HELPER, "-w", calls_ws)
    assert out.returncode == 0 and out.stdout.splitlines()[0] == "src/shop/other.py#main"
    out = run_cli("callers", HELPER, "-w", calls_ws, "--depth", "0")
    assert out.returncode == 2 and out.stderr.startswith("error: depth must be 1..5")
