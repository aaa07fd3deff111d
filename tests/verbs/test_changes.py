"""`changes` on a git repository made for the test: committed, indexed, then changed in the
working tree (a body edited, a function deleted), in the index (a staged edit) and by a new
untracked file; the changed symbols and their dependents are what the code says, by hand."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from graphsvc.errors import InputError
from graphsvc.graph.driver import get_graph, reset_graph
from graphsvc.indexing.pipeline import index_symbols
from graphsvc.indexing.workspaces import drop_workspace
from graphsvc.query.changes import changes
from graphsvc.settings import get_settings, reload_settings
from tests.api.conftest import running
from tests.indexing.conftest import run_cli

pytestmark = pytest.mark.neo4j

WS = "graphsvc-changes-tests"
PLAIN_WS = "graphsvc-changes-no-git"
SHAPES = """\
def area(w, h):
    return w * h


def perimeter(w, h):
    return 2 * (w + h)


def unused():
    return 0


def old_helper():
    return 1
"""
FILES = {
    "app/__init__.py": "",
    "app/shapes.py": SHAPES,
    "app/report.py": """\
from app.shapes import area, old_helper, perimeter


def summary(w, h):
    return area(w, h) + perimeter(w, h)


def legacy():
    return old_helper()
""",
    "app/main.py": """\
from app.report import summary


def main():
    return summary(1, 2)
""",
    "tests/test_shapes.py": """\
from app.shapes import area


def test_area():
    assert area(2, 3) == 6
""",
    "tests/test_report.py": """\
from app.report import summary


def test_summary():
    assert summary(1, 1) == 5
