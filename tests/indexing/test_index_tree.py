"""index-tree against a real Neo4j: the graph must mirror the filesystem exactly."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from graphsvc.graph.schema import applied_version, apply_schema, migrations
from graphsvc.indexing.pipeline import index_tree
from indexers.tree import Skip, scan_tree
from tests.indexing.conftest import edges, entities, run_cli


def make_repo(root: Path) -> None:
    files = {
        "README.md": "# demo\n",
        "src/app.py": "def main():\n    return 1\n",
        "src/util/strings.py": "X = 1\n",
        "src/util/__init__.py": "",
        "web/index.ts": "export const a = 1;\n",
        "docs/guide/intro.md": "hello\n",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "empty_dir").mkdir()


def expected_ids(root: Path) -> set[str]:
    ids = {"/"}
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        prefix = "" if rel == "." else rel + "/"
        ids.update(prefix + d + "/" for d in dirnames)
        ids.update(prefix + f for f in filenames)
    return ids


def test_tree_matches_filesystem(graph, workspace, tmp_path):
    repo = tmp_path / "repo"
    make_repo(repo)
    summary = index_tree(repo, workspace=workspace)
    nodes = entities(graph, workspace)
    assert set(nodes) == expected_ids(repo)
    assert summary.files == 6 and summary.directories == 7  # root + 6 directories
    assert "Workspace" in nodes["/"]["labels"]
    assert "Directory" in nodes["src/util/"]["labels"]
    app = nodes["src/app.py"]
    assert "File" in app["labels"]
    assert app["props"]["lang"] == "python"
    assert app["props"]["size"] == len("def main():\n    return 1\n")
    assert len(app["props"]["hash"]) == 64 and app["props"]["prov"] == "EXTRACTED"
    contains = edges(graph, workspace, "CONTAINS")
    assert ("/", "CONTAINS", "src/") in contains
    assert ("src/", "CONTAINS", "src/util/") in contains
    assert ("src/util/", "CONTAINS", "src/util/strings.py") in contains
    # Every node but the root has exactly one parent.
    children = [dst for _, _, dst in contains]
    assert sorted(children) == sorted(set(nodes) - {"/"})


def test_ignore_rules(graph, workspace, tmp_path):
    repo = tmp_path / "repo"
    make_repo(repo)
    (repo / ".gitignore").write_text("*.log\nbuild/\n!keep.log\n")
    (repo / "src" / ".gitignore").write_text("generated_*.py\n")
    (repo / ".graphsvcignore").write_text("docs/\n")
    (repo / "debug.log").write_text("x")
    (repo / "keep.log").write_text("x")
    (repo / "build").mkdir()
    (repo / "build" / "out.py").write_text("x = 1\n")
    (repo / "src" / "generated_api.py").write_text("x = 1\n")
    (repo / "generated_top.py").write_text("x = 1\n")  # the nested rule does not apply here
    (repo / ".git").mkdir()
    (repo / ".git" / "HEAD").write_text("ref")
    index_tree(repo, workspace=workspace)
    ids = set(entities(graph, workspace))
    assert "keep.log" in ids and "generated_top.py" in ids and ".gitignore" in ids
    for gone in ("debug.log", "build/", "build/out.py", "src/generated_api.py", "docs/", ".git/"):
        assert gone not in ids


def test_symlinks_never_followed_out_or_in_loops(graph, workspace, tmp_path):
    repo = tmp_path / "repo"
    make_repo(repo)
    outside = tmp_path / "outside.py"
    outside.write_text("secret = 1\n")
    os.symlink(repo, repo / "src" / "loop")  # directory loop
    os.symlink(outside, repo / "escape.py")
    os.symlink(repo / "a_loop", repo / "b_loop")
    os.symlink(repo / "b_loop", repo / "a_loop")
    os.symlink(repo / "src" / "app.py", repo / "alias.py")
    os.symlink(tmp_path / "missing", repo / "dangling")
    index_tree(repo, workspace=workspace)
    nodes = entities(graph, workspace)
    reason = {i: n["props"].get("skip_reason") for i, n in nodes.items()}
    assert reason["src/loop"] == Skip.SYMLINK_DIR
    assert reason["escape.py"] == Skip.SYMLINK_OUTSIDE
    assert reason["a_loop"] == Skip.SYMLINK_LOOP and reason["b_loop"] == Skip.SYMLINK_LOOP
    assert reason["dangling"] == Skip.SYMLINK_BROKEN
    assert reason["alias.py"] is None and nodes["alias.py"]["props"]["hash"] == nodes["src/app.py"]["props"]["hash"]
    assert not any(i.startswith("src/loop/") for i in nodes)


def test_binary_and_oversize_are_recorded_with_reasons(graph, workspace, tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    make_repo(repo)
    (repo / "blob.bin").write_bytes(b"\x00\x01\x02" * 100)
    (repo / "big.py").write_text("x = 1\n" * 400)
    (repo / "empty.py").write_text("")
    monkeypatch.setenv("GRAPHSVC_INDEX__MAX_FILE_BYTES", "1000")
    from graphsvc.settings import reload_settings

    reload_settings()
    summary = index_tree(repo, workspace=workspace)
    nodes = entities(graph, workspace)
    assert nodes["blob.bin"]["props"]["skip_reason"] == Skip.BINARY
    assert nodes["big.py"]["props"]["skip_reason"] == Skip.TOO_LARGE
    assert nodes["big.py"]["props"]["size"] == 2400
    assert nodes["empty.py"]["props"]["skip_reason"] == Skip.EMPTY
    assert summary.skipped == {Skip.BINARY: 1, Skip.TOO_LARGE: 1, Skip.EMPTY: 2}  # with src/util/__init__.py


def test_invalid_utf8_file_name_is_recorded(graph, workspace, tmp_path):
    repo = tmp_path / "repo"
    make_repo(repo)
    bad = os.fsencode(str(repo)) + b"/caf\xe9.py"
    with open(bad, "wb") as fh:
        fh.write(b"x = 1\n")
    index_tree(repo, workspace=workspace)
    nodes = entities(graph, workspace)
    assert nodes["caf\ufffd.py"]["props"]["skip_reason"] == Skip.INVALID_NAME


def test_incremental_rerun(graph, workspace, tmp_path):
    repo = tmp_path / "repo"
    make_repo(repo)
    index_tree(repo, workspace=workspace)
    before = entities(graph, workspace)
    again = index_tree(repo, workspace=workspace)
    assert (again.added, again.changed, again.removed) == (0, 0, 0)
    assert entities(graph, workspace) == before  # identical run changes nothing, not even ids

    (repo / "src" / "app.py").write_text("def main():\n    return 2\n")
    (repo / "src" / "new.py").write_text("y = 2\n")
    (repo / "docs" / "guide" / "intro.md").unlink()
    (repo / "docs" / "guide").rmdir()
    summary = index_tree(repo, workspace=workspace)
    after = entities(graph, workspace)
    assert set(after) == expected_ids(repo)
    assert (summary.added, summary.changed, summary.removed) == (1, 1, 2)
    assert after["src/app.py"]["props"]["hash"] != before["src/app.py"]["props"]["hash"]
    assert after["src/app.py"]["eid"] == before["src/app.py"]["eid"]
    assert after["README.md"]["eid"] == before["README.md"]["eid"]
    assert ("src/", "CONTAINS", "src/new.py") in edges(graph, workspace, "CONTAINS")


def _restore(path: Path, text: str, stat: os.stat_result) -> None:
    """The file as it was: content and mtime (so size and mtime say nothing changed)."""
    path.write_text(text)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def _graph_hash(graph, workspace: str, fid: str) -> str:
    return entities(graph, workspace)[fid]["props"]["hash"]


def _indexed_then_edited(repo, graph, workspace):
    """A repository indexed, then `src/app.py` edited: the file, its text and stat before the
    edit (to undo it with its mtime), and the graph's hash of it as indexed."""
    make_repo(repo)
    app = repo / "src" / "app.py"
    text, stat = app.read_text(), app.stat()
    index_tree(repo, workspace=workspace)
    original = _graph_hash(graph, workspace, "src/app.py")
    app.write_text("def main():\n    return 22\n")
    return app, text, stat, original


