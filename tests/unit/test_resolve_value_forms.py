"""Values written in the forms real code uses most: ``a or b``, properties, slices, names
unpacked from a tuple, and a definition decorated by hand (``X = wrap(X)``). Each gives
the receiver a type only when every part of it agrees; otherwise calls stay guesses."""

from indexers.extract import extract_file
from indexers.resolve import SymbolTable, resolve_all

PYTHON = b"""\
import functools
import typing as t
from typing import List, Optional, Tuple

class Stack:
    def push(self, x): pass

class Other:
    def push(self, x): pass

def get_stack() -> "Stack":
    return Stack()

def either(s: Optional["Stack"] = None):
    x = s or get_stack()
    x.push(1)

def disagree(s: Stack, o: Other):
    x = s or o
    x.push(1)

class Console:
    def __init__(self):
        self.hooks: List[Stack] = []

    @property
    def stack(self) -> Stack:
        return self._local.stack

    @functools.cached_property
    def cached(self) -> Stack:
        return Stack()

    @property
    def settable(self):
        return Stack()

    @settable.setter
    def settable(self, v):
        pass

    def plain(self) -> Stack:
        return Stack()

    def use(self):
        self.stack.push(1)
        self.cached.push(2)
        self.settable.push(3)

    def not_a_property(self):
        self.plain.push(4)

    def sliced(self):
        for h in self.hooks[1:]:
            h.push(5)

def loader() -> t.Tuple["Stack", str]:
    return Stack(), ""

def pair():
    return Other(), Stack()

def unpacked():
    a, name = loader()
    a.push(1)
    o, s = pair()
    o.push(2)

def rest(xs: List[Other]):
    first, *others = xs
    first.push(1)
"""


def _calls() -> dict[tuple[str, str], tuple[str, float]]:
    ext = extract_file("m.py", PYTHON, "python")
    edges, _ = resolve_all(SymbolTable([ext]))
    return {(e.src, e.dst): (e.reason, e.confidence) for e in edges if e.type == "CALLS"}


def _calls_by_caller(edges, suffix: str = "") -> dict[str, dict[str, tuple[str, float]]]:
    """Per caller, its CALLS targets (those ending with ``suffix``) and their (reason, confidence)."""
    calls: dict[str, dict[str, tuple[str, float]]] = {}
    for e in edges:
        if e.type == "CALLS" and e.dst.endswith(suffix):
            calls.setdefault(e.src, {})[e.dst] = (e.reason, e.confidence)
    return calls


def test_a_or_b_has_the_type_both_sides_agree_on():
    calls = _calls()
    assert calls[("m.py#either", "m.py#Stack.push")] == ("type", 1.0)
    assert ("m.py#either", "m.py#Other.push") not in calls
    assert calls[("m.py#disagree", "m.py#Stack.push")][0] == "candidate"


def test_a_property_read_is_its_getters_result():
    calls = _calls()
    assert calls[("m.py#Console.use", "m.py#Stack.push")] == ("type", 1.0)
    assert ("m.py#Console.use", "m.py#Other.push") not in calls  # the setter's getter too
    # A method read without a call is the method: nothing of its result is guessed as sure.
    assert calls[("m.py#Console.not_a_property", "m.py#Stack.push")][0] == "candidate"


def test_a_slice_is_the_container_it_was_cut_from():
    assert _calls()[("m.py#Console.sliced", "m.py#Stack.push")] == ("type", 1.0)


def test_names_unpacked_from_a_tuple_take_its_elements_by_position():
    calls = _calls()
    assert calls[("m.py#unpacked", "m.py#Stack.push")] == ("type", 1.0)  # declared Tuple[Stack, str]
    assert calls[("m.py#unpacked", "m.py#Other.push")] == ("type", 1.0)  # `return Other(), Stack()`
    assert calls[("m.py#rest", "m.py#Other.push")] == ("type", 1.0)
    assert ("m.py#rest", "m.py#Stack.push") not in calls


