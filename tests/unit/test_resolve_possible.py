"""A callee ``types`` cannot prove, because some of its bindings are unreadable or they
disagree, still reaches what its readable bindings hold: those become candidate edges,
never confident ones. And a comprehension's variable is an element of what it iterates,
as a loop's is."""

from indexers.extract import extract_file
from indexers.resolve import SymbolTable, resolve_all

# More `render` methods than a call of unknown receiver may guess among.
RENDERERS = "".join(f"class Widget{i}:\n    def render(self, c): pass\n" for i in range(12))

FILES = {
    "pkg/__init__.py": "",
    "pkg/testing.py": """\
class Client:
    def __init__(self, app): pass
""",
    "pkg/widgets.py": RENDERERS,
    "pkg/app.py": """\
import typing as t
from pkg.widgets import *

def hidden(text): pass
visible = input
_reader = None

class Template:
    def render(self, c): pass

class App:
    client_class = None

    def test_client(self):
        cls = self.client_class
        if cls is None:
            from .testing import Client as cls
        return cls(self)

def prompt(hide):
    f = hidden if hide else visible
    return f(" ")

def read(echo):
    global _reader
    if _reader is None:
        from pkg.app import hidden as f
        _reader = f
    return _reader(echo)

class Engine:
    def find(self, name): pass

    def get_template(self, name):
        template, origin = self.find(name)
        if not hasattr(template, "render"):
            template = Template(template)
        return template

def show():
    template = Engine().get_template("x")
    template.render(1)

class Decoder:
    def __init__(self, kind):
        if kind:
            self.convert = self.ulaw
        else:
            self.convert = self.alaw

    def ulaw(self, data): pass
    def alaw(self, data): pass

    def read(self, data):
        return self.convert(data)

class Param:
    def info(self): pass

class Other:
    def info(self): pass

class Command:
    def get_params(self) -> t.List["Param"]:
        return []

    def to_info(self):
        return [p.info() for p in self.get_params()]
""",
}


def _calls() -> dict[str, dict[str, tuple[str, float]]]:
    exts = [extract_file(path, text.encode(), "python") for path, text in FILES.items()]
    edges, _ = resolve_all(SymbolTable(exts))
    out: dict[str, dict[str, tuple[str, float]]] = {}
    for e in edges:
        if e.type == "CALLS":
            out.setdefault(e.src, {})[e.dst] = (e.reason, e.confidence)
    return out


CALLS = _calls()


def test_a_name_also_bound_by_an_import_in_the_function_may_be_the_imported_class():
    assert CALLS["pkg/app.py#App.test_client"] == {"pkg/testing.py#Client": ("candidate", 0.5)}


def test_a_conditional_with_an_unknown_branch_may_be_its_known_one():
    assert CALLS["pkg/app.py#prompt"] == {"pkg/app.py#hidden": ("candidate", 0.5)}


def test_a_global_rebound_in_the_function_may_be_what_it_is_bound_to():
    assert CALLS["pkg/app.py#read"] == {"pkg/app.py#hidden": ("candidate", 0.5)}


def test_a_result_with_an_unreadable_binding_may_be_its_readable_one():
    # Twelve other `render` methods: the method's name alone says nothing.
    assert CALLS["pkg/app.py#show"]["pkg/app.py#Template.render"] == ("candidate", 0.5)


def test_a_field_bound_to_different_methods_may_be_each():
    read = CALLS["pkg/app.py#Decoder.read"]
    assert read == {"pkg/app.py#Decoder.ulaw": ("candidate", 0.3333), "pkg/app.py#Decoder.alaw": ("candidate", 0.3333)}


def test_a_comprehension_variable_is_an_element_of_what_it_iterates():
    assert CALLS["pkg/app.py#Command.to_info"]["pkg/app.py#Param.info"] == ("type", 1.0)
    assert "pkg/app.py#Other.info" not in CALLS["pkg/app.py#Command.to_info"]