""",
}
# Against HEAD: area's body (not staged), main's body (staged), old_helper deleted (not staged).
CHANGED = {"app/shapes.py#area", "app/shapes.py#old_helper", "app/main.py#main"}
# What calls them, and what calls that (main, a changed symbol itself, is not a dependent).
HOP1 = {"app/report.py#summary", "tests/test_shapes.py#test_area", "app/report.py#legacy"}
HOP2 = {"tests/test_report.py#test_summary"}
# area's body alone, as a diff by hand.
AREA_DIFF = """\
--- a/app/shapes.py
+++ b/app/shapes.py
@@ -2 +2 @@ def area(w, h):
-    return w * h
+    return h * w
"""


def _git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def repo(neo4j_server, tmp_path_factory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("changes-repo")
    for path, text in FILES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "first")
    _git(root, "branch", "base")
    # A second commit: `unused` changes only against `base`.
    (root / "app/shapes.py").write_text(SHAPES.replace("return 0", "return None"))
    _git(root, "commit", "-q", "-am", "second")
    plain = tmp_path_factory.mktemp("changes-plain")
    (plain / "one.py").write_text("def one():\n    return 1\n")
    saved = os.environ.get("GRAPHSVC_HOME")
    os.environ["GRAPHSVC_HOME"] = str(tmp_path_factory.mktemp("home"))
    reload_settings()
    reset_graph()
    index_symbols(root, workspace=WS, jobs=1)
    index_symbols(plain, workspace=PLAIN_WS, jobs=1)
    shapes = (root / "app/shapes.py").read_text()
    shapes = shapes.replace("return w * h", "return h * w").replace("def old_helper():\n    return 1\n", "")
    (root / "app/shapes.py").write_text(shapes)
    (root / "app/main.py").write_text(FILES["app/main.py"].replace("summary(1, 2)", "summary(2, 1)"))
    _git(root, "add", "app/main.py")
    (root / "app/extra.py").write_text("from app.shapes import area\n\n\ndef extra():\n    return area(1, 1)\n")
    yield root
    drop_workspace(WS, get_graph())
    drop_workspace(PLAIN_WS, get_graph())
    reset_graph()
    if saved is None:
        os.environ.pop("GRAPHSVC_HOME", None)
    else:
        os.environ["GRAPHSVC_HOME"] = saved
    reload_settings()


def _levels(result) -> list[set[str]]:
    return [{e.id for e in level.entities} for level in result.impact.levels]


def test_since_head_takes_the_working_tree_the_index_and_new_files(repo):
    got = changes(workspace=WS, since="HEAD", limit=50)
    assert {c.id for c in got.changed} == CHANGED and got.changed_total == 3
    area = next(c for c in got.changed if c.id == "app/shapes.py#area")
    assert (area.file, area.line, area.end_line, area.kind) == ("app/shapes.py", 1, 2, "function")
    assert _levels(got) == [HOP1, HOP2]
    assert got.impact.tests.items == ["tests/test_shapes.py#test_area", "tests/test_report.py#test_summary"]
    assert got.files.items == ["app/extra.py", "app/main.py", "app/shapes.py"]
    assert got.untracked.items == ["app/extra.py"] and got.impact.not_indexed.items == ["app/extra.py"]
    assert got.commit == _git(repo, "rev-parse", "HEAD").strip()
    assert got.summary.startswith("3 symbols changed in 3 files; 4 dependents within 2 hops in 3 files; "
                                  "2 tests reach them; risk: low")


def test_since_a_branch_adds_what_was_committed_since(repo):
    got = changes(workspace=WS, since="base", limit=50)
    assert {c.id for c in got.changed} == CHANGED | {"app/shapes.py#unused"}
    assert _levels(got) == [HOP1, HOP2]
    first = _git(repo, "rev-parse", "base").strip()
    assert {c.id for c in changes(workspace=WS, since=first, limit=50).changed} == CHANGED | {"app/shapes.py#unused"}


def test_since_a_diff_reads_the_lines_it_names(repo):
    got = changes(workspace=WS, since=AREA_DIFF, depth=1)
    assert [c.id for c in got.changed] == ["app/shapes.py#area"] and got.changed[0].dependents == 2
    assert _levels(got) == [{"app/report.py#summary", "tests/test_shapes.py#test_area"}]
    assert (got.since, got.commit, got.files.items) == ("diff", None, ["app/shapes.py"])


def test_what_git_cannot_answer_is_a_clear_error(repo, monkeypatch):
    with pytest.raises(InputError, match=r"changes-plain\d* is not in a git repository: give the change as a unified diff"):
        changes(workspace=PLAIN_WS)
    with pytest.raises(InputError, match="unknown git ref 'no-such-branch' in "):
        changes(workspace=WS, since="no-such-branch")
    with pytest.raises(InputError, match="'--output=x' is not a git ref"):
        changes(workspace=WS, since="--output=x")
    monkeypatch.setattr("graphsvc.query.changes.MAX_DIFF_CHARS", 100)
    with pytest.raises(InputError, match=r"`git diff .*` in .* gives more than 100 characters: compare with a nearer ref"):
        changes(workspace=WS)
    monkeypatch.setenv("PATH", str(repo / "nowhere"))
    with pytest.raises(InputError, match="the git executable is not on PATH"):
        changes(workspace=WS)


def test_cli_and_rest(repo):
    out = run_cli("changes", "-w", WS, "--json")
    assert out.returncode == 0, out.stderr
    assert {c["id"] for c in json.loads(out.stdout)["changed"]} == CHANGED
    out = run_cli("changes", "--since", "no-such-branch", "-w", WS)
    assert out.returncode == 2 and out.stderr.startswith("error: unknown git ref 'no-such-branch'")
    with running(get_settings()) as url:
        r = httpx.get(f"{url}/api/context/changes", params={"workspace": WS, "since": "base"}, timeout=60)
        assert r.status_code == 200, r.text
        assert {c["id"] for c in r.json()["changed"]} == CHANGED | {"app/shapes.py#unused"}
        r = httpx.post(f"{url}/api/context/changes", json={"workspace": WS, "since": AREA_DIFF, "depth": 1}, timeout=60)
        assert r.status_code == 200 and [c["id"] for c in r.json()["changed"]] == ["app/shapes.py#area"]
        r = httpx.get(f"{url}/api/context/changes", params={"workspace": PLAIN_WS}, timeout=60)
        assert r.status_code == 400 and "is not in a git repository" in r.json()["error"]
        query = "query($ws: String!) { changes(workspace: $ws) { summary risk changed { id line } impact { levels { total } } } }"
        got = httpx.post(f"{url}/graphql", json={"query": query, "variables": {"ws": WS}}, timeout=60).json()
        assert got["data"]["changes"]["risk"] == "low" and len(got["data"]["changes"]["changed"]) == 3


def test_a_graph_indexed_after_the_change_is_read_on_the_new_side(repo):
    index_symbols(repo, workspace=WS, jobs=1)
    got = changes(workspace=WS, since="HEAD", limit=50)
    # old_helper is gone from the graph; its lines were at the end of the file, so the file stands for them.
    assert {c.id for c in got.changed} == {"app/shapes.py#area", "app/main.py#main", "app/shapes.py",
                                           "app/extra.py", "app/extra.py#extra"}
    assert got.impact.not_indexed.total == 0
    assert got.summary.startswith("3 symbols changed in 3 files; ")  # the two files are not symbols
