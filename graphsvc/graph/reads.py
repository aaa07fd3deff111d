"""Every read of the query engine and of communities, as Cypher (writes are in `writer`).

Each function is one (or, for a level-by-level neighborhood, one per level inside a single
read transaction) round trip and returns plain dicts. All values are parameters;
relationship types and labels arrive as parameters checked against `graphsvc.model`, and the
only numbers put into query text (path hop bounds) are validated integers.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from neo4j import Query, Result, Session

from graphsvc import model
from graphsvc.graph.driver import Graph
from graphsvc.model import ENTITY_PROPERTIES, WORKSPACE_ID, Label, Prov, Rel


def _node(var: str) -> str:
    """The node fields every answer carries: the model's `Entity` as stored, with element id
    and labels."""
    fields = [f"eid: elementId({var})", f"labels: labels({var})", *(f"{p}: {var}.{p}" for p in ENTITY_PROPERTIES)]
    return "{" + ", ".join(fields) + "}"


# Edge filters shared by neighborhood, paths and explain. `$provs` empty means any.
_EDGE_OK = (
    "type({r}) IN $rels AND coalesce({r}.confidence, 1.0) >= $min_conf "
    "AND (size($provs) = 0 OR {r}.prov IN $provs)"
)


def _edge_ok(var: str) -> str:
    return _EDGE_OK.format(r=var)


def check_rels(rels: list[str]) -> list[str]:
    return [Rel(r).value for r in rels]


def check_provs(provs: list[str]) -> list[str]:
    return [Prov(p).value for p in provs]


# --- entity lookup -----------------------------------------------------------------------

_ENTITY_EXACT = f"""
MATCH (n:Entity {{workspace: $ws, id: $ref}}) USING INDEX SEEK n:Entity(workspace, id)
RETURN {_node('n')} AS node, 0 AS rank
UNION ALL
MATCH (n:Entity {{qualified_name: $ref}}) WHERE n.workspace = $ws
RETURN {_node('n')} AS node, 1 AS rank
UNION ALL
MATCH (n:Entity {{name: $ref}}) WHERE n.workspace = $ws
RETURN {_node('n')} AS node, 1 AS rank
"""

_ENTITY_SUFFIX = f"""
MATCH (n:Entity {{workspace: $ws}})
WHERE n.id ENDS WITH $slash OR n.id ENDS WITH $hash OR n.id ENDS WITH $dot
RETURN {_node('n')} AS node, 3 AS rank
LIMIT $limit
"""


def find_entities(graph: Graph, workspace: str, ref: str, limit: int = 20) -> list[dict]:
    """Candidates for `ref`: exact id (rank 0), else qualified name or name (rank 1), else id suffixes."""
    rows = graph.read(_ENTITY_EXACT, ws=workspace, ref=ref)
    if rows:
        return rows
    return graph.read(
        _ENTITY_SUFFIX, ws=workspace, slash="/" + ref, hash="#" + ref, dot="." + ref, limit=limit
    )


_WORKSPACE_EXISTS = "MATCH (n:Entity {workspace: $ws}) RETURN n.id AS id LIMIT 1"


def workspace_exists(graph: Graph, workspace: str) -> bool:
    return bool(graph.read(_WORKSPACE_EXISTS, ws=workspace))


_WORKSPACE_ROOT = "MATCH (w:Entity {workspace: $ws, id: $id}) RETURN w.root AS root"


def workspace_root(graph: Graph, workspace: str) -> str | None:
    """The directory the workspace was indexed from, or None if it was never indexed."""
    rows = graph.read(_WORKSPACE_ROOT, ws=workspace, id=WORKSPACE_ID)
    return rows[0]["root"] if rows else None


_FILE_CONTENT = """
OPTIONAL MATCH (w:Entity {workspace: $ws, id: $root})
OPTIONAL MATCH (f:Entity {workspace: $ws, id: $file}) WHERE f:File
RETURN w.root AS root, f.id IS NOT NULL AS known, coalesce(f.symbols_hash, f.hash) AS hash
"""


def file_content(graph: Graph, workspace: str, file: str) -> dict:
    """Where a file of the workspace is read from: {root (None: never indexed), known (a File
    node), hash (sha256 of the content its symbols were extracted from)}."""
    return graph.read(_FILE_CONTENT, ws=workspace, root=WORKSPACE_ID, file=file)[0]


# --- search ------------------------------------------------------------------------------

SEARCH_INDEX = "entity_search"  # schema/neo4j/004_search_words.cypher

# One round trip: the workspace's symbols token, how many of its entities match each keyword
# (`term_queries`), and the matches to rank with what ranking reads. The index yields
# matches in the order of its own scores, computed with the statistics of every workspace:
# so when there are more than `$limit`, the workspace's names alone choose which are ranked.
_SEARCH = f"""
OPTIONAL MATCH (w:Entity {{workspace: $ws, id: $root}})
WITH w.symbols_token AS token
CALL (token) {{
  UNWIND $term_queries AS q
  CALL (q) {{
    CALL db.index.fulltext.queryNodes($index, q) YIELD node AS n
    WHERE $ws IS NULL OR n.workspace = $ws
    RETURN count(n) AS df
  }}
  RETURN collect([q, df]) AS counts
}}
CALL (token) {{
  CALL db.index.fulltext.queryNodes($index, $lucene) YIELD node AS n
  WHERE ($ws IS NULL OR n.workspace = $ws)
    AND (size($labels) = 0 OR any(l IN labels(n) WHERE l IN $labels))
    AND (size($kinds) = 0 OR n.kind IN $kinds)
    AND (size($provs) = 0 OR n.prov IN $provs)
    AND NOT n:Community
  WITH n, toLower(n.name) AS name, ' ' + coalesce(n.words, '') + ' ' AS words
  WITH n ORDER BY CASE WHEN n.name IN $names THEN 0 WHEN name IN $lower_names THEN 1
    WHEN any(k IN $lower_names WHERE name STARTS WITH k) THEN 2
    WHEN all(w IN $words WHERE words CONTAINS ' ' + w + ' ') THEN 3 ELSE 4 END,
    size(n.name), n.id
  LIMIT $limit
  RETURN collect({{node: {_node('n')}, doc: left(n.doc, $doc_chars), words: n.words}}) AS matches
}}
RETURN token, counts, matches
"""


def search(
    graph: Graph,
    lucene: str,
    workspace: str | None,
    labels: list[str],
    kinds: list[str],
    provs: list[str],
    limit: int,
    names: list[str],
    term_queries: list[str],
    doc_chars: int,
    words: list[str],
) -> tuple[str | None, dict[str, int], list[dict]]:
    """Matches of `lucene` for ranking, at most `limit`: those named as one of `names` is
    (case included) first, then so named in another case, then named with one as a prefix, then
    holding all `words` among the words of their names, then the shortest names. Returns the
    workspace's symbols token (it changes with every symbol index run), per full-text query of
    `term_queries` how many entities of the workspace (all, when None) match, and the matches
    as rows {node, doc, words}."""
    row = graph.read(
        _SEARCH,
        lucene=lucene,
        ws=workspace,
        root=WORKSPACE_ID,
        labels=[Label(lb).value for lb in labels],
        kinds=kinds,
        provs=check_provs(provs),
        limit=limit,
        doc_chars=doc_chars,
        names=names,
        lower_names=[n.lower() for n in names],
        term_queries=term_queries,
        index=SEARCH_INDEX,
        words=words,
    )[0]
    return row["token"], dict(row["counts"]), row["matches"]


_ENTITIES_IN = "MATCH (n:Entity {workspace: $ws}) RETURN count(n) AS total"
_ENTITIES = "MATCH (n:Entity) RETURN count(n) AS total"


def entity_count(graph: Graph, workspace: str | None) -> int:
    if workspace is None:
        return graph.read(_ENTITIES)[0]["total"]
    return graph.read(_ENTITIES_IN, ws=workspace)[0]["total"]


# --- neighborhood ------------------------------------------------------------------------


class _Statements:
    """Runs each statement of a multi-statement read in its own implicit transaction: one
    round trip each, where an explicit transaction adds a commit; every statement keeps the
    transaction time limit."""

    def __init__(self, session: Session, timeout_s: float):
        self.session = session
        self.timeout_s = timeout_s

    def run(self, cypher: str, **params: Any) -> Result:
        return self.session.run(Query(cypher, timeout=self.timeout_s), params)


# One level of the breadth-first walk: at most $room distinct new nodes, stopping early.
_EXPAND = f"""
UNWIND $frontier AS eid
MATCH (a) WHERE elementId(a) = eid
MATCH (a)-[r]-(b:Entity)
WHERE {_edge_ok('r')} AND b.workspace = $ws AND NOT elementId(b) IN $seen
WITH DISTINCT b LIMIT $room
RETURN {_node('b')} AS node, COUNT {{ (b)--() }} AS degree
"""

_EDGES_AMONG = f"""
UNWIND $eids AS eid
MATCH (a) WHERE elementId(a) = eid
MATCH (a)-[r]->(b) WHERE elementId(b) IN $eids AND {_edge_ok('r')}
RETURN elementId(r) AS eid, type(r) AS type, elementId(a) AS src, elementId(b) AS dst,
       r.prov AS prov, coalesce(r.confidence, 1.0) AS confidence, r.reason AS reason
