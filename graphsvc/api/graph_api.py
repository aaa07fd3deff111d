"""The graph's GraphQL fields (`GraphQuery`, `GraphMutation`) and REST routes (`router`).

Every field is a thin call into `graphsvc.query.engine`, `graphsvc.query.communities` or
`graphsvc.indexing.jobs`, run on a worker thread so a slow query never blocks the event loop. The
GraphQL object types are generated from the engine's result dataclasses (`graphsvc.api.types`),
and each `Operation` makes its GraphQL field and its REST route from the library function's
signature, so the library, the CLI's JSON, REST and GraphQL describe one shape and one set of
arguments.
"""

from __future__ import annotations

import dataclasses
import inspect
import keyword
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Annotated, Any

import strawberry
from anyio import to_thread
from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, create_model
from strawberry.types import Info

from graphsvc.api.types import from_arguments, gql_arguments, gql_type, rest_input, shape
from graphsvc.errors import InputError
from graphsvc.indexing.jobs import Job, JobRegistry
from graphsvc.model import Label, Prov, Rel
from graphsvc.query import communities as communities_mod
from graphsvc.query import engine, results
from graphsvc.query import source as source_mod
from graphsvc.query.arguments import results_at_most
from graphsvc.query.parser import parse
from graphsvc.query.results import ContextResult
from graphsvc.query.verbs import VERBS, Verb

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


@strawberry.field(description="The entity's lines (a file's from its first), at most `maxLines`, read from the "
                  "workspace's directory; an error when the file changed since it was indexed or is gone. "
                  "Null for a directory, the workspace or an external entity.")
async def _entity_source(self, info: Info, max_lines: int = source_mod.DEFAULT_SOURCE_LINES) -> str | None:
    if self.label not in (Label.FILE, Label.SYMBOL) or Label.EXTERNAL in self.labels:
        return None
    entity = results.Entity(**{f.name: getattr(self, f.name) for f in dataclasses.fields(results.Entity)})
    return (await _run(info, source_mod.entity_source, entity, max_lines=max_lines)).source


shape(results.Entity, resolvers={"source": _entity_source})
GqlContextResult = gql_type(ContextResult)
GqlEntity = gql_type(results.Entity)
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


async def _context_query(source: Info | Request, query: str) -> ContextResult:
    return await _run(source, engine.context_query, parse(query))


# --- operations: one declaration each, a GraphQL field and a REST route -------------------


@dataclass(frozen=True)
class Operation:
    """A library function served as GraphQL field `name` and as `/api/context/<name>`, with the
    function's own arguments (the positional ones, ids or text, named as in `names`)."""

    fn: Callable
    name: str
    description: str
    names: dict[str, str] = field(default_factory=dict)
    path: str | None = None  # of the REST route, when not `name`

    @classmethod
    def of(cls, verb: Verb) -> Operation:
        return cls(verb.fn, verb.name, verb.description, verb.names, verb.kebab)

    @property
    def result(self) -> type:
        return typing.get_type_hints(self.fn)["return"]

    def parameters(self, query_string: bool = False) -> list[inspect.Parameter]:
        """The API's arguments; in a query string (`query_string`) filters are comma-separated."""
        hints = typing.get_type_hints(self.fn)
        out = []
        for p in _expanded(self.fn, hints):
            if p.name in SERVER_ARGUMENTS:
                continue
            if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD:
                out.append(_positional(self.names.get(p.name, p.name), query_string, p.default is None))
            elif p.name in FILTERS:
                item, doc = FILTERS[p.name]
                comma = Annotated[str | None, Query(description=f"comma-separated {doc}")]
                out.append(_keyword(p.name, comma if query_string else list[item] | None, None))
            elif p.name in CHOICES:
                choice = CHOICES[p.name]
                out.append(_keyword(p.name, choice | None if p.default is None else choice,
                                    None if p.default is None else choice(p.default)))
            else:
                out.append(_keyword(p.name, hints[p.name], p.default))
        return out

    def call_args(self, given: dict[str, Any]) -> dict[str, Any]:
        """`given` as the function takes it: its own names, filters and choices as strings."""
        own = {v: k for k, v in self.names.items()} | {v + "_": k for k, v in self.names.items()}
        args = {own.get(k, k): v for k, v in given.items()}
        for key in FILTERS:
            if key in args:
                args[key] = _names(args[key])
        for key in CHOICES:
            if isinstance(args.get(key), Enum):
                args[key] = args[key].value
        return args


