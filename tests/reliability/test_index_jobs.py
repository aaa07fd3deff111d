"""Index jobs submitted through the API: the path, the workspace name and an existing
workspace's root are checked, and nothing outside the workspace roots is ever read.

The job registry is the library behind `POST /api/context/index-*` and the `indexTree` /
`indexSymbols` mutations; the race tests drive it directly so the worker can be held while the
directory is swapped for a link. Everything is written to the session's real Neo4j.
"""

from __future__ import annotations

import os
import threading

import httpx
import pytest

from tests.api.conftest import running
from graphsvc.errors import InputError
from graphsvc.indexing.jobs import JobRegistry
from graphsvc.settings import get_settings
from graphsvc.indexing.pool import parse_files
from indexers.tree import scan_tree
from tests.indexing.conftest import entities, run_cli

pytestmark = pytest.mark.timeout(300)

SECRET = "def secret_outside_the_roots():\n    return 'do not index'\n"


@pytest.fixture
def graph(private_graph):
    return private_graph


@pytest.fixture
def layout(tmp_path):
    """roots/repo (inside the workspace roots), roots/other, and outside/ (not inside)."""
    roots = tmp_path / "roots"
    for name, source in (("repo", "def inside():\n    return 1\n"), ("other", "def other():\n    return 2\n")):
        (roots / name).mkdir(parents=True)
        (roots / name / f"{name}.py").write_text(source)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text(SECRET)
    return roots, outside


def _registry(roots) -> JobRegistry:
    settings = get_settings().model_copy(deep=True)
    settings.server.workspace_roots = [roots]
    return JobRegistry(settings)


def _files(graph, ws: str) -> set[str]:
    return {r["props"].get("path") for r in entities(graph, ws).values() if "File" in r["labels"]}


@pytest.mark.parametrize("kind", ["index-tree", "index-symbols"])
def test_a_directory_swapped_for_a_link_after_submit_is_not_indexed(graph, layout, kind):
    roots, outside = layout
    ws = f"swap-{kind}-{os.getpid()}"
    registry = _registry(roots)
    gate = threading.Event()
    registry._pool.submit(gate.wait, 60)  # holds the one worker: the job stays queued
    try:
        job = registry.submit(kind, "repo", ws)
        (roots / "repo").rename(roots / "repo.moved")
        (roots / "repo").symlink_to(outside, target_is_directory=True)
    finally:
        gate.set()
    job = registry.wait(job.id, 120)
    registry.shutdown()
    assert job.state == "failed", job
    assert "outside the workspace roots" in job.error, job.error
    assert _files(graph, ws) == set()


def test_the_walker_does_not_follow_a_directory_swapped_for_a_link_while_it_walks(layout):
    roots, outside = layout
    repo = roots / "repo"
    for n in range(500):
        (repo / f"f{n:03}.txt").write_text("x")
    (repo / "sub").mkdir()
    (repo / "sub" / "secret.py").write_text("def harmless():\n    pass\n")
    (outside / "sub").mkdir()
    (outside / "sub" / "secret.py").write_text(SECRET)

    def swap(done: int, message: str) -> None:
        # Called after the 500th file of the root, before `sub` is listed.
        if done == 500 and not (repo / "sub").is_symlink():
            (repo / "sub").rename(repo / "sub.moved")
            (repo / "sub").symlink_to(outside / "sub", target_is_directory=True)

    scan = scan_tree(repo, max_file_bytes=1 << 20, progress=swap)
    assert (repo / "sub").is_symlink()
    assert "sub/secret.py" not in {f.path for f in scan.files}
    sub = next(d for d in scan.dirs if d.path == "sub")
    assert sub.skip_reason and "link" in sub.skip_reason, sub


def test_parsing_does_not_follow_a_directory_swapped_for_a_link_after_the_scan(layout):
    roots, outside = layout
    repo = roots / "repo"
    (repo / "sub").mkdir()
    (repo / "sub" / "mod.py").write_text("def harmless():\n    pass\n")
    (outside / "mod.py").write_text(SECRET)
    (repo / "sub").rename(repo / "sub.moved")
    (repo / "sub").symlink_to(outside, target_is_directory=True)
    [(ext, _)] = list(parse_files(str(repo.resolve()), [("sub/mod.py", "python")], 1, None))
    assert ext.skip_reason and "left the workspace" in ext.skip_reason, ext
    assert "secret_outside_the_roots" not in {s.name for s in ext.symbols}


