"""The append-only event log: validation, the in-memory ring, queries, JSONL export/import, retention.

Every event has ``prov='RUNTIME'``, a well-formed type name, an optional turn and workspace, a
time (integer microseconds, UTC) and a JSON object payload of bounded size. Events are never
changed; the only deletion is retention (`EventLog.prune`), enforced again by triggers in the
schema. Writes go through `ContextStore` so that appends from many threads share commits
(group commit) and the turn index sees every event in commit order.

Durability: `append` returns only after the transaction holding the event has committed. With
WAL and ``synchronous=NORMAL`` a committed event survives the process being killed; a power
loss may drop the last commits before the next WAL checkpoint.
"""

from __future__ import annotations

import bisect
import json
import math
import re
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import IO, TYPE_CHECKING, Any

from graphsvc.context import db
from graphsvc.context.db import now_us
from graphsvc.errors import InputError
from graphsvc.model import Prov

if TYPE_CHECKING:
    from graphsvc.context.store import ContextStore

TYPE_RE = re.compile(r"^[A-Z][A-Za-z0-9]{0,63}$")
TURN_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$")
MAX_WORKSPACE_CHARS = 4096
MAX_RECENT = 10_000


class EventType:
    """The event types the service itself writes; any name matching `TYPE_RE` is accepted."""

    ROUTE_DECIDED = "RouteDecided"
    FULFILLED_LOCAL = "FulfilledLocal"
    ORIGIN_PASSTHROUGH = "OriginPassthrough"
    TURN_OPENED = "TurnOpened"
    TURN_KEYS_SET = "TurnKeysSet"
    TURN_TOUCHED = "TurnTouched"
    STICKY_BOUND = "StickyBound"


# Events that change the turn index; appending one updates it in the same transaction.
TURN_EVENT_TYPES = frozenset(
    {EventType.TURN_OPENED, EventType.TURN_KEYS_SET, EventType.TURN_TOUCHED, EventType.STICKY_BOUND}
)

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)


def to_us(value: datetime | int | float | str) -> int:
    """Microseconds since the epoch from a datetime (naive = UTC), an ISO 8601 string or a number."""
    if isinstance(value, bool):
        raise InputError("time: expected a datetime or ISO 8601 string, got a boolean")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value * 1_000_000)
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError as exc:
            raise InputError(f"time: {value!r} is not an ISO 8601 time (e.g. 2026-01-31T12:00:00Z)") from exc
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return (value - _EPOCH) // _US


def to_datetime(us: int) -> datetime:
    return _EPOCH + timedelta(microseconds=us)


def iso(us: int) -> str:
    """``2026-12-02T11:32:33.123456Z``: fixed width, so it parses back to the same microsecond."""
    return to_datetime(us).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def new_event_id(ts: int, rand: bytes) -> str:
    # Time first, so ids sort by time and the unique index grows at its right edge.
    return f"{ts:014x}-{rand.hex()}"


# Characters that JSON allows raw but line splitters (str.splitlines) treat as line breaks.
_LINE_BREAKS = str.maketrans({"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"})


# Built once: json.dumps with options builds an encoder on every call.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def canonical_json(value: Any, what: str = "payload") -> str:
    """Compact UTF-8 JSON that is always one line, whatever splits the lines."""
    try:
        text = _ENCODER.encode(value)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{what}: not representable as JSON ({exc})") from exc
    # The line breaks to escape are not ASCII; most payloads are.
    return text if text.isascii() else text.translate(_LINE_BREAKS)


def check_type(type_: Any) -> str:
    if not isinstance(type_, str) or not TYPE_RE.match(type_):
        raise InputError(
            f"type: {type_!r} is not a valid event type; use CamelCase letters and digits, "
            "starting with a capital, at most 64 characters (e.g. RouteDecided)"
        )
    return type_


def check_turn_id(turn_id: Any, what: str = "turn_id") -> str | None:
    if turn_id is None:
        return None
    if not isinstance(turn_id, str) or not TURN_ID_RE.match(turn_id):
        raise InputError(
            f"{what}: {turn_id!r} is not a valid turn id (1-128 characters: letters, digits and "
            "._:@/- , starting with a letter or digit)"
        )
    return turn_id


