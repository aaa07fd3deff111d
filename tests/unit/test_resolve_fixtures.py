"""pytest fixtures: a test's parameter is what the fixture of its name gives, found as pytest
finds it (the test's class, its module, the ``conftest.py`` files from its directory up)."""

from __future__ import annotations

from indexers.extract import extract_file
from indexers.resolve import SymbolTable, resolve_all
from tests.unit.symbols_helpers import targets_by_source
from tests.unit.test_resolve_incremental import _incremental_equals_clean

FILES = {
    "pkg/manager.py": (
        "class HookCaller:\n"
        "    def call_extra(self): pass\n"
        "class HookRelay:\n"
        "    def __getattr__(self, name: str) -> HookCaller: ...\n"
        "class PluginManager:\n"
        "    def __init__(self, name):\n"
        "        self.hook = HookRelay()\n"
        "    def register(self, p): pass\n"
        "class Other:\n"
        "    def register(self, p): pass\n"
    ),
    "testing/conftest.py": (
        "import pytest\n"
        "from typing import Iterator\n"
        "from pkg.manager import PluginManager, Other\n"
        "@pytest.fixture\n"
        "def pm() -> PluginManager:\n"
        "    return PluginManager('example')\n"
        "@pytest.fixture(scope='module')\n"
        "def gen() -> Iterator[PluginManager]:\n"
        "    yield PluginManager('x')\n"
        "@pytest.fixture\n"
        "def other():\n"
        "    return Other()\n"
        "def plain():\n"
        "    return Other()\n"
    ),
    "testing/sub/test_x.py": (
        "import pytest\n"
        "def test_call(pm, gen):\n"
        "    pm.hook.hello.call_extra()\n"
        "    gen.register(1)\n"
        "class TestIt:\n"
        "    @pytest.fixture\n"
        "    def pm(self, other):\n"
        "        return other\n"
        "    def test_own(self, pm):\n"
        "        pm.register(2)\n"
        "def helper(pm):\n"
        "    pm.register(4)\n"
        "def test_not_a_fixture(plain):\n"
        "    plain.register(5)\n"
    ),
}


def _calls(files: dict[str, str]) -> dict[str, dict[str, tuple[str, float]]]:
    table = SymbolTable(extract_file(p, s.encode(), "python") for p, s in files.items())
    return targets_by_source(resolve_all(table)[0], "CALLS")


def test_a_test_s_parameter_is_what_the_fixture_of_its_name_gives():
    calls = _calls(FILES)
    assert calls["testing/sub/test_x.py#test_call"] == {
        "pkg/manager.py#HookCaller.call_extra": ("type", 1.0),  # through `__getattr__`'s result
        "pkg/manager.py#PluginManager.register": ("type", 1.0),  # what a generator fixture yields
    }
    # The class's own fixture comes first; a fixture may use fixtures in turn.
    assert calls["testing/sub/test_x.py#TestIt.test_own"] == {"pkg/manager.py#Other.register": ("type", 1.0)}


def test_a_function_that_is_no_test_or_a_function_that_is_no_fixture_gets_nothing():
    calls = _calls(FILES)
    for caller in ("testing/sub/test_x.py#helper", "testing/sub/test_x.py#test_not_a_fixture"):
        assert all(conf < 1.0 for _, conf in calls[caller].values())


def test_editing_a_fixture_re_resolves_the_tests_using_it():
    files = {p: s.encode() for p, s in FILES.items()}
    changed = files["testing/conftest.py"].replace(b"def pm() -> PluginManager:", b"def pm() -> Other:")
    assert "testing/sub/test_x.py" in _incremental_equals_clean(files, "python", "testing/conftest.py", changed)


def test_a_conftest_appearing_nearer_re_resolves_the_tests_below_it():
    files = {p: s.encode() for p, s in FILES.items()}
    nearer = b"import pytest\nfrom pkg.manager import Other\n@pytest.fixture\ndef pm():\n    return Other()\n"
    assert "testing/sub/test_x.py" in _incremental_equals_clean(files, "python", "testing/sub/conftest.py", nearer)
