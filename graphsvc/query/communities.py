"""Leiden communities over a workspace graph (or a turn's subgraph), written back to Neo4j.

`compute_communities` fetches the subgraph in one query, Leiden partitions it (modularity or
CPM, deterministic for a seed: nodes and edges are put in a fixed order first), and the
result replaces the workspace's stored partition in one transaction: a `community` property
on members, `:Entity:Community` nodes and `MEMBER_OF` edges (`INFERRED`, reason `leiden`),
so the Neo4j Browser can colour them. `communities` only reads: a workspace's stored
partition, or a turn's subgraph partitioned on the spot and not stored.

Two implementations of Leiden are offered: igraph's built-in one (the default, many times
faster on large graphs) and leidenalg's (the reference implementation, also used whenever
an option needs it).
"""

from __future__ import annotations

import dataclasses
import random
import threading
import time
import uuid
from collections import Counter
from typing import TypedDict, Unpack

import igraph
import leidenalg

from graphsvc import model
from graphsvc.errors import InputError
from graphsvc.graph import reads, writer
from graphsvc.graph.driver import Graph, get_graph
from graphsvc.model import CODE_RELS, EXTERNAL_PREFIX, TURN_PREFIX, Rel, community_id
from graphsvc.query.arguments import confidence_floor, refuse_unknown, rel_types, resolve_scope, result_limit
from graphsvc.query.results import CommunitiesResult, Community, CommunityMember

OBJECTIVES = {
    "modularity": leidenalg.ModularityVertexPartition,
    "cpm": leidenalg.CPMVertexPartition,
}
ALGORITHMS = ("igraph", "leidenalg")
DEFAULT_RESOLUTION = {"modularity": 1.0, "cpm": 0.05}
DEFAULT_SEED = 42
TOP_MEMBERS = 5
# `limit=None` lists every community (up to server.max_results).
ALL = 1 << 62
# A label names the deepest directory holding at least this share of the members.
LABEL_SHARE = 0.6
# Fetching and rewriting a whole workspace takes longer than one query may; this bounds it.
TIMEOUT_FACTOR = 10
# igraph draws from one process-wide random generator; a run seeds it under this lock.
_IGRAPH_RNG = threading.Lock()
# How a workspace's communities come to be stored, for answers that cannot give them.
_HOW_TO_COMPUTE = (
    "the computeCommunities mutation, POST /api/context/communities or `graphsvc index --communities`"
)
COMPUTE_HINT = f"no communities stored for this workspace yet: compute them with {_HOW_TO_COMPUTE}"
# A read that raced a write-back (parts of two runs) is read again, this many times at most.
READ_ATTEMPTS = 5
READ_PAUSE_S = 0.01


class LeidenArguments(TypedDict, total=False):
    """What a Leiden run may be given, each optional: `compute_communities`'s default for one
    left out (or None)."""

    rels: list[str] | None
    min_confidence: float | None
    resolution: float | None
    seed: int | None
    objective: str | None
    algorithm: str | None
    min_size: int | None


def communities(
    *,
    workspace: str | None = None,
    turn_id: str | None = None,
    limit: int | None = 20,
    graph: Graph | None = None,
    **leiden: Unpack[LeidenArguments],
) -> CommunitiesResult:
    """Read communities, never writing: a workspace's stored partition (the latest
    `compute_communities`), or a turn's subgraph partitioned now with the Leiden arguments.

    A workspace read takes no Leiden argument (the stored run has its own); with none
    stored, the answer lists no community and its `hint` says how to compute them.
    """
    refuse_unknown(leiden, LeidenArguments)
    given = {name: leiden[name] for name in LeidenArguments.__annotations__ if leiden.get(name) not in (None, [])}
    scope = resolve_scope(workspace, turn_id)
    if scope.turn_id:
        return compute_communities(
            workspace=scope.workspace, turn_id=scope.turn_id, limit=limit, write=False, graph=graph, **given
        )
    if given:
        raise InputError(
            f"{next(iter(given))} is an argument of computing communities; reading a workspace's returns "
            f"its stored partition: compute with {_HOW_TO_COMPUTE}"
        )
    return stored_communities(scope.workspace, limit=limit, graph=graph)


