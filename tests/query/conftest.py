"""A small indexed workspace, written with the model's labels and edge properties.

Two packages that call inside themselves (so Leiden has two obvious communities), a hub
(`helper`, called by six functions), candidate call edges, an external module, and a second
workspace with a same-named class to check scoping.
"""

from __future__ import annotations

import pytest

from graphsvc.graph.driver import connect, get_graph, reset_graph
from graphsvc.model import Label, Prov, Reason, Rel

WS = "graphsvc-query-tests"
OTHER_WS = "graphsvc-query-tests-other"

DIRS = ["src/", "src/pkg/"]
FILES = ["src/app.py", "src/models.py", "src/pkg/util.py", "src/pkg/__init__.py"]
# (id, kind, signature, doc)
SYMBOLS = [
    ("src/app.py#App", "class", "class App", "The application object."),
    ("src/app.py#App.run", "method", "def run(self)", "Run the application until stopped."),
    ("src/app.py#main", "function", "def main()", "Command line entry point."),
    ("src/models.py#Model", "class", "class Model", "Base class of stored records."),
    ("src/models.py#Model.save", "method", "def save(self)", "Write the record."),
    ("src/models.py#Manager", "class", "class Manager(Model)", "Queries for a model."),
    ("src/models.py#QuerySet", "class", "class QuerySet", "A lazy database lookup."),
    ("src/models.py#QuerySet.filter", "method", "def filter(self, **kw)", "Narrow the lookup."),
    ("src/pkg/util.py#helper", "function", "def helper(x)", "Shared helper."),
    ("src/pkg/util.py#format_name", "function", "def format_name(name)", "Format a name for display."),
    ("src/pkg/util.py#run", "function", "def run()", "Run the helpers."),
] + [(f"src/pkg/util.py#f{i}", "function", f"def f{i}()", None) for i in range(1, 7)]
EXTERNALS = [("ext:os.path", "external_module"), ("ext:os.path#join", "external_symbol")]

E, I = Prov.EXTRACTED.value, Prov.INFERRED.value
# (type, src, dst, prov, confidence, reason)
EDGES = [
    (Rel.CALLS, "src/app.py#main", "src/app.py#App.run", I, 1.0, Reason.SCOPE),
    (Rel.CALLS, "src/app.py#App.run", "src/models.py#Model.save", I, 1.0, Reason.IMPORT),
    (Rel.CALLS, "src/app.py#App.run", "src/models.py#QuerySet.filter", I, 1.0, Reason.IMPORT),
    (Rel.CALLS, "src/models.py#Model.save", "ext:os.path#join", I, 1.0, Reason.EXTERNAL),
    (Rel.CALLS, "src/models.py#QuerySet.filter", "src/models.py#Model.save", I, 0.9, Reason.SELF),
    (Rel.CALLS, "src/app.py#main", "src/pkg/util.py#format_name", I, 0.5, Reason.CANDIDATE),
    (Rel.CALLS, "src/app.py#main", "src/models.py#Model", I, 0.5, Reason.CANDIDATE),
    (Rel.INHERITS, "src/models.py#Manager", "src/models.py#Model", I, 1.0, Reason.SCOPE),
    (Rel.IMPORTS, "src/app.py", "src/models.py", E, 1.0, Reason.SYNTAX),
    (Rel.IMPORTS, "src/models.py", "ext:os.path", E, 1.0, Reason.EXTERNAL),
    (Rel.CALLS, "src/pkg/util.py#helper", "src/pkg/util.py#format_name", I, 1.0, Reason.SCOPE),
] + [
    (Rel.CALLS, f"src/pkg/util.py#f{i}", "src/pkg/util.py#helper", I, 1.0, Reason.SCOPE) for i in range(1, 7)
] + [
    (Rel.CALLS, f"src/pkg/util.py#f{i}", f"src/pkg/util.py#f{i + 1}", I, 1.0, Reason.SCOPE) for i in range(1, 6)
]


