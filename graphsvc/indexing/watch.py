"""Keep a workspace's graph in step with its files: `watch()`, behind `graphsvc watch` and
`graphsvc serve --watch`.

A listener thread (watchfiles: inotify, FSEvents, …) adds every changed path the index would
read (not inside `.git`, not ignored by the ignore files or `exclude`) to a pending set and
publishes its size (`graphsvc.graph.freshness`, which query results report as `stale` and
`pendingFiles`). The watching thread takes what is pending as a batch and runs the ordinary
incremental symbol run on it (`index_symbols`: tree, symbols, edges, grep index, under the
workspace's lock). That run already reads only what changed: it lists again only the
directories the kernel reported changes in (`graphsvc.indexing.tree_watch`; all of them
when it cannot tell), compares sizes and mtimes with what the graph holds and hashes only the
files that differ, so it needs no list of paths from here, and the graph it leaves is the one
a clean index gives, with deletions, renames, new directories and changed ignore files included. A branch switch that rewrites
thousands of files is one more run of the same kind. Paths that change again while a run
is under way stay pending for the next one.
"""

from __future__ import annotations

import os
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import watchfiles

from graphsvc.errors import GraphsvcError, InputError
from graphsvc.graph.driver import Graph
from graphsvc.graph.freshness import forget, set_pending
from graphsvc.indexing.pipeline import index_symbols, workspace_name
from graphsvc.indexing.summary import SymbolSummary
from graphsvc.settings import get_settings
from indexers.tree import is_ignored

# After a failed run (Neo4j away), the next try waits this long; the changes stay pending.
RETRY_S = 2.0
# The listener wakes this often when nothing happens, to notice `stop` and to say it is ready.
_IDLE_MS = 200


@dataclass(slots=True)
class WatchBatch:
    """One run of the watcher: `files` changed paths it took (0 for the first run, which
    catches up with whatever changed while nobody watched), and the run's summary or error."""

    workspace: str
    files: int
    seconds: float
    pending: int  # paths that changed meanwhile, left for the next run
    summary: SymbolSummary | None = None
    error: str | None = None

    def line(self) -> str:
        what = f"{self.files} changed paths" if self.files else "catching up"
        if self.error:
            return f"watch    {self.workspace}: {what}; index failed ({self.error}), retrying"
        s = self.summary
        return (f"watch    {self.workspace}: {what}; {s.parsed} files parsed, {s.deleted} deleted, "
                f"+{s.symbols_written} -{s.symbols_removed} symbols in {self.seconds:.2f} s"
                + (f"; {self.pending} pending" if self.pending else ""))


class _Pending:
    """Changed paths not indexed yet, each with the number of the event that last added it."""

    def __init__(self, workspace: str):
        self.workspace = workspace
        self.paths: dict[str, int] = {}
        self.events = 0
        self.changed = threading.Condition()

    def add(self, rels: list[str]) -> None:
        with self.changed:
            for rel in rels:
                self.events += 1
                self.paths[rel] = self.events
            set_pending(self.workspace, len(self.paths))
            self.changed.notify_all()

    def take(self, stop: threading.Event) -> dict[str, int]:
        """The pending paths once there are any (empty when `stop` is set)."""
        with self.changed:
            while not self.paths and not stop.is_set():
                self.changed.wait(_IDLE_MS / 1000)
            return {} if stop.is_set() else dict(self.paths)

    def done(self, batch: dict[str, int]) -> int:
        """The batch is indexed: its paths leave, unless they changed again since. Returns
        how many are still pending."""
        with self.changed:
            for rel, event in batch.items():
                if self.paths.get(rel) == event:
                    del self.paths[rel]
            set_pending(self.workspace, len(self.paths))
            return len(self.paths)


def watch(
    path: str | Path,
    workspace: str | None = None,
    *,
    stop: threading.Event,
    on_batch: Callable[[WatchBatch], None] | None = None,
    on_ready: Callable[[], None] | None = None,
    exclude: Sequence[str] = (),
    ignore_files: bool = True,
    jobs: int | None = None,
    graph: Graph | None = None,
) -> None:
    """Index `path` into `workspace`, then re-index it whenever its files change, until `stop`
    is set. `on_ready` is called once the first run is done and changes are listened to;
    every run is reported to `on_batch`. A failed run (Neo4j unavailable) is reported and
    retried; a bad path or workspace, or a first run that fails, raises. `exclude` and
    `ignore_files` as for `index_symbols`: every run indexes the tree the same way."""
    root = Path(path).resolve()
    ws = workspace_name(root, workspace)
    if not root.is_dir():
        raise InputError(f"{path}: not a directory; give the path of an indexed (or to be indexed) repository")
    pending = _Pending(ws)
    listener = _Listener(root, exclude, ignore_files, pending, stop)
    listener.start()
    try:
        # Changes made during the first run are caught: the listener is up before it starts.
        listener.check()
        _run(root, ws, {}, pending, on_batch, exclude, ignore_files, jobs, graph, raise_errors=True)
        if on_ready is not None and not stop.is_set():
            on_ready()
        while not stop.is_set():
            batch = pending.take(stop)
            if batch and not _run(root, ws, batch, pending, on_batch, exclude, ignore_files, jobs, graph):
                stop.wait(RETRY_S)
        listener.check()
    finally:
        stop.set()
        listener.join()
        forget(ws)


