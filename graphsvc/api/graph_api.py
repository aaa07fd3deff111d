"""The graph's GraphQL fields (`GraphQuery`, `GraphMutation`) and REST routes (`router`).

Every field is a thin call into `graphsvc.query.engine`, `graphsvc.communities` or
`graphsvc.jobs`, run on a worker thread so a slow query never blocks the event loop. The
GraphQL object types are generated from the engine's result dataclasses, so the library,
the CLI's JSON, REST and GraphQL describe one shape.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from enum import Enum
from typing import Annotated, Any

import strawberry
from anyio import to_thread
from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from strawberry.scalars import JSON
from strawberry.types import Info

from graphsvc import communities as communities_mod
from graphsvc.errors import InputError
from graphsvc.jobs import Job, JobRegistry
from graphsvc.model import Prov, Rel
from graphsvc.query import engine, results
from graphsvc.query.parser import parse
from graphsvc.query.results import ContextResult

RelType = strawberry.enum(Rel, name="RelType", description="Relationship types of the graph model.")
Provenance = strawberry.enum(Prov, name="Provenance", description="How a fact is known.")


@strawberry.enum(description="What Leiden optimises.")
class Objective(Enum):
    MODULARITY = "modularity"
    CPM = "cpm"


@strawberry.enum(description="Which Leiden implementation runs: igraph's built-in one (fast) or leidenalg's.")
class LeidenAlgorithm(Enum):
    IGRAPH = "igraph"
    LEIDENALG = "leidenalg"


# --- GraphQL types generated from the result dataclasses -----------------------------------

_GQL: dict[type, type] = {}


def _gql_type(cls: type) -> type:
    if cls in _GQL:
        return _GQL[cls]
    hints = typing.get_type_hints(cls)
    annotations = {f.name: _gql_hint(hints[f.name]) for f in dataclasses.fields(cls)}
    doc = (cls.__doc__ or "").strip()
    if doc.startswith(cls.__name__ + "("):  # the signature dataclasses writes when there is no docstring
        doc = ""
    new = type(cls.__name__, (), {"__annotations__": annotations, "__doc__": doc})
    _GQL[cls] = strawberry.type(new, description=doc or None)
    return _GQL[cls]


def _gql_hint(hint: Any) -> Any:
    origin = typing.get_origin(hint)
    if dataclasses.is_dataclass(hint):
        return _gql_type(hint)
    if origin is list:
        return list[_gql_hint(typing.get_args(hint)[0])]
    if origin is dict:
        return JSON
    if origin in (types.UnionType, typing.Union):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return _gql_hint(args[0]) | None
    return hint


GqlContextResult = _gql_type(ContextResult)
GqlEntity = _gql_type(results.Entity)
GqlSearchResult = _gql_type(results.SearchResult)
GqlNeighborhood = _gql_type(results.Neighborhood)
GqlPathsResult = _gql_type(results.PathsResult)
GqlExplanation = _gql_type(results.Explanation)
GqlCommunitiesResult = _gql_type(results.CommunitiesResult)
GqlJob = _gql_type(Job)


def _names(values: list[Enum] | None) -> list[str] | None:
    return [v.value for v in values] if values else None


def _jobs(info_or_request: Info | Request) -> JobRegistry:
    request = info_or_request.context["request"] if isinstance(info_or_request, Info) else info_or_request
    return request.app.state.jobs


def _cap(source: Info | Request, limit: int | None, operation: str) -> int | None:
    """The result-size limit of this server (its settings may differ from the process's)."""
    request = source.context["request"] if isinstance(source, Info) else source
    most = request.app.state.settings.server.max_results
    if limit is None:
        return min(engine.DEFAULT_LIMITS[operation], most)
    return limit if limit < 1 else min(limit, most)


async def _run(fn, *args, **kwargs):
    return await to_thread.run_sync(lambda: fn(*args, **kwargs))


# --- GraphQL -----------------------------------------------------------------------------


@strawberry.type
class GraphQuery:
    @strawberry.field(
        description="Run a context_query string: `<turn id>|@<workspace> [clauses] [keywords]` "
        "(see the README for the grammar)."
    )
    async def context_query(self, info: Info, query: str) -> GqlContextResult:
        parsed = parse(query)
        op = parsed.operation if parsed.operation in engine.DEFAULT_LIMITS else "search"
        parsed.limit = _cap(info, parsed.limit, op)
        return await _run(engine.context_query, parsed)

    @strawberry.field(description="Resolve an exact id, a qualified name, a name or an unambiguous id suffix.")
    async def entity(self, id: str, workspace: str | None = None, turn_id: str | None = None) -> GqlEntity:
        return await _run(engine.entity, id, workspace=workspace, turn_id=turn_id)

    @strawberry.field(description="Full-text search; `OR` or `|` between keywords means either.")
    async def search(
        self,
        info: Info,
        text: str,
        workspace: str | None = None,
        turn_id: str | None = None,
        kinds: list[str] | None = None,
        provs: list[Provenance] | None = None,
        limit: int | None = None,
    ) -> GqlSearchResult:
        return await _run(
            engine.search,
            text,
            workspace=workspace,
            turn_id=turn_id,
            kinds=kinds,
            provs=_names(provs),
            limit=_cap(info, limit, "search"),
        )

    @strawberry.field(description="Entities within `depth` (1-4) hops; `truncated` says when `limit` cut it.")
    async def neighborhood(
        self,
        info: Info,
        id: str,
        workspace: str | None = None,
        turn_id: str | None = None,
        depth: int = 1,
        rels: list[RelType] | None = None,
        provs: list[Provenance] | None = None,
        min_confidence: float | None = None,
        limit: int | None = None,
    ) -> GqlNeighborhood:
        return await _run(
            engine.neighborhood,
            id,
            workspace=workspace,
            turn_id=turn_id,
            depth=depth,
            rels=_names(rels),
            provs=_names(provs),
            min_confidence=min_confidence,
            limit=_cap(info, limit, "neigh"),
        )

    @strawberry.field(description="Shortest path(s) between two entities, at most `maxHops` long.")
    async def paths(
        self,
        info: Info,
        source: str,
        target: str,
        workspace: str | None = None,
        turn_id: str | None = None,
        max_hops: int = 6,
        directed: bool = False,
        rels: list[RelType] | None = None,
        provs: list[Provenance] | None = None,
        min_confidence: float | None = None,
        limit: int | None = None,
    ) -> GqlPathsResult:
        return await _run(
            engine.paths,
            source,
            target,
            workspace=workspace,
            turn_id=turn_id,
            max_hops=max_hops,
            directed=directed,
            rels=_names(rels),
            provs=_names(provs),
            min_confidence=min_confidence,
            limit=_cap(info, limit, "path"),
        )

    @strawberry.field(description="Neighborhood summary, hubs by degree and PageRank, path to the nearest hub.")
    async def explain(
        self,
        info: Info,
        id: str,
        workspace: str | None = None,
        turn_id: str | None = None,
        depth: int = 2,
        rels: list[RelType] | None = None,
        provs: list[Provenance] | None = None,
        min_confidence: float | None = None,
        limit: int | None = None,
    ) -> GqlExplanation:
        return await _run(
            engine.explain,
            id,
            workspace=workspace,
            turn_id=turn_id,
            depth=depth,
            rels=_names(rels),
            provs=_names(provs),
            min_confidence=min_confidence,
            limit=_cap(info, limit, "explain"),
        )

    @strawberry.field(
        description="Leiden communities of a workspace or a turn's subgraph; stored back on the nodes "
        "(replacing the previous run) so the Neo4j Browser can colour them."
    )
    async def communities(
        self,
        info: Info,
        workspace: str | None = None,
        turn_id: str | None = None,
        rels: list[RelType] | None = None,
        min_confidence: float | None = None,
        resolution: float | None = None,
        seed: int | None = None,
        objective: Objective = Objective.MODULARITY,
        algorithm: LeidenAlgorithm = LeidenAlgorithm.IGRAPH,
        min_size: int = 3,
        limit: int | None = 20,
    ) -> GqlCommunitiesResult:
        return await _run(
            communities_mod.communities,
            workspace=workspace,
            turn_id=turn_id,
            rels=_names(rels),
            min_confidence=min_confidence,
            resolution=resolution,
            seed=seed,
            objective=objective.value,
            algorithm=algorithm.value,
            min_size=min_size,
            limit=_cap(info, limit, "communities"),
        )

    @strawberry.field(description="Index jobs, newest first, or the one with `id`.")
    def jobs(self, info: Info, id: str | None = None) -> list[GqlJob]:
        registry = _jobs(info)
        if id is None:
            return registry.list()
        job = registry.get(id)
        if job is None:
            raise InputError(f"no job {id!r}")
        return [job]


@strawberry.type
class GraphMutation:
    @strawberry.mutation(description="Start `index-tree` on a directory under the server's workspace roots.")
    def index_tree(self, info: Info, path: str, workspace: str | None = None) -> GqlJob:
        return _jobs(info).submit("index-tree", path, workspace)

    @strawberry.mutation(description="Start `index-symbols` on a directory under the server's workspace roots.")
    def index_symbols(self, info: Info, path: str, workspace: str | None = None) -> GqlJob:
        return _jobs(info).submit("index-symbols", path, workspace)


# --- REST --------------------------------------------------------------------------------

router = APIRouter(prefix="/api/context", tags=["graph"])


class IndexRequest(BaseModel):
    path: str
    workspace: str | None = None


def _rels_param(rels: str | None) -> list[str] | None:
    return [r.strip() for r in rels.split(",") if r.strip()] if rels else None


@router.post("/index-tree", status_code=202, response_model=Job, summary="Start an index-tree job")
async def index_tree(body: IndexRequest, request: Request) -> Job:
    return _jobs(request).submit("index-tree", body.path, body.workspace)


@router.post("/index-symbols", status_code=202, response_model=Job, summary="Start an index-symbols job")
async def index_symbols(body: IndexRequest, request: Request) -> Job:
    return _jobs(request).submit("index-symbols", body.path, body.workspace)


@router.get("/jobs", response_model=list[Job], summary="Index jobs, newest first")
async def list_jobs(request: Request) -> list[Job]:
    return _jobs(request).list()


@router.get("/jobs/{job_id}", response_model=Job, summary="One index job's progress")
async def get_job(job_id: str, request: Request) -> Job | JSONResponse:
    job = _jobs(request).get(job_id)
    if job is None:
        return JSONResponse({"error": f"no job {job_id!r}", "code": "NOT_FOUND"}, status_code=404)
    return job


@router.get("/communities", response_model=results.CommunitiesResult, summary="Leiden communities")
async def get_communities(
    request: Request,
    turn_id: str | None = None,
    workspace: str | None = None,
    rels: Annotated[str | None, Query(description="comma-separated relationship types")] = None,
    resolution: float | None = None,
    seed: int | None = None,
    objective: Objective = Objective.MODULARITY,
    algorithm: LeidenAlgorithm = LeidenAlgorithm.IGRAPH,
    min_size: int = 3,
    limit: int = 20,
) -> results.CommunitiesResult:
    return await _run(
        communities_mod.communities,
        workspace=workspace,
        turn_id=turn_id,
        rels=_rels_param(rels),
        resolution=resolution,
        seed=seed,
        objective=objective.value,
        algorithm=algorithm.value,
        min_size=min_size,
        limit=_cap(request, limit, "communities"),
    )


@router.get("/explain", response_model=results.Explanation, summary="Explain an entity")
async def get_explain(
    request: Request,
    id: str,
    turn_id: str | None = None,
    workspace: str | None = None,
    depth: int = 2,
    rels: Annotated[str | None, Query(description="comma-separated relationship types")] = None,
    limit: int | None = None,
) -> results.Explanation:
    return await _run(
        engine.explain,
        id,
        workspace=workspace,
        turn_id=turn_id,
        depth=depth,
        rels=_rels_param(rels),
        limit=_cap(request, limit, "explain"),
    )


@router.get("/query", summary="Run a context_query string")
async def get_query(request: Request, q: Annotated[str, Query(description="the context_query string")]) -> dict[str, Any]:
    parsed = parse(q)
    op = parsed.operation if parsed.operation in engine.DEFAULT_LIMITS else "search"
    parsed.limit = _cap(request, parsed.limit, op)
    result = await _run(engine.context_query, parsed)
    return result.to_dict()
