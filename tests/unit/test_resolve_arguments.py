"""A called parameter calls what the callers pass for it (``def run(cb): cb()``, ``run(h)``)."""

from __future__ import annotations

import pytest

from indexers.extract import extract_file
from indexers.resolve import SymbolTable, affected_files, resolve_all, resolve_file
from tests.unit.symbols_helpers import incremental_equals_clean, targets_by_source

FILES = {
    "lib.py": (
        "def run(cb, *rest, then=None):\n"
        "    cb()\n"
        "    then()\n"
        "\n"
        "def outer(g):\n"
        "    run(g)\n"
        "\n"
        "def fallback(): pass\n"
        "\n"
        "def with_default(cb=fallback):\n"
        "    cb()\n"
        "\n"
        "def wrapped(cb):\n"
        "    cb = decorate(cb)\n"
        "    cb()\n"
        "\n"
        "class Runner:\n"
        "    def go(self, cb):\n"
        "        cb()\n"
    ),
    "app.py": (
        "from lib import run, outer, wrapped, Runner\n"
        "\n"
        "def first(): pass\n"
        "def second(): pass\n"
        "def third(): pass\n"
        "def shadowed(): pass\n"
        "def unseen(): pass\n"
        "\n"
        "run(first, then=second)\n"
        "outer(third)\n"
        "wrapped(first)\n"
        "Runner().go(first)\n"
        "run(*[], unseen)\n"
        "\n"
        "def local():\n"
        "    shadowed = make()\n"
        "    run(shadowed)\n"
    ),
}


def _resolve(files: dict[str, str]) -> SymbolTable:
    return SymbolTable(extract_file(p, s.encode(), "python") for p, s in files.items())


def _calls(files: dict[str, str]) -> dict[str, dict[str, tuple[str, float]]]:
    return targets_by_source(resolve_all(_resolve(files))[0])


def test_a_called_parameter_calls_what_every_caller_passes_by_position_or_keyword():
    calls = _calls(FILES)
    assert calls["lib.py#run"] == {
        "app.py#first": ("argument", 1.0),
        "app.py#second": ("argument", 1.0),
        "app.py#third": ("argument", 1.0),  # outer(third) passes it on: run(g)
    }


def test_the_default_of_a_called_parameter_is_called():
    assert _calls(FILES)["lib.py#with_default"] == {"lib.py#fallback": ("argument", 1.0)}


def test_a_parameter_the_body_assigns_is_left_alone():
    calls = _calls(FILES)
    assert "lib.py#wrapped" not in calls or not any(r == "argument" for r, _ in calls["lib.py#wrapped"].values())


def test_a_method_s_parameter_is_what_callers_pass_after_the_receiver():
    assert _calls(FILES)["lib.py#Runner.go"] == {"app.py#first": ("argument", 1.0)}  # `Runner().go(first)`
    calls = _calls({"m.py": (
        "def job(): pass\n"
        "def other(): pass\n"
        "class Pool:\n"
        "    def submit(self, fn):\n"
        "        fn()\n"
        "    @staticmethod\n"
        "    def run(fn):\n"
        "        fn()\n"
        "    def again(self):\n"
        "        self.submit(other)\n"
        "Pool().submit(job)\n"
        "Pool.submit(Pool(), other)\n"
        "Pool.run(job)\n"
    )})
    assert calls["m.py#Pool.submit"] == {"m.py#job": ("argument", 1.0), "m.py#other": ("argument", 1.0)}
    assert calls["m.py#Pool.run"] == {"m.py#job": ("argument", 1.0)}


