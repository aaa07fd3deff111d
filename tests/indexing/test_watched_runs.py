"""A process that watches its tree compares only the records a rescan listed again (the tree
sync) and plans from them (`graphsvc.indexing.plan.plan_changes`); what it reports and writes
must be what a run that walks every record reports and writes."""

from __future__ import annotations

from dataclasses import asdict

import pytest

import graphsvc.indexing.pipeline as pipeline
from graphsvc.indexing.pipeline import index_symbols
from graphsvc.indexing.tree_watch import TreeWatch
from tests.graph_compare import assert_same_graph
from tests.indexing.test_incremental_equals_clean import Editor, _corpus

pytestmark = pytest.mark.neo4j

_TIMES = ("seconds", "parse_seconds", "resolve_seconds", "write_seconds", "grep_seconds")


def _comparable(summary) -> dict:
    out = asdict(summary)
    for part in (out, out["tree"]):
        for key in (*_TIMES, "workspace", "bytes_read"):
            part.pop(key, None)
    return out


@pytest.mark.parametrize("seed", [5, 6])
def test_a_watched_run_reports_and_writes_what_a_walking_run_does(graph, workspace, tmp_path, monkeypatch, seed):
    if TreeWatch(str(tmp_path)).broken:
        pytest.skip("no inotify here")
    planned_from_changes = []
    real = pipeline.plan_changes

    def counted(*args, **kwargs):
        plan = real(*args, **kwargs)
        planned_from_changes.append(plan is not None)
        return plan

    monkeypatch.setattr(pipeline, "plan_changes", counted)
    repo = tmp_path / "repo"
    _corpus(repo)
    walked = f"{workspace}-walked"
    index_symbols(repo, workspace=workspace, jobs=1, watch_tree=True)
    index_symbols(repo, workspace=walked, jobs=1)
    editor = Editor(repo, seed)
    for step in range(1, 6):
        for _ in range(editor.rng.randint(1, 3)):
            editor.step()
        watched = index_symbols(repo, workspace=workspace, jobs=1, watch_tree=True)
        walking = index_symbols(repo, workspace=walked, jobs=1)
        log = f"seed {seed} after:\n  " + "\n  ".join(editor.log)
        assert _comparable(watched) == _comparable(walking), log
        assert_same_graph(graph.read, workspace, walked, log)
    assert any(planned_from_changes)