def test_typescript_nullish_and_or_operands_that_agree():
    source = b"""\
class A { m() {} }
class B { m() {} }
function f(a?: A) {
  const x = a ?? new A();
  x.m();
}
function g(a: A, b: B) {
  const y = a || b;
  y.m();
}
"""
    ext = extract_file("m.ts", source, "typescript")
    edges, _ = resolve_all(SymbolTable([ext]))
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in edges if e.type == "CALLS"}
    assert calls[("m.ts#f", "m.ts#A.m")] == ("type", 1.0)
    assert ("m.ts#f", "m.ts#B.m") not in calls
    assert calls[("m.ts#g", "m.ts#A.m")][1] < 1.0


def test_code_run_in_a_class_body_sees_the_names_defined_there_and_bases_do_not():
    source = b"""\
class date:
    def toordinal(self): pass

class datetime(date):
    def date(self): pass

    def __add__(self, o):
        self.toordinal()

class Lexer:
    class error(Exception): pass
    class abort(error): pass

    def _inline(a):
        return a

    tokens = [_inline(1)]

    def method(self):
        _inline(2)
"""
    ext = extract_file("m.py", source, "python")
    edges, _ = resolve_all(SymbolTable([ext]))
    got = {(e.type, e.src, e.dst): (e.reason, e.confidence) for e in edges}
    # `class datetime(date)`: the base is looked up around the class, not in its body
    assert ("INHERITS", "m.py#datetime", "m.py#date") in got
    assert got[("CALLS", "m.py#datetime.__add__", "m.py#date.toordinal")] == ("self", 1.0)
    assert ("INHERITS", "m.py#Lexer.abort", "m.py#Lexer.error") in got
    assert got[("CALLS", "m.py#Lexer", "m.py#Lexer._inline")] == ("scope", 1.0)
    # A method does not see its class's names unqualified.
    assert ("CALLS", "m.py#Lexer.method", "m.py#Lexer._inline") not in got


def test_typed_code_generic_bases_aliases_awaits_callables_and_checker_only_types():
    source = b"""\
import sys
import typing
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

T = TypeVar("T")

class Base(typing.Mapping[str, T]):
    def items_of(self): pass

class Derived(Base[int]):
    def run(self):
        self.items_of()

class Response:
    def close(self): pass

class Manager(Generic[T]):
    def __init__(self, coro): pass
    def close(self): pass
    def missing(self):
        self.undefined()

RequestManager = Manager[Response]

def request() -> RequestManager:
    return RequestManager(1)

class Client:
    async def start(self): pass

class Case:
    async def get_client(self) -> Client:
        return Client()

    async def set_up(self):
        self.client = await self.get_client()
        await self.client.start()

if sys.version_info >= (3, 11) and TYPE_CHECKING:
    class Factory(Protocol):
        def __call__(self, app) -> Client: ...
else:
    class Factory:
        pass

def test(make: Factory):
    client = make(1)
    client.start()
    request().close()
"""
    ext = extract_file("m.py", source, "python")
    edges, _ = resolve_all(SymbolTable([ext]))
    got = {(e.type, e.src, e.dst): (e.reason, e.confidence) for e in edges}
    assert ("INHERITS", "m.py#Derived", "m.py#Base") in got  # `Base[int]`: the generic's own class
    assert got[("CALLS", "m.py#Derived.run", "m.py#Base.items_of")] == ("self", 1.0)
    # `Generic[T]` gives no members: a missing one is not an external call of typing.Generic
    assert not any(k[1] == "m.py#Manager.missing" and k[0] == "CALLS" for k in got)
    assert got[("CALLS", "m.py#request", "m.py#Manager")][1] == 1.0  # an alias of a generic, called
    assert got[("CALLS", "m.py#test", "m.py#Manager.close")] == ("type", 1.0)
    assert got[("CALLS", "m.py#Case.set_up", "m.py#Client.start")] == ("type", 1.0)  # through `await`
    # The type checkers' Factory (its `__call__` returns a Client), not the run-time one
    assert got[("CALLS", "m.py#test", "m.py#Client.start")] == ("type", 1.0)
    assert "m.py#Factory@2" in set(ext.shadowed)


