"""The index runs: the pure extraction of `indexers` feeding the graph writer.

`index_tree()` and `index_symbols()` are the functions behind the CLI, GraphQL and REST.
Both are incremental: they compare what is on disk with what the graph holds and write only
the difference. A symbol run holds the workspace's lock and takes these steps:

1. `_sync_tree`: directories and files brought up to date (all that `index_tree` does);
2. `_plan`: the tree against the index state of the last run: what changed, what is gone;
3. `_parse_changed`: the changed files extracted by the parser processes;
4. `_write_symbols` on a writer thread, beside `_resolve` on this one;
5. `_write_edges` and `_mark_files`, once the symbols they point at are written;
6. `_record`: the index state and the graph's token, after every write has committed.

The grep index (`graphsvc.indexing.grep_sync`) is brought up to date beside steps 4-6, on a
thread of its own (SQLite builds the full-text index without holding the GIL), and waited for
only once the graph has committed (`_grep_beside`).
"""

from __future__ import annotations

import gc
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from operator import itemgetter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from graphsvc import model
from graphsvc.errors import InputError
from graphsvc.graph import edge_rows
from graphsvc.graph.driver import Graph, get_graph
from graphsvc.graph.writer import GraphWriter
from graphsvc.graph.writer import row as node_row
from graphsvc.indexing.fingerprint import indexer_fingerprint
from graphsvc.indexing.grep_sync import out_of_sync, sync_grep
from graphsvc.indexing.locks import workspace_lock
from graphsvc.indexing.plan import Plan, plan_changes, plan_run
from graphsvc.indexing.state import (
    IndexState, Staging, load_state, load_tree, save_state, save_tree, staged_symbols, state_path,
)
from graphsvc.indexing.summary import Progress, SymbolSummary, TreeSummary
from graphsvc.indexing.tree_watch import watched_scan
from graphsvc.model import Rel
from graphsvc.settings import get_settings
from indexers.extract import FileExtraction
from indexers.records import DirRecord, FileRecord
from indexers.tree import TreeScan, scan_tree

if TYPE_CHECKING:
    from graphsvc.indexing.spool import EdgeSpool
    from indexers.resolve import ResolveStats, SymbolTable

# The resolver and the parser processes are imported by the steps that use them: a run that
# finds nothing to do (most runs of `graphsvc index` and of a watcher) never loads them.


def workspace_name(path: str | Path, workspace: str | None) -> str:
    name = workspace if workspace is not None else Path(path).resolve().name
    if not name or len(name) > 200 or any(c in name for c in "\0\n\r"):
        raise InputError(f"workspace name {name!r} is not usable: 1-200 characters, no NUL or newlines")
    return name


def check_workspace_root(workspace: str, stored_root: str | None, root: Path, replace: bool) -> None:
    """Refuse to index `root` into a workspace that holds another directory, unless `replace`."""
    if stored_root and stored_root != str(root) and not replace:
        raise InputError(
            f"workspace {workspace!r} holds another directory; pass replace (--replace, or replace: true "
            f"through the API) to index {root} into it instead of {stored_root}, or choose another name"
        )


def _file_row(f, stamps: dict[str, tuple[int, int]]) -> dict:
    return node_row(f) | {"mtime_ns": stamps.get(f.id, (0, None))[1]}


def index_tree(
    path: str | Path,
    workspace: str | None = None,
    graph: Graph | None = None,
    progress: Progress | None = None,
    exclude: Sequence[str] = (),
    replace: bool = False,
    ignore_files: bool = True,
    watch_tree: bool = False,
) -> TreeSummary:
    """Index directories and files of ``path`` into the graph, incrementally. A workspace
    that holds another directory is refused unless ``replace`` (then it holds this one).
    ``ignore_files=False``: index what ``.gitignore`` and ``.graphsvcignore`` files exclude.
    ``watch_tree``: a process that indexes the tree again and again (a server) has the kernel
    report what changes in it, and the next run lists only those directories."""
    with _locked_workspace(path, workspace, graph) as (ws, graph, spath):
        writer = GraphWriter(graph, ws, get_settings().index.batch_size)
        writer.defer()
        summary = _sync_tree(path, writer, progress, exclude, spath, replace, ignore_files, watch_tree)[0]
        writer.commit()
        return summary


