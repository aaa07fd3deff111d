"""The query engine: `context_query` and the typed operations it dispatches to.

CLI, GraphQL and REST call these functions and nothing else. Each operation is one or two
round trips to Neo4j (the Cypher is in `graphsvc.graph.reads`); ranking, PageRank and
summaries are computed here in Python on what was fetched.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Unpack

import igraph

from graphsvc.errors import AmbiguousError, InputError, NotFoundError
from graphsvc.graph import reads
from graphsvc.graph.driver import Graph, get_graph
from graphsvc.graph.freshness import freshness
from graphsvc.model import ENTITY, ENTITY_PROPERTIES, SEARCHED_PROPERTIES, Label, identifier_words
from graphsvc.query import ranking
from graphsvc.query.arguments import (
    CheckedWalk,
    Walk,
    check_length,
    check_walk,
    provenances,
    resolve_scope,
    result_limit,
)
from graphsvc.query.communities import communities
from graphsvc.query.parser import KNOWN_TURN_KEYS, MAX_DEPTH, MAX_HOPS, ParsedQuery, parse, parse_keywords
from graphsvc.query.results import (
    ContextResult,
    Count,
    Edge,
    Entity,
    Explanation,
    Hub,
    KeyValue,
    Neighborhood,
    Overview,
    Path,
    PathsResult,
    SearchHit,
    SearchResult,
)

SEARCH_FIELDS = tuple(SEARCHED_PROPERTIES)  # "words" and "doc" last: read apart (doc cut to a length)
# Matches a search ranks at most; beyond them, those whose names hold the keywords best
# (`ranking.tier`, approximately) and then the shortest names are kept (`reads.search`).
SEARCH_CANDIDATES = 100
SEARCH_RANK_DOC_CHARS = 1000  # of a doc, what ranking reads
SEARCH_DOC_CHARS = 400  # of a doc, what a hit shows
DEFAULT_LIMITS = {"search": 20, "neigh": 200, "path": 5, "explain": 300, "communities": 20}
EXPLAIN_HUBS = 5

# kind= values that are labels; the rest are symbol kinds.
_KIND_LABELS = {
    "note": Label.NOTE,
    "file": Label.FILE,
    "dir": Label.DIRECTORY,
    "directory": Label.DIRECTORY,
    "symbol": Label.SYMBOL,
    "external": Label.EXTERNAL,
    "turn": Label.TURN,
    "community": Label.COMMUNITY,
    "workspace": Label.WORKSPACE,
}


def to_entity(row: dict, degree: int | None = None) -> Entity:
    """The entity a read's node map (`reads._node`) stands for."""
    labels = [lb for lb in row.get("labels") or [] if lb != ENTITY]
    primary = next((lb for lb in labels if lb != Label.EXTERNAL), labels[0] if labels else ENTITY)
    return Entity(
        label=primary, labels=labels, degree=degree, level=row.get("level"),
        **{name: row.get(name) for name in ENTITY_PROPERTIES},
    )


def _edge(row: dict, ids: dict[str, str]) -> Edge:
    return Edge(
        type=row["type"],
        source=ids[row["src"]],
        target=ids[row["dst"]],
        prov=row.get("prov"),
        confidence=float(row["confidence"]),
        reason=row.get("reason"),
    )


# --- entity ------------------------------------------------------------------------------


def _resolve_row(graph: Graph, workspace: str, ref: str) -> dict:
    if not ref:
        raise InputError("empty entity id")
    rows = reads.find_entities(graph, workspace, ref)
    if not rows:
        if not reads.workspace_exists(graph, workspace):
            raise NotFoundError(f"workspace {workspace!r} has no entities: index it with `graphsvc index-tree`")
        raise NotFoundError(
            f"no entity {ref!r} in workspace {workspace!r}: give an id (src/app.py#App.run), "
            "a qualified name or a unique suffix, or search for it"
        )
    best = min(r["rank"] for r in rows)
    top = [r["node"] for r in rows if r["rank"] == best]
    unique = {n["eid"]: n for n in top}
    if len(unique) > 1:
        candidates = sorted(n["id"] for n in unique.values())
        raise AmbiguousError(
            f"{ref!r} matches {len(candidates)} entities in {workspace!r}; use one of their ids: "
            + ", ".join(candidates[:10])
            + (" …" if len(candidates) > 10 else ""),
            candidates[:20],
        )
    return top[0]