def test_casts_caught_exceptions_and_unpacked_loop_items():
    source = b"""\
import typing as t
from typing import Iterator, Tuple

class Multi:
    def list_commands(self): pass

class Command:
    def short(self): pass

class Failure(Exception):
    def show(self): pass

def visible() -> Iterator[Tuple[str, "Command"]]:
    yield "", Command()

def f(ctx):
    multi = t.cast(Multi, ctx.command)
    multi.list_commands()
    quoted = t.cast("Multi", ctx.other)
    quoted.list_commands()
    for name, command in visible():
        command.short()
    try:
        pass
    except Failure as e:
        e.show()
"""
    ext = extract_file("m.py", source, "python")
    edges, _ = resolve_all(SymbolTable([ext]))
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in edges if e.type == "CALLS"}
    assert calls[("m.py#f", "m.py#Multi.list_commands")] == ("type", 1.0)
    assert calls[("m.py#f", "m.py#Command.short")] == ("type", 1.0)
    assert calls[("m.py#f", "m.py#Failure.show")] == ("type", 1.0)


def test_a_class_attribute_a_subclass_sets_again_is_any_of_them_through_self():
    source = b"""\
class Response:
    def css(self): pass
    def both(self): pass

class TextResponse(Response):
    def css(self): pass

class Base:
    response_class = Response

    def links(self):
        return self.response_class("x")

class Text(Base):
    response_class = TextResponse

    def test(self):
        self.links().css()
        self.links().both()
        self.response_class().css()

class Stub(Base):
    def __init__(self):
        self.response_class = object  # a stand-in set in a method does not count
"""
    ext = extract_file("m.py", source, "python")
    edges, _ = resolve_all(SymbolTable([ext]))
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in edges if e.type == "CALLS"}
    # `links()` built a Response or a TextResponse: `css` is either, `both` only Response's
    assert calls[("m.py#Text.test", "m.py#Response.css")][0] == "candidate"
    assert calls[("m.py#Text.test", "m.py#TextResponse.css")] == ("type", 1.0)  # `self.response_class()` in Text
    assert calls[("m.py#Text.test", "m.py#Response.both")] == ("type", 1.0)


def test_a_result_declared_self_is_the_receivers_type():
    source = b"""\
from typing import Self

class Middleware:
    @classmethod
    def from_crawler(cls, crawler) -> Self:
        return cls(crawler)

    def process(self): pass

class Sub(Middleware):
    def process(self): pass

def pair():
    return 1, Middleware.from_crawler(2)

def t():
    _, mw = pair()
    mw.process()
    Sub.from_crawler(1).process()
"""
    ext = extract_file("m.py", source, "python")
    edges, _ = resolve_all(SymbolTable([ext]))
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in edges if e.type == "CALLS"}
    assert calls[("m.py#t", "m.py#Middleware.process")] == ("type", 1.0)
    assert calls[("m.py#t", "m.py#Sub.process")] == ("type", 1.0)


def test_chained_nested_and_starred_assignments_and_slices_of_literals():
    source = b"""\
def f1(): pass
def f2(): pass
def f3(): pass
def f4(): pass

a = b = f1
a()
c, (d, e) = f1, (f2, f3)
e()
x, *rest, z = f1, f2, f3, f4
rest[0]()
z()
ls = [f1, f2, f3]
part = ls[1:3]
part[0]()
"""
    ext = extract_file("m.py", source, "python")
    edges, _ = resolve_all(SymbolTable([ext]))
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in edges if e.type == "CALLS"}
    assert calls[("m.py", "m.py#f1")][1] == 1.0  # a = b = f1
    assert calls[("m.py", "m.py#f3")][1] == 1.0  # e from the nested tuple
    assert calls[("m.py", "m.py#f2")][1] == 1.0  # rest[0]
    assert calls[("m.py", "m.py#f4")][1] == 1.0  # z, counted from the end
    # A literal list's slice moves its entries: `part[0]` is not `ls[0]` (f1, already called above)
    ext2 = extract_file("n.py", b"def f1(): pass\nls = [f1]\npart = ls[1:]\npart[0]()\n", "python")
    edges2, _ = resolve_all(SymbolTable([ext2]))
    assert not [e for e in edges2 if e.type == "CALLS" and e.dst == "n.py#f1" and e.confidence == 1.0]