@contextmanager
def _locked_workspace(path: str | Path, workspace: str | None,
                      graph: Graph | None) -> Iterator[tuple[str, Graph, Path]]:
    """The workspace's name, graph and index-state path, held under the workspace's lock; the
    root is checked before the graph is touched."""
    settings = get_settings()
    ws = workspace_name(path, workspace)
    _check_root(Path(path), settings.index.max_file_bytes)
    graph = graph or get_graph()
    spath = state_path(settings.home, ws, graph.uri)
    with workspace_lock(spath):
        yield ws, graph, spath


def _check_root(root: Path, max_file_bytes: int) -> None:
    if not root.exists() or not root.is_dir():
        scan_tree(root, max_file_bytes=max_file_bytes)  # raises the error that says what is wrong


# The tree rows of the last sync of each workspace in this process (a server, a watcher),
# with their token and the generation of the scan they are: the next sync reads neither Neo4j
# nor the state file while it holds, and compares only what a rescan of that scan listed.
_TREES: dict[Path, tuple[str, dict[str, dict], int]] = {}
_TREE_KEYS = ("size", "mtime_ns", "hash", "skip_reason", "lang", "root", "indexer")


def _tree_row(label: str, values: dict) -> dict:
    """A directory's, file's or workspace's row as `GraphWriter.tree_state` gives it."""
    return {"labels": [label], **{k: values.get(k) for k in _TREE_KEYS}}


def _known_tree(spath: Path, token: str | None) -> tuple[dict[str, dict] | None, int | None]:
    """The rows of the graph's tree as the last sync recorded them, when `token` (the graph's)
    says they are still what it holds, and the generation of the scan they are (if known)."""
    cached = _TREES.pop(spath, None)
    if token is None:
        return None, None
    if cached is not None and cached[0] == token:
        return cached[1], cached[2]
    stored, rows = load_tree(spath)
    return (rows if stored == token else None), None


def _sync_tree(
    path: str | Path,
    writer: GraphWriter,
    progress: Progress | None,
    exclude: Sequence[str],
    spath: Path,
    replace: bool = False,
    ignore_files: bool = True,
    watch_tree: bool = False,
) -> tuple[TreeSummary, TreeScan, str | None]:
    """The tree brought up to date by `writer`, under the workspace's lock; returns the
    symbols token read with the tree's (nothing but a symbol run changes it, and it holds the
    lock). `watch_tree`: walk only what changed since this process last walked it
    (`tree_watch`). A writer that defers its writes keeps them for its `commit`, and what
    records them beside the graph waits for it."""
    started = time.perf_counter()
    settings = get_settings()
    root = Path(path)
    ws = writer.ws
    tree_token, symbols_token = writer.tokens()
    recorded, recorded_scan = _known_tree(spath, tree_token)
    # id -> what the graph holds of the tree
    in_graph = recorded if recorded is not None else writer.tree_state()
    stored = in_graph.get(model.WORKSPACE_ID)
    check_workspace_root(ws, stored and stored["root"], root.resolve(), replace)
    # Another indexer may classify the same bytes differently (binary, empty): it reads every
    # file again instead of trusting the classification of an unchanged one.
    indexer = indexer_fingerprint()
    same_indexer = stored is not None and stored["indexer"] == indexer

    def scan_progress(done: int, message: str) -> None:
        if progress:
            progress(done, None, message)

    def full_scan(on_listing) -> TreeScan:
        known = {
            fid: (row["size"], row["mtime_ns"], row["hash"], row["skip_reason"])
            for fid, row in in_graph.items()
            if "File" in row["labels"] and row["hash"] is not None and row["mtime_ns"] is not None
        } if same_indexer else {}
        return scan_tree(root, max_file_bytes=settings.index.max_file_bytes, known=known, exclude=exclude,
                         progress=scan_progress, ignore_files=ignore_files, on_listing=on_listing)

    scan = watched_scan(spath, root, full_scan, max_file_bytes=settings.index.max_file_bytes, exclude=exclude,
                        ignore_files=ignore_files) if watch_tree else full_scan(None)
    summary = TreeSummary(workspace=ws, root=str(scan.root), bytes_read=scan.bytes_read)
    summary.directories = len(scan.dirs)
    summary.files = len(scan.files)
    summary.skipped = dict(scan.skipped())
    summary.indexed = summary.files - sum(summary.skipped.values())

    root_record = scan.dirs[0]
    new_root = (not same_indexer or stored["root"] != str(scan.root)
                or stored["skip_reason"] != root_record.skip_reason)
    new_dirs, new_files, vanished = _tree_changes(scan, recorded_scan, in_graph, summary)
    changes = bool(new_root or vanished or new_dirs or new_files)
    if writer.deferring and len(new_dirs) + len(new_files) + 2 * len(vanished) + 3 > writer.batch_size:
        writer.commit()  # too many writes to keep for one transaction: they go as they come
    if changes and tree_token is not None and not writer.deferring:
        writer.set_tree_token(None)  # the recorded rows stop matching with the first write
    if new_root:
        writer.upsert_workspace(str(scan.root), root_record.skip_reason, indexer)
    if vanished:
        writer.delete_entries(vanished)
        summary.removed = len(vanished)
    # Parents before children: the scan lists directories top-down.
    writer.upsert_dirs(new_dirs)
    writer.upsert_files(new_files)
    if changes or recorded is None:
        rows = {model.WORKSPACE_ID: _tree_row("Workspace", {"root": str(scan.root), "indexer": indexer,
                                                             "skip_reason": root_record.skip_reason})}
        rows.update((r["id"], _tree_row("Directory", r)) for r in new_dirs)
        rows.update((r["id"], _tree_row("File", r)) for r in new_files)
        if recorded is None:  # every row, as the scan found it (the graph holds the same now)
            rows.update((d.id, _tree_row("Directory", node_row(d))) for d in scan.dirs[1:])
            rows.update((f.id, _tree_row("File", _file_row(f, scan.stamps))) for f in scan.files)
        written = None
        if recorded is not None:
            for gone in vanished:
                del recorded[gone]
            recorded.update(rows)
            rows, written = recorded, rows
        tree_token = IndexState.new_token()
        writer.set_tree_token(tree_token)
        writer.after_commit(lambda: _keep_tree(spath, tree_token, rows, scan.generation, written, vanished))
    else:
        _TREES[spath] = (tree_token, recorded, scan.generation)
    summary.seconds = time.perf_counter() - started
    return summary, scan, symbols_token


