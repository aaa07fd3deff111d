"""`ContextStore`: the process's handle on the embedded store (events, turns, episodes).

One store per process (`get_store()`), shared by threads; several processes may use the same
database file. Writes from concurrent threads are grouped (group commit): one caller, the
leader, commits every queued request in one transaction, so that one caller's bad input never
fails another's (requests with turn events get a savepoint each; the others are checked before
anything is written); the others wait and are released when their batch has committed. A lone
event that changes nothing but the log is a single INSERT, its own transaction. A call returns
only after its transaction committed.

The in-memory ring and turn index follow the log in commit order: before each write, and
before reads when ``PRAGMA data_version`` says another connection committed, the events with
a higher ``seq`` than the last one seen are read and applied.
"""

from __future__ import annotations

import functools
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

from graphsvc.context import db
from graphsvc.context.episodes import Episodes
from graphsvc.context.events import (
    EVENT_COLUMNS,
    TURN_EVENT_TYPES,
    Event,
    EventLog,
    PendingEvent,
    Ring,
    now_us,
)
from graphsvc.context.turns import TurnIndex
from graphsvc.errors import GraphsvcError, InputError, StoreError
from graphsvc.lazy import Lazy
from graphsvc.settings import Settings, get_settings

PRUNE_CHUNK = 5000
ROWS_PER_INSERT = 100

# Every event names its seq, one above the highest ever given (see 003_events_seq_floor.sql).
LAST_SEQ = "SELECT max(seq_floor, ifnull((SELECT max(seq) FROM events), 0)) FROM retention WHERE id = 1"
_INSERT = "INSERT INTO events (seq, id, ts, type, turn_id, workspace, payload) VALUES "
INSERT_NEXT = f"{_INSERT}(({LAST_SEQ}) + 1, ?, ?, ?, ?, ?, ?)"


@functools.cache
def _insert_sql(n: int) -> str:
    return _INSERT + ", ".join(["(?, ?, ?, ?, ?, ?, ?)"] * n)


class _Request:
    __slots__ = ("rows", "strict", "plain", "done", "events", "error", "wake", "leads")

    def __init__(self, rows: list[PendingEvent], strict: bool):
        self.rows = rows
        self.strict = strict
        # No turn events: nothing is written but the events, and all checks come first.
        self.plain = all(row.type not in TURN_EVENT_TYPES for row in rows)
        self.done = False
        self.events: list[Event] = []
        self.error: BaseException | None = None
        # Held while the request waits in the queue; released when it is done or leads.
        self.wake: threading.Lock | None = None
        self.leads = False  # made the next leader while waiting


