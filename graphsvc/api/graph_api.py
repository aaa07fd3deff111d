"""The graph's GraphQL fields (`GraphQuery`, `GraphMutation`) and REST routes (`router`).

Every field is a thin call into `graphsvc.query.engine`, `graphsvc.query.communities` or
`graphsvc.indexing.jobs`, run on a worker thread so a slow query never blocks the event loop. The
GraphQL object types are generated from the engine's result dataclasses, so the library,
the CLI's JSON, REST and GraphQL describe one shape.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Annotated, Any

import strawberry
from anyio import to_thread
from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict
from strawberry.types import Info

from graphsvc.api.types import gql_type
from graphsvc.errors import InputError
from graphsvc.indexing.jobs import Job, JobRegistry
from graphsvc.model import Prov, Rel
from graphsvc.query import communities as communities_mod
from graphsvc.query import engine, results
from graphsvc.query.arguments import results_at_most
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


GqlContextResult = gql_type(ContextResult)
GqlEntity = gql_type(results.Entity)
GqlCommunitiesResult = gql_type(results.CommunitiesResult)
GqlJob = gql_type(Job)


def _request(source: Info | Request) -> Request:
    return source.context["request"] if isinstance(source, Info) else source


def _jobs(source: Info | Request) -> JobRegistry:
    return _request(source).app.state.jobs


def _names(values: list[Enum | str] | str | None) -> list[str] | None:
    """A filter as the engine takes it: GraphQL enum values or REST's comma-separated string."""
    if not values:
        return None
    if isinstance(values, str):
        return [v.strip() for v in values.split(",") if v.strip()]
    return [v.value if isinstance(v, Enum) else v for v in values]


async def _run(source: Info | Request, fn, /, *args, **kwargs):
    """`fn` on a worker thread, answering with at most this server's `server.max_results`
    (its settings may differ from the process's)."""
    most = _request(source).app.state.settings.server.max_results

    def call():
        with results_at_most(most):
            return fn(*args, **kwargs)

    return await to_thread.run_sync(call)


async def _call(source: Info | Request, fn, /, *args, **kwargs):
    """`fn` on a worker thread, filters (`kinds`, `rels`, `provs`) given as names."""
    for key in ("kinds", "rels", "provs"):
        if key in kwargs:
            kwargs[key] = _names(kwargs[key])
    return await _run(source, fn, *args, **kwargs)


async def _context_query(source: Info | Request, query: str) -> ContextResult:
    return await _run(source, engine.context_query, parse(query))


async def _communities(
    source: Info | Request, objective: Objective | None, algorithm: LeidenAlgorithm | None, **kwargs
):
    """Read: a workspace's stored partition, or a turn's subgraph partitioned and not stored."""
    return await _call(
        source, communities_mod.communities,
        objective=objective and objective.value, algorithm=algorithm and algorithm.value, **kwargs,
    )


async def _compute_communities(source: Info | Request, objective: Objective, algorithm: LeidenAlgorithm, **kwargs):
    return await _call(
        source, communities_mod.compute_communities,
        objective=objective.value, algorithm=algorithm.value, **kwargs,
    )


# --- reads: one declaration each, a GraphQL field and a REST route ------------------------


@dataclass(frozen=True)
class Read:
    """An engine read served as GraphQL field `name` and as `GET /api/context/<name>`, with the
    engine function's own arguments (the positional ones, ids or text, named as in `names`)."""

    fn: Callable
    name: str
    description: str
    names: dict[str, str] = field(default_factory=dict)

    @property
    def result(self) -> type:
        return typing.get_type_hints(self.fn)["return"]

    def parameters(self, rest: bool) -> list[inspect.Parameter]:
        hints = typing.get_type_hints(self.fn)
        out = []
        for p in inspect.signature(self.fn).parameters.values():
            if p.name == "graph":  # the connection is the server's
                continue
            if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD:
                out.append(_keyword(self.names.get(p.name, p.name), str))
            elif p.name in FILTERS:
                item, doc = FILTERS[p.name]
                hint = Annotated[str | None, Query(description=f"comma-separated {doc}")] if rest else list[item] | None
                out.append(_keyword(p.name, hint, None))
            else:
                out.append(_keyword(p.name, hints[p.name], p.default))
        return out

    def engine_args(self, given: dict[str, Any]) -> dict[str, Any]:
        engine_names = {v: k for k, v in self.names.items()}
        return {engine_names.get(k, k): v for k, v in given.items()}


# The filters GraphQL takes as lists and REST as one comma-separated string.
FILTERS: dict[str, tuple[Any, str]] = {
    "kinds": (str, "kinds: class, function, file, …"),
    "rels": (RelType, "relationship types"),
    "provs": (Provenance, "provenances: EXTRACTED, INFERRED, RUNTIME"),
}


def _keyword(name: str, hint: Any, default: Any = inspect.Parameter.empty) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=hint, default=default)


def _gql_field(read: Read) -> Any:
    async def resolve(info: Info, **given: Any) -> Any:
        return await _call(info, read.fn, **read.engine_args(given))

    info = _keyword("info", Info)
    resolve.__signature__ = inspect.Signature([info, *read.parameters(rest=False)], return_annotation=gql_type(read.result))
    return strawberry.field(resolve, description=read.description)


SEARCH = Read(engine.search, "search", "Full-text search; `OR` or `|` between keywords means either.", {"terms": "text"})
NEIGHBORHOOD = Read(
    engine.neighborhood, "neighborhood", "Entities within `depth` (1-4) hops; `truncated` says when `limit` cut it.",
    {"ref": "id"},
)
PATHS = Read(engine.paths, "paths", "Shortest path(s) between two entities, at most `maxHops` long.")
EXPLAIN = Read(
    engine.explain, "explain", "Neighborhood summary, hubs by degree and PageRank, path to the nearest hub.",
    {"ref": "id"},
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
    async def entity(self, info: Info, id: str, workspace: str | None = None, turn_id: str | None = None) -> GqlEntity:
        return await _run(info, engine.entity, id, workspace=workspace, turn_id=turn_id)

    search = _gql_field(SEARCH)
    neighborhood = _gql_field(NEIGHBORHOOD)
    paths = _gql_field(PATHS)
    explain = _gql_field(EXPLAIN)

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
        return await _run(info, _jobs(info).submit, "index-tree", path, workspace, replace)

    @strawberry.mutation(description="Start `index-symbols` on a directory under the server's workspace roots. "
                         "`replace`: index it into a workspace that holds another directory.")
    async def index_symbols(self, info: Info, path: str, workspace: str | None = None,
                            replace: bool = False) -> GqlJob:
        return await _run(info, _jobs(info).submit, "index-symbols", path, workspace, replace)

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


def _rest_route(read: Read, summary: str) -> None:
    async def route(request: Request, **given: Any) -> Any:
        return await _call(request, read.fn, **read.engine_args(given))

    request = _keyword("request", Request)
    route.__signature__ = inspect.Signature([request, *read.parameters(rest=True)], return_annotation=read.result)
    router.get(f"/{read.name}", response_model=read.result, summary=summary, name=f"get_{read.name}")(route)


_rest_route(SEARCH, "Full-text search")
_rest_route(NEIGHBORHOOD, "Entities within `depth` hops of an entity")
_rest_route(PATHS, "Shortest paths between two entities")
_rest_route(EXPLAIN, "Explain an entity")


@router.get("/query", summary="Run a context_query string")
async def get_query(request: Request, q: Annotated[str, Query(description="the context_query string")]) -> dict[str, Any]:
    return (await _context_query(request, q)).to_dict()
