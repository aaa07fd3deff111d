"""A name bound to a conditional expression (``a if c else b``) has a value only when every
branch agrees on it (a ``None`` branch says nothing, as ``Optional[Foo]`` does); branches
that disagree leave it unknown, so its methods are not guessed with confidence."""

from indexers.extract import extract_file
from indexers.resolve import SymbolTable, resolve_file
from tests.unit.symbols_helpers import targets_by_source

SOURCE = """\
class Out:
    def write(self, m): pass

class Other:
    def write(self, m): pass

class Command:
    def __init__(self, quiet):
        self.stdout = Out()
        self.stderr = Out()
        self.quiet = quiet

    def log_output(self):
        return self.stderr if self.quiet else self.stdout

    def log(self, m):
        self.log_output().write(m)

def maybe(flag):
    w = Out() if flag else None
    w.write("x")

def nested(a, b):
    w = Out() if a else Out() if b else None
    w.write("x")

class Ctx:
    def __enter__(self):
        return Out()

    def __exit__(self, *exc):
        pass

shared = Ctx()

def entered(flag):
    with (shared if flag else Ctx()) as w:
        w.write("x")

def looped(flag, xs: list[Out], ys: list[Other]):
    for w in (xs if flag else ys):
        w.write("x")

def differ(flag):
    w = Out() if flag else Other()
    w.write("x")
"""


def _confident() -> dict[str, set[str]]:
    ext = extract_file("cmd.py", SOURCE.encode(), "python")
    found = targets_by_source(resolve_file(ext, SymbolTable([ext])))
    return {src: {dst for dst, (_, conf) in dsts.items() if conf == 1.0} for src, dsts in found.items()}


CALLS = _confident()


def test_branches_that_agree_give_the_type():
    assert "cmd.py#Out.write" in CALLS["cmd.py#Command.log"]
    assert "cmd.py#Out.write" in CALLS["cmd.py#maybe"]
    assert "cmd.py#Out.write" in CALLS["cmd.py#nested"]
    assert "cmd.py#Out.write" in CALLS["cmd.py#entered"]  # what `__enter__` returns, on each branch


def test_branches_that_disagree_give_no_confident_method():
    for src in ("cmd.py#differ", "cmd.py#looped"):
        assert not {"cmd.py#Out.write", "cmd.py#Other.write"} & CALLS.get(src, set())
