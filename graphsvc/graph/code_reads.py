"""The reads behind `symbol`, `callers`, `callees` and `callPath`, as Cypher.

Like `graphsvc.graph.reads`: one round trip per function (or per level of a walk, inside one
session), every value a parameter, plain dicts back. Nodes come back as `reads._node` projects
them.
"""

from __future__ import annotations

from typing import Any

from graphsvc.graph.driver import Graph
from graphsvc.graph.reads import _node, _Statements
from graphsvc.model import WORKSPACE_ID, Label, Reason, Rel

# --- symbols -------------------------------------------------------------------------------

# What a ref may be at once: an id, one of the qualified names its dotted form splits into, a name.
_SYMBOL_MATCHES = f"""
CALL () {{
  MATCH (n:Entity {{workspace: $ws, id: $ref}}) USING INDEX SEEK n:Entity(workspace, id)
  RETURN n, 'id' AS via
  UNION
  UNWIND $quals AS q
  MATCH (n:Entity {{qualified_name: q}}) WHERE n.workspace = $ws
  RETURN n, 'qualified_name' AS via
  UNION
  MATCH (n:Entity {{name: $ref}}) WHERE n.workspace = $ws
  RETURN n, 'name' AS via
}}
WITH n, collect(via) AS vias LIMIT $cap
OPTIONAL MATCH (w:Entity {{workspace: $ws, id: $root}}) USING INDEX SEEK w:Entity(workspace, id)
RETURN {_node('n')} AS node, vias, w.symbols_token AS token
"""


def symbol_matches(graph: Graph, workspace: str, ref: str, quals: list[str], cap: int) -> tuple[list[dict], str | None]:
    """Rows {node, vias} of the entities whose id is `ref`, whose qualified name is one of
    `quals` or whose name is `ref` (`vias` says which), at most `cap`; and the workspace's
    `symbols_token` read with them (None when nothing matched), so that what is kept per index
    run needs no read of its own."""
    rows = graph.read(_SYMBOL_MATCHES, ws=workspace, ref=ref, quals=quals, cap=cap, root=WORKSPACE_ID)
    return rows, rows[0]["token"] if rows else None


# Which of `files` each importer imports: directly, or through a package file (`__init__.py`,
# `index.ts`) that imports it.
_IMPORTED = """
UNWIND $importers AS iid
MATCH (i:File:Entity {workspace: $ws, id: iid}) USING INDEX SEEK i:Entity(workspace, id)
CALL (i) {
  MATCH (i)-[:IMPORTS]->(d:File) WHERE d.id IN $files
  RETURN d.id AS file, 1 AS hops
  UNION
  MATCH (i)-[:IMPORTS]->(p:File)-[:IMPORTS]->(d:File)
  WHERE any(s IN $package_stems WHERE p.name STARTS WITH s) AND d.id IN $files
  RETURN d.id AS file, 2 AS hops
}
RETURN iid AS importer, file, min(hops) AS hops
"""


def imported(graph: Graph, workspace: str, importers: list[str], files: list[str], package_stems: list[str]) -> list[dict]:
    """Rows {importer, file, hops}: which of `files` each of `importers` imports directly (1)
    or through a package file named `<stem>.*` (2)."""
    return graph.read(_IMPORTED, ws=workspace, importers=importers, files=files, package_stems=package_stems)


_FILE_IDS = f"MATCH (f:{Label.FILE.value}:Entity {{workspace: $ws}}) RETURN collect(f.id) AS ids"


def file_ids(graph: Graph, workspace: str) -> list[str]:
    """The ids of every file of the workspace."""
    return graph.read(_FILE_IDS, ws=workspace)[0]["ids"]


_AT_LINE = f"""
OPTIONAL MATCH (f:{Label.FILE.value}:Entity {{workspace: $ws, id: $file}}) USING INDEX SEEK f:Entity(workspace, id)
CALL (f) {{
  MATCH (n:Entity {{workspace: $ws, file: $file}})
  WHERE f IS NOT NULL AND n.start_line <= $line AND n.end_line >= $line
  RETURN n ORDER BY n.end_line - n.start_line, n.start_line DESC LIMIT 1
}}
RETURN CASE WHEN f IS NULL THEN null ELSE {_node('f')} END AS file, {_node('n')} AS node
UNION ALL
OPTIONAL MATCH (f:{Label.FILE.value}:Entity {{workspace: $ws, id: $file}}) USING INDEX SEEK f:Entity(workspace, id)
WITH f WHERE f IS NOT NULL AND NOT EXISTS {{
  MATCH (n:Entity {{workspace: $ws, file: $file}}) WHERE n.start_line <= $line AND n.end_line >= $line }}
RETURN {_node('f')} AS file, null AS node
"""

