"""Classes made by factories and held by module variables, as real packages write them:
a function that declares its result and defines a class of that name in its body, a
module's variable called through the module, a variable that holds one of two classes, and
the context of an ``async with``."""

from indexers.extract import extract_file
from indexers.resolve import SymbolTable, resolve_all

FILES = {
    "pkg/__init__.py": b"",
    "pkg/protocols.py": b"""\
from typing import Protocol

class Validator(Protocol):
    def iter_errors(self): ...
""",
    "pkg/validators.py": b"""\
from __future__ import annotations
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from pkg.protocols import Validator

def create(schema) -> type[Validator]:
    class Validator:
        def iter_errors(self):
            pass
    return Validator

def make(schema):
    class Made:
        def run(self):
            pass
    return Made

Draft4Validator = create({})
Runner = make({})
""",
    "pkg/reader.py": b"""\
class BufferedReader:
    def peek(self): pass
""",
    "pkg/util.py": b"""\
from pkg.reader import BufferedReader as _PyBufferedReader
try:
    from pkg._speedups import BufferedReader as _CyBufferedReader
except ImportError:
    _CyBufferedReader = None

BufferedReader = _CyBufferedReader or _PyBufferedReader
""",
    "pkg/conn.py": b"""\
from __future__ import annotations

class Connection:
    async def __aenter__(self) -> Connection:
        return self
    async def __aexit__(self, *exc) -> None:
        pass
    def is_idle(self) -> bool:
        return True
""",
    "tests/test_use.py": b"""\
from pkg import conn, util, validators
from pkg.validators import Draft4Validator

def test_through_the_module():
    v = validators.Draft4Validator({})
    v.iter_errors()
    validators.Runner().run()

def test_imported_name():
    w = Draft4Validator({})
    w.iter_errors()

def test_one_of_two():
    util.BufferedReader()

async def test_async_with():
    async with conn.Connection() as c:
        c.is_idle()
""",
}


def _calls() -> dict[str, dict[str, tuple[str, float]]]:
    exts = [extract_file(path, source, "python") for path, source in FILES.items()]
    edges, _ = resolve_all(SymbolTable(exts))
    out: dict[str, dict[str, tuple[str, float]]] = {}
    for e in edges:
        if e.type == "CALLS":
            out.setdefault(e.src, {})[e.dst] = (e.reason, e.confidence)
    return out


CALLS = _calls()


def test_a_declared_result_never_names_a_class_of_the_function_body():
    # `-> type[Validator]` is read where `create` is defined: the protocol, as type checkers
    # read it, not the class of that name `create` defines and returns.
    assert CALLS["tests/test_use.py#test_imported_name"] == {
        "pkg/protocols.py#Validator": ("type", 1.0), "pkg/protocols.py#Validator.iter_errors": ("type", 1.0)}


def test_a_module_variable_called_through_its_module_calls_what_it_holds():
    assert CALLS["tests/test_use.py#test_through_the_module"] == {
        "pkg/protocols.py#Validator": ("type", 1.0), "pkg/protocols.py#Validator.iter_errors": ("type", 1.0),
        "pkg/validators.py#make.Made": ("type", 1.0), "pkg/validators.py#make.Made.run": ("type", 1.0)}


def test_a_variable_holding_one_of_two_classes_calls_them_as_candidates():
    # Not a confident call of the variable: the class it may hold, as a candidate.
    assert CALLS["tests/test_use.py#test_one_of_two"] == {"pkg/reader.py#BufferedReader": ("candidate", 0.5)}


def test_an_async_with_binds_what_aenter_returns():
    assert CALLS["tests/test_use.py#test_async_with"] == {
        "pkg/conn.py#Connection": ("import", 1.0), "pkg/conn.py#Connection.is_idle": ("type", 1.0)}