def test_a_self_call_only_subclasses_define_is_a_candidate_of_each():
    source = b"""\
class Mixin:
    def __aexit__(self):
        self.release()
        self.nowhere()

class Lock(Mixin):
    def release(self): pass

class Semaphore(Mixin):
    def release(self): pass

class Unrelated:
    def release(self): pass
"""
    ext = extract_file("m.py", source, "python")
    edges, _ = resolve_all(SymbolTable([ext]))
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in edges if e.type == "CALLS"}
    # a class deriving from Mixin and another base may take the other base's: never sure
    assert calls[("m.py#Mixin.__aexit__", "m.py#Lock.release")] == ("candidate", round(1 / 3, 4))
    assert calls[("m.py#Mixin.__aexit__", "m.py#Semaphore.release")] == ("candidate", round(1 / 3, 4))
    assert ("m.py#Mixin.__aexit__", "m.py#Unrelated.release") not in calls


def test_a_parameter_declared_as_a_union_may_be_any_of_its_classes():
    source = b"""\
import typing as t

class ContentRange:
    def to_header(self): pass

def f(value: ContentRange | str | None):
    if isinstance(value, str):
        return value
    return value.to_header()

def g(value: t.Union[ContentRange, str]):
    return value.to_header()
"""
    ext = extract_file("m.py", source, "python")
    edges, _ = resolve_all(SymbolTable([ext]))
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in edges if e.type == "CALLS"}
    # After `if isinstance(value, str): return`, value is what its union says but a str.
    assert calls[("m.py#f", "m.py#ContentRange.to_header")] == ("type", 1.0)
    # The only class of the union with the method; not proven (it may be called on a str): a candidate.
    assert calls[("m.py#g", "m.py#ContentRange.to_header")][1] < 1.0


def test_union_parts_reads_both_spellings():
    from indexers.resolve.types import union_parts

    assert union_parts("ContentRange | str | None") == ["ContentRange", "str", "None"]
    assert union_parts("t.Union[A, Dict[str, B]]") == ["A", "Dict[str, B]"]
    assert union_parts("Optional[A]") == []
    assert union_parts("A") == []


def test_a_definition_the_module_also_assigns_is_one_of_two():
    """`if ...: class tqdm(...)` / `else: tqdm = asyncio_tqdm` (also `try: def f` / `except:
    f = g`): a call or a value of the name is either, in the file and for its importers. A
    variable's own value and a definition wrapped by hand (`X = wrap(X)`) are not such a pair,
    and a base class stays the definition."""
    files = {
        "pkg/__init__.py": b"",
        "pkg/asyncio.py": b"class tqdm_asyncio:\n    pass\ntqdm = tqdm_asyncio\n",
        "pkg/auto.py": b"""\
from .asyncio import tqdm as asyncio_tqdm
if cond():
    class tqdm(asyncio_tqdm):
        pass
else:
    tqdm = asyncio_tqdm

def trange():
    return tqdm()

def wrapped():
    pass
wrapped = deco(wrapped)

def g():
    wrapped()
""",
        "use.py": b"from pkg.auto import tqdm\nfrom pkg.asyncio import tqdm as plain\n\ndef f():\n    tqdm()\n\n"
                  b"def h():\n    plain()\n\nclass Slack(tqdm):\n    pass\n",
    }
    exts = [extract_file(path, source, "python") for path, source in files.items()]
    edges, _ = resolve_all(SymbolTable(exts))
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in edges if e.type == "CALLS"}
    for caller in ("pkg/auto.py#trange", "use.py#f"):
        assert calls[(caller, "pkg/auto.py#tqdm")] == ("candidate", 0.5)
        assert calls[(caller, "pkg/asyncio.py#tqdm_asyncio")] == ("candidate", 0.5)
    assert calls[("use.py#h", "pkg/asyncio.py#tqdm_asyncio")][1] == 1.0  # the variable is what it holds
    assert calls[("pkg/auto.py#g", "pkg/auto.py#wrapped")] == ("scope", 1.0)
    assert {e.dst for e in edges if e.type == "INHERITS" and e.src == "use.py#Slack"} == {"pkg/auto.py#tqdm"}


