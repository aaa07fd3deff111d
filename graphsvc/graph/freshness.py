"""How far the graph is behind the files, as far as this process knows.

A watcher (`graphsvc.indexing.watch`) running in this process registers its workspace and
reports, after every change it sees and every run it finishes, how many files changed
that the graph does not reflect yet. Query results read it through `freshness()`. Nothing
here crosses processes: a workspace watched by another process (a separate `graphsvc
watch`) is unknown here, as is any workspace nobody watches.
"""

from __future__ import annotations

import threading

_pending: dict[str, int] = {}  # watched workspace -> files seen but not indexed yet
_guard = threading.Lock()


def freshness(workspace: str | None) -> tuple[bool | None, int]:
    """(stale, pending files) of `workspace`: stale is None when no watcher runs for it here."""
    with _guard:
        pending = _pending.get(workspace) if workspace is not None else None
    return (None, 0) if pending is None else (pending > 0, pending)


def set_pending(workspace: str, files: int) -> None:
    """Called by the watcher of `workspace`: `files` changed files are not indexed yet."""
    with _guard:
        _pending[workspace] = files


def forget(workspace: str) -> None:
    """The watcher of `workspace` stopped: its freshness is unknown again."""
    with _guard:
        _pending.pop(workspace, None)
