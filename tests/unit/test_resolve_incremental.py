"""Incremental resolution: after an edit, re-resolving only `affected_files` gives the same
graph as resolving everything again."""

from __future__ import annotations

import pytest

from indexers.extract import extract_file
from indexers.resolve import SymbolTable, affected_files, resolve_file

from tests.unit.symbols_helpers import FIXTURES, extract_tree


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


def _clean_edges(exts) -> dict[str, set[tuple]]:
    """A clean run: a new table, filled in another order than the edited one."""
    return _edges_by_file(SymbolTable(sorted(exts, key=lambda e: e.path, reverse=True)))


def _incremental_equals_clean(files: dict[str, bytes], lang: str, path: str, data: bytes | None) -> set[str]:
    """Index ``files``, then create, replace or (``data`` None) delete ``path``; the edges of
    the unaffected files kept plus those re-resolved must be what a clean run gives."""
    exts = {p: extract_file(p, d, lang) for p, d in files.items()}
    table = SymbolTable(exts.values())
    before = _edges_by_file(table)
    old = table.remove_file(path)
    new = extract_file(path, data, lang) if data is not None else None
    if new is not None:
        table.add_file(new)
        exts[path] = new
    else:
        exts.pop(path)
    affected = affected_files([path], {path: old} if old else {}, {path: new} if new else {}, table)
    incremental = {p: e for p, e in before.items() if p not in affected and p in table.files}
    incremental.update({p: {(e.src, e.dst, e.type, e.reason, e.confidence) for e in resolve_file(table.files[p], table)}
                        for p in affected})
    assert incremental == _clean_edges(exts.values())
    return affected


def test_a_package_appearing_re_resolves_unchanged_importers_of_the_modules_below_it():
    """``app/inner/lib.py`` is the top-level module ``lib`` while ``app/inner`` has no indexed
    ``__init__.py`` (an empty one is not indexed); ``user.py`` does not change (flask 3.0.3).
    ``near.py``'s ``from . import lib`` names the same file either way (``app/inner`` is a
    namespace package until then)."""
    files = {
        "app/__init__.py": b"VERSION = 1\n",
        "app/inner/lib.py": b"def helper():\n    return 2\n",
        "lib.py": b"def helper():\n    return 1\n",
        "user.py": b"import lib\n\n\ndef run():\n    return lib.helper()\n",
        "app/inner/near.py": b"from . import lib\n",
    }
    init = "app/inner/__init__.py"
    affected = _incremental_equals_clean(files, "python", init, b"def added():\n    return 1\n")
    assert "user.py" in affected
    files[init] = b"def added():\n    return 1\n"
    assert "user.py" in _incremental_equals_clean(files, "python", init, None)


def test_a_crate_root_appearing_re_resolves_paths_from_unchanged_files():
    files = {
        "src/util.rs": b"pub fn helper() -> i32 { 1 }\n",
        "src/app.rs": b"pub fn run() -> i32 { crate::src::util::helper() }\n",
    }
    assert "src/app.rs" in _incremental_equals_clean(files, "rust", "lib.rs", b"pub mod src;\n")


def test_resolution_does_not_depend_on_the_order_files_entered_the_table():
    exts = extract_tree(FIXTURES / "python")
    forward = _edges_by_file(SymbolTable(exts.values()))
    assert forward == _clean_edges(exts.values())


def test_an_include_matching_two_headers_picks_the_same_one_in_any_table_order():
    """`#include "util.h"` with a/util.h and b/util.h: which one was found depended on the order
    the files entered the table, and an edited file enters last."""
    files = {
        "a/util.h": b"int helper(void);\n",
        "b/util.h": b"int helper(void);\n",
        "a/util.c": b"int helper(void) { return 1; }\n",
        "b/util.c": b"int helper(void) { return 2; }\n",
        "src/main.c": b'#include "util.h"\nint main(void) { return helper(); }\n',
    }
    exts = [extract_file(p, data, "c") for p, data in files.items()]
    forward, backward = _edges_by_file(SymbolTable(exts)), _clean_edges(exts)
    assert forward["src/main.c"] == backward["src/main.c"]


@pytest.mark.parametrize("lang,files,path,data", [
    ("cpp", {
        "include/shape.hpp": b"namespace geo {\nclass Circle {\npublic:\n  void grow();\n  void twice() { grow(); }\n};\n}\n",
        "src/shape.cpp": b'#include "../include/shape.hpp"\n\nvoid geo::Circle::grow() {}\n',
    }, "src/shape.cpp", b"\nvoid geo::Circle::grow() {}\n"),
    ("rust", {
        "src/lib.rs": b"mod shape;\nmod extra;\n",
        "src/shape.rs": b"pub struct Circle {}\nimpl Circle {\n    pub fn twice(&self) { self.grow(); }\n}\n",
        "src/extra.rs": b"use crate::shape::Circle;\n\nimpl Circle {\n    pub fn grow(&self) {}\n}\n",
    }, "src/extra.rs", b"\nimpl Circle {\n    pub fn grow(&self) {}\n}\n"),
])
def test_members_defined_elsewhere_follow_the_imports_of_their_file(lang, files, path, data):
    """An out-of-line member belongs to the type its file's imports name; when only those
    imports change, the callers in the type's file must be resolved again."""
    affected = _incremental_equals_clean(files, lang, path, data)
    assert len(affected) > 1