def test_isinstance_narrows_a_name_inside_its_block_only():
    """`if isinstance(x, Foo):` (and `elif`): x is a Foo in that body; before and after it, and
    for a name the body assigns or returns, nothing changes (a Python `if` scopes no name)."""
    source = b"""\
class Foo:
    def m(self): pass

class Bar:
    def m(self): pass
    def n(self): pass

def make(flag):
    if isinstance(flag, Foo):
        return Foo()
    return Bar()

def inside(x, y: Foo):
    if isinstance(y, Bar):
        y.m()
    elif isinstance(x, Foo):
        x.n()

def after(y: Foo):
    if isinstance(y, Bar):
        z = Bar()
    y.m()
    z.n()

def returned():
    make(1).m()

try:
    class Stooges:
        pass
except Exception as exc:
    Stooges = None

def g():
    if isinstance(Stooges, Exception):
        raise Stooges
    return Stooges
"""
    ext = extract_file("m.py", source, "python")
    edges, _ = resolve_all(SymbolTable([ext]))
    calls = _calls_by_caller(edges)
    # y is a Bar in the body; in the elif, x is a Foo (which has no n: nothing confident)
    assert calls["m.py#inside"]["m.py#Bar.m"] == ("type", 1.0)
    assert "m.py#Foo.m" not in calls["m.py#inside"]
    assert all(conf < 1.0 for dst, (_, conf) in calls["m.py#inside"].items() if dst.endswith(".n"))
    # after it, y is as declared; z, bound in the body, is the function's
    assert calls["m.py#after"] == {"m.py#Bar": ("scope", 1.0), "m.py#Foo.m": ("type", 1.0),
                                   "m.py#Bar.n": ("type", 1.0)}
    # make() returns a Foo or a Bar: both returns count, the one in the body too
    assert all(conf < 1.0 for _, conf in calls["m.py#returned"].values() if _ != "scope")
    assert "m.py#Stooges" not in calls.get("m.py#g", {})  # an Exception instance in the body
    refs = {(e.src, e.dst) for e in edges if e.type == "REFERENCES"}
    assert ("m.py#g", "m.py#Stooges") in refs


def test_a_union_of_types_is_one_of_them():
    """`x: A | B` (or `Union[A, B]`, `isinstance(x, (A, B))`): a method they share is called
    with confidence, methods they do not share are the candidates (and no other type's method
    of that name); a union of builtins is a builtin; a union with anything unknown says nothing."""
    source = b"""\
from typing import Union

class Base:
    def m(self): pass

class A(Base):
    pass

class B(Base):
    def m(self): pass

class C:
    def m(self): pass
    def only_c(self): pass

def shared(x: A | Base):
    x.m()

def either(x: "Union[A, B, None]"):
    x.m()

def narrowed(x):
    if isinstance(x, (A, C)):
        x.m()

def exits(x):
    if not isinstance(x, (A, Base)):
        return
    x.m()

def builtins(x: list | tuple):
    x.m()

def partly_unknown(x: A | Missing):
    x.m()
"""
    ext = extract_file("m.py", source, "python")
    edges, _ = resolve_all(SymbolTable([ext]))
    calls = _calls_by_caller(edges, ".m")
    assert calls["m.py#shared"] == {"m.py#Base.m": ("type", 1.0)}
    assert calls["m.py#exits"] == {"m.py#Base.m": ("type", 1.0)}
    assert calls["m.py#either"] == {"m.py#Base.m": ("candidate", 0.5), "m.py#B.m": ("candidate", 0.5)}
    assert calls["m.py#narrowed"] == {"m.py#Base.m": ("candidate", 0.5), "m.py#C.m": ("candidate", 0.5)}
    assert "m.py#builtins" not in calls
    # Nothing known of `Missing`: the name guess, as before, never a confident edge.
    assert all(conf < 1.0 for _, conf in calls["m.py#partly_unknown"].values())


