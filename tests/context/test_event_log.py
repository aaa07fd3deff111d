"""The event log against real SQLite files: appends, validation, queries, the ring, warm load,
retention, export/import, several processes, corruption and kill -9."""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.context import ctx_workers
from graphsvc.context import db
from graphsvc.context import store as store_module
from graphsvc.context.events import iso, to_us
from graphsvc.context.store import ContextStore
from graphsvc.errors import InputError, NotFoundError, StoreError

NOW = datetime(2026, 6, 1, 12, 0, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def count(store: ContextStore) -> int:
    return store.events.count()


# -- appending and reading ------------------------------------------------------------------


def test_an_appended_event_is_committed_with_runtime_provenance_and_read_back_newest_first(store):
    first = store.events.append("FulfilledLocal", None, "/ws/a", {"model": "local", "tokens": 12})
    second = store.events.append("OriginPassthrough", None, "/ws/b", {"reason": "too long"})
    assert first.prov == second.prov == "RUNTIME"
    assert second.seq > first.seq and first.id != second.id
    assert [e.id for e in store.events.recent(10)] == [second.id, first.id]
    assert store.events.get(first.id).payload == {"model": "local", "tokens": 12}
    # Committed: another connection sees it.
    other = sqlite3.connect(store.path)
    assert other.execute("SELECT type, prov FROM events WHERE id = ?", (first.id,)).fetchone() == (
        "FulfilledLocal",
        "RUNTIME",
    )
    other.close()


def test_recent_filters_by_type_turn_workspace_and_since(store):
    store.turns.open_turn("/ws/a", "t1", at=NOW - 4 * DAY)
    store.events.append("RouteDecided", "t1", None, {"n": 1}, at=NOW - 3 * DAY)
    store.events.append("FulfilledLocal", "t1", None, {"n": 2}, at=NOW - 2 * DAY)
    store.events.append("FulfilledLocal", None, "/ws/b", {"n": 3}, at=NOW - DAY)
    assert [e.payload["n"] for e in store.events.recent(10, type="FulfilledLocal")] == [3, 2]
    assert [e.payload.get("n") for e in store.events.recent(10, turn_id="t1")] == [2, 1, None]
    assert [e.payload["n"] for e in store.events.recent(10, workspace="/ws/b")] == [3]
    since = store.events.recent(10, since=iso(to_us(NOW - 2 * DAY)), type="FulfilledLocal")
    assert [e.payload["n"] for e in since] == [3, 2]
    assert len(store.events.recent(1)) == 1


def test_an_event_naming_a_turn_takes_the_turn_s_workspace_and_must_agree_with_it(store):
    store.turns.open_turn("/ws/a", "t1")
    ev = store.events.append("FulfilledLocal", "t1", None, {})
    assert ev.workspace == "/ws/a"
    before = count(store)
    with pytest.raises(InputError, match="workspace"):
        store.events.append("FulfilledLocal", "t1", "/ws/other", {})
    with pytest.raises(NotFoundError, match="unknown turn 'nope'"):
        store.events.append("FulfilledLocal", "nope", None, {})
    assert count(store) == before


@pytest.mark.parametrize("name", ["RouteDecided", "X", "CacheHit2", "A" + "b" * 63])
def test_any_well_formed_type_name_is_accepted(store, name):
    assert store.events.append(name, None, None, {}).type == name


@pytest.mark.parametrize("name", ["", "routeDecided", "Route Decided", "Route-Decided", "A" + "b" * 64, "Ünicode", 7, None])
def test_malformed_type_names_are_refused_and_nothing_is_stored(store, name):
    with pytest.raises(InputError, match="^type:"):
        store.events.append(name, None, None, {})
    assert count(store) == 0


@pytest.mark.parametrize(
    "payload, message",
    [
        ('{"a": ', "invalid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{"a": NaN}', "NaN"),
        ({"a": float("inf")}, "not representable as JSON"),
        ({"a": object()}, "not representable as JSON"),
        ([1], "must be a JSON object"),
        (42, "must be a JSON object"),
    ],
)
def test_invalid_payloads_are_refused_naming_the_field_and_nothing_is_stored(store, payload, message):
    with pytest.raises(InputError, match=f"^payload: .*{message}"):
        store.events.append("FulfilledLocal", None, None, payload)
    assert count(store) == 0


def test_payload_size_is_bounded_at_the_configured_limit(ctx_settings):
    ctx_settings.context.max_payload_bytes = 100
    store = ContextStore(settings=ctx_settings)
    try:
        overhead = len('{"x":""}')
        ok = store.events.append("FulfilledLocal", None, None, {"x": "a" * (100 - overhead)})
        assert len(ok.payload_json.encode()) == 100
        with pytest.raises(InputError, match="payload: 101 bytes is over the 100-byte limit"):
            store.events.append("FulfilledLocal", None, None, {"x": "a" * (101 - overhead)})
        # Multi-byte characters count as bytes, not characters.
        with pytest.raises(InputError, match="over the 100-byte limit"):
            store.events.append("FulfilledLocal", None, None, {"x": "é" * 60})
        assert count(store) == 1
    finally:
        store.close()


def test_append_many_stores_all_or_nothing_and_names_the_bad_item(store):
    good = {"type": "FulfilledLocal", "workspace": "/ws", "payload": {"i": 1}}
    with pytest.raises(InputError, match=r"^event 2: type:"):
        store.events.append_many([good, good, {"type": "bad type"}, good])
    with pytest.raises(NotFoundError, match="unknown turn"):
        store.events.append_many([good, {"type": "FulfilledLocal", "turn_id": "missing"}])
    assert count(store) == 0
    stored = store.events.append_many([good, ("RouteDecided", None, "/ws", {"i": 2})])
    assert [e.seq for e in stored] == sorted(e.seq for e in stored) and count(store) == 2
    with pytest.raises(InputError, match=r"^event 1: a tuple takes 1 to 4 fields"):
        store.events.append_many([good, ("RouteDecided", None, "/ws", {}, NOW)])
    with pytest.raises(InputError, match=r"^event 0: type: missing"):
        store.events.append_many([{"workspace": "/ws"}])
    assert count(store) == 2


def test_the_log_refuses_updates_and_deletes_outside_retention(store):
    ev = store.events.append("FulfilledLocal", None, None, {"a": 1})
    conn = db.connect(store.path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("UPDATE events SET payload = '{}' WHERE id = ?", (ev.id,))
    with pytest.raises(sqlite3.IntegrityError, match="only retention may delete"):
        conn.execute("DELETE FROM events WHERE id = ?", (ev.id,))
    conn.close()
    assert store.events.get(ev.id).payload == {"a": 1}


def in_threads(step, threads: int, steps: int) -> tuple[list, list[NotFoundError]]:
    """`step(k, i)` for i < `steps` on each thread k < `threads` at once: every item the steps
    returned, and the NotFoundErrors they raised."""
    results: list = []
    errors: list[NotFoundError] = []
    lock = threading.Lock()

    def worker(k: int) -> None:
        for i in range(steps):
            try:
                out = step(k, i)
                with lock:
                    results.extend(out)
            except NotFoundError as exc:
                with lock:
                    errors.append(exc)

    running = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
    for t in running:
        t.start()
    for t in running:
        t.join()
    return results, errors


def test_concurrent_threads_share_commits_and_one_caller_s_bad_input_fails_only_that_caller(store):
    store.turns.open_turn("/ws", "t1")

    def step(k: int, i: int) -> list[str]:
        turn = "missing" if (k == 0 and i % 50 == 0) else "t1"
        return [store.events.append("FulfilledLocal", turn, None, {"k": k, "i": i}).id]

    acked, errors = in_threads(step, threads=8, steps=200)
    assert len(errors) == 4
    assert len(acked) == 8 * 200 - 4 == len(set(acked))
    assert count(store) == len(acked) + 1  # + TurnOpened
    stored = {r[0] for r in store.query("SELECT id FROM events")}
    assert set(acked) <= stored
    assert [e.id for e in store.events.recent(10_000, type="FulfilledLocal")] == [
        r[0] for r in store.query("SELECT id FROM events WHERE type='FulfilledLocal' ORDER BY ts DESC, seq DESC")
    ]


# -- the ring and warm load -----------------------------------------------------------------


def test_warm_load_after_restart_reloads_only_the_last_days_and_queries_still_see_everything(store, reopen):
    now = datetime.now(UTC)
    ages = [10, 5, 3, 1.5, 1, 0.5, 0.01]  # days
    for age in ages:
        store.events.append("FulfilledLocal", None, "/ws", {"age": age}, at=now - timedelta(days=age))
    again = reopen(store)
    assert [e.payload["age"] for e in again.ring.newest()] == [0.01, 0.5, 1, 1.5]  # warm_load_days = 2
    assert [e.payload["age"] for e in again.events.recent(100)] == sorted(ages)
    assert [e.payload["age"] for e in again.events.recent(2)] == [0.01, 0.5]


def test_the_ring_holds_at_most_max_events_and_older_reads_fall_back_to_the_database(ctx_settings, reopen):
    ctx_settings.context.max_events = 10
    store = reopen()
    for i in range(25):
        store.events.append("FulfilledLocal", None, "/ws", {"i": i})
    assert len(store.ring) == 10
    assert [e.payload["i"] for e in store.events.recent(20)] == list(range(24, 4, -1))
    again = reopen(store)
    assert len(again.ring) == 10
    assert [e.payload["i"] for e in again.events.recent(25)] == list(range(24, -1, -1))
    assert [e.payload["i"] for e in again.events.recent(3, type="FulfilledLocal")] == [24, 23, 22]
    # A time window reaching past the ring's oldest event is read from the database.
    since = datetime.now(UTC) - timedelta(hours=1)
    assert [e.payload["i"] for e in again.events.recent(100, since=since)] == list(range(24, -1, -1))


# -- retention ------------------------------------------------------------------------------


def test_prune_removes_exactly_the_events_older_than_retain_days_and_reports_them(store):
    cutoff = NOW - 14 * DAY
    store.events.append("RouteDecided", None, None, {"k": "old"}, at=cutoff - timedelta(microseconds=1))
    store.events.append("FulfilledLocal", None, None, {"k": "old"}, at=cutoff - DAY)
    store.events.append("FulfilledLocal", None, None, {"k": "boundary"}, at=cutoff)
    store.events.append("FulfilledLocal", None, None, {"k": "new"}, at=NOW)

    dry = store.events.prune(now=NOW, dry_run=True)
    assert (dry.removed, dry.dry_run, count(store)) == (2, True, 4)

    report = store.events.prune(now=NOW)
    assert report.cutoff == iso(to_us(cutoff))
    assert report.by_type == {"FulfilledLocal": 1, "RouteDecided": 1}
    assert (report.removed, report.remaining) == (2, 2)
    assert sorted(e.payload["k"] for e in store.events.recent(10)) == ["boundary", "new"]
    assert store.events.prune(now=NOW).removed == 0


def test_prune_works_in_chunks_and_counts_every_chunk(store, monkeypatch):
    monkeypatch.setattr(store_module, "PRUNE_CHUNK", 100)
    old = [{"type": t, "workspace": "/ws", "payload": {"i": i}, "at": NOW - 20 * DAY}
           for i, t in enumerate(["RouteDecided", "FulfilledLocal"] * 175)]
    store.events.append_many(old)
    store.events.append_many([{"type": "FulfilledLocal", "payload": {"keep": True}, "at": NOW}] * 3)
    report = store.events.prune(now=NOW)
    assert report.by_type == {"FulfilledLocal": 175, "RouteDecided": 175}
    assert (report.removed, report.remaining, count(store)) == (350, 3, 3)


def test_turns_outlive_the_pruning_of_their_events(store, reopen):
    store.turns.open_turn("/ws", "t1", session_id="s", keys={"goal": "ship it"}, at=NOW - 30 * DAY)
    store.turns.touched("t1", ["src/app.py"])
    store.turns.bind_sticky("t1", "cloud")
    assert store.events.prune().removed == 1  # TurnOpened; the other two are recent
    again = reopen(store)
    turn = again.turns.get("t1")
    assert turn is not None and turn.keys == {"goal": "ship it"}
    assert again.turns.sticky("t1").route == "cloud"
    assert again.turns.resolve({"text": "[session summary] so far", "session_id": "s"}).family_id == "t1"


# -- export and import ----------------------------------------------------------------------


def _fill(store: ContextStore) -> None:
    store.turns.open_turn("/ws/ä", "t1", session_id="s1", keys={"goal": "naïve → done", "plan": "a\nb"})
    store.turns.open_turn("/ws/ä", "t2", parent_id="t1")
    store.turns.touched("t2", ["src/app.py", "src/app.py#App.run"])
    store.turns.set_keys("t1", {"plan": None, "file-tree": "src/\n  app.py"})
    store.turns.bind_sticky("t1", "cloud")
    store.turns.resolve({"text": "fix App.run in src/app.py"}, record=True)
    store.events.append("FulfilledLocal", None, "/other", {"nested": {"list": [1, 2.5, None, True]}, "s": "a\u2028b\x85"})
    store.events.append("OriginPassthrough", None, None, {}, at=NOW)


def test_export_then_import_into_an_empty_store_re_exports_byte_identical(store, tmp_path, ctx_settings):
    _fill(store)
    first = io.StringIO()
    assert store.events.export_jsonl(first) == count(store) == 8
    lines = first.getvalue().splitlines()  # splits on U+2028 too: the export must not contain it raw
    assert len(lines) == 8 and all(json.loads(line)["prov"] == "RUNTIME" for line in lines)

    other_settings = ctx_settings.model_copy(deep=True)
    other_settings.context.dir = tmp_path / "other"
    other = ContextStore(settings=other_settings)
    try:
        report = other.events.import_jsonl(io.StringIO(first.getvalue()))
        assert (report.read, report.imported, report.skipped_existing) == (8, 8, 0)
        second = io.StringIO()
        other.events.export_jsonl(second)
        assert second.getvalue().encode() == first.getvalue().encode()
        # The turn index came along with the log.
        assert other.turns.get("t2").family_id == "t1"
        assert other.turns.get("t1").keys == {"goal": "naïve → done", "file-tree": "src/\n  app.py"}
        assert other.turns.sticky("t1").route == "cloud"
        assert other.turns.working_set("t2") == ["src/app.py", "src/app.py#App.run"]
        # Importing again stores nothing new.
        again = other.events.import_jsonl(io.StringIO(first.getvalue()))
        assert (again.imported, again.skipped_existing) == (0, 8)
    finally:
        other.close()


@pytest.mark.parametrize(
    "bad, message",
    [
        ("not json", "line 2: invalid JSON"),
        ('{"id": "x1", "time": "2026-01-01T00:00:00Z", "type": "bad type"}', "line 2: type:"),
        ('{"id": "x1", "time": "yesterday", "type": "Foo"}', "line 2: time:"),
        ('{"id": "x1", "time": "2026-01-01T00:00:00Z", "type": "Foo", "prov": "EXTRACTED"}', "line 2: prov:"),
        ('{"time": "2026-01-01T00:00:00Z", "type": "Foo"}', "line 2: id: missing"),
        ('{"id": "x1", "time": "2026-01-01T00:00:00Z", "type": "Foo", "payload": [1]}', "line 2: payload:"),
    ],
)
def test_a_bad_import_line_is_named_and_nothing_is_imported(store, bad, message):
    good = '{"id": "g1", "time": "2026-01-01T00:00:00Z", "type": "Foo", "payload": {}}'
    with pytest.raises(InputError, match=message):
        store.events.import_jsonl(io.StringIO(good + "\n" + bad + "\n"))
    assert count(store) == 0


# -- several processes ----------------------------------------------------------------------


def test_two_processes_append_concurrently_and_every_acknowledged_event_is_stored(store):
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        results = pool.starmap(
            ctx_workers.append_burst, [(str(store.path.parent), "a", 400), (str(store.path.parent), "b", 400)]
        )
    acked = [r for result in results for r in result]
    assert len(acked) == 800
    rows = dict(store.query("SELECT id, seq FROM events"))
    assert {i: s for i, s in acked} == rows  # every acknowledged event, with the seq it was given
    for result in results:  # each process's events keep their order
        seqs = [s for _, s in result]
        assert seqs == sorted(seqs)
    # This process's store catches up with the other processes' commits.
    tags = [e.payload["tag"] for e in store.events.recent(800)]
    assert sorted(tags) == ["a"] * 400 + ["b"] * 400
    assert store.integrity_check() == "ok"


def test_a_turn_opened_by_another_process_is_visible_and_resolvable_here(store):
    store.turns.open_turn("/ws", "root", session_id="s1")
    ctx = multiprocessing.get_context("spawn")
    proc = ctx.Process(target=ctx_workers.open_turn, args=(str(store.path.parent), "child", "root"))
    proc.start()
    proc.join(60)
    assert proc.exitcode == 0
    assert store.turns.get("child").family_id == "root"
    assert store.turns.resolve({"text": "look at other.py"}).family_id == "root"


def test_kill_9_during_a_burst_loses_nothing_that_was_acknowledged(store, tmp_path):
    context_dir = str(store.path.parent)
    store.close()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(__file__).parent), *sys.path]))
    child = subprocess.Popen(
        [sys.executable, str(Path(ctx_workers.__file__)), context_dir],
        stdout=subprocess.PIPE,
        env=env,
        text=True,
    )
    acked = []
    try:
        for line in child.stdout:
            acked.append(line.strip())
            if len(acked) >= 3000:
                break
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    rest = child.stdout.read().splitlines()  # printed (so acknowledged) before the kill
    acked += [line.strip() for line in rest if len(line.strip()) == 27]
    assert child.returncode == -signal.SIGKILL
    after = ctx_workers.open_store(context_dir)
    try:
        assert after.integrity_check() == "ok"
        stored = {r[0] for r in after.query("SELECT id FROM events")}
        assert set(acked) <= stored
        assert len(stored) >= len(acked) >= 3000
        after.events.append("FulfilledLocal", None, None, {"after": "crash"})
    finally:
        after.close()


