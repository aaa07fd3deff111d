from indexers.extract import extract_file
from indexers.resolve import SymbolTable, resolve_all
from tests.unit.symbols_helpers import extract_tree, load_project

P = load_project("python")


def test_contains_file_to_top_level_and_type_to_member():
    e = P.edge("CONTAINS", "pkg/models.py", "pkg/models.py#Base")
    assert e is not None and (e.prov, e.reason) == ("EXTRACTED", "syntax")
    assert P.edge("CONTAINS", "pkg/models.py#Base", "pkg/models.py#Base.save") is not None
    assert P.edge("CONTAINS", "pkg/models.py", "pkg/models.py#Base.save") is None


def test_imports_to_files_and_external_modules():
    assert P.targets("IMPORTS", "app.py") == {
        "ext:os.path": ("external", 1.0),
        "pkg/util.py": ("import", 1.0),
        "pkg/other.py": ("import", 1.0),
        "pkg/__init__.py": ("import", 1.0),
    }
    # relative imports: `from ..util import helper`, `from .. import models`
    assert set(P.targets("IMPORTS", "pkg/sub/deep.py")) == {"pkg/util.py", "pkg/models.py"}


def test_calls_through_aliases_and_from_import_as():
    main = P.targets("CALLS", "app.py#main")
    assert main["pkg/util.py#helper"] == ("import", 1.0)  # import pkg.util as u; u.helper()
    assert main["pkg/other.py#helper"] == ("import", 1.0)  # from pkg.other import helper as other_helper
    assert main["pkg/models.py#Model"] == ("import", 1.0)  # re-exported by pkg/__init__.py
    assert main["ext:os.path#join"] == ("external", 1.0)


def test_same_named_functions_unqualified_call_becomes_candidates():
    assert P.targets("CALLS", "app.py#ambiguous") == {
        "pkg/util.py#helper": ("candidate", 0.5),
        "pkg/other.py#helper": ("candidate", 0.5),
    }


def test_a_redefinition_in_the_same_block_replaces_the_first():
    # def dup() twice at top level: the second one is what the name means once the module ran
    main = P.targets("CALLS", "app.py#main")
    assert main["app.py#dup@2"] == ("scope", 1.0) and "app.py#dup" not in main


def test_a_definition_bound_again_to_itself_through_calls_stays_the_target():
    # `X = wrap(X)` is a decorator applied by hand: callers of X reach the class or function;
    # a name bound to something else after its definition is either of them.
    source = b"""\
def _add_repr(cls, attrs=None):
    return cls

class Factory:
    def __init__(self, f): pass

Factory = _add_hash(
    _add_eq(_add_repr(Factory, attrs=1), attrs=1),
    attrs=1)

class K:
    def f(x): pass
    f = staticmethod(f)

    def g(self):
        self.f(1)

def use():
    return Factory(1)

def h(): pass
h = other(use)

def u():
    h()
"""
    ext = extract_file("m.py", source, "python")
    assert {s.id for s in ext.symbols} >= {"m.py#Factory@2", "m.py#h@2"}  # still nodes
    edges, _ = resolve_all(SymbolTable([ext]))
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in edges if e.type == "CALLS"}
    assert calls[("m.py#use", "m.py#Factory")] == ("scope", 1.0)
    assert ("m.py#use", "m.py#Factory@2") not in calls
    assert calls[("m.py#K.g", "m.py#K.f")] == ("self", 1.0)
    assert calls[("m.py#u", "m.py#h")] == ("candidate", 0.5)
    assert calls[("m.py#u", "m.py#h@2")] == ("candidate", 0.5)


def test_receiver_bound_by_a_class_call_is_resolved_through_its_type():
    # m = Model(); m.run(1): the local's only binding names the class (receivers of unknown
    # type stay below confidence 1: tests/unit/test_resolve_local_types.py)
    main = P.targets("CALLS", "app.py#main")
    runs = {k: v for k, v in main.items() if k.endswith(".run")}
    assert runs == {"pkg/models.py#Model.run": ("type", 1.0)}


def test_self_calls_and_inherited_methods_and_super():
    e = P.edge("CALLS", "pkg/models.py#Base.save", "pkg/models.py#Base.validate")
    assert (e.reason, e.confidence, e.prov) == ("self", 1.0, "EXTRACTED")
    assert P.targets("CALLS", "pkg/models.py#Model.run") == {
        "pkg/models.py#Base.save": ("self", 1.0),
        "pkg/models.py#Base.validate": ("self", 1.0),
    }
    # inherited across files through `from .. import models; class Child(models.Model)`
    e = P.edge("CALLS", "pkg/sub/deep.py#Child.run", "pkg/models.py#Base.save")
    assert (e.reason, e.confidence, e.prov) == ("self", 1.0, "INFERRED")