def _keep_tree(spath: Path, token: str, rows: dict[str, dict], generation: int, written: dict[str, dict] | None,
               vanished: list[str]) -> None:
    """Record the tree rows the graph now holds, with its tree token (once it is committed)
    and the generation of the scan they are; `written` and `vanished`: what changed of the
    rows recorded before, when they were."""
    save_tree(spath, token, rows, written, vanished)
    _TREES[spath] = (token, rows, generation)


def _tree_changes(scan: TreeScan, recorded_scan: int | None, in_graph: dict[str, dict],
                  summary: TreeSummary) -> tuple[list[dict], list[dict], list[str]]:
    """The directories and files to write, and the ids gone: from the records a rescan of
    the scan the recorded rows are listed again, or else from every record."""
    delta = scan.changes if scan.changes is not None and scan.changes.since == recorded_scan else None
    if delta is None:
        new_dirs, new_files = _tree_rows(scan.dirs[1:], scan.files, scan.stamps, in_graph, summary)
        present = {d.id for d in scan.dirs} | {f.id for f in scan.files}
        # Directory ids end with '/', so a file that became a directory (or back) is a new id.
        return new_dirs, new_files, [i for i in in_graph if i != model.WORKSPACE_ID and i not in present]
    listed = [r for r in delta.listed if r.path]  # the root's record is the workspace's
    new_dirs, new_files = _tree_rows([r for r in listed if isinstance(r, DirRecord)],
                                     [r for r in listed if not isinstance(r, DirRecord)], scan.stamps, in_graph,
                                     summary)
    summary.unchanged += len(scan.dirs) - 1 + len(scan.files) - len(listed)
    return new_dirs, new_files, sorted(i for i in delta.gone if i in in_graph and i != model.WORKSPACE_ID)


