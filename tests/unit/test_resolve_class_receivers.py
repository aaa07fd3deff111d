"""The class of a method's receiver (``cls`` in a classmethod, ``type(self)``,
``self.__class__``) and casts at the head of a chain (``typing.cast(Foo, x).m()``): what
they make is an instance of the receiver's type, as ``-> Self`` says, or of the type named."""

from indexers.extract import extract_file
from indexers.resolve import SymbolTable, resolve_all
from tests.unit.symbols_helpers import one_file_calls

PYTHON = b"""\
import typing
from typing import cast

class Model:
    @classmethod
    def create(cls, **kw):
        return cls(**kw)

    @classmethod
    def through_a_name(cls):
        made = cls
        return made()

    def copy(self):
        return type(self)()

    def clone(self):
        return self.__class__()

    def save(self): pass

class Article(Model):
    def save(self): pass

class Other:
    def save(self): pass

def create(): Model.create().save()
def subclass(): Article.create().save()
def named(): Model.through_a_name().save()
def copied(a: Article): a.copy().save()
def cloned(m: Model): m.clone().save()
def instance_class(m: Model): type(m)().save()

class Meta(type):
    def make(cls):
        return cls()

    def save(self): pass

def metaclass(): Meta.make(Model).save()

class Client:
    client_class = None

    def test_client(self):
        cls = self.client_class
        return cls()

def cast_head(x): typing.cast(Model, x).save()
def cast_then(x): cast("Article", x).copy().save()
def cast_bound(x):
    a = cast(Article, x).copy()
    a.save()
"""


CALLS = one_file_calls("m.py", PYTHON)


def test_cls_called_in_a_classmethod_is_an_instance_of_the_receivers_type():
    assert CALLS["Model.create"] == {"Model": ("type", 1.0)}  # the class itself is called
    assert CALLS["create"]["Model.save"] == ("type", 1.0)
    assert CALLS["subclass"]["Article.save"] == ("type", 1.0)
    assert "Model.save" not in CALLS["subclass"]
    assert CALLS["named"]["Model.save"] == ("type", 1.0)


def test_type_of_self_and_dunder_class_are_the_receivers_class():
    assert CALLS["Model.copy"] == {"Model": ("type", 1.0)}
    assert CALLS["Model.clone"] == {"Model": ("type", 1.0)}  # `self.__class__()`: a call of the class
    assert CALLS["copied"]["Article.save"] == ("type", 1.0)
    assert CALLS["cloned"]["Model.save"] == ("type", 1.0)
    assert CALLS["instance_class"]["Model.save"] == ("type", 1.0)


def test_cls_of_a_metaclass_or_a_local_named_cls_is_not_the_type_around():
    assert "Meta" not in CALLS.get("Meta.make", {})
    assert all(reason == "candidate" or conf < 1.0 for reason, conf in CALLS["metaclass"].values()
               if reason != "scope")
    assert "Client" not in CALLS.get("Client.test_client", {})


def test_a_chain_that_starts_with_a_cast_is_of_the_type_it_names():
    assert CALLS["cast_head"]["Model.save"] == ("type", 1.0)
    assert CALLS["cast_then"]["Article.save"] == ("type", 1.0)
    assert CALLS["cast_bound"]["Article.save"] == ("type", 1.0)
    assert len([d for d in CALLS["cast_head"] if d.endswith(".save")]) == 1


def test_a_later_parameter_named_cls_is_no_receiver():
    edges, _ = resolve_all(SymbolTable([extract_file("t.py", b"""\
class TestModels:
    def test_create(self, cls):
        cls(x=1).save()

    def save(self): pass
""", "python")]))
    assert not [e for e in edges if e.type == "CALLS" and e.confidence == 1.0 and e.dst == "t.py#TestModels"]
    assert not [e for e in edges if e.type == "CALLS" and e.confidence == 1.0 and e.dst.endswith(".save")]


def test_a_string_literals_method_bound_to_a_name_is_a_builtin():
    calls = one_file_calls("s.py", b'_nulljoin = "".join\n\ndef out(parts):\n    return _nulljoin(parts)\n')
    assert calls.get("out", {}) == {}  # `str.join`, not the variable
