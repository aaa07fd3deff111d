"""Classes made by factories and held by module variables, as real packages write them:
a function that declares its result and defines a class of that name in its body, a
module's variable called through the module, a variable that holds one of two classes, and
the context of an ``async with``, and a method an instance attribute may hide."""

import pytest

from indexers.extract import extract_file
from indexers.resolve import SymbolTable, resolve_all
from tests.unit.symbols_helpers import incremental_equals_clean, targets_by_source

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


def _calls(files: dict[str, bytes]) -> dict[str, dict[str, tuple[str, float]]]:
    """The CALLS edges of the Python `files` resolved together, by caller."""
    return targets_by_source(resolve_all(SymbolTable(extract_file(p, s, "python") for p, s in files.items()))[0])


CALLS = _calls(FILES)


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


def test_a_method_an_attribute_may_hide_is_a_candidate():
    # `self.getsizeof = getsizeof` in __init__ replaces the method on some instances.
    source = b"""\
class Cache:
    def __init__(self, getsizeof=None):
        if getsizeof:
            self.getsizeof = getsizeof
        self.clear = self.clear

    def put(self, value):
        self.getsizeof(value)
        self.clear()

    @staticmethod
    def getsizeof(value):
        return 1

    def clear(self):
        pass
"""
    calls = _calls({"cache.py": source}).get("cache.py#Cache.put", {})
    assert calls == {"cache.py#Cache.getsizeof": ("candidate", 0.5), "cache.py#Cache.clear": ("self", 1.0)}



def test_a_definition_another_branch_binds_to_something_else_is_a_candidate():
    # `anext = builtins.anext` on one branch, `def anext` on the other: either may be called.
    # A definition wrapped by hand (`cached = lru_cache(cached)`) is still the definition.
    source = b"""\
import builtins, functools, sys
if sys.version_info >= (3, 10):
    anext = builtins.anext
else:
    async def anext(it):
        return await it.__anext__()

def cached(x):
    pass
cached = functools.lru_cache(cached)

async def use(it):
    await anext(it)
    cached(1)
"""
    calls = _calls({"helpers.py": source}).get("helpers.py#use", {})
    assert calls == {"helpers.py#anext": ("candidate", 0.5), "helpers.py#cached": ("scope", 1.0)}


def test_await_of_an_awaitable_object_is_not_the_object_and_getattr_gives_attributes():
    # `await session.get()` of a plain method returning an object with `__await__` is what
    # that object gives, not the object; `await` of a coroutine is its declared result. An
    # attribute a class does not define is what its `__getattr__` returns.
    source = b"""\
class Response:
    def close(self): pass

class RequestContext:
    def __await__(self):
        return self._coro.__await__()
    def close(self): pass

class Collection:
    def drop(self): pass

class Database:
    def __getattr__(self, name: str) -> Collection:
        return Collection()

class Session:
    db: Database
    def get(self) -> RequestContext:
        return RequestContext()
    async def fetch(self) -> Response:
        return Response()

async def use(s: Session):
    ctx = await s.get()
    ctx.close()
    resp = await s.fetch()
    resp.close()
    s.db.users.drop()
"""
    calls = _calls({"client.py": source}).get("client.py#use", {})
    assert calls["client.py#Response.close"] == ("type", 1.0)
    assert calls["client.py#Collection.drop"] == ("type", 1.0)
    assert calls.get("client.py#RequestContext.close", ("", 0.0))[1] < 1.0


def test_a_method_s_first_parameter_is_its_receiver_whatever_its_name():
    # loguru's `def debug(__self, ...)`, a metaclass's `mcs`; not a staticmethod's parameter.
    source = b"""\
class Logger:
    def _log(self, level):
        pass

    def debug(__self, message):
        __self._log("DEBUG")

    @classmethod
    def make(mcs):
        return mcs()

    @staticmethod
    def helper(other):
        other._log(1)

class Plain:
    def _log(self, level):
        pass
"""
    calls = _calls({"log.py": source})
    assert calls["log.py#Logger.debug"] == {"log.py#Logger._log": ("self", 1.0)}
    assert calls["log.py#Logger.make"] == {"log.py#Logger": ("type", 1.0)}
    assert all(conf < 1.0 for _, conf in calls["log.py#Logger.helper"].values())