LIMIT $cap
"""

_DEGREE = "MATCH (a) WHERE elementId(a) = $eid RETURN COUNT { (a)--() } AS degree"


def neighborhood(
    graph: Graph,
    workspace: str,
    start_eid: str,
    depth: int,
    rels: list[str],
    provs: list[str],
    min_conf: float,
    limit: int,
    edge_cap: int,
) -> dict[str, Any]:
    """Breadth-first to `depth`, at most `limit` nodes besides the start, in one transaction.

    Returns nodes (with `level` and total `degree`), the edges among them (at most
    `edge_cap`) and whether anything was left out.
    """
    params = {"ws": workspace, "rels": check_rels(rels), "provs": check_provs(provs), "min_conf": min_conf}

    def work(tx: _Statements) -> dict[str, Any]:
        start_degree = tx.run(_DEGREE, eid=start_eid).single()["degree"]
        seen = [start_eid]
        levels = {start_eid: 0}
        nodes: dict[str, dict] = {}
        degrees = {start_eid: start_degree}
        truncated = False
        frontier = [start_eid]
        for level in range(1, depth + 1):
            room = limit - len(nodes)
            if not frontier:
                break
            if room <= 0:  # full: was anything left beyond?
                truncated = bool(list(tx.run(_EXPAND, frontier=frontier, seen=seen, room=1, **params)))
                break
            # One more than there is room for tells whether the level was cut.
            rows = list(tx.run(_EXPAND, frontier=frontier, seen=seen, room=room + 1, **params))
            if len(rows) > room:
                truncated = True
                rows = rows[:room]
            frontier = []
            for row in rows:
                node = row["node"]
                levels[node["eid"]] = node["level"] = level
                nodes[node["eid"]] = node
                degrees[node["eid"]] = row["degree"]
                frontier.append(node["eid"])
            seen.extend(frontier)
        eids = list(levels)
        edges = [dict(r) for r in tx.run(_EDGES_AMONG, eids=eids, cap=edge_cap, **params)]
        if len(edges) >= edge_cap:
            truncated = True
        return {"nodes": list(nodes.values()), "edges": edges, "degrees": degrees, "truncated": truncated}

    with graph.session() as session:
        return work(_Statements(session, graph.timeout_s))


# --- paths -------------------------------------------------------------------------------

# allShortestPaths with an all-relationships predicate is a bidirectional BFS that checks
# the predicate as it expands; on this graph it answers 10-100x faster than the equivalent
# `ALL SHORTEST` quantified pattern (measured on the standard library graph, Neo4j 5.26).
_PATHS = """
MATCH (a) WHERE elementId(a) = $src
MATCH (b) WHERE elementId(b) = $dst
MATCH p = allShortestPaths((a)-[*1..HOPS]-(b))
WHERE all(r IN relationships(p) WHERE EDGE_OK)
WITH p LIMIT $limit
RETURN [n IN nodes(p) | NODE] AS nodes,
       [r IN relationships(p) | {eid: elementId(r), type: type(r), src: elementId(startNode(r)),
         dst: elementId(endNode(r)), prov: r.prov, confidence: coalesce(r.confidence, 1.0),
         reason: r.reason}] AS edges
