"""The embedded SQLite database: opening, pragmas, versioned migrations, corruption checks.

One file (``<context.dir>/context.sqlite3``) shared by the server and CLI jobs. WAL lets
readers run beside one writer; ``busy_timeout`` gives a writer a bounded wait for the lock.
A file that is not a readable SQLite database is an error naming the path: we never replace
it with a fresh empty store.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

from graphsvc.context.kept import file_identity
from graphsvc.errors import InputError, StoreCorrupt, StoreError
from graphsvc.settings import SCHEMA_DIR, Settings, get_settings

MIGRATIONS_DIR = SCHEMA_DIR / "sqlite"
DB_NAME = "context.sqlite3"
BUSY_TIMEOUT_MS = 5000
PAGE_SIZE = 1024
WAL_CHECKPOINT_PAGES = 4000
_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")
# A time as the store keeps it.
Micros = Annotated[int, "microseconds since the epoch, UTC"]
# A count that can pass 2**31 (bytes): a Float in GraphQL, whose Int has 32 bits.
Int64 = Annotated[int, "may exceed 32 bits"]


def now_us() -> Micros:
    return time.time_ns() // 1000


def store_path(settings: Settings | None = None) -> Path:
    settings = settings or get_settings()
    assert settings.context.dir is not None
    return Path(settings.context.dir) / DB_NAME


def _check_file(path: Path) -> None:
    # Only stat: opening and closing the file here would drop every POSIX lock this process
    # holds on it, SQLite's included, and another process could then delete the WAL under us.
    if path.exists() and not path.is_file():
        raise StoreError(f"{path}: the context store path is not a file")


def refuse_store_file(path: str | Path, settings: Settings | None = None) -> None:
    """Refuse to read or write the store's own files as a user's input or output: writing
    would destroy it, and closing a descriptor of it drops this process's SQLite locks."""
    store = store_path(settings).resolve()
    names = {store, *(store.with_name(store.name + suffix) for suffix in ("-wal", "-shm", "-journal"))}
    if Path(path).resolve() in names:
        raise InputError(f"{path}: this is the context store's own file; give another path")


def path_of(conn: sqlite3.Connection) -> Path:
    """The file behind a connection (SQLite keeps it in memory: no page is read)."""
    return Path(conn.execute("PRAGMA database_list").fetchone()[2])


def corrupt_message(path: Path) -> str:
    return (
        f"{path}: the context store is not a SQLite database or is corrupt; move it away to start "
        "a new store, or restore a backup"
    )


# Damaged pages are found only when a read reaches them: the files this process found
# damaged, by identity, so that `health()` reports them until the file is replaced.
_damaged: dict[Path, tuple[int, ...] | None] = {}


def store_error(path: Path, doing: str, exc: sqlite3.Error) -> StoreError:
    """The error to raise for a failed SQLite call: `StoreCorrupt` when the file is damaged."""
    if getattr(exc, "sqlite_errorcode", 0) & 0xFF in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        _damaged[path] = file_identity(path)
        return StoreCorrupt(corrupt_message(path))
    return StoreError(f"{path}: {doing}: {exc}")


def health(path: Path | None = None) -> str | None:
    """Why the store cannot be used, or None when it opens and reads (a missing file is
    fine: it is created on first use)."""
    path = Path(path) if path is not None else store_path()
    if path in _damaged and _damaged[path] == file_identity(path):
        return corrupt_message(path)
    _damaged.pop(path, None)
    if not path.exists():
        return None
    try:
        conn = connect(path, migrate=False)
    except StoreError as exc:
        return str(exc)
    try:
        with reporting(path, "cannot read the context store"):
            if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'events'").fetchone():
                conn.execute("SELECT max(seq) FROM events").fetchone()
    except StoreError as exc:
        return str(exc)
    finally:
        conn.close()
    return None


@contextmanager
def reporting(path: Path, doing: str) -> Iterator[None]:
    """Raise SQLite's errors inside the block as `store_error`s naming `path`."""
    try:
        yield
    except sqlite3.Error as exc:
        raise store_error(path, doing, exc) from exc