def stored_communities(workspace: str, *, limit: int | None = 20, graph: Graph | None = None) -> CommunitiesResult:
    """The workspace's stored partition as one run left it, largest communities first."""
    limit = result_limit(limit, ALL)
    graph = graph or get_graph()
    started = time.perf_counter()
    for attempt in range(READ_ATTEMPTS):
        rows = reads.stored_communities(graph, workspace)
        if _one_run(rows):
            break
        time.sleep(READ_PAUSE_S * (attempt + 1))  # the commit being read is finishing
    read = round(time.perf_counter() - started, 3)
    if not rows:
        return _answer(workspace, model.CommunityRun(), [], limit, stored=True, fetch_s=read, total_s=read,
                       hint=COMPUTE_HINT)
    found = []
    for r in rows:
        names = dict(r["top_names"])
        top = [
            CommunityMember(id=ident, name=names.get(ident), degree=int(degree))
            for ident, degree in zip(r["top_members"], r["top_degrees"])
            if ident in names
        ]
        # What is stored now: the members counted, should a member have been deleted since.
        found.append(Community(id=r["id"], number=r["number"], label=r["label"], size=r["members"], top_members=top))
    found.sort(key=lambda c: (-c.size, c.number))
    # A property an older run did not store keeps its default; its node count is its members'.
    run = model.CommunityRun(**{name: value for name, value in rows[0]["run"].items() if value is not None})
    if rows[0]["run"]["nodes"] is None:
        run = dataclasses.replace(run, nodes=sum(c.size for c in found))
    return _answer(workspace, run, found, limit, stored=True, fetch_s=read, total_s=read)


# What an answer reports of its run as the run records it.
_REPORTED = [f.name for f in dataclasses.fields(model.CommunityRun) if f.name in CommunitiesResult.__dataclass_fields__]


def _answer(
    workspace: str,
    run: model.CommunityRun,
    found: list[Community],
    limit: int,
    *,
    stored: bool,
    fetch_s: float,
    total_s: float,
    leiden_s: float = 0.0,
    write_s: float = 0.0,
    hint: str | None = None,
) -> CommunitiesResult:
    """What a run, read back or just made, answers: its record and at most `limit` communities."""
    reported = {name: getattr(run, name) for name in _REPORTED} | {
        "modularity": round(run.modularity, 6), "quality": round(run.quality, 6), "community_count": len(found),
    }
    return CommunitiesResult(
        **reported, workspace=workspace, turn_id=(run.turn or "").removeprefix(TURN_PREFIX) or None,
        communities=found[:limit], stored=stored, hint=hint,
        fetch_s=fetch_s, leiden_s=leiden_s, write_s=write_s, total_s=total_s,
    )


def _one_run(rows: list[dict]) -> bool:
    """Whether rows read in one statement are one whole run.

    Neo4j reads what is committed as it goes: a read overlapping a write-back's commit can
    see the nodes of one run with the properties of the next (fewer or more communities
    than the run made), parts of two runs, or a size its members do not match.
    """
    if not rows:
        return True
    run = rows[0]["run"]
    return (
        len({r["run"]["run"] for r in rows}) == 1
        and all(r["size"] == r["members"] for r in rows)
        and run["community_count"] in (None, len(rows))
    )