def test_tree_rows_kept_beside_the_graph_are_not_trusted_after_another_writer(graph, workspace, tmp_path):
    """A run compares the disk with the tree rows it recorded only while the graph holds the
    token it wrote: here another machine (another index state) indexed an edit since, and the
    edit was undone with its mtime, so the recorded rows match the disk but not the graph."""
    repo = tmp_path / "repo"
    app, text, stat, original = _indexed_then_edited(repo, graph, workspace)
    other = run_cli("index-tree", str(repo), "--workspace", workspace, env={"GRAPHSVC_HOME": str(tmp_path / "other")})
    assert other.returncode == 0, other.stderr
    assert _graph_hash(graph, workspace, "src/app.py") != original
    _restore(app, text, stat)
    summary = index_tree(repo, workspace=workspace)
    assert summary.changed == 1
    assert _graph_hash(graph, workspace, "src/app.py") == original


def test_a_tree_sync_that_died_half_way_leaves_no_token_to_trust(graph, workspace, tmp_path, monkeypatch):
    from graphsvc.graph.writer import GraphWriter
    from graphsvc.indexing import pipeline

    repo = tmp_path / "repo"
    app, text, stat, original = _indexed_then_edited(repo, graph, workspace)
    real = GraphWriter.set_tree_token

    def dies_before_the_new_token(self, token):
        if token is not None:
            raise RuntimeError("killed")
        real(self, token)

    monkeypatch.setattr(GraphWriter, "set_tree_token", dies_before_the_new_token)
    # As a sync too large for one transaction: each write commits as it is made.
    monkeypatch.setattr(GraphWriter, "defer", lambda self: None)
    with pytest.raises(RuntimeError):
        index_tree(repo, workspace=workspace)
    monkeypatch.undo()
    assert _graph_hash(graph, workspace, "src/app.py") != original  # the file was written
    _restore(app, text, stat)
    pipeline._TREES.clear()  # as a new process: the rows recorded before the edit, from the state file
    summary = index_tree(repo, workspace=workspace)
    assert summary.changed == 1
    assert _graph_hash(graph, workspace, "src/app.py") == original
    assert index_tree(repo, workspace=workspace).changed == 0