# What the server decides, not the caller: its connection, Leiden's iterations, whether to store.
SERVER_ARGUMENTS = ("graph", "iterations", "write")
# The filters GraphQL and JSON bodies take as lists and a query string as one comma-separated string.
FILTERS: dict[str, tuple[Any, str]] = {
    "kinds": (str, "kinds: class, function, file, …"),
    "rels": (RelType, "relationship types"),
    "provs": (Provenance, "provenances: EXTRACTED, INFERRED, RUNTIME"),
    "files": (str, "file paths"),
    "paths": (str, "path globs"),
}
# Strings of the library that the API offers as enumerations.
CHOICES: dict[str, type[Enum]] = {"objective": Objective, "algorithm": LeidenAlgorithm}


def _expanded(fn: Callable, hints: dict[str, Any]) -> list[inspect.Parameter]:
    """The parameters of `fn`, a `**kwargs: Unpack[TypedDict]` as that dict's keys (default None),
    in the API's order: ids, the scope, the operation's own, `limit`. `hints` gains their types."""
    out = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind is not inspect.Parameter.VAR_KEYWORD:
            out.append(p)
            continue
        (declared,) = typing.get_args(hints[p.name])
        for name, hint in typing.get_type_hints(declared).items():
            hints[name] = hint
            out.append(_keyword(name, hint, None))
    return sorted(out, key=_api_order)


def _api_order(p: inspect.Parameter) -> int:
    if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD:
        return 0
    return {"workspace": 1, "turn_id": 1, "limit": 3}.get(p.name, 2)


def _positional(name: str, query_string: bool, optional: bool = False) -> inspect.Parameter:
    """A ref or text argument (`optional`: it may be left out); one named as a Python keyword
    (`from`) is `from_` in Python."""
    hint, default = (str | None, None) if optional else (str, inspect.Parameter.empty)
    if not keyword.iskeyword(name):
        return _keyword(name, hint, default)
    alias = Query(alias=name) if query_string else strawberry.argument(name=name)
    return _keyword(name + "_", Annotated[hint, alias], default)


def _keyword(name: str, hint: Any, default: Any = inspect.Parameter.empty) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=hint, default=default)


def _gql_field(op: Operation, mutation: bool = False) -> Any:
    async def resolve(info: Info, **given: Any) -> Any:
        return await _run(info, op.fn, **op.call_args(given))

    info = _keyword("info", Info)
    resolve.__signature__ = inspect.Signature([info, *op.parameters()], return_annotation=gql_type(op.result))
    return (strawberry.mutation if mutation else strawberry.field)(resolve, description=op.description)


SEARCH = Operation(engine.search, "search", "Full-text search; `OR` or `|` between keywords means either.", {"terms": "text"})
NEIGHBORHOOD = Operation(
    engine.neighborhood, "neighborhood", "Entities within `depth` (1-4) hops; `truncated` says when `limit` cut it.",
    {"ref": "id"},
)
PATHS = Operation(engine.paths, "paths", "Shortest path(s) between two entities, at most `maxHops` long.")
EXPLAIN = Operation(
    engine.explain, "explain", "Neighborhood summary, hubs by degree and PageRank, path to the nearest hub.",
    {"ref": "id"},
)
COMMUNITIES = Operation(
    communities_mod.communities, "communities",
    "The Leiden communities stored for a workspace (none, with a `hint`, until the computeCommunities "
    "mutation ran); for a turn, its subgraph partitioned now and not stored. The Leiden arguments "
    "apply to a turn only.",
)
COMPUTE_COMMUNITIES = Operation(
    communities_mod.compute_communities, "communities",
    "Compute Leiden communities of a workspace or a turn's subgraph and store them on the nodes "
    "(replacing the workspace's previous run, in one transaction) so the Neo4j Browser can colour them.",
)


# --- GraphQL -----------------------------------------------------------------------------


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

    communities = _gql_field(COMMUNITIES)

    @strawberry.field(description="Index jobs, newest first, or the one with `id`.")
    def jobs(self, info: Info, id: str | None = None) -> list[GqlJob]:
        registry = _jobs(info)
        if id is None:
            return registry.list()
        job = registry.get(id)
        if job is None:
            raise InputError(f"no job {id!r}")
        return [job]


# The verbs: one GraphQL field and one REST route each, declared in `graphsvc.query.verbs`.
VERB_OPERATIONS = tuple(Operation.of(verb) for verb in VERBS)
for _op in VERB_OPERATIONS:
    setattr(GraphQuery, re.sub(r"(?<!^)(?=[A-Z])", "_", _op.name).lower(), _gql_field(_op))
GraphQuery = strawberry.type(GraphQuery)


@dataclass
class IndexRequest:
    """A directory under the server's workspace roots to index; `replace`: into a workspace
    that holds another directory; `ignore_files: false`: index what its .gitignore and
    .graphsvcignore files exclude."""

    path: str
    workspace: str | None = None
    replace: bool = False
    ignore_files: bool = True


def _submit(source: Info | Request, command: str, request: IndexRequest) -> Job:
    return _jobs(source).submit(command, request.path, request.workspace, request.replace, request.ignore_files)


