"""Calls through inferred types: annotations, constructor and function results, fields,
variables holding functions, context managers and Python's method resolution order."""

from indexers.extract import extract_file
from indexers.resolve import SymbolTable, resolve_all, resolve_file
from tests.unit.symbols_helpers import targets_by_source

MODELS = """\
from typing import Optional

class Base:
    def save(self): pass
    def __enter__(self):
        return self

class Engine(Base):
    def start(self): pass

class Car:
    spare: Engine

    def __init__(self, engine: Engine, backup=None):
        self.engine = engine
        self.trailer = Engine()
        self.backup = backup

    def drive(self):
        self.engine.start()
        self.trailer.save()
        self.spare.start()
        self.backup.start()

    def maybe(self) -> Optional[Engine]:
        return None

    def me(self):
        return self

def make_engine():
    return Engine()

def helper(): pass

def make_helper():
    def inner(): pass
    return inner

class Other:
    def start(self): pass
    def nothing(self): pass
    def render(self): pass
"""

APP = """\
import widgets
from pkg.models import Car, Engine, make_engine, helper, make_helper
from pkg import models

car = Car(Engine())
car.drive()

def annotated(e: Engine, c: "Car | None" = None):
    e.start()
    c.drive()

def results():
    make_engine().start()
    made = make_engine()
    made.save()
    Car(None).maybe().start()
    Car(None).me().drive()

def variables():
    a = helper
    a()
    b = models.helper
    b()
    c = make_helper()
    c()

def unknown(x, flag):
    e = Engine() if flag else x
    e.start()
    for f in x:
        f.start()

def missing(e: Engine):
    e.nothing()

def context():
    with Engine() as eng:
        eng.start()

class Sub(widgets.Widget):
    def run(self):
        self.render()

def external(s: Sub):
    s.render()
"""

MRO = """\
class A:
    def m(self): pass
class B(A): pass
class C(A):
    def m(self): pass
class D(B, C):
    def run(self):
        self.m()

class X:
    def m(self): pass
class Y(X): pass
class Z:
    def m(self): pass
class W(Y, Z):
    def run(self):
        self.m()
        super().m()

class E(C):
    def m(self):
        super().m()

def use(w: W):
    w.m()
"""

FILES = {"pkg/__init__.py": "", "pkg/models.py": MODELS, "app.py": APP, "mro.py": MRO}


def _calls() -> dict[str, dict[str, tuple[str, float]]]:
    exts = [extract_file(path, src.encode(), "python") for path, src in FILES.items()]
    table = SymbolTable(exts)
    return targets_by_source(e for ext in exts for e in resolve_file(ext, table))


CALLS = _calls()
M = "pkg/models.py#"


def _confident(src: str) -> set[str]:
    return {dst for dst, (_, conf) in CALLS.get(src, {}).items() if conf == 1.0}


def test_annotated_parameters_give_their_type_optional_and_quoted_too():
    assert _confident("app.py#annotated") == {M + "Engine.start", M + "Car.drive"}


def test_module_level_variable_bound_by_a_constructor():
    assert M + "Car.drive" in _confident("app.py")
    assert not any(d.startswith(M + "Other") for d in CALLS["app.py"])


def test_fields_assigned_in_the_constructor_or_annotated_in_the_class_body():
    drive = CALLS[M + "Car.drive"]
    assert drive[M + "Engine.start"] == ("type", 1.0)  # self.engine = engine: Engine, self.spare: Engine
    assert drive[M + "Base.save"] == ("type", 1.0)  # self.trailer = Engine(), inherited
    # self.backup = backup (unannotated): only the weak guesses by name
    assert drive[M + "Other.start"][1] < 1.0
    # A name with one binding of unknown value (a parameter, a loop) stays unknown too.
    starts = {d: c for d, (_, c) in CALLS["app.py#unknown"].items() if d.endswith(".start")}
    assert starts and all(c < 1.0 for c in starts.values())


def test_results_of_functions_and_methods_chain():
    assert _confident("app.py#results") == {
        "pkg/models.py#make_engine", M + "Engine.start", M + "Base.save", M + "Car", M + "Car.maybe",
        M + "Car.me", M + "Car.drive",
    }


def test_calls_of_variables_call_the_function_they_hold():
    assert _confident("app.py#variables") == {
        M + "helper", M + "make_helper", M + "make_helper.inner",
    }


def test_a_member_the_known_type_lacks_is_not_guessed():
    assert CALLS.get("app.py#missing", {}) == {}


