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

from graphsvc.context.episodes import ContextPack as PackData
from graphsvc.context.episodes import Episode as EpisodeData
from graphsvc.context.events import Event as EventData
from graphsvc.context.events import PruneReport as PruneData
from graphsvc.context.turns import Message
from graphsvc.context.turns import Resolution as ResolutionData
from graphsvc.context.turns import StickyBinding as StickyData
from graphsvc.context.turns import Turn as TurnData
from graphsvc.errors import GraphsvcError


def _store():
    from graphsvc.context.store import get_store

    return get_store()


# --- GraphQL ------------------------------------------------------------------------------


@strawberry.type(description="One entry of the append-only event log (provenance RUNTIME).")
class Event:
    id: str
    seq: int
    time: str
    type: str
    turn_id: str | None
    workspace: str | None
    prov: str
    payload: JSON

    @classmethod
    def of(cls, e: EventData) -> Event:
        return cls(id=e.id, seq=e.seq, time=e.time, type=e.type, turn_id=e.turn_id,
                   workspace=e.workspace, prov=e.prov, payload=e.payload)


@strawberry.type(description="A key recorded for a turn (clone_path, goal, plan, file-tree, …).")
class TurnKey:
    key: str
    value: str


@strawberry.type(description="A turn family bound to a route; its later messages stay there.")
class StickyBinding:
    family_id: str
    route: str
    bound_at: str
    event_id: str

    @classmethod
    def of(cls, s: StickyData) -> StickyBinding:
        d = s.to_dict()
        return cls(family_id=d["family_id"], route=d["route"], bound_at=d["bound_at"], event_id=d["event_id"])


@strawberry.type(description="A turn of the turn index.")
class Turn:
    id: str
    family_id: str
    parent_id: str | None
    workspace: str
    session_id: str | None
    opened_at: str
    keys: list[TurnKey]

    @strawberry.field(description="The value of one key, or null.")
    def key(self, name: str) -> str | None:
        return next((k.value for k in self.keys if k.key == name), None)

    @strawberry.field(description="Ids of the entities this turn touched.")
    def touched(self) -> list[str]:
        return _store().turns.working_set(self.id)

    @strawberry.field(description="The sticky route of this turn's family, if bound.")
    def sticky(self) -> StickyBinding | None:
        s = _store().turns.sticky(self.family_id)
        return StickyBinding.of(s) if s else None

    @classmethod
    def of(cls, t: TurnData) -> Turn:
        return cls(id=t.id, family_id=t.family_id, parent_id=t.parent_id, workspace=t.workspace,
                   session_id=t.session_id, opened_at=t.to_dict()["opened_at"],
                   keys=[TurnKey(key=k, value=v) for k, v in sorted(t.keys.items())])


@strawberry.type(description="A working-set term named in the message, and the family it points to.")
class ResolutionEvidence:
    term: str
    family_id: str
    weight: float


@strawberry.type(description="Which turn family a message belongs to, the sticky route, and why.")
class TurnResolution:
    family_id: str | None
    turn_id: str | None
    new_family: bool
    sticky: bool
    route: str | None
    confidence: float
    reason: str
    detail: str
    kind: str
    evidence: list[ResolutionEvidence]
    conflicts: list[str]
    event_id: str | None

    @classmethod
    def of(cls, r: ResolutionData) -> TurnResolution:
        d = r.to_dict()
        d["evidence"] = [ResolutionEvidence(**e) for e in d["evidence"]]
        return cls(**d)


@strawberry.type(description="A short summary of a session.")
class Episode:
    id: int
    session_id: str
    summary: str
    workspace: str | None
    turn_id: str | None
    created_at: str

    @classmethod
    def of(cls, e: EpisodeData) -> Episode:
        return cls(**e.to_dict())


@strawberry.type(description="What a local model receives: the latest user turn plus recent episodes, bounded.")
class ContextPack:
    user_turn: str
    episodes: list[Episode]
    text: str
    chars: int
    max_chars: int
    user_turn_truncated: bool
    episodes_left_out: int

    @classmethod
    def of(cls, p: PackData) -> ContextPack:
        d = p.to_dict()
        d["episodes"] = [Episode.of(e) for e in p.episodes]
        return cls(**d)