def _tree_rows(dirs: Sequence[DirRecord], files: Sequence[FileRecord], stamps: dict[str, tuple[int, int]],
               in_graph: dict[str, dict], summary: TreeSummary) -> tuple[list[dict], list[dict]]:
    """The directories and files to write: new ones with their parent, changed ones without."""
    new_dirs, new_files = [], []
    for d in dirs:
        old = in_graph.get(d.id)
        if old is None or "Directory" not in old["labels"]:
            new_dirs.append(node_row(d) | {"parent": model.parent_dir_id(d.id)})
            summary.added += 1
        elif old["skip_reason"] != d.skip_reason:
            new_dirs.append(node_row(d) | {"parent": None})
            summary.changed += 1
        else:
            summary.unchanged += 1
    for f in files:
        old = in_graph.get(f.id)
        if old is None or "File" not in old["labels"]:
            new_files.append(_file_row(f, stamps) | {"parent": model.parent_dir_id(f.id)})
            summary.added += 1
        elif (old["lang"], old["size"], old["hash"], old["mtime_ns"], old["skip_reason"]) != (
                f.lang, f.size, f.hash, stamps.get(f.id, (0, None))[1], f.skip_reason):
            row = _file_row(f, stamps)
            # A touched but identical file only gets its new mtime; it counts as unchanged.
            new_files.append(row | {"parent": None})
            content_changed = any(old[k] != row[k] for k in ("hash", "skip_reason", "lang"))
            summary.changed += content_changed
            summary.unchanged += not content_changed
        else:
            summary.unchanged += 1
    return new_dirs, new_files


# -- symbols ------------------------------------------------------------------------------------

def _write_symbols(
    writer: GraphWriter,
    full: bool,
    new_exts: dict[str, FileExtraction],
    old_exts: dict[str, FileExtraction],
    deleted: list[str],
    spath: Path,
) -> set[str]:
    """Delete the symbols that are gone and write those of the parsed files; returns the ids
    deleted. Only the files' own extractions are needed, not the resolved edges: `new_exts`
    as resolution reads them, whole in the run's staged extractions at `spath`."""
    new_ids = {s.id for ext in new_exts.values() for s in ext.symbols}
    first = False
    if full:
        stored = writer.symbol_ids()
        first = not stored
        # A full run parsed every current file, so its extractions are all in new_exts.
        stale = stored - new_ids
    else:
        stale = {s.id for ext in old_exts.values() for s in ext.symbols} - new_ids
    distinct = len(new_ids)
    del new_ids  # a set of every symbol id: hundreds of MB for the Linux kernel, not kept while writing
    writer.delete_symbols(sorted(stale))
    writer.delete_file_symbols(deleted)
    # Read a batch at a time as they are written: no list of every symbol beside the extractions.
    count = sum(len(ext.symbols) for ext in new_exts.values())
    symbols = staged_symbols(spath, new_exts)
    if first and distinct == count:
        writer.create_symbols(symbols, count, as_values=True)
    else:
        writer.upsert_symbols(symbols, count, as_values=True)
    return stale


@dataclass(slots=True)
class _Totals:
    """Counts over every extraction of a workspace: a warm run updates them with the files it
    parsed instead of counting them all again."""

    symbols: int = 0
    syntax_error_files: int = 0
    skipped: Counter[str] = field(default_factory=Counter)  # by the reason's kind

    def add(self, exts: Iterable[FileExtraction], sign: int = 1) -> None:
        for ext in exts:
            self.symbols += sign * len(ext.symbols)
            self.syntax_error_files += sign * bool(ext.has_errors)
            if ext.skip_reason:
                self.skipped[ext.skip_reason.split(":")[0]] += sign


@dataclass(slots=True)
class _Warm:
    """A workspace's extractions and symbol table as of the run that wrote `token`, and the
    index state it saved (without the encoded extractions: `exts` holds them decoded)."""

    token: str
    exts: dict[str, FileExtraction]
    table: SymbolTable
    state: IndexState
    plan: Plan  # the run's, to plan the next from what its scan's rescan lists (`plan_changes`)
    totals: _Totals


_WARM: dict[Path, _Warm] = {}
# A run that parses at most this many files sends all its writes in one transaction.
SMALL_RUN_FILES = 24