def test_async_for_binds_what_anext_returns():
    source = b"""\
class Row:
    def get(self): pass

class Cursor:
    def __aiter__(self) -> "Cursor":
        return self
    async def __anext__(self) -> Row:
        return Row()

async def read(c: Cursor):
    async for row in c:
        row.get()
"""
    calls = _calls({"db.py": source}).get("db.py#read", {})
    assert calls == {"db.py#Row.get": ("type", 1.0)}


def test_a_field_a_state_machine_sets_to_each_of_its_methods_calls_them_as_candidates():
    # `self.state = self.expect_x` in every state: more bindings than a name's usual few, each
    # naming a method; `self.state()` may call any of them and nothing else.
    states = "".join(f"    def s{i}(self):\n        self.state = self.s{i + 1}\n" for i in range(9))
    source = f"""\
class Emitter:
    def __init__(self):
        self.state = self.s0

    def emit(self):
        self.state()

{states}
    def s9(self):
        self.state = None
""".encode()
    calls = _calls({"emitter.py": source}).get("emitter.py#Emitter.emit", {})
    assert set(calls) == {f"emitter.py#Emitter.s{i}" for i in range(10)}
    assert all(reason == "candidate" and conf < 0.1 for reason, conf in calls.values())


def test_with_a_generator_made_context_manager_binds_what_it_yields():
    # `@contextmanager def stream(self) -> Iterator[Response]`, then `with pool.stream() as r`.
    source = b"""\
import contextlib, typing

class Response:
    def read(self): pass

class Pool:
    @contextlib.contextmanager
    def stream(self) -> typing.Iterator[Response]:
        yield Response()

    @contextlib.asynccontextmanager
    async def astream(self) -> typing.AsyncIterator[Response]:
        yield Response()

def sync(pool: Pool):
    with pool.stream() as response:
        response.read()

async def later(pool: Pool):
    async with pool.astream() as response:
        response.read()
"""
    calls = _calls({"pool.py": source})
    for caller in ("pool.py#sync", "pool.py#later"):
        assert calls[caller]["pool.py#Response.read"] == ("type", 1.0)


def test_with_a_declared_context_manager_binds_what_it_manages():
    # trio's `def open_nursery() -> AbstractAsyncContextManager[Nursery]`, then
    # `async with open_nursery() as nursery: nursery.start_soon(...)`.
    source = b"""\
import contextlib
from typing import ContextManager

class Nursery:
    def start_soon(self): pass

class Conn:
    def close(self): pass

class Other:
    def start_soon(self): pass
    def close(self): pass

def open_nursery() -> contextlib.AbstractAsyncContextManager[Nursery]:
    return make()

def connect() -> ContextManager[Conn]:
    return make()

async def run():
    async with open_nursery() as nursery:
        nursery.start_soon()
    with connect() as conn:
        conn.close()
"""
    calls = _calls({"trio.py": source})["trio.py#run"]
    assert calls["trio.py#Nursery.start_soon"] == ("type", 1.0)
    assert calls["trio.py#Conn.close"] == ("type", 1.0)
    assert not any(dst.startswith("trio.py#Other") for dst in calls)


