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

import base64
import enum
import threading
from datetime import datetime, timezone
from typing import Literal, TypeVar

import strawberry
from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from graphsvc.context.cache import ContentCache, EntryInfo, Expanded, StoreResult
from graphsvc.context.continuity import Continuity, ContinuityBlock, Entry
from graphsvc.errors import InputError

_lock = threading.Lock()
_cache: ContentCache | None = None
_continuity: Continuity | None = None


def get_cache() -> ContentCache:
    global _cache
    with _lock:
        if _cache is None:
            _cache = ContentCache()
        return _cache


def get_continuity() -> Continuity:
    global _continuity
    with _lock:
        if _continuity is None:
            _continuity = Continuity()
        return _continuity


def reset_instances() -> None:
    """Close the store connections; the next call opens them again from the settings."""
    global _cache, _continuity
    with _lock:
        if _continuity is not None:
            _continuity.close()
            _continuity.conn.close()
        if _cache is not None:
            _cache.conn.close()
        _cache = _continuity = None


def _iso(us: int) -> str:
    return datetime.fromtimestamp(us / 1_000_000, tz=timezone.utc).isoformat()


def _encode(data: str | bytes) -> tuple[str, str]:
    if isinstance(data, str):
        return data, "utf-8"
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return base64.b64encode(data).decode("ascii"), "base64"


def _decode(content: str, encoding: str) -> str | bytes:
    if encoding == "utf-8":
        return content
    if encoding == "base64":
        try:
            return base64.b64decode(content, validate=True)
        except ValueError as exc:
            raise InputError(f"content is not valid base64: {exc}") from exc
    raise InputError(f"encoding {encoding!r}: use utf-8 or base64")


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


@strawberry.type
class CacheStoreResult:
    hash: str
    ref: str
    sent: str = strawberry.field(description='"full": payload is the content; "ref": the reference')
    payload: str
    encoding: str
    kind: str
    original_bytes: int
    derived_bytes: int
    searchable: bool
    index_note: str | None
    pinned: bool
    evicted: int

    @classmethod
    def of(cls, r: StoreResult) -> CacheStoreResult:
        payload, encoding = _encode(r.payload)
        return cls(**{**vars(r), "payload": payload, "encoding": encoding})


@strawberry.type
class CacheExpansion:
    hash: str
    ref: str
    kind: str
    label: str | None
    form: str
    content: str
    encoding: str
    first_line: int
    last_line: int
    total_lines: int

    @classmethod
    def of(cls, e: Expanded) -> CacheExpansion:
        content, encoding = _encode(e.content)
        return cls(**{**vars(e), "content": content, "encoding": encoding})


@strawberry.type
class CacheRecallHit:
    hash: str
    ref: str
    label: str | None
    snippet: str
    score: float


@strawberry.type
class CacheEntry:
    hash: str
    ref: str
    kind: str
    label: str | None
    size_bytes: int
    original_bytes: int
    derived_bytes: int
    searchable: bool
    index_note: str | None
    pinned: bool
    created_at: str
    accessed_at: str

    @classmethod
    def of(cls, info: EntryInfo) -> CacheEntry:
        times = {"created_at": _iso(info.created_at), "accessed_at": _iso(info.accessed_at)}
        return cls(**{**vars(info), **times})


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
    c = s.counters
    return CacheStats(
        entries=s.entries, bytes=s.bytes, max_bytes=s.max_bytes, pinned_entries=s.pinned_entries,
        pinned_bytes=s.pinned_bytes, searchable_entries=s.searchable_entries,
        stores=c["stores"], hits=c["hits"], misses=c["misses"], expands=c["expands"],
        recalls=c["recalls"], evictions=c["evictions"], evicted_bytes=c["evicted_bytes"],
        index_failures=c["index_failures"],
    )


@strawberry.type
class CacheTableCount:
    table: str
    rows: int


@strawberry.type
class CacheResetResult:
    scope: str
    removed: list[CacheTableCount]


@strawberry.type
class ContinuityEntry:
    seq: int
    kind: str
    session: str
    delegate: str | None
    flagged: bool
    text: str
    created_at: str

    @classmethod
    def of(cls, e: Entry) -> ContinuityEntry:
        return cls(
            seq=e.seq, kind=e.shown_kind, session=e.session,
            delegate=e.delegate, flagged=e.flagged, text=e.text, created_at=_iso(e.created_at),
        )


@strawberry.type
class ContinuityLogRow:
    at: str
    action: str
    entries: int
    source: str | None
    note: str | None


@strawberry.type
class ContinuityRecord:
    workspace: str
    entries: list[ContinuityEntry]
    log: list[ContinuityLogRow]


@strawberry.type
class ContinuityBlockEntry:
    seq: int
    kind: str
    session: str
    delegate: str | None
    text: str
    score: float
    protected: bool
    truncated: bool
    tokens: int


