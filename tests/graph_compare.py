"""A workspace's graph as multisets, and a readable difference between two of them.

Nodes are keyed by their ``id`` property (never ``elementId``) with their labels and
properties; relationships by source id, type, target id and properties. Both are Counters,
so a relationship stored twice counts twice. The workspace name is left out, so an
incrementally indexed workspace can be compared with a clean index of the same tree under
another name.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from graphsvc.model import WorkspaceIndexed, WorkspaceTreeSynced

# Properties that differ between two indexes of one tree by design: the name under which
# the tree was indexed, and what the runs that indexed it wrote on the workspace when they ended.
VOLATILE = frozenset({"workspace"} | {f.name for r in (WorkspaceIndexed, WorkspaceTreeSynced)
                                     for f in dataclasses.fields(r)} - {"id"})

_NODES = """
MATCH (n:Entity {workspace: $ws})
RETURN n.id AS id, labels(n) AS labels, properties(n) AS props
"""

_RELS = """
MATCH (a:Entity {workspace: $ws})-[r]->(b)
RETURN a.id AS src, type(r) AS type, b.id AS dst, b.workspace = $ws AS same_ws, properties(r) AS props
"""

# read(cypher, **params) -> records as dicts: `Graph.read`, or `reader(driver)` for a bare driver.
Read = Callable[..., list[dict]]


def reader(driver, database: str | None = None) -> Read:
    """`Read` over a bare neo4j driver."""

    def read(cypher: str, **params) -> list[dict]:
        records, _, _ = driver.execute_query(cypher, params, database_=database)
        return [r.data() for r in records]

    return read


def _frozen(value):
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def _props(props: dict, ws: str) -> tuple:
    return tuple(sorted(
        (k, "<ws>" if v == ws else _frozen(v)) for k, v in props.items() if k not in VOLATILE
    ))


@dataclass(frozen=True, slots=True)
class GraphDump:
    nodes: Counter  # (id, labels, props) -> count
    rels: Counter  # (src id, type, dst id, props) -> count

    def summary(self) -> str:
        return f"{sum(self.nodes.values())} nodes, {sum(self.rels.values())} relationships"


def dump(read: Read, ws: str) -> GraphDump:
    nodes = Counter(
        (r["id"], tuple(sorted(r["labels"])), _props(r["props"], ws)) for r in read(_NODES, ws=ws)
    )
    rels = Counter(
        (r["src"], r["type"], r["dst"] if r["same_ws"] else f"<other workspace>{r['dst']}", _props(r["props"], ws))
        for r in read(_RELS, ws=ws)
    )
    return GraphDump(nodes, rels)


def _lines(title: str, counter: Counter, limit: int) -> list[str]:
    if not counter:
        return []
    out = [f"  {title} ({sum(counter.values())}):"]
    for key, n in sorted(counter.items(), key=repr)[:limit]:
        out.append(f"    {'%dx ' % n if n > 1 else ''}{key}")
    if len(counter) > limit:
        out.append(f"    ... and {len(counter) - limit} more")
    return out


def difference(got: GraphDump, want: GraphDump, names: tuple[str, str] = ("got", "want"), limit: int = 8) -> str:
    """Empty when both graphs are the same multisets; else the first differences of each kind."""
    a, b = names
    lines: list[str] = []
    lines += _lines(f"nodes only in {a}", got.nodes - want.nodes, limit)
    lines += _lines(f"nodes only in {b}", want.nodes - got.nodes, limit)
    lines += _lines(f"relationships only in {a} (or more often)", got.rels - want.rels, limit)
    lines += _lines(f"relationships only in {b} (or more often)", want.rels - got.rels, limit)
    if not lines:
        return ""
    return f"{a}: {got.summary()}; {b}: {want.summary()}\n" + "\n".join(lines)


def assert_same_graph(read: Read, ws: str, clean_ws: str, context: str = "") -> GraphDump:
    """Fail, showing the first differences, unless `ws` holds exactly what `clean_ws` holds."""
    got, want = dump(read, ws), dump(read, clean_ws)
    diff = difference(got, want, ("incremental", "clean"))
    assert not diff, (f"{context}\n" if context else "") + diff
    return got
