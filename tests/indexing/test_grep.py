"""grep over the indexed files' text: the hits, and the index kept equal to the files by
every run (incremental edits, deletions, a dropped workspace, a run that failed half way)."""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from pathlib import Path

import pytest

from graphsvc.context import db, grep_index
from graphsvc.context.grep_index import GrepIndex
from graphsvc.errors import InputError, NotFoundError
from graphsvc.graph.writer import GraphWriter
from graphsvc.indexing import pipeline
from graphsvc.indexing.pipeline import index_symbols
from graphsvc.indexing.workspaces import drop_workspace
from graphsvc.query.grep import grep
from graphsvc.settings import get_settings
from tests.indexing.conftest import run_cli

APP = '''\
"""The app."""
import os

TIMEOUT = os.environ.get("APP_TIMEOUT", "30")


class Client:
    def fetch(self, url):
        headers = {"Accept-Language": "en"}
        return get(url, headers)

    def close(self):
        pass  # a "quoted" * AND - comment


def get(url, headers):
    return (url, headers)
'''

UTIL = '''\
def timeout():
    return int(os.environ.get("APP_TIMEOUT", "30"))
'''


def _tree(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "app.py").write_text(APP)
    (root / "pkg" / "util.py").write_text(UTIL)
    (root / "README.md").write_text("APP_TIMEOUT is read by pkg/app.py\n")
    return root


def _oracle(root: Path, pattern: str, *, regex=False, ignore_case=False) -> list[tuple[str, int]]:
    """The matching (file, line) computed from the files on disk, as grep -n would."""
    flags = re.IGNORECASE if ignore_case else 0
    rx = re.compile(pattern if regex else re.escape(pattern), flags)
    return sorted(
        (str(p.relative_to(root)), n)
        for p in root.rglob("*.py")
        for n, line in enumerate(p.read_text().split("\n"), 1)
        if rx.search(line)
    )


def _held(graph, ws: str) -> dict[str, str] | None:
    index = GrepIndex(settings=get_settings())
    try:
        held = index.workspace(graph.uri, ws)
        return None if held is None else held.hashes
    finally:
        index.close()


