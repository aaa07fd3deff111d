"""The class hierarchy: `subclasses`, `superclasses` (one hop or every hop), and for a
method what it `overrides` and what it is `overridden_by` (one hop).

Each is one walk along INHERITS and IMPLEMENTS, or OVERRIDES, edges (`reads.reach`), against
them or along them; every entity reached says through which edge, how sure and why.
"""

from __future__ import annotations

from graphsvc.graph import reads
from graphsvc.graph.driver import Graph, get_graph
from graphsvc.model import Rel
from graphsvc.query import engine, symbols
from graphsvc.query.arguments import confidence_floor, resolve_scope, result_limit
from graphsvc.query.results import HierarchyResult, Reached

DEFAULT_LIMIT = 50
# Hops a transitive walk takes at most: deeper class hierarchies are not written by hand.
MAX_HIERARCHY_DEPTH = 32
# Entities walked per hop: the totals count up to this many per hop.
WALK_CAP = 5000
BASES = [Rel.INHERITS.value, Rel.IMPLEMENTS.value]
OVERRIDES = [Rel.OVERRIDES.value]


def reached(row: dict, depth: int) -> Reached:
    """A row of `reads.reach` as an answer shows it."""
    node, edge = row["node"], row["edge"]
    return Reached(
        id=node["id"], kind=node["kind"], line=node["line"], depth=depth, rel=edge["rel"], via=edge["via"],
        confidence=float(edge["confidence"]), reason=edge["reason"],
    )


def _related(
    relation: str,
    ref: str,
    workspace: str,
    rels: list[str],
    incoming: bool,
    transitive: bool,
    min_confidence: float | None,
    limit: int | None,
    graph: Graph | None,
) -> HierarchyResult:
    ws = resolve_scope(workspace).workspace
    limit = result_limit(limit, DEFAULT_LIMIT)
    floor = confidence_floor(min_confidence)
    graph = graph or get_graph()
    start = symbols.resolve(graph, ws, ref)
    depth = MAX_HIERARCHY_DEPTH if transitive else 1
    levels = reads.reach(graph, ws, [start["eid"]], incoming, rels, floor, depth, WALK_CAP)
    found = [reached(row, d) for d, rows in enumerate(levels, 1) for row in rows[:WALK_CAP]]
    return HierarchyResult(
        entity=engine.to_entity(start), relation=relation, rel=rels, transitive=transitive,
        entities=found[:limit], total=len(found), limit=limit,
        truncated=len(found) > limit,
    )


def subclasses(
    ref: str,
    *,
    workspace: str,
    transitive: bool = False,
    min_confidence: float | None = None,
    limit: int | None = None,
    graph: Graph | None = None,
) -> HierarchyResult:
    """The classes that inherit from (or implement) `ref`: directly, or at any depth."""
    return _related("subclasses", ref, workspace, BASES, True, transitive, min_confidence, limit, graph)


def superclasses(
    ref: str,
    *,
    workspace: str,
    transitive: bool = False,
    min_confidence: float | None = None,
    limit: int | None = None,
    graph: Graph | None = None,
) -> HierarchyResult:
    """The classes (or interfaces) `ref` inherits from: directly, or at any depth."""
    return _related("superclasses", ref, workspace, BASES, False, transitive, min_confidence, limit, graph)


def overrides(
    ref: str,
    *,
    workspace: str,
    min_confidence: float | None = None,
    limit: int | None = None,
    graph: Graph | None = None,
) -> HierarchyResult:
    """The methods of base classes that the method `ref` overrides."""
    return _related("overrides", ref, workspace, OVERRIDES, False, False, min_confidence, limit, graph)


def overridden_by(
    ref: str,
    *,
    workspace: str,
    min_confidence: float | None = None,
    limit: int | None = None,
    graph: Graph | None = None,
) -> HierarchyResult:
    """The methods of subclasses that override the method `ref`."""
    return _related("overriddenBy", ref, workspace, OVERRIDES, True, False, min_confidence, limit, graph)

