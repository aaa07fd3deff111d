"""The FastAPI application: GraphQL at /graphql (GraphiQL on GET), REST under /api, MCP at /mcp, /healthz.

The graph's fields come from `graph_api`; the context store's and the content cache's
(`context_api`, `cache_api`) are merged in when those modules are present. Limits: bearer
token, body size, GraphQL depth, result sizes (clamped by the engine to
`server.max_results`) and the Neo4j transaction timeout (in the driver).
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import re
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import strawberry
from cross_web import HTTPException
from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from graphql import GraphQLError
from strawberry.extensions import (
    AddValidationRules,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    ParserCache,
    QueryDepthLimiter,
    SchemaExtension,
)
from strawberry.fastapi import GraphQLRouter
from strawberry.schema.schema import validate_document
from strawberry.types import ExecutionContext
from strawberry.tools import merge_types

from graphsvc.api.auth import WILDCARD_HOSTS, BadJson, BearerAuth, BodyLimit, SameOrigin, allowed_hosts, read_json
from graphsvc.context.db import health as store_health
from graphsvc.context.db import store_path
from graphsvc.context.store import get_store
from graphsvc.errors import (
    AmbiguousError, GraphsvcError, InputError, Neo4jUnavailable, NotFoundError, SourceChangedError, StoreCorrupt, StoreError,
)
from graphsvc.graph.driver import get_graph
from graphsvc.graph.runtime import TurnMirror
from graphsvc.indexing.jobs import JobRegistry
from graphsvc.indexing.watch import Watching, WatchBatch
from graphsvc.mcp.server import HttpEndpoint
from graphsvc.query.parser import QueryParseError
from graphsvc.settings import SCHEMA_DIR, Settings, get_settings

log = logging.getLogger("graphsvc.api")

# (module, Query class, Mutation class): merged when the module exists.
_PARTS = (
    ("graphsvc.api.graph_api", "GraphQuery", "GraphMutation"),
    ("graphsvc.api.context_api", "ContextQuery", "ContextMutation"),
    ("graphsvc.api.cache_api", "CacheQuery", "CacheMutation"),
    ("graphsvc.api.workspaces_api", "WorkspacesQuery", "WorkspacesMutation"),
)
# Depth alone does not bound work: one expensive field under many aliases runs once per alias.
MAX_ALIASES = 20
MAX_TOKENS = 20_000
# Distinct query texts whose parse and validation are remembered (clients repeat theirs).
DOCUMENT_CACHE = 256
# Only short documents are remembered: an entry holds the text and its syntax tree, many
# times the text's size, so long distinct documents would fill memory that is never returned.
CACHED_DOCUMENT_CHARS = 4_000
# Echoed input in error messages is cut to this many characters.
ECHO_CHARS = 200
STYLE_FILE = SCHEMA_DIR / "browser" / "graphsvc.grass"
GRAPHIQL_ASSETS = Path(__file__).parent / "static" / "vendor" / "graphiql"  # third-party files as published
# GraphiQL's page loads these from a CDN; we serve the same files (same integrity hashes).
_ASSET_FILES = {
    "react@18.2.0/umd/react.production.min.js": "react.production.min.js",
    "react-dom@18.2.0/umd/react-dom.production.min.js": "react-dom.production.min.js",
    "js-cookie@3.0.5/dist/js.cookie.min.js": "js.cookie.min.js",
    "graphiql@3.8.3/graphiql.min.css": "graphiql.min.css",
    "graphiql@3.8.3/graphiql.min.js": "graphiql.min.js",
    "@graphiql/plugin-explorer@1.0.2/dist/style.css": "plugin-explorer.css",
    "@graphiql/plugin-explorer@1.0.2/dist/index.umd.js": "plugin-explorer.umd.js",
}
_CDN_URL = re.compile(r'https://[^/"\s]+/([^"\s]+)')
# A store locked by another process stays locked for a while; clients wait this long.
STORE_RETRY_AFTER_S = 5
# Temporary conditions, answered with 503 and logged as one line each (no traceback).
OUTAGE_CODES = frozenset({"NEO4J_UNAVAILABLE", "STORE_BUSY", "STORE_CORRUPT"})


class LocalGraphiQL(GraphQLRouter):
    """GraphiQL from our own files, so it works on machines without internet access; documents
    up to `max_query_bytes`; JSON (a GET's `variables`) read by `read_json`."""

    @property
    def graphql_ide_html(self) -> str:
        def local(match: re.Match) -> str:
            name = _ASSET_FILES.get(match.group(1))
            return f"/graphiql/{name}" if name else match.group(0)

        return _CDN_URL.sub(local, super().graphql_ide_html)

    def __init__(self, schema: strawberry.Schema, *, max_query_bytes: int, **options):
        super().__init__(schema, **options)
        self.max_query_bytes = max_query_bytes

    async def parse_http_body(self, request):
        # Before parsing: a document is parsed and validated in full whatever it holds.
        data = await super().parse_http_body(request)
        for item in data if isinstance(data, list) else [data]:
            size = len(item.query.encode("utf-8", "replace")) if item.query else 0
            if size > self.max_query_bytes:
                raise HTTPException(
                    413, f"GraphQL document of {size} bytes is over the {self.max_query_bytes} byte limit "
                    "(server.max_query_bytes); pass large values as variables"
                )
        return data

    def decode_json(self, data: str | bytes) -> object:
        # Bodies were checked by `BodyLimit`; this also covers `variables` in a GET's query string.
        try:
            return read_json(data, where="variables")
        except BadJson as exc:
            raise HTTPException(400, str(exc)) from None


def _parts() -> Iterator[object]:
    for name, _, _ in _PARTS:
        try:
            yield name, importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise


def store_busy(exc: BaseException) -> bool:
    """A `StoreError` because another writer held the SQLite lock past the busy timeout."""
    if not isinstance(exc, StoreError):
        return False
    cause = exc.__cause__
    if isinstance(cause, sqlite3.OperationalError) and cause.sqlite_errorcode in (
        sqlite3.SQLITE_BUSY,
        sqlite3.SQLITE_LOCKED,
    ):
        return True
    # Some store errors carry SQLite's message but not the exception itself.
    message = str(exc)
    return "database is locked" in message or "database table is locked" in message or "database is busy" in message


def bounded(text: str, limit: int = ECHO_CHARS) -> str:
    """`text` cut to `limit` characters, saying how much was left out (error messages echo input)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"


def bounded_strings(value: object) -> object:
    """`value` with every string in it `bounded` (FastAPI's validation errors echo whole inputs)."""
    if isinstance(value, str):
        return bounded(value)
    if isinstance(value, dict):
        return {k: bounded_strings(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [bounded_strings(v) for v in value]
    if isinstance(value, (int, float, bool)) or value is None:
        return value
    return bounded(str(value))


def error_body(exc: BaseException) -> tuple[int, dict]:
    """HTTP status and a JSON-ready description of an error; never a traceback."""
    status, body = _error_body(exc)
    body["error"] = bounded(body["error"])
    return status, body


def _error_body(exc: BaseException) -> tuple[int, dict]:
    if isinstance(exc, QueryParseError):
        return 400, {"code": "BAD_QUERY", "error": str(exc), "position": exc.position, "expected": exc.expected}
    if isinstance(exc, AmbiguousError):
        return 409, {"code": "AMBIGUOUS", "error": str(exc), "candidates": exc.candidates}
    if isinstance(exc, NotFoundError):
        return 404, {"code": "NOT_FOUND", "error": str(exc)}
    if isinstance(exc, SourceChangedError):
        return 409, {"code": "SOURCE_CHANGED", "error": str(exc)}
    if isinstance(exc, InputError):
        return 400, {"code": "BAD_INPUT", "error": str(exc)}
    if isinstance(exc, Neo4jUnavailable):
        return 503, {"code": "NEO4J_UNAVAILABLE", "error": str(exc)}
    if isinstance(exc, StoreCorrupt):
        return 503, {"code": "STORE_CORRUPT", "error": str(exc)}
    if store_busy(exc):
        return 503, {
            "code": "STORE_BUSY",
            "error": f"{exc} (another process holds the context store's write lock; retry in a few seconds)",
            "retry_after_s": STORE_RETRY_AFTER_S,
        }
    if isinstance(exc, GraphsvcError):
        return 500, {"code": type(exc).__name__, "error": str(exc)}
    return 500, {"code": "INTERNAL", "error": "internal error; the server log has the details"}


class StructuredErrors(SchemaExtension):
    """Gives every GraphQL error a `code` (and position/candidates where they apply), and hides
    the message of unexpected exceptions."""

    def on_operation(self):
        yield
        result = self.execution_context.result
        if not getattr(result, "errors", None):
            return
        result.errors = [self._convert(e) for e in result.errors]

    @staticmethod
    def _convert(error: GraphQLError) -> GraphQLError:
        original = error.original_error
        if original is None or isinstance(original, GraphQLError):
            # graphql-core's own messages quote the offending value in full.
            error.message = bounded(error.message)
            return error
        _, body = error_body(original)
        if body["code"] == "INTERNAL":
            log.error("unexpected error in a GraphQL resolver", exc_info=original)
        message = body.pop("error")
        return GraphQLError(message, nodes=error.nodes, path=error.path, extensions=body)


def error_response(exc: BaseException) -> JSONResponse:
    """The REST answer for an error, with `Retry-After` on a temporary one."""
    status, body = error_body(exc)
    headers = {"Retry-After": str(body["retry_after_s"])} if "retry_after_s" in body else None
    return JSONResponse(body, status_code=status, headers=headers)


def log_outage(exc: BaseException) -> bool:
    """Log an expected outage (Neo4j down, store locked) as one line; False for anything else."""
    _, body = error_body(exc)
    if body["code"] not in OUTAGE_CODES:
        return False
    log.warning("%s: %s", body["code"], body["error"])
    return True


class _Schema(strawberry.Schema):
    def process_errors(self, errors, execution_context=None) -> None:
        # Bad input is the caller's business, not the server log's; an outage is one line.
        unexpected = [
            e for e in errors
            if e.original_error is not None  # syntax and validation errors: the caller's
            and not isinstance(e.original_error, InputError) and not log_outage(e.original_error)
        ]
        if unexpected:
            super().process_errors(unexpected, execution_context)


def _if_short(execution_context: ExecutionContext, cached):
    """The cache's hook for a short document; a longer one passes by (`CACHED_DOCUMENT_CHARS`)."""
    if len(execution_context.query or "") <= CACHED_DOCUMENT_CHARS:
        yield from cached()
    else:
        yield


class _ShortParserCache(ParserCache):
    """Remembers short documents only; longer ones are parsed each time."""

    def on_parse(self):
        yield from _if_short(self.execution_context, super().on_parse)


class _ShortValidationCache(SchemaExtension):
    """The validation errors of short documents, by their text and the rules in force, in an
    LRU of `DOCUMENT_CACHE` entries per schema. Strawberry's ValidationCache keys them by the
    parsed document, whose hash walks its whole tree on every request; the text stands for the
    document, since the parser cache gives the same document for the same text."""

    def __init__(self, cache: _Validated):
        self.cache = cache

    def on_validate(self):
        context = self.execution_context
        text = context.query or ""
        if len(text) > CACHED_DOCUMENT_CHARS or context.graphql_document is None:
            yield
            return
        key = (text, context.validation_rules)
        errors = self.cache.get(key)
        if errors is None:
            errors = validate_document(context.schema._schema, context.graphql_document, context.validation_rules)
            self.cache.put(key, errors)
        context.pre_execution_errors = errors
        yield


class _Validated:
    """A small LRU (`DOCUMENT_CACHE` entries), safe to share between threads."""

    def __init__(self) -> None:
        self._entries: OrderedDict[tuple, list[GraphQLError]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple) -> list[GraphQLError] | None:
        with self._lock:
            errors = self._entries.get(key)
            if errors is not None:
                self._entries.move_to_end(key)
            return errors

    def put(self, key: tuple, errors: list[GraphQLError]) -> None:
        with self._lock:
            self._entries[key] = errors
            if len(self._entries) > DOCUMENT_CACHE:
                self._entries.popitem(last=False)


def build_schema(settings: Settings | None = None) -> strawberry.Schema:
    settings = settings or get_settings()
    queries, mutations = [], []
    for name, module in _parts():
        _, q, m = next(p for p in _PARTS if p[0] == name)
        if hasattr(module, q):
            queries.append(getattr(module, q))
        if hasattr(module, m):
            mutations.append(getattr(module, m))
    # The limit rules are built once, so the validation cache (keyed by document and rules)
    # answers a repeated query text without walking it again; parsing is cached the same way.
    rules = [
        *QueryDepthLimiter(max_depth=settings.server.max_query_depth).validation_rules,
        *MaxAliasesLimiter(max_alias_count=MAX_ALIASES).validation_rules,
    ]
    validated = _Validated()
    return _Schema(
        query=merge_types("Query", tuple(queries)),
        mutation=merge_types("Mutation", tuple(mutations)) if mutations else None,
        extensions=[
            lambda: MaxTokensLimiter(max_token_count=MAX_TOKENS),
            lambda: AddValidationRules(rules),
            lambda: _ShortParserCache(maxsize=DOCUMENT_CACHE),
            lambda: _ShortValidationCache(validated),
            StructuredErrors,
        ],
    )


def schema_sdl() -> str:
    return build_schema().as_str() + "\n"


def _mirror_turns() -> None:
    """Mirror turns into Neo4j as they are opened, after catching up on what is pending.
    Best effort: the store works without the graph and `graphsvc turns mirror` catches up."""
    try:
        mirror = TurnMirror(get_graph())
        turns = get_store().turns
        turns.attach_mirror(mirror)
        turns.mirror(mirror)
    except GraphsvcError as exc:
        log.warning("turns are not mirrored into Neo4j for now: %s", exc)


async def _no_context() -> None:
    """The GraphQL context getter: a coroutine, so FastAPI calls it in place instead of handing
    it to its thread pool on every request (strawberry's default is a plain function)."""
    return None


def create_app(settings: Settings | None = None, watch: Sequence[tuple[str, str | None]] = (),
               on_batch: Callable[[WatchBatch], None] | None = None) -> FastAPI:
    """The application; `watch`: (path, workspace) pairs kept in step with their files while it
    runs, each run reported to `on_batch`."""
    settings = settings or get_settings()

    mcp = HttpEndpoint(max_results=settings.server.max_results)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        await asyncio.to_thread(_mirror_turns)
        watchers = [Watching(path, workspace, on_batch=on_batch,
                             on_error=lambda exc, path=path: log.error("watching %s stopped: %s", path, exc))
                    for path, workspace in watch]
        async with mcp.run():
            yield
        for watcher in watchers:
            watcher.stop.set()
        for watcher in watchers:
            await asyncio.to_thread(watcher.close)
        app.state.jobs.shutdown()

    app = FastAPI(
        title="graphsvc",
        summary="A code knowledge graph in Neo4j for coding agents: GraphQL at /graphql, REST under /api.",
        version="0.1.0",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.jobs = JobRegistry(settings)
    graphql = LocalGraphiQL(build_schema(settings), graphql_ide="graphiql", context_getter=_no_context,
                            max_query_bytes=settings.server.max_query_bytes)
    app.include_router(graphql, prefix="/graphql")
    app.mount("/graphiql", StaticFiles(directory=GRAPHIQL_ASSETS), name="graphiql-assets")
    # The MCP streamable HTTP endpoint, behind the same token and same-origin rules as the rest.
    app.add_route("/mcp", mcp.asgi, include_in_schema=False)
    for _, module in _parts():
        if hasattr(module, "router"):
            app.include_router(module.router)

    @app.exception_handler(GraphsvcError)
    async def graphsvc_error(request: Request, exc: GraphsvcError) -> JSONResponse:
        log_outage(exc)
        return error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": bounded_strings(jsonable_encoder(exc.errors()))}, status_code=422)

    @app.exception_handler(Exception)
    async def unexpected_error(request: Request, exc: Exception) -> JSONResponse:
        log.error("unexpected error on %s", request.url.path, exc_info=exc)
        return error_response(exc)

    @app.get("/healthz", tags=["service"], summary="Liveness, Neo4j reachability and the context store")
    async def healthz() -> JSONResponse:
        def ping() -> None:
            get_graph().ping()

        store_problem = await asyncio.to_thread(store_health, store_path(settings))
        store = {"ok": True} if store_problem is None else {"ok": False, "error": store_problem}
        neo4j: dict = {"reachable": True}
        try:
            await asyncio.wait_for(asyncio.to_thread(ping), timeout=10.0)
        except (GraphsvcError, TimeoutError) as exc:
            neo4j = {"reachable": False, "error": str(exc) or "no answer within 10 s"}
        healthy = neo4j["reachable"] and store["ok"]
        body = {"status": "ok" if healthy else "degraded", "neo4j": neo4j, "store": store}
        return JSONResponse(body, status_code=200 if healthy else 503)

    # The Neo4j Browser fetches the style from its own origin: CORS, including Chromium's
    # preflight for a request between loopback names (127.0.0.1 -> localhost).
    cors = {
        "Access-Control-Allow-Origin": "*",
        "Access-Control-Allow-Methods": "GET, OPTIONS",
        "Access-Control-Allow-Headers": "*",
        "Access-Control-Allow-Private-Network": "true",
    }

    @app.get("/browser/graphsvc.grass", tags=["service"], summary="The Neo4j Browser style (load with :style)")
    async def browser_style() -> Response:
        return Response(STYLE_FILE.read_text(), media_type="text/plain", headers=cors)

    @app.options("/browser/graphsvc.grass", include_in_schema=False)
    async def browser_style_preflight() -> Response:
        return Response(status_code=204, headers=cors)

    app.add_middleware(BodyLimit, max_bytes=settings.server.max_body_bytes)
    app.add_middleware(BearerAuth, token=settings.server.token)
    server = settings.server
    app.add_middleware(SameOrigin, hosts=allowed_hosts(server.host, server.allowed_hosts),
                       accept_ip_literals=server.host.strip("[]") in WILDCARD_HOSTS)
    return app