# -- a damaged database ---------------------------------------------------------------------


def test_a_file_that_is_not_a_database_is_an_error_naming_it_and_is_left_alone(ctx_settings):
    path = Path(ctx_settings.context.dir) / db.DB_NAME
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match=str(path).replace(".", r"\.")):
        ContextStore(settings=ctx_settings)
    assert path.read_bytes() == b"this is not sqlite" * 100


def test_a_database_with_damaged_pages_is_an_error_naming_it(store, ctx_settings):
    for i in range(2000):
        store.events.append("FulfilledLocal", None, "/ws", {"i": i, "pad": "p" * 200})
    path = store.path
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    data = bytearray(path.read_bytes())
    data[4096 * 2 : 4096 * 40] = os.urandom(4096 * 38)  # keep the header, wreck the pages
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match=str(path).replace(".", r"\.")):
        again = ContextStore(settings=ctx_settings)
        try:  # if opening happened to miss the damage, reading the log must not
            again.events.recent(10_000)
            assert again.integrity_check() == "ok"
        finally:
            again.close()
    assert path.read_bytes() == bytes(data)



# -- seq ------------------------------------------------------------------------------------


def test_a_seq_is_never_given_again_even_after_retention_deleted_the_newest_events(store, reopen):
    kept = store.events.append("FulfilledLocal", None, "/ws", {"k": "kept"}, at=NOW)
    # Appended last, so highest in seq, but the oldest by time: retention deletes them.
    old = [store.events.append("RouteDecided", None, "/ws", {"i": i}, at=NOW - 30 * DAY) for i in range(3)]
    assert store.events.prune(now=NOW).removed == 3
    after = store.events.append("FulfilledLocal", None, "/ws", {"k": "after"})
    assert after.seq > old[-1].seq > kept.seq
    again = reopen(store)
    assert again.events.append_many([("FulfilledLocal", None, "/ws", {})])[0].seq > after.seq
    # Only the store gives seqs: an insert that leaves it to SQLite could reuse one.
    conn = db.connect(again.path)
    with pytest.raises(sqlite3.IntegrityError, match="never given twice"):
        conn.execute("INSERT INTO events (id, ts, type, payload) VALUES ('x1', 1, 'Foo', '{}')")
    conn.close()