def index_symbols(
    path: str | Path,
    workspace: str | None = None,
    graph: Graph | None = None,
    jobs: int | None = None,
    progress: Progress | None = None,
    exclude: Sequence[str] = (),
    replace: bool = False,
    ignore_files: bool = True,
    watch_tree: bool = False,
) -> SymbolSummary:
    """Bring the tree up to date, then extract, resolve and write symbols and edges of
    changed files; edges of unchanged files that could now resolve differently are redone.
    ``replace``, ``ignore_files`` and ``watch_tree`` as for `index_tree`."""
    with _locked_workspace(path, workspace, graph) as (ws, graph, spath):
        return _index_symbols(path, ws, graph, jobs, progress, exclude, spath, replace, ignore_files, watch_tree)


def _index_symbols(
    path: str | Path,
    workspace: str,
    graph: Graph,
    jobs: int | None,
    progress: Progress | None,
    exclude: Sequence[str],
    spath: Path,
    replace: bool = False,
    ignore_files: bool = True,
    watch_tree: bool = False,
) -> SymbolSummary:
    started = time.perf_counter()
    # What the last run froze (`_resolve`) may be let go of now: collectable again.
    gc.unfreeze()
    settings = get_settings()
    writer = GraphWriter(graph, workspace, settings.index.batch_size, settings.index.write_workers, progress)
    # The tree's writes are kept until the plan tells whether the run is small enough for
    # all of its writes to go in one transaction.
    writer.defer()
    tree, scan, graph_token = _sync_tree(path, writer, progress, exclude, spath, replace, ignore_files, watch_tree)
    summary = SymbolSummary(workspace=tree.workspace, tree=tree)
    indexer = indexer_fingerprint()
    # A process that indexed this workspace before (the server, a watcher) keeps its state,
    # extractions and symbol table while the graph's token says they are what it holds.
    warm = _WARM.pop(spath, None)
    if warm is not None and warm.token != graph_token:
        warm = None
    plan = plan_changes(scan, warm.plan, warm.state, graph_token, indexer, summary) if warm is not None else None
    if plan is None:
        plan = plan_run(scan, warm.state if warm else load_state(spath, blobs=False), graph_token, indexer, summary)
    if plan.full:
        warm = None
    if plan.full or plan.config_changed or len(plan.changed) + len(plan.deleted) > SMALL_RUN_FILES:
        writer.commit()
    grep_behind = plan.nothing_to_do and out_of_sync(graph.uri, workspace, indexer, _hashes(plan))
    if (grep_behind or not plan.nothing_to_do) and warm is None and not plan.full:
        plan = _with_extractions(spath, scan, plan, graph_token, indexer, summary)
    if plan.nothing_to_do:
        writer.commit()
        if grep_behind:
            _sync_grep(tree.root, graph.uri, workspace, indexer, plan, warm, {}, summary)
        if warm is not None:
            warm.plan = plan
            _WARM[spath] = warm
        summary.symbols = plan.state.symbols
        summary.seconds = time.perf_counter() - started
        return summary

    t0 = time.perf_counter()
    workers = jobs or settings.index.jobs or os.cpu_count() or 1
    with Staging(spath) as staging:
        new_exts = _parse_changed(tree.root, plan, workers, progress, staging)
    summary.parsed = len(new_exts)
    summary.parse_seconds = time.perf_counter() - t0

    old_exts = _previous(plan, warm)
    with _grep_beside(tree.root, graph.uri, workspace, indexer, plan, warm, new_exts, summary):
        resolved = _resolve_and_write(writer, plan, warm, new_exts, old_exts, summary, progress, spath)
        totals = _totals(warm, resolved.all_exts, old_exts, new_exts)
        _record(spath, writer, plan, indexer, new_exts, resolved, totals)
        writer.commit()
    summary.symbols = totals.symbols
    summary.syntax_error_files = totals.syntax_error_files
    summary.skipped.update(+totals.skipped)
    summary.seconds = time.perf_counter() - started
    return summary


@contextmanager
def _grep_beside(root: str, graph_uri: str, workspace: str, indexer: str, plan: Plan, warm: _Warm | None,
                 new_exts: dict[str, FileExtraction], summary: SymbolSummary) -> Iterator[None]:
    """The grep index brought up to date on a thread of its own while the block resolves and
    writes the graph, and waited for only after it (never left running behind the caller).

    The grep index lives in the context store that every workspace and the event log share:
    a write there can wait for another writer's transaction or run the store's checkpoint,
    each now and then longer than a one-file edit takes. Awaited beside the graph's commit
    instead of before it, such a wait costs the edit only what it outlasts the commit."""
    pool = ThreadPoolExecutor(1, thread_name_prefix="grep-sync")
    synced = pool.submit(_sync_grep, root, graph_uri, workspace, indexer, plan, warm, new_exts, summary)
    pool.shutdown(wait=False)
    try:
        yield
    finally:
        wait([synced])
    synced.result()