@strawberry.type
class TypeCount:
    type: str
    count: int


@strawberry.type(description="What retention removed (or, in a dry run, would remove).")
class PruneReport:
    cutoff: str
    removed: int
    by_type: list[TypeCount]
    remaining: int
    dry_run: bool
    seconds: float

    @classmethod
    def of(cls, r: PruneData) -> PruneReport:
        return cls(cutoff=r.cutoff, removed=r.removed, remaining=r.remaining, dry_run=r.dry_run,
                   seconds=r.seconds, by_type=[TypeCount(type=t, count=n) for t, n in r.by_type.items()])


@strawberry.input(description="An incoming message to place in a turn family.")
class MessageInput:
    text: str = ""
    session_id: str | None = None
    turn_id: str | None = None
    parent_id: str | None = None
    family_id: str | None = None
    metadata: JSON | None = None

    def to_message(self) -> Message:
        return Message(text=self.text, session_id=self.session_id, turn_id=self.turn_id,
                       parent_id=self.parent_id, family_id=self.family_id, metadata=self.metadata or {})


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
        return [Event.of(e) for e in found]

    @strawberry.field(description="Turns, newest first.")
    def turns(self, limit: int = 50, workspace: str | None = None, family_id: str | None = None,
              session_id: str | None = None) -> list[Turn]:
        found = _store().turns.list(limit, workspace=workspace, family_id=family_id, session_id=session_id)
        return [Turn.of(t) for t in found]

    @strawberry.field(description="One turn, or null when unknown.")
    def turn(self, id: str) -> Turn | None:
        t = _store().turns.get(id)
        return Turn.of(t) if t else None

    @strawberry.field(description="Which turn family a message belongs to (recordRoute also records it).")
    def resolve_turn(self, message: MessageInput) -> TurnResolution:
        return TurnResolution.of(_store().turns.resolve(message.to_message(), record=False))

    @strawberry.field(description="Episodes, newest first.")
    def episodes(self, limit: int = 20, session_id: str | None = None,
                 workspace: str | None = None) -> list[Episode]:
        return [Episode.of(e) for e in _store().episodes.list(limit, session_id=session_id, workspace=workspace)]

    @strawberry.field(description="The local context pack (transform.local_context / local_episode_count).")
    def context_pack(self, user_turn: str | None = None, session_id: str | None = None,
                     workspace: str | None = None) -> ContextPack:
        return ContextPack.of(_store().episodes.context_pack(user_turn, session_id=session_id, workspace=workspace))


@strawberry.type
class ContextMutation:
    @strawberry.mutation(description="Append an event to the log (payload: a JSON object).")
    def record_event(self, type: str, payload: JSON | None = None, turn_id: str | None = None,
                     workspace: str | None = None) -> Event:
        return Event.of(_store().events.append(type, turn_id, workspace, payload))

    @strawberry.mutation(description="Open a turn (records TurnOpened); with a parent it joins the parent's family.")
    def open_turn(self, workspace: str, id: str | None = None, parent_id: str | None = None,
                  family_id: str | None = None, session_id: str | None = None,
                  keys: list[TurnKeyInput] | None = None) -> Turn:
        turn = _store().turns.open_turn(
            workspace, id, family_id=family_id, parent_id=parent_id, session_id=session_id,
            keys={k.key: k.value for k in keys or []},
        )
        return Turn.of(turn)

    @strawberry.mutation(description="Resolve a message's turn family, as resolveTurn, and record a RouteDecided event.")
    def record_route(self, message: MessageInput) -> TurnResolution:
        return TurnResolution.of(_store().turns.resolve(message.to_message(), record=True))

    @strawberry.mutation(description="Bind a turn family to a route (records StickyBound).")
    def bind_sticky(self, family_id: str, route: str) -> StickyBinding:
        return StickyBinding.of(_store().turns.bind_sticky(family_id, route))

    @strawberry.mutation(description="Add a short session summary.")
    def add_episode(self, session_id: str, summary: str, workspace: str | None = None,
                    turn_id: str | None = None) -> Episode:
        return Episode.of(_store().episodes.add(session_id, summary, workspace=workspace, turn_id=turn_id))

    @strawberry.mutation(description="Delete events older than context.retain_days; report what went.")
    def prune(self, dry_run: bool = False) -> PruneReport:
        return PruneReport.of(_store().events.prune(dry_run=dry_run))