def test_with_binds_what_enter_returns():
    assert M + "Engine.start" in _confident("app.py#context")


def test_a_member_missing_from_workspace_classes_is_external_when_a_base_is():
    assert CALLS["app.py#Sub.run"] == {"ext:widgets.Widget#render": ("external", 1.0)}
    assert CALLS["app.py#external"] == {"ext:widgets.Widget#render": ("external", 1.0)}


def test_inherited_members_follow_the_method_resolution_order():
    assert _confident("mro.py#D.run") == {"mro.py#C.m"}
    assert "mro.py#X.m" in _confident("mro.py#W.run")  # W, Y, X, Z: not Z.m
    assert "mro.py#Z.m" not in CALLS["mro.py#W.run"]
    assert _confident("mro.py#E.m") == {"mro.py#C.m"}
    assert _confident("mro.py#use") == {"mro.py#X.m"}


LOOPS = """\
import typing as t
from typing import List, overload

class Param:
    def go(self): pass

class Formatter:
    def write(self): pass

class Command:
    formatter_class: t.Type[Formatter] = Formatter
    params: List[Param]

    def get_params(self) -> t.List["Param"]:
        return []

    @overload
    def get(self, a: int) -> int: ...
    @overload
    def get(self, a: str) -> str: ...
    def get(self, a):
        return a

    def run(self):
        for p in self.get_params():
            p.go()
        for q in self.params:
            q.go()
        self.formatter_class().write()
        self.get(1)
"""


def test_loop_variables_class_types_and_overloads():
    exts = [extract_file("loops.py", LOOPS.encode(), "python")]
    table = SymbolTable(exts)
    run = {e.dst: (e.reason, e.confidence) for e in resolve_file(exts[0], table)
           if e.type == "CALLS" and e.src == "loops.py#Command.run"}
    assert run["loops.py#Param.go"] == ("type", 1.0)  # elements of List[Param], declared twice
    assert run["loops.py#Formatter.write"] == ("type", 1.0)  # Type[Formatter]() is a Formatter
    # The overload stubs are replaced by the implementation written after them.
    assert run["loops.py#Command.get@3"] == ("self", 1.0)
    assert "loops.py#Command.get" not in run and "loops.py#Command.get@2" not in run


CHAINS = """\
def inner(): pass
def outer():
    return inner
def first(): pass
def second(): pass

a, b = first, second
a()
b()
outer()()

class Maker:
    def make(self):
        return self.build
    def build(self): pass

Maker().make()()
"""


def test_calls_of_call_results_and_names_bound_in_a_tuple():
    exts = [extract_file("chains.py", CHAINS.encode(), "python")]
    table = SymbolTable(exts)
    top = {e.dst for e in resolve_file(exts[0], table) if e.type == "CALLS" and e.src == "chains.py"
           and e.confidence == 1.0}
    assert {"chains.py#first", "chains.py#second", "chains.py#inner", "chains.py#Maker.build"} <= top


TYPING = """\
import typing as t
from typing import Any, Union

class A:
    def run(self): pass

class B:
    def run(self): pass

def f(x: Union[A, B], y: Any, z: t.Dict[str, A], a: t.Optional[A]):
    x.run()
    y.run()
    z.run()
    a.run()
"""


def test_typing_constructs_say_nothing_about_members_optional_does():
    exts = [extract_file("typing_use.py", TYPING.encode(), "python")]
    calls = {e.dst: e.confidence for e in resolve_file(exts[0], SymbolTable(exts)) if e.type == "CALLS"}
    assert not any(dst.startswith("ext:typing") for dst in calls)
    assert calls["typing_use.py#A.run"] == 1.0  # a: t.Optional[A]
    assert calls["typing_use.py#B.run"] < 1.0  # x, y, z: only guesses


CLASS_FIELDS = """\
class Template:
    def render(self): pass

class Engine:
    def from_string(self, code):
        return Template()

class Other:
    def from_string(self): pass

class Tests:
    @classmethod
    def setUpClass(cls):
        cls.engine = Engine()

    def test(self):
        t = self.engine.from_string("")
        t.render()
"""


def test_fields_assigned_through_cls_in_a_classmethod():
    exts = [extract_file("cls_fields.py", CLASS_FIELDS.encode(), "python")]
    calls = {e.dst: (e.reason, e.confidence) for e in resolve_file(exts[0], SymbolTable(exts))
             if e.type == "CALLS" and e.src == "cls_fields.py#Tests.test"}
    assert calls == {"cls_fields.py#Engine.from_string": ("type", 1.0), "cls_fields.py#Template.render": ("type", 1.0)}


