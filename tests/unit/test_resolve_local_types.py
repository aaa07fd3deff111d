"""A local variable bound only by a call of a class (or of a function returning one) has
that class's type for method calls."""

from indexers.extract import extract_file
from indexers.resolve import SymbolTable, resolve_all, resolve_file
from tests.unit.symbols_helpers import targets_by_source

FILES = {
    "shapes.py": (
        "class Base:\n"
        "    def area(self): pass\n"
        "class Square(Base):\n"
        "    def side(self): pass\n"
        "class Other:\n"
        "    def area(self): pass\n"
        "def make(): return Square()\n"
    ),
    "app.py": (
        "import shapes\n"
        "from shapes import Square\n"
        "\n"
        "def typed():\n"
        "    s = Square()\n"
        "    s.side()\n"
        "    s.area()\n"
        "    t = shapes.Square()\n"
        "    t.side()\n"
        "\n"
        "def rebound(x):\n"
        "    s = Square()\n"
        "    s = x\n"
        "    s.area()\n"
        "\n"
        "def param(s):\n"
        "    s.area()\n"
        "\n"
        "def factory():\n"
        "    s = shapes.make()\n"
        "    s.area()\n"
    ),
}


def _calls() -> dict[tuple[str, str], tuple[str, float]]:
    exts = [extract_file(path, src.encode(), "python") for path, src in FILES.items()]
    table = SymbolTable(exts)
    return {(e.src, e.dst): (e.reason, e.confidence)
            for ext in exts for e in resolve_file(ext, table) if e.type == "CALLS"}


def test_methods_of_a_local_bound_by_a_class_call_resolve_through_the_hierarchy():
    calls = _calls()
    assert calls[("app.py#typed", "shapes.py#Square.side")] == ("type", 1.0)
    assert calls[("app.py#typed", "shapes.py#Base.area")] == ("type", 1.0)  # inherited
    assert ("app.py#typed", "shapes.py#Other.area") not in calls
    # make() returns Square(): its result has that type.
    assert calls[("app.py#factory", "shapes.py#Base.area")] == ("type", 1.0)


def test_another_binding_or_a_parameter_gives_no_type():
    calls = _calls()
    for caller in ("app.py#rebound", "app.py#param"):
        areas = [conf for (src, dst), (_, conf) in calls.items() if src == caller and dst.endswith(".area")]
        assert areas and all(conf < 1.0 for conf in areas), caller


def test_a_qualified_declaration_declares_what_it_qualifies_and_a_bare_one_leaves_the_value():
    src = (
        "from typing import Annotated, ClassVar, Final\n"
        "class Relay:\n"
        "    def fire(self): pass\n"
        "class Pool:\n"
        "    def take(self): pass\n"
        "def make(): pass\n"
        "class Manager:\n"
        "    pool: ClassVar[Pool] = make()\n"
        "    def __init__(self):\n"
        "        self.hook: Final = Relay()\n"
        "        self.spare: Annotated[Pool, 'meta'] = make()\n"
        "    def run(self):\n"
        "        self.hook.fire()\n"
        "    def other(self):\n"
        "        self.pool.take()\n"
        "        self.spare.take()\n"
    )
    calls = _module_calls(src)
    assert calls["m.py#Manager.run"] == {"m.py#Relay.fire": ("type", 1.0)}
    assert calls["m.py#Manager.other"] == {"m.py#Pool.take": ("type", 1.0)}


def test_each_except_handler_binds_its_name_to_its_own_classes():
    src = (
        "class Shown(Exception):\n"
        "    def show(self): pass\n"
        "class Base(Exception):\n"
        "    def only(self): pass\n"
        "class One(Base): pass\n"
        "class Two(Base): pass\n"
        "def main():\n"
        "    try:\n"
        "        pass\n"
        "    except (EOFError, KeyboardInterrupt) as e:\n"
        "        raise\n"
        "    except Shown as e:\n"
        "        e.show()\n"
        "    except OSError as e:\n"
        "        pass\n"
        "def caught():\n"
        "    try:\n"
        "        pass\n"
        "    except (One, Two) as e:\n"
        "        e.only()\n"
    )
    calls = _module_calls(src)
    assert calls["m.py#main"] == {"m.py#Shown.show": ("type", 1.0)}
    assert calls["m.py#caught"] == {"m.py#Base.only": ("type", 1.0)}


def test_a_property_read_in_one_branch_of_an_or_is_its_result():
    src = (
        "from typing import Optional\n"
        "class Options:\n"
        "    def reset(self) -> 'Options': pass\n"
        "class Console:\n"
        "    @property\n"
        "    def options(self) -> Options:\n"
        "        return Options()\n"
        "    def render(self, options: Optional[Options] = None):\n"
        "        chosen = options or self.options\n"
        "        chosen = chosen.reset()\n"
    )
    calls = _module_calls(src)
    assert calls["m.py#Console.render"] == {"m.py#Options.reset": ("type", 1.0)}


