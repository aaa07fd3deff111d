"""The indexing jobs: extraction (pure) feeding the graph writer.

`index_tree()` and `index_symbols()` are the functions behind the CLI, GraphQL and REST.
Both are incremental: they compare what is on disk with what the graph holds and write only
the difference.
"""

from __future__ import annotations

import fcntl
import gc
import multiprocessing
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path

from graphsvc import model
from graphsvc.errors import InputError
from graphsvc.graph.driver import Graph, get_graph
from graphsvc.graph.writer import GraphWriter
from graphsvc.model import Rel
from graphsvc.settings import get_settings
from indexers.extract import FileExtraction
from indexers.fingerprint import indexer_fingerprint
from indexers.module_config import read_js_paths
from indexers.state import IndexState, decode, encode, full_run_reason, load_state, save_state, state_path
from indexers.tree import TreeScan, scan_tree

# progress(done, total or None, message)
Progress = Callable[[int, int | None, str], None]


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


@dataclass(slots=True)
class TreeSummary:
    workspace: str
    root: str
    directories: int = 0
    files: int = 0
    indexed: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    added: int = 0
    changed: int = 0
    removed: int = 0
    unchanged: int = 0
    bytes_read: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)

    def line(self) -> str:
        skipped = ", ".join(f"{n} {reason}" for reason, n in sorted(self.skipped.items())) or "none"
        return (
            f"{self.workspace}: {self.directories} dirs, {self.files} files ({self.indexed} indexed; "
            f"skipped: {skipped}); +{self.added} ~{self.changed} -{self.removed} "
            f"={self.unchanged} in {self.seconds:.2f} s"
        )


def _file_row(f, stamps: dict[str, tuple[int, int]]) -> dict:
    return {
        "id": f.id, "name": f.name, "path": f.path, "lang": f.lang, "size": f.size,
        "hash": f.hash, "mtime_ns": stamps.get(f.id, (0, None))[1], "skip_reason": f.skip_reason,
    }


_FILE_FIELDS = ("lang", "size", "hash", "mtime_ns", "skip_reason")


def index_tree(
    path: str | Path,
    workspace: str | None = None,
    graph: Graph | None = None,
    progress: Progress | None = None,
    exclude: Sequence[str] = (),
    replace: bool = False,
) -> TreeSummary:
    """Index directories and files of ``path`` into the graph, incrementally. A workspace
    that holds another directory is refused unless ``replace`` (then it holds this one)."""
    return _sync_tree(path, workspace, graph, progress, exclude, replace)[0]


def _sync_tree(
    path: str | Path,
    workspace: str | None,
    graph: Graph | None,
    progress: Progress | None,
    exclude: Sequence[str],
    replace: bool = False,
) -> tuple[TreeSummary, TreeScan]:
    started = time.perf_counter()
    settings = get_settings()
    ws = workspace_name(path, workspace)
    root = Path(path)
    # Validate the path before touching the graph.
    if not root.exists() or not root.is_dir():
        scan_tree(root, max_file_bytes=settings.index.max_file_bytes)
    graph = graph or get_graph()
    writer = GraphWriter(graph, ws, settings.index.batch_size)
    state = writer.tree_state()
    stored = state.get(model.WORKSPACE_ID)
    check_workspace_root(ws, stored and stored["root"], root.resolve(), replace)
    # Another indexer may classify the same bytes differently (binary, empty): it reads every
    # file again instead of trusting the classification of an unchanged one.
    indexer = indexer_fingerprint()
    same_indexer = stored is not None and stored["indexer"] == indexer
    known = {
        fid: (row["size"], row["mtime_ns"], row["hash"], row["skip_reason"])
        for fid, row in state.items()
        if "File" in row["labels"] and row["hash"] is not None and row["mtime_ns"] is not None
    } if same_indexer else {}

    def scan_progress(done: int, message: str) -> None:
        if progress:
            progress(done, None, message)

    scan = scan_tree(root, max_file_bytes=settings.index.max_file_bytes, known=known,
                     exclude=exclude, progress=scan_progress)
    summary = TreeSummary(workspace=ws, root=str(scan.root), bytes_read=scan.bytes_read)
    summary.directories = len(scan.dirs)
    summary.files = len(scan.files)
    summary.skipped = dict(scan.skipped())
    summary.indexed = summary.files - sum(summary.skipped.values())

    root_record = scan.dirs[0]
    if (not same_indexer or stored["root"] != str(scan.root)
            or stored["skip_reason"] != root_record.skip_reason):
        writer.upsert_workspace(str(scan.root), root_record.skip_reason, indexer)

    new_dirs, new_files = [], []
    for d in scan.dirs[1:]:
        old = state.get(d.id)
        if old is None or "Directory" not in old["labels"]:
            new_dirs.append({"id": d.id, "name": d.name, "path": d.path, "skip_reason": d.skip_reason,
                             "parent": model.parent_dir_id(d.id)})
            summary.added += 1
        elif old["skip_reason"] != d.skip_reason:
            new_dirs.append({"id": d.id, "name": d.name, "path": d.path, "skip_reason": d.skip_reason,
                             "parent": None})
            summary.changed += 1
        else:
            summary.unchanged += 1
    for f in scan.files:
        row = _file_row(f, scan.stamps)
        old = state.get(f.id)
        if old is None or "File" not in old["labels"]:
            new_files.append(row | {"parent": model.parent_dir_id(f.id)})
            summary.added += 1
        elif any(old[k] != row[k] for k in _FILE_FIELDS):
            # A touched but identical file only gets its new mtime; it counts as unchanged.
            new_files.append(row | {"parent": None})
            content_changed = any(old[k] != row[k] for k in ("hash", "skip_reason", "lang"))
            summary.changed += content_changed
            summary.unchanged += not content_changed
        else:
            summary.unchanged += 1

    present = {d.id for d in scan.dirs} | {f.id for f in scan.files}
    # Directory ids end with '/', so a file that became a directory (or back) is a new id.
    vanished = [i for i in state if i != model.WORKSPACE_ID and i not in present]
    if vanished:
        writer.delete_entries(vanished)
        summary.removed = len(vanished)
    # Parents before children: the scan lists directories top-down.
    writer.upsert_dirs(new_dirs)
    writer.upsert_files(new_files)
    summary.seconds = time.perf_counter() - started
    return summary, scan