LAMBDAS = """\
def make():
    return (lambda v: v + 1)

x = lambda x: x + 1
y = make()

def use():
    x(1)
    y(2)
"""


def test_a_variable_defined_as_a_lambda_is_the_function_called_and_one_holding_another_calls_none():
    # `x` is the only name its lambda has; `y` holds a lambda `make` returns, which is not `y`.
    exts = [extract_file("lambdas.py", LAMBDAS.encode(), "python")]
    calls = {e.dst for e in resolve_file(exts[0], SymbolTable(exts)) if e.type == "CALLS" and e.src == "lambdas.py#use"}
    assert calls == {"lambdas.py#x"}


ITERATION = """\
def step(): pass

class Numbers:
    def __iter__(self):
        return self
    def __next__(self):
        return step

class Lines:
    def __iter__(self):
        yield 1

def walk(items):
    for n in Numbers():
        n()
    lines = Lines()
    for line in lines:
        pass
    for x in items:
        pass
"""


def test_a_loop_over_an_instance_calls_its_iteration_methods_and_the_element_is_their_result():
    exts = [extract_file("it.py", ITERATION.encode(), "python")]
    calls = {e.dst: (e.reason, e.confidence) for e in resolve_file(exts[0], SymbolTable(exts))
             if e.type == "CALLS" and e.src == "it.py#walk"}
    assert calls == {
        "it.py#Numbers": ("scope", 1.0), "it.py#Numbers.__iter__": ("type", 1.0),
        "it.py#Numbers.__next__": ("type", 1.0), "it.py#step": ("type", 1.0),
        "it.py#Lines": ("scope", 1.0), "it.py#Lines.__iter__": ("type", 1.0),  # a generator: no __next__ known
    }


CONTAINERS = """\
def f(): pass
def g(): pass
def h(): pass

table = [f, g]
handlers = {"a": f, 1: g, "1": h}
changed = {"a": f}
changed["a"] = g
updated = {"a": f}
updated.update({"a": g})

table[0]()
table[1]()
handlers["a"]()
handlers[1]()
handlers["1"]()
changed["a"]()
updated["a"]()
table[-1]()

def make():
    local = {"k": h}
    return local

make()["k"]()
"""


def test_literal_containers_give_their_entries_by_literal_key_unless_their_contents_change():
    exts = [extract_file("c.py", CONTAINERS.encode(), "python")]
    calls = {e.dst: e.confidence for e in resolve_file(exts[0], SymbolTable(exts))
             if e.type == "CALLS" and e.src == "c.py"}
    # changed[...] and updated[...] are unknown (an item assigned, a method called),
    # table[-1] names no key written in the literal
    assert calls == {"c.py#f": 1.0, "c.py#g": 1.0, "c.py#h": 1.0, "c.py#make": 1.0}
    assert {c.receiver for c in exts[0].calls if c.name == ""} >= {"table[i:0]", 'handlers[s:a]', "make()[s:k]"}


FIELD_TABLES = """\
def f(): pass
def g(): pass

class Router:
    routes = {"a": f}
    fixed = {"a": f}

    def add(self):
        self.routes["a"] = g

    def run(self):
        self.routes["a"]()
        self.fixed["a"]()
"""


def test_a_field_holding_a_literal_is_unknown_once_an_item_is_assigned_through_any_receiver():
    exts = [extract_file("r.py", FIELD_TABLES.encode(), "python")]
    calls = {e.dst: e.confidence for e in resolve_file(exts[0], SymbolTable(exts))
             if e.type == "CALLS" and e.src == "r.py#Router.run"}
    assert calls == {"r.py#f": 1.0}  # from self.fixed; self.routes["a"] may be g


