"""Workspaces listed, shown and dropped against a real Neo4j, and through the CLI."""

from __future__ import annotations

import json
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphsvc.cli import main
from graphsvc.errors import InputError, NotFoundError
from graphsvc.graph.workspaces import delete_workspace
from graphsvc.indexing.locks import workspace_lock
from graphsvc.indexing.pipeline import index_symbols
from graphsvc.indexing.state import state_path
from graphsvc.indexing.workspaces import drop_workspace, workspace, workspaces
from graphsvc.settings import get_settings
from tests.graph_compare import difference, dump
from tests.indexing.conftest import run_cli

pytestmark = pytest.mark.timeout(180)


def _project(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "lib.py").write_text("import os\n\n\ndef helper(x):\n    return os.path.join(x)\n")
    (root / "pkg").mkdir()
    (root / "pkg" / "app.py").write_text(
        "from lib import helper\n\n\nclass App:\n    def run(self):\n        return helper('a')\n"
    )
    (root / "README.txt").write_text("not code\n")


@pytest.fixture
def two(graph, workspace, tmp_path):
    """Two indexed workspaces: `workspace` and `workspace`-other."""
    names = (workspace, workspace + "-other")
    for name in names:
        _project(tmp_path / name)
        index_symbols(tmp_path / name, workspace=name, jobs=1)
    yield names
    for name in names:
        drop_workspace(name, graph, missing_ok=True)


def _counted(graph, ws: str) -> tuple[int, int]:
    """Nodes and relationships counted the plain way, to check the sizes against."""
    nodes = graph.read("MATCH (n:Entity {workspace: $ws}) RETURN count(n) AS n", ws=ws)[0]["n"]
    rels = graph.read("MATCH (:Entity {workspace: $ws})-[r]-() RETURN count(DISTINCT r) AS n", ws=ws)[0]["n"]
    return nodes, rels


def test_show_counts_what_the_graph_holds(graph, two, tmp_path):
    name = two[0]
    shown = workspace(name, graph)
    assert (shown.nodes, shown.edges) == _counted(graph, name)
    assert shown.nodes > 0 and shown.edges > 0
    assert shown.files == 3  # lib.py, pkg/app.py, README.txt
    assert shown.symbols == 3  # helper, App, App.run; os.path.join is external
    assert shown.root == str((tmp_path / name).resolve())
    indexed = datetime.fromisoformat(shown.indexed_at.replace("Z", "+00:00"))
    assert timedelta(0) <= datetime.now(timezone.utc) - indexed < timedelta(minutes=5)
    listed = {w.name: w for w in workspaces(graph)}
    assert listed[name] == shown and listed[two[1]].nodes == shown.nodes


def test_drop_removes_the_workspace_its_state_and_nothing_else(graph, two):
    name, other = two
    kept = dump(graph.read, other)
    state = state_path(get_settings().home, name, graph.uri)
    assert state.exists()
    before = workspace(name, graph)

    dropped = drop_workspace(name, graph)
    assert (dropped.nodes, dropped.edges, dropped.root) == (before.nodes, before.edges, before.root)
    assert dropped.index_state_removed and not state.exists()
    assert _counted(graph, name) == (0, 0)
    assert name not in {w.name for w in workspaces(graph)}
    assert not difference(dump(graph.read, other), kept, ("after the drop", "before"))
    assert state_path(get_settings().home, other, graph.uri).exists()
    # Nothing of it is left to trust: the next index of its directory is a full one.
    again = index_symbols(Path(before.root), workspace=name, jobs=1)
    assert again.mode == "full" and again.full_reason == "first run"
    assert workspace(name, graph).nodes == before.nodes


def test_drop_of_an_unknown_workspace_is_an_error_that_changes_nothing(graph, two):
    kept = {w.name: w for w in workspaces(graph)}
    with pytest.raises(NotFoundError, match="no such workspace"):
        drop_workspace("no-such-workspace", graph)
    with pytest.raises(InputError, match="workspace"):
        drop_workspace("  ", graph)
    assert drop_workspace("no-such-workspace", graph, missing_ok=True) is None
    assert not list((get_settings().home / "index").glob("no-such-workspace*"))  # not even a lock file
    assert {w.name: w for w in workspaces(graph)} == kept


