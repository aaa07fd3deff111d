"""`symbol`: every kind of ref, ambiguity and errors, in the library, over GraphQL, REST and the CLI."""

from __future__ import annotations

import json

import httpx
import pytest

from graphsvc.errors import AmbiguousError, InputError, NotFoundError
from graphsvc.query.symbols import resolve, symbol
from graphsvc.graph.driver import get_graph
from tests.indexing.conftest import run_cli

pytestmark = pytest.mark.neo4j

# ref -> (the id it names, how it matched)
NAMED = {
    "src/shop/engine.py#Engine.start": ("src/shop/engine.py#Engine.start", "id"),
    "shop.engine.Engine.start": ("src/shop/engine.py#Engine.start", "module path"),
    "src/shop/engine.Engine.run": ("src/shop/engine.py#Engine.run", "module path"),
    "shop.Engine": ("src/shop/engine.py#Engine", "re-export"),
    "shop.store.Basket.add": ("src/shop/store/basket.py#Basket.add", "re-export"),
    "shop.util.helper": ("src/shop/util.py#helper", "module path"),
    "shop.engine": ("src/shop/engine.py", "module path"),
    "engine.py:7": ("src/shop/engine.py#Engine.start", "file:line"),
    "src/shop/engine.py:11": ("src/shop/engine.py#Engine.load", "file:line"),
    "src/shop/engine.py:22": ("src/shop/engine.py", "file:line"),
    "Engine.run": ("src/shop/engine.py#Engine.run", "qualified name"),
    "util.py#helper": ("src/shop/util.py#helper", "suffix"),
    # vendor/web/format.ts is module web.format too, with a leading directory left out: it ranks lower.
    "web.format.parseAmount": ("web/format.ts#parseAmount", "module path"),
    "vendor.web.format.parseAmount": ("vendor/web/format.ts#parseAmount", "module path"),
    "web/format.Price.show": ("web/format.ts#Price.show", "module path"),
    "web.format.spec.checkAmount": ("web/format.spec.ts#checkAmount", "module path"),
    "server.Serve": ("server/handler.go#Serve", "package"),
}


@pytest.mark.parametrize("ref", NAMED)
def test_a_ref_names_one_entity(calls_ws, ref):
    got = symbol(ref, workspace=calls_ws)
    assert (got.entity.id, got.match) == NAMED[ref]
    assert got.candidates == [] and got.total == 1


def test_an_ambiguous_ref_lists_its_candidates_and_other_verbs_refuse_it(calls_ws):
    got = symbol("helper", workspace=calls_ws)
    assert got.entity is None and got.total == 2 and not got.truncated
    assert [(c.id, c.match) for c in got.candidates] == [
        ("src/shop/other.py#helper", "qualified name"), ("src/shop/util.py#helper", "qualified name"),
    ]
    assert symbol("helper", workspace=calls_ws, limit=1).truncated
    with pytest.raises(AmbiguousError, match=r"^from 'helper' names 2 entities") as err:
        resolve(get_graph(), calls_ws, "helper", "from")
    assert err.value.candidates == ["src/shop/other.py#helper", "src/shop/util.py#helper"]


def test_unknown_and_empty_refs_name_the_argument(calls_ws):
    with pytest.raises(NotFoundError, match=r"^ref 'shop\.nothing': nothing in workspace"):
        symbol("shop.nothing", workspace=calls_ws)
    with pytest.raises(NotFoundError, match="has no entities"):
        symbol("helper", workspace="no-such-workspace")
    with pytest.raises(InputError, match="^to is empty"):
        resolve(get_graph(), calls_ws, " ", "to")


def test_symbol_over_graphql_rest_and_cli(calls_ws, url, gql):
    q = "query($r: String!, $ws: String!) { symbol(ref: $r, workspace: $ws) { entity { id kind } match candidates { id match } total } }"
    got = gql(q, r="shop.Engine", ws=calls_ws)["data"]["symbol"]
    assert got == {"entity": {"id": "src/shop/engine.py#Engine", "kind": "class"}, "match": "re-export",
                   "candidates": [], "total": 1}
    got = gql(q, r="helper", ws=calls_ws)["data"]["symbol"]
    assert got["entity"] is None and [c["id"] for c in got["candidates"]] == ["src/shop/other.py#helper", "src/shop/util.py#helper"]
    err = gql(q, r="nothing.here", ws=calls_ws)["errors"][0]
    assert err["extensions"]["code"] == "NOT_FOUND" and err["message"].startswith("ref 'nothing.here'")

    r = httpx.get(f"{url}/api/context/symbol", params={"ref": "engine.py:7", "workspace": calls_ws}, timeout=60)
    assert r.status_code == 200 and r.json()["entity"]["id"] == "src/shop/engine.py#Engine.start"
    r = httpx.get(f"{url}/api/context/symbol", params={"ref": "nothing.here", "workspace": calls_ws}, timeout=60)
    assert r.status_code == 404 and r.json()["code"] == "NOT_FOUND"

    out = run_cli("symbol", "shop.Engine", "--workspace", calls_ws)
    assert out.returncode == 0 and out.stdout.startswith("src/shop/engine.py#Engine  [class]  src/shop/engine.py:4  (re-export)")
    out = run_cli("symbol", "helper", "-w", calls_ws, "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["total"] == 2
    out = run_cli("symbol", "nothing.here", "-w", calls_ws)
    assert out.returncode == 2 and out.stderr.startswith("error: ref 'nothing.here'")