"""


def _paths_query(hops: int, directed: bool) -> str:
    if not 1 <= int(hops) <= 10:
        raise ValueError(f"hops must be 1..10, got {hops}")
    q = _PATHS.replace("EDGE_OK", _edge_ok("r")).replace("HOPS", str(int(hops)))
    q = q.replace("NODE", _node("n"))
    if directed:
        q = q.replace("]-(b)", "]->(b)")
    return q


_PATH_QUERIES = {(h, d): _paths_query(h, d) for h in range(1, 11) for d in (False, True)}


def shortest_paths(
    graph: Graph,
    src_eid: str,
    dst_eid: str,
    hops: int,
    directed: bool,
    rels: list[str],
    provs: list[str],
    min_conf: float,
    limit: int,
) -> list[dict]:
    return graph.read(
        _PATH_QUERIES[(hops, directed)],
        src=src_eid,
        dst=dst_eid,
        rels=check_rels(rels),
        provs=check_provs(provs),
        min_conf=min_conf,
        limit=limit,
    )


# --- overview ----------------------------------------------------------------------------

_OVERVIEW = """
MATCH (n:Entity {workspace: $ws})
WITH [l IN labels(n) WHERE l <> 'Entity'] AS ls, n.kind AS kind
RETURN ls AS labels, kind, count(*) AS count ORDER BY count DESC
"""


def overview(graph: Graph, workspace: str) -> list[dict]:
    return graph.read(_OVERVIEW, ws=workspace)


# --- communities -------------------------------------------------------------------------

# Every node with its outgoing neighbours along the chosen edges, as one record: a single
# large list decodes several times faster than one record per node.
_COMMUNITY_GRAPH = """
MATCH (n:Entity {workspace: $ws})
WHERE NOT n:Community AND NOT n:Workspace
WITH collect(n) AS ns
RETURN [n IN ns | [elementId(n), n.id, n.name, n.path, n.file,
  [(n)-[r]->(m) WHERE type(r) IN $rels AND coalesce(r.confidence, 1.0) >= $min_conf
   | [elementId(m), coalesce(r.confidence, 1.0)]]]] AS nodes