def entity(ref: str, *, workspace: str | None = None, turn_id: str | None = None, graph: Graph | None = None) -> Entity:
    """Resolve an exact id, a qualified name, a name or an unambiguous id suffix."""
    check_length(ref, "an entity id")
    scope = resolve_scope(workspace, turn_id)
    return to_entity(_resolve_row(graph or get_graph(), scope.workspace, ref))


# --- search ------------------------------------------------------------------------------

_LUCENE_SPECIAL = set('+-&|!(){}[]^"~*?:\\/')


def lucene_escape(term: str) -> str:
    out = []
    for ch in term:
        if ch in _LUCENE_SPECIAL:
            out.append("\\")
        out.append(ch)
    escaped = "".join(out)
    # Lucene's operator words are data here.
    return escaped.lower() if escaped in ("AND", "OR", "NOT", "TO") else escaped


# Lucene turns each word into two clauses (at most 1024 per query) and a prefix automaton (at
# most ~1000 states): bound both here, so a hostile query is refused instead of failing there
# (or, with 100 000 OR terms, exhausting Neo4j's heap).
MAX_KEYWORDS = 64
MAX_KEYWORD_CHARS = 256


def keyword_clauses(term: str) -> list[str]:
    """The Lucene clauses of one keyword: a phrase, or a word (and its prefix)."""
    if any(c.isspace() for c in term):
        return ['"' + term.replace("\\", "\\\\").replace('"', '\\"') + '"']
    e = lucene_escape(term)
    # A one-letter prefix matches a good part of any workspace, and ranking all that is slow.
    return [e, f"{e.lower()}*"] if len(term) >= ranking.MIN_PREFIX_CHARS else [e]


def lucene_query(terms: list[list[str]]) -> str:
    """AND of OR-groups; a single word also matches as a prefix."""
    count = sum(len(group) for group in terms)
    if count > MAX_KEYWORDS:
        raise InputError(f"{count} search keywords: give at most {MAX_KEYWORDS}")
    longest = max((len(term) for group in terms for term in group), default=0)
    if longest > MAX_KEYWORD_CHARS:
        raise InputError(f"a search keyword of {longest} characters: give at most {MAX_KEYWORD_CHARS}")
    groups = []
    for group in terms:
        clauses = []
        for term in group:
            term = term.strip()
            if not term:
                continue
            clauses.extend(keyword_clauses(term))
        if clauses:
            groups.append("+(" + " ".join(clauses) + ")")
    if not groups:
        raise InputError("no keywords to search for")
    return " ".join(groups)