def check_limit(limit: Any, most: int | None = None) -> int:
    """A positive integer (at most `most`)."""
    if not isinstance(limit, int) or limit < 1:
        raise InputError(f"limit: must be a positive integer, got {limit!r}")
    return limit if most is None else min(limit, most)


def check_workspace(workspace: Any) -> str | None:
    if workspace is None:
        return None
    if not isinstance(workspace, str) or not workspace or "\x00" in workspace:
        raise InputError(f"workspace: {workspace!r} must be a non-empty string without NUL")
    if len(workspace) > MAX_WORKSPACE_CHARS:
        raise InputError(f"workspace: longer than {MAX_WORKSPACE_CHARS} characters")
    return workspace


def check_payload(payload: Any, max_bytes: int) -> str:
    """Canonical JSON text of a payload object, or InputError naming the problem."""
    if payload is None:
        payload = {}
    if isinstance(payload, (str, bytes)):
        text = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else payload
        try:
            payload = json.loads(text)
        except ValueError as exc:
            raise InputError(f"payload: invalid JSON ({exc})") from exc
        _reject_non_finite(payload)
    if not isinstance(payload, dict):
        raise InputError(f"payload: must be a JSON object, got {type(payload).__name__}")
    text = canonical_json(payload)
    size = len(text) if text.isascii() else len(text.encode("utf-8"))
    if size > max_bytes:
        raise InputError(f"payload: {size} bytes is over the {max_bytes}-byte limit (context.max_payload_bytes)")
    return text


def _reject_non_finite(value: Any) -> None:
    # json.loads accepts NaN/Infinity, which are not JSON.
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError("payload: NaN and Infinity are not valid JSON")
    if isinstance(value, dict):
        for v in value.values():
            _reject_non_finite(v)
    elif isinstance(value, list):
        for v in value:
            _reject_non_finite(v)


@dataclass(frozen=True, slots=True)
class Event:
    seq: int
    id: str
    ts: int  # microseconds since the epoch, UTC
    type: str
    turn_id: str | None
    workspace: str | None
    payload_json: str
    prov: str = Prov.RUNTIME.value

    @property
    def payload(self) -> dict[str, Any]:
        return json.loads(self.payload_json)

    @property
    def time(self) -> str:
        return iso(self.ts)

    @property
    def key(self) -> tuple[int, int]:
        return (self.ts, self.seq)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "seq": self.seq,
            "time": self.time,
            "type": self.type,
            "turn_id": self.turn_id,
            "workspace": self.workspace,
            "prov": self.prov,
            "payload": self.payload,
        }

    def to_jsonl(self) -> str:
        """One export line. `seq` is local to a store and left out; the payload is kept verbatim."""
        d = canonical_json
        return (
            f'{{"id":{d(self.id)},"time":{d(self.time)},"type":{d(self.type)},'
            f'"turn_id":{d(self.turn_id)},"workspace":{d(self.workspace)},'
            f'"prov":{d(self.prov)},"payload":{self.payload_json}}}\n'
        )

    @classmethod
    def from_row(cls, row: sqlite3.Row | tuple) -> Event:
        return cls(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7])


EVENT_COLUMNS = "seq, id, ts, type, turn_id, workspace, payload, prov"


@dataclass(slots=True)
class PendingEvent:
    """A validated event waiting for its transaction."""

    id: str
    ts: int
    type: str
    turn_id: str | None
    workspace: str | None
    payload_json: str


@dataclass
class PruneReport:
    cutoff: str
    removed: int
    by_type: dict[str, int] = field(default_factory=dict)
    remaining: int = 0
    dry_run: bool = False
    seconds: float = 0.0


@dataclass
class ImportReport:
    read: int
    imported: int
    skipped_existing: int


