"""Functions and classes used as values (REFERENCES), decorators (CALLS), methods overriding a
base type's method (OVERRIDES), and the calls left unresolved, recorded per caller."""

from __future__ import annotations

from indexers.extract import extract_file
from indexers.languages import language_for_path
from indexers.resolve import SymbolTable, affected_files, resolve_all


def _resolve(files: dict[str, str]):
    exts = {p: extract_file(p, src.encode(), language_for_path(p).name) for p, src in files.items()}
    edges, stats = resolve_all(SymbolTable(exts.values()))
    return {(e.type, e.src, e.dst): e for e in edges}, stats


def _targets(edges, rel: str, src: str) -> dict[str, tuple[str, float, str]]:
    return {d: (e.reason, e.confidence, e.prov) for (t, s, d), e in edges.items() if t == rel and s == src}


PY = {
    "pkg/__init__.py": "",
    "pkg/clock.py": "def now(): pass\nclass Clock:\n    def tick(self): pass\n",
    "pkg/handlers.py": "def on_a(): pass\ndef on_b(): pass\n",
    "pkg/app.py": (
        "from pkg import clock\n"
        "from pkg.handlers import on_a, on_b\n"
        "import pkg.handlers as h\n"
        "\n"
        "TABLE = {'a': on_a, 'b': h.on_b}\n"
        "LIST = [on_a, clock.Clock]\n"
        "\n"
        "def register(callback, default=clock.now):\n"
        "    data = callback\n"
        "    run(key=on_b, value=data)\n"
        "    unknown_thing(helper)\n"
        "    obj.attr(other.field)\n"
        "    return clock.now\n"
        "\n"
        "def dec(f):\n"
        "    return f\n"
        "\n"
        "@dec\n"
        "def decorated():\n"
        "    pass\n"
        "\n"
        "class Service:\n"
        "    def start(self):\n"
        "        schedule(self.stop)\n"
        "    def stop(self): pass\n"
        "    @staticmethod\n"
        "    def make(): pass\n"
    ),
}


def test_python_functions_and_classes_used_as_values_are_referenced():
    edges, _ = _resolve(PY)
    assert _targets(edges, "REFERENCES", "pkg/app.py") == {
        "pkg/handlers.py#on_a": ("import", 1.0, "INFERRED"),  # table entry, list element
        "pkg/handlers.py#on_b": ("import", 1.0, "INFERRED"),  # through a module alias
        "pkg/clock.py#Clock": ("import", 1.0, "INFERRED"),  # a class through a module
    }
    # A keyword default and a return value through a module, a keyword argument; a parameter,
    # a local variable and names nothing defines are not references.
    assert _targets(edges, "REFERENCES", "pkg/app.py#register") == {
        "pkg/clock.py#now": ("import", 1.0, "INFERRED"),
        "pkg/handlers.py#on_b": ("import", 1.0, "INFERRED"),
    }
    assert _targets(edges, "REFERENCES", "pkg/app.py#Service.start") == {
        "pkg/app.py#Service.stop": ("self", 1.0, "EXTRACTED"),  # a bound method as a callback
    }
    assert _targets(edges, "REFERENCES", "pkg/app.py#dec") == {}  # returns its parameter
    # A reference is not a call.
    assert ("CALLS", "pkg/app.py#register", "pkg/clock.py#now") not in edges


def test_python_decorators_are_called_from_the_scope_around_the_definition():
    edges, _ = _resolve(PY)
    assert _targets(edges, "CALLS", "pkg/app.py")["pkg/app.py#dec"] == ("scope", 1.0, "EXTRACTED")
    assert "pkg/app.py#dec" not in _targets(edges, "CALLS", "pkg/app.py#decorated")
    # A builtin decorator is no edge at all, and no unresolved call.
    assert not any(s == "pkg/app.py#Service" for (t, s, d) in edges if t == "CALLS")


def test_python_nested_decorator_is_the_nested_definition():
    src = (
        "def dec(f): return f\n"
        "def func():\n"
        "    def dec(f): return f\n"
        "    @dec\n"
        "    def inner(): pass\n"
    )
    edges, _ = _resolve({"main.py": src})
    assert _targets(edges, "CALLS", "main.py#func") == {"main.py#func.dec": ("scope", 1.0, "EXTRACTED")}
    assert _targets(edges, "CALLS", "main.py") == {}


def test_unresolved_calls_are_recorded_per_caller_in_source_order():
    edges, stats = _resolve(PY)
    got = {u.id: u for u in stats.unresolved_sites}
    u = got["pkg/app.py#register"]
    assert u.unresolved_calls == 3
    assert u.unresolved_sites == ["10: run()", "11: unknown_thing()", "12: obj.attr()"]
    assert stats.unresolved == sum(u.unresolved_calls for u in stats.unresolved_sites)
    assert "pkg/app.py#Service.start" in got  # schedule() is defined nowhere
    assert "pkg/app.py" not in got  # @dec resolved, dict/list literals are no calls