def test_an_early_exit_on_not_isinstance_narrows_the_statements_after_it():
    """`if not isinstance(x, Foo): raise ...` (or return, continue, break): x is a Foo after it,
    to the end of that body; an `if` that rebinds x instead, or has an `else`, narrows nothing."""
    source = b"""\
class Foo:
    def m(self): pass

class Bar:
    def m(self): pass

def before(x):
    x.m()
    if not isinstance(x, Foo):
        raise TypeError(x)

def after(x):
    if not isinstance(x, Foo):
        raise TypeError(x)
    x.m()

def loop(items):
    for x in items:
        if not isinstance(x, Bar):
            continue
        x.m()

def coerced(x):
    if not isinstance(x, Foo):
        x = make(x)
    x.m()

def with_else(x):
    if not isinstance(x, Foo):
        return None
    else:
        pass
    x.m()
"""
    ext = extract_file("m.py", source, "python")
    edges, _ = resolve_all(SymbolTable([ext]))
    calls = _calls_by_caller(edges, ".m")
    assert calls["m.py#after"] == {"m.py#Foo.m": ("type", 1.0)}
    assert calls["m.py#loop"] == {"m.py#Bar.m": ("type", 1.0)}
    for unchanged in ("m.py#before", "m.py#coerced", "m.py#with_else"):
        assert all(conf < 1.0 for _, conf in calls[unchanged].values()), unchanged


def test_where_an_isinstance_test_failed_the_name_is_the_rest_of_its_union():
    """The `else` right after `isinstance(x, A)` (or the statements after `if isinstance(x, A):
    return`): x is its declared union but A; the tests before it too (`if ... return` then
    `if ... else`). The `else` of `if not isinstance(x, A)` is an A. A name not declared
    around is what it was; a test of a type the union does not name removes nothing."""
    source = b"""\
class Base:
    def m(self): pass

class A(Base):
    def only_a(self): pass

class B(Base):
    def m(self): pass
    def only_b(self): pass

class C(Base):
    def only_c(self): pass

def in_else(x: A | B | None):
    if isinstance(x, A):
        x.only_a()
    else:
        x.only_b()

def after_elif(v: B | str | None):
    if not v:
        pass
    elif isinstance(v, str):
        pass
    else:
        v.only_b()

def chained(x: A | B | C):
    if isinstance(x, A):
        return
    if isinstance(x, B):
        x.only_b()
    else:
        x.only_c()

def elif_chain(x: A | B | C, y):
    if isinstance(x, A):
        pass
    elif isinstance(y, B):
        pass
    elif isinstance(x, B):
        pass
    else:
        x.only_c()

def negated_else(x: A | B):
    if not isinstance(x, A):
        pass
    else:
        x.only_a()

def by_value():
    v = B()
    if isinstance(v, str):
        return
    v.only_b()

def untested(x: A | B):
    if isinstance(x, Other):
        return
    x.m()
"""
    ext = extract_file("m.py", source, "python")
    edges, _ = resolve_all(SymbolTable([ext]))
    calls = _calls_by_caller(edges, "")
    assert calls["m.py#in_else"] == {"m.py#A.only_a": ("type", 1.0), "m.py#B.only_b": ("type", 1.0)}
    assert calls["m.py#after_elif"] == {"m.py#B.only_b": ("type", 1.0)}
    assert calls["m.py#chained"] == {"m.py#B.only_b": ("type", 1.0), "m.py#C.only_c": ("type", 1.0)}
    assert calls["m.py#elif_chain"] == {"m.py#C.only_c": ("type", 1.0)}
    assert calls["m.py#negated_else"] == {"m.py#A.only_a": ("type", 1.0)}
    assert calls["m.py#by_value"]["m.py#B.only_b"] == ("type", 1.0)
    assert calls["m.py#untested"] == {"m.py#Base.m": ("candidate", 0.5), "m.py#B.m": ("candidate", 0.5)}


