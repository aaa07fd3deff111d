"""A small indexed workspace, written by the graph writer from the model's records.

Two packages that call inside themselves (so Leiden has two obvious communities), a hub
(`helper`, called by six functions), candidate call edges, an external module, and a second
workspace with a same-named class to check scoping.
"""

from __future__ import annotations

import pytest

from graphsvc.graph.driver import connect, get_graph, reset_graph
from graphsvc.graph.writer import GraphWriter, row
from graphsvc.indexing.workspaces import drop_workspace
from graphsvc.model import (
    EXTERNAL_PREFIX, CodeEdge, DirectoryNode, ExternalNode, FileNode, Prov, Reason, Rel, SymbolNode, parent_dir_id,
)

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


def _parent(sid: str) -> str:
    file, _, qual = sid.partition("#")
    return file if "." not in qual else f"{file}#{qual.rsplit('.', 1)[0]}"


def build_workspace(graph, ws: str) -> None:
    """Write the workspace through the graph writer, from the model's records."""
    drop_workspace(ws, graph, missing_ok=True)
    writer = GraphWriter(graph, ws)
    writer.upsert_workspace(root="/" + ws, skip_reason=None, indexer="query-tests")
    writer.upsert_dirs([
        row(DirectoryNode(id=d, name=d.rstrip("/").rsplit("/", 1)[-1], path=d.rstrip("/")))
        | {"parent": parent_dir_id(d)}
        for d in DIRS
    ])
    writer.upsert_files([
        row(FileNode(id=f, name=f.rsplit("/", 1)[-1], path=f, size=100, lang="python", hash=f"hash of {f}"))
        | {"parent": parent_dir_id(f)}
        for f in FILES
    ])
    writer.create_symbols([
        SymbolNode(
            id=sid, name=sid.rsplit("#", 1)[1].rsplit(".", 1)[-1], kind=kind, file=sid.split("#")[0],
            qualified_name=sid.rsplit("#", 1)[1], signature=sig, lang="python", start_line=1, end_line=2,
            parent=_parent(sid), doc=doc or "",
        )
        for sid, kind, sig, doc in SYMBOLS
    ])
    writer.upsert_externals([
        ExternalNode(id=i, name=i.rsplit("#", 1)[-1].removeprefix(EXTERNAL_PREFIX), qualified_name=i[4:].replace("#", "."),
                     kind=kind)
        for i, kind in EXTERNALS
    ])
    contains = [(Rel.CONTAINS, _parent(sid), sid, E, 1.0, Reason.SYNTAX) for sid, *_ in SYMBOLS]
    by_type: dict[Rel, list[CodeEdge]] = {}
    for rel, src, dst, prov, conf, reason in contains + EDGES:
        by_type.setdefault(rel, []).append(CodeEdge(src=src, dst=dst, type=rel.value, prov=prov, confidence=conf,
                                                    reason=reason.value))
    for rel, rows in by_type.items():
        writer.create_edges(rel, rows)


@pytest.fixture(scope="module")
def query_workspace(neo4j_server):
    """Written once per module over its own connection (other tests reset the shared one)."""
    reset_graph()
    get_graph()  # applies the schema (full-text index included)
    g = connect()
    build_workspace(g, WS)
    drop_workspace(OTHER_WS, g, missing_ok=True)
    GraphWriter(g, OTHER_WS).create_symbols(
        [SymbolNode(id="m.py#Model", name="Model", kind="class", file="m.py", qualified_name="Model")]
    )
    g.write("CALL db.awaitIndexes(60)")
    yield WS
    for ws in (WS, OTHER_WS):
        drop_workspace(ws, g)
    g.close()


@pytest.fixture
def graph(query_workspace):
    return get_graph()
