"""One symbol run per workspace at a time: across threads, and across processes (flock)."""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_LOCKS: dict[Path, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


@contextmanager
def workspace_lock(state_file: Path) -> Iterator[None]:
    """Hold the lock of the workspace whose index state is ``state_file``."""
    with _LOCKS_GUARD:
        lock = _LOCKS.setdefault(state_file, threading.Lock())
    state_file.parent.mkdir(parents=True, exist_ok=True)
    with lock, open(state_file.with_suffix(".lock"), "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
