"""A symbol's doc, declared returned in the model, reaches GraphQL and REST with no other change."""

from __future__ import annotations

import httpx
import pytest

from tests.api.conftest import WS

pytestmark = pytest.mark.neo4j

DOC = "Run the application until stopped."


def test_doc_over_graphql_and_rest(serve, gql):
    url = serve()
    e = gql(url, f'{{ entity(id: "App.run", workspace: "{WS}") {{ id doc }} }}').json()
    assert e["data"]["entity"] == {"id": "src/app.py#App.run", "doc": DOC}
    r = httpx.get(f"{url}/api/context/query", params={"q": f"@{WS} neigh=App.run"}, timeout=60)
    assert r.status_code == 200 and r.json()["neighborhood"]["center"]["doc"] == DOC
    r = httpx.get(f"{url}/api/context/explain", params={"workspace": WS, "id": "App.run"}, timeout=60)
    assert r.status_code == 200 and r.json()["entity"]["doc"] == DOC