def test_a_value_of_a_type_variable_has_the_members_of_its_bound():
    files = {
        "pkg/base.py": b"""\
import typing
from typing import TypeVar

class Base:
    def parse(self): pass

T = TypeVar("T", bound=Base)
U = typing.TypeVar("U", bound="Base")
V = TypeVar("V")

def bounded(x: T) -> T:
    x.parse()
    return x

def quoted(y: U):
    y.parse()

def free(z: V):
    z.parse()
""",
        "pkg/use.py": b"""\
from pkg.base import T

def imported(a: T):
    a.parse()
""",
    }
    exts = [extract_file(p, s, "python") for p, s in files.items()]
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in resolve_all(SymbolTable(exts))[0] if e.type == "CALLS"}
    for caller in ("pkg/base.py#bounded", "pkg/base.py#quoted", "pkg/use.py#imported"):
        assert calls[(caller, "pkg/base.py#Base.parse")] == ("type", 1.0), caller
    # A type variable without a bound may be anything: a name guess at most.
    assert calls[("pkg/base.py#free", "pkg/base.py#Base.parse")][1] < 1.0


def test_a_method_returning_the_type_variable_of_its_receiver_returns_the_receiver_type():
    source = b"""\
from copy import copy
from typing import TypeVar

_Bound = TypeVar("_Bound", bound="Bound")
_Any = TypeVar("_Any")

class Bound:
    def __call__(self: _Bound, channel) -> _Bound:
        return self.bind(channel)

    def bind(self: _Bound, channel) -> _Bound:
        return copy(self)

    def clone(self: _Any) -> _Any:
        return self

class Queue(Bound):
    def declare(self): pass

def use(q: Queue):
    q(1).declare()
    q.bind(2).declare()
    q.clone().declare()
"""
    exts = [extract_file("entity.py", source, "python")]
    calls = targets_by_source(resolve_all(SymbolTable(exts))[0])["entity.py#use"]
    assert calls["entity.py#Queue.declare"] == ("type", 1.0)
    assert calls["entity.py#Bound.bind"] == ("type", 1.0)


def test_an_operator_expression_is_what_the_operand_method_for_it_returns():
    source = b"""\
class Element:
    def __add__(self, other) -> "And":
        return And()
    def __or__(self, other) -> "Element":
        return self
    def __invert__(self) -> "Not":
        return Not()
    def parse(self): pass

class And(Element):
    def parse(self): pass

class Not(Element):
    pass

def grammar():
    both = Element() + Element()
    both.parse()
    either = Element() | Element()
    either.parse()
    negated = ~Element()
    negated.parse()
    chained = Element() + Element() + Element()
    chained.parse()
    number = 1 + 2
    number.bit_length()
"""
    exts = [extract_file("grammar.py", source, "python")]
    calls = targets_by_source(resolve_all(SymbolTable(exts))[0])["grammar.py#grammar"]
    assert calls["grammar.py#And.parse"] == ("type", 1.0)  # `both` and `chained`
    assert calls["grammar.py#Element.parse"] == ("type", 1.0)  # `either`, and `negated` through `Not`
    assert set(calls) == {"grammar.py#Element", "grammar.py#And.parse", "grammar.py#Element.parse"}


# A pool of connections: the loops, comprehensions and rebindings below are methods of it.
_POOL = b"""\
class Conn:
    def is_idle(self): pass

class Other:
    def close(self): pass

class Pool:
    def __init__(self):
        self.connections: list[Conn] = []
        self.by_name: dict[str, Conn] = {}
"""


def _pool_calls(methods: bytes) -> dict[str, dict[str, tuple[str, float]]]:
    """The calls of `_POOL` with ``methods`` (indented as a class body's) added to its class."""
    exts = [extract_file("pool.py", _POOL + methods, "python")]
    return targets_by_source(resolve_all(SymbolTable(exts))[0])


def test_a_loop_through_a_builtin_that_keeps_the_elements_binds_one_of_them():
    calls = _pool_calls(b"""
    def copied(self):
        for c in list(self.connections):
            c.is_idle()

    def numbered(self):
        for i, c in enumerate(self.connections):
            c.is_idle()

    def paired(self):
        for name, c in zip(self.by_name, self.connections):
            c.is_idle()

    def comprehension(self):
        return [c.is_idle() for c in sorted(self.connections, key=id)]

    def keys(self):
        for k in list(self.by_name):
            k.is_idle()
""")
    for caller in ("copied", "numbered", "paired", "comprehension"):
        assert calls[f"pool.py#Pool.{caller}"] == {"pool.py#Conn.is_idle": ("type", 1.0)}, caller
    # A mapping's loop gives its keys, not its values.
    assert calls.get("pool.py#Pool.keys", {}).get("pool.py#Conn.is_idle", ("", 0.0))[1] < 1.0