# --- REST ---------------------------------------------------------------------------------


class _ErrorsAsJson(APIRoute):
    """Our errors become ``{"code", "error"}`` JSON with the app's status mapping."""

    def get_route_handler(self) -> Callable:
        handler = super().get_route_handler()

        async def route(request: Request) -> Response:
            try:
                return await handler(request)
            except GraphsvcError as exc:
                from graphsvc.api.app import error_body

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


class EventOut(BaseModel):
    id: str
    seq: int = Field(description="Commit order in this store")
    time: str = Field(description="ISO 8601, UTC, microseconds")
    type: str
    turn_id: str | None
    workspace: str | None
    prov: str = Field(description="Always RUNTIME")
    payload: dict[str, Any]


class TurnOut(BaseModel):
    id: str
    family_id: str
    parent_id: str | None
    workspace: str
    session_id: str | None
    opened_at: str
    keys: dict[str, str]


class StickyOut(BaseModel):
    family_id: str
    route: str
    bound_at: str
    event_id: str


class TurnDetailOut(TurnOut):
    touched: list[str] = Field(description="Entity ids this turn touched")
    sticky: StickyOut | None


class EpisodeOut(BaseModel):
    id: int
    session_id: str
    summary: str
    workspace: str | None
    turn_id: str | None
    created_at: str


class PruneOut(BaseModel):
    cutoff: str = Field(description="Events before this time were (or would be) removed")
    removed: int
    by_type: dict[str, int]
    remaining: int
    dry_run: bool
    seconds: float


Limit = Annotated[int, Query(ge=1, le=10_000)]


@router.get("/recent", response_model=list[EventOut], responses=_ERRORS, summary="Recent events, newest first")
def recent(limit: Limit = 50, type: str | None = None, turn_id: str | None = None,
           workspace: str | None = None, since: Annotated[str | None, Query(description="ISO 8601")] = None
           ) -> list[dict]:
    found = _store().events.recent(limit, type=type, turn_id=turn_id, workspace=workspace, since=since)
    return [e.to_dict() for e in found]


@router.get("/turns", response_model=list[TurnOut], responses=_ERRORS, summary="Turns, newest first")
def turns(limit: Limit = 50, workspace: str | None = None, family_id: str | None = None,
          session_id: str | None = None) -> list[dict]:
    found = _store().turns.list(limit, workspace=workspace, family_id=family_id, session_id=session_id)
    return [t.to_dict() for t in found]


@router.get("/turns/{turn_id:path}", response_model=TurnDetailOut, responses=_ERRORS,
            summary="One turn with what it touched and its family's sticky route")
def turn(turn_id: str) -> dict:
    store = _store()
    t = store.turns.require(turn_id)
    sticky = store.turns.sticky(t.family_id)
    return t.to_dict() | {"touched": store.turns.working_set(t.id), "sticky": sticky.to_dict() if sticky else None}


@router.get("/episodes", response_model=list[EpisodeOut], responses=_ERRORS, summary="Episodes, newest first")
def episodes(limit: Annotated[int, Query(ge=1, le=1000)] = 20, session_id: str | None = None,
             workspace: str | None = None) -> list[dict]:
    return [e.to_dict() for e in _store().episodes.list(limit, session_id=session_id, workspace=workspace)]


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


@router.post("/prune", response_model=PruneOut, responses=_ERRORS,
             summary="Delete events older than context.retain_days")
def prune(dry_run: bool = False) -> dict:
    return vars(_store().events.prune(dry_run=dry_run))