_FILES_ENDING = f"""
MATCH (f:{Label.FILE.value}:Entity {{workspace: $ws}}) WHERE f.id ENDS WITH $suffix
RETURN f.id AS id ORDER BY size(f.id), f.id LIMIT $cap
"""


_FILES_CONTAINING = f"""
MATCH (f:{Label.FILE.value}:Entity {{workspace: $ws}}) WHERE f.id CONTAINS $text
RETURN {_node('f')} AS node ORDER BY size(f.id), f.id LIMIT $cap
"""


def files_containing(graph: Graph, workspace: str, text: str, cap: int) -> list[dict]:
    """The workspace's files whose id contains `text`, shortest first, as nodes."""
    return [r["node"] for r in graph.read(_FILES_CONTAINING, ws=workspace, text=text, cap=cap)]


def innermost_at(graph: Graph, workspace: str, file: str, line: int) -> tuple[dict | None, dict | None]:
    """The file `file` and the innermost entity of it spanning `line` (None for each missing)."""
    rows = graph.read(_AT_LINE, ws=workspace, file=file, line=line)
    row = rows[0] if rows else {"file": None, "node": None}
    return row["file"], row["node"]


def files_ending(graph: Graph, workspace: str, suffix: str, cap: int) -> list[str]:
    """Ids of the workspace's files that end with `suffix`, shortest first."""
    return [r["id"] for r in graph.read(_FILES_ENDING, ws=workspace, suffix=suffix, cap=cap)]


_SYMBOLS_TOKEN = "OPTIONAL MATCH (w:Entity {workspace: $ws, id: $root}) RETURN w.symbols_token AS token"


def symbols_token(graph: Graph, workspace: str) -> str | None:
    """The token of the workspace's last symbol index run (it changes with every run)."""
    rows = graph.read(_SYMBOLS_TOKEN, ws=workspace, root=WORKSPACE_ID)
    return rows[0]["token"] if rows else None


# --- calls ---------------------------------------------------------------------------------

_CALL_OK = (
    "coalesce(r.confidence, 1.0) >= $min_conf "
    f"AND ($candidates OR coalesce(r.reason, '') <> '{Reason.CANDIDATE.value}')"
)
_CALL_FIELDS = "line: r.line, count: coalesce(r.count, 1), reason: r.reason, confidence: coalesce(r.confidence, 1.0)"

# One level of a walk along CALLS, the edges into (callers) or out of (callees) the frontier,
# as one record: how many, the first $show of them in file and line order, and at most $cap
# distinct entities reached (the next frontier).
_LEVEL_TAIL = f"""
WITH a, b, r, e ORDER BY coalesce(a.file, a.path), r.line, e.id
WITH count(*) AS total, collect(DISTINCT elementId(e)) AS eids,
     collect({{id: e.id, kind: e.kind, file: coalesce(a.file, a.path), caller: a.id, callee: b.id,
               {_CALL_FIELDS}}}) AS rows
RETURN total, eids[..$cap] AS eids, size(eids) > $cap AS cut, rows[..$show] AS rows
"""
_CALLS_IN = f"""
UNWIND $frontier AS eid
MATCH (b) WHERE elementId(b) = eid
MATCH (a:Entity)-[r:{Rel.CALLS.value}]->(b)
WHERE a.workspace = $ws AND {_CALL_OK}
WITH a, b, r, a AS e{_LEVEL_TAIL}"""
_CALLS_OUT = f"""
UNWIND $frontier AS eid
MATCH (a) WHERE elementId(a) = eid
MATCH (a)-[r:{Rel.CALLS.value}]->(b:Entity)
WHERE {_CALL_OK}
WITH a, b, r, b AS e{_LEVEL_TAIL}"""


def call_levels(
    graph: Graph, workspace: str, start_eid: str, depth: int, outgoing: bool, min_conf: float,
    candidates: bool, show: int, cap: int,
) -> list[dict]:
    """Each level of a breadth-first walk along CALLS from `start_eid`, into it (callers) or
    out of it (`outgoing`: callees), in one session: {total, rows, eids, cut}: how many edges,
    the first `show` of them ({id, kind, caller, callee, file, line, count, reason, confidence},
    `id` the entity reached), the distinct entities reached (at most `cap`: `cut` says when
    more). An entity is walked from once; `show` applies to all levels together."""
    cypher = _CALLS_OUT if outgoing else _CALLS_IN
    params = {"ws": workspace, "min_conf": min_conf, "candidates": candidates, "cap": cap}
    levels: list[dict] = []
    with graph.session() as session:
        statements = _Statements(session, graph.timeout_s)
        seen = {start_eid}
        frontier = [start_eid]
        for _ in range(depth):
            if not frontier:
                break
            level = statements.run(cypher, frontier=frontier, show=show, **params).single().data()
            show = max(0, show - len(level["rows"]))
            levels.append(level)
            frontier = [eid for eid in level["eids"] if eid not in seen]
            seen.update(frontier)
    return levels


