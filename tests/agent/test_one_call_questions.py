"""Ten kinds of questions a coding agent asks about a real project (requests 2.32.3,
vendored), each answered by ONE GraphQL request and checked against what the source says,
read with `ast` (tests/agent/python_oracle.py), never against the graph.

The oracle resolves calls by names, imports, ``self``, ``super()`` and variables bound to a
class instance; answers are compared on the package's own entities.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from graphsvc.settings import get_settings
from tests.agent.python_oracle import Project
from tests.api.conftest import running
from tests.conftest import REQUESTS_DIR

pytestmark = pytest.mark.neo4j

ORACLE = Project(REQUESTS_DIR, "requests")


@pytest.fixture(scope="module")
def ask(requests_workspace) -> Iterator:
    """`ask(field, arguments, selection)`: one GraphQL request; the field's answer."""
    with running(get_settings()) as url:

        def one(field: str, arguments: str, selection: str) -> dict:
            query = f'{{ {field}(workspace: "{requests_workspace}", {arguments}) {selection} }}'
            r = httpx.post(f"{url}/graphql", json={"query": query}, timeout=120)
            body = r.json()
            assert r.status_code == 200 and "errors" not in body, body
            return body["data"][field]

        yield one


def _own(ids) -> set[str]:
    """The package's own entities (not ext:…)."""
    return {i for i in ids if i.startswith("requests/")}


@pytest.mark.parametrize("dotted", ["requests.Session", "requests.adapters.HTTPAdapter.send"])
def test_symbol_by_dotted_name(ask, dotted):
    """Where is requests.Session defined (re-exported by the package), and HTTPAdapter.send?"""
    got = ask("symbol", f'ref: "{dotted}"', "{ entity { id startLine endLine } }")["entity"]
    d = ORACLE.by_dotted(dotted)
    assert got == {"id": d.id, "startLine": d.line, "endLine": d.end_line}


def test_who_calls(ask):
    """Who calls requests.utils.should_bypass_proxies?"""
    got = ask("callers", 'ref: "requests.utils.should_bypass_proxies"', "{ sites { caller depth } }")
    target = ORACLE.by_dotted("requests.utils.should_bypass_proxies").id
    assert {s["caller"] for s in got["sites"]} == ORACLE.callers(target)


def test_who_calls_two_levels_up(ask):
    """Who calls requests.utils.get_netrc_auth, and who calls those?"""
    got = ask("callers", 'ref: "requests.utils.get_netrc_auth", depth: 2', "{ sites { caller depth } }")
    target = ORACLE.by_dotted("requests.utils.get_netrc_auth").id
    nearest: dict[str, int] = {}
    for s in got["sites"]:
        nearest[s["caller"]] = min(s["depth"], nearest.get(s["caller"], s["depth"]))
    assert nearest == ORACLE.callers_within(target, 2)


def test_what_does_it_call(ask):
    """What does requests.api.request call?"""
    got = ask("callees", 'ref: "requests.api.request"', "{ sites { callee } }")
    source = ORACLE.by_dotted("requests.api.request").id
    assert _own(s["callee"] for s in got["sites"]) == ORACLE.calls[source]


def test_what_breaks_if_i_change_it(ask):
    """What breaks if I change requests.utils.get_netrc_auth (two hops)?"""
    got = ask("impact", 'ref: "requests.utils.get_netrc_auth", depth: 2',
              "{ levels { depth entities { id } truncated } complete }")
    assert got["complete"] and not any(level["truncated"] for level in got["levels"])
    reached = {e["id"]: level["depth"] for level in got["levels"] for e in level["entities"]}
    assert reached == ORACLE.callers_within(ORACLE.by_dotted("requests.utils.get_netrc_auth").id, 2)


def test_subclasses(ask):
    """Which exceptions derive from RequestException, at any depth?"""
    got = ask("subclasses", 'ref: "requests.exceptions.RequestException", transitive: true, limit: 100',
              "{ entities { id } total truncated }")
    assert not got["truncated"]
    assert {e["id"] for e in got["entities"]} == ORACLE.subclasses(
        ORACLE.by_dotted("requests.exceptions.RequestException").id)


def test_superclasses(ask):
    """What does SSLError inherit from?"""
    got = ask("superclasses", 'ref: "requests.exceptions.SSLError", transitive: true', "{ entities { id } }")
    assert _own(e["id"] for e in got["entities"]) == ORACLE.superclasses(
        ORACLE.by_dotted("requests.exceptions.SSLError").id)


def test_overridden_by(ask):
    """Which methods override BaseAdapter.close?"""
    got = ask("overriddenBy", 'ref: "requests.adapters.BaseAdapter.close"', "{ entities { id } }")
    assert {e["id"] for e in got["entities"]} == ORACLE.overriding(
        ORACLE.by_dotted("requests.adapters.BaseAdapter.close").id)


def test_call_path(ask):
    """How does requests.get reach Session.send?"""
    got = ask("callPath", 'from: "requests.api.get", to: "requests.sessions.Session.send"',
              "{ found steps { caller callee } }")
    source, target = (ORACLE.by_dotted(d).id for d in ("requests.api.get", "requests.sessions.Session.send"))
    steps = [(s["caller"], s["callee"]) for s in got["steps"]]
    assert got["found"] and len(steps) == ORACLE.shortest_call_path(source, target)
    assert steps[0][0] == source and steps[-1][1] == target
    assert all(b in ORACLE.calls[a] for a, b in steps)
    assert all(x[1] == y[0] for x, y in zip(steps, steps[1:]))


def test_where_is_a_string_read(ask):
    """Where does the code mention the header Content-Length?"""
    got = ask("grep", 'pattern: "Content-Length", limit: 100', "{ total truncated hits { file line symbol } }")
    assert not got["truncated"] and got["total"] == len(got["hits"])
    assert {(h["file"], h["line"]) for h in got["hits"]} == ORACLE.lines_with("Content-Length")
    assert [h["symbol"] for h in got["hits"]] == [ORACLE.innermost(h["file"], h["line"]) for h in got["hits"]]
