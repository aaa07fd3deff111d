"""pytest fixtures: a test's parameter is what the fixture of its name gives.

``def test_call(pm): pm.hook.call_extra()`` receives what ``@pytest.fixture def pm():
return PluginManager("x")`` returns; pytest finds that fixture by the parameter's name in the
test's class, its module, then the ``conftest.py`` files of its directory and of each one
above it. A parameter of a test function (named ``test...``) or of a fixture (fixtures use
fixtures) that has no default and no annotation is read so; the fixture's value is its
result (a generator fixture's, what its ``Iterator[T]`` result declares it yields). A
fixture renamed (``@pytest.fixture(name=...)``) or parametrized per test is not found by
its function's name, and a parameter whose fixture is not found stays unknown.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from indexers.bindings import DECORATED
from indexers.resolve.parameters import parameters_of
from indexers.resolve.table import ids as ids_of

if TYPE_CHECKING:
    from indexers.resolve.types import Types

# Decorators (as a DECORATED binding writes them: called, once more with arguments) that make
# a function a fixture, per language.
_FIXTURE_DECORATORS = {"python": ("pytest.fixture()", "fixture()", "pytest_asyncio.fixture()")}
_CONFTEST = "conftest.py"


def fixture_value(types: Types, scope: str, name: str):
    """What the fixture a parameter ``name`` of the function ``scope`` names gives, or None."""
    decorators = _FIXTURE_DECORATORS.get(types.spec.name)
    table = types.table
    sym = table.symbols.get(scope) if decorators else None
    if sym is None or sym.kind not in ("function", "method") or sym.file not in table.files:
        return None
    param = next((p for p in parameters_of(table, sym.file).get(scope, ()) if p.name == name), None)
    if param is None or param.default is not None or param.position is None:
        return None
    if not (sym.name.startswith("test") or _is_fixture(table, scope, decorators)):
        return None
    fixture = _find(table, sym, name, decorators)
    if fixture is None or fixture == scope:
        return None
    value = types.result(fixture)
    return value[1] if value[0] == "iter" else value


def _is_fixture(table, function_id: str, decorators: tuple[str, ...]) -> bool:
    return any(b.value and b.value.startswith(decorators) for b in table.bindings(function_id, DECORATED))


def _find(table, sym, name: str, decorators: tuple[str, ...]) -> str | None:
    """The fixture ``name`` as pytest finds it for a function: in its class, its module,
    then the ``conftest.py`` files from its directory up."""
    owner = sym.qualified_name.rpartition(".")[0]
    places = [(sym.file, f"{owner}.{name}")] if owner else []
    places.append((sym.file, name))
    directory = posixpath.dirname(sym.file)
    while True:
        places.append((posixpath.join(directory, _CONFTEST) if directory else _CONFTEST, name))
        if not directory:
            break
        directory = posixpath.dirname(directory)
    for path, qual in places:
        if path not in table.files:
            continue
        found = [i for i in ids_of(table.quals_in(path).get(qual)) if _is_fixture(table, i, decorators)]
        if found:
            return found[-1]  # a name defined again: the last definition is the fixture
    return None