def test_drop_runs_in_batches(graph, two):
    name = two[0]
    nodes = workspace(name, graph).nodes
    assert nodes > 6
    dropped = delete_workspace(graph, name, batch=2)  # several transactions of two nodes
    assert dropped.nodes == nodes and _counted(graph, name) == (0, 0)


def test_drop_waits_for_a_running_index_of_the_workspace(graph, two):
    name = two[0]
    done = threading.Event()
    with workspace_lock(state_path(get_settings().home, name, graph.uri)):
        threading.Thread(target=lambda: (drop_workspace(name, graph), done.set()), daemon=True).start()
        assert not done.wait(1.0)
        assert workspace(name, graph).nodes > 0
    assert done.wait(60)
    assert _counted(graph, name) == (0, 0)


def test_list_skips_a_node_that_reads_without_properties(graph, two):
    # A node that a running drop deletes while the list reads it reads as one without
    # properties; the list once failed on its row (no name) in the CLI's table.
    graph.write("CREATE (:Entity {id: 'orphan-of-a-drop'})")
    try:
        assert None not in [w.name for w in workspaces(graph)]
        table = run_cli("workspaces", "list")
        assert table.returncode == 0, table.stderr
        assert two[0] in table.stdout
    finally:
        graph.write("MATCH (n:Entity {id: 'orphan-of-a-drop'}) WHERE n.workspace IS NULL DELETE n")


def test_cli_list_show_and_drop(graph, two):
    name, other = two
    table = run_cli("workspaces", "list")
    assert table.returncode == 0, table.stderr
    header, *rows = table.stdout.splitlines()
    assert header.split()[:5] == ["NAME", "NODES", "EDGES", "FILES", "SYMBOLS"]
    row = next(r for r in rows if r.split()[0] == name)
    shown = workspace(name, graph)
    assert row.split()[1:5] == [f"{shown.nodes:,}", f"{shown.edges:,}", "3", f"{shown.symbols:,}"]
    assert row.endswith(shown.root)

    listed = json.loads(run_cli("workspaces", "list", "--json").stdout)
    assert {w["name"]: w for w in listed}[name] == shown.to_dict()
    assert json.loads(run_cli("workspaces", "show", name, "--json").stdout) == shown.to_dict()

    # No terminal to confirm on (CI, a pipe): refused, nothing dropped.
    refused = run_cli("workspaces", "drop", name)
    assert refused.returncode == 2 and "--yes" in refused.stderr, refused.stderr
    assert workspace(name, graph).nodes == shown.nodes

    missing = run_cli("workspaces", "drop", "no-such-workspace", "--yes")
    assert missing.returncode == 2 and "no such workspace" in missing.stderr
    assert run_cli("workspaces", "show", "no-such-workspace").returncode == 2

    dropped = run_cli("workspaces", "drop", name, "--yes", "--json")
    assert dropped.returncode == 0, dropped.stderr
    assert json.loads(dropped.stdout)["nodes"] == shown.nodes
    assert [r.split()[0] for r in run_cli("workspaces", "list").stdout.splitlines()[1:]].count(name) == 0
    assert workspace(other, graph).nodes == shown.nodes


def test_cli_drop_asks_first_on_a_terminal(graph, two, monkeypatch):
    name = two[0]
    monkeypatch.setattr("graphsvc.cli.workspaces._can_ask", lambda: True)
    runner = CliRunner()
    declined = runner.invoke(main, ["workspaces", "drop", name], input="n\n")
    assert "drop workspace" in declined.output and declined.exit_code != 0
    assert workspace(name, graph).nodes > 0
    accepted = runner.invoke(main, ["workspaces", "drop", name], input="y\n")
    assert accepted.exit_code == 0 and "dropped workspace" in accepted.output, accepted.output
    assert _counted(graph, name) == (0, 0)
