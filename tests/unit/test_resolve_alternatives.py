"""One name defined on each branch of an ``if`` or ``try``: a call calls each definition
(which one runs, the machine decides), unless the branch is a language version test's
that does not hold for the version the code is read for (as type checkers read it)."""

import sys

import pytest

from indexers.alternatives import TARGET, evaluate
from indexers.extract import extract_file
from indexers.resolve import SymbolTable, resolve_all
from tests.unit.symbols_helpers import targets_by_source

FILES = {
    "pkg/__init__.py": b"",
    "pkg/compat.py": b"""\
import sys
import typing
from typing import overload

if sys.platform == "win32":
    def getchar():
        return "w"
else:
    def getchar():
        return "p"

try:
    import termios
except ImportError:
    def raw():
        pass
else:
    def raw():
        pass

if sys.version_info >= (3, 10):
    def is_union(t):
        return True
else:
    def is_union(t):
        return False

if sys.version_info < (3, 9):
    def old_new():
        pass
elif sys.version_info[:2] < (3, 11):
    def old_new():
        pass
else:
    def old_new():
        pass

PY_99_PLUS = sys.version_info[:2] >= (99, 0)

if PY_99_PLUS:
    annotations = other_annotations
else:
    def annotations(cls):
        pass

if not PY_99_PLUS:
    def flagged():
        pass
else:
    def flagged():
        pass

def twice():
    pass

def twice():
    pass

if sys.version_info >= (3, 0):
    @overload
    def dataclass(cls: int) -> int: ...
    @typing.overload
    def dataclass(cls: str) -> str: ...

def dataclass(cls):
    return cls

class Resource:
    if sys.platform == "win32":
        def release(self):
            pass
    else:
        def release(self):
            pass

    def close(self):
        self.release()
""",
    "pkg/use.py": b"""\
from pkg.compat import getchar, raw, is_union, old_new, annotations, flagged, twice, dataclass, Resource

def main(r: Resource):
    getchar()
    raw()
    is_union(int)
    old_new()
    annotations(int)
    flagged()
    twice()
    dataclass(int)
    r.release()
""",
}


@pytest.fixture(scope="module")
def calls():
    return targets_by_source(resolve_all(SymbolTable(extract_file(p, s, "python") for p, s in FILES.items()))[0])


def test_each_branch_definition_is_called_with_confidence(calls):
    main = calls["pkg/use.py#main"]
    for name in ("getchar", "raw"):
        assert main[f"pkg/compat.py#{name}"] == ("import", 1.0)
        assert main[f"pkg/compat.py#{name}@2"] == ("import", 1.0)
    assert main["pkg/compat.py#Resource.release"] == ("type", 1.0)
    assert main["pkg/compat.py#Resource.release@2"] == ("type", 1.0)
    close = calls["pkg/compat.py#Resource.close"]
    assert set(close) == {"pkg/compat.py#Resource.release", "pkg/compat.py#Resource.release@2"}
    assert {c for _, c in close.values()} == {1.0}


def test_a_later_definition_in_the_same_block_replaces_the_earlier(calls):
    main = calls["pkg/use.py#main"]
    assert main["pkg/compat.py#twice@2"] == ("import", 1.0)
    assert "pkg/compat.py#twice" not in main


def test_the_signatures_of_an_overloaded_function_are_no_targets(calls):
    main = calls["pkg/use.py#main"]
    assert main["pkg/compat.py#dataclass@3"] == ("import", 1.0)
    assert not {"pkg/compat.py#dataclass", "pkg/compat.py#dataclass@2"} & set(main)


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="the branches below are chosen for Python 3.11")
def test_a_version_test_keeps_the_branch_that_holds(calls):
    main = calls["pkg/use.py#main"]
    assert main["pkg/compat.py#is_union"] == ("import", 1.0)
    assert "pkg/compat.py#is_union@2" not in main
    assert main["pkg/compat.py#old_new@3"] == ("import", 1.0)
    assert not {"pkg/compat.py#old_new", "pkg/compat.py#old_new@2"} & set(main)
    # The alias on the branch that does not hold is no alternative to the definition; the
    # test may be bound to a name of the module first.
    assert main["pkg/compat.py#annotations"] == ("import", 1.0)
    assert main["pkg/compat.py#flagged"] == ("import", 1.0)
    assert "pkg/compat.py#flagged@2" not in main


@pytest.mark.parametrize(("text", "value"), [
    ("sys.version_info >= (3, 0)", True),
    ("sys.version_info < (3, 0)", False),
    ("(sys.version_info >= (2, 7))", True),
    ("sys.version_info[:2] >= (99, 1)", False),
    ("sys.version_info[0] == 3", TARGET[0] == 3),
    ("sys.version_info.major >= 3", True),
    ("not sys.version_info >= (3, 0)", False),
    ("sys.version_info >= (3, 0) and sys.platform == 'win32'", None),
    ("sys.version_info < (3, 0) and sys.platform == 'win32'", False),
    ("sys.version_info >= (3, 0) or sys.platform == 'win32'", True),
    ("sys.platform == 'win32'", None),
    ("other.version_info >= (3, 0)", None),
    ("sys.version_info[0] == (3,)", None),
])
def test_version_tests_are_evaluated_for_the_target(text, value):
    assert evaluate(text, frozenset({"sys.version_info"})) is value


def test_a_flag_bound_to_a_version_test_is_read_as_the_test():
    flags = {"PY3": True, "PY_99": False}
    assert evaluate("PY3", frozenset({"sys.version_info"}), flags) is True
    assert evaluate("not PY_99", frozenset({"sys.version_info"}), flags) is True
    assert evaluate("PY_99 and PY3", frozenset({"sys.version_info"}), flags) is False
    assert evaluate("OTHER", frozenset({"sys.version_info"}), flags) is None


def test_a_name_bound_above_a_redefinition_is_the_definition_above():
    source = b"""\
import os

class Resource:
    def acquire(self):
        pass

    if os.environ.get("DEBUG"):
        _orig_acquire = acquire

        def acquire(self):
            return self._orig_acquire()

    def use(self):
        self.acquire()
"""
    calls = targets_by_source(resolve_all(SymbolTable([extract_file("pool.py", source, "python")]))[0])
    assert calls["pool.py#Resource.acquire@2"] == {"pool.py#Resource.acquire": ("type", 1.0)}
    assert set(calls["pool.py#Resource.use"]) == {"pool.py#Resource.acquire", "pool.py#Resource.acquire@2"}
