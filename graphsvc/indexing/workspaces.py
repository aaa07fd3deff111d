"""Workspaces as one operation: list, show, and drop everything a workspace owns.

A workspace owns its nodes and relationships in Neo4j (tree, symbols, external symbols,
mirrored turns, communities) and, on this machine, the incremental index state kept
beside the graph and the grep index of its files' text. Dropping removes them under the
workspace's index lock, so it waits for a running index of the workspace and no run sees
half a workspace. The rest of the context store (events, turns, continuity, cached
content) is a record of the sessions, not derived from the code, and keeps what it holds.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from graphsvc.context.grep_index import GrepIndex
from graphsvc.indexing.grep_sync import INDEX_BUSY_TIMEOUT_MS
from graphsvc.errors import NotFoundError
from graphsvc.graph.driver import Graph, get_graph
from graphsvc.graph.workspaces import Workspace, delete_workspace, list_workspaces, show_workspace
from graphsvc.indexing.locks import workspace_lock
from graphsvc.indexing.state import close_kept, state_path
from graphsvc.settings import Settings, get_settings

# SQLite's write-ahead log and shared-memory index sit beside a database in WAL mode, the tree
# rows beside it too (`state.tree_path`). The lock file stays: a run waiting on it holds it
# open, and a new file would be a second lock.
_STATE_SIDECARS = ("-wal", "-shm", "-tree")


@dataclass(frozen=True, slots=True)
class DroppedWorkspace:
    """What a drop removed: the graph's nodes and relationships, the index state and the
    grep index."""

    name: str
    root: str | None
    nodes: int
    edges: int
    files: int
    symbols: int
    index_state_removed: bool  # the incremental index state of this machine (and its grep index)

    def to_dict(self) -> dict:
        return asdict(self)


def workspaces(graph: Graph | None = None) -> list[Workspace]:
    """Every workspace in the graph, by name."""
    return list_workspaces(graph or get_graph())


def workspace(name: str, graph: Graph | None = None) -> Workspace:
    return show_workspace(graph or get_graph(), name)


def _remove_state(path: Path) -> bool:
    close_kept(path)
    removed = False
    for file in (path, *(path.with_name(path.name + s) for s in _STATE_SIDECARS)):
        if file.exists():
            file.unlink()
            removed = True
    return removed


def drop_workspace(
    name: str, graph: Graph | None = None, settings: Settings | None = None, missing_ok: bool = False
) -> DroppedWorkspace | None:
    """Delete the workspace's nodes and relationships and its index state. When neither
    exists: `NotFoundError`, or None with `missing_ok`. The next index of its directory is a
    full one."""
    graph = graph or get_graph()
    settings = settings or get_settings()
    state = state_path(settings.home, name, graph.uri)
    grep = GrepIndex(settings=settings)
    # Another workspace's drop or index run can hold the shared store for minutes (the Linux
    # kernel's grep rows): wait for it as an index run does instead of failing at once.
    grep.conn.execute(f"PRAGMA busy_timeout = {INDEX_BUSY_TIMEOUT_MS}")
    try:
        try:
            show_workspace(graph, name)
        except NotFoundError:
            # Checked first: an unknown name leaves no lock file behind.
            if not state.exists() and grep.workspace(graph.uri, name) is None:
                if missing_ok:
                    return None
                raise
        with workspace_lock(state):
            try:
                held = delete_workspace(graph, name)
            except NotFoundError:  # only index state was left (the graph was wiped or replaced)
                held = Workspace(name, None, None, 0, 0, 0, 0)
            removed = _remove_state(state)
            removed = grep.drop(graph.uri, name) or removed
    finally:
        grep.close()
    return DroppedWorkspace(held.name, held.root, held.nodes, held.edges, held.files, held.symbols, removed)


__all__ = ["DroppedWorkspace", "Workspace", "drop_workspace", "workspace", "workspaces"]
