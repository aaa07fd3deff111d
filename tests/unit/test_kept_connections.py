"""Kept SQLite connections: one run's connection is never handed to another run at once,
a failed use is not kept, and a replaced file is opened anew."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from graphsvc.context.kept import KeptConnections, file_identity


def _kept(limit: int = 4) -> tuple[KeptConnections[sqlite3.Connection], list]:
    closed: list[sqlite3.Connection] = []

    def close(conn: sqlite3.Connection) -> None:
        closed.append(conn)
        conn.close()

    return KeptConnections(limit, close), closed


def test_two_uses_at_once_get_two_connections_and_both_close(tmp_path):
    kept, closed = _kept()
    path = tmp_path / "store.db"
    sqlite3.connect(path).close()
    inside = threading.Barrier(2)
    seen: list[sqlite3.Connection] = []

    def run() -> None:
        with kept.use(path, lambda: sqlite3.connect(path, check_same_thread=False)) as conn:
            seen.append(conn)
            inside.wait(timeout=10)

    with kept.use(path, lambda: sqlite3.connect(path, check_same_thread=False)) as first:
        pass  # now kept: the next use takes it
    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert len(seen) == 2 and seen[0] is not seen[1]
    assert first in seen
    # One of the two is kept; the other, displaced, was closed rather than left open.
    assert len(kept) == 1 and len(closed) == 1


def test_a_failed_use_is_closed_not_kept(tmp_path):
    kept, closed = _kept()
    path = tmp_path / "store.db"
    with pytest.raises(RuntimeError):
        with kept.use(path, lambda: sqlite3.connect(path)):
            raise RuntimeError("boom")
    assert len(kept) == 0 and len(closed) == 1


def test_a_replaced_file_is_opened_anew_and_a_removed_one_not_kept(tmp_path):
    kept, closed = _kept()
    path = tmp_path / "store.db"
    with kept.use(path, lambda: sqlite3.connect(path)) as first:
        first.execute("CREATE TABLE t (x)")
    replacement = tmp_path / "new.db"
    sqlite3.connect(replacement).close()
    replacement.replace(path)
    with kept.use(path, lambda: sqlite3.connect(path)) as second:
        assert second is not first
        path.unlink()
    assert closed == [first, second] and len(kept) == 0


def test_the_least_recently_returned_is_closed_beyond_the_limit(tmp_path):
    kept, closed = _kept(limit=2)
    conns = []
    for name in "abc":
        path = tmp_path / f"{name}.db"
        with kept.use(path, lambda path=path: sqlite3.connect(path)) as conn:
            conns.append(conn)
    assert closed == [conns[0]] and len(kept) == 2


def test_identity_with_content_sees_an_overwrite_in_place(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"one")
    before = file_identity(path, content=True)
    with open(path, "ab") as fh:
        fh.write(b"two")
    assert file_identity(path) == file_identity(path)
    assert file_identity(path, content=True) != before
    assert file_identity(tmp_path / "missing") is None