def _files_now(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*.py")}


@pytest.fixture
def indexed(graph, workspace, tmp_path):
    root = _tree(tmp_path / "src")
    index_symbols(root, workspace=workspace, jobs=1)
    return root, workspace


@pytest.mark.parametrize(("pattern", "regex", "ignore_case"), [
    ("APP_TIMEOUT", False, False),
    ("Accept-Language", False, False),
    ("accept-language", False, True),
    ("accept-language", False, False),  # case-sensitive by default: nothing
    ("os", False, False),  # short: scanned
    ("ccept-Lang", False, False),  # the end of a word, then the start of one
    ("ENVIRON.GET(", False, True),
    ("headers)", False, False),
    (r"def \w+\(self", True, False),
    (r"^\s+return", True, False),
    (r"(get|fetch)\(", True, False),
])
def test_hits_are_the_lines_grep_finds_on_disk(graph, indexed, pattern, regex, ignore_case):
    root, ws = indexed
    result = grep(pattern, workspace=ws, regex=regex, ignore_case=ignore_case, limit=100, graph=graph)
    assert [(h.file, h.line) for h in result.hits] == _oracle(root, pattern, regex=regex, ignore_case=ignore_case)
    assert result.total == len(result.hits) and not result.truncated and result.complete


def test_a_hit_has_its_text_column_and_innermost_symbol(graph, indexed):
    _, ws = indexed
    (hit,) = grep("Accept-Language", workspace=ws, graph=graph).hits
    assert (hit.file, hit.line, hit.column) == ("pkg/app.py", 9, 21)
    assert hit.text == '        headers = {"Accept-Language": "en"}'
    assert hit.symbol == "pkg/app.py#Client.fetch" and hit.symbol_kind == "method"
    (top,) = grep("TIMEOUT = ", workspace=ws, graph=graph).hits
    assert (top.line, top.symbol, top.symbol_kind) == (4, "pkg/app.py#TIMEOUT", "constant")
    (outside,) = grep("import os", workspace=ws, graph=graph).hits
    assert (outside.line, outside.symbol) == (2, None)


def test_fts_syntax_in_a_literal_is_plain_text(graph, indexed):
    root, ws = indexed
    for pattern in ['"quoted"', '* AND -', 'a "quoted" * AND - comment', '"', 'NEAR(', "headers)"]:
        result = grep(pattern, workspace=ws, graph=graph)
        assert [(h.file, h.line) for h in result.hits] == _oracle(root, pattern), pattern


def test_paths_limit_and_truncation(graph, indexed):
    _, ws = indexed
    everywhere = grep("url", workspace=ws, graph=graph)
    assert {h.file for h in everywhere.hits} == {"pkg/app.py"}
    assert grep("APP_TIMEOUT", workspace=ws, paths=["*/util.py"], graph=graph).hits[0].file == "pkg/util.py"
    assert [h.file for h in grep("APP_TIMEOUT", workspace=ws, paths=["util.py"], graph=graph).hits] == ["pkg/util.py"]
    assert grep("APP_TIMEOUT", workspace=ws, paths=["nothing/*"], graph=graph).hits == []
    cut = grep("url", workspace=ws, limit=2, graph=graph)
    assert len(cut.hits) == 2 and cut.total == everywhere.total > 2 and cut.truncated and cut.limit == 2


def test_errors_name_the_problem(graph, indexed):
    _, ws = indexed
    with pytest.raises(InputError, match=r"invalid regular expression '\(unclosed'"):
        grep("(unclosed", workspace=ws, regex=True, graph=graph)
    with pytest.raises(NotFoundError, match="no-such-ws"):
        grep("x", workspace="no-such-ws", graph=graph)
    with pytest.raises(InputError, match="pattern"):
        grep("", workspace=ws, graph=graph)


def test_the_index_follows_edits_deletions_and_a_drop(graph, indexed):
    root, ws = indexed
    (root / "pkg" / "app.py").write_text(APP.replace("Accept-Language", "Content-Language"))
    (root / "pkg" / "util.py").unlink()
    (root / "pkg" / "new.py").write_text("NEW_SETTING = 'Accept-Language'\n")
    summary = index_symbols(root, workspace=ws, jobs=1)
    assert (summary.grep_written, summary.grep_removed) == (2, 1)
    assert set(_held(graph, ws)) == _files_now(root)
    assert [(h.file, h.line) for h in grep("Accept-Language", workspace=ws, graph=graph).hits] == [("pkg/new.py", 1)]
    assert grep("Content-Language", workspace=ws, graph=graph).hits[0].symbol == "pkg/app.py#Client.fetch"
    assert grep("APP_TIMEOUT", workspace=ws, paths=["pkg/util.py"], graph=graph).hits == []

    unchanged = index_symbols(root, workspace=ws, jobs=1)
    assert (unchanged.grep_written, unchanged.grep_removed) == (0, 0)

    drop_workspace(ws, graph)
    assert _held(graph, ws) is None
    with pytest.raises(NotFoundError):
        grep("Accept-Language", workspace=ws, graph=graph)


def test_a_run_that_failed_half_way_is_made_whole_by_the_next(graph, indexed, monkeypatch):
    root, ws = indexed
    (root / "pkg" / "app.py").write_text(APP + "\nLATE = 'after the failure'\n")
    (root / "pkg" / "util.py").write_text(UTIL + "\nLATER = 'also after it'\n")
    # The graph fails after the grep rows were written: grep is ahead of the graph until the
    # next run, which redoes the graph and finds the grep rows current.
    monkeypatch.setattr(pipeline, "_write_edges", _fail)
    with pytest.raises(RuntimeError):
        index_symbols(root, workspace=ws, jobs=1)
    monkeypatch.undo()
    assert grep("after the failure", workspace=ws, graph=graph).total == 1
    again = index_symbols(root, workspace=ws, jobs=1)
    assert again.parsed == 2 and again.grep_written == 0

    # The grep index fails after its first batch (one file per batch): one file is new, one
    # old, each whole; the next run writes what is left.
    (root / "pkg" / "app.py").write_text(APP + "\nLAST = 'edited again'\n")
    (root / "pkg" / "util.py").write_text(UTIL + "\nLAST = 'edited again'\n")
    monkeypatch.setattr(grep_index, "BATCH_CHARS", 1)
    batches = []
    real = GrepIndex._write_batch
    monkeypatch.setattr(GrepIndex, "_write_batch",
                        lambda self, *a: _fail() if batches else (batches.append(1), real(self, *a)))
    with pytest.raises(RuntimeError):
        index_symbols(root, workspace=ws, jobs=1)
    monkeypatch.undo()
    assert grep("edited again", workspace=ws, graph=graph).total == 1
    assert grep("LATE", workspace=ws, graph=graph).total == 1  # the old version of the other file
    again = index_symbols(root, workspace=ws, jobs=1)
    assert again.grep_written == 1
    assert _held(graph, ws).keys() == _files_now(root)
    assert [(h.file, h.line) for h in grep("edited again", workspace=ws, graph=graph).hits] == \
        [("pkg/app.py", 19), ("pkg/util.py", 4)]


def test_a_run_waits_for_another_writer_of_the_store(graph, indexed):
    """Grep rows of every workspace share one SQLite file: a run whose grep rows find it
    locked longer than the store's usual busy timeout (another workspace's large build on a
    loaded machine) waits for the lock instead of failing."""
    root, ws = indexed
    (root / "pkg" / "util.py").write_text(UTIL + "\nWAITED = 'for the lock'\n")
    other = sqlite3.connect(db.store_path(get_settings()), isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    release = threading.Timer(db.BUSY_TIMEOUT_MS / 1000 + 2, other.execute, ("COMMIT",))
    release.start()
    try:
        summary = index_symbols(root, workspace=ws, jobs=1)
    finally:
        release.join()
        other.close()
    assert summary.grep_written == 1
    assert grep("for the lock", workspace=ws, graph=graph).total == 1


def test_an_edit_writes_its_grep_rows_beside_the_graph_commit(graph, indexed, monkeypatch):
    """The shared store can keep a grep write waiting (another writer's lock, a checkpoint):
    an edit's graph is committed without waiting for its grep rows, which the run still
    writes before it returns."""
    root, ws = indexed
    (root / "pkg" / "util.py").write_text(UTIL + "\nBESIDE = 'the commit'\n")
    committed = threading.Event()
    real_commit, real_sync = GraphWriter.commit, pipeline.sync_grep

    def commit(self):
        real_commit(self)
        committed.set()

    def sync_grep_after_the_commit(*args):
        # A run that waited for its grep rows before committing would time out here.
        if not committed.wait(10):
            raise AssertionError("the graph waited for the grep rows")
        return real_sync(*args)

    monkeypatch.setattr(GraphWriter, "commit", commit)
    monkeypatch.setattr(pipeline, "sync_grep", sync_grep_after_the_commit)
    summary = index_symbols(root, workspace=ws, jobs=1)
    assert summary.parsed == 1 and summary.grep_written == 1
    assert grep("the commit", workspace=ws, graph=graph).total == 1


def _fail(*args, **kwargs):
    raise RuntimeError("the store went away")


def test_rows_lost_from_the_store_come_back_on_a_run_with_nothing_else_to_do(graph, indexed):
    root, ws = indexed
    index = GrepIndex(settings=get_settings())
    index.drop(graph.uri, ws)
    index.close()
    summary = index_symbols(root, workspace=ws, jobs=1)
    assert summary.parsed == 0 and summary.grep_written == 2
    assert grep("Accept-Language", workspace=ws, graph=graph).hits[0].symbol == "pkg/app.py#Client.fetch"


def _as_a_trigram_store(graph, ws: str) -> None:
    """The workspace's rows as a store written before the word index held them."""
    index = GrepIndex(settings=get_settings())
    ws_id = index.workspace(graph.uri, ws).id
    table = f"grep_text_{ws_id}"
    with index.conn:
        rows = index.conn.execute(f"SELECT rowid, text FROM {table}").fetchall()
        index.conn.execute(f"DROP TABLE {table}")
        index.conn.execute(f"DROP TABLE grep_terms_{ws_id}")
        index.conn.execute(f"CREATE VIRTUAL TABLE {table} USING fts5(text, tokenize = 'trigram', detail = 'none')")
        index.conn.executemany(f"INSERT INTO {table} (rowid, text) VALUES (?, ?)", [tuple(r) for r in rows])
        index.conn.execute("UPDATE grep_workspaces SET format = 1 WHERE id = ?", (ws_id,))
    index.close()


def test_a_store_of_the_trigram_format_answers_right_until_a_run_rewrites_it(graph, indexed):
    root, ws = indexed
    _as_a_trigram_store(graph, ws)
    for pattern, regex, ignore_case in [("APP_TIMEOUT", False, False), ("accept-language", False, True),
                                        (r"(get|fetch)\(", True, False), ("headers)", False, False)]:
        result = grep(pattern, workspace=ws, regex=regex, ignore_case=ignore_case, limit=100, graph=graph)
        assert [(h.file, h.line) for h in result.hits] == _oracle(root, pattern, regex=regex, ignore_case=ignore_case)
    summary = index_symbols(root, workspace=ws, jobs=1)
    assert summary.parsed == 0 and summary.grep_written == 2
    index = GrepIndex(settings=get_settings())
    try:
        assert index.workspace(graph.uri, ws).format == grep_index.TEXT_FORMAT
    finally:
        index.close()
    assert [(h.file, h.line) for h in grep("Accept-Language", workspace=ws, graph=graph).hits] == [("pkg/app.py", 9)]


def test_cli_prints_lines_and_json(graph, indexed):
    _, ws = indexed
    text = run_cli("grep", "APP_TIMEOUT", "-w", ws, "--paths", "pkg/*")
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines() == [
        'pkg/app.py:4: TIMEOUT = os.environ.get("APP_TIMEOUT", "30")    [pkg/app.py#TIMEOUT]',
        'pkg/util.py:2:     return int(os.environ.get("APP_TIMEOUT", "30"))    [pkg/util.py#timeout]',
        "2 matching lines",
    ]
    as_json = run_cli("grep", r"def \w+\(self", "--regex", "-w", ws, "--limit", "1", "--json")
    body = json.loads(as_json.stdout)
    assert (body["total"], body["truncated"], body["hits"][0]["symbol"]) == (2, True, "pkg/app.py#Client.fetch")
    bad = run_cli("grep", "(", "--regex", "-w", ws)
    assert bad.returncode == 2 and "invalid regular expression '('" in bad.stderr


def test_a_nul_past_the_binary_sniff_is_kept_in_the_text(graph, workspace, tmp_path):
    # Rows go to SQLite as JSON, whose strings end at an escaped NUL: such chunks go alone.
    root = tmp_path / "src"
    root.mkdir()
    (root / "late_nul.py").write_text("x = 1\n" * 2000 + "MARK = '\0'\n")
    index_symbols(root, workspace=workspace, jobs=1)
    (hit,) = grep("MARK", workspace=workspace, graph=graph).hits
    assert (hit.file, hit.line, hit.text) == ("late_nul.py", 2001, "MARK = '\0'")