def test_an_assert_isinstance_narrows_the_statements_after_it():
    """`assert isinstance(x, Foo)` (with a message or not): x is a Foo after it, to the end of
    the body; `assert not isinstance(x, Foo)`: x is its declared union but Foo. An assert with
    more than the test, or a definition right after it, narrows nothing; an `if` whose tests
    are `and`-ed narrows its body by each."""
    source = b"""\
class Foo:
    def only_foo(self): pass

class Bar:
    def only_bar(self): pass

def asserted(x):
    assert isinstance(x, Foo), "a Foo"
    x.only_foo()

def asserted_not(x: Foo | Bar):
    assert not isinstance(x, Foo)
    x.only_bar()

def more(x):
    assert isinstance(x, Foo) and x
    x.only_foo()

def conjunct(x, y):
    if isinstance(x, Foo) and x.ready and isinstance(y, Bar):
        x.only_foo()
        y.only_bar()

def disjunct(x):
    if isinstance(x, Foo) or x:
        x.only_foo()
"""
    ext = extract_file("m.py", source, "python")
    edges, _ = resolve_all(SymbolTable([ext]))
    calls = _calls_by_caller(edges, "")
    assert calls["m.py#asserted"] == {"m.py#Foo.only_foo": ("type", 1.0)}
    assert calls["m.py#asserted_not"] == {"m.py#Bar.only_bar": ("type", 1.0)}
    assert all(conf < 1.0 for _, conf in calls["m.py#more"].values())
    # `if isinstance(x, Foo) and ...:` narrows the body as the test alone; `or` does not.
    assert calls["m.py#conjunct"] == {"m.py#Foo.only_foo": ("type", 1.0), "m.py#Bar.only_bar": ("type", 1.0)}
    assert all(conf < 1.0 for _, conf in calls["m.py#disjunct"].values())


def test_a_test_whose_branch_starts_with_a_definition_narrows_the_function_around():
    """A body or an `else` that starts with a `def` (attrs' converters): the name is narrowed
    in the function with the test, not in the definition that starts at the same byte (which
    once made the excluded types look for the name around it without end)."""
    source = b"""\
class Factory:
    def factory(self): pass

class Other:
    def only_other(self): pass

def converter(default: Factory | Other):
    if isinstance(default, Factory):
        def inner(val):
            return default.factory()
        default.factory()
    else:
        def inner(val):
            return default.only_other()
        default.only_other()
    return inner
"""
    ext = extract_file("m.py", source, "python")
    edges, _ = resolve_all(SymbolTable([ext]))
    calls = _calls_by_caller(edges, "")
    assert calls["m.py#converter"] == {"m.py#Factory.factory": ("type", 1.0), "m.py#Other.only_other": ("type", 1.0)}


def test_a_literal_read_by_an_unknown_key_may_be_any_of_its_entries():
    """`SUPPORTED_DECODERS[name]()`, `HANDLERS[i]()`: each entry of the literal is a candidate;
    a literal key still names its one entry, confidently."""
    source = b"""\
class Gzip:
    pass

class Brotli:
    pass

def plain():
    pass

DECODERS = {"gzip": Gzip, "br": Brotli}
HANDLERS = [plain, Gzip]

def by_name(value):
    return DECODERS[value]()

def by_index(i):
    HANDLERS[i]()

def by_literal():
    return DECODERS["br"]()
"""
    ext = extract_file("m.py", source, "python")
    edges, _ = resolve_all(SymbolTable([ext]))
    calls = _calls_by_caller(edges)
    assert set(calls["m.py#by_name"]) == {"m.py#Gzip", "m.py#Brotli"}
    assert set(calls["m.py#by_index"]) == {"m.py#plain", "m.py#Gzip"}
    assert all(reason == "candidate" and conf < 1.0
               for src in ("m.py#by_name", "m.py#by_index") for reason, conf in calls[src].values())
    assert calls["m.py#by_literal"] == {"m.py#Brotli": ("type", 1.0)}


