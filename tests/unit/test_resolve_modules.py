"""Modules used as values: ``mod.f()``, ``mod.Class()``, ``class X(mod.Base)`` and names a
package re-exports resolve to the defining symbol, in the workspace or outside it."""

from __future__ import annotations

import pytest

from indexers.extract import extract_file
from indexers.languages import language_for_path
from indexers.resolve import SymbolTable, affected_files, resolve_all, resolve_file
from tests.unit.symbols_helpers import incremental_equals_clean, targets_by_source


def _table(files: dict[str, str]) -> SymbolTable:
    return SymbolTable(extract_file(p, src.encode(), language_for_path(p).name) for p, src in files.items())


def _edges(files: dict[str, str], rel: str = "CALLS") -> dict[str, dict[str, tuple[str, float]]]:
    return targets_by_source(resolve_all(_table(files))[0], rel)


_UTIL = "def now():\n    return 1\n\n\nclass Base:\n    pass\n"
_APP = "from pkg import util\n\n\ndef f():\n    return util.now()\n\n\nclass X(util.Base):\n    pass\n"


@pytest.mark.parametrize("root", ["", "src/"])
@pytest.mark.parametrize("init", [True, False], ids=["package", "namespace-package"])
def test_a_module_imported_from_its_package_resolves_in_the_workspace(root, init):
    files = {f"{root}pkg/util.py": _UTIL, f"{root}pkg/app.py": _APP}
    if init:
        files[f"{root}pkg/__init__.py"] = ""
    assert _edges(files)[f"{root}pkg/app.py#f"] == {f"{root}pkg/util.py#now": ("import", 1.0)}
    assert _edges(files, "INHERITS")[f"{root}pkg/app.py#X"] == {f"{root}pkg/util.py#Base": ("import", 1.0)}


_NAMESPACE = {  # PEP 420: no __init__.py anywhere
    "src/pkg/mod.py": "def f():\n    pass\n\n\nclass C:\n    pass\n\n\nclass Base:\n    pass\n",
    "src/pkg/sub/inner.py": "def g():\n    pass\n",
    "src/pkg/app.py": (
        "from pkg import mod\nfrom pkg import sub\nimport pkg.mod as m\nimport pkg.sub.inner\nfrom . import mod as rel\n\n\n"
        "def a():\n    mod.f()\n    mod.C()\n    m.f()\n    pkg.sub.inner.g()\n    rel.f()\n\n\n"
        "def b():\n    sub.inner.g()\n\n\nclass X(mod.Base):\n    pass\n"
    ),
}


def test_namespace_packages_resolve_module_attributes_classes_and_bases():
    calls = _edges(_NAMESPACE)
    assert calls["src/pkg/app.py#a"] == {
        "src/pkg/mod.py#f": ("import", 1.0),
        "src/pkg/mod.py#C": ("import", 1.0),
        "src/pkg/sub/inner.py#g": ("import", 1.0),
    }
    assert calls["src/pkg/app.py#b"] == {"src/pkg/sub/inner.py#g": ("import", 1.0)}
    assert _edges(_NAMESPACE, "INHERITS")["src/pkg/app.py#X"] == {"src/pkg/mod.py#Base": ("import", 1.0)}


def test_a_namespace_package_has_no_file_to_import():
    imports = _edges(_NAMESPACE, "IMPORTS")["src/pkg/app.py"]
    assert set(imports) == {"src/pkg/mod.py", "src/pkg/sub/inner.py"}


def test_what_a_namespace_package_lacks_in_the_workspace_is_outside():
    """``google/cloud/`` is shared by several distributions; only ``storage`` is here."""
    files = {
        "google/cloud/storage/__init__.py": "from .client import Client\n",
        "google/cloud/storage/client.py": "class Client:\n    pass\n",
        "app.py": (
            "from google.cloud import storage, _helpers\nimport google.cloud\n\n\n"
            "def f():\n    storage.Client()\n    _helpers.to_bytes()\n    google.cloud.exceptions.from_http()\n"
        ),
    }
    assert _edges(files)["app.py#f"] == {
        "google/cloud/storage/client.py#Client": ("import", 1.0),
        "ext:google.cloud._helpers#to_bytes": ("external", 1.0),
        "ext:google.cloud.exceptions#from_http": ("external", 1.0),
    }


