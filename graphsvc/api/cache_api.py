"""GraphQL fields and REST routes for the content cache and the continuity record.

Thin wrappers over `graphsvc.context.cache.ContentCache` and
`graphsvc.context.continuity.Continuity`. The app merges `CacheQuery` / `CacheMutation` into
its schema and includes `router`; both reach the store through `get_cache()` and
`get_continuity()`, opened on first use from the settings.

There is no `writeDelegateContext` mutation: the run directory lives exactly as long as the
delegate's process, on the machine that starts it. A directory made by the server would
either outlive the run (nobody removes it) or vanish before the delegate reads it. The API
instead serves the file's name and content (`delegateContextFile`,
`GET /api/continuity/delegate-file`); the caller writes it into its own run directory, or
uses `Continuity.write_delegate_context()` / `graphsvc continuity run` locally.

Errors are the library's (`InputError`, `NotFoundError`, `AmbiguousError` with candidates,
`StoreError`); the app turns them into GraphQL error codes and HTTP statuses in one place.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Literal

import strawberry
from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from graphsvc.api.types import decode, rest_model, shape, to_gql, to_rest
from graphsvc.context.cache import CacheStats as StatsData
from graphsvc.context.cache import ContentCache, EntryInfo, Expanded, RecallHit, StoreResult
from graphsvc.context.continuity import BlockEntry, Continuity, ContinuityBlock, DelegateFile, Entry
from graphsvc.context.db import Micros
from graphsvc.errors import InputError
from graphsvc.lazy import Lazy


def _close_continuity(c: Continuity) -> None:
    c.close()
    c.conn.close()


_cache: Lazy[ContentCache] = Lazy(ContentCache, lambda c: c.conn.close())
_continuity: Lazy[Continuity] = Lazy(Continuity, _close_continuity)
get_cache = _cache.get
get_continuity = _continuity.get


def reset_instances() -> None:
    """Close the store connections; the next call opens them again from the settings."""
    _continuity.reset()
    _cache.reset()


# -- types: generated from the library's dataclasses ----------------------------------------


@dataclass
class LogRow:
    at: Micros
    action: str
    entries: int
    source: str | None
    note: str | None


@dataclass
class Record:
    workspace: str
    entries: list[Entry]
    log: list[LogRow]


@dataclass
class ResetResult:
    scope: str
    removed: dict[str, int]


@dataclass
class Compaction:
    workspace: str
    scheduled: bool


@dataclass
class Marker:
    compacted_at: Micros


_SENT = '"full": payload is the content; "ref": the reference'
CacheStoreResult = shape(StoreResult, "CacheStoreResult", rest_name="StoreOut", docs={"sent": _SENT})
CacheExpansion = shape(Expanded, "CacheExpansion", rest_name="ExpandOut")
CacheRecallHit = shape(RecallHit, "CacheRecallHit", rest_name="RecallHitOut")
CacheEntry = shape(EntryInfo, "CacheEntry", rest_name="EntryOut")
ContinuityEntry = shape(Entry, "ContinuityEntry", rest_name="ContinuityEntryOut", omit=("id", "workspace"))
shape(LogRow, "ContinuityLogRow", rest_name="ContinuityLogOut")
ContinuityRecord = shape(Record, "ContinuityRecord", rest_name="ContinuityRecordOut")
shape(BlockEntry, "ContinuityBlockEntry", rest_name="BlockEntryOut")
ContinuityBlockResult = shape(ContinuityBlock, "ContinuityBlockResult", rest_name="BlockOut")
DelegateContextFile = shape(DelegateFile, "DelegateContextFile", rest_name="DelegateFileOut")
CacheResetResult = shape(ResetResult, "CacheResetResult", rest_name="ResetOut",
                         pairs={"removed": ("CacheTableCount", "table", "rows")})
shape(Compaction, rest_name="CompactOut")
shape(Marker, rest_name="MarkerOut")
shape(StatsData, rest_name="StatsOut")


def _entry(e: Entry) -> Entry:
    """An entry as readers see it: a summary shows as one, whatever it was recorded as."""
    return dataclasses.replace(e, kind=e.shown_kind)


def _record(workspace: str) -> Record:
    c = get_continuity()
    return Record(
        workspace=workspace,
        entries=[_entry(e) for e in c.entries(workspace)],
        log=[LogRow(**r) for r in c.log(workspace)],
    )


def _record_entry(workspace: str, session: str, text: str, kind: str, delegate: str | None, flagged: bool) -> Entry:
    c = get_continuity()
    if kind == "outcome":
        entry = c.record_outcome(workspace, session, delegate or "", text)
    elif delegate:
        raise InputError("a user turn has no delegate; record the delegate's result as an outcome")
    else:
        entry = c.record_turn(workspace, session, text, flagged=flagged)
    return _entry(entry)


def _store(content: str, encoding: str, derived: str | None, label: str | None, pin: bool) -> StoreResult:
    return get_cache().store(decode(content, encoding), derived=derived, label=label, pin=pin)


def _reset(scope: str) -> ResetResult:
    return ResetResult(scope=scope, removed=get_cache().reset(scope))


# -- GraphQL ------------------------------------------------------------------------------


@strawberry.enum
class ContentEncoding(enum.Enum):
    UTF8 = "utf-8"
    BASE64 = "base64"


@strawberry.enum
class CacheResetScope(enum.Enum):
    CACHE = "cache"
    STATS = "stats"
    EVERYTHING = "everything"


@strawberry.enum
class ContinuityKind(enum.Enum):
    TURN = "turn"
    OUTCOME = "outcome"


# GraphQL has no maps and its Int is 32 bits: the counters are fields, byte counts floats.
@strawberry.type
class CacheStats:
    entries: int
    bytes: float
    max_bytes: float
    pinned_entries: int
    pinned_bytes: float
    searchable_entries: int
    stores: int
    hits: int
    misses: int
    expands: int
    recalls: int
    evictions: int
    evicted_bytes: float
    index_failures: int


def _stats() -> CacheStats:
    s = get_cache().stats()
    values = {**vars(s), **s.counters}
    return CacheStats(**{f.name: values[f.name] for f in dataclasses.fields(CacheStats)})


@strawberry.type
class CacheQuery:
    @strawberry.field(description="Original bytes of cached content by hash prefix or §ref:…§, optionally lines START-END.")
    def expand(self, ref: str, lines: str | None = None, derived: bool = False) -> CacheExpansion:
        return to_gql(get_cache().expand(ref, lines, derived=derived))

    @strawberry.field(description="Cached text ranked by BM25 against the query, with snippets and refs (limit 1-50).")
    def recall(self, query: str, limit: int = 10) -> list[CacheRecallHit]:
        return to_gql(list(get_cache().recall(query, limit)))

    @strawberry.field(description="Entries, bytes (originals and derived forms), hits, evictions.")
    def cache_stats(self) -> CacheStats:
        return _stats()

    @strawberry.field(description="Pinned cache entries: never evicted.")
    def pins(self) -> list[CacheEntry]:
        return to_gql(get_cache().pins())

    @strawberry.field(description='The "Earlier in the calling session" block a delegate receives for a task.')
    def continuity(self, workspace: str, task: str) -> ContinuityBlockResult:
        return to_gql(get_continuity().block(workspace, task))

    @strawberry.field(description="A workspace's continuity record: entries, oldest first, and what compaction did.")
    def continuity_record(self, workspace: str) -> ContinuityRecord:
        return to_gql(_record(workspace))

    @strawberry.field(description="The file a delegate reads (AGENTS.md or graphsvc-context.md) and its content.")
    def delegate_context_file(self, workspace: str, task: str, vendor: str) -> DelegateContextFile:
        return to_gql(get_continuity().delegate_file(workspace, task, vendor))


@strawberry.type
class CacheMutation:
    @strawberry.mutation(description="Store content; answers with the content, or a §ref:…§ when the consumer saw it recently.")
    def cache_store(
        self,
        content: str,
        encoding: ContentEncoding = ContentEncoding.UTF8,
        derived: str | None = None,
        label: str | None = None,
        pin: bool = False,
    ) -> CacheStoreResult:
        return to_gql(_store(content, encoding.value, derived, label, pin))

    @strawberry.mutation(description="Pin a cache entry so eviction never removes it.")
    def pin(self, ref: str) -> CacheEntry:
        return to_gql(get_cache().pin(ref))

    @strawberry.mutation(description="Unpin a cache entry.")
    def unpin(self, ref: str) -> CacheEntry:
        return to_gql(get_cache().unpin(ref))

    @strawberry.mutation(description="Clear exactly one scope: cache, stats or everything (cache, stats and continuity).")
    def cache_reset(self, scope: CacheResetScope) -> CacheResetResult:
        return to_gql(_reset(scope.value))

    @strawberry.mutation(description="Record a user turn (every turn) or a delegate outcome, under the calling session.")
    def record_continuity(
        self,
        workspace: str,
        session: str,
        text: str,
        kind: ContinuityKind = ContinuityKind.TURN,
        delegate: str | None = None,
        flagged: bool = False,
    ) -> ContinuityEntry:
        return to_gql(_record_entry(workspace, session, text, kind.value, delegate, flagged))

    @strawberry.mutation(description="Schedule compaction of a workspace's record in the background.")
    def compact_continuity(self, workspace: str) -> bool:
        get_continuity().compact(workspace)
        return True


# -- REST ---------------------------------------------------------------------------------

router = APIRouter(tags=["cache", "continuity"])


class StoreIn(BaseModel):
    content: str
    encoding: Literal["utf-8", "base64"] = "utf-8"
    derived: str | None = None
    label: str | None = None
    pin: bool = False


class ResetIn(BaseModel):
    scope: Literal["cache", "stats", "everything"]


class ContinuityIn(BaseModel):
    workspace: str
    session: str = Field(description="the calling session's identity")
    text: str
    kind: Literal["turn", "outcome"] = "turn"
    delegate: str | None = Field(None, description="for an outcome: who did the work")
    flagged: bool = False


@router.post("/api/cache/store", response_model=rest_model(StoreResult))
def rest_store(body: StoreIn) -> dict:
    return to_rest(_store(body.content, body.encoding, body.derived, body.label, body.pin))


@router.get("/api/cache/expand/{ref}", response_model=rest_model(Expanded))
def rest_expand(ref: str, lines: str | None = None, derived: bool = False) -> dict:
    return to_rest(get_cache().expand(ref, lines, derived=derived))


@router.get("/api/cache/recall", response_model=list[rest_model(RecallHit)])
def rest_recall(q: str, limit: int = 10) -> list[dict]:
    return to_rest(list(get_cache().recall(q, limit)))


@router.get("/api/cache/stats", response_model=rest_model(StatsData))
def rest_stats() -> dict:
    return to_rest(get_cache().stats())


@router.get("/api/cache/pins", response_model=list[rest_model(EntryInfo)])
def rest_pins() -> list[dict]:
    return to_rest(get_cache().pins())


@router.put("/api/cache/pins/{ref}", response_model=rest_model(EntryInfo))
def rest_pin(ref: str) -> dict:
    return to_rest(get_cache().pin(ref))


@router.delete("/api/cache/pins/{ref}", response_model=rest_model(EntryInfo))
def rest_unpin(ref: str) -> dict:
    return to_rest(get_cache().unpin(ref))


@router.post("/api/cache/reset", response_model=rest_model(ResetResult))
def rest_reset(body: ResetIn) -> dict:
    return to_rest(_reset(body.scope))


@router.post("/api/cache/compaction-marker", response_model=rest_model(Marker))
def rest_compaction_marker() -> dict:
    """The consumer compacted its context: earlier references are no longer answered."""
    return to_rest(Marker(compacted_at=get_cache().mark_compaction()))


@router.post("/api/continuity/entries", response_model=rest_model(Entry))
def rest_record(body: ContinuityIn) -> dict:
    return to_rest(_record_entry(body.workspace, body.session, body.text, body.kind, body.delegate, body.flagged))


@router.get("/api/continuity/entries", response_model=rest_model(Record))
def rest_entries(workspace: str) -> dict:
    return to_rest(_record(workspace))


@router.get("/api/continuity/block", response_model=rest_model(ContinuityBlock))
def rest_block(workspace: str, task: str = Query(..., min_length=1)) -> dict:
    return to_rest(get_continuity().block(workspace, task))


@router.get("/api/continuity/delegate-file", response_model=rest_model(DelegateFile))
def rest_delegate_file(workspace: str, task: str, vendor: str) -> dict:
    return to_rest(get_continuity().delegate_file(workspace, task, vendor))


@router.post("/api/continuity/compact", response_model=rest_model(Compaction), status_code=202)
def rest_compact(workspace: str) -> dict:
    get_continuity().compact(workspace)
    return to_rest(Compaction(workspace=workspace, scheduled=True))