def test_a_package_defining_a_submodule_s_name_re_resolves_its_importers():
    """``from .. import models`` binds the submodule until ``pkg/__init__.py`` defines
    ``models`` itself; then it binds that definition, in an incremental run as in a full one."""
    src = _read("python", "pkg/__init__.py") + b"\n\nclass models:\n    Model = None\n"
    full, inc, affected = _apply("python", {"pkg/__init__.py": src})
    assert "pkg/sub/deep.py" in affected
    assert inc == full
    assert not any(dst == "pkg/models.py#Model" for _, dst, *_ in full["pkg/sub/deep.py"])


def test_a_changed_result_or_field_re_resolves_the_files_calling_through_it():
    files = {
        "models.py": b"class A:\n    def run(self): pass\nclass B:\n    def run(self): pass\n"
                     b"def make():\n    return A()\nclass Car:\n    def __init__(self):\n        self.part = A()\n",
        "app.py": b"from models import make, Car\ndef f():\n    make().run()\n    Car().part.run()\n",
    }
    table = SymbolTable(extract_file(p, d, "python") for p, d in files.items())
    new = files["models.py"].replace(b"return A()", b"return B()").replace(b"self.part = A()", b"self.part = B()")
    old = table.remove_file("models.py")
    table.add_file(extract_file("models.py", new, "python"))
    affected = affected_files(["models.py"], {"models.py": old}, {"models.py": table.files["models.py"]}, table)
    assert affected == {"models.py", "app.py"}
    calls = {e.dst for e in resolve_file(table.files["app.py"], table) if e.type == "CALLS" and e.confidence == 1.0}
    assert "models.py#B.run" in calls and "models.py#A.run" not in calls


def test_a_new_top_level_variable_re_resolves_only_files_that_can_see_it():
    # No lookup by name alone finds a variable: files that mention `helper` but do not
    # import the package are left alone; importers of the package are re-resolved.
    src = _read("python", "pkg/sub/__init__.py") + b"\nhelper = 1\n"
    full, inc, affected = _apply("python", {"pkg/sub/__init__.py": src})
    assert affected == {"pkg/sub/__init__.py"}
    assert inc == full
    src = _read("python", "pkg/__init__.py") + b"\nhelper = 1\n"
    full, inc, affected = _apply("python", {"pkg/__init__.py": src})
    assert "app.py" in affected and "pkg/models.py" not in affected
    assert inc == full


def test_changed_arguments_re_resolve_only_callees_that_call_or_pass_the_parameter():
    files = {
        "a.py": b"def run(cb):\n    cb()\n\ndef idle(cb):\n    later(cb)\n",
        "b.py": b"def run(x):\n    return x\n",
        "d.py": b"def later(z):\n    return z\n",
        "c.py": b"from a import run\n\ndef h():\n    pass\n\ndef k():\n    pass\n\ndef f():\n    run(h)\n",
    }
    table = SymbolTable(extract_file(p, d, "python") for p, d in files.items())
    old = table.remove_file("c.py")
    table.add_file(extract_file("c.py", files["c.py"].replace(b"run(h)", b"run(k)"), "python"))
    affected = affected_files(["c.py"], {"c.py": old}, {"c.py": table.files["c.py"]}, table)
    # b.py's run only returns its parameter; a.py's idle passes its own on, but nobody
    # changed what idle gets, so d.py is not reached.
    assert affected == {"c.py", "a.py"}
    calls = {e.dst for e in resolve_file(table.files["a.py"], table) if e.type == "CALLS"}
    assert "c.py#k" in calls and "c.py#h" not in calls


def _edit_affects(files: dict[str, bytes], path: str, data: bytes) -> set[str]:
    table = SymbolTable(extract_file(p, d, "python") for p, d in files.items())
    old = table.remove_file(path)
    table.add_file(extract_file(path, data, "python"))
    return affected_files([path], {path: old}, {path: table.files[path]}, table)


def test_a_call_passing_nothing_new_to_a_callee_leaves_the_callee_s_file_alone():
    files = {
        "a.py": b"def run(cb):\n    cb()\n    later(cb)\n\ndef later(z):\n    z()\n",
        "c.py": b"from a import run\n\ndef h():\n    pass\n\ndef f():\n    run(h)\n",
    }
    # `s` holds nothing known (nobody calls g), and `obj().run(h)` reaches no parameter
    # followed: what run's and later's parameters hold is what it was.
    edited = files["c.py"] + b"\ndef g(s):\n    run(s)\n\ndef m(obj):\n    obj().run(h)\n"
    assert _edit_affects(files, "c.py", edited) == {"c.py"}
    # A new function passed on reaches run and, through it, later: both in a.py.
    edited = files["c.py"] + b"\ndef k():\n    pass\n\ndef g():\n    run(k)\n"
    assert _edit_affects(files, "c.py", edited) == {"c.py", "a.py"}


def test_a_file_s_own_indexes_outlive_other_files_edits_and_not_its_own():
    from indexers.resolve.parameters import parameters_of

    one = extract_file("a.py", b"def f(x): x()\n", "python")
    two = extract_file("b.py", b"def g(y): y()\n", "python")
    table = SymbolTable([one, two])
    kept = parameters_of(table, "a.py")
    table.add_file(extract_file("b.py", b"def g(z): z()\n", "python"))
    assert parameters_of(table, "a.py") is kept  # another file's edit: still a.py's
    table.add_file(extract_file("a.py", b"def f(w): w()\n", "python"))
    assert [p.name for p in parameters_of(table, "a.py")["a.py#f"]] == ["w"]