"""

# A turn's subgraph: what the turn touched or mentioned, and their direct neighbours.
_TURN_GRAPH = """
MATCH (t:Turn:Entity {workspace: $ws, id: $turn})-[:TOUCHED|MENTIONS|IN_TURN]-(seed:Entity)
USING INDEX SEEK t:Entity(workspace, id)
WHERE NOT seed:Turn AND NOT seed:Community
WITH collect(DISTINCT seed) AS seeds
CALL (seeds) {
  UNWIND seeds AS s
  MATCH (s)-[r]-(m:Entity)
  WHERE type(r) IN $rels AND coalesce(r.confidence, 1.0) >= $min_conf AND m.workspace = $ws
    AND NOT m:Community AND NOT m:Turn
  RETURN collect(DISTINCT m) AS near
}
WITH seeds + near AS all
UNWIND all AS n
WITH DISTINCT n, all
RETURN elementId(n) AS eid, n.id AS id, n.name AS name, n.path AS path, n.file AS file,
       [(n)-[r]->(m:Entity) WHERE m IN all AND type(r) IN $rels
        AND coalesce(r.confidence, 1.0) >= $min_conf | [elementId(m), coalesce(r.confidence, 1.0)]] AS out
"""


def community_graph(
    graph: Graph,
    workspace: str,
    rels: list[str],
    min_conf: float,
    turn_node_id: str | None = None,
    timeout_s: float | None = None,
) -> list[dict]:
    """Rows {eid, id, name, path, file, out: [[eid, weight], …]} of the workspace or turn subgraph.
    A node another transaction deletes while this one reads (a concurrent write-back's old
    community) is seen without labels or properties: it is left out."""
    params = {"ws": workspace, "rels": check_rels(rels), "min_conf": min_conf}
    if turn_node_id is not None:
        return [r for r in graph.read(_TURN_GRAPH, timeout_s=timeout_s, turn=turn_node_id, **params)
                if r["id"] is not None]
    rows = graph.read(_COMMUNITY_GRAPH, timeout_s=timeout_s, **params)
    keys = ("eid", "id", "name", "path", "file", "out")
    return [dict(zip(keys, values)) for values in rows[0]["nodes"] if values[1] is not None] if rows else []


# The stored partition: every community with what its run recorded, its members counted
# and the names of its top members, in number order.
_STORED_COMMUNITIES = f"""
MATCH (c:{Label.COMMUNITY.value}:Entity {{workspace: $ws}})
RETURN c.id AS id, c.community AS number, c.label AS label, c.size AS size,
       COUNT {{ (c)<-[:{Rel.MEMBER_OF.value}]-() }} AS members,
       coalesce(c.top_members, []) AS top_members, coalesce(c.top_degrees, []) AS top_degrees,
       [(c)<-[:{Rel.MEMBER_OF.value}]-(m) WHERE m.id IN c.top_members | [m.id, m.name]] AS top_names,
       c {{{", ".join("." + f.name for f in dataclasses.fields(model.CommunityRun))}}} AS run
