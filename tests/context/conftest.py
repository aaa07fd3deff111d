"""Fixtures for the event log, turn index and episode tests: a real SQLite store per test."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import strawberry
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.testclient import TestClient
from strawberry.fastapi import GraphQLRouter

from graphsvc.api.app import StructuredErrors, error_body
from graphsvc.errors import GraphsvcError

from graphsvc.context.continuity import Continuity
from graphsvc.context.store import ContextStore
from graphsvc.settings import Settings


@pytest.fixture
def ctx_settings(tmp_path) -> Settings:
    s = Settings(home=tmp_path / "home")
    s.context.dir = tmp_path / "context"
    return s


@pytest.fixture
def store(ctx_settings) -> Iterator[ContextStore]:
    st = ContextStore(settings=ctx_settings)
    yield st
    st.close()


@pytest.fixture
def record(settings) -> Iterator[Continuity]:
    """A continuity record on the requesting module's own `settings` fixture."""
    r = Continuity(None, settings)
    yield r
    r.close()
    r.conn.close()


@pytest.fixture
def reopen(ctx_settings):
    """Close a store and open the same file again, as a restart would."""
    opened: list[ContextStore] = []

    def _reopen(old: ContextStore | None = None) -> ContextStore:
        if old is not None:
            old.close()
        st = ContextStore(settings=ctx_settings)
        opened.append(st)
        return st

    yield _reopen
    for st in opened:
        st.close()


@contextmanager
def api_client(query: type, mutation: type, router) -> Iterator[TestClient]:
    """A small FastAPI app serving one part of the API (GraphQL and REST) with the real
    server's error mapping (`StructuredErrors`, `error_body`)."""
    schema = strawberry.Schema(query=query, mutation=mutation, extensions=[StructuredErrors])
    app = FastAPI()
    app.include_router(GraphQLRouter(schema), prefix="/graphql")
    app.include_router(router)

    @app.exception_handler(GraphsvcError)
    async def graphsvc_error(request: Request, exc: GraphsvcError) -> JSONResponse:
        status, body = error_body(exc)
        return JSONResponse(body, status_code=status)

    with TestClient(app) as client:
        yield client


def gql(client: TestClient, query: str, **variables) -> dict:
    """A GraphQL request over the test client; the whole response body."""
    response = client.post("/graphql", json={"query": query, "variables": variables})
    assert response.status_code == 200, response.text
    return response.json()