def search(
    terms: list[list[str]] | str,
    *,
    workspace: str | None = None,
    turn_id: str | None = None,
    kinds: list[str] | None = None,
    provs: list[str] | None = None,
    limit: int | None = None,
    graph: Graph | None = None,
) -> SearchResult:
    """Full-text search over names, qualified names, paths, signatures and docs, ranked with
    the workspace's own statistics (`graphsvc.query.ranking`)."""
    if isinstance(terms, str):
        terms = parse_keywords(terms)
    scope_ws = resolve_scope(workspace, turn_id).workspace if (workspace or turn_id) else None
    stale, pending = freshness(scope_ws)
    limit = result_limit(limit, DEFAULT_LIMITS["search"])
    labels, sym_kinds = [], []
    for k in kinds or []:
        k = k.lower()
        if k in _KIND_LABELS:
            labels.append(_KIND_LABELS[k].value)
        else:
            sym_kinds.append(k)
    lucene = lucene_query(terms)
    graph = graph or get_graph()
    keywords = [t.strip() for group in terms for t in group if t.strip()]
    exact = {k: keyword_clauses(k)[0] for k in keywords}
    token, df, rows = reads.search(graph, lucene, scope_ws, labels, sym_kinds, provenances(provs),
                                   max(limit, SEARCH_CANDIDATES) + 1, keywords, sorted(set(exact.values())),
                                   SEARCH_RANK_DOC_CHARS, identifier_words(" ".join(keywords)).split())
    total = _entity_count(graph, scope_ws, token) if rows else 0
    idfs = {k: ranking.idf(total, df.get(q, 0)) for k, q in exact.items()}
    words = [k.lower() for k in keywords]
    query = ranking.readings(terms)
    ranked = []
    for row in rows:
        node = row["node"]
        values = {f: node.get(f) for f in SEARCH_FIELDS[:-2]} | {"words": row["words"], "doc": row["doc"]}
        if not all(any(ranking.matches(values, k) for k in group if k.strip()) for group in terms if any(
                k.strip() for k in group)):
            continue
        matched = [f for f, v in values.items() if v and any(w in str(v).lower() for w in words)]
        doc = row["doc"][:SEARCH_DOC_CHARS] if row["doc"] else None
        hit = SearchHit(entity=to_entity(node), score=ranking.score(values, keywords, idfs), matched=matched, doc=doc)
        tier = ranking.tier(node.get("name"), node.get("qualified_name"), query)
        ranked.append((Label.EXTERNAL in hit.entity.labels, tier, -hit.score, hit.entity.id, hit))
    ranked.sort(key=lambda r: r[:4])
    hits = [r[-1] for r in ranked[:limit]]
    return SearchResult(workspace=scope_ws, terms=terms, hits=hits, truncated=len(ranked) > limit,
                        stale=stale, pending_files=pending)


# (graph uri, workspace) -> (symbols token, monotonic time, entities): counting a large
# workspace's entities costs more than the rest of a search.
_ENTITY_COUNTS: dict[tuple[str, str | None], tuple[str | None, float, int]] = {}
ENTITY_COUNT_TTL_S = 60.0


def _entity_count(graph: Graph, workspace: str | None, token: str | None) -> int:
    """The workspace's entities, counted again after a symbol index run or a minute."""
    key = (graph.uri, workspace)
    cached = _ENTITY_COUNTS.get(key)
    now = time.monotonic()
    if cached is not None and cached[0] == token and now - cached[1] < ENTITY_COUNT_TTL_S:
        return cached[2]
    total = reads.entity_count(graph, workspace)
    _ENTITY_COUNTS[key] = (token, now, total)
    return total


# --- neighborhood ------------------------------------------------------------------------


def _fetch_neighborhood(
    graph: Graph, center: dict, depth: int, walk: CheckedWalk
) -> tuple[Entity, list[Entity], list[Edge], bool]:
    if not 1 <= depth <= MAX_DEPTH:
        raise InputError(f"depth must be 1..{MAX_DEPTH}, got {depth}")
    edge_cap = min(max(walk.limit * 20, 2000), 50_000)
    raw = reads.neighborhood(
        graph, walk.scope.workspace, center["eid"], depth, walk.rels, walk.provs, walk.min_confidence, walk.limit,
        edge_cap,
    )
    ids = {center["eid"]: center["id"]} | {n["eid"]: n["id"] for n in raw["nodes"]}
    degrees = raw["degrees"]
    center_entity = to_entity(center, degrees.get(center["eid"]))
    center_entity.level = 0
    nodes = [to_entity(n, degrees.get(n["eid"])) for n in raw["nodes"]]
    edges = [_edge(e, ids) for e in raw["edges"]]
    return center_entity, nodes, edges, raw["truncated"]


def neighborhood(ref: str, *, depth: int = 1, graph: Graph | None = None, **walk: Unpack[Walk]) -> Neighborhood:
    """Entities within `depth` hops (1-4) along the chosen edges, at most `limit` of them."""
    check_length(ref, "an entity id")
    checked = check_walk(walk, DEFAULT_LIMITS["neigh"])
    graph = graph or get_graph()
    center = _resolve_row(graph, checked.scope.workspace, ref)
    c, nodes, edges, truncated = _fetch_neighborhood(graph, center, depth, checked)
    return Neighborhood(center=c, depth=depth, nodes=nodes, edges=edges, truncated=truncated, limit=checked.limit)


# --- paths -------------------------------------------------------------------------------