def test_nested_scope_and_relative_aliased_import():
    assert P.targets("CALLS", "pkg/sub/deep.py#Child.run")["pkg/sub/deep.py#Child.run.local"] == ("scope", 1.0)
    assert P.targets("CALLS", "pkg/sub/deep.py#Child.Inner.method") == {"pkg/util.py#helper": ("import", 1.0)}


def test_inheritance_within_and_across_files():
    e = P.edge("INHERITS", "pkg/models.py#Model", "pkg/models.py#Base")
    assert (e.prov, e.reason) == ("EXTRACTED", "syntax")
    e = P.edge("INHERITS", "pkg/sub/deep.py#Child", "pkg/models.py#Model")
    assert (e.prov, e.reason, e.confidence) == ("INFERRED", "import", 1.0)


def test_top_level_calls_come_from_the_file_and_builtins_are_counted():
    assert P.edge("CALLS", "app.py", "app.py#main").reason == "scope"
    assert not any(e.dst.endswith(("#print", "#len")) for e in P.edges)
    assert P.stats.builtin >= 3  # print, len, str, super


def test_name_bound_by_import_and_by_def_is_a_candidate_not_a_certainty():
    from indexers.extract import extract_file
    from indexers.resolve import SymbolTable, resolve_file

    src = b"try:\n    from _speedups import scan\nexcept ImportError:\n    def scan(x):\n        return x\n\n\ndef use():\n    return scan(1)\n"
    ext = extract_file("m.py", src, "python")
    calls = [e for e in resolve_file(ext, SymbolTable([ext])) if e.type == "CALLS"]
    assert [(e.src, e.dst, e.reason, e.confidence) for e in calls] == [("m.py#use", "m.py#scan", "candidate", 0.5)]


def test_parameters_and_local_variables_shadow_global_names():
    from indexers.extract import extract_file
    from indexers.resolve import SymbolTable, resolve_file

    src = (
        b"def helper():\n    pass\n\n\n"
        b"def run(callback, helper=None):\n"
        b"    callback()\n"
        b"    helper()\n"  # the parameter, not the function above
        b"    def callback2():\n        pass\n"
        b"    callback2()\n"
        b"    for item in []:\n        item.helper()\n"
        b"\n\ndef other():\n    helper()\n"
    )
    ext = extract_file("m.py", src, "python")
    assert [(c.name, c.local) for c in ext.calls] == [
        ("callback", True), ("helper", True), ("callback2", False), ("helper", True), ("helper", False)
    ]
    calls = {(e.src, e.dst, e.reason) for e in resolve_file(ext, SymbolTable([ext])) if e.type == "CALLS"}
    assert calls == {("m.py#run", "m.py#run.callback2", "scope"), ("m.py#other", "m.py#helper", "scope")}


def test_src_layout_package_imports_and_re_exports():
    from indexers.extract import extract_file
    from indexers.resolve import SymbolTable, resolve_all

    files = {
        "src/pkg/__init__.py": b"from .mod import f\n",
        "src/pkg/mod.py": b"def f():\n    pass\n",
        "tests/test_mod.py": b"from pkg import mod\nimport pkg\n\ndef t1():\n    mod.f()\n\ndef t2():\n    pkg.f()\n",
    }
    table = SymbolTable([extract_file(p, d, "python") for p, d in files.items()])
    edges, _ = resolve_all(table)
    got = {(e.type, e.src, e.dst, e.reason) for e in edges if e.type != "CONTAINS"}
    assert got == {
        ("IMPORTS", "src/pkg/__init__.py", "src/pkg/mod.py", "import"),
        ("IMPORTS", "tests/test_mod.py", "src/pkg/mod.py", "import"),
        ("IMPORTS", "tests/test_mod.py", "src/pkg/__init__.py", "import"),
        ("CALLS", "tests/test_mod.py#t1", "src/pkg/mod.py#f", "import"),
        ("CALLS", "tests/test_mod.py#t2", "src/pkg/mod.py#f", "import"),  # re-exported by __init__
    }