def test_a_bad_workspace_name_is_a_400_at_submit(graph, layout):
    roots, _ = layout
    settings = get_settings().model_copy(deep=True)
    settings.server.workspace_roots = [roots]
    with running(settings) as url:
        for name in ("", "x" * 201, "two\nlines", "nul\0"):
            for route in ("index-tree", "index-symbols"):
                r = httpx.post(f"{url}/api/context/{route}", json={"path": "repo", "workspace": name}, timeout=60)
                assert r.status_code == 400, (name, route, r.text)
                assert r.json()["code"] == "BAD_INPUT" and "workspace" in r.json()["error"], r.text
            r = httpx.post(f"{url}/graphql", timeout=60, json={
                "query": "mutation($ws: String) { indexTree(path: \"repo\", workspace: $ws) { id } }",
                "variables": {"ws": name}})
            assert r.json()["errors"][0]["extensions"]["code"] == "BAD_INPUT", r.text
        jobs = httpx.get(f"{url}/api/context/jobs", timeout=60).json()
    assert jobs == []


def test_an_existing_workspace_keeps_its_root_unless_replace_is_asked(graph, layout):
    roots, _ = layout
    ws = f"rooted-{os.getpid()}"
    registry = _registry(roots)
    try:
        first = registry.wait(registry.submit("index-symbols", "repo", ws).id, 120)
        assert first.state == "done", first
        assert _files(graph, ws) == {"repo.py"}

        for kind in ("index-symbols", "index-tree"):
            with pytest.raises(InputError, match="holds another directory.*replace"):
                registry.submit(kind, "other", ws)
        # Submitted while the workspace was new, run after it got its root: refused when it runs.
        gate = threading.Event()
        registry._pool.submit(gate.wait, 60)
        try:
            late = registry.submit("index-tree", "other", ws + "-late")
            first_late = registry.submit("index-tree", "repo", ws + "-late")
        finally:
            gate.set()
        assert registry.wait(late.id, 120).state == "done"
        first_late = registry.wait(first_late.id, 120)
        assert first_late.state == "failed" and "replace" in first_late.error, first_late
        assert _files(graph, ws) == {"repo.py"} and _files(graph, ws + "-late") == {"other.py"}
    finally:
        registry.shutdown()

    settings = get_settings().model_copy(deep=True)
    settings.server.workspace_roots = [roots]
    with running(settings) as url:
        r = httpx.post(f"{url}/api/context/index-symbols", json={"path": "other", "workspace": ws}, timeout=60)
        assert r.status_code == 400 and "replace" in r.json()["error"], r.text
        r = httpx.post(f"{url}/graphql", timeout=60, json={
            "query": "mutation($ws: String) { indexTree(path: \"other\", workspace: $ws) { id } }",
            "variables": {"ws": ws}})
        assert r.json()["errors"][0]["extensions"]["code"] == "BAD_INPUT", r.text
    assert _files(graph, ws) == {"repo.py"}  # untouched

    # The CLI refuses the same way, and re-roots only with --replace.
    refused = run_cli("index-symbols", str(roots / "other"), "-w", ws)
    assert refused.returncode == 2 and refused.stderr.startswith("error: workspace"), refused.stderr
    assert "--replace" in refused.stderr and _files(graph, ws) == {"repo.py"}
    replaced = run_cli("index-symbols", str(roots / "other"), "-w", ws, "--replace", "--json")
    assert replaced.returncode == 0, replaced.stderr
    assert _files(graph, ws) == {"other.py"}

    registry = _registry(roots)
    try:
        back = registry.wait(registry.submit("index-tree", "repo", ws, replace=True).id, 120)
        assert back.state == "done", back
        assert _files(graph, ws) == {"repo.py"}
    finally:
        registry.shutdown()