def test_a_module_level_literal_code_changes_still_gives_its_entries_as_candidates():
    """`SUPPORTED.pop("br")` makes the literal's contents unproven (no confident edge), but
    what it was written with are still the candidates, for its importers too."""
    files = {
        "pkg/__init__.py": b"",
        "pkg/dec.py": b"""\
class Gzip:
    pass

class Brotli:
    pass

SUPPORTED = {"gzip": Gzip, "br": Brotli}
if brotli is None:
    SUPPORTED.pop("br")
""",
        "pkg/models.py": b"""\
from .dec import SUPPORTED

def decoders(values):
    return [SUPPORTED[value]() for value in values]

def first():
    return SUPPORTED["gzip"]()
""",
    }
    exts = [extract_file(path, source, "python") for path, source in files.items()]
    edges, _ = resolve_all(SymbolTable(exts))
    calls = _calls_by_caller(edges)
    assert set(calls["pkg/models.py#decoders"]) == {"pkg/dec.py#Gzip", "pkg/dec.py#Brotli"}
    assert all(conf < 1.0 for _, conf in calls["pkg/models.py#decoders"].values())
    assert all(conf < 1.0 for _, conf in calls.get("pkg/models.py#first", {}).values())


def test_a_name_rebound_from_itself_keeps_the_type_the_others_give():
    """`node = start` then `node = node.child(n)` in a loop: node is a Node when reading it
    as one gives a Node again; `node = node.other()` giving something else leaves it unknown."""
    source = b"""\
class Node:
    def child(self, name) -> "Node":
        return Node()
    def other(self):
        return 1
    def m(self): pass

class Leaf:
    def m(self): pass

def walk(start: Node, names):
    node = start
    for n in names:
        node = node.child(n)
    node.m()

def drift(start: Node, names):
    node = start
    for n in names:
        node = node.other()
    node.m()
"""
    ext = extract_file("m.py", source, "python")
    edges, _ = resolve_all(SymbolTable([ext]))
    calls = _calls_by_caller(edges)
    assert calls["m.py#walk"]["m.py#Node.m"] == ("type", 1.0)
    assert calls["m.py#walk"]["m.py#Node.child"] == ("type", 1.0)
    assert "m.py#Leaf.m" not in calls["m.py#walk"]
    assert all(conf < 1.0 for dst, (_, conf) in calls["m.py#drift"].items() if dst.endswith(".m"))


def test_a_go_parameter_redeclared_from_itself():
    """`func walk(node *Node) { node := node.Child() }`: one binding declares a type and no
    value, the other reads the name itself (Go's bindings each declare a variable)."""
    source = b"""\
package m

type Node struct{}

func (n *Node) Child() *Node { return n }
func (n *Node) M()           {}

func walk(node *Node) {
	node := node.Child()
	node.M()
}
"""
    ext = extract_file("m.go", source, "go")
    edges, _ = resolve_all(SymbolTable([ext]))
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in edges if e.type == "CALLS"}
    assert calls[("m.go#walk", "m.go#Node.M")] == ("type", 1.0)


def test_a_fallback_type_checkers_never_see_leaves_the_name_to_its_import():
    impl = b"def await_only(x):\n    return x\n"
    conc = b"""\
import typing
have = False
try:
    import greenlet
except ImportError:
    pass
else:
    have = True
    from ._impl import await_only as await_only

if not typing.TYPE_CHECKING and not have:
    def await_only(thing):
        return None

    def spawn():
        await_only(1)
"""
    user = b"from .conc import await_only, spawn\n\ndef f():\n    await_only(1)\n    spawn()\n"
    exts = [extract_file("pkg/__init__.py", b"", "python"), extract_file("pkg/_impl.py", impl, "python"),
            extract_file("pkg/conc.py", conc, "python"), extract_file("pkg/user.py", user, "python")]
    edges, _ = resolve_all(SymbolTable(exts))
    calls = {(e.src, e.dst) for e in edges if e.type == "CALLS"}
    # The definition stays a node, but the name holds what the import binds (as type checkers read it)
    assert ("pkg/user.py#f", "pkg/_impl.py#await_only") in calls
    assert ("pkg/conc.py#spawn", "pkg/_impl.py#await_only") in calls
    assert not any(dst == "pkg/conc.py#await_only" for _, dst in calls)
    # A name only the guarded block defines is its own
    assert ("pkg/user.py#f", "pkg/conc.py#spawn") in calls