def _index_mutation(command: str) -> Any:
    async def resolve(info: Info, **given: Any) -> Any:
        return await _run(info, _submit, info, command, from_arguments(IndexRequest, given))

    resolve.__signature__ = inspect.Signature([_keyword("info", Info), *gql_arguments(IndexRequest)], return_annotation=GqlJob)
    description = (f"Start `{command}` on a directory under the server's workspace roots. "
                   "`replace`: index it into a workspace that holds another directory; "
                   "`ignoreFiles: false`: index what its .gitignore and .graphsvcignore files exclude.")
    return strawberry.mutation(resolve, description=description)


@strawberry.type
class GraphMutation:
    index_tree = _index_mutation("index-tree")
    index_symbols = _index_mutation("index-symbols")
    compute_communities = _gql_field(COMPUTE_COMMUNITIES, mutation=True)


# --- REST --------------------------------------------------------------------------------

router = APIRouter(prefix="/api/context", tags=["graph"])


IndexRequestIn = rest_input(IndexRequest, "IndexRequest")


# Plain functions: submitting reads the workspace's stored root from Neo4j (in the threadpool).
@router.post("/index-tree", status_code=202, response_model=Job, summary="Start an index-tree job")
def index_tree(body: IndexRequestIn, request: Request) -> Job:
    return _submit(request, "index-tree", from_arguments(IndexRequest, body))


@router.post("/index-symbols", status_code=202, response_model=Job, summary="Start an index-symbols job")
def index_symbols(body: IndexRequestIn, request: Request) -> Job:
    return _submit(request, "index-symbols", from_arguments(IndexRequest, body))


@router.get("/jobs", response_model=list[Job], summary="Index jobs, newest first")
async def list_jobs(request: Request) -> list[Job]:
    return _jobs(request).list()


@router.get("/jobs/{job_id}", response_model=Job, summary="One index job's progress")
async def get_job(job_id: str, request: Request) -> Job | JSONResponse:
    job = _jobs(request).get(job_id)
    if job is None:
        return JSONResponse({"error": f"no job {job_id!r}", "code": "NOT_FOUND"}, status_code=404)
    return job


def _get(op: Operation, summary: str) -> None:
    """`GET /api/context/<name>`: the arguments in the query string."""

    async def route(request: Request, **given: Any) -> Any:
        return await _run(request, op.fn, **op.call_args(given))

    params = [_keyword("request", Request), *op.parameters(query_string=True)]
    route.__signature__ = inspect.Signature(params, return_annotation=op.result)
    router.get(f"/{op.path or op.name}", response_model=op.result, summary=summary, name=f"get_{op.name}")(route)


def _post(op: Operation, summary: str, body: str, doc: str) -> None:
    """`POST /api/context/<name>`: the arguments as a JSON object (model `body`)."""
    fields = {p.name: (p.annotation, ... if p.default is inspect.Parameter.empty else p.default) for p in op.parameters()}
    model = create_model(body, __config__=ConfigDict(extra="forbid"), __doc__=doc, **fields)

    async def route(request: Request, arguments: BaseModel) -> Any:
        return await _run(request, op.fn, **op.call_args(dict(arguments)))

    params = [_keyword("request", Request), _keyword("arguments", model)]
    route.__signature__ = inspect.Signature(params, return_annotation=op.result)
    router.post(f"/{op.name}", response_model=op.result, summary=summary, name=f"post_{op.name}")(route)


_get(SEARCH, "Full-text search")
_get(NEIGHBORHOOD, "Entities within `depth` hops of an entity")
_get(PATHS, "Shortest paths between two entities")
_get(EXPLAIN, "Explain an entity")
_get(COMMUNITIES, "Stored Leiden communities (a turn's: partitioned now, not stored)")
_post(
    COMPUTE_COMMUNITIES, "Compute Leiden communities and store them (replacing the workspace's previous run)",
    "CommunitiesRequest", "The arguments of a Leiden run, as the computeCommunities mutation takes them.",
)


for _op in VERB_OPERATIONS:
    _get(_op, _op.description.split(". ")[0].rstrip("."))
# A diff is too long for a query string: impact and changes also take their arguments as a JSON body.
for _name, _summary in (("impact", "The blast radius of a change (a diff in the body)"),
                        ("changes", "What a change touches and what depends on it (a diff in the body)")):
    _post(next(op for op in VERB_OPERATIONS if op.name == _name), _summary, f"{_name.title()}Request",
          f"The arguments of {_name}, as the GraphQL field takes them.")


@router.get("/query", summary="Run a context_query string")
async def get_query(request: Request, q: Annotated[str, Query(description="the context_query string")]) -> dict[str, Any]:
    return (await _context_query(request, q)).to_dict()