def paths(
    source: str,
    target: str,
    *,
    max_hops: int = 6,
    directed: bool = False,
    graph: Graph | None = None,
    **walk: Unpack[Walk],
) -> PathsResult:
    """The shortest path(s) from `source` to `target`, at most `max_hops` long."""
    check_length(source, "a source id")
    check_length(target, "a target id")
    checked = check_walk(walk, DEFAULT_LIMITS["path"])
    graph = graph or get_graph()
    if not 1 <= max_hops <= MAX_HOPS:
        raise InputError(f"maxHops must be 1..{MAX_HOPS}, got {max_hops}")
    a = _resolve_row(graph, checked.scope.workspace, source)
    b = _resolve_row(graph, checked.scope.workspace, target)
    found: list[Path] = []
    if a["eid"] != b["eid"]:
        rows = reads.shortest_paths(
            graph, a["eid"], b["eid"], max_hops, directed, checked.rels, checked.provs, checked.min_confidence,
            checked.limit,
        )
        for row in rows:
            ids = {n["eid"]: n["id"] for n in row["nodes"]}
            found.append(
                Path(
                    nodes=[to_entity(n) for n in row["nodes"]],
                    edges=[_edge(e, ids) for e in row["edges"]],
                    length=len(row["edges"]),
                )
            )
    else:
        found.append(Path(nodes=[to_entity(a)], edges=[], length=0))
    return PathsResult(source=to_entity(a), target=to_entity(b), max_hops=max_hops, directed=directed, paths=found)


# --- explain -----------------------------------------------------------------------------


def explain(ref: str, *, depth: int = 2, graph: Graph | None = None, **walk: Unpack[Walk]) -> Explanation:
    """The entity's neighborhood in numbers, the hubs around it and the path to the nearest hub.

    Hubs are ranked over the bounded neighborhood (at most `limit` nodes): by total degree in
    the graph and by PageRank on the fetched subgraph.
    """
    check_length(ref, "an entity id")
    checked = check_walk(walk, DEFAULT_LIMITS["explain"])
    graph = graph or get_graph()
    center_row = _resolve_row(graph, checked.scope.workspace, ref)
    center, nodes, edges, truncated = _fetch_neighborhood(graph, center_row, depth, checked)
    everyone = [center, *nodes]
    index = {e.id: i for i, e in enumerate(everyone)}
    g = igraph.Graph(n=len(everyone), edges=[(index[e.source], index[e.target]) for e in edges], directed=True)
    pagerank = g.pagerank(directed=True) if edges else [1.0 / len(everyone)] * len(everyone)

    def hub(i: int) -> Hub:
        return Hub(entity=everyone[i], degree=everyone[i].degree or 0, pagerank=round(pagerank[i], 6))

    others = range(1, len(everyone))
    by_degree = sorted(others, key=lambda i: (-(everyone[i].degree or 0), everyone[i].id))[:EXPLAIN_HUBS]
    by_rank = sorted(others, key=lambda i: (-pagerank[i], everyone[i].id))[:EXPLAIN_HUBS]
    nearest, path = None, None
    candidates = sorted(set(by_degree) | set(by_rank))
    if candidates:
        undirected = g.as_undirected()
        dist = undirected.distances(source=[0], target=candidates)[0]
        reachable = [(d, -(everyone[c].degree or 0), c) for d, c in zip(dist, candidates) if d != float("inf")]
        if reachable:
            _, _, best = min(reachable)
            nearest = hub(best)
            vpath = undirected.get_shortest_paths(0, to=best)[0]
            path = _path_along(vpath, everyone, edges)
    kinds = Counter((n.kind or n.label) for n in nodes)
    edge_types: Counter[str] = Counter()
    for e in edges:
        if e.source == center.id:
            edge_types[f"{e.type} out"] += 1
        elif e.target == center.id:
            edge_types[f"{e.type} in"] += 1
    summary = _summary(center, nodes, kinds, edge_types, nearest, depth, truncated)
    return Explanation(
        entity=center,
        summary=summary,
        depth=depth,
        neighborhood_size=len(nodes),
        truncated=truncated,
        neighbor_kinds=[Count(name=k, count=v) for k, v in kinds.most_common()],
        edge_types=[Count(name=k, count=v) for k, v in edge_types.most_common()],
        hubs_by_degree=[hub(i) for i in by_degree],
        hubs_by_pagerank=[hub(i) for i in by_rank],
        nearest_hub=nearest,
        path_to_hub=path,
    )


