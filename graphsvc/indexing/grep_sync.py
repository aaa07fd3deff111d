"""Keep the grep index (`graphsvc.context.grep_index`) equal to the files a symbol run indexes.

Compared by content hash with what the index holds, not with the run's plan: a file is
rewritten when its hash differs, forgotten when it is no longer indexed. So a run that
stopped half way (or a store that lost its rows) is made whole by the next run, even one
that finds nothing else to do; until then grep answers from whatever version each file's
rows hold (each file is written whole, with its symbols, in one transaction).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from graphsvc.context import db
from graphsvc.context.grep_index import FileText, GrepIndex
from graphsvc.context.kept import KeptConnections
from graphsvc.settings import get_settings
from indexers.extract import FileExtraction


# An index run is background work: it waits this long for another writer of the shared
# store (another workspace's grep build on a loaded machine can hold it for seconds) instead
# of failing the whole run after the store's usual 5 s.
INDEX_BUSY_TIMEOUT_MS = 300_000


# The index runs' connection to each store, kept between the runs of a process: opening one
# (pragmas, the migrations check) and closing it (a checkpoint of the write-ahead log) cost
# more than the rows of a one-file edit. The store is shared with other writers (the event
# log, other workspaces' runs), so only its removal or replacement makes a kept one stale.
_KEPT: KeptConnections[GrepIndex] = KeptConnections(4, GrepIndex.close)


def _index() -> AbstractContextManager[GrepIndex]:
    settings = get_settings()
    path = db.store_path(settings)

    def open_() -> GrepIndex:
        index = GrepIndex(path, settings=settings)
        index.conn.execute(f"PRAGMA busy_timeout = {INDEX_BUSY_TIMEOUT_MS}")
        return index

    return _KEPT.use(path, open_)


@dataclass(slots=True)
class GrepSync:
    written: int = 0
    removed: int = 0
    seconds: float = 0.0


def out_of_sync(graph: str, workspace: str, indexer: str, current: dict[str, str]) -> bool:
    """Whether the index holds other files, hashes or symbols than `current` (path -> hash),
    or holds them in tables of an older layout."""
    with _index() as index:
        held = index.workspace(graph, workspace)
    return held is None or not held.current(indexer) or held.hashes != current


def sync_grep(
    root: str | Path,
    graph: str,
    workspace: str,
    indexer: str,
    current: dict[str, str],
    extraction: Callable[[str], FileExtraction | None],
) -> GrepSync:
    """Bring the workspace's grep rows to `current` (path -> content hash of every indexed
    file); `extraction(path)` gives a written file's symbols."""
    started = time.perf_counter()
    with _index() as index:
        held = index.workspace(graph, workspace)
        if held is None or not held.current(indexer):
            held = index.open_workspace(graph, workspace, indexer)
        gone = sorted(p for p in held.hashes if p not in current)
        changed = sorted(p for p, h in current.items() if held.hashes.get(p) != h)
        index.remove(held.id, gone)
        written = index.write(held.id, _texts(str(root), changed, current, extraction))
    return GrepSync(written, len(gone), time.perf_counter() - started)


def _texts(root: str, paths: list[str], current: dict[str, str],
           extraction: Callable[[str], FileExtraction | None]) -> Iterator[FileText]:
    inside = os.path.join(os.path.realpath(root), "")
    for path in paths:
        full = os.path.join(root, path)
        # A directory replaced by a link since the scan must not lead the read out of the root.
        if not os.path.realpath(full).startswith(inside):
            continue
        try:
            with open(full, "rb") as fh:
                data = fh.read()
        except OSError:
            continue  # gone since the scan: the next run forgets it
        ext = extraction(path)
        symbols = [(s.start_line, s.end_line, s.id, s.kind, s.qualified_name) for s in ext.symbols] if ext else []
        yield FileText(path, current[path], data.decode("utf-8", "replace"), symbols)