def connect(path: Path | None = None, *, migrate: bool = True) -> sqlite3.Connection:
    """Open the store with our pragmas; apply pending migrations unless told not to."""
    path = Path(path) if path is not None else store_path()
    _check_file(path)
    conn = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(
            path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        # SQLite reads the header and the schema itself: a file that is not a database, or a
        # truncated one, fails here (SQLITE_NOTADB / SQLITE_CORRUPT).
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        # Takes effect only while the file is still empty (a new store; an existing one keeps
        # its page size). An append writes one page per index it touches: 1 KiB pages make a
        # commit write a quarter of the bytes 4 KiB pages do.
        conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
        conn.execute("PRAGMA journal_mode = WAL")
        # Checkpoint (and fsync) once per WAL_CHECKPOINT_PAGES pages written, not per 1,000.
        conn.execute(f"PRAGMA wal_autocheckpoint = {WAL_CHECKPOINT_PAGES}")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        if migrate:
            apply_migrations(conn)
    except sqlite3.DatabaseError as exc:
        if conn is not None:
            conn.close()
        raise store_error(path, "the context store cannot be used", exc) from exc
    except OSError as exc:
        raise StoreError(f"{path}: cannot open the context store ({exc})") from exc
    return conn


def migrations(directory: Path = MIGRATIONS_DIR) -> list[tuple[int, Path]]:
    found = []
    for path in sorted(directory.glob("*.sql")):
        match = _NAME.match(path.name)
        if not match:
            raise StoreError(f"{path}: SQLite migrations must be named NNN_lowercase_words.sql")
        found.append((int(match.group(1)), path))
    return found


_migrate_lock = threading.Lock()


def apply_migrations(conn: sqlite3.Connection, directory: Path = MIGRATIONS_DIR) -> int:
    """Apply migrations newer than ``PRAGMA user_version``, each in its own transaction."""
    with _migrate_lock:
        current = conn.execute("PRAGMA user_version").fetchone()[0]
        for version, path in migrations(directory):
            if version <= current:
                continue
            conn.execute("BEGIN IMMEDIATE")
            try:
                # Another process may have migrated while we waited for the lock.
                if conn.execute("PRAGMA user_version").fetchone()[0] >= version:
                    conn.execute("COMMIT")
                    continue
                for statement in _statements(path.read_text()):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {version}")
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            current = version
        return current


def _statements(script: str) -> list[str]:
    """Split a script on complete statements (triggers contain inner semicolons)."""
    statements, buffer = [], ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements


def integrity_check(conn: sqlite3.Connection) -> str:
    return conn.execute("PRAGMA integrity_check").fetchone()[0]


# -- the parts of the store that share one connection --------------------------------------

# Keyed by id(): connections cannot be weakly referenced. Should an id be reused by a later
# connection, the two merely share a lock, which is harmless.
_conn_locks: dict[int, threading.RLock] = {}
_conn_locks_guard = threading.Lock()


def connection_lock(conn: sqlite3.Connection) -> threading.RLock:
    """One lock per connection: objects sharing a connection must not interleave transactions."""
    with _conn_locks_guard:
        return _conn_locks.setdefault(id(conn), threading.RLock())


@contextmanager
def transaction(conn: sqlite3.Connection, lock: threading.RLock, what: str) -> Iterator[sqlite3.Connection]:
    """One write transaction (BEGIN IMMEDIATE: the write lock is taken up front)."""
    with lock:
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise store_error(path_of(conn), f"{what} is busy or read-only", exc) from exc
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                try:
                    conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass  # a damaged file may refuse even this; the error below says why
            if isinstance(exc, sqlite3.Error):
                raise store_error(path_of(conn), f"{what}: write failed", exc) from exc
            raise


@contextmanager
def reading(conn: sqlite3.Connection, lock: threading.RLock, what: str) -> Iterator[sqlite3.Connection]:
    """Reads under the connection's lock; SQLite's errors become `StoreError`s naming the file."""
    with lock:
        try:
            yield conn
        except sqlite3.Error as exc:
            raise store_error(path_of(conn), f"{what}: read failed", exc) from exc


def open_connection(
    conn_or_path: sqlite3.Connection | str | Path | None, settings: Settings
) -> sqlite3.Connection:
    """Use the given connection, or open the store at a path (default: `context.dir`)."""
    if isinstance(conn_or_path, sqlite3.Connection):
        return conn_or_path
    return connect(Path(conn_or_path) if conn_or_path is not None else store_path(settings))


class Connected:
    """A part of the store over one SQLite connection (thread-safe): the parts sharing a
    connection share its lock, so their transactions never interleave."""

    what = "the context store"  # how errors name the part

    def __init__(
        self,
        conn_or_path: sqlite3.Connection | str | Path | None = None,
        settings: Settings | None = None,
        *,
        clock: Callable[[], Micros] = now_us,
    ):
        self.settings = settings or get_settings()
        self.conn = open_connection(conn_or_path, self.settings)
        self._lock = connection_lock(self.conn)
        self._clock = clock

    def _write(self):
        return transaction(self.conn, self._lock, self.what)

    def _read(self):
        return reading(self.conn, self._lock, self.what)