def test_a_class_body_calls_the_outer_name_of_a_method_not_yet_defined():
    src = (
        "def post_load(**kw):\n"
        "    return lambda f: f\n"
        "class Schema:\n"
        "    @post_load(many=True)\n"
        "    def post_load(self): pass\n"
        "    def helper(): pass\n"
        "    helper()\n"
    )
    calls = _module_calls(src)
    assert calls["m.py#Schema"] == {"m.py#post_load": ("scope", 1.0), "m.py#Schema.helper": ("scope", 1.0)}


def test_a_call_straight_in_a_body_runs_the_definition_above_it_a_lambda_the_last():
    src = (
        "def timer():\n"
        "    def elapsed(): pass\n"
        "    yield lambda: elapsed()\n"
        "    spent = elapsed()\n"
        "    def elapsed(): pass\n"
        "def f(): pass\n"
        "f()\n"
        "def f(): pass\n"
        "def later():\n"
        "    f()\n"
    )
    calls = _module_calls(src)
    assert calls["m.py#timer"] == {"m.py#timer.elapsed": ("scope", 1.0), "m.py#timer.elapsed@2": ("scope", 1.0)}
    assert calls["m.py"] == {"m.py#f": ("scope", 1.0)}
    assert calls["m.py#later"] == {"m.py#f@2": ("scope", 1.0)}


def test_an_item_assigned_by_a_literal_key_is_what_a_module_s_container_holds_there():
    src = (
        "def f(): pass\n"
        "def g(): pass\n"
        "REGISTRY = {}\n"
        "REGISTRY['json'] = f\n"
        "TABLE = {'a': f}\n"
        "TABLE['a'] = g\n"
        "OTHER = {}\n"
        "OTHER['x'] = f\n"
        "OTHER.update(x=g)\n"
        "def registry():\n"
        "    REGISTRY['json']()\n"
        "def table():\n"
        "    TABLE['a']()\n"
        "def other():\n"
        "    OTHER['x']()\n"
        "def local():\n"
        "    REGISTRY = {'json': g}\n"
        "    REGISTRY['json']()\n"
    )
    calls = _module_calls(src)
    assert calls["m.py#registry"] == {"m.py#f": ("type", 1.0)}
    # Assigned over its literal's entry, or changed by a method too: not known for certain.
    assert all(conf < 1.0 for _, conf in calls.get("m.py#table", {}).values())
    assert all(conf < 1.0 for _, conf in calls.get("m.py#other", {}).values())
    assert "m.py#f" not in calls["m.py#local"]  # a local of that name is not the module's


def test_an_element_read_by_any_key_is_what_every_entry_of_the_literal_agrees_on():
    src = (
        "CLIENT, SERVER = object(), object()\n"
        "class Conn:\n"
        "    def send(self): pass\n"
        "class Other:\n"
        "    def send(self): pass\n"
        "class Pair:\n"
        "    def __init__(self):\n"
        "        self.conn = {CLIENT: Conn(), SERVER: Conn()}\n"
        "def same(i):\n"
        "    Pair().conn[CLIENT].send()\n"
        "    [Conn(), Conn()][i].send()\n"
        "    for c in (Conn(), Conn()):\n"
        "        c.send()\n"
        "def mixed(i):\n"
        "    [Conn(), Other()][i].send()\n"
    )
    calls = _module_calls(src)
    assert calls["m.py#same"]["m.py#Conn.send"] == ("type", 1.0)
    assert all(conf < 1.0 for dst, (_, conf) in calls["m.py#mixed"].items() if dst.endswith(".send"))


def _module_calls(src: str) -> dict[str, dict[str, tuple[str, float]]]:
    """The CALLS edges of one Python module ``m.py``, by source."""
    return targets_by_source(resolve_all(SymbolTable([extract_file("m.py", src.encode(), "python")]))[0], "CALLS")


def test_a_name_imported_in_one_function_is_the_module_s_own_in_another():
    table = SymbolTable(extract_file(p, s.encode(), "python") for p, s in {
        "pkg/__init__.py": "",
        "pkg/_windows.py": "def features():\n    return 1\n",
        "pkg/console.py": ("def features():\n    from ._windows import features\n    return features()\n"
                           "def detect():\n    return features()\n"),
    }.items())
    calls = targets_by_source(resolve_all(table)[0], "CALLS")
    # Whichever call is resolved first, the import binds the name in its function only.
    assert calls["pkg/console.py#detect"] == {"pkg/console.py#features": ("scope", 1.0)}
