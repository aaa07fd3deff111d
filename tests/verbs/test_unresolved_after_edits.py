"""`callers` counts the unresolved calls of a name; after an incremental index run it reads
again only the files that run resolved again, and answers as a fresh read of the whole
workspace would."""

from __future__ import annotations

import shutil

import pytest

from graphsvc.graph.driver import get_graph, reset_graph
from graphsvc.indexing.pipeline import index_symbols
from graphsvc.indexing.workspaces import drop_workspace
from graphsvc.query import calls
from graphsvc.settings import reload_settings
from tests.verbs.conftest import FIXTURE

WS = "graphsvc-unresolved-refresh"


@pytest.fixture()
def tree(neo4j_server, tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHSVC_HOME", str(tmp_path / "home"))
    reload_settings()
    reset_graph()
    root = tmp_path / "calls"
    shutil.copytree(FIXTURE, root)
    index_symbols(root, workspace=WS, jobs=1)
    yield root
    drop_workspace(WS, get_graph())
    reset_graph()
    monkeypatch.undo()
    reload_settings()


def _sites(name: str) -> set[tuple]:
    got = calls.callers("shop.util.helper", workspace=WS) if name == "helper" else None
    index = calls.unresolved_by_name(get_graph(), WS)
    return {(s.caller, s.file, s.line, s.text) for s in index.get(name)}, got


def _whole_workspace() -> dict[str, set[tuple]]:
    fresh = calls._UnresolvedIndex(None)
    fresh.replace(None, calls.code_reads.unresolved_sites(get_graph(), WS), None)
    return {n: {(s.caller, s.file, s.line, s.text) for s in fresh.get(n)} for n in fresh.names()}


def test_an_edit_is_applied_by_reading_only_the_files_resolved_again(tree, monkeypatch):
    before, got = _sites("helper")
    assert got.unresolved_sites == 2 and len(before) == 2

    reads: list[object] = []
    real = calls.code_reads.unresolved_sites

    def counted(graph, ws, timeout_s=None, files=None):
        reads.append(files)
        return real(graph, ws, timeout_s, files)

    monkeypatch.setattr(calls.code_reads, "unresolved_sites", counted)
    util = tree / "src" / "shop" / "util.py"
    # One more unresolved call of `helper`, in a new function; and the file's old one removed.
    text = util.read_text().replace("hooks.helper()", "hooks.other()")
    util.write_text(text + "\n\ndef extra(bus):\n    bus.helper()\n    bus.helper()\n")
    index_symbols(tree, workspace=WS, jobs=1)

    after, got = _sites("helper")
    assert reads and all(files is not None for files in reads), reads  # never the whole workspace
    assert "src/shop/util.py" in reads[0]
    assert got.unresolved_sites == 3
    assert {(f, t) for _, f, _, t in after} == {
        ("src/shop/engine.py", "plugin.helper()"), ("src/shop/util.py", "bus.helper()"),
    }
    monkeypatch.setattr(calls.code_reads, "unresolved_sites", real)
    index = calls.unresolved_by_name(get_graph(), WS)
    kept = {n: {(s.caller, s.file, s.line, s.text) for s in index.get(n)} for n in index.names()}
    assert kept == _whole_workspace()

    # A deleted file takes its unresolved calls with it.
    (tree / "src" / "shop" / "engine.py").unlink()
    index_symbols(tree, workspace=WS, jobs=1)
    gone, _ = _sites("helper")
    assert {f for _, f, _, _ in gone} == {"src/shop/util.py"}
    index = calls.unresolved_by_name(get_graph(), WS)
    assert {n: {(s.caller, s.file, s.line, s.text) for s in index.get(n)} for n in index.names()} == _whole_workspace()


def test_runs_nobody_asked_between_are_applied_together(tree, monkeypatch):
    calls.unresolved_by_name(get_graph(), WS)  # kept as of the first index
    reads: list[object] = []
    real = calls.code_reads.unresolved_sites
    monkeypatch.setattr(calls.code_reads, "unresolved_sites",
                        lambda graph, ws, timeout_s=None, files=None: reads.append(files) or real(graph, ws, timeout_s, files))
    util, engine = tree / "src" / "shop" / "util.py", tree / "src" / "shop" / "engine.py"
    util.write_text(util.read_text() + "\n\ndef one(bus):\n    bus.helper()\n")
    index_symbols(tree, workspace=WS, jobs=1)
    engine.write_text(engine.read_text().replace("plugin.helper()", "plugin.other()"))
    index_symbols(tree, workspace=WS, jobs=1)

    sites, got = _sites("helper")
    assert len(reads) == 1 and reads[0] is not None and {"src/shop/util.py", "src/shop/engine.py"} <= set(reads[0])
    assert {(f, t) for _, f, _, t in sites} == {("src/shop/util.py", "hooks.helper()"), ("src/shop/util.py", "bus.helper()")}
    assert got.unresolved_sites == 2
    monkeypatch.setattr(calls.code_reads, "unresolved_sites", real)
    index = calls.unresolved_by_name(get_graph(), WS)
    assert {n: {(s.caller, s.file, s.line, s.text) for s in index.get(n)} for n in index.names()} == _whole_workspace()
