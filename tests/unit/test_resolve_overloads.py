"""Python's ``@overload``: a call of an implementation that declares no result gives what its
overload signatures agree on; a decorator gives what its overloads taking one positional
argument (the function) agree on."""

from __future__ import annotations

import pytest

from indexers.extract import extract_file
from indexers.resolve import SymbolTable, resolve_all
from tests.unit.symbols_helpers import incremental_equals_clean, targets_by_source

_ACTORS = '''\
from typing import Callable, overload


class Actor:
    def send(self):
        pass


class Decorator:
    @overload
    def __call__(self, fn: Callable) -> Actor: ...
    @overload
    def __call__(self, fn: str) -> Actor: ...
    def __call__(self, fn):
        pass


@overload
def actor(fn: Callable) -> Actor: ...
@overload
def actor(fn: Callable, *, retries: int) -> Actor: ...
@overload
def actor(*, queue: str = "default", **options) -> Decorator: ...
def actor(fn=None, *, queue="default", **options):
    pass


@overload
def spread(*args: int) -> Actor: ...
@overload
def spread() -> Decorator: ...
def spread(*args):
    pass


@actor
def plain():
    pass


@spread
def variadic():
    pass


def bare():
    plain.send()


def through_variadic():
    variadic.send()


def made():
    Decorator()(bare).send()
'''


def _calls(src: str) -> dict[str, dict[str, tuple[str, float]]]:
    ext = extract_file("m.py", src.encode(), "python")
    return targets_by_source(resolve_all(SymbolTable([ext]))[0], "CALLS")


def test_a_decorator_gives_what_its_overloads_of_one_positional_argument_agree_on():
    calls = _calls(_ACTORS)
    assert calls["m.py#bare"] == {"m.py#Actor.send": ("type", 1.0)}
    assert calls["m.py#through_variadic"]["m.py#Actor.send"] == ("type", 1.0)  # `*args` takes one


def test_an_object_of_overloaded_call_method_gives_what_they_agree_on():
    assert _calls(_ACTORS)["m.py#made"]["m.py#Actor.send"] == ("type", 1.0)


def test_overloads_that_disagree_leave_the_result_unknown():
    src = _ACTORS + "\n\ndef unknown_arguments():\n    actor(bare).send()\n"
    assert _calls(src)["m.py#unknown_arguments"].get("m.py#Actor.send", ("", 0))[1] < 1.0


def test_an_implementation_that_declares_its_result_keeps_it():
    src = _ACTORS.replace("def actor(fn=None, *, queue=\"default\", **options):",
                          "def actor(fn=None, *, queue=\"default\", **options) -> Decorator:")
    src += "\n\ndef declared():\n    actor(bare)(bare).send()\n"
    assert _calls(src)["m.py#declared"]["m.py#Actor.send"] == ("type", 1.0)


def test_a_decorator_factory_called_by_keywords_only_is_its_overload_without_positional_arguments():
    src = _ACTORS + "\n\n@actor(queue=\"q\", retries=2)\ndef queued():\n    pass\n\n\ndef factory():\n    queued.send()\n"
    assert _calls(src)["m.py#factory"]["m.py#Actor.send"] == ("type", 1.0)


_FILES = {
    "tasks/__init__.py": "from .actor import Actor, actor\n",
    "tasks/actor.py": _ACTORS,
    "app.py": "import tasks\n\n\n@tasks.actor\ndef job():\n    pass\n\n\ndef main():\n    job.send()\n",
}


@pytest.mark.parametrize("path, new", [
    ("tasks/actor.py", _ACTORS.replace("def actor(fn: Callable) -> Actor: ...", "def actor(fn: Callable) -> Decorator: ...")),
    ("tasks/__init__.py", "from .actor import Actor\n"),
])
def test_incremental_equals_clean_when_overloads_change(path, new):
    incremental_equals_clean(_FILES, path, new)


_IDENTITY = {
    "pkg/util.py": (
        "from typing import Callable, TypeVar\n\nC = TypeVar(\"C\", bound=Callable)\n\n\n"
        "def replaced_by_pep8(compat_name: str, fn: C) -> C:\n    return fn\n\n\n"
        "def renamed(compat_name: str, fn: Callable) -> Callable:\n    return fn\n"
    ),
    "pkg/core.py": (
        "from .util import renamed, replaced_by_pep8\n\n\nclass ParserElement:\n"
        "    def set_parse_action(self, fn):\n        return self\n\n"
        "    setParseAction = replaced_by_pep8(\"setParseAction\", set_parse_action)\n"
        "    addParseAction = renamed(\"addParseAction\", set_parse_action)\n\n\n"
        "def run(p: ParserElement):\n    p.setParseAction(1)\n\n\ndef other(p: ParserElement):\n    p.addParseAction(1)\n"
    ),
}


