"""A value declared ``Callable[[A], R]`` gives an R when called; the call itself names no
function (what the value holds is not known)."""

from __future__ import annotations

from indexers.extract import extract_file
from indexers.resolve import SymbolTable, resolve_all
from tests.unit.symbols_helpers import targets_by_source

_SRC = '''\
from typing import Callable, Optional


class Text:
    def copy_styles(self, other):
        pass


def direct(make: Callable[[str], Text], maybe: Optional[Callable[[], "Text"]] = None):
    make("x").copy_styles(None)
    made = maybe()
    made.copy_styles(None)


def anything(make: Callable[..., object]):
    make().copy_styles(None)
'''


def _calls() -> dict[str, dict[str, tuple[str, float]]]:
    ext = extract_file("m.py", _SRC.encode(), "python")
    return targets_by_source(resolve_all(SymbolTable([ext]))[0], "CALLS")


def test_a_declared_callable_gives_its_result():
    assert _calls()["m.py#direct"] == {"m.py#Text.copy_styles": ("type", 1.0)}


def test_a_callable_of_no_known_result_gives_nothing_sure():
    assert all(conf < 1.0 for _, conf in _calls().get("m.py#anything", {}).values())