def test_an_older_store_is_migrated_with_its_events_and_keeps_counting_above_every_seq_it_gave(
    ctx_settings, tmp_path
):
    path = Path(ctx_settings.context.dir) / db.DB_NAME
    older = tmp_path / "older-migrations"
    older.mkdir()
    for version, script in db.migrations()[:2]:
        (older / script.name).write_text(script.read_text())
    conn = db.connect(path, migrate=False)
    db.apply_migrations(conn, older)
    for i in range(1, 6):
        conn.execute(
            "INSERT INTO events (id, ts, type, workspace, payload) VALUES (?, ?, 'FulfilledLocal', '/ws', '{}')",
            (f"e{i}", i),
        )
    conn.execute("UPDATE retention SET pruned_before = 100 WHERE id = 1")
    conn.execute("DELETE FROM events WHERE seq >= 4")  # AUTOINCREMENT remembers 5
    conn.close()

    store = ContextStore(settings=ctx_settings)
    try:
        assert [(e.id, e.seq) for e in reversed(store.events.recent(10))] == [("e1", 1), ("e2", 2), ("e3", 3)]
        assert store.events.append("FulfilledLocal", None, "/ws", {}).seq == 6
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            store.conn.execute("UPDATE events SET payload = '{}' WHERE id = 'e1'")
    finally:
        store.close()