def test_a_small_sync_that_dies_writes_nothing(graph, workspace, tmp_path, monkeypatch):
    """A small sync sends its writes in one transaction: dying before it leaves the graph,
    its token and the recorded rows as they were, and the next run finds the change."""
    from graphsvc.graph.writer import GraphWriter

    repo = tmp_path / "repo"
    app, text, stat, original = _indexed_then_edited(repo, graph, workspace)

    def dies(self):
        raise RuntimeError("killed")

    monkeypatch.setattr(GraphWriter, "commit", dies)
    with pytest.raises(RuntimeError):
        index_tree(repo, workspace=workspace)
    monkeypatch.undo()
    assert _graph_hash(graph, workspace, "src/app.py") == original
    assert index_tree(repo, workspace=workspace).changed == 1
    assert _graph_hash(graph, workspace, "src/app.py") != original


def test_a_watched_tree_is_walked_once_then_only_where_it_changed(graph, workspace, tmp_path, monkeypatch):
    from graphsvc.indexing import pipeline
    from graphsvc.indexing.tree_watch import TreeWatch

    if TreeWatch(str(tmp_path)).broken:
        pytest.skip("no inotify here")
    repo = tmp_path / "repo"
    make_repo(repo)
    walks = []
    monkeypatch.setattr(pipeline, "scan_tree", lambda *a, **k: walks.append(1) or scan_tree(*a, **k))
    index_tree(repo, workspace=workspace, watch_tree=True)
    assert len(walks) == 1
    (repo / "src" / "app.py").write_text("def main():\n    return 2\n")
    (repo / "docs" / "new.md").write_text("new\n")
    (repo / "web" / "index.ts").unlink()
    (repo / "src" / "util").rename(repo / "src" / "helpers")
    summary = index_tree(repo, workspace=workspace, watch_tree=True)
    assert len(walks) == 1  # only the directories the kernel named were listed
    assert set(entities(graph, workspace)) == expected_ids(repo)
    assert (summary.added, summary.changed, summary.removed) == (4, 1, 4)
    (repo / ".gitignore").write_text("docs/\n")
    index_tree(repo, workspace=workspace, watch_tree=True)
    assert len(walks) == 2  # an ignore file changed: walked whole
    assert "docs/" not in entities(graph, workspace)