def test_unresolved_sites_are_capped_and_counted():
    body = "".join(f"    missing_{i}()\n" for i in range(30))
    _, stats = _resolve({"a.py": "def f():\n" + body})
    (u,) = stats.unresolved_sites
    assert u.unresolved_calls == 30 and len(u.unresolved_sites) == 20
    assert u.unresolved_sites[0] == "2: missing_0()"


OVERRIDE_PY = {
    "base.py": (
        "class Base:\n"
        "    def run(self): pass\n"
        "    def stop(self): pass\n"
        "class Middle(Base):\n"
        "    def run(self): pass\n"
    ),
    "app.py": (
        "import base\n"
        "class Leaf(base.Middle):\n"
        "    def run(self): pass\n"  # Middle.run is nearer than Base.run
        "    def stop(self): pass\n"  # through two levels
        "    def own(self): pass\n"
        "class Local(Leaf):\n"
        "    def own(self): pass\n"
    ),
}


def test_python_methods_override_the_nearest_base_method():
    edges, _ = _resolve(OVERRIDE_PY)
    assert _targets(edges, "OVERRIDES", "app.py#Leaf.run") == {"base.py#Middle.run": ("import", 1.0, "INFERRED")}
    assert _targets(edges, "OVERRIDES", "app.py#Leaf.stop") == {"base.py#Base.stop": ("import", 1.0, "INFERRED")}
    assert _targets(edges, "OVERRIDES", "app.py#Leaf.own") == {}
    assert _targets(edges, "OVERRIDES", "app.py#Local.own") == {"app.py#Leaf.own": ("syntax", 1.0, "EXTRACTED")}
    assert _targets(edges, "OVERRIDES", "base.py#Middle.run") == {"base.py#Base.run": ("syntax", 1.0, "EXTRACTED")}


def test_a_base_known_by_name_only_makes_a_weaker_override():
    files = {"a.py": "class Base:\n    def run(self): pass\n", "b.py": "class Leaf(Base):\n    def run(self): pass\n"}
    edges, _ = _resolve(files)
    (reason, conf, prov), = _targets(edges, "OVERRIDES", "b.py#Leaf.run").values()
    assert reason == "unique-name" and conf < 1.0 and prov == "INFERRED"


def test_override_edges_in_languages_with_classes():
    files = {
        "shapes.ts": (
            "export class Shape { area(): number { return 0; } }\n"
            "export interface Named { name(): string; }\n"
        ),
        "circle.ts": (
            "import { Shape, Named } from './shapes';\n"
            "class Circle extends Shape implements Named { area(): number { return 1; } name() { return 'c'; } }\n"
        ),
        "Base.java": "class Base { void run() {} }\nclass Leaf extends Base { void run() {} }\n",
        "shape.cpp": "class A { public: virtual void f() {} };\nclass B : public A { public: void f() override {} };\n",
        "embed.go": (
            "package p\n"
            "type Inner struct{}\nfunc (Inner) Run() {}\n"
            "type Outer struct{ Inner }\nfunc (Outer) Run() {}\n"
        ),
    }
    edges, _ = _resolve(files)
    assert _targets(edges, "OVERRIDES", "circle.ts#Circle.area") == {"shapes.ts#Shape.area": ("import", 1.0, "INFERRED")}
    assert set(_targets(edges, "OVERRIDES", "circle.ts#Circle.name")) == {"shapes.ts#Named.name"}
    assert set(_targets(edges, "OVERRIDES", "Base.java#Leaf.run")) == {"Base.java#Base.run"}
    assert set(_targets(edges, "OVERRIDES", "shape.cpp#B.f")) == {"shape.cpp#A.f"}
    # Go embeds and promotes; a method of the outer type shadows, it does not override.
    assert not [k for k in edges if k[0] == "OVERRIDES" and k[1].startswith("embed.go")]


def test_typescript_callbacks_handler_tables_and_defaults_are_referenced():
    files = {
        "handlers.ts": "export function onA() {}\nexport function onB() {}\nexport class Widget {}\n",
        "app.ts": (
            "import { onA, onB, Widget } from './handlers';\n"
            "import * as h from './handlers';\n"
            "const table = { a: onA, b: h.onB, onB };\n"
            "const kinds = [Widget];\n"
            "class Button {\n"
            "  click() {}\n"
            "  wire(el: El, fallback = onA) { el.on('click', this.click); setTimeout(h.onA, 1); return el; }\n"
            "}\n"
        ),
    }
    edges, _ = _resolve(files)
    assert set(_targets(edges, "REFERENCES", "app.ts")) == {"handlers.ts#onA", "handlers.ts#onB", "handlers.ts#Widget"}
    assert _targets(edges, "REFERENCES", "app.ts#Button.wire") == {
        "handlers.ts#onA": ("import", 1.0, "INFERRED"),  # a default and a namespace member
        "app.ts#Button.click": ("self", 1.0, "EXTRACTED"),
    }