_CHECKS = {
    "pkg/__init__.py": "",
    "pkg/checks/__init__.py": (
        "from .messages import Error, Warning\nfrom .registry import *\n\n__all__ = ['Error', 'register']\n"
    ),
    "pkg/checks/messages.py": "class Error:\n    pass\n\n\nclass Warning:\n    pass\n",
    "pkg/checks/registry.py": "__all__ = ['register']\n\n\ndef register():\n    pass\n\n\ndef hidden():\n    pass\n",
    "pkg/app.py": (
        "from pkg import checks\n\n\ndef a():\n    checks.Error()\n    checks.register()\n\n\n"
        "def b():\n    checks.hidden()\n\n\nclass Y(checks.Error):\n    pass\n"
    ),
    "pkg/star.py": "from pkg.checks import *\n\n\ndef c():\n    register()\n    Error()\n    Warning()\n",
}


def test_names_a_package_re_exports_by_import_and_by_star_import():
    calls = _edges(_CHECKS)
    assert calls["pkg/app.py#a"] == {
        "pkg/checks/messages.py#Error": ("import", 1.0),
        "pkg/checks/registry.py#register": ("import", 1.0),
    }
    assert _edges(_CHECKS, "INHERITS")["pkg/app.py#Y"] == {"pkg/checks/messages.py#Error": ("import", 1.0)}


def test_all_limits_what_a_star_import_gives():
    calls = _edges(_CHECKS)
    # registry's __all__ leaves `hidden` out of the package: no confident edge to it
    assert all(conf < 1.0 for dst, (_, conf) in calls.get("pkg/app.py#b", {}).items())
    # the package's __all__ gives Error and register, not Warning (the builtin then)
    assert calls["pkg/star.py#c"] == {
        "pkg/checks/registry.py#register": ("import", 1.0),
        "pkg/checks/messages.py#Error": ("import", 1.0),
    }


def test_an_all_that_is_not_a_literal_list_does_not_limit_a_star_import():
    files = {
        "pkg/__init__.py": "from .fields import *\nfrom . import fields\n\n__all__ = ['Model']\n__all__ += fields.__all__\n",
        "pkg/fields.py": "__all__ = ['CharField']\n\n\nclass CharField:\n    pass\n",
        "app.py": "from pkg import *\n\n\ndef f():\n    CharField()\n",
    }
    assert _edges(files)["app.py#f"] == {"pkg/fields.py#CharField": ("import", 1.0)}


def test_of_two_star_imports_giving_a_name_the_last_one_binds_it():
    files = {
        "pkg/__init__.py": "from .a import *\nfrom .b import *\n",
        "pkg/a.py": "def f():\n    pass\n",
        "pkg/b.py": "def f():\n    pass\n",
        "app.py": "import pkg\n\n\ndef g():\n    pkg.f()\n",
    }
    assert _edges(files)["app.py#g"] == {"pkg/b.py#f": ("import", 1.0)}


def test_a_same_named_module_elsewhere_does_not_steal_an_import():
    files = {
        "app/main.py": "import util\nfrom helpers import clock\n\n\ndef f():\n    util.now()\n    clock.tick()\n",
        "tests/unit/util.py": "def now():\n    pass\n",
        "tests/unit/helpers/clock.py": "def tick():\n    pass\n",
        "tests/unit/test_x.py": "import util\n\n\ndef test():\n    util.now()\n",
    }
    calls = _edges(files)
    # neither is on the importer's sys.path: outside the workspace
    assert calls["app/main.py#f"] == {"ext:util#now": ("external", 1.0), "ext:helpers.clock#tick": ("external", 1.0)}
    # next to the importer it is (the test's directory is on sys.path when it runs)
    assert calls["tests/unit/test_x.py#test"] == {"tests/unit/util.py#now": ("import", 1.0)}