def test_passing_a_method_something_else_re_resolves_its_file():
    from tests.unit.test_resolve_incremental import _incremental_equals_clean

    files = {
        "pool.py": b"class Pool:\n    def submit(self, fn):\n        fn()\n",
        "app.py": b"from pool import Pool\ndef job(): pass\ndef other(): pass\nPool().submit(job)\n",
        "sub.py": b"from pool import Pool\nclass Mine(Pool):\n    def go(self):\n        self.submit(len)\n",
    }
    changed = files["app.py"].replace(b"submit(job)", b"submit(other)")
    assert "pool.py" in _incremental_equals_clean(dict(files), "python", "app.py", changed)
    changed = files["sub.py"].replace(b"submit(len)", b"submit(Mine)")
    assert "pool.py" in _incremental_equals_clean(dict(files), "python", "sub.py", changed)


def test_a_local_passed_under_a_global_s_name_is_not_the_global():
    calls = _calls(FILES)
    assert "app.py#shadowed" not in calls.get("lib.py#run", {})
    assert "app.py#unseen" not in calls.get("lib.py#run", {})  # its position after *[] is unknown


def test_a_caller_passing_something_else_re_resolves_the_callee_s_file():
    table = _resolve(FILES)
    old = table.remove_file("app.py")
    new = extract_file("app.py", FILES["app.py"].replace("run(first, then=second)", "run(second)").encode(), "python")
    table.add_file(new)
    affected = affected_files({"app.py"}, {"app.py": old}, {"app.py": new}, table)
    assert "lib.py" in affected
    edges = {e.dst for e in resolve_file(table.files["lib.py"], table) if e.src == "lib.py#run" and e.type == "CALLS"}
    assert edges == {"app.py#second", "app.py#third"}


INDIRECT = {
    "lib.py": (
        "def run(cb):\n"
        "    cb()\n"
        "\n"
        "def also(cb):\n"
        "    cb()\n"
        "\n"
        "def apply(f):\n"
        "    f(helper)\n"
        "\n"
        "def either(f, g):\n"
        "    f(g)\n"
        "\n"
        "def helper(): pass\n"
        "def one(): pass\n"
        "def two(): pass\n"
    ),
    "app.py": (
        "from lib import run, also, apply, either, one, two\n"
        "\n"
        "alias = run\n"
        "alias(one)\n"
        "apply(run)\n"
        "either(also, one)\n"
        "either(run, two)\n"
    ),
}


def test_a_function_called_by_an_alias_or_through_a_parameter_gets_what_is_passed():
    calls = _calls(INDIRECT)
    assert calls["lib.py#run"] == {"lib.py#one": ("argument", 1.0), "lib.py#helper": ("argument", 1.0)}


def test_a_parameter_holding_several_functions_passes_nothing_on():
    # either() may call also(two) or run(one) too, as far as a union of callers can tell
    assert "lib.py#two" not in _calls(INDIRECT)["lib.py#run"]
    assert "lib.py#also" not in _calls(INDIRECT)


def test_an_alias_passing_something_else_re_resolves_the_callee_s_file():
    table = _resolve(INDIRECT)
    old = table.remove_file("app.py")
    new = extract_file("app.py", INDIRECT["app.py"].replace("alias(one)", "alias(two)").encode(), "python")
    table.add_file(new)
    assert "lib.py" in affected_files({"app.py"}, {"app.py": old}, {"app.py": new}, table)



def test_an_argument_that_is_a_call_passes_what_the_call_returns():
    calls = _calls({"m.py": (
        "def run(cb):\n"
        "    cb()\n"
        "def target(): pass\n"
        "def pick():\n"
        "    return target\n"
        "run(pick())\n"
    )})
    assert calls["m.py#run"] == {"m.py#target": ("argument", 1.0)}