def test_a_variable_holding_what_an_outside_value_gives_is_not_called_itself():
    files = {
        "pkg/__init__.py": b"",
        "pkg/util.py": b"""\
import logging
import sys
log = logging.getLogger("pkg")
debug = log.debug
ModuleType = type(sys)
def local():
    pass
handler = local
on_success = logging.Mock()
""",
        "pkg/prog.py": b"""\
from .util import debug, ModuleType, handler, on_success
def run():
    debug("x")
    ModuleType("m")
    handler()
    on_success()
""",
    }
    exts = [extract_file(p, src, "python") for p, src in files.items()]
    edges, stats = resolve_all(SymbolTable(exts))
    calls = {e.dst: e for e in edges if e.type == "CALLS" and e.src == "pkg/prog.py#run"}
    # `logging.getLogger(...).debug`: a method outside the workspace, left unresolved
    assert "pkg/util.py#debug" not in calls
    assert any("3: debug()" in u.unresolved_sites for u in stats.unresolved_sites)
    # A class read from a value (`type(sys)`) is the variable's own; a function is what it holds
    assert calls["pkg/util.py#ModuleType"].confidence == 1.0
    assert calls["pkg/util.py#local"].confidence == 1.0
    # What an outside call makes (a mock): the variable is all there is to call
    assert calls["pkg/util.py#on_success"].confidence == 1.0


def test_a_named_function_a_factory_returns_is_a_function_and_gives_its_declared_result():
    slice_ts = b"""\
export interface Slice {
  reducer(state: any): any
}
export function buildCreateSlice() {
  return function createSlice(options: { name: string }): Slice {
    return null as any
  }
}
export const createSlice = buildCreateSlice()
"""
    use_ts = b"""\
import { createSlice } from './slice'
const counter = createSlice({ name: 'c' })
export function run() {
  counter.reducer(1)
}
"""
    exts = [extract_file("slice.ts", slice_ts, "typescript"), extract_file("use.ts", use_ts, "typescript")]
    assert "slice.ts#buildCreateSlice.createSlice" in {s.id for s in exts[0].symbols}
    edges, _ = resolve_all(SymbolTable(exts))
    got = {(e.src, e.dst): (e.reason, e.confidence) for e in edges if e.type == "CALLS"}
    assert got[("use.ts", "slice.ts#buildCreateSlice.createSlice")] == ("type", 1.0)
    assert got[("use.ts#run", "slice.ts#Slice.reducer")] == ("type", 1.0)


@pytest.mark.parametrize("new", ["from .app import Local\nlog = Local()\n", "import logging as lg\nlog = lg.getLogger()\n",
                                 "from .app import local as log\n", None],
                         ids=["a-workspace-instance", "an-outside-one", "a-function", "the-file-goes"])
def test_incremental_equals_clean_when_what_a_variable_reads_from_changes_file(new):
    files = {
        "pkg/__init__.py": "",
        "pkg/logs.py": "import logging\nlog = logging.getLogger()\n",
        "pkg/app.py": "class Local:\n    def debug(self): pass\ndef local(): pass\n",
        "pkg/util.py": "from .logs import log\ndebug = log.debug\n",
        "pkg/prog.py": "from .util import debug\ndef run():\n    debug()\n",
    }
    assert "pkg/prog.py" in incremental_equals_clean(files, "pkg/logs.py", new)


_MAKER = ("export type CreateApi = { (options: any): number }\n"
          "export function buildCreateApi(): CreateApi {\n  return function baseCreateApi(options) {\n    return 1\n  }\n}\n")


@pytest.mark.parametrize("new", [_MAKER.replace("baseCreateApi", "other"), _MAKER.replace("(): CreateApi", "()"),
                                 "export function buildCreateApi() { return 1 }\n", None],
                         ids=["renamed", "undeclared", "no-function", "the-file-goes"])
def test_a_function_a_factory_makes_called_through_a_variable(new):
    files = {"maker.ts": _MAKER, "api.ts": "import { buildCreateApi } from './maker'\nexport const createApi = buildCreateApi()\n",
             "use.ts": "import { createApi } from './api'\nexport function go() { createApi({}) }\n"}
    table = SymbolTable(extract_file(p, t.encode(), "typescript") for p, t in files.items())
    edges, _ = resolve_all(table)
    assert {(e.src, e.dst) for e in edges if e.type == "CALLS" and e.src == "use.ts#go"} == {
        ("use.ts#go", "maker.ts#buildCreateApi.baseCreateApi")}
    assert "use.ts" in incremental_equals_clean(files, "maker.ts", new)