def test_java_static_imports_of_members_and_nested_classes():
    files = {
        "src/a/b/C.java": "package a.b;\npublic class C {\n  public static int m() { return 1; }\n  public static int n() { return 2; }\n}\n",
        "src/a/b/D.java": "package a.b;\npublic class D {\n  public static class Inner {\n    public static void k() {}\n    public static void j() {}\n  }\n}\n",
        "src/x/Use.java": (
            "package x;\nimport static a.b.C.m;\nimport static a.b.C.*;\nimport static a.b.D.Inner.k;\n"
            "import static a.b.D.Inner.*;\nimport a.b.D.Inner;\n"
            "public class Use {\n  void f() { m(); n(); k(); j(); Inner.k(); }\n}\n"
        ),
    }
    assert _edges(files)["src/x/Use.java#Use.f"] == {
        "src/a/b/C.java#C.m": ("import", 1.0),
        "src/a/b/C.java#C.n": ("import", 1.0),
        "src/a/b/D.java#D.Inner.k": ("import", 1.0),
        "src/a/b/D.java#D.Inner.j": ("import", 1.0),
    }


def test_java_fully_qualified_names_resolve_through_their_packages():
    files = {
        "src/a/b/C.java": "package a.b;\npublic class C {\n  public static int n() { return 2; }\n}\n",
        "src/x/Use.java": "package x;\npublic class Use {\n  void g() { a.b.C.n(); java.util.Objects.hash(1); }\n}\n",
    }
    assert _edges(files)["src/x/Use.java#Use.g"] == {"src/a/b/C.java#C.n": ("import", 1.0)}


def test_rust_module_paths_and_pub_use_re_exports():
    files = {
        "src/lib.rs": "pub mod a;\npub mod b;\npub mod tools;\npub mod user;\npub use a::helper;\npub use b::*;\n",
        "src/a/mod.rs": "pub mod inner;\npub fn helper() {}\n",
        "src/a/inner.rs": "pub fn deep() {}\n",
        "src/b.rs": "pub fn bee() {}\n",
        "src/tools.rs": "pub mod prelude {\n  pub fn tool() {}\n}\n",
        "src/user.rs": (
            "use crate::a::inner;\nuse crate::tools::prelude::*;\n\npub fn run() {\n"
            "  inner::deep();\n  crate::helper();\n  crate::bee();\n  tool();\n}\n"
        ),
    }
    assert _edges(files)["src/user.rs#run"] == {
        "src/a/inner.rs#deep": ("import", 1.0),
        "src/a/mod.rs#helper": ("import", 1.0),  # pub use a::helper
        "src/b.rs#bee": ("import", 1.0),  # pub use b::*
        "src/tools.rs#prelude.tool": ("import", 1.0),  # a glob import of an inline module
    }


@pytest.mark.parametrize("path, new", [
    ("pkg/checks/__init__.py", None),  # the re-exporting package goes
    ("pkg/checks/__init__.py", "from .messages import Error\n"),  # re-exports less
    ("pkg/checks/registry.py", None),  # the module re-exported by star goes
    ("pkg/checks/registry.py", "__all__ = ['register', 'hidden']\n\n\ndef register():\n    pass\n\n\ndef hidden():\n    pass\n"),
])
def test_incremental_equals_clean_when_re_exports_change(path, new):
    incremental_equals_clean(_CHECKS, path, new)


@pytest.mark.parametrize("path", ["src/pkg/mod.py", "src/pkg/sub/inner.py"])
def test_incremental_equals_clean_when_a_module_of_a_namespace_package_comes_and_goes(path):
    without = {k: v for k, v in _NAMESPACE.items() if k != path}
    assert "src/pkg/app.py" in incremental_equals_clean(without, path, _NAMESPACE[path])
    assert "src/pkg/app.py" in incremental_equals_clean(_NAMESPACE, path, None)