def test_argument_lists_ending_at_one_byte_are_told_apart_by_their_calls():
    # Error recovery may close two lists with zero-width brackets at the same byte: the end
    # then no longer names one call, and each list's arguments stay with their own call.
    from types import SimpleNamespace

    from indexers.arguments import call_arguments

    def node(start, end, parent=None, named=()):
        return SimpleNamespace(start_byte=start, end_byte=end, id=(start, end), type="identifier", parent=parent,
                               named_children=list(named), named_child_count=len(named))

    outer_call, inner_call = node(0, 9), node(5, 9)
    a, b = node(2, 3), node(7, 8)
    outer, inner = node(1, 9, outer_call, [a]), node(6, 9, inner_call, [b])
    text = {a.id: "a", b.id: "b"}.get
    args = call_arguments([{"argument": [a], "argument.list": [outer]}, {"argument": [b], "argument.list": [inner]}],
                          lambda n: text(n.id))
    assert args[9] is None
    assert args[(0, 9)] == ((0, "a"),) and args[(5, 9)] == ((0, "b"),)


def test_argument_positions_count_every_argument_and_stop_at_a_splat():
    # Positions are read from the matches when every argument is one, else from the list.
    src = ("f(a, b)\n"
           "g(1, a, k=b, c)\n"
           "h(a, # note\n  b)\n"
           "i(a, *xs, b)\n")
    calls = {c.name: c.args for c in extract_file("m.py", src.encode(), "python").calls}
    assert calls["f"] == ((0, "a"), (1, "b"))
    assert calls["g"] == ((1, "a"), ("k", "b"), (3, "c"))
    assert calls["h"] == ((0, "a"), (2, "b"))
    assert calls["i"] == ((0, "a"),)


def test_a_parameter_called_in_a_closure_calls_what_the_callers_pass():
    calls = _calls({"m.py": (
        "def work(x): pass\n"
        "def outer(cb):\n"
        "    def run():\n"
        "        cb(1)\n"
        "    return run\n"
        "def shadow(cb):\n"
        "    def run(cb):\n"
        "        cb(1)\n"
        "    return run\n"
        "def main():\n"
        "    outer(work)()\n"
        "    shadow(work)\n"
    )})
    assert calls["m.py#outer.run"] == {"m.py#work": ("argument", 1.0)}
    assert "m.py#shadow.run" not in calls  # its own parameter, which no caller passes


def test_a_decorator_is_passed_what_it_decorates_and_its_wrapper_calls_that():
    calls = _calls({"m.py": (
        "def logged(f):\n"
        "    def inner(*a):\n"
        "        return f(*a)\n"
        "    return inner\n"
        "def traced(f):\n"
        "    def around(*a):\n"
        "        return f(*a)\n"
        "    return around\n"
        "@logged\n"
        "def plain(): pass\n"
        "@traced\n"
        "@logged\n"
        "def both(): pass\n"
        "class C:\n"
        "    @logged\n"
        "    def m(self): pass\n"
    )})
    assert calls["m.py#logged.inner"] == {"m.py#plain": ("argument", 1.0), "m.py#both": ("argument", 1.0),
                                          "m.py#C.m": ("argument", 1.0)}
    # The outer decorator is passed what the inner one made: its wrapper.
    assert calls["m.py#traced.around"] == {"m.py#logged.inner": ("argument", 1.0)}


def test_decorating_a_function_anew_re_resolves_the_decorator_s_file():
    from tests.unit.test_resolve_incremental import _incremental_equals_clean

    files = {
        "deco.py": b"def logged(f):\n    def inner(*a):\n        return f(*a)\n    return inner\n",
        "app.py": b"from deco import logged\n@logged\ndef one(): pass\n",
    }
    assert "deco.py" in _incremental_equals_clean(dict(files), "python", "app.py",
                                                  files["app.py"] + b"@logged\ndef two(): pass\n")
    assert "deco.py" in _incremental_equals_clean(dict(files), "python", "app.py", b"def one(): pass\n")


def test_a_decorator_factory_s_product_is_called_with_what_it_decorates():
    calls = _calls({"m.py": (
        "def repr_guard(fill='...'):\n"
        "    def decorating(f):\n"
        "        def wrapper(self):\n"
        "            return f(self)\n"
        "        return wrapper\n"
        "    return decorating\n"
        "class C:\n"
        "    @repr_guard()\n"
        "    def __repr__(self): return ''\n"
    )})
    assert calls["m.py#C"] == {"m.py#repr_guard": ("scope", 1.0), "m.py#repr_guard.decorating": ("type", 1.0)}
    assert calls["m.py#repr_guard.decorating.wrapper"] == {"m.py#C.__repr__": ("argument", 1.0)}