@strawberry.type
class ContinuityBlockResult:
    workspace: str
    task: str
    text: str
    entries: list[ContinuityBlockEntry]
    tokens: int
    token_method: str
    token_budget: int
    max_entries: int
    record_entries: int
    left_out: list[int]

    @classmethod
    def of(cls, b: ContinuityBlock) -> ContinuityBlockResult:
        return cls(**{**vars(b), "entries": [ContinuityBlockEntry(**vars(e)) for e in b.entries]})


@strawberry.type
class DelegateContextFile:
    file_name: str
    content: str
    tokens: int
    token_method: str


def _record(workspace: str) -> ContinuityRecord:
    c = get_continuity()
    return ContinuityRecord(
        workspace=workspace,
        entries=[ContinuityEntry.of(e) for e in c.entries(workspace)],
        log=[ContinuityLogRow(**{**r, "at": _iso(r["at"])}) for r in c.log(workspace)],
    )


def _record_entry(workspace: str, session: str, text: str, kind: str, delegate: str | None, flagged: bool) -> Entry:
    c = get_continuity()
    if kind == "outcome":
        return c.record_outcome(workspace, session, delegate or "", text)
    if delegate:
        raise InputError("a user turn has no delegate; record the delegate's result as an outcome")
    return c.record_turn(workspace, session, text, flagged=flagged)


@strawberry.type
class CacheQuery:
    @strawberry.field(description="Original bytes of cached content by hash prefix or §ref:…§, optionally lines START-END.")
    def expand(self, ref: str, lines: str | None = None, derived: bool = False) -> CacheExpansion:
        return CacheExpansion.of(get_cache().expand(ref, lines, derived=derived))

    @strawberry.field(description="Cached text ranked by BM25 against the query, with snippets and refs (limit 1-50).")
    def recall(self, query: str, limit: int = 10) -> list[CacheRecallHit]:
        return [CacheRecallHit(**vars(h)) for h in get_cache().recall(query, limit)]

    @strawberry.field(description="Entries, bytes (originals and derived forms), hits, evictions.")
    def cache_stats(self) -> CacheStats:
        return _stats()

    @strawberry.field(description="Pinned cache entries: never evicted.")
    def pins(self) -> list[CacheEntry]:
        return [CacheEntry.of(p) for p in get_cache().pins()]

    @strawberry.field(description='The "Earlier in the calling session" block a delegate receives for a task.')
    def continuity(self, workspace: str, task: str) -> ContinuityBlockResult:
        return ContinuityBlockResult.of(get_continuity().block(workspace, task))

    @strawberry.field(description="A workspace's continuity record: entries, oldest first, and what compaction did.")
    def continuity_record(self, workspace: str) -> ContinuityRecord:
        return _record(workspace)

    @strawberry.field(description="The file a delegate reads (AGENTS.md or graphsvc-context.md) and its content.")
    def delegate_context_file(self, workspace: str, task: str, vendor: str) -> DelegateContextFile:
        return DelegateContextFile(**vars(get_continuity().delegate_file(workspace, task, vendor)))


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
        data = _decode(content, encoding.value)
        return CacheStoreResult.of(get_cache().store(data, derived=derived, label=label, pin=pin))

    @strawberry.mutation(description="Pin a cache entry so eviction never removes it.")
    def pin(self, ref: str) -> CacheEntry:
        return CacheEntry.of(get_cache().pin(ref))

    @strawberry.mutation(description="Unpin a cache entry.")
    def unpin(self, ref: str) -> CacheEntry:
        return CacheEntry.of(get_cache().unpin(ref))

    @strawberry.mutation(description="Clear exactly one scope: cache, stats or everything (cache, stats and continuity).")
    def cache_reset(self, scope: CacheResetScope) -> CacheResetResult:
        removed = get_cache().reset(scope.value)
        return CacheResetResult(
            scope=scope.value, removed=[CacheTableCount(table=t, rows=n) for t, n in removed.items()]
        )

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
        return ContinuityEntry.of(_record_entry(workspace, session, text, kind.value, delegate, flagged))

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


class StoreOut(BaseModel):
    hash: str
    ref: str
    sent: Literal["full", "ref"]
    payload: str
    encoding: str
    kind: str
    original_bytes: int
    derived_bytes: int
    searchable: bool
    index_note: str | None
    pinned: bool
    evicted: int


class ExpandOut(BaseModel):
    hash: str
    ref: str
    kind: str
    label: str | None
    form: str
    content: str
    encoding: str
    first_line: int
    last_line: int
    total_lines: int


class RecallHitOut(BaseModel):
    hash: str
    ref: str
    label: str | None
    snippet: str
    score: float


class EntryOut(BaseModel):
    hash: str
    ref: str
    kind: str
    label: str | None
    size_bytes: int
    original_bytes: int
    derived_bytes: int
    searchable: bool
    index_note: str | None
    pinned: bool
    created_at: str
    accessed_at: str


class StatsOut(BaseModel):
    entries: int
    bytes: int
    max_bytes: int
    pinned_entries: int
    pinned_bytes: int
    searchable_entries: int
    counters: dict[str, int]


class ResetIn(BaseModel):
    scope: Literal["cache", "stats", "everything"]


class ResetOut(BaseModel):
    scope: str
    removed: dict[str, int]