def test_javascript_callback_arguments_are_referenced():
    files = {
        "lib.js": "function handler() {}\nmodule.exports = { handler };\n",
        "main.js": "const { handler } = require('./lib');\nfunction start(app) { app.use(handler); }\n",
    }
    edges, _ = _resolve(files)
    assert set(_targets(edges, "REFERENCES", "main.js#start")) == {"lib.js#handler"}


def test_go_callbacks_and_handler_tables_are_referenced():
    files = {
        "srv/handlers.go": "package srv\nfunc Index() {}\nfunc About() {}\n",
        "srv/server.go": (
            "package srv\n"
            "type Server struct{ routes map[string]func() }\n"
            "var Routes = map[string]func(){\"/\": Index, \"/about\": About}\n"
            "func (s *Server) serve() {}\n"
            "func (s *Server) Start(mux Mux) {\n"
            "    mux.Handle(\"/\", Index)\n"
            "    go run(s.serve)\n"
            "    cfg := Config{Handler: About}\n"
            "    use(cfg)\n"
            "}\n"
        ),
    }
    edges, _ = _resolve(files)
    assert set(_targets(edges, "REFERENCES", "srv/server.go")) == {"srv/handlers.go#Index", "srv/handlers.go#About"}
    assert _targets(edges, "REFERENCES", "srv/server.go#Server.Start") == {
        "srv/handlers.go#Index": ("scope", 1.0, "INFERRED"),
        "srv/handlers.go#About": ("scope", 1.0, "INFERRED"),  # a field value, not its key
        "srv/server.go#Server.serve": ("self", 1.0, "EXTRACTED"),  # a method value
    }


def _affected_by(files: dict[str, str], path: str, new_src: str) -> set[str]:
    exts = {p: extract_file(p, src.encode(), language_for_path(p).name) for p, src in files.items()}
    table = SymbolTable(exts.values())
    old = table.remove_file(path)
    new = extract_file(path, new_src.encode(), old.lang)
    table.add_file(new)
    return affected_files([path], {path: old}, {path: new}, table)


def test_a_base_losing_a_method_re_resolves_the_overriding_file():
    changed = OVERRIDE_PY["base.py"].replace("    def stop(self): pass\n", "")
    assert "app.py" in _affected_by(OVERRIDE_PY, "base.py", changed)


def test_a_value_referencing_a_same_package_function_is_re_resolved_when_it_goes():
    files = {"p/a.go": "package p\nfunc Index() {}\n", "p/b.go": "package p\nvar Routes = []func(){Index}\n"}
    assert "p/b.go" in _affected_by(files, "p/a.go", "package p\n")


def test_java_method_references_and_rust_function_arguments_are_referenced():
    files = {
        "App.java": (
            "class Util { static void log() {} }\n"
            "class App {\n"
            "  void handle() {}\n"
            "  void start() { run(this::handle); run(Util::log); }\n"
            "}\n"
        ),
        "src/lib.rs": "mod util;\nfn on_event() {}\nfn start() { register(on_event); register(util::tick); }\n",
        "src/util.rs": "pub fn tick() {}\n",
    }
    edges, _ = _resolve(files)
    assert set(_targets(edges, "REFERENCES", "App.java#App.start")) == {"App.java#App.handle", "App.java#Util.log"}
    assert set(_targets(edges, "REFERENCES", "src/lib.rs#start")) == {"src/lib.rs#on_event", "src/util.rs#tick"}


def test_a_field_holding_a_class_is_not_a_reference_to_the_class_where_it_is_read():
    src = (
        "class Response: pass\n"
        "class App:\n"
        "    response_class = Response\n"
        "    def make(self):\n"
        "        return wrap(self.response_class)\n"
    )
    edges, _ = _resolve({"app.py": src})
    assert _targets(edges, "REFERENCES", "app.py#App") == {"app.py#Response": ("scope", 1.0, "EXTRACTED")}
    assert _targets(edges, "REFERENCES", "app.py#App.make") == {}


def test_a_property_read_is_not_a_reference_to_its_getter_or_setter():
    src = (
        "class App:\n"
        "    @property\n"
        "    def debug(self): return 1\n"
        "    @debug.setter\n"
        "    def debug(self, value): pass\n"
        "    def run(self):\n"
        "        show(self.debug)\n"
    )
    edges, _ = _resolve({"app.py": src})
    assert _targets(edges, "REFERENCES", "app.py#App.run") == {}
