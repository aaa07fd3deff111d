"""The indexing jobs: extraction (pure) feeding the graph writer.

`index_tree()` and `index_symbols()` are the functions behind the CLI, GraphQL and REST.
Both are incremental: they compare what is on disk with what the graph holds and write only
the difference.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from graphsvc import model
from graphsvc.errors import InputError
from graphsvc.graph.driver import Graph, get_graph
from graphsvc.graph.writer import GraphWriter
from graphsvc.settings import get_settings
from indexers.tree import scan_tree

# progress(done, total or None, message)
Progress = Callable[[int, int | None, str], None]


def workspace_name(path: str | Path, workspace: str | None) -> str:
    name = workspace if workspace is not None else Path(path).resolve().name
    if not name or len(name) > 200 or any(c in name for c in "\0\n\r"):
        raise InputError(f"workspace name {name!r} is not usable: 1-200 characters, no NUL or newlines")
    return name


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
) -> TreeSummary:
    """Index directories and files of ``path`` into the graph, incrementally."""
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
    known = {
        fid: (row["size"], row["mtime_ns"], row["hash"], row["skip_reason"])
        for fid, row in state.items()
        if "File" in row["labels"] and row["hash"] is not None and row["mtime_ns"] is not None
    }

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
    ws_row = state.get(model.WORKSPACE_ID)
    if ws_row is None or ws_row["root"] != str(scan.root) or ws_row["skip_reason"] != root_record.skip_reason:
        writer.upsert_workspace(str(scan.root), root_record.skip_reason)

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
    return summary
