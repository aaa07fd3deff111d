"""One stored Leiden community, by its number (`community`) or through one of its members
(`community_of`): its label and size, the files most of its members are in, its members of
highest degree and the communities its members have most edges with. Reads only: the
communities are the ones `compute_communities` stored last.
"""

from __future__ import annotations

from graphsvc.errors import NotFoundError
from graphsvc.graph import reads
from graphsvc.graph.driver import Graph, get_graph
from graphsvc.model import CODE_RELS, COMMUNITY_PREFIX, Label
from graphsvc.query import symbols
from graphsvc.query.arguments import resolve_scope, result_limit
from graphsvc.query.communities import COMPUTE_HINT
from graphsvc.query.results import CommunityDetail, CommunityMember, Count, CountList, NeighbourCommunity

DEFAULT_LIMIT = 10
_RELS = [r.value for r in CODE_RELS]


def community(*, workspace: str, number: int, limit: int | None = None, graph: Graph | None = None) -> CommunityDetail:
    """The stored community `number` of the workspace."""
    ws = resolve_scope(workspace).workspace
    graph = graph or get_graph()
    return _detail(graph, ws, number, result_limit(limit, DEFAULT_LIMIT), None)


def community_of(ref: str, *, workspace: str, limit: int | None = None, graph: Graph | None = None) -> CommunityDetail:
    """The stored community that `ref` is a member of (or is, for a community's own id)."""
    ws = resolve_scope(workspace).workspace
    graph = graph or get_graph()
    limit = result_limit(limit, DEFAULT_LIMIT)
    node = symbols.resolve(graph, ws, ref)
    if node["community"] is None:
        if not reads.stored_community_count(graph, ws):
            raise NotFoundError(f"{node['id']} is in no community: {COMPUTE_HINT}")
        raise NotFoundError(
            f"{node['id']} is in no stored community: its own had fewer members than the run's minimum "
            "(compute them again with a lower min_size to place it)"
        )
    member = None if Label.COMMUNITY in node["labels"] else node["id"]
    return _detail(graph, ws, node["community"], limit, member)


def _detail(graph: Graph, ws: str, number: int, limit: int, member: str | None) -> CommunityDetail:
    row = reads.community(graph, ws, number, _RELS, limit)
    if row is None:
        stored = reads.stored_community_count(graph, ws)
        if not stored:
            raise NotFoundError(f"workspace {ws!r}: {COMPUTE_HINT}")
        raise NotFoundError(
            f"no community {number} in workspace {ws!r}: its {stored} stored communities are numbered 0..{stored - 1}"
        )
    names = dict(row["top_names"])
    top = [
        CommunityMember(id=ident, name=names.get(ident), degree=int(degree))
        for ident, degree in zip(row["top_members"], row["top_degrees"])
        if ident in names
    ]
    neighbours = [
        NeighbourCommunity(number=n, label=row["labels"].get(n, f"{COMMUNITY_PREFIX}{n}"), edges=edges)
        for n, edges in row["neighbours"]
    ]
    return CommunityDetail(
        workspace=ws, id=row["id"], number=row["number"], label=row["label"], size=row["size"], member=member,
        top_files=CountList(items=[Count(name=f, count=c) for f, c in row["files"]], total=row["files_total"],
                            limit=limit, truncated=row["files_total"] > limit),
        top_members=top, neighbours=neighbours, neighbours_total=row["neighbours_total"], limit=limit,
        truncated=row["neighbours_total"] > limit,
    )
