"""Workspaces as Neo4j holds them: list them with their sizes, show one, delete one.

A workspace is every ``:Entity`` node with its name in ``workspace`` (the tree, symbols,
external symbols, mirrored turns, communities) and the relationships between them; its
``:Workspace`` node records the root directory and when the last symbol index that
changed something ended.

Deleting runs in batches of its own transactions, so a large workspace never needs one
transaction the size of the workspace (and what is deleted stays deleted if Neo4j stops).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from graphsvc.errors import InputError, NotFoundError
from graphsvc.graph.driver import Graph
from graphsvc.model import ENTITY, WORKSPACE_ID, Label

# Rows per transaction of a drop: a node takes its relationships with it, so a batch of
# symbols with many edges deletes several times this many records.
DROP_BATCH = 10_000
# A drop is many transactions; this bounds the whole statement, not one batch.
DROP_TIMEOUT_S = 600.0


def _sizes_of(match: str) -> str:
    # Degrees come from the nodes' relationship counts (no relationship is read). Every edge
    # joins two nodes of one workspace, so outgoing degrees count each of its edges once.
    return f"""
{match}
WITH n.workspace AS name, count(n) AS nodes, sum(COUNT {{ (n)-->() }}) AS edges,
     count(CASE WHEN n:{Label.FILE} THEN 1 END) AS files,
     count(CASE WHEN n:{Label.SYMBOL} AND NOT n:{Label.EXTERNAL} THEN 1 END) AS symbols,
     collect(CASE WHEN n:{Label.WORKSPACE} AND n.id = $root THEN n END)[0] AS w
RETURN name, nodes, edges, files, symbols, w.root AS root, toString(w.indexed_at) AS indexed_at
ORDER BY name
"""


_SIZES_ALL = _sizes_of(f"MATCH (n:{ENTITY})")
_SIZES_ONE = _sizes_of(f"MATCH (n:{ENTITY} {{workspace: $ws}})")

# Relationships first, a batch of them per transaction: a node's DETACH DELETE takes all of
# its relationships in one transaction, and a name called from 100 k places (the Linux
# kernel's) exceeds Neo4j's transaction memory. Then the nodes, with what links them to
# nodes of other workspaces.
_DROP_RELS = f"""
MATCH (:{ENTITY} {{workspace: $ws}})-[r]->()
CALL (r) {{ DELETE r }} IN TRANSACTIONS OF $batch ROWS
"""
_DROP = f"""
MATCH (n:{ENTITY} {{workspace: $ws}})
CALL (n) {{ DETACH DELETE n }} IN TRANSACTIONS OF $batch ROWS
"""


@dataclass(frozen=True, slots=True)
class Workspace:
    """A workspace in the graph: where it was indexed from, when, and how large it is."""

    name: str
    root: str | None  # the directory indexed into it; None for one that holds only turns
    indexed_at: str | None  # ISO 8601 (UTC): the last symbol index that changed it
    nodes: int
    edges: int
    files: int
    symbols: int  # defined in its files; external symbols are counted in `nodes` only

    def to_dict(self) -> dict:
        return asdict(self)


def _checked(name: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise InputError("workspace: give a workspace name (`graphsvc workspaces list` shows them)")
    return name


def _sizes(graph: Graph, name: str | None) -> list[Workspace]:
    cypher = _SIZES_ALL if name is None else _SIZES_ONE
    # A node that a running drop deletes while this reads it reads as one without properties:
    # its row has no name, and belongs to no workspace.
    return [Workspace(**row) for row in graph.read(cypher, ws=name, root=WORKSPACE_ID) if row["name"] is not None]


def list_workspaces(graph: Graph) -> list[Workspace]:
    """Every workspace with at least one node, by name."""
    return _sizes(graph, None)


def show_workspace(graph: Graph, name: str) -> Workspace:
    """One workspace; `NotFoundError` when the graph holds nothing of it."""
    found = _sizes(graph, _checked(name))
    if not found:
        raise NotFoundError(f"workspace {name!r}: no such workspace in the graph (`graphsvc workspaces list` shows them)")
    return found[0]


def delete_workspace(graph: Graph, name: str, batch: int = DROP_BATCH) -> Workspace:
    """Delete every node of the workspace and their relationships; returns what it held.
    `NotFoundError` when the graph holds nothing of it."""
    before = show_workspace(graph, name)
    graph.autocommit(_DROP_RELS, timeout_s=DROP_TIMEOUT_S, ws=name, batch=batch)
    graph.autocommit(_DROP, timeout_s=DROP_TIMEOUT_S, ws=name, batch=batch)
    return before


__all__ = ["DROP_BATCH", "Workspace", "delete_workspace", "list_workspaces", "show_workspace"]