def _files_calls(files: dict[str, str]) -> dict[str, dict[str, tuple[str, float]]]:
    exts = [extract_file(p, s.encode(), "python") for p, s in files.items()]
    return targets_by_source(resolve_all(SymbolTable(exts))[0], "CALLS")


def test_a_name_bound_to_a_generic_identity_of_a_method_is_that_method():
    calls = _files_calls(_IDENTITY)
    assert calls["pkg/core.py#run"] == {"pkg/core.py#ParserElement.set_parse_action": ("type", 1.0)}
    # no type variable: the result says nothing about the argument
    assert calls.get("pkg/core.py#other", {}).get("pkg/core.py#ParserElement.set_parse_action", ("", 0.0))[1] < 1.0


def test_incremental_equals_clean_when_the_identity_stops_being_one():
    new = _IDENTITY["pkg/util.py"].replace("fn: C) -> C:", "fn: C) -> Callable:")
    incremental_equals_clean(_IDENTITY, "pkg/util.py", new)


def test_a_type_variable_imported_from_another_module_makes_an_identity_too():
    files = dict(_IDENTITY)
    files["pkg/typevars.py"] = "from typing import Callable, TypeVar\n\nC = TypeVar(\"C\", bound=Callable)\n"
    files["pkg/util.py"] = files["pkg/util.py"].replace(
        "from typing import Callable, TypeVar\n\nC = TypeVar(\"C\", bound=Callable)\n",
        "from typing import Callable\n\nfrom .typevars import C\n")
    assert _files_calls(files)["pkg/core.py#run"] == {"pkg/core.py#ParserElement.set_parse_action": ("type", 1.0)}


def test_a_class_attribute_wrapping_a_method_is_called_through_the_class():
    files = dict(_IDENTITY)
    files["pkg/core.py"] += (
        "\n\nclass Static:\n    @staticmethod\n    def reset_cache():\n        pass\n\n"
        "    resetCache = staticmethod(reset_cache)\n"
        "    enablePackrat = staticmethod(replaced_by_pep8(\"enablePackrat\", reset_cache))\n\n\n"
        "def through_class():\n    Static.resetCache()\n    Static.enablePackrat()\n"
    )
    assert _files_calls(files)["pkg/core.py#through_class"] == {"pkg/core.py#Static.reset_cache": ("type", 1.0)}


def test_a_decorator_factory_s_overload_is_chosen_by_the_keywords_passed_too():
    files = {
        "core.py": "class Group:\n    def command(self, *a): pass\nclass Other(Group):\n    def command(self, *a): pass\n",
        "decorators.py": (
            "import typing as t\n"
            "from core import Group\n"
            "G = t.TypeVar('G')\n"
            "@t.overload\n"
            "def group(name: t.Callable) -> Group: ...\n"
            "@t.overload\n"
            "def group(name: None = None, *, cls: t.Type[G], **attrs: t.Any) -> t.Callable[[t.Callable], G]: ...\n"
            "@t.overload\n"
            "def group(name: t.Optional[str] = ..., cls: None = None, **attrs: t.Any)"
            " -> t.Callable[[t.Callable], Group]: ...\n"
            "def group(name=None, cls=None, **attrs):\n"
            "    pass\n"
        ),
        "app.py": (
            "from decorators import group\n"
            "@group(chain=True)\n"
            "def cli(): pass\n"
            "def main():\n"
            "    cli.command('x')\n"
        ),
    }
    calls = _files_calls(files)
    # `cls` is keyword-only and required in the second signature: `group(chain=True)` is the third's.
    assert calls["app.py#main"] == {"core.py#Group.command": ("type", 1.0)}


_CHECKED_ONLY = '''\
import sys
from typing import TYPE_CHECKING, overload


class Rebuilder:
    def module(self, node):
        return self.visit(node)

    if TYPE_CHECKING:
        @overload
        def visit(self, node: int) -> int: ...

        if sys.version_info >= (3, 10):
            @overload
            def visit(self, node: str) -> str: ...

        @overload
        def visit(self, node: None) -> None: ...

    def visit(self, node):
        return node
'''


def test_signatures_in_other_blocks_than_the_implementation_are_no_targets():
    # Overloads under `if TYPE_CHECKING:` (and a version test in it) are signatures all the same.
    assert _calls(_CHECKED_ONLY)["m.py#Rebuilder.module"] == {"m.py#Rebuilder.visit@4": ("self", 1.0)}


def test_incremental_equals_clean_when_the_implementation_goes():
    files = {"r.py": _CHECKED_ONLY, "use.py": "from r import Rebuilder\n\n\ndef run():\n    Rebuilder().visit(1)\n"}
    incremental_equals_clean(files, "r.py", _CHECKED_ONLY.replace("    def visit(self, node):\n        return node\n", ""))