def test_incremental_equals_clean_when_the_re_exporting_file_appears():
    files = dict(_CHECKS)
    init = files.pop("pkg/checks/__init__.py")
    table_files = dict(files)
    table = _table(table_files)
    before = {p: set(resolve_file(e, table)) for p, e in table.files.items()}
    ext = extract_file("pkg/checks/__init__.py", init.encode(), "python")
    table.add_file(ext)
    affected = affected_files(["pkg/checks/__init__.py"], {}, {"pkg/checks/__init__.py": ext}, table)
    incremental = {p: e for p, e in before.items() if p not in affected}
    incremental.update({p: set(resolve_file(table.files[p], table)) for p in affected})
    assert incremental == {p: set(resolve_file(e, table)) for p, e in _table(_CHECKS).files.items()}
    assert "pkg/app.py#a" in {e.src for p in affected for e in resolve_file(table.files[p], table)}


def test_a_package_directory_is_not_on_the_path_of_its_own_modules():
    # `import json` in flask/config.py is the standard library's json, not flask/json/.
    files = {
        "src/flask/__init__.py": b"",
        "src/flask/json/__init__.py": b"def loads(s):\n    return s\n",
        "src/flask/config.py": b"import json\n\ndef load(s):\n    return json.loads(s)\n",
        "scripts/helper.py": b"def loads(s):\n    return s\n",
        "scripts/run.py": b"import helper\n\ndef main():\n    helper.loads('x')\n",
    }
    table = SymbolTable(extract_file(p, d, "python") for p, d in files.items())
    edges, _ = resolve_all(table)
    calls = {(e.src, e.dst) for e in edges if e.type == "CALLS"}
    assert ("src/flask/config.py#load", "ext:json#loads") in calls
    assert not any(dst.startswith("src/flask/json/") for _, dst in calls)
    assert ("scripts/run.py#main", "scripts/helper.py#loads") in calls  # a script's directory is


_SHADOWED = {  # the package's import of a function rebinds the name of its submodule
    "tasks/__init__.py": "from .actor import Actor, actor\n",
    "tasks/actor.py": "class Actor:\n    def send(self):\n        pass\n\n\ndef actor(fn=None):\n    return Actor()\n",
    "tasks/speedups.py": "def run():\n    pass\n",
    "app.py": "import tasks\n\n\ndef main():\n    tasks.actor(main).send()\n\n\ndef fast():\n    tasks.speedups.run()\n",
}


def test_a_package_import_of_a_submodules_name_is_the_packages_attribute():
    calls = _edges(_SHADOWED)
    assert calls["app.py#main"] == {"tasks/actor.py#actor": ("import", 1.0), "tasks/actor.py#Actor.send": ("type", 1.0)}


def test_an_import_that_may_be_the_submodule_keeps_the_submodule():
    # `try: import _speedups as speedups except ImportError: from . import speedups`
    files = dict(_SHADOWED)
    files["tasks/__init__.py"] = ("try:\n    import _speedups as speedups\nexcept ImportError:\n"
                                  "    from . import speedups\nfrom .actor import actor\n")
    assert _edges(files)["app.py#fast"] == {"tasks/speedups.py#run": ("import", 1.0)}


@pytest.mark.parametrize("new", ["", "from .actor import Actor\n", None])
def test_incremental_equals_clean_when_the_package_stops_importing_the_name(new):
    incremental_equals_clean(_SHADOWED, "tasks/__init__.py", new)


def test_one_module_imported_in_two_functions_is_one_binding():
    files = {
        "mako/__init__.py": "",
        "mako/template.py": "class Template:\n    def render(self):\n        pass\n",
        "mako/errors.py": (
            "def first():\n    import mako.template\n    return mako.template.Template()\n\n\n"
            "def second():\n    import mako.template\n    return mako.template.Template()\n"
        ),
        "app.py": "from mako import errors\n\n\ndef main():\n    errors.second().render()\n",
    }
    assert _edges(files)["app.py#main"]["mako/template.py#Template.render"] == ("type", 1.0)
