"""A base class written through a module's variable bound to a class (`Future = _PyFuture`,
`tqdm = tqdm_asyncio`): the class's members are the subclass's, and a method order Python
could not build (a class on a branch that does not run) proves nothing."""

from __future__ import annotations

import pytest

from indexers.extract import extract_file
from indexers.resolve import SymbolTable, resolve_all
from tests.unit.symbols_helpers import incremental_equals_clean

FILES = {
    "pkg/futures.py": "class Future:\n    def done(self):\n        return True\n\n\n_PyFuture = Future\n",
    "pkg/tasks.py": """\
from pkg import futures


class Task(futures._PyFuture):
    def cancel(self):
        return self.done()
""",
    "pkg/base.py": "class Base:\n    def show(self):\n        pass\n",
    "pkg/fancy.py": "from pkg.base import Base\n\n\nclass Fancy(Base):\n    def show(self):\n        pass\n\n\nplain = Fancy\n",
    # `if fancy_ui != Base: class Auto(fancy_ui, plain)` where fancy_ui is read as Base: Python
    # would refuse this order (Base before Fancy, Fancy before Base); the branch does not run.
    "pkg/auto.py": """\
from pkg.base import Base as fancy_ui
from pkg.fancy import plain


class Auto(fancy_ui, plain):
    pass
""",
    "pkg/slack.py": """\
from pkg.auto import Auto


class Slack(Auto):
    def show(self):
        super().show()
""",
}


def _calls(files: dict[str, str]) -> dict[tuple[str, str], tuple[str, float]]:
    table = SymbolTable(extract_file(p, t.encode(), "python") for p, t in files.items())
    return {(e.src, e.dst): (e.reason, e.confidence) for e in resolve_all(table)[0] if e.type == "CALLS"}


def test_a_base_bound_to_a_variable_is_the_class_it_holds():
    assert _calls(FILES)[("pkg/tasks.py#Task.cancel", "pkg/futures.py#Future.done")] == ("self", 1.0)


def test_what_an_impossible_method_order_finds_is_a_candidate():
    reason, confidence = _calls(FILES)[("pkg/slack.py#Slack.show", "pkg/base.py#Base.show")]
    assert reason == "candidate" and confidence < 1.0


@pytest.mark.parametrize("path, new", [
    ("pkg/futures.py", FILES["pkg/futures.py"].replace("_PyFuture = Future", "_PyFuture = object")),
    ("pkg/fancy.py", FILES["pkg/fancy.py"].replace("plain = Fancy", "plain = Base")),
    ("pkg/futures.py", None),
])
def test_incremental_equals_clean_when_an_aliased_base_changes(path, new):
    incremental_equals_clean(FILES, path, new)
