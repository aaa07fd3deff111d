"""SQLite connections kept open between the runs of a process (a server, a watcher).

Opening a store (pragmas, the migrations check) and closing it (closing the last connection
checkpoints the write-ahead log) cost more than the rows of a one-file edit, so index runs
keep theirs. One rule for every kept connection: a connection is taken out of the cache
while it is used, so two runs at once (a server watching several roots) never share one
across threads; the second opens its own. A connection whose use failed is closed, not kept,
and one whose file was removed or replaced since is closed and opened anew.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Generic, TypeVar

Conn = TypeVar("Conn")
Identity = tuple[int, ...]


def file_identity(path: str | Path, content: bool = False) -> Identity | None:
    """The file at `path` as device and inode (None when it is missing); with `content`, its
    size and last change too, which tell a file overwritten in place from the same file."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if content:
        return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns
    return st.st_dev, st.st_ino


class KeptConnections(Generic[Conn]):
    """At most `limit` connections, one per file, the least recently returned closed first.
    `identity(path)` says whether a kept connection still reaches the file it was opened on."""

    def __init__(self, limit: int, close: Callable[[Conn], None],
                 identity: Callable[[Path], Identity | None] = file_identity):
        self._limit = limit
        self._close = close
        self._identity = identity
        self._kept: dict[Path, tuple[Conn, Identity]] = {}
        self._guard = threading.Lock()

    @contextmanager
    def use(self, path: Path, open_: Callable[[], Conn]) -> Iterator[Conn]:
        """The connection kept for `path` while its file is as it was left, else `open_()`;
        kept again afterwards unless the use raised or the file is gone."""
        with self._guard:
            kept = self._kept.pop(path, None)
        conn = None
        if kept is not None:
            if self._identity(path) == kept[1]:
                conn = kept[0]
            else:
                self._close(kept[0])
        conn = conn if conn is not None else open_()
        try:
            yield conn
        except BaseException:
            self._close(conn)
            raise
        self._keep(path, conn)

    def _keep(self, path: Path, conn: Conn) -> None:
        identity = self._identity(path)
        if identity is None:
            self._close(conn)
            return
        closing = []
        with self._guard:
            displaced = self._kept.pop(path, None)  # another run's, returned meanwhile
            if displaced is not None:
                closing.append(displaced[0])
            self._kept[path] = (conn, identity)  # the most recent last
            while len(self._kept) > self._limit:
                closing.append(self._kept.pop(next(iter(self._kept)))[0])
        for old in closing:
            self._close(old)

    def close(self, path: Path) -> None:
        """Close the connection kept for `path` (before its file is removed)."""
        with self._guard:
            kept = self._kept.pop(path, None)
        if kept is not None:
            self._close(kept[0])

    def __len__(self) -> int:
        return len(self._kept)
