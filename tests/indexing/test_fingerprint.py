"""An index built by another version of the indexer is redone, not trusted.

The upgrade is simulated the way a new release would change things: a query file captures
fewer things, or an extraction setting changes; the next unchanged re-run must be a full one
and the graph must hold what the new version computes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from graphsvc.settings import get_settings
from indexers import matches
from graphsvc.indexing import fingerprint as fp
from indexers import languages
from graphsvc.indexing.pipeline import index_symbols
from tests.indexing.conftest import edges, entities, run_cli

pytestmark = pytest.mark.timeout(180)

SOURCE = '''\
LIMIT = 10


def helper(x):
    return x + LIMIT


def main():
    return helper(1)
'''


def _queries_copy(tmp_path: Path) -> Path:
    target = tmp_path / "queries"
    shutil.copytree(languages.QUERY_DIR, target)
    return target


def _without(query_dir: Path, block: str) -> None:
    path = query_dir / "python.scm"
    text = path.read_text()
    assert block in text
    path.write_text(text.replace(block, ""))


# -- unit: what the fingerprint depends on ---------------------------------------------------


def test_fingerprint_changes_with_a_query_byte_and_a_setting_not_between_calls(tmp_path):
    settings = get_settings()
    queries = _queries_copy(tmp_path)
    base = fp.fingerprint(queries, settings)
    assert fp.fingerprint(languages.QUERY_DIR, settings) == base
    assert fp.fingerprint(queries, settings) == base

    scm = queries / "go.scm"
    scm.write_bytes(scm.read_bytes() + b" ")
    assert fp.fingerprint(queries, settings) != base

    bigger = settings.model_copy(update={"index": settings.index.model_copy(update={"max_file_bytes": 10})})
    assert fp.fingerprint(languages.QUERY_DIR, bigger) != base
    faster = settings.model_copy(update={"index": settings.index.model_copy(update={"batch_size": 7})})
    assert fp.fingerprint(languages.QUERY_DIR, faster) == base


def test_process_fingerprint_is_computed_once(monkeypatch):
    first = fp.indexer_fingerprint()
    calls = []
    monkeypatch.setattr(fp, "fingerprint", lambda *a: calls.append(a) or "other")
    assert fp.indexer_fingerprint() == first
    assert not calls


def test_grammar_versions_name_every_wheel_of_the_language_table():
    versions = fp._grammar_versions()
    assert "tree-sitter" in versions
    for spec in languages.LANGUAGES.values():
        assert versions[spec.package.replace("_", "-")] != "missing"


# -- integration: an upgrade redoes the index --------------------------------------------------


@pytest.fixture
def upgraded_queries(tmp_path, monkeypatch):
    """Point the indexer at a copy of the query files (the 'new release'), parsing afresh."""
    queries = _queries_copy(tmp_path)

    def forget_compiled_queries() -> None:
        languages._load_query.cache_clear()
        matches._ROLES.clear()  # roles are learned per pattern number of the compiled query

    def switch() -> Path:
        monkeypatch.setattr(languages, "QUERY_DIR", queries)
        forget_compiled_queries()
        return queries

    yield queries, switch
    monkeypatch.undo()
    forget_compiled_queries()


def test_changed_queries_make_the_next_run_full_and_the_graph_new(graph, workspace, tmp_path, upgraded_queries):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "app.py").write_text(SOURCE)
    first = index_symbols(repo, workspace=workspace)
    assert first.full_reason == "first run"
    assert "app.py#LIMIT" in entities(graph, workspace)
    assert ("app.py#main", "CALLS", "app.py#helper") in edges(graph, workspace)
    assert index_symbols(repo, workspace=workspace).mode == "incremental"

    # The new release no longer captures module variables nor plain calls.
    queries, switch = upgraded_queries
    _without(queries, "(module\n  (expression_statement\n    (assignment left: (identifier) @name) @definition.variable))\n")
    _without(queries, "(call function: (identifier) @name) @reference.call\n")
    switch()

    summary = index_symbols(repo, workspace=workspace)
    assert summary.mode == "full" and summary.full_reason == "indexer changed"
    assert "(full: indexer changed)" in summary.line()
    assert summary.to_dict()["full_reason"] == "indexer changed"
    assert summary.parsed == 1
    nodes = entities(graph, workspace)
    assert "app.py#LIMIT" not in nodes and "app.py#helper" in nodes
    assert ("app.py#main", "CALLS", "app.py#helper") not in edges(graph, workspace)

    again = index_symbols(repo, workspace=workspace)
    assert again.mode == "incremental" and again.full_reason is None and again.parsed == 0


def test_cli_reports_a_changed_extraction_setting_as_a_full_run(graph, workspace, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "app.py").write_text(SOURCE)
    assert run_cli("index", str(repo), "-w", workspace).returncode == 0
    same = run_cli("index", str(repo), "-w", workspace)
    assert "(incremental)" in same.stdout, same.stdout + same.stderr

    changed = run_cli("index", str(repo), "-w", workspace, "--json",
                      env={"GRAPHSVC_INDEX__MAX_FILE_BYTES": "1000000"})
    assert changed.returncode == 0, changed.stderr
    out = json.loads(changed.stdout)
    assert out["mode"] == "full" and out["full_reason"] == "indexer changed"
    again = run_cli("index", str(repo), "-w", workspace, env={"GRAPHSVC_INDEX__MAX_FILE_BYTES": "1000000"})
    assert "(incremental)" in again.stdout
    back = run_cli("index", str(repo), "-w", workspace)
    assert "symbols  " + workspace + " (full: indexer changed)" in back.stdout


def test_a_new_indexer_classifies_unchanged_files_again(graph, workspace, tmp_path, monkeypatch):
    """The tree step keeps the hash and skip reason of a file whose size and mtime did not
    change; a release that classifies files differently must not inherit the old verdicts."""
    from graphsvc.indexing import pipeline
    from indexers import tree

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "app.py").write_text(SOURCE)
    (repo / "notes.dat").write_bytes(b"plain text with \x01 control bytes\n")
    index_symbols(repo, workspace=workspace)
    assert entities(graph, workspace)["notes.dat"]["props"].get("skip_reason") is None

    # The new release calls any file with a control byte binary.
    def stricter(path: str, size: int) -> tuple[str, bool]:
        digest, binary = original(path, size)
        return digest, binary or b"\x01" in Path(path).read_bytes()

    original = tree._hash_file
    monkeypatch.setattr(tree, "_hash_file", stricter)
    index_symbols(repo, workspace=workspace)  # the same indexer: the unchanged file is not read again
    assert entities(graph, workspace)["notes.dat"]["props"].get("skip_reason") is None

    monkeypatch.setattr(pipeline, "indexer_fingerprint", lambda: "the next release")
    summary = index_symbols(repo, workspace=workspace)
    assert summary.full_reason == "indexer changed"
    nodes = entities(graph, workspace)
    assert nodes["notes.dat"]["props"]["skip_reason"] == "binary"
    assert nodes["app.py"]["props"].get("skip_reason") is None and "app.py#helper" in nodes
    assert nodes["/"]["props"]["indexer"] == "the next release"
