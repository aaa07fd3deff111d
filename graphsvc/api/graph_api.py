"""The graph's GraphQL fields (`GraphQuery`, `GraphMutation`) and REST routes (`router`).

Every field is a thin call into `graphsvc.query.engine`, `graphsvc.query.communities` or
`graphsvc.indexing.jobs`, run on a worker thread so a slow query never blocks the event loop. The
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
from pydantic import BaseModel, ConfigDict
from strawberry.scalars import JSON
from strawberry.types import Info

from graphsvc.errors import InputError
from graphsvc.indexing.jobs import Job, JobRegistry
from graphsvc.model import Prov, Rel
from graphsvc.query import communities as communities_mod
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


def _request(source: Info | Request) -> Request:
    return source.context["request"] if isinstance(source, Info) else source


def _jobs(source: Info | Request) -> JobRegistry:
    return _request(source).app.state.jobs


def _cap(source: Info | Request, limit: int | None, operation: str) -> int | None:
    """The result-size limit of this server (its settings may differ from the process's)."""
    most = _request(source).app.state.settings.server.max_results
    if limit is None:
        return min(engine.DEFAULT_LIMITS[operation], most)
    return limit if limit < 1 else min(limit, most)


def _names(values: list[Enum] | str | None) -> list[str] | None:
    """A filter as the engine takes it: GraphQL enum values or REST's comma-separated string."""
    if not values:
        return None
    if isinstance(values, str):
        return [v.strip() for v in values.split(",") if v.strip()]
    return [v.value for v in values]


async def _run(fn, *args, **kwargs):
    return await to_thread.run_sync(lambda: fn(*args, **kwargs))


async def _call(source: Info | Request, operation: str, fn, *args, limit: int | None, **kwargs):
    """`fn` on a worker thread: `limit` capped for this server, `rels`/`provs` given as names."""
    for key in ("rels", "provs"):
        if key in kwargs:
            kwargs[key] = _names(kwargs[key])
    return await _run(fn, *args, limit=_cap(source, limit, operation), **kwargs)


async def _context_query(source: Info | Request, query: str) -> ContextResult:
    parsed = parse(query)
    op = parsed.operation if parsed.operation in engine.DEFAULT_LIMITS else "search"
    parsed.limit = _cap(source, parsed.limit, op)
    return await _run(engine.context_query, parsed)


async def _communities(
    source: Info | Request, objective: Objective | None, algorithm: LeidenAlgorithm | None, **kwargs
):
    """Read: a workspace's stored partition, or a turn's subgraph partitioned and not stored."""
    return await _call(
        source, "communities", communities_mod.communities,
        objective=objective and objective.value, algorithm=algorithm and algorithm.value, **kwargs,
    )


async def _compute_communities(source: Info | Request, objective: Objective, algorithm: LeidenAlgorithm, **kwargs):
    return await _call(
        source, "communities", communities_mod.compute_communities,
        objective=objective.value, algorithm=algorithm.value, **kwargs,
    )


# --- GraphQL -----------------------------------------------------------------------------


@strawberry.type
class GraphQuery:
    @strawberry.field(
        description="Run a context_query string: `<turn id>|@<workspace> [clauses] [keywords]` "
        "(see the README for the grammar)."
    )
    async def context_query(self, info: Info, query: str) -> GqlContextResult:
        return await _context_query(info, query)

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
        return await _call(
            info, "search", engine.search, text,
            workspace=workspace, turn_id=turn_id, kinds=kinds, provs=provs, limit=limit,
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
        return await _call(
            info, "neigh", engine.neighborhood, id, workspace=workspace, turn_id=turn_id, depth=depth,
            rels=rels, provs=provs, min_confidence=min_confidence, limit=limit,
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
        return await _call(
            info, "path", engine.paths, source, target, workspace=workspace, turn_id=turn_id,
            max_hops=max_hops, directed=directed, rels=rels, provs=provs, min_confidence=min_confidence,
            limit=limit,
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
        return await _call(
            info, "explain", engine.explain, id, workspace=workspace, turn_id=turn_id, depth=depth,
            rels=rels, provs=provs, min_confidence=min_confidence, limit=limit,
        )

    @strawberry.field(
        description="The Leiden communities stored for a workspace (none, with a `hint`, until the "
        "computeCommunities mutation ran); for a turn, its subgraph partitioned now and not stored. "
        "The Leiden arguments apply to a turn only."
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
        objective: Objective | None = None,
        algorithm: LeidenAlgorithm | None = None,
        min_size: int | None = None,
        limit: int | None = 20,
    ) -> GqlCommunitiesResult:
        return await _communities(
            info, objective=objective, algorithm=algorithm, workspace=workspace, turn_id=turn_id,
            rels=rels, min_confidence=min_confidence, resolution=resolution, seed=seed, min_size=min_size,
            limit=limit,
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
    @strawberry.mutation(description="Start `index-tree` on a directory under the server's workspace roots. "
                         "`replace`: index it into a workspace that holds another directory.")
    async def index_tree(self, info: Info, path: str, workspace: str | None = None, replace: bool = False) -> GqlJob:
        return await _run(_jobs(info).submit, "index-tree", path, workspace, replace)

    @strawberry.mutation(description="Start `index-symbols` on a directory under the server's workspace roots. "
                         "`replace`: index it into a workspace that holds another directory.")
    async def index_symbols(self, info: Info, path: str, workspace: str | None = None,
                            replace: bool = False) -> GqlJob:
        return await _run(_jobs(info).submit, "index-symbols", path, workspace, replace)

    @strawberry.mutation(
        description="Compute Leiden communities of a workspace or a turn's subgraph and store them on the "
        "nodes (replacing the workspace's previous run, in one transaction) so the Neo4j Browser can "
        "colour them."
    )
    async def compute_communities(
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
        return await _compute_communities(
            info, objective=objective, algorithm=algorithm, workspace=workspace, turn_id=turn_id,
            rels=rels, min_confidence=min_confidence, resolution=resolution, seed=seed, min_size=min_size,
            limit=limit,
        )


# --- REST --------------------------------------------------------------------------------

router = APIRouter(prefix="/api/context", tags=["graph"])


class IndexRequest(BaseModel):
    path: str
    workspace: str | None = None
    replace: bool = False  # index into a workspace that holds another directory


# Plain functions: submitting reads the workspace's stored root from Neo4j (in the threadpool).
@router.post("/index-tree", status_code=202, response_model=Job, summary="Start an index-tree job")
def index_tree(body: IndexRequest, request: Request) -> Job:
    return _jobs(request).submit("index-tree", body.path, body.workspace, body.replace)


@router.post("/index-symbols", status_code=202, response_model=Job, summary="Start an index-symbols job")
def index_symbols(body: IndexRequest, request: Request) -> Job:
    return _jobs(request).submit("index-symbols", body.path, body.workspace, body.replace)


@router.get("/jobs", response_model=list[Job], summary="Index jobs, newest first")
async def list_jobs(request: Request) -> list[Job]:
    return _jobs(request).list()


@router.get("/jobs/{job_id}", response_model=Job, summary="One index job's progress")
async def get_job(job_id: str, request: Request) -> Job | JSONResponse:
    job = _jobs(request).get(job_id)
    if job is None:
        return JSONResponse({"error": f"no job {job_id!r}", "code": "NOT_FOUND"}, status_code=404)
    return job


@router.get(
    "/communities",
    response_model=results.CommunitiesResult,
    summary="Stored Leiden communities (a turn's: partitioned now, not stored)",
)
async def get_communities(
    request: Request,
    turn_id: str | None = None,
    workspace: str | None = None,
    rels: Annotated[str | None, Query(description="comma-separated relationship types (a turn only)")] = None,
    min_confidence: float | None = None,
    resolution: float | None = None,
    seed: int | None = None,
    objective: Objective | None = None,
    algorithm: LeidenAlgorithm | None = None,
    min_size: int | None = None,
    limit: int = 20,
) -> results.CommunitiesResult:
    return await _communities(
        request, objective=objective, algorithm=algorithm, workspace=workspace, turn_id=turn_id, rels=rels,
        min_confidence=min_confidence, resolution=resolution, seed=seed, min_size=min_size, limit=limit,
    )


class CommunitiesRequest(BaseModel):
    """The arguments of a Leiden run, as the computeCommunities mutation takes them."""

    model_config = ConfigDict(extra="forbid")

    workspace: str | None = None
    turn_id: str | None = None
    rels: list[Rel] | None = None
    min_confidence: float | None = None
    resolution: float | None = None
    seed: int | None = None
    objective: Objective = Objective.MODULARITY
    algorithm: LeidenAlgorithm = LeidenAlgorithm.IGRAPH
    min_size: int = 3
    limit: int | None = 20


@router.post(
    "/communities",
    response_model=results.CommunitiesResult,
    summary="Compute Leiden communities and store them (replacing the workspace's previous run)",
)
async def post_communities(body: CommunitiesRequest, request: Request) -> results.CommunitiesResult:
    return await _compute_communities(request, **body.model_dump())


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
    return await _call(
        request, "explain", engine.explain, id,
        workspace=workspace, turn_id=turn_id, depth=depth, rels=rels, limit=limit,
    )


@router.get("/query", summary="Run a context_query string")
async def get_query(request: Request, q: Annotated[str, Query(description="the context_query string")]) -> dict[str, Any]:
    return (await _context_query(request, q)).to_dict()
