"""Elements read through builtins and comprehensions: ``next(it)``, ``max(xs)``,
``sorted(xs)[0]``, ``list(xs)``, ``[f for f in xs if f]``. Each is an element of the argument
(or a container of them) as far as calls on it go; a builtin's own methods stay builtin."""

from indexers.extract import extract_file
from indexers.resolve import SymbolTable, resolve_all
from tests.unit.symbols_helpers import one_file_calls

PYTHON = b"""\
class Item:
    def run(self): pass
    def child(self) -> "Item": pass
    def index(self): pass

class Other:
    def index(self): pass

class Box:
    items: list[Item]
    names: dict[Item, int]

def first(b: Box): next(iter(b.items)).run()
def biggest(b: Box): max(b.items, key=len).run()
def last(b: Box): sorted(b.items)[-1].run()
def copied(b: Box): list(b.items)[0].run()
def bound_next(b: Box):
    x = next(iter(b.items))
    x.run()
def bound_min(b: Box):
    y = min(b.items)
    y.run()
def bound_sorted(b: Box):
    ys = sorted(b.items)
    ys[0].run()
    for y in ys:
        y.child().run()
def builtin_method(b: Box):
    sorted(b.items).index(1)
    ys = list(b.items)
    ys.index(1)
def filtered(b: Box):
    kept = [i for i in b.items if i]
    kept[0].run()
def mapped(b: Box):
    for c in [i.child() for i in b.items]:
        c.run()
def generated(b: Box):
    gen = (Item() for _ in range(3))
    next(gen).run()
def a_set(b: Box):
    for i in {i for i in b.items}:
        i.run()
"""


CALLS = one_file_calls("m.py", PYTHON)


def test_an_element_a_builtin_gives_is_of_the_arguments_elements():
    for caller in ("first", "biggest", "last", "copied", "bound_next", "bound_min", "bound_sorted"):
        assert CALLS[caller]["Item.run"] == ("type", 1.0), caller
    assert CALLS["bound_sorted"]["Item.child"] == ("type", 1.0)


def test_a_builtin_containers_own_methods_are_no_calls():
    assert CALLS.get("builtin_method", {}) == {}


def test_a_comprehension_is_a_container_of_its_bodys_values():
    assert CALLS["filtered"]["Item.run"] == ("type", 1.0)
    assert CALLS["mapped"] == {"Item.child": ("type", 1.0), "Item.run": ("type", 1.0)}
    assert CALLS["generated"]["Item.run"] == ("type", 1.0)
    assert CALLS["a_set"]["Item.run"] == ("type", 1.0)


def test_next_of_an_iterator_calls_no_iteration_method_of_its_own():
    source = b"""\
class Names:
    def __iter__(self): return self
    def __next__(self) -> "Name": pass

class Name:
    def strip(self): pass

def take(names: Names):
    n = next(names)
    n.strip()
"""
    edges, _ = resolve_all(SymbolTable([extract_file("n.py", source, "python")]))
    calls = {(e.src, e.dst) for e in edges if e.type == "CALLS" and e.confidence == 1.0}
    assert ("n.py#take", "n.py#Name.strip") in calls
    assert ("n.py#take", "n.py#Names.__iter__") not in calls