def _contains() -> list[tuple]:
    out = [(Rel.CONTAINS, "/", "src/", E, 1.0, Reason.SYNTAX), (Rel.CONTAINS, "src/", "src/pkg/", E, 1.0, Reason.SYNTAX)]
    for f in FILES:
        out.append((Rel.CONTAINS, f.rsplit("/", 1)[0] + "/", f, E, 1.0, Reason.SYNTAX))
    for sid, *_ in SYMBOLS:
        file, _, qual = sid.partition("#")
        parent = file if "." not in qual else f"{file}#{qual.rsplit('.', 1)[0]}"
        out.append((Rel.CONTAINS, parent, sid, E, 1.0, Reason.SYNTAX))
    return out


_NODES = "UNWIND $rows AS row CREATE (n:Entity:{label}) SET n = row"
_EDGES = """
UNWIND $rows AS row
MATCH (a:Entity {{workspace: $ws, id: row.src}}), (b:Entity {{workspace: $ws, id: row.dst}})
CREATE (a)-[r:{rel}]->(b) SET r.prov = row.prov, r.confidence = row.confidence, r.reason = row.reason
"""


def build_workspace(graph, ws: str) -> None:
    graph.write("MATCH (n:Entity {workspace: $ws}) DETACH DELETE n", ws=ws)
    base = {"workspace": ws, "prov": E}
    rows = {
        Label.WORKSPACE: [base | {"id": "/", "name": ws, "kind": "workspace"}],
        Label.DIRECTORY: [base | {"id": d, "name": d.rstrip("/").rsplit("/", 1)[-1], "kind": "dir", "path": d} for d in DIRS],
        Label.FILE: [
            base | {"id": f, "name": f.rsplit("/", 1)[-1], "kind": "file", "path": f, "lang": "python", "size": 100}
            for f in FILES
        ],
        Label.SYMBOL: [
            base
            | {
                "id": sid,
                "name": sid.rsplit("#", 1)[1].rsplit(".", 1)[-1],
                "qualified_name": sid.rsplit("#", 1)[1],
                "kind": kind,
                "file": sid.split("#")[0],
                "signature": sig,
                "doc": doc,
                "lang": "python",
                "start_line": 1,
                "end_line": 2,
            }
            for sid, kind, sig, doc in SYMBOLS
        ],
    }
    for label, batch in rows.items():
        graph.write(_NODES.format(label=label.value), rows=batch)
    graph.write(
        "UNWIND $rows AS row CREATE (n:Entity:Symbol:External) SET n = row",
        rows=[base | {"id": i, "name": i.split(":", 1)[1], "qualified_name": i[4:], "kind": k, "prov": I} for i, k in EXTERNALS],
    )
    by_type: dict[Rel, list[dict]] = {}
    for rel, src, dst, prov, conf, reason in _contains() + EDGES:
        by_type.setdefault(rel, []).append(
            {"src": src, "dst": dst, "prov": prov, "confidence": conf, "reason": reason.value}
        )
    for rel, batch in by_type.items():
        graph.write(_EDGES.format(rel=rel.value), rows=batch, ws=ws)


@pytest.fixture(scope="module")
def query_workspace(neo4j_server):
    """Written once per module over its own connection (other tests reset the shared one)."""
    reset_graph()
    get_graph()  # applies the schema (full-text index included)
    g = connect()
    build_workspace(g, WS)
    g.write("MATCH (n:Entity {workspace: $ws}) DETACH DELETE n", ws=OTHER_WS)
    g.write(
        "CREATE (:Entity:Symbol {workspace: $ws, id: 'm.py#Model', name: 'Model', qualified_name: 'Model', "
        "kind: 'class', prov: 'EXTRACTED', file: 'm.py'})",
        ws=OTHER_WS,
    )
    g.write("CALL db.awaitIndexes(60)")
    yield WS
    for ws in (WS, OTHER_WS):
        g.write("MATCH (n:Entity {workspace: $ws}) DETACH DELETE n", ws=ws)
    g.close()


@pytest.fixture
def graph(query_workspace):
    return get_graph()