def _run(root: Path, ws: str, batch: dict[str, int], pending: _Pending,
         on_batch: Callable[[WatchBatch], None] | None, exclude: Sequence[str], ignore_files: bool, jobs: int | None,
         graph: Graph | None, raise_errors: bool = False) -> bool:
    """One incremental run for `batch`; whether it succeeded."""
    started = time.perf_counter()
    try:
        summary = index_symbols(root, workspace=ws, graph=graph, jobs=jobs, exclude=exclude, ignore_files=ignore_files,
                                watch_tree=True)
    except Exception as exc:
        if raise_errors:
            raise
        if not isinstance(exc, GraphsvcError):  # a bug: the watcher goes on, the trace shows where
            traceback.print_exc()
        if on_batch:
            on_batch(WatchBatch(ws, len(batch), time.perf_counter() - started, len(pending.paths), error=str(exc)))
        return False
    left = pending.done(batch)
    if on_batch:
        on_batch(WatchBatch(ws, len(batch), time.perf_counter() - started, left, summary))
    return True


class _Listener(threading.Thread):
    """Adds the indexed paths of every change under `root` to `pending` until `stop` is set."""

    def __init__(self, root: Path, exclude: Sequence[str], ignore_files: bool, pending: _Pending,
                 stop: threading.Event):
        super().__init__(name=f"watch-{pending.workspace}", daemon=True)
        self.root, self.exclude, self.pending, self.stop = root, exclude, pending, stop
        self.ignore_files = ignore_files
        self.listening = threading.Event()
        self.failure: BaseException | None = None

    def check(self) -> None:
        """Wait until it listens; raise what stopped it, if anything did."""
        self.listening.wait()
        if self.failure is not None:
            raise GraphsvcError(f"cannot watch {self.root}: {self.failure}") from self.failure

    def run(self) -> None:
        settings = get_settings().index
        try:
            for changes in watchfiles.watch(self.root, watch_filter=None, debounce=settings.watch_debounce_ms,
                                            step=settings.watch_step_ms, stop_event=self.stop,
                                            rust_timeout=_IDLE_MS, yield_on_timeout=True, raise_interrupt=False):
                self.listening.set()
                rels = [rel for _, p in changes
                        if (rel := _indexed_path(self.root, p, self.exclude, self.ignore_files)) is not None]
                if rels:
                    self.pending.add(rels)
        except Exception as exc:  # the watching thread raises it
            self.failure = exc
        finally:
            self.listening.set()
            self.stop.set()


def _indexed_path(root: Path, path: str, exclude: Sequence[str], ignore_files: bool) -> str | None:
    """`path` relative to `root` when the index reads it, else None."""
    rel = os.path.relpath(path, root).replace(os.sep, "/")
    if rel == "." or rel.startswith("../"):
        return None
    return None if is_ignored(root, rel, os.path.isdir(path), exclude, ignore_files) else rel


class Watching:
    """`watch` on a thread of its own, as the server runs it (`graphsvc serve --watch`) until
    `close()`. A watcher that fails is reported to `on_error` and ends; the server goes on."""

    def __init__(self, path: str | Path, workspace: str | None = None, *,
                 on_batch: Callable[[WatchBatch], None] | None = None,
                 on_error: Callable[[BaseException], None] | None = None):
        self.stop = threading.Event()

        def run() -> None:
            try:
                watch(path, workspace, stop=self.stop, on_batch=on_batch)
            except Exception as exc:
                if on_error is None:
                    raise
                on_error(exc)

        self.thread = threading.Thread(target=run, name=f"watching-{Path(path).name}", daemon=True)
        self.thread.start()

    def close(self, timeout_s: float = 30.0) -> None:
        """Stop after the run under way, if any."""
        self.stop.set()
        self.thread.join(timeout_s)
