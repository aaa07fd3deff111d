"""index-symbols against a real Neo4j: every language's fixture lands in the graph exactly as
the resolver produced it, and incremental runs keep inbound edges right."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from indexers.extract import extract_file
from graphsvc.indexing.pipeline import index_symbols
from indexers.languages import language_for_path
from indexers.module_config import read_go_modules, read_js_paths
from indexers.resolve import SymbolTable, resolve_all
from tests.graph_compare import assert_same_graph
from tests.indexing.conftest import edges, entities

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "symbols"
LANGUAGES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())


def expected_graph(root: Path) -> tuple[dict[str, tuple[str, str]], set[tuple[str, str, str]]]:
    """Symbols (id -> signature and doc) and code edges computed purely (no database) from
    the same files."""
    exts = []
    ids = []
    for dirpath, _, names in os.walk(root):
        for name in names:
            rel = os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")
            ids.append(rel)
            spec = language_for_path(rel)
            data = Path(dirpath, name).read_bytes()
            if spec is not None and data.strip() and b"\0" not in data[:8192]:
                exts.append(extract_file(rel, data, spec.name))
    table = SymbolTable(exts)
    table.set_js_paths(read_js_paths(root, ids)[0])
    table.set_go_modules(read_go_modules(root, ids)[0])
    found, _ = resolve_all(table)
    symbols = {s.id: (s.signature, s.doc) for e in exts for s in e.symbols}
    code = {(e.src, e.type, e.dst) for e in found}
    return symbols, code


@pytest.mark.parametrize("lang", LANGUAGES)
def test_fixture_project_lands_in_the_graph(graph, workspace, lang):
    root = FIXTURES / lang
    summary = index_symbols(root, workspace=workspace)
    symbols, code = expected_graph(root)
    nodes = entities(graph, workspace)
    assert symbols and set(symbols) <= set(nodes)
    assert {i for i, n in nodes.items() if "Symbol" in n["labels"] and "External" not in n["labels"]} == set(symbols)
    # Resolution holds the symbols without them: the writes read them from the staged extractions.
    assert {i: (nodes[i]["props"].get("signature", ""), nodes[i]["props"].get("doc", "")) for i in symbols} == symbols
    tree_contains = {e for e in edges(graph, workspace, "CONTAINS") if not ("#" in e[2])}
    assert edges(graph, workspace) - tree_contains == code
    assert summary.symbols == len(symbols)
    for rel in edges(graph, workspace):
        assert rel[0] in nodes and rel[2] in nodes


def test_edge_properties_and_symbol_properties(graph, workspace):
    index_symbols(FIXTURES / "python", workspace=workspace)
    rows = graph.read(
        "MATCH (a:Entity {workspace: $ws, id: 'pkg/models.py#Base.save'})-[r:CALLS]->"
        "(b:Entity {workspace: $ws, id: 'pkg/models.py#Base.validate'}) "
        "RETURN r.prov AS prov, r.confidence AS confidence, r.reason AS reason, r.count AS count, "
        "a.kind AS kind, a.start_line AS start, a.qualified_name AS qual, a.file AS file",
        ws=workspace,
    )
    assert len(rows) == 1
    row = rows[0]
    assert (row["prov"], row["confidence"], row["reason"]) == ("EXTRACTED", 1.0, "self")
    assert row["kind"] == "method" and row["qual"] == "Base.save" and row["file"] == "pkg/models.py"
    assert row["start"] >= 1 and row["count"] >= 1
    broken = graph.read("MATCH (f:Entity {workspace: $ws, id: 'broken.py'}) RETURN f.has_errors AS e", ws=workspace)
    assert broken == [{"e": True}]


def _project(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "lib.py").write_text("def helper(x):\n    return x + 1\n\n\ndef other():\n    return 2\n")
    (root / "app.py").write_text(
        "from lib import helper\n\n\ndef run():\n    return helper(1)\n\n\nclass App:\n"
        "    def start(self):\n        return self.stop()\n\n    def stop(self):\n        return run()\n"
    )
    (root / "extra.py").write_text("import lib\n\n\ndef go():\n    return lib.other()\n")


def test_editing_the_callee_keeps_inbound_edges(graph, workspace, tmp_path):
    repo = tmp_path / "repo"
    _project(repo)
    index_symbols(repo, workspace=workspace)
    before = entities(graph, workspace)
    assert ("app.py#run", "CALLS", "lib.py#helper") in edges(graph, workspace, "CALLS")

    # Only the callee's file changes: lines move, the function stays.
    (repo / "lib.py").write_text("# moved down\n\n\ndef helper(x):\n    return x + 2\n\n\ndef other():\n    return 3\n")
    summary = index_symbols(repo, workspace=workspace)
    assert summary.parsed == 1 and summary.mode == "incremental"
    calls = edges(graph, workspace, "CALLS")
    assert ("app.py#run", "CALLS", "lib.py#helper") in calls
    assert ("extra.py#go", "CALLS", "lib.py#other") in calls
    after = entities(graph, workspace)
    assert after["lib.py#helper"]["props"]["start_line"] == 4
    assert after["lib.py#helper"]["eid"] == before["lib.py#helper"]["eid"]
    assert after["app.py#run"]["eid"] == before["app.py#run"]["eid"]


def test_renaming_and_restoring_a_function(graph, workspace, tmp_path):
    repo = tmp_path / "repo"
    _project(repo)
    index_symbols(repo, workspace=workspace)
    (repo / "lib.py").write_text("def helper2(x):\n    return x + 1\n\n\ndef other():\n    return 2\n")
    index_symbols(repo, workspace=workspace)
    nodes = entities(graph, workspace)
    assert "lib.py#helper" not in nodes and "lib.py#helper2" in nodes
    assert not any(dst == "lib.py#helper" for _, _, dst in edges(graph, workspace))
    # The caller (unchanged) now points at a function that exists again once it is restored.
    (repo / "lib.py").write_text("def helper(x):\n    return x + 1\n\n\ndef other():\n    return 2\n")
    index_symbols(repo, workspace=workspace)
    assert ("app.py#run", "CALLS", "lib.py#helper") in edges(graph, workspace, "CALLS")


def test_deleting_a_file_removes_its_symbols_and_edges(graph, workspace, tmp_path):
    repo = tmp_path / "repo"
    _project(repo)
    index_symbols(repo, workspace=workspace)
    (repo / "lib.py").unlink()
    summary = index_symbols(repo, workspace=workspace)
    assert summary.deleted == 1
    nodes = entities(graph, workspace)
    assert not any(i.startswith("lib.py") for i in nodes)
    assert not any(dst.startswith("lib.py") for _, _, dst in edges(graph, workspace))
    assert ("app.py#App.start", "CALLS", "app.py#App.stop") in edges(graph, workspace, "CALLS")


def test_unchanged_rerun_writes_nothing(graph, workspace, tmp_path):
    repo = tmp_path / "repo"
    _project(repo)
    index_symbols(repo, workspace=workspace)
    before = (entities(graph, workspace), edges(graph, workspace))
    summary = index_symbols(repo, workspace=workspace)
    assert summary.parsed == 0 and summary.edges_written == {}
    assert (entities(graph, workspace), edges(graph, workspace)) == before


def test_lost_state_falls_back_to_a_full_run(graph, workspace, tmp_path):
    repo = tmp_path / "repo"
    _project(repo)
    index_symbols(repo, workspace=workspace)
    before = edges(graph, workspace)
    shutil.rmtree(Path(os.environ["GRAPHSVC_HOME"]) / "index")
    import graphsvc.indexing.pipeline as pipeline

    pipeline._WARM.clear()
    summary = index_symbols(repo, workspace=workspace)
    assert summary.mode == "full"
    assert edges(graph, workspace) == before


def test_sigkill_midway_then_rerun_completes(graph, workspace, tmp_path):
    import sysconfig

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    repo = tmp_path / "repo"
    for pkg in ("email", "json", "logging"):
        shutil.copytree(stdlib / pkg, repo / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    env = dict(os.environ)
    cmd = [sys.executable, "-m", "graphsvc", "index", str(repo), "--workspace", workspace, "--jobs", "2"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 240
    try:
        # Kill once symbols are being written, before the run can finish.
        while time.monotonic() < deadline and proc.poll() is None:
            n = graph.read("MATCH (s:Entity {workspace: $ws}) WHERE s:Symbol RETURN count(s) AS n", ws=workspace)[0]["n"]
            if n > 0:
                break
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    # The graph is queryable after the kill.
    graph.read("MATCH (n:Entity {workspace: $ws}) RETURN count(n) AS n", ws=workspace)
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    clean_ws = workspace + "-clean"
    index_symbols(repo, workspace=clean_ws)
    assert_same_graph(graph.read, workspace, clean_ws, "a run killed midway, then run again")


def test_index_with_communities_stores_them_for_the_browser(graph, workspace, tmp_path):
    import sysconfig

    repo = tmp_path / "repo"
    for pkg in ("json", "logging"):
        shutil.copytree(Path(sysconfig.get_paths()["stdlib"]) / pkg, repo / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    cmd = [sys.executable, "-m", "graphsvc", "index", str(repo), "--workspace", workspace, "--communities"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    stored = graph.read("MATCH (c:Community {workspace: $ws}) RETURN count(c) AS n, sum(c.size) AS members", ws=workspace)[0]
    assert stored["n"] >= 2
    assert f"communities {workspace}: {stored['n']} of at least 3 members" in done.stdout
    members = graph.read(
        "MATCH (n:Entity {workspace: $ws})-[:MEMBER_OF]->(:Community) RETURN count(n) AS n", ws=workspace
    )[0]["n"]
    assert members == stored["members"]


def test_concurrent_write_batches_give_the_same_graph_as_one_transaction(graph, workspace, monkeypatch):
    """Symbol and edge batches over two transactions (batches of 7 rows, so there are many of
    each) store exactly what one transaction stores; a batch Neo4j refuses is rolled back whole
    and its error is raised."""
    from graphsvc.graph import writer as writer_module
    from graphsvc.settings import reload_settings

    root = FIXTURES / "python"
    monkeypatch.setenv("GRAPHSVC_INDEX__BATCH_SIZE", "7")
    seen = {}
    for workers in (1, 2):
        monkeypatch.setenv("GRAPHSVC_INDEX__WRITE_WORKERS", str(workers))
        reload_settings()
        ws = f"{workspace}-{workers}"
        index_symbols(root, workspace=ws)
        seen[workers] = (set(entities(graph, ws)), edges(graph, ws))
    assert seen[2] == seen[1]
    assert len(seen[2][1]) > 14

    # Batch 3 of 5 divides by zero: its error comes out and none of its rows is stored.
    writer = writer_module.GraphWriter(graph, f"{workspace}-refused", batch_size=2, write_workers=2)
    rows = [{"id": f"n{i}", "d": 0 if i == 5 else 1} for i in range(10)]
    cypher = "UNWIND $rows AS row CREATE (:Entity {workspace: $ws, id: row.id, v: 1 / row.d})"
    with pytest.raises(Exception, match="(?i)divi|by zero"):
        writer._run_concurrently(cypher, rows)
    stored = set(entities(graph, f"{workspace}-refused"))
    assert "n5" not in stored and "n4" not in stored and {"n0", "n1"} <= stored


def test_limited_transactions_are_never_exceeded_and_the_limit_can_rise(graph, workspace):
    """A writer of two workers limited to one transaction never has two open; lifted again
    (None), it opens two; every row is stored either way."""
    import threading

    from graphsvc.graph import writer as writer_module

    writer = writer_module.GraphWriter(graph, workspace, batch_size=3, write_workers=2)
    lock, open_now, most = threading.Lock(), [0], []
    real_write = graph.write

    def counting_write(*args, **kwargs):
        with lock:
            open_now[0] += 1
            most.append(open_now[0])
        try:
            return real_write(*args, **kwargs)
        finally:
            with lock:
                open_now[0] -= 1

    # Each batch keeps its transaction open a little (counting to 200,000), so two overlap.
    cypher = ("UNWIND $rows AS row CREATE (:Entity {workspace: $ws, id: row.id}) "
              "WITH count(*) AS n UNWIND range(1, 200000) AS i RETURN count(i) AS c")
    graph.write = counting_write
    try:
        writer.limit_transactions(1)
        writer._run_concurrently(cypher, [{"id": f"a{i}"} for i in range(30)])
        assert max(most) == 1
        most.clear()
        writer.limit_transactions(None)
        writer._run_concurrently(cypher, [{"id": f"b{i}"} for i in range(60)])
        assert max(most) == 2
    finally:
        del graph.write
    assert len(set(entities(graph, workspace))) == 90


def test_import_aliases_of_tsconfig_and_their_changes(graph, workspace, tmp_path):
    repo = tmp_path / "repo"
    (repo / "src" / "lib").mkdir(parents=True)
    (repo / "src" / "lib" / "math.ts").write_text("export function add(a: number, b: number) { return a + b; }\n")
    (repo / "src" / "main.ts").write_text('import { add } from "@lib/math";\nexport function run() { return add(1, 2); }\n')
    config = repo / "tsconfig.json"
    config.write_text('{ "compilerOptions": { "paths": { "@lib/*": ["src/lib/*"] } } }\n')
    index_symbols(repo, workspace=workspace)
    assert ("src/main.ts#run", "CALLS", "src/lib/math.ts#add") in edges(graph, workspace, "CALLS")
    assert ("src/main.ts", "IMPORTS", "src/lib/math.ts") in edges(graph, workspace, "IMPORTS")

    # The alias goes away: no source file changed, yet the importer is resolved again.
    config.write_text("{}\n")
    summary = index_symbols(repo, workspace=workspace)
    assert summary.mode == "incremental" and summary.parsed == 0 and summary.resolved_files == 2
    assert ("src/main.ts#run", "CALLS", "src/lib/math.ts#add") not in edges(graph, workspace, "CALLS")
    assert ("src/main.ts", "IMPORTS", "ext:@lib/math") in edges(graph, workspace, "IMPORTS")

    config.write_text('{ "compilerOptions": { "paths": { "@lib/*": ["src/lib/*"] } } }\n')
    index_symbols(repo, workspace=workspace)
    assert ("src/main.ts#run", "CALLS", "src/lib/math.ts#add") in edges(graph, workspace, "CALLS")
    assert index_symbols(repo, workspace=workspace).resolved_files == 0  # unchanged: nothing redone


def test_go_module_path_and_its_changes(graph, workspace, tmp_path):
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    (repo / "run.go").write_text("package app\n\nfunc Run() {}\n")
    (repo / "sub" / "sub.go").write_text('package sub\n\nimport "example.com/app"\n\nfunc Start() { app.Run() }\n')
    gomod = repo / "go.mod"
    gomod.write_text("module example.com/app\n")
    index_symbols(repo, workspace=workspace)
    assert ("sub/sub.go#Start", "CALLS", "run.go#Run") in edges(graph, workspace, "CALLS")

    # Another module path: no source file changed, yet the importer is resolved again.
    gomod.write_text("module example.com/renamed\n")
    summary = index_symbols(repo, workspace=workspace)
    assert summary.mode == "incremental" and summary.parsed == 0 and summary.resolved_files == 2
    assert ("sub/sub.go#Start", "CALLS", "ext:example.com/app#Run") in edges(graph, workspace, "CALLS")


def test_progress_covers_resolving_and_writing(graph, workspace, tmp_path):
    """A long index is never silent after parsing: resolution and every write report."""
    repo = tmp_path / "repo"
    _project(repo)
    seen: dict[str, tuple[int, int | None]] = {}

    def progress(done: int, total: int | None, message: str) -> None:
        seen[message.split(":", 1)[0]] = (done, total)

    summary = index_symbols(repo, workspace=workspace, progress=progress)
    assert seen["resolving"] == (summary.resolved_files, summary.resolved_files)
    assert seen["writing symbols"] == (summary.symbols_written, summary.symbols_written)
    for rel, n in summary.edges_written.items():
        assert seen[f"writing {rel} edges"] == (n, n)


def test_a_run_keeps_its_extractions_out_of_the_collector_until_the_next(graph, workspace, tmp_path):
    """The objects alive when a run has resolved (its extractions, the table kept warm) are
    frozen: the collector's full passes skip them. The next run unfreezes them first, so a
    warm state it replaces (a table and its resolvers refer to each other) can be collected."""
    import gc

    shutil.copytree(FIXTURES / "python", tmp_path / "p")
    index_symbols(tmp_path / "p", workspace=workspace)
    frozen = gc.get_freeze_count()
    assert frozen > 0
    calls = []
    real = gc.unfreeze
    try:
        gc.unfreeze = lambda: (calls.append(gc.get_freeze_count()), real())[1]
        (tmp_path / "p" / "added.py").write_text("def added():\n    return 1\n")
        index_symbols(tmp_path / "p", workspace=workspace)
    finally:
        gc.unfreeze = real
    assert calls and calls[0] >= frozen  # the first thing the next run does
    assert gc.get_freeze_count() > 0
    gc.unfreeze()