class Ring:
    """The newest events by (time, seq), at most `size`; every stored event newer than `floor` is here."""

    def __init__(self, size: int, floor: tuple[int, int]):
        self.size = max(1, size)
        self.floor = floor
        self._items: list[Event] = []

    def add(self, event: Event) -> None:
        key = event.key
        if key < self.floor:
            return
        items = self._items
        if not items or key > items[-1].key:
            items.append(event)
        else:
            i = bisect.bisect_left(items, key, key=lambda e: e.key)
            if i < len(items) and items[i].seq == event.seq:
                return
            items.insert(i, event)
        if len(items) > 2 * self.size:
            self._trim()

    def _trim(self) -> None:
        items = self._items
        if len(items) > self.size:
            del items[: len(items) - self.size]
            self.floor = items[0].key

    def drop_before(self, ts: int) -> None:
        items = self._items
        i = bisect.bisect_left(items, (ts, -1), key=lambda e: e.key)
        del items[:i]
        self.floor = max(self.floor, (ts, -1))

    def newest(self) -> Iterator[Event]:
        self._trim()
        return reversed(self._items)

    def __len__(self) -> int:
        return min(len(self._items), self.size)


# The fields a caller gives an event, in `EventLog.append`'s order.
APPENDED_FIELDS = ("type", "turn_id", "workspace", "payload", "at")