def test_scan_is_pure_and_reuses_hashes(tmp_path):
    repo = tmp_path / "repo"
    make_repo(repo)
    first = scan_tree(repo, max_file_bytes=10_000)
    known = {f.id: (*first.stamps[f.id], f.hash, f.skip_reason) for f in first.files if f.id in first.stamps}
    second = scan_tree(repo, max_file_bytes=10_000, known=known)
    assert second.bytes_read == 0
    assert [f.hash for f in first.files] == [f.hash for f in second.files]


def test_schema_migrations_are_idempotent(graph):
    newest = max(m.version for m in migrations())
    assert apply_schema(graph) == newest
    constraints = graph.read("SHOW CONSTRAINTS YIELD name RETURN count(*) AS n")[0]["n"]
    indexes = graph.read("SHOW INDEXES YIELD name RETURN count(*) AS n")[0]["n"]
    assert apply_schema(graph) == newest
    assert applied_version(graph) == newest
    assert graph.read("SHOW CONSTRAINTS YIELD name RETURN count(*) AS n")[0]["n"] == constraints
    assert graph.read("SHOW INDEXES YIELD name RETURN count(*) AS n")[0]["n"] == indexes
    names = {r["name"] for r in graph.read("SHOW INDEXES YIELD name RETURN name")}
    assert {"entity_key", "entity_search"} <= names and not {"entity_text", "entity_kind"} & names


def test_cli_errors_are_one_line_and_leave_the_graph(graph, workspace, tmp_path):
    repo = tmp_path / "repo"
    make_repo(repo)
    ok = run_cli("index-tree", str(repo), "--workspace", workspace, "--json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["files"] == 6
    before = entities(graph, workspace)

    missing = run_cli("index-tree", str(tmp_path / "nope"), "--workspace", workspace)
    assert missing.returncode == 2
    assert missing.stderr.strip().count("\n") == 0 and "no such directory" in missing.stderr

    not_dir = run_cli("index-tree", str(repo / "README.md"), "--workspace", workspace)
    assert not_dir.returncode == 2 and "not a directory" in not_dir.stderr

    down = run_cli("index-tree", str(repo), "--workspace", workspace, env={"NEO4J_URI": "bolt://127.0.0.1:1"})
    assert down.returncode == 3 and "cannot reach Neo4j" in down.stderr
    assert down.stderr.strip().count("\n") == 0

    wrong = run_cli("index-tree", str(repo), "--workspace", workspace, env={"NEO4J_PASSWORD": "wrong-password"})
    assert wrong.returncode == 3 and "refused the credentials" in wrong.stderr
    assert "wrong-password" not in wrong.stderr

    assert entities(graph, workspace) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read a mode-000 directory")
def test_unreadable_directory_is_recorded(graph, workspace, tmp_path):
    repo = tmp_path / "repo"
    make_repo(repo)
    locked = repo / "locked"
    locked.mkdir()
    (locked / "a.py").write_text("x = 1\n")
    locked.chmod(0)
    try:
        index_tree(repo, workspace=workspace)
    finally:
        locked.chmod(0o755)
    assert entities(graph, workspace)["locked/"]["props"]["skip_reason"].startswith("unreadable")
