"""A name bound to instances of a class and of its subclasses: a method none of them
overrides is the one called, for sure; one they override is one of theirs (candidates)."""

from __future__ import annotations

import pytest

from indexers.extract import extract_file
from indexers.languages import language_for_path
from indexers.resolve import SymbolTable, resolve_all
from tests.unit.symbols_helpers import targets_by_source

_PYTHON = '''\
import threading


class State:
    def reset(self):
        pass

    def close(self):
        pass


class Local(State, threading.local):
    def close(self):
        pass


class Other:
    def reset(self):
        pass


class Db:
    def __init__(self, safe):
        if safe:
            self._state = Local()
        else:
            self._state = State()
        self._other = Other() if safe else State()

    def run(self):
        self._state.reset()

    def stop(self):
        self._state.close()

    def unrelated(self):
        self._other.reset()


def local(safe):
    conn = Local() if safe else State()
    conn.reset()
'''

_TYPESCRIPT = '''\
class State {
  reset(): void {}
}
class Local extends State {}
function local(safe: boolean) {
  const conn = safe ? new Local() : new State();
  conn.reset();
}
'''


def _calls(path: str, src: str) -> dict[str, dict[str, tuple[str, float]]]:
    ext = extract_file(path, src.encode(), language_for_path(path).name)
    return targets_by_source(resolve_all(SymbolTable([ext]))[0], "CALLS")


def test_a_method_no_subclass_overrides_is_called_for_sure():
    calls = _calls("m.py", _PYTHON)
    assert calls["m.py#Db.run"] == {"m.py#State.reset": ("type", 1.0)}
    assert calls["m.py#local"]["m.py#State.reset"] == ("type", 1.0)


def test_a_method_a_subclass_overrides_is_one_of_them():
    stop = _calls("m.py", _PYTHON)["m.py#Db.stop"]
    assert set(stop) == {"m.py#State.close", "m.py#Local.close"}
    assert all(conf < 1.0 for _, conf in stop.values())


def test_instances_of_unrelated_classes_stay_candidates():
    unrelated = _calls("m.py", _PYTHON)["m.py#Db.unrelated"]
    assert all(conf < 1.0 for _, conf in unrelated.values())


@pytest.mark.parametrize("path", ["m.ts"])
def test_a_conditional_of_a_class_and_its_subclass_in_typescript(path):
    assert _calls(path, _TYPESCRIPT)["m.ts#local"].get("m.ts#State.reset", ("", 0.0))[1] == 1.0


_LOOPS = '''\
class Dir:
    pass


class File:
    pass


def each():
    for cls in Dir, File:
        class Schema:
            option = cls()
    for kind in (Dir, File):
        kind()
'''


_HANDLERS = '''\
def strip(s):
    pass


def lower(s):
    pass


STEPS = (strip, lower)
BY_NAME = {"strip": strip}


def clean(s):
    for step in STEPS:
        step(s)
    for i, step in enumerate([lower, strip]):
        step(s)


def by_key(s):
    for key in BY_NAME:
        key(s)


def maybe(s, extra):
    for f in (strip, extra):
        f(s)
'''


def test_a_loop_over_a_table_of_functions_calls_each_one():
    calls = _calls("m.py", _HANDLERS)
    assert calls["m.py#clean"] == {"m.py#strip": ("type", 1.0), "m.py#lower": ("type", 1.0)}
    assert "m.py#by_key" not in calls  # a dict's loop binds its keys
    # An entry that is not known (a parameter) leaves the others no more than candidates.
    assert all(reason == "candidate" for reason, _ in calls.get("m.py#maybe", {}).values())


def test_a_loop_over_a_literal_calls_each_of_its_entries_in_turn():
    calls = _calls("m.py", _LOOPS)
    for caller in ("m.py#each", "m.py#each.Schema"):
        assert calls[caller] == {"m.py#Dir": ("type", 1.0), "m.py#File": ("type", 1.0)}



_ALIASES = {
    "tree.py": (
        "from typing import Optional, Union\n"
        "class Base:\n"
        "    def remove(self): pass\n"
        "class Node(Base): pass\n"
        "class Leaf(Base): pass\n"
        "NL = Union[\"Node\", \"Leaf\"]\n"
    ),
    "use.py": (
        "from typing import Optional, TypeAlias, Union\n"
        "from tree import NL, Leaf, Node\n"
        "LN = Union[Leaf, Node]\n"
        "TA: TypeAlias = Leaf | Node\n"
        "type TB = Leaf | Node\n"
        "def a(x: LN): x.remove()\n"
        "def b(x: Optional[LN]): x.remove()\n"
        "def c(x: NL): x.remove()\n"
        "def d(x: TA): x.remove()\n"
        "def e(x: TB): x.remove()\n"
    ),
}


def test_a_type_alias_of_a_union_types_what_it_annotates():
    exts = [extract_file(p, src.encode(), "python") for p, src in _ALIASES.items()]
    edges, _ = resolve_all(SymbolTable(exts))
    kinds = {s.id: s.kind for e in exts for s in e.symbols}
    assert kinds["use.py#LN"] == kinds["tree.py#NL"] == kinds["use.py#TA"] == "type_alias"
    calls = targets_by_source(edges, "CALLS")
    for function in "abcde":
        assert calls[f"use.py#{function}"] == {"tree.py#Base.remove": ("type", 1.0)}