def test_a_decorator_factory_returning_another_product_re_resolves_its_users():
    from tests.unit.test_resolve_incremental import _incremental_equals_clean

    files = {
        "deco.py": b"def guard():\n    def first(f):\n        return f\n    def second(f):\n        return f\n    return first\n",
        "app.py": b"from deco import guard\n@guard()\ndef one(): pass\n",
    }
    assert "app.py" in _incremental_equals_clean(dict(files), "python", "deco.py",
                                                 files["deco.py"].replace(b"return first", b"return second"))


def test_applying_a_decorator_factory_anew_or_no_more_re_resolves_its_wrapper():
    from tests.unit.test_resolve_incremental import _incremental_equals_clean

    files = {
        "deco.py": (b"def guard():\n    def decorating(f):\n        def wrapper(self):\n            return f(self)\n"
                    b"        return wrapper\n    return decorating\n"),
        "app.py": b"from deco import guard\nclass C:\n    @guard()\n    def one(self): pass\n",
    }
    assert "deco.py" in _incremental_equals_clean(dict(files), "python", "app.py",
                                                  files["app.py"] + b"    @guard()\n    def two(self): pass\n")
    assert "deco.py" in _incremental_equals_clean(dict(files), "python", "app.py", b"class C:\n    def one(self): pass\n")


_FACTORY = {
    "v.py": (
        "def validates(version):\n"
        "    def _validates(cls):\n"
        "        return cls\n"
        "    return _validates\n\n\n"
        "def create(schema, version=None):\n"
        "    class Validator:\n"
        "        def is_valid(self, x):\n"
        "            return True\n"
        "    if version is not None:\n"
        "        Validator = validates(version)(Validator)\n"
        "    return Validator\n\n\n"
        "Draft7 = create({}, version='7')\n"
    ),
    "t.py": "from v import Draft7\n\n\ndef test():\n    v = Draft7({})\n    v.is_valid(1)\n",
}


def test_a_variable_made_by_a_workspace_function_is_not_called_as_itself():
    # `Draft7 = create(...)`: a call of Draft7 calls what `create` returns, never the variable:
    # the class it passes through a decorator that returns what its one caller gives it.
    table = _resolve(_FACTORY)
    calls = targets_by_source(resolve_all(table)[0])
    assert calls["t.py#test"] == {"v.py#create.Validator": ("type", 1.0), "v.py#create.Validator.is_valid": ("type", 1.0)}
    # Made by a function whose result is not known: left unresolved, not the variable.
    files = dict(_FACTORY, **{"v.py": _FACTORY["v.py"].replace("    return Validator\n", "    return Validator.make()\n")})
    calls = targets_by_source(resolve_all(_resolve(files))[0])
    assert "v.py#Draft7" not in calls.get("t.py#test", {})


@pytest.mark.parametrize("path, new", [
    ("v.py", _FACTORY["v.py"].replace("        Validator = validates(version)(Validator)\n", "        pass\n")),
    ("lib.py", "def deco(cls):\n    return None\n"),
    ("made.py", "from lib import deco\n\n\nclass Other:\n    pass\n\n\nMade = deco(Other)\n"),
])
def test_incremental_equals_clean_when_what_a_parameter_returns_changes(path, new):
    files = dict(_FACTORY)
    files["lib.py"] = "def deco(cls):\n    return cls\n"
    files["made.py"] = "from lib import deco\n\n\nclass Thing:\n    pass\n\n\nMade = deco(Thing)\n"
    files["use.py"] = "from made import Made\n\n\ndef run():\n    Made()\n"
    incremental_equals_clean(files, path, new)
