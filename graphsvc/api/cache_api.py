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
from dataclasses import dataclass
from enum import StrEnum

import strawberry
from fastapi import APIRouter, Query

from graphsvc.api.types import (
    ENCODINGS,
    decode,
    from_arguments,
    gql_mutation,
    rest_input,
    rest_model,
    shape,
    to_gql,
    to_rest,
)
from graphsvc.context.cache import (
    COUNTERS,
    RESET_SCOPES,
    CacheStats,
    EntryInfo,
    Expanded,
    RecallHit,
    StoreResult,
    get_cache,
    reset_cache,
)
from graphsvc.context.continuity import BlockEntry, Continuity, ContinuityBlock, DelegateFile, Entry
from graphsvc.context.db import Micros
from graphsvc.errors import InputError
from graphsvc.lazy import Lazy


def _close_continuity(c: Continuity) -> None:
    c.close()
    c.conn.close()


_continuity: Lazy[Continuity] = Lazy(Continuity, _close_continuity)
get_continuity = _continuity.get


def reset_instances() -> None:
    """Close the store connections; the next call opens them again from the settings."""
    _continuity.reset()
    reset_cache()


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


# -- inputs: the arguments of a mutation and the JSON body of its route -----------------------

ContentEncoding = StrEnum("ContentEncoding", {e.upper().replace("-", ""): e for e in ENCODINGS})
CacheResetScope = StrEnum("CacheResetScope", {scope.upper(): scope for scope in RESET_SCOPES})


class ContinuityKind(StrEnum):
    TURN = "turn"
    OUTCOME = "outcome"


@dataclass
class StoreInput:
    content: str
    encoding: ContentEncoding = ContentEncoding.UTF8
    derived: str | None = None
    label: str | None = None
    pin: bool = False


@dataclass
class ResetInput:
    scope: CacheResetScope


@dataclass
class ContinuityInput:
    workspace: str
    session: str
    text: str
    kind: ContinuityKind = ContinuityKind.TURN
    delegate: str | None = None
    flagged: bool = False


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
# GraphQL has no maps and its Int is 32 bits: the counters are fields, byte counts floats.
CacheStatsType = shape(CacheStats, rest_name="StatsOut", inline={"counters": COUNTERS})


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


def _record_entry(given: ContinuityInput) -> Entry:
    c = get_continuity()
    if given.kind == ContinuityKind.OUTCOME:
        entry = c.record_outcome(given.workspace, given.session, given.delegate or "", given.text)
    elif given.delegate:
        raise InputError("a user turn has no delegate; record the delegate's result as an outcome")
    else:
        entry = c.record_turn(given.workspace, given.session, given.text, flagged=given.flagged)
    return _entry(entry)


def _store(given: StoreInput) -> StoreResult:
    content = decode(given.content, given.encoding)
    return get_cache().store(content, derived=given.derived, label=given.label, pin=given.pin)


def _reset(given: ResetInput) -> ResetResult:
    return ResetResult(scope=given.scope, removed=get_cache().reset(given.scope))


# -- GraphQL ------------------------------------------------------------------------------


@strawberry.type
class CacheQuery:
    @strawberry.field(description="Original bytes of cached content by hash prefix or §ref:…§, optionally lines START-END.")
    def expand(self, ref: str, lines: str | None = None, derived: bool = False) -> CacheExpansion:
        return to_gql(get_cache().expand(ref, lines, derived=derived))

    @strawberry.field(description="Cached text ranked by BM25 against the query, with snippets and refs (limit 1-50).")
    def recall(self, query: str, limit: int = 10) -> list[CacheRecallHit]:
        return to_gql(list(get_cache().recall(query, limit)))

    @strawberry.field(description="Entries, bytes (originals and derived forms), hits, evictions.")
    def cache_stats(self) -> CacheStatsType:
        return to_gql(get_cache().stats())

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
    cache_store = gql_mutation(
        _store, StoreInput, "Store content; answers with the content, or a §ref:…§ when the consumer saw it recently."
    )

    @strawberry.mutation(description="Pin a cache entry so eviction never removes it.")
    def pin(self, ref: str) -> CacheEntry:
        return to_gql(get_cache().pin(ref))

    @strawberry.mutation(description="Unpin a cache entry.")
    def unpin(self, ref: str) -> CacheEntry:
        return to_gql(get_cache().unpin(ref))

    cache_reset = gql_mutation(
        _reset, ResetInput, "Clear exactly one scope: cache, stats or everything (cache, stats and continuity)."
    )
    record_continuity = gql_mutation(
        _record_entry, ContinuityInput,
        "Record a user turn (every turn) or a delegate outcome, under the calling session.",
    )

    @strawberry.mutation(description="Schedule compaction of a workspace's record in the background.")
    def compact_continuity(self, workspace: str) -> bool:
        get_continuity().compact(workspace)
        return True


# -- REST ---------------------------------------------------------------------------------

router = APIRouter(tags=["cache", "continuity"])


StoreIn = rest_input(StoreInput, "StoreIn")
ResetIn = rest_input(ResetInput, "ResetIn")
ContinuityIn = rest_input(
    ContinuityInput, "ContinuityIn",
    docs={"session": "the calling session's identity", "delegate": "for an outcome: who did the work"},
)


@router.post("/api/cache/store", response_model=rest_model(StoreResult))
def rest_store(body: StoreIn) -> dict:
    return to_rest(_store(from_arguments(StoreInput, body)))


@router.get("/api/cache/expand/{ref}", response_model=rest_model(Expanded))
def rest_expand(ref: str, lines: str | None = None, derived: bool = False) -> dict:
    return to_rest(get_cache().expand(ref, lines, derived=derived))


@router.get("/api/cache/recall", response_model=list[rest_model(RecallHit)])
def rest_recall(q: str, limit: int = 10) -> list[dict]:
    return to_rest(list(get_cache().recall(q, limit)))


@router.get("/api/cache/stats", response_model=rest_model(CacheStats))
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
    return to_rest(_reset(from_arguments(ResetInput, body)))


@router.post("/api/cache/compaction-marker", response_model=rest_model(Marker))
def rest_compaction_marker() -> dict:
    """The consumer compacted its context: earlier references are no longer answered."""
    return to_rest(Marker(compacted_at=get_cache().mark_compaction()))


@router.post("/api/continuity/entries", response_model=rest_model(Entry))
def rest_record(body: ContinuityIn) -> dict:
    return to_rest(_record_entry(from_arguments(ContinuityInput, body)))


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
