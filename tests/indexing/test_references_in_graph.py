"""REFERENCES and OVERRIDES edges and the unresolved calls recorded on their callers reach the
graph, and an incremental run leaves what a clean index of the same tree holds."""

from __future__ import annotations

import pytest

from graphsvc.indexing.pipeline import index_symbols
from tests.graph_compare import assert_same_graph
from tests.indexing.conftest import edges, entities

pytestmark = pytest.mark.neo4j

BASE = "class Base:\n    def run(self):\n        pass\n\n\ndef helper():\n    pass\n"
APP = (
    "from base import Base, helper\n"
    "\n"
    "\n"
    "class App(Base):\n"
    "    def run(self):\n"
    "        schedule(helper)\n"
    "        missing()\n"
)


def _unresolved(graph, ws: str, sid: str):
    props = entities(graph, ws)[sid]["props"]
    return props.get("unresolved_calls"), props.get("unresolved_sites")


def test_references_overrides_and_unresolved_calls_survive_incremental_runs(graph, workspace, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "base.py").write_text(BASE)
    (repo / "app.py").write_text(APP)
    index_symbols(repo, workspace=workspace, jobs=1)
    got = edges(graph, workspace)
    assert ("app.py#App.run", "REFERENCES", "base.py#helper") in got
    assert ("app.py#App.run", "OVERRIDES", "base.py#Base.run") in got
    assert _unresolved(graph, workspace, "app.py#App.run") == (2, ["6: schedule()", "7: missing()"])

    # `schedule` appears in an unchanged file's dependency: that call resolves, the record shrinks.
    (repo / "base.py").write_text(BASE + "\n\ndef schedule(f):\n    pass\n")
    (repo / "app.py").write_text(APP.replace("from base import Base, helper", "from base import Base, helper, schedule"))
    index_symbols(repo, workspace=workspace, jobs=1)
    assert _unresolved(graph, workspace, "app.py#App.run") == (1, ["7: missing()"])

    # Only the base changes: the override goes, every call of App.run resolves, nothing is left recorded.
    (repo / "base.py").write_text(BASE.replace("def run", "def start") + "\n\ndef schedule(f):\n    pass\n\n\ndef missing():\n    pass\n")
    (repo / "app.py").write_text((repo / "app.py").read_text().replace("schedule\n", "schedule, missing\n"))
    index_symbols(repo, workspace=workspace, jobs=1)
    got = edges(graph, workspace)
    assert ("app.py#App.run", "OVERRIDES", "base.py#Base.run") not in got
    assert _unresolved(graph, workspace, "app.py#App.run") == (None, None)
    # The base changes alone: app.py is re-resolved without being re-read.
    (repo / "base.py").write_text(BASE + "\n\ndef schedule(f):\n    pass\n")
    index_symbols(repo, workspace=workspace, jobs=1)
    assert ("app.py#App.run", "OVERRIDES", "base.py#Base.run") in edges(graph, workspace)
    assert _unresolved(graph, workspace, "app.py#App.run") == (1, ["7: missing()"])

    clean = workspace + "-clean"
    index_symbols(repo, workspace=clean, jobs=1)
    assert_same_graph(graph.read, workspace, clean, "after the edits")