class MarkerOut(BaseModel):
    compacted_at: str


class ContinuityIn(BaseModel):
    workspace: str
    session: str = Field(description="the calling session's identity")
    text: str
    kind: Literal["turn", "outcome"] = "turn"
    delegate: str | None = Field(None, description="for an outcome: who did the work")
    flagged: bool = False


class ContinuityEntryOut(BaseModel):
    seq: int
    kind: str
    session: str
    delegate: str | None
    flagged: bool
    text: str
    created_at: str


class ContinuityLogOut(BaseModel):
    at: str
    action: str
    entries: int
    source: str | None
    note: str | None


class ContinuityRecordOut(BaseModel):
    workspace: str
    entries: list[ContinuityEntryOut]
    log: list[ContinuityLogOut]


class BlockEntryOut(BaseModel):
    seq: int
    kind: str
    session: str
    delegate: str | None
    text: str
    score: float
    protected: bool
    truncated: bool
    tokens: int


class BlockOut(BaseModel):
    workspace: str
    task: str
    text: str
    entries: list[BlockEntryOut]
    tokens: int
    token_method: str
    token_budget: int
    max_entries: int
    record_entries: int
    left_out: list[int]


class DelegateFileOut(BaseModel):
    file_name: str
    content: str
    tokens: int
    token_method: str


class CompactOut(BaseModel):
    workspace: str
    scheduled: bool


_Out = TypeVar("_Out", bound=BaseModel)


def _out(model: type[_Out], result: object) -> _Out:
    """The REST body of a GraphQL result object: the same fields, nested ones too."""
    return model.model_validate(result, from_attributes=True)


@router.post("/api/cache/store", response_model=StoreOut)
def rest_store(body: StoreIn) -> StoreOut:
    data = _decode(body.content, body.encoding)
    result = get_cache().store(data, derived=body.derived, label=body.label, pin=body.pin)
    return _out(StoreOut, CacheStoreResult.of(result))


@router.get("/api/cache/expand/{ref}", response_model=ExpandOut)
def rest_expand(ref: str, lines: str | None = None, derived: bool = False) -> ExpandOut:
    return _out(ExpandOut, CacheExpansion.of(get_cache().expand(ref, lines, derived=derived)))


@router.get("/api/cache/recall", response_model=list[RecallHitOut])
def rest_recall(q: str, limit: int = 10) -> list[RecallHitOut]:
    return [RecallHitOut(**vars(h)) for h in get_cache().recall(q, limit)]


@router.get("/api/cache/stats", response_model=StatsOut)
def rest_stats() -> StatsOut:
    return StatsOut(**get_cache().stats().as_dict())


@router.get("/api/cache/pins", response_model=list[EntryOut])
def rest_pins() -> list[EntryOut]:
    return [_out(EntryOut, CacheEntry.of(p)) for p in get_cache().pins()]


@router.put("/api/cache/pins/{ref}", response_model=EntryOut)
def rest_pin(ref: str) -> EntryOut:
    return _out(EntryOut, CacheEntry.of(get_cache().pin(ref)))


@router.delete("/api/cache/pins/{ref}", response_model=EntryOut)
def rest_unpin(ref: str) -> EntryOut:
    return _out(EntryOut, CacheEntry.of(get_cache().unpin(ref)))


@router.post("/api/cache/reset", response_model=ResetOut)
def rest_reset(body: ResetIn) -> ResetOut:
    return ResetOut(scope=body.scope, removed=get_cache().reset(body.scope))


@router.post("/api/cache/compaction-marker", response_model=MarkerOut)
def rest_compaction_marker() -> MarkerOut:
    """The consumer compacted its context: earlier references are no longer answered."""
    return MarkerOut(compacted_at=_iso(get_cache().mark_compaction()))


@router.post("/api/continuity/entries", response_model=ContinuityEntryOut)
def rest_record(body: ContinuityIn) -> ContinuityEntryOut:
    entry = _record_entry(body.workspace, body.session, body.text, body.kind, body.delegate, body.flagged)
    return _out(ContinuityEntryOut, ContinuityEntry.of(entry))


@router.get("/api/continuity/entries", response_model=ContinuityRecordOut)
def rest_entries(workspace: str) -> ContinuityRecordOut:
    return _out(ContinuityRecordOut, _record(workspace))


@router.get("/api/continuity/block", response_model=BlockOut)
def rest_block(workspace: str, task: str = Query(..., min_length=1)) -> BlockOut:
    return _out(BlockOut, ContinuityBlockResult.of(get_continuity().block(workspace, task)))


@router.get("/api/continuity/delegate-file", response_model=DelegateFileOut)
def rest_delegate_file(workspace: str, task: str, vendor: str) -> DelegateFileOut:
    return DelegateFileOut(**vars(get_continuity().delegate_file(workspace, task, vendor)))


@router.post("/api/continuity/compact", response_model=CompactOut, status_code=202)
def rest_compact(workspace: str) -> CompactOut:
    get_continuity().compact(workspace)
    return CompactOut(workspace=workspace, scheduled=True)