def test_a_name_the_package_defines_wins_over_a_submodule_of_that_name(tmp_path):
    """``from pkg import load`` gets the ``load`` that ``pkg/__init__.py`` defines, as Python's
    attribute lookup does, even when ``pkg/load.py`` exists (found in strawberry-graphql)."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("def load():\n    return 1\n")
    (tmp_path / "pkg" / "load.py").write_text("def other():\n    return 2\n")
    (tmp_path / "pkg" / "util.py").write_text("def helper():\n    return 3\n")
    (tmp_path / "app.py").write_text(
        "from pkg import load, util\n\n\ndef main():\n    load()\n    util.helper()\n"
    )
    exts = extract_tree(tmp_path)
    edges, _ = resolve_all(SymbolTable(exts.values()))
    calls = {e.dst: (e.reason, e.confidence) for e in edges if e.type == "CALLS" and e.src == "app.py#main"}
    assert calls == {"pkg/__init__.py#load": ("import", 1.0), "pkg/util.py#helper": ("import", 1.0)}


def test_raising_a_class_calls_it_and_re_raising_an_instance_does_not():
    table = SymbolTable([extract_file("m.py", (
        "class Error(Exception):\n"
        "    class Inner(Exception): pass\n"
        "def f():\n"
        "    raise Error\n"
        "def g():\n"
        "    raise Error.Inner from None\n"
        "def h(error):\n"
        "    raise error\n"
    ).encode(), "python")])
    calls: dict[str, dict] = {}
    for e in resolve_all(table)[0]:
        if e.type == "CALLS":
            calls.setdefault(e.src, {})[e.dst] = (e.reason, e.confidence)
    assert calls["m.py#f"] == {"m.py#Error": ("scope", 1.0)}
    assert calls["m.py#g"] == {"m.py#Error.Inner": ("scope", 1.0)}
    assert "m.py#h" not in calls


def _inherits(files: dict[str, str]) -> dict[str, dict[str, tuple[str, float]]]:
    table = SymbolTable([extract_file(p, s.encode(), "python") for p, s in files.items()])
    out: dict[str, dict] = {}
    for e in resolve_all(table)[0]:
        if e.type == "INHERITS":
            out.setdefault(e.src, {})[e.dst] = (e.reason, e.confidence)
    return out


def test_an_import_inside_a_function_does_not_rebind_a_top_level_class():
    got = _inherits({
        "backends/jinja2.py": "class Jinja2:\n    pass\n",
        "renderers.py": ("class Jinja2:\n"
                         "    def engine(self):\n"
                         "        from backends.jinja2 import Jinja2\n"
                         "        return Jinja2()\n"
                         "class DivRenderer(Jinja2):\n    pass\n")})
    assert {dst: conf for dst, (_, conf) in got["renderers.py#DivRenderer"].items()} == {"renderers.py#Jinja2": 1.0}


def test_a_builtin_base_is_not_guessed_from_a_workspace_class_of_that_name():
    got = _inherits({"checks.py": "class Warning:\n    pass\n",
                     "dump.py": "class ProxyModelWarning(Warning):\n    pass\n"})
    assert "dump.py#ProxyModelWarning" not in got


def test_members_are_not_looked_up_through_one_of_several_guessed_bases():
    # `V` is bound locally to something the resolver cannot read, so `class Sub(V)` guesses
    # among the workspace's classes named V; one of them inherits `get` from an external class.
    # A call on an instance of Sub must not reach that external `get` with confidence 1, and
    # what it resolves to must not depend on the order the files came in.
    files = {
        "ctypes_like.py": "from _ctypes import Array\nclass V(Array):\n    pass\n",
        "other.py": "class V:\n    def put(self):\n        pass\n",
        "user.py": ("import typing\n"
                    "def f():\n"
                    "    V = typing.List[int]\n"
                    "    class Sub(V):\n"
                    "        def own(self):\n"
                    "            pass\n"
                    "    s = Sub()\n"
                    "    s.get()\n"
                    "    s.own()\n"),
    }
    answers = []
    for order in (list(files), list(files)[::-1]):
        table = SymbolTable([extract_file(p, files[p].encode(), "python") for p in order])
        calls = {(e.dst, e.reason, e.confidence) for e in resolve_all(table)[0]
                 if e.type == "CALLS" and e.src == "user.py#f"}
        answers.append(calls)
        assert not any(dst.startswith("ext:_ctypes") and conf == 1.0 for dst, _, conf in calls), calls
        assert ("user.py#f.Sub.own", "type", 1.0) in calls
    assert answers[0] == answers[1]