# -- symbols ------------------------------------------------------------------------------------

# Below this many changed files, parsing in-process beats starting worker processes.
INLINE_PARSE_FILES = 24


@dataclass(slots=True)
class SymbolSummary:
    workspace: str
    mode: str = "incremental"  # or "full"
    full_reason: str | None = None  # why a full run: first run, indexer changed, ...
    files: int = 0  # files in a supported language
    parsed: int = 0
    unchanged: int = 0
    deleted: int = 0
    resolved_files: int = 0  # files whose outgoing edges were re-resolved
    symbols: int = 0  # symbols in the workspace after the run
    symbols_written: int = 0
    symbols_removed: int = 0
    edges_written: dict[str, int] = field(default_factory=dict)  # by relationship type
    edges_by_reason: dict[str, int] = field(default_factory=dict)
    calls: dict = field(default_factory=dict)  # resolver statistics (ResolveStats.as_dict)
    syntax_error_files: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    parse_seconds: float = 0.0
    resolve_seconds: float = 0.0
    write_seconds: float = 0.0
    seconds: float = 0.0
    tree: TreeSummary | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    def line(self) -> str:
        edges = sum(self.edges_written.values())
        by_type = ", ".join(f"{n} {t}" for t, n in sorted(self.edges_written.items())) or "none"
        by_reason = ", ".join(f"{n} {r}" for r, n in sorted(self.edges_by_reason.items())) or "none"
        lines = []
        if self.tree is not None:
            lines.append("tree     " + self.tree.line())
        lines.append(
            f"symbols  {self.workspace} ({self.mode}{': ' + self.full_reason if self.full_reason else ''}): "
            f"{self.files} source files, {self.parsed} parsed, "
            f"{self.unchanged} unchanged, {self.deleted} deleted; {self.symbols} symbols "
            f"(+{self.symbols_written} -{self.symbols_removed}); {self.syntax_error_files} files with "
            f"syntax errors; {self.parse_seconds:.2f} s parse, {self.resolve_seconds:.2f} s resolve, "
            f"{self.write_seconds:.2f} s write, {self.seconds:.2f} s in all"
        )
        lines.append(f"edges    {edges} written: {by_type}")
        lines.append(f"reasons  {by_reason}")
        if self.calls:
            c = self.calls
            resolved = ", ".join(f"{n} {r}" for r, n in c["resolved_by_reason"].items()) or "none"
            lines.append(
                f"calls    {c['calls']} call sites: resolved {resolved}; {c['candidate_calls']} left as "
                f"candidates, {c['external']} external, {c['builtin']} builtin, {c['unresolved']} unresolved"
            )
        if self.skipped:
            lines.append("skipped  " + ", ".join(f"{n} {k}" for k, n in sorted(self.skipped.items())))
        return "\n".join(lines)


