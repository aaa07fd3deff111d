from tests.unit.symbols_helpers import load_project

JS = load_project("javascript")
TS = load_project("typescript")


def test_js_imports_and_external_modules():
    assert JS.targets("IMPORTS", "lib/circle.js") == {
        "lib/shapes.js": ("import", 1.0),
        "ext:path": ("external", 1.0),
    }
    assert set(JS.targets("IMPORTS", "main.js")) == {"lib/util.js", "lib/circle.js"}


def test_js_calls_by_import_alias_require_and_scope():
    run = JS.targets("CALLS", "main.js#run")
    assert run["lib/circle.js#Circle"] == ("import", 1.0)  # default import, `new Circle()`
    assert run["lib/util.js#helper"] == ("import", 1.0)  # const util = require(); util.helper()
    assert run["lib/util.js#format"] == ("import", 1.0)  # const {format: fmt} = require(); fmt()
    assert run["main.js#helper"] == ("scope", 1.0)  # the local one wins over the imported ones
    assert run["main.js#run.inner"] == ("scope", 1.0)
    assert run["lib/circle.js#Circle.print"] == ("type", 1.0)  # c = new Circle(); c.print()
    assert JS.targets("CALLS", "lib/circle.js#Circle.area") == {"lib/shapes.js#helper": ("import", 1.0)}


def test_js_this_calls_through_inheritance_across_files_and_externals():
    e = JS.edge("CALLS", "lib/circle.js#Circle.print", "lib/shapes.js#Shape.describe")
    assert (e.reason, e.confidence, e.prov) == ("self", 1.0, "INFERRED")
    assert JS.edge("CALLS", "lib/shapes.js#Shape.describe", "lib/shapes.js#Shape.area").reason == "self"
    assert JS.targets("CALLS", "lib/circle.js#Circle.print")["ext:path#join"] == ("external", 1.0)
    assert JS.targets("CALLS", "lib/circle.js#Circle.print")["lib/shapes.js#helper"] == ("import", 1.0)
    e = JS.edge("INHERITS", "lib/circle.js#Circle", "lib/shapes.js#Shape")
    assert (e.reason, e.prov) == ("import", "INFERRED")


def test_js_unimported_same_named_functions_are_candidates():
    got = JS.targets("CALLS", "other.js#ambiguous")
    assert got["lib/shapes.js#helper"] == ("candidate", 0.3333)
    assert got["lib/util.js#helper"] == ("candidate", 0.3333)
    assert got["main.js#helper"] == ("candidate", 0.3333)
    assert JS.stats.builtin >= 2  # console.log is not an edge; require() and String() are builtins
    assert not any(e.dst.endswith("#log") for e in JS.edges)


def test_ts_inheritance_implements_and_calls():
    e = TS.edge("IMPLEMENTS", "src/shapes.ts#Shape", "src/shapes.ts#Named")
    assert (e.prov, e.reason) == ("EXTRACTED", "syntax")
    assert TS.edge("INHERITS", "src/shapes.ts#Named", "src/shapes.ts#HasArea") is not None
    e = TS.edge("INHERITS", "src/square.ts#Square", "src/shapes.ts#Shape")  # `Shape as Base`
    assert (e.prov, e.reason, e.confidence) == ("INFERRED", "import", 1.0)
    assert TS.targets("CALLS", "src/square.ts#Square.area") == {"src/geo.ts#square": ("import", 1.0)}
    grow = TS.targets("CALLS", "src/square.ts#Square.grow")
    assert grow["src/square.ts#Square.area"] == ("self", 1.0)
    # overloads: the signatures are one function with its implementation, the last one
    assert {k: v for k, v in grow.items() if "scale" in k} == {"src/shapes.ts#scale@3": ("import", 1.0)}


def test_tsx_imports_ts_module_and_react_externals():
    view = TS.targets("CALLS", "src/view.tsx#SquareView")
    assert view["src/square.ts#Square"] == ("import", 1.0)
    assert view["ext:react#createElement"] == ("external", 1.0)
    assert TS.targets("IMPORTS", "src/view.tsx") == {"ext:react": ("external", 1.0), "src/square.ts": ("import", 1.0)}