def _resolve_and_write(writer: GraphWriter, plan: Plan, warm: _Warm | None, new_exts: dict[str, FileExtraction],
                       old_exts: dict[str, FileExtraction], summary: SymbolSummary, progress: Progress | None,
                       spath: Path) -> _Resolved:
    """Resolve the affected files while the parsed files' symbols and (in a large run) the
    edges resolved so far are written; then write what is left."""
    t0 = time.perf_counter()
    # Symbols depend on nothing but their own file: Neo4j writes them (a thread here waiting
    # on it) while this thread resolves. A large run's edges follow as their files are
    # resolved, once the symbols are written; a small run keeps every write for its one
    # transaction, the edges after resolution.
    writers = ThreadPoolExecutor(2, thread_name_prefix="graph-writer")
    symbols_written = writers.submit(_write_symbols, writer, plan.full, new_exts, old_exts, plan.deleted, spath)
    edges = _spool()
    following: list[Future] = []

    def write_edges_of(affected: set[str]) -> None:
        if not writer.deferring:
            following.append(writers.submit(_write_edges, writer, plan, affected, edges, symbols_written, summary,
                                            follow=True))

    writer.limit_transactions(_transactions_beside_resolution(writer.graph.uri))
    try:
        resolved = _resolve(plan, warm, new_exts, old_exts, progress, edges, write_edges_of)
    except BaseException:
        # Never return while a write is still running behind the caller's back.
        edges.abort()
        wait([symbols_written, *following])
        edges.close()
        raise
    finally:
        writers.shutdown(wait=False)
        writer.limit_transactions(None)
    edges.finish()
    summary.resolved_files = len(resolved.affected)
    summary.calls = resolved.stats.as_dict()
    summary.resolve_seconds = time.perf_counter() - t0

    t1 = time.perf_counter()
    try:
        stale = symbols_written.result()
        if following:
            following[0].result()
        else:
            _write_edges(writer, plan, resolved.affected, edges, symbols_written, summary)
        _mark_files(writer, plan, new_exts)
        writer.delete_orphan_externals(everywhere=plan.full)
    finally:
        wait(following)
        edges.close()
    # The symbol and edge writes ran beside resolution: what is left of them counts as writing.
    summary.write_seconds = time.perf_counter() - t1
    summary.symbols_written = sum(len(ext.symbols) for ext in new_exts.values())
    summary.symbols_removed = len(stale)

    return resolved


def _transactions_beside_resolution(graph_uri: str) -> int | None:
    """How many write transactions to open while this process resolves: one when Neo4j runs
    on this machine and no core is left beside the resolving one and another for Neo4j (a
    second transaction would only take CPU from resolution, and costs Neo4j more per node);
    else as configured (None)."""
    local = urlsplit(graph_uri).hostname in ("127.0.0.1", "localhost", "::1")
    # The cores this process may run on where the system says (Linux), else the machine's.
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return 1 if local and cores <= 2 else None


def _hashes(plan: Plan) -> dict[str, str]:
    return {fid: h for fid, (h, _) in plan.current.items()}


def _sync_grep(root: str, graph: str, workspace: str, indexer: str, plan: Plan, warm: _Warm | None,
               new_exts: dict[str, FileExtraction], summary: SymbolSummary) -> None:
    """The grep index brought to the run's files: symbols from this run's extractions, or
    else from the warm ones or the index state's."""
    # Resolution applies the run to the warm extractions meanwhile, on another thread.
    old = dict(warm.exts) if warm is not None else {}

    def extraction(fid: str) -> FileExtraction | None:
        if fid in new_exts:
            return new_exts[fid]
        if fid in old:
            return old[fid]
        return plan.state.extraction(fid, texts=False) if fid in plan.state.blobs else None

    synced = sync_grep(root, graph, workspace, indexer, _hashes(plan), extraction)
    summary.grep_written, summary.grep_removed, summary.grep_seconds = synced.written, synced.removed, synced.seconds


