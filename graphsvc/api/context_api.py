"""GraphQL fields and REST routes for the event log, the turn index and episodes.

Thin wrappers over `graphsvc.context.store.get_store()`. The app merges `ContextQuery` /
`ContextMutation` into its schema and includes `router`. REST errors are JSON
(``{"code": …, "error": …}``) with a 4xx status for bad input and unknown ids, even when this
router is mounted on an app without graphsvc's exception handlers.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import strawberry
from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel, Field
from strawberry.scalars import JSON

from graphsvc.api.app import error_body
from graphsvc.api.types import from_gql, gql_input, rest_model, shape, to_gql, to_rest
from graphsvc.context.episodes import ContextPack as PackData
from graphsvc.context.episodes import Episode as EpisodeData
from graphsvc.context.events import Event as EventData
from graphsvc.context.events import PruneReport as PruneData
from graphsvc.context.store import get_store as _store
from graphsvc.context.turns import Evidence, Message
from graphsvc.context.turns import Resolution as ResolutionData
from graphsvc.context.turns import StickyBinding as StickyData
from graphsvc.context.turns import Turn as TurnData
from graphsvc.errors import GraphsvcError

# --- types: generated from the library's dataclasses ---------------------------------------

Event = shape(
    EventData,
    description="One entry of the append-only event log (provenance RUNTIME).",
    rest_name="EventOut",
    fields=("id", "seq", "time", "type", "turn_id", "workspace", "prov", "payload"),
    docs={"seq": "Commit order in this store", "time": "ISO 8601, UTC, microseconds", "prov": "Always RUNTIME"},
)
StickyBinding = shape(
    StickyData, description="A turn family bound to a route; its later messages stay there.", rest_name="StickyOut"
)


@strawberry.field(description="The value of one key, or null.")
def _key(self, name: str) -> str | None:
    return next((k.value for k in self.keys if k.key == name), None)


@strawberry.field(description="Ids of the entities this turn touched.")
def _touched(self) -> list[str]:
    return _store().turns.working_set(self.id)


@strawberry.field(description="The sticky route of this turn's family, if bound.")
def _sticky(self) -> StickyBinding | None:
    return to_gql(_store().turns.sticky(self.family_id))


Turn = shape(
    TurnData,
    description="A turn of the turn index.",
    rest_name="TurnOut",
    pairs={"keys": ("TurnKey", "key", "value", "A key recorded for a turn (clone_path, goal, plan, file-tree, …).")},
    resolvers={"key": _key, "touched": _touched, "sticky": _sticky},
)
shape(Evidence, "ResolutionEvidence", description="A working-set term named in the message, and the family it points to.")
TurnResolution = shape(
    ResolutionData, "TurnResolution", description="Which turn family a message belongs to, the sticky route, and why."
)
Episode = shape(EpisodeData, description="A short summary of a session.", rest_name="EpisodeOut")
ContextPack = shape(
    PackData, description="What a local model receives: the latest user turn plus recent episodes, bounded."
)
PruneReport = shape(
    PruneData,
    description="What retention removed (or, in a dry run, would remove).",
    rest_name="PruneOut",
    docs={"cutoff": "Events before this time were (or would be) removed"},
    pairs={"by_type": ("TypeCount", "type", "count")},
)


# --- GraphQL ------------------------------------------------------------------------------


MessageInput = gql_input(Message, "MessageInput", "An incoming message to place in a turn family.")


@strawberry.input(description="A key to record for a turn.")
class TurnKeyInput:
    key: str
    value: str


@strawberry.type
class ContextQuery:
    @strawberry.field(description="Events, newest first, optionally filtered.")
    def events(self, limit: int = 50, type: str | None = None, turn_id: str | None = None,
               workspace: str | None = None, since: str | None = None) -> list[Event]:
        found = _store().events.recent(limit, type=type, turn_id=turn_id, workspace=workspace, since=since)
        return to_gql(found)

    @strawberry.field(description="Turns, newest first.")
    def turns(self, limit: int = 50, workspace: str | None = None, family_id: str | None = None,
              session_id: str | None = None) -> list[Turn]:
        found = _store().turns.list(limit, workspace=workspace, family_id=family_id, session_id=session_id)
        return to_gql(found)

    @strawberry.field(description="One turn, or null when unknown.")
    def turn(self, id: str) -> Turn | None:
        return to_gql(_store().turns.get(id))

    @strawberry.field(description="Which turn family a message belongs to (recordRoute also records it).")
    def resolve_turn(self, message: MessageInput) -> TurnResolution:
        return to_gql(_store().turns.resolve(from_gql(Message, message), record=False))

    @strawberry.field(description="Episodes, newest first.")
    def episodes(self, limit: int = 20, session_id: str | None = None,
                 workspace: str | None = None) -> list[Episode]:
        return to_gql(_store().episodes.list(limit, session_id=session_id, workspace=workspace))

    @strawberry.field(description="The local context pack (transform.local_context / local_episode_count).")
    def context_pack(self, user_turn: str | None = None, session_id: str | None = None,
                     workspace: str | None = None) -> ContextPack:
        return to_gql(_store().episodes.context_pack(user_turn, session_id=session_id, workspace=workspace))


@strawberry.type
class ContextMutation:
    @strawberry.mutation(description="Append an event to the log (payload: a JSON object).")
    def record_event(self, type: str, payload: JSON | None = None, turn_id: str | None = None,
                     workspace: str | None = None) -> Event:
        return to_gql(_store().events.append(type, turn_id, workspace, payload))

    @strawberry.mutation(description="Open a turn (records TurnOpened); with a parent it joins the parent's family.")
    def open_turn(self, workspace: str, id: str | None = None, parent_id: str | None = None,
                  family_id: str | None = None, session_id: str | None = None,
                  keys: list[TurnKeyInput] | None = None) -> Turn:
        turn = _store().turns.open_turn(
            workspace, id, family_id=family_id, parent_id=parent_id, session_id=session_id,
            keys={k.key: k.value for k in keys or []},
        )
        return to_gql(turn)

    @strawberry.mutation(description="Resolve a message's turn family, as resolveTurn, and record a RouteDecided event.")
    def record_route(self, message: MessageInput) -> TurnResolution:
        return to_gql(_store().turns.resolve(from_gql(Message, message), record=True))

    @strawberry.mutation(description="Bind a turn family to a route (records StickyBound).")
    def bind_sticky(self, family_id: str, route: str) -> StickyBinding:
        return to_gql(_store().turns.bind_sticky(family_id, route))

    @strawberry.mutation(description="Add a short session summary.")
    def add_episode(self, session_id: str, summary: str, workspace: str | None = None,
                    turn_id: str | None = None) -> Episode:
        return to_gql(_store().episodes.add(session_id, summary, workspace=workspace, turn_id=turn_id))

    @strawberry.mutation(description="Delete events older than context.retain_days; report what went.")
    def prune(self, dry_run: bool = False) -> PruneReport:
        return to_gql(_store().events.prune(dry_run=dry_run))


# --- REST ---------------------------------------------------------------------------------


class _ErrorsAsJson(APIRoute):
    """Our errors become ``{"code", "error"}`` JSON with the app's status mapping."""

    def get_route_handler(self) -> Callable:
        handler = super().get_route_handler()

        async def route(request: Request) -> Response:
            try:
                return await handler(request)
            except GraphsvcError as exc:
                status, body = error_body(exc)
                return JSONResponse(body, status_code=status)

        return route