ORDER BY number
"""


def stored_communities(graph: Graph, workspace: str) -> list[dict]:
    """Rows {id, number, label, size, members, top_members, top_degrees, top_names, run}."""
    return graph.read(_STORED_COMMUNITIES, ws=workspace)


# --- reach: impact and the class hierarchy -----------------------------------------------

# The entity a walk starts from or reaches, as those answers show it.
_REACHED = ("eid: elementId({v}), id: {v}.id, kind: {v}.kind, name: {v}.name, "
            "file: coalesce({v}.file, {v}.path), lang: {v}.lang, qualified_name: {v}.qualified_name, "
            "line: {v}.start_line, end_line: {v}.end_line")


def _reached(var: str) -> str:
    return "{" + _REACHED.format(v=var) + "}"


# One hop of a walk, against the edges (`$incoming`: from what depends on the frontier) or
# along them: each entity not seen yet once, with its most confident edge, at most $cap.
_HOP = """
UNWIND $frontier AS eid
MATCH (a) WHERE elementId(a) = eid
MATCH PATTERN
WHERE type(r) IN $rels AND coalesce(r.confidence, 1.0) >= $min_conf AND b.workspace = $ws
  AND NOT elementId(b) IN $seen
WITH b, a, r ORDER BY coalesce(r.confidence, 1.0) DESC, a.id, type(r)
WITH b, collect({rel: type(r), via: a.id, confidence: coalesce(r.confidence, 1.0), reason: r.reason})[0] AS edge
ORDER BY edge.confidence DESC, b.id
LIMIT $cap
RETURN REACHED AS node, edge
"""
_HOPS = {
    incoming: _HOP.replace("PATTERN", "(b:Entity)-[r]->(a)" if incoming else "(a)-[r]->(b:Entity)")
    .replace("REACHED", _reached("b"))
    for incoming in (True, False)
}


def reach(
    graph: Graph,
    workspace: str,
    start_eids: list[str],
    incoming: bool,
    rels: list[str],
    min_conf: float,
    depth: int,
    cap: int,
) -> list[list[dict]]:
    """Breadth-first from `start_eids` up to `depth` hops, in one session: per level, rows
    {node, edge} of the entities first reached there, at most `cap` + 1 (more: the level was cut
    and the walk goes on from the first `cap`)."""
    params = {"ws": workspace, "rels": check_rels(rels), "min_conf": min_conf, "cap": cap + 1}
    levels: list[list[dict]] = []
    seen = list(start_eids)
    frontier = list(start_eids)
    with graph.session() as session:
        tx = _Statements(session, graph.timeout_s)
        for _ in range(depth):
            if not frontier:
                break
            rows = [dict(r) for r in tx.run(_HOPS[incoming], frontier=frontier, seen=seen, **params)]
            levels.append(rows)
            frontier = [r["node"]["eid"] for r in rows[:cap]]
            seen.extend(r["node"]["eid"] for r in rows)
    return levels


# Everything an entity holds, itself included: a file's symbols, a class's methods.
_HELD = f"""
UNWIND $eids AS eid
MATCH (a) WHERE elementId(a) = eid
MATCH (a)-[:{Rel.CONTAINS.value}*0..]->(s:Entity)
WHERE s.workspace = $ws
WITH DISTINCT s LIMIT $cap
RETURN {_reached('s')} AS node
"""


def held(graph: Graph, workspace: str, eids: list[str], cap: int) -> list[dict]:
    """The entities `eids` contain, transitively, with themselves: at most `cap` + 1."""
    return [r["node"] for r in graph.read(_HELD, ws=workspace, eids=eids, cap=cap + 1)]


# The workspace's files named by `paths`: exactly, or as a path ending in the file's id (a
# diff's paths from a repository root above the workspace's) or the other way round.
_FILES_NAMED = f"""
UNWIND $paths AS p
CALL (p) {{
  OPTIONAL MATCH (f:{Label.FILE.value}:Entity {{workspace: $ws, id: p}})
  RETURN collect(f) AS exact
}}
CALL (p, exact) {{
  MATCH (f:{Label.FILE.value}:Entity {{workspace: $ws}})
  WHERE size(exact) = 0 AND (p ENDS WITH '/' + f.id OR f.id ENDS WITH '/' + p)
  RETURN collect(f)[..2] AS near
}}
RETURN p AS path, [f IN exact + near | {_reached('f')}] AS files
"""


def files_named(graph: Graph, workspace: str, paths: list[str]) -> dict[str, list[dict]]:
    """Per path, the file it names (an exact id first), or up to two that end alike."""
    rows = graph.read(_FILES_NAMED, ws=workspace, paths=paths)
    return {r["path"]: r["files"] for r in rows}


_SYMBOLS_IN = f"""
UNWIND $files AS f
MATCH (s:Entity {{workspace: $ws, file: f}})
WHERE s.start_line IS NOT NULL
RETURN {_reached('s')} AS node
"""


def symbols_in(graph: Graph, workspace: str, files: list[str]) -> list[dict]:
    """The symbols defined in `files` (ids), with their lines."""
    return [r["node"] for r in graph.read(_SYMBOLS_IN, ws=workspace, files=files)]


_FILE_HASHES = f"""
UNWIND $files AS file
MATCH (f:{Label.FILE.value}:Entity {{workspace: $ws, id: file}})
RETURN f.id AS id, coalesce(f.symbols_hash, f.hash) AS hash
"""


def file_hashes(graph: Graph, workspace: str, files: list[str]) -> dict[str, str | None]:
    """Per file id of `files` the workspace holds, the sha256 of the content it was indexed from."""
    return {r["id"]: r["hash"] for r in graph.read(_FILE_HASHES, ws=workspace, files=files)}


# How many entities depend on each of `eids` directly: the edges `reach` would walk first.
_DEPENDENTS = """
UNWIND $eids AS eid
MATCH (a) WHERE elementId(a) = eid
RETURN a.id AS id, COUNT {
  MATCH (b:Entity)-[r]->(a)
  WHERE type(r) IN $rels AND coalesce(r.confidence, 1.0) >= $min_conf AND b.workspace = $ws
  RETURN DISTINCT b
} AS dependents
"""


def dependents(graph: Graph, workspace: str, eids: list[str], rels: list[str], min_conf: float) -> dict[str, int]:
    """Per entity of `eids` (by id), how many entities have an edge of `rels` to it."""
    rows = graph.read(_DEPENDENTS, ws=workspace, eids=eids, rels=check_rels(rels), min_conf=min_conf)
    return {r["id"]: r["dependents"] for r in rows}


# --- one stored community ----------------------------------------------------------------

_COMMUNITY = f"""
MATCH (c:{Label.COMMUNITY.value}:Entity {{workspace: $ws, community: $number}})
CALL (c) {{
  MATCH (m)-[:{Rel.MEMBER_OF.value}]->(c)
  WHERE m.file IS NOT NULL OR m:{Label.FILE.value}
  WITH coalesce(m.file, m.id) AS file, count(*) AS members
  ORDER BY members DESC, file
  RETURN count(file) AS files_total, collect([file, members])[..$limit] AS files
}}
CALL (c) {{
  MATCH (m)-[:{Rel.MEMBER_OF.value}]->(c)
  MATCH (m)-[r]-(o:Entity)
  WHERE type(r) IN $rels AND o.workspace = $ws AND o.community IS NOT NULL AND o.community <> c.community
  WITH o.community AS other, count(r) AS edges
  ORDER BY edges DESC, other
  RETURN count(other) AS neighbours_total, collect([other, edges])[..$limit] AS neighbours
}}
RETURN c.id AS id, c.community AS number, c.label AS label,
       COUNT {{ (c)<-[:{Rel.MEMBER_OF.value}]-() }} AS size,
       coalesce(c.top_members, []) AS top_members, coalesce(c.top_degrees, []) AS top_degrees,
       [(c)<-[:{Rel.MEMBER_OF.value}]-(m) WHERE m.id IN c.top_members | [m.id, m.name]] AS top_names,
       files_total, files, neighbours_total, neighbours
"""

_COMMUNITY_LABELS = f"""
MATCH (n:{Label.COMMUNITY.value}:Entity {{workspace: $ws}}) WHERE n.community IN $numbers
RETURN n.community AS number, n.label AS label
"""


def community(graph: Graph, workspace: str, number: int, rels: list[str], limit: int) -> dict | None:
    """A stored community: its members' files counted, its top members, and the other
    communities its members have `rels` edges with, counted (at most `limit` of each)."""
    rows = graph.read(_COMMUNITY, ws=workspace, number=number, rels=check_rels(rels), limit=limit)
    if not rows:
        return None
    found = dict(rows[0])
    numbers = [n for n, _ in found["neighbours"]]
    found["labels"] = {r["number"]: r["label"] for r in graph.read(_COMMUNITY_LABELS, ws=workspace, numbers=numbers)}
    return found


_STORED_COMMUNITY_COUNT = f"MATCH (c:{Label.COMMUNITY.value}:Entity {{workspace: $ws}}) RETURN count(c) AS n"


def stored_community_count(graph: Graph, workspace: str) -> int:
    return graph.read(_STORED_COMMUNITY_COUNT, ws=workspace)[0]["n"]