def test_callers_sharing_commits_get_the_seq_that_was_stored_and_bad_turn_events_fail_alone(store):
    store.turns.open_turn("/ws", "t1")

    def step(k: int, i: int) -> list[tuple[str, int]]:
        if i % 3 == 0:
            events = store.events.append_many(
                [("RouteDecided", "t1", None, {"k": k, "i": i}), ("FulfilledLocal", None, "/ws", {})]
            )
        elif k % 2 and i % 10 == 1:
            events = [store.events.append("TurnKeysSet", "missing", None, {"keys": {"a": "b"}})]
        elif i % 10 == 2:
            events = [store.events.append("TurnKeysSet", "t1", None, {"keys": {f"k{k}": str(i)}})]
        else:
            events = [store.events.append("FulfilledLocal", None, "/ws", {"k": k, "i": i})]
        return [(e.id, e.seq) for e in events]

    acked, errors = in_threads(step, threads=8, steps=150)
    assert len(errors) == 4 * 10  # i = 1, 11, ... 141 but not the multiples of 3
    assert dict(acked) == {i: s for i, s in store.query("SELECT id, seq FROM events WHERE type != 'TurnOpened'")}
    assert store.turns.get("t1").keys == {f"k{k}": "142" for k in range(8)}
    assert [e.seq for e in store.events.recent(10_000)] == [
        r[0] for r in store.query("SELECT seq FROM events ORDER BY ts DESC, seq DESC")
    ]