# Every unresolved call site of a workspace, for counting those of one name.
_UNRESOLVED_SITES = """
MATCH (n:Entity {workspace: $ws}) WHERE n.unresolved_calls > 0
RETURN n.id AS id, coalesce(n.file, n.path) AS file, n.unresolved_sites AS sites
"""


# The same, of the symbols of some files and the files themselves.
_UNRESOLVED_SITES_IN = """
UNWIND $files AS file
CALL (file) {
  MATCH (n:Entity {workspace: $ws, file: file}) USING INDEX SEEK n:Entity(workspace, file)
  WHERE n.unresolved_calls > 0
  RETURN n
  UNION
  MATCH (n:Entity {workspace: $ws, id: file}) USING INDEX SEEK n:Entity(workspace, id)
  WHERE n.unresolved_calls > 0
  RETURN n
}
RETURN n.id AS id, coalesce(n.file, n.path) AS file, n.unresolved_sites AS sites
"""

# The workspace's token and the log of its incremental runs since the last full one.
_SYMBOLS_RUN = """
OPTIONAL MATCH (w:Entity {workspace: $ws, id: $root})
RETURN w.symbols_token AS token, w.run_from AS run_from, w.run_file_counts AS counts, w.run_files AS files
"""


def unresolved_sites(graph: Graph, workspace: str, timeout_s: float | None = None,
                     files: list[str] | None = None) -> list[dict]:
    """Rows {id, file, sites} of every entity with unresolved calls recorded (only those of
    `files` and their symbols when given)."""
    if files is None:
        return graph.read(_UNRESOLVED_SITES, timeout_s=timeout_s, ws=workspace)
    return graph.read(_UNRESOLVED_SITES_IN, timeout_s=timeout_s, ws=workspace, files=files)


def files_since(graph: Graph, workspace: str, since: str) -> tuple[str | None, list[str] | None]:
    """(the workspace's symbols token, the files whose calls the index runs since token `since`
    resolved again), the files None when the log does not reach back to `since` (a full run
    came between, or too many runs)."""
    rows = graph.read(_SYMBOLS_RUN, ws=workspace, root=WORKSPACE_ID)
    row = rows[0] if rows else {}
    starts, counts, files = row.get("run_from") or [], row.get("counts") or [], row.get("files") or []
    if since not in starts or len(counts) != len(starts) or sum(counts) != len(files):
        return row.get("token"), None
    first = starts.index(since)
    return row.get("token"), sorted(set(files[sum(counts[:first]):]))


# A directed shortest path along CALLS; HOPS is a validated integer.
_CALL_PATH = f"""
MATCH (a) WHERE elementId(a) = $src
MATCH (b) WHERE elementId(b) = $dst
MATCH p = shortestPath((a)-[:{Rel.CALLS.value}*1..HOPS]->(b))
WHERE all(r IN relationships(p) WHERE {_CALL_OK})
RETURN [n IN nodes(p) | n.id] AS ids, [n IN nodes(p) | n.kind] AS kinds,
       [r IN relationships(p) | {{line: r.line, reason: r.reason, confidence: coalesce(r.confidence, 1.0),
         count: coalesce(r.count, 1), file: coalesce(startNode(r).file, startNode(r).path)}}] AS edges
"""
MAX_CALL_HOPS = 10
_CALL_PATHS = {h: _CALL_PATH.replace("HOPS", str(h)) for h in range(1, MAX_CALL_HOPS + 1)}


def call_path(
    graph: Graph, src_eid: str, dst_eid: str, hops: int, min_conf: float, candidates: bool
) -> dict[str, Any] | None:
    """The shortest directed CALLS path from `src_eid` to `dst_eid` ({ids, kinds, edges}), or None."""
    rows = graph.read(_CALL_PATHS[hops], src=src_eid, dst=dst_eid, min_conf=min_conf, candidates=candidates)
    return rows[0] if rows else None


# Where a walk along CALLS stops: the entities reached, each with its unresolved calls and the
# candidate calls left out.
_REACHED = f"""
UNWIND $eids AS eid
MATCH (a) WHERE elementId(a) = eid
RETURN eid, a.id AS id, coalesce(a.unresolved_calls, 0) AS unresolved_calls,
       coalesce(a.unresolved_sites, []) AS unresolved_sites,
       [(a)-[r:{Rel.CALLS.value}]->(c) WHERE NOT ({_CALL_OK}) | c.id] AS skipped
"""


def reached(graph: Graph, eids: list[str], min_conf: float, candidates: bool) -> list[dict]:
    """Rows {eid, id, unresolved_calls, unresolved_sites, skipped}: `skipped` the targets of calls
    the filters left out."""
    return graph.read(_REACHED, eids=eids, min_conf=min_conf, candidates=candidates)