def compute_communities(
    *,
    workspace: str | None = None,
    turn_id: str | None = None,
    rels: list[str] | None = None,
    min_confidence: float | None = None,
    resolution: float | None = None,
    seed: int | None = None,
    objective: str = "modularity",
    algorithm: str = "igraph",
    iterations: int = 2,
    min_size: int = 3,
    limit: int | None = 20,
    write: bool = True,
    graph: Graph | None = None,
) -> CommunitiesResult:
    """Partition the scope with Leiden and store the communities of `min_size`+ members.

    A workspace keeps one stored partition: the latest run, over the whole workspace or
    over a turn's subgraph (what the turn touched or mentioned and their neighbours). Runs
    of one workspace write back one at a time, each in one transaction.

    `algorithm` is `igraph` (built-in Leiden) or `leidenalg`; both honour the objective,
    resolution and seed. `iterations` is Leiden's number of iterations (negative: until
    stable). `limit` bounds how many communities the answer lists (all are written back).
    """
    limit = result_limit(limit, ALL)
    objective, algorithm, resolution = _leiden_arguments(objective, algorithm, resolution)
    seed = DEFAULT_SEED if seed is None else seed
    min_conf = confidence_floor(min_confidence)
    followed = rel_types(rels, default=[r.value for r in CODE_RELS])
    if Rel.MEMBER_OF.value in followed:
        raise InputError("communities cannot be computed over MEMBER_OF edges")
    graph = graph or get_graph()
    scope = resolve_scope(workspace, turn_id)

    started = time.perf_counter()
    turn_node = model.turn_id(scope.turn_id) if scope.turn_id else None
    timeout_s = graph.timeout_s * TIMEOUT_FACTOR
    rows = reads.community_graph(graph, scope.workspace, followed, min_conf, turn_node, timeout_s)
    fetched = time.perf_counter()
    if not rows:
        raise InputError(
            f"nothing to partition in {scope.turn_id or scope.workspace!r}: index the workspace first"
        )

    rows.sort(key=lambda r: r["id"])
    g = _weighted_graph(rows)
    membership, quality = _leiden(g, algorithm, objective, resolution, iterations, seed)
    modularity = g.modularity(membership, weights="weight") if g.ecount() else 0.0
    clustered = time.perf_counter()

    found, member_rows = _numbered(rows, g, membership, min_size)
    run = model.CommunityRun(
        run=uuid.uuid4().hex, turn=turn_node, objective=objective, algorithm=algorithm, resolution=resolution,
        seed=seed, modularity=modularity, quality=quality, nodes=g.vcount(), edges=g.ecount(),
        unassigned=g.vcount() - len(member_rows), community_count=len(found),
    )
    if write:
        nodes = [_community_node(c, run) for c in found]
        writer.write_communities(graph, scope.workspace, nodes, member_rows, timeout_s=timeout_s)
    written = time.perf_counter()
    return _answer(
        scope.workspace, run, found, limit, stored=write, fetch_s=round(fetched - started, 3),
        leiden_s=round(clustered - fetched, 3), write_s=round(written - clustered, 3),
        total_s=round(written - started, 3),
    )


def _leiden_arguments(objective: str, algorithm: str, resolution: float | None) -> tuple[str, str, float]:
    """The objective and algorithm (any case) and the resolution (default: the objective's)."""
    objective = objective.lower()
    if objective not in OBJECTIVES:
        raise InputError(f"unknown objective {objective!r}: use modularity or cpm")
    algorithm = algorithm.lower()
    if algorithm not in ALGORITHMS:
        raise InputError(f"unknown algorithm {algorithm!r}: use {' or '.join(ALGORITHMS)}")
    resolution = DEFAULT_RESOLUTION[objective] if resolution is None else resolution
    if resolution < 0:
        raise InputError(f"resolution must be ≥ 0, got {resolution}")
    return objective, algorithm, resolution


def _weighted_graph(rows: list[dict]) -> igraph.Graph:
    """The rows' undirected graph, vertex i for row i; parallel edges become one, weights summed."""
    index = {r["eid"]: i for i, r in enumerate(rows)}
    weights: dict[tuple[int, int], float] = {}
    for i, row in enumerate(rows):
        for dst, w in row["out"]:
            j = index.get(dst)
            if j is None or j == i:
                continue
            key = (i, j) if i < j else (j, i)
            weights[key] = weights.get(key, 0.0) + float(w)
    edges = sorted(weights)
    g = igraph.Graph(n=len(rows), edges=edges, directed=False)
    g.es["weight"] = [weights[e] for e in edges]
    return g


