"""impact, the class hierarchy and one community over GraphQL, REST and the CLI, with their errors."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from graphsvc.query.communities import compute_communities
from graphsvc.settings import get_settings
from tests.api.conftest import running
from tests.indexing.conftest import run_cli
from tests.query.impact_project import indexed_project
from tests.query.test_impact import DIFF

pytestmark = pytest.mark.neo4j

WS = "graphsvc-impact-verbs-tests"


@pytest.fixture(scope="module")
def project(neo4j_server, tmp_path_factory) -> Iterator[str]:
    with indexed_project(tmp_path_factory, WS) as ws:
        compute_communities(workspace=ws, min_size=2)
        yield ws


@pytest.fixture(scope="module")
def url(project) -> Iterator[str]:
    with running(get_settings()) as base:
        yield base


def gql(url: str, query: str, **variables) -> dict:
    r = httpx.post(f"{url}/graphql", json={"query": query, "variables": variables}, timeout=60)
    assert r.status_code == 200, r.text
    return r.json()


def rest(url: str, verb: str, **params) -> httpx.Response:
    return httpx.get(f"{url}/api/context/{verb}", params=params, timeout=60)


IMPACT = """query($ws: String!, $ref: String, $files: [String!], $diff: String, $depth: Int! = 2) {
  impact(workspace: $ws, ref: $ref, files: $files, diff: $diff, depth: $depth) {
    summary changed { items total } notIndexed { items }
    levels { depth total truncated unresolvedSites entities { id rel via confidence reason } }
    files { items { name count } total limit truncated } tests { items total } complete
  }
}"""


def test_impact_over_graphql(project, url):
    got = gql(url, IMPACT, ws=project, ref="pkg.core.helper")["data"]["impact"]
    assert got["changed"] == {"items": ["pkg/core.py#helper"], "total": 1}
    assert [level["total"] for level in got["levels"]] == [2, 1]
    assert {e["id"] for e in got["levels"][0]["entities"]} == {"pkg/core.py#Base.run", "tests/test_core.py#test_helper"}
    assert got["tests"] == {"items": ["tests/test_core.py#test_helper"], "total": 1}
    assert got["summary"].startswith("changing pkg/core.py#helper reaches 3 entities within 2 hops")
    by_files = gql(url, IMPACT, ws=project, files=["lib/calc.go", "missing.go"], depth=1)["data"]["impact"]
    assert by_files["tests"]["items"] == ["lib/calc_test.go#TestAdd"] and by_files["notIndexed"]["items"] == ["missing.go"]
    by_diff = gql(url, IMPACT, ws=project, diff=DIFF, depth=1)["data"]["impact"]
    assert by_diff["changed"]["items"] == ["pkg/core.py", "pkg/core.py#helper"]
    err = gql(url, IMPACT, ws=project)["errors"][0]
    assert err["extensions"]["code"] == "BAD_INPUT" and "exactly one of ref, files or diff" in err["message"]
    err = gql(url, IMPACT, ws=project, ref="nothing.here")["errors"][0]
    assert err["extensions"]["code"] == "NOT_FOUND" and err["message"].startswith("ref 'nothing.here'")


def test_impact_over_rest(project, url):
    r = rest(url, "impact", ref="pkg/core.py#helper", workspace=project, depth=1)
    assert r.status_code == 200 and r.json()["levels"][0]["total"] == 2
    r = rest(url, "impact", files="lib/calc.go,web/math.ts", workspace=project, depth=1)
    assert r.status_code == 200 and set(r.json()["tests"]["items"]) == {
        "lib/calc_test.go#TestAdd", "web/math.test.ts#checkSquare"}
    r = httpx.post(f"{url}/api/context/impact", json={"workspace": project, "diff": DIFF, "depth": 1}, timeout=60)
    assert r.status_code == 200 and r.json()["changed"]["items"] == ["pkg/core.py", "pkg/core.py#helper"]
    r = rest(url, "impact", ref="run", workspace=project)
    assert r.status_code == 409 and r.json()["code"] == "AMBIGUOUS"
    assert set(r.json()["candidates"]) == {"pkg/core.py#Base.run", "pkg/core.py#Child.run"}
    r = rest(url, "impact", ref="pkg/core.py#helper", workspace=project, depth=9)
    assert r.status_code == 400 and r.json()["code"] == "BAD_INPUT" and "depth must be 1..4" in r.json()["error"]


HIERARCHY = """query($ws: String!) {
  subclasses(ref: "pkg.core.Base", workspace: $ws, transitive: true) { total entities { id depth via } }
  superclasses(ref: "pkg.core.GrandChild", workspace: $ws) { entities { id rel } }
  overrides(ref: "pkg.core.Child.run", workspace: $ws) { entities { id } }
  overriddenBy(ref: "pkg.core.Base.run", workspace: $ws) { entity { id } relation entities { id } }
}"""


def test_hierarchy_over_graphql_and_rest(project, url):
    got = gql(url, HIERARCHY, ws=project)["data"]
    assert got["subclasses"] == {"total": 2, "entities": [
        {"id": "pkg/core.py#Child", "depth": 1, "via": "pkg/core.py#Base"},
        {"id": "pkg/core.py#GrandChild", "depth": 2, "via": "pkg/core.py#Child"}]}
    assert got["superclasses"]["entities"] == [{"id": "pkg/core.py#Child", "rel": "INHERITS"}]
    assert got["overrides"]["entities"] == [{"id": "pkg/core.py#Base.run"}]
    assert got["overriddenBy"] == {"entity": {"id": "pkg/core.py#Base.run"}, "relation": "overriddenBy",
                                   "entities": [{"id": "pkg/core.py#Child.run"}]}
    r = rest(url, "subclasses", ref="pkg.core.Base", workspace=project, transitive="true")
    assert r.status_code == 200 and [e["id"] for e in r.json()["entities"]] == ["pkg/core.py#Child", "pkg/core.py#GrandChild"]
    r = rest(url, "overridden-by", ref="pkg/core.py#Base.run", workspace=project)
    assert r.status_code == 200 and [e["id"] for e in r.json()["entities"]] == ["pkg/core.py#Child.run"]
    r = rest(url, "superclasses", ref="nothing.here", workspace=project)
    assert r.status_code == 404 and r.json()["code"] == "NOT_FOUND"


COMMUNITY = """query($ws: String!, $n: Int!) {
  communityOf(ref: "pkg.core.helper", workspace: $ws) { number label size member }
  community(workspace: $ws, number: $n) { number label size member topFiles { items { name count } total }
    topMembers { id degree } neighbours { number label edges } neighboursTotal }
}"""


def test_community_over_graphql_and_rest(project, url):
    of = gql(url, COMMUNITY, ws=project, n=0)["data"]["communityOf"]
    assert of["member"] == "pkg/core.py#helper"
    got = gql(url, COMMUNITY, ws=project, n=of["number"])["data"]["community"]
    assert (got["number"], got["label"], got["size"], got["member"]) == (of["number"], of["label"], of["size"], None)
    assert got["topFiles"]["items"] and got["topMembers"]
    err = gql(url, COMMUNITY, ws=project, n=999)["errors"][0]
    assert err["extensions"]["code"] == "NOT_FOUND" and "no community 999" in err["message"]
    r = rest(url, "community-of", ref="pkg/core.py#helper", workspace=project)
    assert r.status_code == 200 and r.json()["number"] == of["number"]
    r = rest(url, "community", number=of["number"], workspace=project)
    assert r.status_code == 200 and r.json()["label"] == of["label"]


def test_every_verb_on_the_cli(project):
    out = run_cli("impact", "pkg.core.helper", "-w", project, "--depth", "1")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("changing pkg/core.py#helper reaches 2 entities within 1 hop (2) in 2 files, 1 test")
    out = run_cli("impact", "-w", project, "--files", "lib/calc.go", "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["tests"]["items"] == ["lib/calc_test.go#TestAdd"]
    out = run_cli("impact", "-w", project, "--diff", DIFF, "--depth", "1", "--json")
    assert json.loads(out.stdout)["changed"]["items"] == ["pkg/core.py", "pkg/core.py#helper"]
    out = run_cli("subclasses", "pkg.core.Base", "-w", project, "--transitive")
    assert out.returncode == 0 and out.stdout.splitlines()[0] == "pkg/core.py#Base: 2 subclasses (transitive)"
    out = run_cli("superclasses", "pkg.core.Child", "-w", project, "--json")
    assert [e["id"] for e in json.loads(out.stdout)["entities"]] == ["pkg/core.py#Base"]
    out = run_cli("overrides", "pkg.core.Child.run", "-w", project)
    assert out.returncode == 0 and "pkg/core.py#Base.run:2  [method]  <-OVERRIDES- pkg/core.py#Child.run" in out.stdout
    out = run_cli("overridden-by", "pkg.core.Base.run", "-w", project, "--json")
    assert [e["id"] for e in json.loads(out.stdout)["entities"]] == ["pkg/core.py#Child.run"]
    out = run_cli("community-of", "pkg.core.helper", "-w", project, "--json")
    number = json.loads(out.stdout)["number"]
    out = run_cli("community", "--number", str(number), "-w", project)
    assert out.returncode == 0 and out.stdout.startswith(f"community:{number}  ")
    out = run_cli("impact", "-w", project)
    assert out.returncode == 2 and out.stderr.startswith("error: give exactly one of ref, files or diff")