router = APIRouter(prefix="/api/context", tags=["context"], route_class=_ErrorsAsJson)


class ErrorOut(BaseModel):
    code: str
    error: str


_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorOut, "description": "Bad input; `error` names the field"},
    404: {"model": ErrorOut, "description": "Unknown id"},
}


StickyOut = rest_model(StickyData)


class TurnDetailOut(rest_model(TurnData)):
    touched: list[str] = Field(description="Entity ids this turn touched")
    sticky: StickyOut | None


Limit = Annotated[int, Query(ge=1, le=10_000)]


@router.get("/recent", response_model=list[rest_model(EventData)], responses=_ERRORS, summary="Recent events, newest first")
def recent(limit: Limit = 50, type: str | None = None, turn_id: str | None = None,
           workspace: str | None = None, since: Annotated[str | None, Query(description="ISO 8601")] = None
           ) -> list[dict]:
    found = _store().events.recent(limit, type=type, turn_id=turn_id, workspace=workspace, since=since)
    return to_rest(found)


@router.get("/turns", response_model=list[rest_model(TurnData)], responses=_ERRORS, summary="Turns, newest first")
def turns(limit: Limit = 50, workspace: str | None = None, family_id: str | None = None,
          session_id: str | None = None) -> list[dict]:
    found = _store().turns.list(limit, workspace=workspace, family_id=family_id, session_id=session_id)
    return to_rest(found)


@router.get("/turns/{turn_id:path}", response_model=TurnDetailOut, responses=_ERRORS,
            summary="One turn with what it touched and its family's sticky route")
def turn(turn_id: str) -> dict:
    store = _store()
    t = store.turns.require(turn_id)
    sticky = store.turns.sticky(t.family_id)
    return to_rest(t) | {"touched": store.turns.working_set(t.id), "sticky": to_rest(sticky)}


@router.get("/episodes", response_model=list[rest_model(EpisodeData)], responses=_ERRORS, summary="Episodes, newest first")
def episodes(limit: Annotated[int, Query(ge=1, le=1000)] = 20, session_id: str | None = None,
             workspace: str | None = None) -> list[dict]:
    return to_rest(_store().episodes.list(limit, session_id=session_id, workspace=workspace))


@router.get(
    "/export",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "The event log as JSON Lines, oldest first; `graphsvc events import` reads it",
            "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
        },
        **_ERRORS,
    },
    summary="Export the event log (JSONL, streamed)",
)
def export(since: Annotated[str | None, Query(description="ISO 8601")] = None) -> StreamingResponse:
    lines: Iterator[str] = _store().events.iter_jsonl(since)
    first = next(lines, None)  # opens the snapshot now, so a failure is still an error status
    body = itertools.chain([first], lines) if first is not None else iter(())
    return StreamingResponse(body, media_type="application/x-ndjson")


@router.post("/prune", response_model=rest_model(PruneData), responses=_ERRORS,
             summary="Delete events older than context.retain_days")
def prune(dry_run: bool = False) -> dict:
    return to_rest(_store().events.prune(dry_run=dry_run))
