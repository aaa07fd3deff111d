"""Leiden communities over a workspace graph (or a turn's subgraph), written back to Neo4j.

One query fetches the subgraph, Leiden partitions it (modularity or CPM, deterministic for
a seed: nodes and edges are put in a fixed order first), and the result replaces the
previous run: a `community` property on members, `:Entity:Community` nodes and `MEMBER_OF`
edges (`INFERRED`, reason `leiden`), so the Neo4j Browser can colour them.

Two implementations of Leiden are offered: igraph's built-in one (the default, many times
faster on large graphs) and leidenalg's (the reference implementation, also used whenever
an option needs it).
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter

import igraph
import leidenalg

from graphsvc.errors import InputError
from graphsvc.graph import reads
from graphsvc.graph.driver import Graph, get_graph
from graphsvc.model import CODE_RELS, DEFAULT_MIN_CONFIDENCE, EXTERNAL_PREFIX, Rel, community_id
from graphsvc.query.engine import resolve_scope
from graphsvc.query.results import CommunitiesResult, Community, CommunityMember

OBJECTIVES = {
    "modularity": leidenalg.ModularityVertexPartition,
    "cpm": leidenalg.CPMVertexPartition,
}
ALGORITHMS = ("igraph", "leidenalg")
DEFAULT_RESOLUTION = {"modularity": 1.0, "cpm": 0.05}
DEFAULT_SEED = 42
TOP_MEMBERS = 5
# A label names the deepest directory holding at least this share of the members.
LABEL_SHARE = 0.6
# Fetching and rewriting a whole workspace takes longer than one query may; this bounds it.
TIMEOUT_FACTOR = 10
# igraph draws from one process-wide random generator; a run seeds it under this lock.
_IGRAPH_RNG = threading.Lock()


def communities(
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
    over a turn's subgraph (what the turn touched or mentioned and their neighbours).

    `algorithm` is `igraph` (built-in Leiden) or `leidenalg`; both honour the objective,
    resolution and seed. `iterations` is Leiden's number of iterations (negative: until
    stable). `limit` bounds how many communities the answer lists (all are written back).
    """
    objective = objective.lower()
    if objective not in OBJECTIVES:
        raise InputError(f"unknown objective {objective!r}: use modularity or cpm")
    algorithm = algorithm.lower()
    if algorithm not in ALGORITHMS:
        raise InputError(f"unknown algorithm {algorithm!r}: use {' or '.join(ALGORITHMS)}")
    resolution = DEFAULT_RESOLUTION[objective] if resolution is None else resolution
    if resolution < 0:
        raise InputError(f"resolution must be ≥ 0, got {resolution}")
    seed = DEFAULT_SEED if seed is None else seed
    min_conf = DEFAULT_MIN_CONFIDENCE if min_confidence is None else min_confidence
    try:
        rel_types = [Rel(r.upper()).value for r in rels] if rels else [r.value for r in CODE_RELS]
    except ValueError as exc:
        raise InputError(f"{exc}: use one of {', '.join(r.value for r in Rel)}") from None
    if Rel.MEMBER_OF.value in rel_types:
        raise InputError("communities cannot be computed over MEMBER_OF edges")
    graph = graph or get_graph()
    scope = resolve_scope(workspace, turn_id)

    started = time.perf_counter()
    turn_node = f"turn:{scope.turn_id}" if scope.turn_id else None
    timeout_s = graph.timeout_s * TIMEOUT_FACTOR
    rows = reads.community_graph(graph, scope.workspace, rel_types, min_conf, turn_node, timeout_s)
    fetched = time.perf_counter()
    if not rows:
        raise InputError(
            f"nothing to partition in {scope.turn_id or scope.workspace!r}: index the workspace first"
        )

    rows.sort(key=lambda r: r["id"])
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
    membership, quality = _leiden(g, algorithm, objective, resolution, iterations, seed)
    modularity = g.modularity(membership, weights="weight") if edges else 0.0
    clustered = time.perf_counter()

    degree = g.strength(weights=None)
    groups: dict[int, list[int]] = {}
    for v, c in enumerate(membership):
        groups.setdefault(c, []).append(v)
    # Number communities by decreasing size, ties by first id: stable whatever the algorithm.
    ordered = sorted((m for m in groups.values() if len(m) >= min_size), key=lambda m: (-len(m), rows[m[0]]["id"]))
    found: list[Community] = []
    community_rows, member_rows = [], []
    for n, members in enumerate(ordered):
        top = sorted(members, key=lambda v: (-degree[v], rows[v]["id"]))[:TOP_MEMBERS]
        label = _label([rows[v] for v in members], [rows[v] for v in top])
        cid = community_id(n)
        community_rows.append({"id": cid, "n": n, "label": label, "size": len(members)})
        member_rows.extend({"eid": rows[v]["eid"], "cid": cid, "n": n} for v in members)
        found.append(
            Community(
                id=cid,
                number=n,
                label=label,
                size=len(members),
                top_members=[
                    CommunityMember(id=rows[v]["id"], name=rows[v]["name"], degree=int(degree[v])) for v in top
                ],
            )
        )
    if write:
        info = {
            "modularity": modularity,
            "objective": objective,
            "algorithm": algorithm,
            "resolution": resolution,
            "seed": seed,
        }
        reads.write_communities(graph, scope.workspace, community_rows, member_rows, info, timeout_s=timeout_s)
    written = time.perf_counter()
    return CommunitiesResult(
        workspace=scope.workspace,
        turn_id=scope.turn_id,
        objective=objective,
        algorithm=algorithm,
        resolution=resolution,
        seed=seed,
        nodes=g.vcount(),
        edges=g.ecount(),
        community_count=len(ordered),
        unassigned=g.vcount() - len(member_rows),
        modularity=round(modularity, 6),
        quality=round(quality, 6),
        communities=found if limit is None else found[:limit],
        fetch_s=round(fetched - started, 3),
        leiden_s=round(clustered - fetched, 3),
        write_s=round(written - clustered, 3),
        total_s=round(written - started, 3),
    )


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
