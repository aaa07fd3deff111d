"""The incremental index state must give back exactly what extraction produced."""

from __future__ import annotations

import os
from pathlib import Path

from indexers.extract import extract_file
from indexers.languages import language_for_path
from graphsvc.indexing.state import (
    IndexState, close_kept, decode, encode, full_run_reason, load_state, save_state,
)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "symbols"


def _extractions():
    for dirpath, _, names in os.walk(FIXTURES):
        for name in sorted(names):
            path = Path(dirpath, name)
            rel = path.relative_to(FIXTURES).as_posix()
            spec = language_for_path(rel)
            if spec is not None:
                yield extract_file(rel, path.read_bytes(), spec.name)


def test_every_fixture_extraction_round_trips():
    exts = list(_extractions())
    assert len(exts) > 20
    for ext in exts:
        assert decode(encode(ext)) == ext, ext.path


def test_saved_rows_load_back_and_a_broken_file_means_a_full_run(tmp_path):
    path = tmp_path / "state.sqlite3"
    exts = {e.path: e for e in _extractions()}
    save_state(path, "t1", {p: ("h-" + p, encode(e)) for p, e in exts.items()}, [], full=True, symbols=7)
    state = load_state(path)
    assert state.token == "t1" and state.symbols == 7
    some = next(iter(exts))
    assert state.hashes[some] == "h-" + some and state.extraction(some) == exts[some]
    save_state(path, "t2", {}, [some], full=False, symbols=6)
    assert some not in load_state(path).hashes
    close_kept(path)  # as a process started after the file broke
    path.write_bytes(b"not a database" * 100)
    assert load_state(path) == IndexState()
    save_state(path, "t3", {some: ("h", encode(exts[some]))}, [], full=True, symbols=1)
    assert load_state(path).token == "t3"


def test_the_state_remembers_its_indexer_and_says_why_a_run_is_full(tmp_path):
    path = tmp_path / "state.sqlite3"
    save_state(path, "t1", {}, [], full=True, symbols=0, indexer="v1")
    state = load_state(path)
    assert state.indexer == "v1"
    assert full_run_reason(state, "t1", "v1") is None
    assert full_run_reason(state, "t1", "v2") == "indexer changed"
    assert full_run_reason(state, "other", "v1") == "graph changed"
    assert full_run_reason(IndexState(), None, "v1") == "first run"
    assert full_run_reason(IndexState(), "t1", "v1") == "no index state"
    # A state written before fingerprints existed is another indexer's.
    save_state(path, "t2", {}, [], full=True, symbols=0)
    assert full_run_reason(load_state(path), "t2", "v1") == "indexer changed"


def test_tree_rows_load_back_and_a_torn_file_means_none(tmp_path):
    from graphsvc.indexing.state import load_tree, save_tree, tree_path

    path = tmp_path / "state.sqlite3"
    assert load_tree(path) == (None, {})
    rows = {"/": {"labels": ["Workspace"], "root": "/r"}, "a.py": {"labels": ["File"], "hash": "h", "size": 3}}
    save_tree(path, "t1", rows)
    assert load_tree(path) == ("t1", rows)
    assert [p.name for p in tmp_path.iterdir()] == [tree_path(path).name]  # no partial file left
    tree_path(path).write_bytes(tree_path(path).read_bytes()[:20])
    assert load_tree(path) == (None, {})


def test_tree_rows_a_sync_changed_are_appended_while_the_file_is_this_process_s(tmp_path):
    from graphsvc.indexing.state import load_tree, save_tree, tree_path

    path = tmp_path / "state.sqlite3"
    rows = {"/": {"labels": ["Workspace"]}, "a.py": {"labels": ["File"], "hash": "h"}, "b.py": {"labels": ["File"]}}
    save_tree(path, "t1", rows)
    whole = tree_path(path).stat().st_size
    save_tree(path, "t2", {}, {"a.py": {"labels": ["File"], "hash": "h2"}}, ["b.py"])
    assert tree_path(path).stat().st_size > whole  # appended, not written again
    assert load_tree(path) == ("t2", {"/": {"labels": ["Workspace"]}, "a.py": {"labels": ["File"], "hash": "h2"}})
    appended = tree_path(path).read_bytes()
    tree_path(path).write_bytes(appended[:-3])  # a crash tore the last record: the token before it
    assert load_tree(path)[0] == "t1"
    # Written by someone else since (here: torn), the file is written whole again.
    save_tree(path, "t3", {"/": {"labels": ["Workspace"]}}, {}, ["a.py"])
    assert load_tree(path) == ("t3", {"/": {"labels": ["Workspace"]}})