def test_a_new_store_uses_small_pages_and_an_existing_store_keeps_its_own(ctx_settings, tmp_path):
    """1 KiB pages make an append's commit write a quarter of the bytes; a store made with
    another page size opens with its events intact and keeps that size."""
    st = ContextStore(settings=ctx_settings)
    try:
        st.events.append("FulfilledLocal", None, "/w", {"n": 1})
        assert st.conn.execute("PRAGMA page_size").fetchone()[0] == db.PAGE_SIZE == 1024
        assert st.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == db.WAL_CHECKPOINT_PAGES
    finally:
        st.close()

    old = tmp_path / "old" / db.DB_NAME
    old.parent.mkdir()
    conn = sqlite3.connect(old)
    conn.execute("PRAGMA page_size = 4096")
    conn.execute("VACUUM")
    conn.close()
    conn = db.connect(old)
    conn.execute(
        "INSERT INTO events (seq, id, ts, type, payload) VALUES (1, 'e1', 1, 'FulfilledLocal', '{}')"
    )
    conn.close()
    conn = db.connect(old)
    try:
        assert conn.execute("PRAGMA page_size").fetchone()[0] == 4096
        assert conn.execute("SELECT id FROM events").fetchall()[0][0] == "e1"
        assert db.integrity_check(conn) == "ok"
    finally:
        conn.close()


@pytest.mark.parametrize("limit", [0, -1, "3", 2.5])
def test_every_listing_refuses_a_limit_that_is_not_a_positive_integer(store, limit):
    for listing in (store.events.recent, store.turns.list, store.episodes.list):
        with pytest.raises(InputError, match="limit: must be a positive integer"):
            listing(limit)