def test_a_comprehension_names_its_own_variables():
    # Python 3 binds a comprehension's variables inside it: the function's `connection` is
    # still an `Other` after the comprehension, and inside it the name is an element.
    calls = _pool_calls(b"""
    def run(self):
        connection = Other()
        idle = [connection.is_idle() for connection in self.connections]
        connection.close()
        return sum(c.is_idle() for c in self.connections), {k: v for k, v in idle}
""")["pool.py#Pool.run"]
    assert calls["pool.py#Conn.is_idle"] == ("type", 1.0)
    assert calls["pool.py#Other.close"] == ("type", 1.0)


def test_a_loop_variable_in_its_body_is_the_element_unless_the_body_binds_it_again():
    calls = _pool_calls(b"""
    def make(self) -> Other:
        return Other()

    def sweep(self):
        for connection in list(self.connections):
            connection.is_idle()
        connection = self.make()

    def rebinding(self):
        for node in self.connections:
            node = transform(node)
            node.is_idle()
""")
    assert calls["pool.py#Pool.sweep"]["pool.py#Conn.is_idle"] == ("type", 1.0)
    assert calls["pool.py#Pool.rebinding"].get("pool.py#Conn.is_idle", ("", 0.0))[1] < 1.0


def test_an_isinstance_test_for_a_builtin_container_keeps_the_declared_elements():
    source = b"""\
from typing import Optional, List

class Challenge:
    def to_header(self): pass

def header(value: Challenge | list[Challenge] | None):
    if isinstance(value, list):
        value[0].to_header()
        for item in value[1:]:
            item.to_header()
    else:
        value.to_header()

def typing_forms(values: Optional[List[Challenge]]):
    if isinstance(values, list):
        for item in values:
            item.to_header()
"""
    exts = [extract_file("auth.py", source, "python")]
    calls = targets_by_source(resolve_all(SymbolTable(exts))[0])
    for caller in ("header", "typing_forms"):
        assert calls[f"auth.py#{caller}"] == {"auth.py#Challenge.to_header": ("type", 1.0)}, caller


def test_a_declared_mapping_gives_its_values_by_key_get_values_and_items():
    source = b"""\
class Handler:
    def run(self): pass

class Registry:
    def __init__(self):
        self.handlers: dict[str, Handler] = {}

    def by_key(self):
        self.handlers["x"].run()

    def by_get(self):
        found = self.handlers.get("x")
        found.run()

    def each_value(self):
        for handler in self.handlers.values():
            handler.run()

    def each_item(self):
        for name, handler in self.handlers.items():
            handler.run()

    def each_key(self):
        for name in self.handlers:
            name.run()
"""
    exts = [extract_file("registry.py", source, "python")]
    calls = targets_by_source(resolve_all(SymbolTable(exts))[0])
    for caller in ("by_key", "by_get", "each_value", "each_item"):
        assert calls[f"registry.py#Registry.{caller}"] == {"registry.py#Handler.run": ("type", 1.0)}, caller
    # A mapping's loop gives its keys.
    assert calls.get("registry.py#Registry.each_key", {}).get("registry.py#Handler.run", ("", 0.0))[1] < 1.0


_REBOUND = b"""\
class A:
    def a(self): pass
    def both(self): pass
class B:
    def b(self): pass
    def both(self): pass

def straight(xs):
    x = A()
    x.a()
    for y in xs:
        if y:
            x.both()
    x = B()
    x.b()

def in_a_loop(xs):
    x = A()
    for y in xs:
        x.both()
        x = B()

def in_a_closure():
    x = A()
    later = lambda: x.both()
    x = B()
    return later

def declared_nonlocal():
    x = A()
    def swap():
        nonlocal x
        x = B()
    swap()
    x.both()
    x = B()

def from_itself():
    x = A()
    x = x.both()
    x.both()
"""


def test_a_name_bound_again_holds_the_value_of_the_assignment_above_it():
    calls = targets_by_source(resolve_all(SymbolTable([extract_file("m.py", _REBOUND, "python")]))[0])
    assert calls["m.py#straight"]["m.py#A.both"] == ("type", 1.0)
    assert calls["m.py#straight"]["m.py#B.b"] == ("type", 1.0)
    assert "m.py#B.both" not in calls["m.py#straight"]
    # What a later binding may give: a loop coming back, a closure running later, a call
    # that rebinds it (`nonlocal`): no single assignment holds.
    for caller in ("in_a_loop", "in_a_closure", "declared_nonlocal"):
        assert calls[f"m.py#{caller}"].get("m.py#A.both", ("", 0.0))[1] < 1.0, caller