def _parse_one(job: tuple[str, str, str]) -> bytes:
    """Worker: read and extract one file; unreadable files come back with a skip reason.

    The result travels encoded as the index state stores it (`indexers.state.encode`): the
    parent loads that faster than a pickle and saves the same bytes without encoding again.
    """
    from indexers.extract import FileExtraction, extract_file
    from indexers.languages import GrammarError

    root, rel, lang = job
    path = os.path.join(root, rel)
    # A directory replaced by a link since the scan must not lead the read out of the root.
    if not os.path.realpath(path).startswith(os.path.join(root, "")):
        return encode(FileExtraction(path=rel, lang=lang, skip_reason=f"unreadable: {path} left the workspace"))
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        return encode(FileExtraction(path=rel, lang=lang, skip_reason=f"unreadable: {exc.strerror or exc}"))
    try:
        return encode(extract_file(rel, data, lang))
    except GrammarError as exc:
        # A broken grammar install must not stop the other languages; the reason names it.
        return encode(FileExtraction(path=rel, lang=lang, skip_reason=f"grammar-error: {exc}"))


def parse_files(
    root: str, files: Sequence[tuple[str, str]], jobs: int, progress: Progress | None
) -> Iterator[tuple[FileExtraction, bytes]]:
    """Extract ``(rel_path, lang)`` files using ``jobs`` processes; yields each extraction and
    its encoded form as they come."""
    work = [(root, rel, lang) for rel, lang in files]
    total = len(work)
    if jobs <= 1 or total <= INLINE_PARSE_FILES:
        for i, job in enumerate(work, 1):
            blob = _parse_one(job)
            yield decode(blob), blob
            if progress and (i % 50 == 0 or i == total):
                progress(i, total, "parsing: " + job[1])
        return
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["indexers.extract"])
    # Largest files first keeps both workers busy until the end.
    work.sort(key=lambda j: -_size(os.path.join(j[0], j[1])))
    with ctx.Pool(jobs) as pool:
        for i, blob in enumerate(pool.imap_unordered(_parse_one, work, chunksize=8), 1):
            ext = decode(blob)
            yield ext, blob
            if progress and (i % 50 == 0 or i == total):
                progress(i, total, "parsing: " + ext.path)


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _symbol_row(s) -> dict:
    return {
        "id": s.id, "name": s.name, "qualified_name": s.qualified_name, "kind": s.kind,
        "file": s.file, "lang": s.lang, "start_line": s.start_line, "end_line": s.end_line,
        "signature": s.signature, "doc": s.doc,
    }


def _write_symbols(
    writer: GraphWriter,
    full: bool,
    new_exts: dict[str, FileExtraction],
    old_exts: dict[str, FileExtraction],
    deleted: list[str],
) -> set[str]:
    """Delete the symbols that are gone and write those of the parsed files; returns the ids
    deleted. Only the files' own extractions are needed, not the resolved edges."""
    new_ids = {s.id for ext in new_exts.values() for s in ext.symbols}
    first = False
    if full:
        stored = writer.symbol_ids()
        first = not stored
        # A full run parsed every current file, so its extractions are all in new_exts.
        stale = stored - new_ids
    else:
        stale = {s.id for ext in old_exts.values() for s in ext.symbols} - new_ids
    writer.delete_symbols(sorted(stale))
    writer.delete_file_symbols(deleted)
    symbol_rows = [_symbol_row(s) for ext in new_exts.values() for s in ext.symbols]
    if first and len(new_ids) == len(symbol_rows):
        writer.create_symbols(symbol_rows)
    else:
        writer.upsert_symbols(symbol_rows)
    return stale


def _merge_edges(edges) -> dict[str, list[dict]]:
    """One relationship per (type, src, dst): repeated call sites become a count."""
    merged: dict[tuple[str, str, str], dict] = {}
    for e in edges:
        key = (e.type, e.src, e.dst)
        row = merged.get(key)
        if row is None:
            merged[key] = {"src": e.src, "dst": e.dst, "prov": e.prov, "confidence": e.confidence,
                           "reason": e.reason, "line": e.line, "count": 1}
        else:
            row["count"] += 1
            if e.confidence > row["confidence"]:
                row.update(prov=e.prov, confidence=e.confidence, reason=e.reason)
            if e.line is not None and (row["line"] is None or e.line < row["line"]):
                row["line"] = e.line
    by_type: dict[str, list[dict]] = {}
    for (rel, _, _), row in merged.items():
        by_type.setdefault(rel, []).append(row)
    return by_type


@dataclass(slots=True)
class _Warm:
    """A workspace's extractions and symbol table as of the run that wrote `token`."""

    token: str
    exts: dict[str, FileExtraction]
    table: object  # indexers.resolve.SymbolTable