def _community_node(c: Community, run: model.CommunityRun) -> model.CommunityNode:
    top = c.top_members
    return model.CommunityNode(
        **{f.name: getattr(run, f.name) for f in dataclasses.fields(run)},
        id=c.id, name=c.label, label=c.label, community=c.number, size=c.size,
        top_members=[m.id for m in top], top_degrees=[m.degree for m in top],
    )


def _numbered(
    rows: list[dict], g: igraph.Graph, membership: list[int], min_size: int
) -> tuple[list[Community], list[dict]]:
    """The communities of `min_size`+ members, and the rows that store their membership."""
    degree = g.strength(weights=None)
    groups: dict[int, list[int]] = {}
    for v, c in enumerate(membership):
        groups.setdefault(c, []).append(v)
    # Number communities by decreasing size, ties by first id: stable whatever the algorithm.
    ordered = sorted((m for m in groups.values() if len(m) >= min_size), key=lambda m: (-len(m), rows[m[0]]["id"]))
    found: list[Community] = []
    member_rows = []
    for n, members in enumerate(ordered):
        top = sorted(members, key=lambda v: (-degree[v], rows[v]["id"]))[:TOP_MEMBERS]
        label = _label([rows[v] for v in members], [rows[v] for v in top])
        cid = community_id(n)
        member_rows.extend({"eid": rows[v]["eid"], "id": rows[v]["id"], "cid": cid, "n": n} for v in members)
        top_members = [CommunityMember(id=rows[v]["id"], name=rows[v]["name"], degree=int(degree[v])) for v in top]
        found.append(Community(id=cid, number=n, label=label, size=len(members), top_members=top_members))
    return found, member_rows


def _leiden(
    g: igraph.Graph, algorithm: str, objective: str, resolution: float, iterations: int, seed: int
) -> tuple[list[int], float]:
    """Membership per vertex and the objective's quality."""
    if algorithm == "igraph":
        with _IGRAPH_RNG:
            igraph.set_random_number_generator(random.Random(seed))
            try:
                found = g.community_leiden(
                    objective_function="CPM" if objective == "cpm" else "modularity",
                    weights="weight",
                    resolution=resolution,
                    n_iterations=iterations,
                )
            finally:
                igraph.set_random_number_generator(random)
        return found.membership, found.quality
    kwargs = {"weights": "weight", "n_iterations": iterations, "seed": seed}
    if objective == "cpm" or resolution != 1.0:
        kind = leidenalg.CPMVertexPartition if objective == "cpm" else leidenalg.RBConfigurationVertexPartition
        partition = leidenalg.find_partition(g, kind, resolution_parameter=resolution, **kwargs)
    else:
        partition = leidenalg.find_partition(g, leidenalg.ModularityVertexPartition, **kwargs)
    return partition.membership, partition.quality()


def _directory(row: dict) -> str | None:
    ident = row["id"]
    if ident.startswith(EXTERNAL_PREFIX):
        return None
    path = row.get("file") or row.get("path") or ident.split("#", 1)[0]
    if ident.endswith("/"):
        return ident
    head, _, _ = path.rpartition("/")
    return head + "/" if head else "/"


def _label(members: list[dict], top: list[dict]) -> str:
    """The deepest directory most members share, else the top members' names."""
    dirs = [d for d in (_directory(r) for r in members) if d]
    if dirs:
        counts: Counter[str] = Counter()
        for d in dirs:
            parts = d.strip("/").split("/") if d != "/" else []
            for k in range(1, len(parts) + 1):
                counts["/".join(parts[:k]) + "/"] += 1
        need = LABEL_SHARE * len(dirs)
        shared = [d for d, c in counts.items() if c >= need]
        if shared:
            best = max(shared, key=lambda d: (d.count("/"), counts[d], d))
            names = ", ".join(_unique(r.get("name") for r in top)[:2])
            return f"{best} ({names})" if names else best
    return ", ".join(_unique(r.get("name") or r["id"] for r in top)[:3])


def _unique(names) -> list[str]:
    return list(dict.fromkeys(n for n in names if n))