class ContextStore:
    def __init__(self, path: Path | None = None, settings: Settings | None = None):
        self.settings = settings or get_settings()
        self.path = Path(path) if path is not None else db.store_path(self.settings)
        self.conn = db.connect(self.path)
        self.db_lock = threading.RLock()  # the connection and the write path
        self.mem_lock = threading.RLock()  # the ring and the turn index
        self._cursor = self.conn.cursor()  # the write path's, used under db_lock
        self._queue: list[_Request] = []  # requests waiting for the leader
        self._callers = 0  # threads inside commit()
        self._queue_lock = threading.Lock()
        self._writing = False  # a leader is committing a batch
        self._last_seq = 0
        self._data_version = -1
        self._closed = False
        ctx = self.settings.context
        warm_from = now_us() - ctx.warm_load_days * 86_400_000_000
        self.ring = Ring(ctx.max_events, (warm_from, -1))
        self.events = EventLog(self)
        self.turns = TurnIndex(self)
        self.episodes = Episodes(self)
        try:
            self._load(warm_from)
        except BaseException:
            self.conn.close()
            raise

    # -- opening ---------------------------------------------------------------------------

    def _load(self, warm_from: int) -> None:
        with self.db_lock:
            try:
                self.conn.execute("BEGIN")
                try:
                    self._last_seq = self.conn.execute(
                        "SELECT coalesce(max(seq), 0) FROM events"
                    ).fetchone()[0]
                    rows = self.conn.execute(
                        f"SELECT {EVENT_COLUMNS} FROM events WHERE ts >= ? "
                        "ORDER BY ts DESC, seq DESC LIMIT ?",
                        (warm_from, self.settings.context.max_events),
                    ).fetchall()
                    self.turns.load(self.conn)
                finally:
                    self.conn.execute("COMMIT")
                self._data_version = self.conn.execute("PRAGMA data_version").fetchone()[0]
            except sqlite3.DatabaseError as exc:
                raise db.store_error(self.path, "cannot load the context store", exc) from exc
        with self.mem_lock:
            if len(rows) >= self.settings.context.max_events:
                # The window holds more than the ring: it covers only from its oldest event.
                self.ring.floor = (rows[-1]["ts"], rows[-1]["seq"])
            for row in reversed(rows):
                self.ring.add(Event.from_row(row))

    def close(self) -> None:
        with self.db_lock:
            if not self._closed:
                self._closed = True
                self.conn.close()

    def open_reader(self) -> sqlite3.Connection:
        """A separate connection for long reads (exports) that must not hold the shared one."""
        return db.connect(self.path, migrate=False)

    @staticmethod
    def random_bytes() -> bytes:
        return os.urandom(6)

    # -- reads -----------------------------------------------------------------------------

    def query(self, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
        with self.db_lock:
            try:
                return self.conn.execute(sql, params).fetchall()
            except sqlite3.DatabaseError as exc:
                raise db.store_error(self.path, "query failed", exc) from exc

    def sync(self) -> None:
        """Catch up with commits made by other processes (cheap when there are none)."""
        if not self.db_lock.acquire(blocking=False):
            return  # a writer holds it and brings memory up to date when it commits
        try:
            version = self.conn.execute("PRAGMA data_version").fetchone()[0]
            if version == self._data_version:
                return
            self._data_version = version
            tail = self._tail()
            pruned_before = self.conn.execute(
                "SELECT pruned_before FROM retention WHERE id = 1"
            ).fetchone()[0]
            self._apply(tail)
            with self.mem_lock:
                self.ring.drop_before(pruned_before)
        except sqlite3.DatabaseError as exc:
            raise db.store_error(self.path, "cannot read the context store", exc) from exc
        finally:
            self.db_lock.release()

    def _tail(self, below: int | None = None) -> list[Event]:
        sql = f"SELECT {EVENT_COLUMNS} FROM events WHERE seq > ?"
        params: tuple = (self._last_seq,)
        if below is not None:
            sql += " AND seq < ?"
            params += (below,)
        rows = self.conn.execute(sql + " ORDER BY seq", params).fetchall()
        return [Event.from_row(r) for r in rows]

    def _apply(self, events: list[Event]) -> None:
        """Apply committed events, in seq order, to the ring and the turn index."""
        if not events:
            return
        with self.mem_lock:
            for ev in events:
                if ev.seq <= self._last_seq:
                    continue
                self._last_seq = ev.seq
                self.ring.add(ev)
                if ev.type in TURN_EVENT_TYPES:
                    self.turns.apply(ev)

    # -- writes ----------------------------------------------------------------------------

    def commit(self, rows: list[PendingEvent], strict: bool = True) -> list[Event]:
        """Store validated events atomically (group commit); returns them once committed.

        A caller leads when no batch is being written and every other caller is queued: it
        commits its request and all queued ones in one transaction. Otherwise it queues and
        sleeps on its own lock until its batch has committed or it is made the next leader.
        Callers released by a commit count as not yet queued until they return: leading
        without them would commit alone while they wait for the GIL, and batches would
        never form.
        """
        request = _Request(rows, strict)
        with self._queue_lock:
            self._callers += 1
            if self._writing or len(self._queue) < self._callers - 1:
                request.wake = threading.Lock()
                request.wake.acquire()
                self._queue.append(request)
            else:
                self._writing = True
        turn_events: list[Event] = []
        try:
            if request.wake is not None:
                request.wake.acquire()
            if not request.done:
                turn_events = self._lead(request)
        finally:
            with self._queue_lock:
                self._callers -= 1
                if not request.done:  # interrupted while waiting: leave the queue or the lead
                    if request in self._queue:
                        self._queue.remove(request)
                    elif request.leads:
                        self._writing = False
                successor = None
                if not self._writing and self._queue and len(self._queue) >= self._callers:
                    self._writing = True
                    successor = self._queue.pop(0)
                    successor.leads = True
            if successor is not None:
                successor.wake.release()
        if turn_events:
            # Outside the locks: mirroring turns may wait on the network.
            self.turns.after_commit(turn_events)
        if request.error is not None:
            raise request.error
        return request.events

    def _lead(self, request: _Request) -> list[Event]:
        """Commit `request` and every queued one; returns the turn events among them."""
        batch = [request]
        try:
            with self._queue_lock:
                batch += self._queue
                self._queue = []
            with self.db_lock:
                if len(batch) == 1 and len(request.rows) == 1 and request.plain:
                    self._commit_alone(request)
                else:
                    self._commit_batch(batch)
        finally:
            with self._queue_lock:
                self._writing = False
            for other in batch:
                if not other.done:  # interrupted before its batch was written
                    other.error, other.done = StoreError(f"{self.path}: the write was interrupted"), True
                if other is not request:
                    other.wake.release()
        return [e for r in batch for e in r.events if e.type in TURN_EVENT_TYPES]

    def _commit_alone(self, request: _Request) -> None:
        """One plain event: a single INSERT is its own transaction, the cheapest there is."""
        row = request.rows[0]
        try:
            if self._closed:
                raise StoreError(f"{self.path}: the context store is closed")
            # Turns are never deleted: a turn found here still exists when the insert commits.
            self._check_turn(row, request.strict)
            seq = self._cursor.execute(
                INSERT_NEXT, (row.id, row.ts, row.type, row.turn_id, row.workspace, row.payload_json)
            ).lastrowid
        except sqlite3.DatabaseError as exc:
            request.error = db.store_error(self.path, "could not store events", exc)
            return
        except GraphsvcError as exc:
            request.error = exc
            return
        except BaseException as exc:
            request.error = exc
            raise
        finally:
            request.done = True
        event = Event(seq, row.id, row.ts, row.type, row.turn_id, row.workspace, row.payload_json)
        request.events = [event]
        if seq == self._last_seq + 1:
            self._apply([event])
            return
        try:
            # Other processes committed before us: apply theirs first.
            missed = self._tail(below=seq)
        except sqlite3.DatabaseError:
            # The event is stored all the same; the next read or write brings memory up to date.
            self._data_version = -1
            return
        self._apply(missed + [event])

    def _commit_batch(self, batch: list[_Request]) -> None:
        """Commit the batch in one transaction; a caller's bad input fails only that caller.

        Plain requests are checked first and their events inserted together at the end, a
        few statements per batch whatever its size; the others are written one at a time,
        each request in a savepoint that undoes it alone (unless it is alone in the batch).
        """
        cur = self._cursor
        applied: list[Event] = []
        try:
            if self._closed:
                raise StoreError(f"{self.path}: the context store is closed")
            cur.execute("BEGIN IMMEDIATE")
            try:
                seq = cur.execute(LAST_SEQ).fetchone()[0]
                if seq > self._last_seq:
                    # Other processes committed since we last looked: apply theirs first.
                    applied = self._tail()
                guarded = len(batch) > 1
                plain: list[PendingEvent] = []
                for request in batch:
                    first = seq
                    try:
                        if request.plain:
                            for row in request.rows:
                                self._check_turn(row, request.strict)
                            plain.extend(request.rows)
                            seq += len(request.rows)
                        else:
                            if guarded:
                                cur.execute("SAVEPOINT request")
                            try:
                                for row in request.rows:
                                    seq += 1
                                    self._insert(row, request.strict, seq)
                            except InputError:
                                if guarded:
                                    cur.execute("ROLLBACK TO request")
                                    cur.execute("RELEASE request")
                                raise
                            if guarded:
                                cur.execute("RELEASE request")
                    except InputError as exc:
                        if not guarded:
                            raise
                        seq = first
                        request.error = exc
                        continue
                    request.events = [
                        Event(s, r.id, r.ts, r.type, r.turn_id, r.workspace, r.payload_json)
                        for s, r in enumerate(request.rows, first + 1)
                    ]
                self._insert_rows(plain, [e.seq for r in batch if r.plain for e in r.events])
                cur.execute("COMMIT")
            except BaseException:
                if self.conn.in_transaction:
                    cur.execute("ROLLBACK")
                raise
        except sqlite3.DatabaseError as exc:
            error: BaseException = db.store_error(self.path, "could not store events", exc)
            for request in batch:
                request.error, request.events = error, []
        except GraphsvcError as exc:
            for request in batch:
                request.error, request.events = exc, []
        except BaseException as exc:
            # Never let a waiting caller return as if its events were stored.
            for request in batch:
                request.error, request.events = exc, []
            raise
        finally:
            for request in batch:
                applied.extend(request.events)
                request.done = True
            self._apply(sorted(applied, key=lambda e: e.seq))

    def _check_turn(self, row: PendingEvent, strict: bool) -> None:
        """An ordinary event naming a turn: the turn must exist; the workspace comes from it."""
        if strict and row.turn_id is not None:
            row.workspace = self.turns.check_event_turn(self.conn, row.turn_id, row.workspace)

    def _insert(self, row: PendingEvent, strict: bool, seq: int) -> None:
        if row.type in TURN_EVENT_TYPES:
            row = self.turns.project(self.conn, row, strict)
        else:
            self._check_turn(row, strict)
        self._insert_rows([row], [seq])

    def _insert_rows(self, rows: list[PendingEvent], seqs: list[int]) -> None:
        for i in range(0, len(rows), ROWS_PER_INSERT):
            chunk = rows[i : i + ROWS_PER_INSERT]
            params = [
                value
                for seq, row in zip(seqs[i : i + ROWS_PER_INSERT], chunk)
                for value in (seq, row.id, row.ts, row.type, row.turn_id, row.workspace, row.payload_json)
            ]
            self._cursor.execute(_insert_sql(len(chunk)), params)

    def import_events(self, rows: list[PendingEvent]) -> int:
        """Store imported events not already present, in file order, in one transaction."""
        with self.db_lock:
            conn = self.conn
            tail: list[Event] = []
            stored: list[Event] = []
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    tail = self._tail()
                    seq = conn.execute(LAST_SEQ).fetchone()[0]
                    ids = [r.id for r in rows]
                    existing: set[str] = set()
                    for i in range(0, len(ids), 500):
                        chunk = ids[i : i + 500]
                        marks = ",".join("?" * len(chunk))
                        existing.update(
                            r[0] for r in conn.execute(f"SELECT id FROM events WHERE id IN ({marks})", chunk)
                        )
                    for row in rows:
                        if row.id in existing:
                            continue
                        existing.add(row.id)
                        seq += 1
                        self._insert(row, False, seq)
                        stored.append(
                            Event(seq, row.id, row.ts, row.type, row.turn_id, row.workspace, row.payload_json)
                        )
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    stored = []
                    raise
            except sqlite3.DatabaseError as exc:
                raise db.store_error(self.path, "import failed, nothing was imported", exc) from exc
            finally:
                self._apply(tail + stored)
            return len(stored)

    def prune_events(self, cutoff: int, dry_run: bool) -> tuple[dict[str, int], int]:
        """Delete events with ts < cutoff, in chunks of `PRUNE_CHUNK` per transaction so that
        writers in other processes never wait long for the lock."""
        by_type: dict[str, int] = {}
        conn = self.conn
        try:
            if dry_run:
                rows = self.query(
                    "SELECT type, count(*) FROM events WHERE ts < ? GROUP BY type ORDER BY type", (cutoff,)
                )
                return {r[0]: r[1] for r in rows}, self.query("SELECT count(*) FROM events")[0][0]
            while True:
                with self.db_lock:
                    conn.execute("BEGIN IMMEDIATE")
                    try:
                        tail = self._tail()
                        # This chunk: the oldest PRUNE_CHUNK events (and any sharing the last one's time).
                        edge = conn.execute(
                            "SELECT ts FROM events WHERE ts < ? ORDER BY ts LIMIT 1 OFFSET ?",
                            (cutoff, PRUNE_CHUNK),
                        ).fetchone()
                        upto = cutoff if edge is None else edge[0] + 1
                        counts = conn.execute(
                            "SELECT type, count(*) FROM events WHERE ts < ? GROUP BY type", (upto,)
                        ).fetchall()
                        if counts:
                            conn.execute(
                                "UPDATE retention SET pruned_before = max(pruned_before, ?) WHERE id = 1",
                                (upto,),
                            )
                            conn.execute("DELETE FROM events WHERE ts < ?", (upto,))
                        conn.execute("COMMIT")
                    except BaseException:
                        if conn.in_transaction:
                            conn.execute("ROLLBACK")
                        raise
                    self._apply(tail)
                    with self.mem_lock:
                        self.ring.drop_before(cutoff)
                for type_, n in counts:
                    by_type[type_] = by_type.get(type_, 0) + n
                if not counts:
                    break
            remaining = self.query("SELECT count(*) FROM events")[0][0]
        except sqlite3.DatabaseError as exc:
            removed = sum(by_type.values())
            raise db.store_error(self.path, f"prune stopped after removing {removed} events", exc) from exc
        return dict(sorted(by_type.items())), remaining

    def write(self, sql_and_params: list[tuple[str, tuple]]) -> None:
        """Run statements on tables other than the log in one transaction (episodes, mirror flags)."""
        with self.db_lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                try:
                    for sql, params in sql_and_params:
                        self.conn.execute(sql, params)
                    self.conn.execute("COMMIT")
                except BaseException:
                    if self.conn.in_transaction:
                        self.conn.execute("ROLLBACK")
                    raise
            except sqlite3.DatabaseError as exc:
                raise db.store_error(self.path, "write failed", exc) from exc

    def insert(self, sql: str, params: tuple) -> int:
        """One INSERT in its own transaction; returns the new rowid."""
        with self.db_lock:
            try:
                return self.conn.execute(sql, params).lastrowid
            except sqlite3.DatabaseError as exc:
                raise db.store_error(self.path, "write failed", exc) from exc

    def integrity_check(self) -> str:
        with self.db_lock:
            return db.integrity_check(self.conn)

    def stats(self) -> dict[str, Any]:
        with self.mem_lock:
            ring = len(self.ring)
        return {
            "path": str(self.path),
            "events": self.events.count(),
            "ring": ring,
            "turns": self.turns.count(),
            "last_seq": self._last_seq,
        }


_store: Lazy[ContextStore] = Lazy(ContextStore, ContextStore.close)


def get_store() -> ContextStore:
    """The process-wide store, opened on first use from the settings."""
    return _store.get()


def reset_store() -> None:
    """Close the process-wide store (tests point the settings elsewhere)."""
    _store.reset()