class EventLog:
    """`store.events`: append, query, export/import and retention of the event log."""

    def __init__(self, store: ContextStore):
        self._store = store
        self.max_payload_bytes = store.settings.context.max_payload_bytes

    def _pending(self, event: Mapping[str, Any]) -> PendingEvent:
        """An event given as its fields (`APPENDED_FIELDS`, and `event_id` when imported),
        checked and stamped."""
        if "type" not in event:
            raise InputError("type: missing")
        type, turn_id, workspace = event["type"], event.get("turn_id"), event.get("workspace")
        check_type(type)
        check_turn_id(turn_id)
        check_workspace(workspace)
        text = check_payload(event.get("payload"), self.max_payload_bytes)
        at = event.get("at")
        ts = now_us() if at is None else to_us(at)
        event_id = event.get("event_id")
        if event_id is None:
            event_id = new_event_id(ts, self._store.random_bytes())
        elif not isinstance(event_id, str) or not TURN_ID_RE.match(event_id):
            raise InputError(f"id: {event_id!r} is not a valid event id")
        return PendingEvent(event_id, ts, type, turn_id, workspace, text)

    def append(
        self,
        type: str,
        turn_id: str | None = None,
        workspace: str | None = None,
        payload: Any = None,
        *,
        at: datetime | int | str | None = None,
    ) -> Event:
        """Append one event; returns it once committed. `at` (default now) is for replaying history.

        An event naming a turn must name a known turn; its workspace defaults to the turn's.
        """
        event = {"type": type, "turn_id": turn_id, "workspace": workspace, "payload": payload, "at": at}
        return self._store.commit([self._pending(event)])[0]

    def append_many(self, events: Iterable[dict[str, Any] | tuple]) -> list[Event]:
        """Append several events in one transaction: all are stored or none.

        Each item is a dict with ``type`` and optional ``turn_id``, ``workspace``, ``payload``,
        ``at``, or a tuple ``(type, turn_id, workspace, payload)``.
        """
        pending = []
        for n, item in enumerate(events):
            try:
                if not isinstance(item, dict):
                    if not 1 <= len(item) <= 4:
                        raise InputError(f"a tuple takes 1 to 4 fields ({', '.join(APPENDED_FIELDS[:4])})")
                    item = dict(zip(APPENDED_FIELDS, item))
                unknown = set(item) - set(APPENDED_FIELDS)
                if unknown:
                    raise InputError(f"unknown field(s) {sorted(unknown)}")
                pending.append(self._pending(item))
            except (InputError, TypeError) as exc:
                raise InputError(f"event {n}: {exc}") from exc
        if not pending:
            return []
        return self._store.commit(pending)

    def get(self, event_id: str) -> Event | None:
        rows = self._store.query(f"SELECT {EVENT_COLUMNS} FROM events WHERE id = ?", (event_id,))
        return Event.from_row(rows[0]) if rows else None

    def recent(
        self,
        limit: int = 50,
        type: str | None = None,
        turn_id: str | None = None,
        workspace: str | None = None,
        since: datetime | int | str | None = None,
    ) -> list[Event]:
        """The newest events first (by time, then commit order), optionally filtered."""
        limit = check_limit(limit, MAX_RECENT)
        if type is not None:
            check_type(type)
        since_us = None if since is None else to_us(since)
        store = self._store
        store.sync()
        # The ring answers unfiltered reads; a filtered one walks its index in the database,
        # which costs the same whether the matches are frequent or rare (a ring scan does not).
        if turn_id is None and type is None and workspace is None:
            found = self._from_ring(limit, since_us)
            if found is not None:
                return found
        where, params = [], []
        for column, value in (("type", type), ("turn_id", turn_id), ("workspace", workspace)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if since_us is not None:
            where.append("ts >= ?")
            params.append(since_us)
        sql = f"SELECT {EVENT_COLUMNS} FROM events"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY ts DESC, seq DESC LIMIT ?"
        params.append(limit)
        return [Event.from_row(r) for r in store.query(sql, tuple(params))]

    def _from_ring(self, limit: int, since_us: int | None) -> list[Event] | None:
        """The answer from memory, or None when the ring cannot be sure it has all of it."""
        with self._store.mem_lock:
            ring = self._store.ring
            found = []
            for ev in ring.newest():
                if since_us is not None and ev.ts < since_us:
                    return found
                found.append(ev)
                if len(found) == limit:
                    return found
            if since_us is not None and (since_us, -1) >= ring.floor:
                return found
        return None

    def count(self) -> int:
        return self._store.query("SELECT count(*) FROM events")[0][0]

    def iter_jsonl(self, since: datetime | int | str | None = None) -> Iterator[str]:
        """Export lines in commit order from a private read snapshot (safe to stream slowly)."""
        since_us = 0 if since is None else to_us(since)
        conn = self._store.open_reader()
        try:
            cur = conn.execute(
                f"SELECT {EVENT_COLUMNS} FROM events WHERE ts >= ? ORDER BY seq", (since_us,)
            )
            while rows := cur.fetchmany(1000):
                for row in rows:
                    yield Event.from_row(row).to_jsonl()
        except sqlite3.DatabaseError as exc:
            raise db.store_error(self._store.path, "export failed", exc) from exc
        finally:
            conn.close()

    def export_jsonl(self, fh: IO[str], since: datetime | int | str | None = None) -> int:
        n = 0
        for line in self.iter_jsonl(since):
            fh.write(line)
            n += 1
        return n

    def import_jsonl(self, fh: IO[str] | Iterable[str]) -> ImportReport:
        """Import an export: all lines are checked first, then stored in one transaction.

        Events whose id is already stored are skipped, so importing twice is harmless. Turn
        events update the turn index as they did when first appended.
        """
        pending: list[PendingEvent] = []
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
                if not isinstance(obj, dict):
                    raise InputError("expected a JSON object")
                unknown = set(obj) - {"id", "seq", "time", "type", "turn_id", "workspace", "prov", "payload"}
                if unknown:
                    raise InputError(f"unknown field(s) {sorted(unknown)}")
                for required in ("id", "time", "type"):
                    if required not in obj:
                        raise InputError(f"{required}: missing")
                if obj.get("prov", Prov.RUNTIME.value) != Prov.RUNTIME.value:
                    raise InputError(f"prov: events are RUNTIME, got {obj['prov']!r}")
                pending.append(self._pending({**obj, "at": obj["time"], "event_id": obj["id"]}))
            except ValueError as exc:
                raise InputError(f"line {lineno}: invalid JSON ({exc}); nothing was imported") from exc
            except InputError as exc:
                raise InputError(f"line {lineno}: {exc}; nothing was imported") from exc
        imported = self._store.import_events(pending)
        return ImportReport(read=len(pending), imported=imported, skipped_existing=len(pending) - imported)

    def prune(self, now: datetime | int | str | None = None, *, dry_run: bool = False) -> PruneReport:
        """Delete events older than ``context.retain_days`` before `now`; report what went."""
        started = time.perf_counter()
        now_ = now_us() if now is None else to_us(now)
        cutoff = now_ - self._store.settings.context.retain_days * 86_400_000_000
        by_type, remaining = self._store.prune_events(cutoff, dry_run)
        return PruneReport(
            cutoff=iso(cutoff),
            removed=sum(by_type.values()),
            by_type=by_type,
            remaining=remaining,
            dry_run=dry_run,
            seconds=round(time.perf_counter() - started, 6),
        )