def _parse_changed(
    root: str, plan: Plan, workers: int, progress: Progress | None, staging: Staging
) -> dict[str, FileExtraction]:
    """The extractions of the changed files; each one encoded as the index state keeps it
    goes to ``staging``."""
    from graphsvc.indexing.pool import parse_files

    new_exts: dict[str, FileExtraction] = {}
    # Decoded without the symbols' signatures and docs: the symbol writes read them staged.
    jobs = [(fid, plan.current[fid][1]) for fid in plan.changed]
    for ext, blob in parse_files(root, jobs, workers, progress, texts=False):
        new_exts[ext.path] = ext
        staging.add(ext.path, plan.current[ext.path][0], blob)
    return new_exts


def _with_extractions(spath: Path, scan: TreeScan, plan: Plan, graph_token: str | None, indexer: str,
                      summary: SymbolSummary) -> Plan:
    """The plan with the index state's extractions read too; a state that cannot give the
    ones its hashes were read with makes it a full run."""
    state = load_state(spath)
    if state.token == plan.state.token and state.hashes == plan.state.hashes:
        plan.state = state
        return plan
    return plan_run(scan, state, graph_token, indexer, summary)


def _previous(plan: Plan, warm: _Warm | None) -> dict[str, FileExtraction]:
    """What the changed and deleted files held before: from the warm extractions, or else
    the index state's."""
    gone = plan.changed + plan.deleted
    if warm is None:
        return {fid: plan.state.extraction(fid, texts=False) for fid in gone if fid in plan.state.blobs}
    return {fid: warm.exts[fid] for fid in gone if fid in warm.exts}


@dataclass(slots=True)
class _Resolved:
    all_exts: dict[str, FileExtraction]  # every file of the workspace after the run
    table: SymbolTable
    affected: set[str]  # files whose outgoing edges were resolved again
    stats: ResolveStats


def _spool() -> EdgeSpool:
    from graphsvc.indexing.spool import EdgeSpool

    return EdgeSpool()


def _resolve(
    plan: Plan,
    warm: _Warm | None,
    new_exts: dict[str, FileExtraction],
    old_exts: dict[str, FileExtraction],
    progress: Progress | None,
    edges: EdgeSpool,
    on_affected: Callable[[set[str]], None],
) -> _Resolved:
    """Resolve the affected files against a table that knows every file, each file's edges
    added to `edges` as it is done; `on_affected` is told which files before the first."""
    from indexers.records import forget_decoded
    from indexers.resolve import ResolveStats, affected_files, paused_gc, resolve_file, with_shared_sources

    all_exts, table = _symbol_table(plan, warm, new_exts)
    table.set_js_paths(plan.js_paths)
    table.set_go_modules(plan.go_modules)
    if plan.full or plan.config_changed:
        affected = set(all_exts)
    else:
        gone = set(plan.changed) | set(plan.deleted)
        affected = affected_files(gone, old_exts, new_exts, table)
        # Their edges are replaced whole: files whose edges leave the same nodes come too.
        affected = with_shared_sources(affected | set(plan.deleted), table, old_exts) & set(all_exts)
    on_affected(affected)
    stats = ResolveStats()
    total = len(affected)
    # Resolution leaves no cycles behind; the cyclic collector would only rescan the table.
    with paused_gc():
        for i, fid in enumerate(sorted(affected), 1):
            edges.add(resolve_file(all_exts[fid], table, stats))
            edges.add_unresolved(stats.unresolved_sites)
            stats.unresolved_sites.clear()
            if progress and (i % 100 == 0 or i == total):
                progress(i, total, "resolving: " + fid)
    forget_decoded()  # the rows kept decoded for resolution's next readings
    # The extractions and the table live as long as the run (and the warm state after it):
    # out of the collector's reach until the next run, or its first full pass after the
    # millions of objects built would walk them all (1.3 s of the standard library's writes).
    gc.freeze()
    return _Resolved(all_exts, table, affected, stats)