_WARM: dict[Path, _Warm] = {}
_LOCKS: dict[Path, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


@contextmanager
def _workspace_lock(spath: Path) -> Iterator[None]:
    """One symbol run per workspace at a time: across threads, and across processes (flock)."""
    with _LOCKS_GUARD:
        lock = _LOCKS.setdefault(spath, threading.Lock())
    spath.parent.mkdir(parents=True, exist_ok=True)
    with lock, open(spath.with_suffix(".lock"), "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def index_symbols(
    path: str | Path,
    workspace: str | None = None,
    graph: Graph | None = None,
    jobs: int | None = None,
    progress: Progress | None = None,
    exclude: Sequence[str] = (),
    replace: bool = False,
) -> SymbolSummary:
    """Bring the tree up to date, then extract, resolve and write symbols and edges of
    changed files; edges of unchanged files that could now resolve differently are redone.
    ``replace`` as for `index_tree`."""
    settings = get_settings()
    graph = graph or get_graph()
    ws = workspace_name(path, workspace)
    spath = state_path(settings.home, ws, graph.uri)
    with _workspace_lock(spath):
        return _index_symbols(path, ws, graph, jobs, progress, exclude, spath, replace)


def _index_symbols(
    path: str | Path,
    workspace: str,
    graph: Graph,
    jobs: int | None,
    progress: Progress | None,
    exclude: Sequence[str],
    spath: Path,
    replace: bool = False,
) -> SymbolSummary:
    from indexers.languages import language_for_path
    from indexers.resolve import (
        ResolveStats, SymbolTable, affected_files, external_nodes, resolve_file, with_shared_sources,
    )

    started = time.perf_counter()
    settings = get_settings()
    tree, scan = _sync_tree(path, workspace, graph, progress, exclude, replace)
    ws = tree.workspace
    root = tree.root
    writer = GraphWriter(graph, ws, settings.index.batch_size, settings.index.write_workers, progress)
    summary = SymbolSummary(workspace=ws, tree=tree)

    state = load_state(spath)
    indexer = indexer_fingerprint()
    summary.full_reason = full_run_reason(state, writer.symbols_token(), indexer)
    full = summary.full_reason is not None
    if full:
        state = IndexState()
        summary.mode = "full"

    current: dict[str, tuple[str, str]] = {}  # file id -> (hash, lang)
    for f in scan.files:
        spec = language_for_path(f.id) if f.skip_reason is None and f.hash else None
        if spec is not None:
            current[f.id] = (f.hash, spec.name)
    summary.files = len(current)
    changed = sorted(fid for fid, (h, _) in current.items() if state.hashes.get(fid) != h)
    deleted = sorted(fid for fid in state.hashes if fid not in current)
    summary.unchanged = len(current) - len(changed)
    summary.deleted = len(deleted)
    # Import aliases of tsconfig/jsconfig files: when they change, every file is re-resolved.
    js_paths, config_problems = read_js_paths(root, [f.id for f in scan.files if f.skip_reason is None])
    if config_problems:
        summary.skipped["unusable-config"] = len(config_problems)  # counted beside the files' reasons
    config_changed = not full and state.module_config != js_paths.digest

    if not changed and not deleted and not full and not config_changed:
        summary.symbols = state.symbols
        summary.seconds = time.perf_counter() - started
        return summary

    # Parse what changed.
    t0 = time.perf_counter()
    workers = jobs or settings.index.jobs or os.cpu_count() or 1
    new_exts: dict[str, FileExtraction] = {}
    new_blobs: dict[str, bytes] = {}
    for ext, blob in parse_files(root, [(fid, current[fid][1]) for fid in changed], workers, progress):
        new_exts[ext.path] = ext
        new_blobs[ext.path] = blob
    summary.parsed = len(new_exts)
    summary.parse_seconds = time.perf_counter() - t0

    # What the changed and deleted files held before. A process that indexed this workspace
    # before (the server) keeps every extraction and its table, and applies the change.
    t0 = time.perf_counter()
    warm = _WARM.pop(spath, None)
    if warm is None or warm.token != state.token or full:
        warm = None
        old_exts = {fid: state.extraction(fid) for fid in changed + deleted if fid in state.blobs}
    else:
        old_exts = {fid: warm.exts[fid] for fid in changed + deleted if fid in warm.exts}

    # Symbols depend on nothing but their own file: Neo4j writes them (a thread here waiting
    # on it) while this thread resolves, and edges follow once both are done.
    symbols_pool = ThreadPoolExecutor(1, thread_name_prefix="symbol-writer")
    symbols_written = symbols_pool.submit(_write_symbols, writer, full, new_exts, old_exts, deleted)
    symbols_pool.shutdown(wait=False)

    try:
        # Resolve: the table knows every file; only affected files are re-resolved.
        if warm is not None:
            all_exts, table = warm.exts, warm.table
            for fid in deleted:
                table.remove_file(fid)
                all_exts.pop(fid, None)
            for fid, ext in new_exts.items():
                table.add_file(ext)
                all_exts[fid] = ext
        else:
            # Decoding allocates a few hundred thousand objects and no cycles: keep the collector out.
            gc.disable()
            try:
                all_exts = {fid: state.extraction(fid) for fid in state.blobs
                            if fid not in deleted and fid not in new_exts}
            finally:
                gc.enable()
            all_exts.update(new_exts)
            table = SymbolTable(all_exts.values())
        table.set_js_paths(js_paths)
        if full or config_changed:
            affected = set(all_exts)
        else:
            affected = affected_files(set(changed) | set(deleted), old_exts, new_exts, table)
            # Their edges are replaced whole: files whose edges leave the same nodes come too.
            affected = with_shared_sources(affected | set(deleted), table, old_exts) & set(all_exts)
        edges = []
        stats = ResolveStats()
        total = len(affected)
        for i, fid in enumerate(sorted(affected), 1):
            edges.extend(resolve_file(all_exts[fid], table, stats))
            if progress and (i % 100 == 0 or i == total):
                progress(i, total, "resolving: " + fid)
        summary.resolved_files = len(affected)
        summary.calls = stats.as_dict()
    except BaseException:
        # Never return while a write is still running behind the caller's back.
        wait([symbols_written])
        raise
    summary.resolve_seconds = time.perf_counter() - t0

    # Write: the outgoing edges of affected files, once their endpoints are written.
    t1 = time.perf_counter()
    stale = symbols_written.result()
    writer.delete_outgoing_code_edges(sorted(affected | set(deleted)))
    by_type = _merge_edges(edges)
    # Only externals an edge points at: an unreferenced one is never kept (nor in a clean index).
    targets = {e.dst for e in edges}
    writer.upsert_externals([
        {"id": x.id, "name": x.name, "qualified_name": x.qualified_name, "kind": str(x.kind)}
        for x in external_nodes(edges) if x.id in targets
    ])
    reasons: Counter[str] = Counter()
    for rel in Rel:
        rows = by_type.get(rel.value)
        if rows:
            writer.create_edges(rel, rows)
            summary.edges_written[rel.value] = len(rows)
            reasons.update(row["reason"] for row in rows)
    summary.edges_by_reason = dict(reasons)
    writer.mark_files([
        {"id": fid, "hash": current[fid][0], "has_errors": ext.has_errors, "error_count": ext.error_count,
         "note": ext.skip_reason or (", ".join(ext.problems) or None)}
        for fid, ext in new_exts.items()
    ] + [
        # A file still in the tree but no longer parsed (emptied, skipped) loses its marks.
        {"id": fid, "hash": None, "has_errors": None, "error_count": None, "note": None}
        for fid in deleted
    ])
    writer.delete_orphan_externals(everywhere=full)
    # The symbol writes ran beside resolution: what is left of them counts as writing.
    summary.write_seconds = time.perf_counter() - t1
    summary.symbols_written = sum(len(ext.symbols) for ext in new_exts.values())
    summary.symbols_removed = len(stale)

    # Record what the graph now holds; only then does the next run trust it.
    token = IndexState.new_token()
    changed_rows = {fid: (current[fid][0], new_blobs[fid]) for fid in new_exts}
    summary.symbols = sum(len(ext.symbols) for ext in all_exts.values())
    save_state(spath, token, changed_rows, deleted, full, summary.symbols, js_paths.digest, indexer)
    writer.set_symbols_token(token)
    _WARM[spath] = _Warm(token, all_exts, table)
    summary.syntax_error_files = sum(1 for ext in all_exts.values() if ext.has_errors)
    summary.skipped.update(Counter(ext.skip_reason.split(":")[0] for ext in all_exts.values() if ext.skip_reason))
    summary.seconds = time.perf_counter() - started
    return summary


def index_all(path, workspace=None, graph=None, jobs=None, progress=None, exclude=(), replace=False) -> SymbolSummary:
    """`graphsvc index`: the tree, then symbols and edges."""
    return index_symbols(path, workspace=workspace, graph=graph, jobs=jobs, progress=progress, exclude=exclude,
                         replace=replace)
