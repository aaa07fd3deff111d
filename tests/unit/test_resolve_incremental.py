"""Incremental resolution: after an edit, re-resolving only `affected_files` gives the same
graph as resolving everything again."""

from __future__ import annotations

import pytest

from indexers.extract import extract_file
from indexers.resolve import SymbolTable, affected_files, resolve_file

from symbols_helpers import FIXTURES, extract_tree


def _edges_by_file(table: SymbolTable) -> dict[str, set[tuple]]:
    out = {}
    for path, ext in table.files.items():
        out[path] = {(e.src, e.dst, e.type, e.reason, e.confidence) for e in resolve_file(ext, table)}
    return out


def _apply(lang: str, changes: dict[str, bytes | None]):
    """Apply edits (None deletes) to a fixture project; return what a full run and an
    incremental run would hold, and the affected set."""
    exts = extract_tree(FIXTURES / lang)
    table = SymbolTable(exts.values())
    before = _edges_by_file(table)
    old, new = {}, {}
    for path, data in changes.items():
        old_ext = table.remove_file(path)
        if old_ext is not None:
            old[path] = old_ext
        if data is not None:
            new[path] = extract_file(path, data, old_ext.lang if old_ext else lang)
            table.add_file(new[path])
    affected = affected_files(changes, old, new, table)
    incremental = {p: e for p, e in before.items() if p in table.files and p not in affected}
    for p in affected:
        incremental[p] = {(e.src, e.dst, e.type, e.reason, e.confidence) for e in resolve_file(table.files[p], table)}
    full = _edges_by_file(table)
    return full, incremental, affected


def _read(lang: str, path: str) -> bytes:
    return (FIXTURES / lang / path).read_bytes()


def test_body_only_edit_affects_only_the_file():
    src = _read("python", "pkg/util.py").replace(b"return 1", b"return 41 + 1")
    full, inc, affected = _apply("python", {"pkg/util.py": src})
    assert affected == {"pkg/util.py"}
    assert inc == full


def test_renaming_a_callee_re_resolves_its_callers():
    src = _read("python", "pkg/util.py").replace(b"def helper", b"def helper_renamed")
    full, inc, affected = _apply("python", {"pkg/util.py": src})
    assert {"pkg/util.py", "app.py", "pkg/models.py", "pkg/sub/deep.py"} <= affected
    assert inc == full
    # the caller's edge moved: app.py's u.helper() no longer resolves into util.py
    assert not any(dst == "pkg/util.py#helper" for _, dst, *_ in full["app.py"])


def test_adding_a_function_turns_candidates_into_more_candidates():
    src = b"def helper():\n    return 3\n"
    full, inc, affected = _apply("python", {"pkg/third.py": src})
    assert "app.py" in affected  # app.ambiguous() calls helper()
    assert inc == full
    amb = {(d, c) for s, d, t, r, c in full["app.py"] if s == "app.py#ambiguous"}
    assert amb == {("pkg/util.py#helper", 0.3333), ("pkg/other.py#helper", 0.3333), ("pkg/third.py#helper", 0.3333)}


def test_deleting_a_file_drops_edges_into_it_and_re_resolves_importers():
    full, inc, affected = _apply("python", {"pkg/other.py": None})
    assert "pkg/other.py" not in affected
    assert "app.py" in affected
    assert inc == full
    assert not any(dst.startswith("pkg/other.py") for edges in full.values() for _, dst, *_ in edges)


def test_changing_a_base_class_re_resolves_subclass_files():
    src = _read("python", "pkg/models.py").replace(b"class Model(Base):", b"class Model:")
    full, inc, affected = _apply("python", {"pkg/models.py": src})
    assert "pkg/sub/deep.py" in affected
    assert inc == full


@pytest.mark.parametrize(
    "lang,path,old,new",
    [
        ("javascript", "lib/shapes.js", b"export function helper()", b"export function helper2()"),
        ("go", "util/util.go", b"func Helper()", b"func Helper2()"),
        ("java", "src/main/java/com/acme/shapes/Base.java", b"public String describe()", b"public String describe2()"),
        ("rust", "src/util.rs", b"pub fn helper()", b"pub fn helper2()"),
        ("c", "src/util.c", b"double square(", b"double square2("),
        ("cpp", "src/util.cpp", b"int twice(", b"int twice2("),
    ],
)
def test_renames_in_every_language_match_a_full_run(lang, path, old, new):
    src = _read(lang, path)
    assert old in src
    full, inc, affected = _apply(lang, {path: src.replace(old, new)})
    assert path in affected and len(affected) > 1
    assert inc == full


def test_fresh_table_from_saved_extractions_finds_importers_of_a_re_export_change():
    """An incremental run rebuilds the table from saved extractions (nothing resolved yet)."""
    exts = extract_tree(FIXTURES / "python")
    table = SymbolTable(exts.values())
    before = _edges_by_file(table)
    table = SymbolTable(exts.values())  # as a new process would
    path = "pkg/__init__.py"
    new = extract_file(path, b"from .util import fmt as Model\n", "python")
    old = table.remove_file(path)
    table.add_file(new)
    affected = affected_files([path], {path: old}, {path: new}, table)
    assert "app.py" in affected  # `from pkg import Model` now means something else
    full = _edges_by_file(table)
    assert full["app.py"] != before["app.py"]
    assert ("app.py#main", "pkg/util.py#fmt", "CALLS", "import", 1.0) in full["app.py"]