def _symbol_table(
    plan: Plan, warm: _Warm | None, new_exts: dict[str, FileExtraction]
) -> tuple[dict[str, FileExtraction], SymbolTable]:
    """Every extraction of the workspace after the run, and their symbol table: the warm ones
    with the change applied, or else decoded from the index state."""
    from indexers.resolve import SymbolTable, paused_gc

    if warm is not None:
        all_exts, table = warm.exts, warm.table
        for fid in plan.deleted:
            table.remove_file(fid)
            all_exts.pop(fid, None)
        for fid, ext in new_exts.items():
            table.add_file(ext)
            all_exts[fid] = ext
        return all_exts, table
    deleted = set(plan.deleted)
    # Decoding allocates a few hundred thousand objects and no cycles: keep the collector out.
    with paused_gc():
        all_exts = {fid: plan.state.extraction(fid, texts=False) for fid in plan.state.blobs
                    if fid not in deleted and fid not in new_exts}
    all_exts.update(new_exts)
    return all_exts, SymbolTable(all_exts.values())


def _write_edges(writer: GraphWriter, plan: Plan, affected: set[str], edges: EdgeSpool, symbols_written: Future,
                 summary: SymbolSummary, follow: bool = False) -> None:
    """Replace the outgoing edges of the affected files once the symbols they join are
    written; with `follow`, as their files are resolved (until the spool is finished)."""
    symbols_written.result()
    writer.delete_outgoing_code_edges(sorted(affected | set(plan.deleted)))
    written: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    # Read back from disk a batch at a time (`EdgeSpool`): a batch's rows are built as it is
    # written, the external nodes it points at created first.
    def spooled() -> Iterator[tuple[Rel, list]]:
        for rel, batch in edges.rows(follow=follow):
            externals = edges.take_externals()
            if externals:
                writer.upsert_externals(externals)
            written[rel] += len(batch)
            reasons.update(map(itemgetter(edge_rows.REASON), batch))
            yield Rel(rel), batch

    writer.create_edge_stream(spooled())
    summary.edges_written = {rel.value: written[rel.value] for rel in Rel if written[rel.value]}
    summary.edges_by_reason = dict(reasons)
    writer.set_unresolved_calls(edges.unresolved())


def _mark_files(writer: GraphWriter, plan: Plan, new_exts: dict[str, FileExtraction]) -> None:
    """Record on each parsed file the hash its symbols come from and its syntax errors."""
    writer.mark_files([
        model.FileParse(id=fid, symbols_hash=plan.current[fid][0], has_errors=ext.has_errors,
                        error_count=ext.error_count, parse_note=ext.skip_reason or (", ".join(ext.problems) or None))
        for fid, ext in new_exts.items()
    ] + [
        # A file still in the tree but no longer parsed (emptied, skipped) loses its marks.
        model.FileParse(id=fid, symbols_hash=None, has_errors=None, error_count=None, parse_note=None)
        for fid in plan.deleted
    ])


def _totals(warm: _Warm | None, all_exts: dict[str, FileExtraction], old_exts: dict[str, FileExtraction],
            new_exts: dict[str, FileExtraction]) -> _Totals:
    """The counts over every extraction after the run: the warm ones with the parsed files'
    old extractions taken out and their new ones added, or else counted."""
    if warm is None:
        totals = _Totals()
        totals.add(all_exts.values())
        return totals
    totals = warm.totals
    totals.add(old_exts.values(), -1)
    totals.add(new_exts.values())
    return totals


def _record(spath: Path, writer: GraphWriter, plan: Plan, indexer: str, new_exts: dict[str, FileExtraction],
            resolved: _Resolved, totals: _Totals) -> None:
    """Record what the graph now holds (the parsed files' extractions were staged as they
    came); only then does the next run trust it. The warm state is kept once the writes commit."""
    token = IndexState.new_token()
    symbols = totals.symbols
    save_state(spath, token, {}, plan.deleted, plan.full, symbols, plan.config_digest, indexer)
    rewritten = resolved.affected | set(plan.deleted)
    writer.set_symbols_token(token, None if plan.full or plan.config_changed else sorted(rewritten))
    hashes = {} if plan.full else plan.state.hashes  # the warm state's own dict, or one read for this run
    for fid in plan.deleted:
        hashes.pop(fid, None)
    hashes.update((fid, plan.current[fid][0]) for fid in new_exts)
    kept = IndexState(token=token, symbols=symbols, module_config=plan.config_digest, indexer=indexer, hashes=hashes)
    warm = _Warm(token, resolved.all_exts, resolved.table, kept, plan, totals)

    def keep_warm() -> None:
        _WARM[spath] = warm

    writer.after_commit(keep_warm)