def _path_along(vpath: list[int], everyone: list[Entity], edges: list[Edge]) -> Path:
    steps = []
    by_pair = {}
    for e in edges:
        by_pair.setdefault((e.source, e.target), e)
        by_pair.setdefault((e.target, e.source), e)
    for a, b in zip(vpath, vpath[1:]):
        steps.append(by_pair[(everyone[a].id, everyone[b].id)])
    return Path(nodes=[everyone[i] for i in vpath], edges=steps, length=len(steps))


def _summary(center: Entity, nodes, kinds: Counter, edge_types: Counter, nearest: Hub | None, depth, truncated) -> str:
    where = f" in {center.file}" if center.file and center.file != center.id else ""
    parts = [f"{center.id} ({center.kind or center.label}){where}"]
    around = ", ".join(f"{v} {k}" for k, v in kinds.most_common(6)) or "nothing"
    more = " (truncated)" if truncated else ""
    parts.append(f"{len(nodes)} entities within {depth} hops{more}: {around}")
    if edge_types:
        parts.append("direct edges: " + ", ".join(f"{k} {v}" for k, v in edge_types.most_common()))
    if nearest is not None:
        parts.append(f"nearest hub: {nearest.entity.id} (degree {nearest.degree})")
    return "; ".join(parts)


# --- context_query -----------------------------------------------------------------------


def context_query(query: str | ParsedQuery, *, graph: Graph | None = None) -> ContextResult:
    """Run a `context_query` string (or an already parsed one)."""
    started = time.perf_counter()
    parsed = parse(query) if isinstance(query, str) else query
    scope = resolve_scope(parsed.workspace, parsed.turn_id)
    ws, tid = scope.workspace, scope.turn_id
    stale, pending = freshness(ws)
    result = ContextResult(operation=parsed.operation, workspace=ws, turn_id=tid, stale=stale, pending_files=pending)
    op = parsed.operation
    common = {"workspace": ws, "graph": graph}
    filters = {"rels": parsed.rels, "provs": parsed.provs, "min_confidence": parsed.min_confidence}
    if op == "search":
        result.search = search(parsed.terms, kinds=parsed.kinds, provs=parsed.provs, limit=parsed.limit, **common)
    elif op == "neigh":
        result.neighborhood = neighborhood(parsed.target, depth=parsed.depth or 1, limit=parsed.limit, **filters, **common)
    elif op == "path":
        result.paths = paths(
            parsed.path_from,
            parsed.path_to,
            max_hops=parsed.hops or 6,
            directed=parsed.directed,
            limit=parsed.limit,
            **filters,
            **common,
        )
    elif op == "explain":
        result.explain = explain(parsed.target, depth=parsed.depth or 2, limit=parsed.limit, **filters, **common)
    elif op == "communities":
        result.communities = communities(
            workspace=ws,
            turn_id=tid,
            rels=parsed.rels or None,
            min_confidence=parsed.min_confidence,
            resolution=parsed.resolution,
            seed=parsed.seed,
            objective=parsed.objective,
            algorithm=parsed.algorithm,
            limit=DEFAULT_LIMITS["communities"] if parsed.limit is None else parsed.limit,
            graph=graph,
        )
    elif op == "key":
        if tid is None:
            raise InputError("key= reads a value recorded for a turn: start the query with a turn id")
        keys = dict(getattr(scope.turn, "keys", {}) or {})
        result.key = KeyValue(
            turn_id=tid, key=parsed.key, value=keys.get(parsed.key), known_keys=sorted(set(keys) | set(KNOWN_TURN_KEYS))
        )
    else:
        rows = reads.overview(graph or get_graph(), ws)
        counts = [Count(name="/".join(r["labels"]) + (f":{r['kind']}" if r["kind"] else ""), count=r["count"]) for r in rows]
        result.overview = Overview(workspace=ws, counts=counts)
    result.elapsed_ms = round((time.perf_counter() - started) * 1000, 2)
    return result
