from tests.unit.symbols_helpers import load_project, outline

JS = load_project("javascript")
TS = load_project("typescript")


def test_js_definitions_with_classes_arrow_functions_and_constants():
    assert JS.outline("lib/shapes.js") == outline("""
        Shape class 4-16
        Shape.constructor method 5-7
        Shape.area method 9-11
        Shape.describe method 13-15
        helper function 18-20
        UNIT constant 22
    """)
    assert ("lib/util.js#format", "function", 5, 5) in JS.symbols("lib/util.js")
    assert JS.symbol("lib/shapes.js#Shape").doc == "A shape with an area."  # JSDoc above `export`


def test_js_nested_functions_and_redefinitions():
    ids = [s[0] for s in JS.symbols("main.js")]
    assert "main.js#run.inner" in ids
    assert ids.count("main.js#dup") == 1 and "main.js#dup@2" in ids


def test_js_es_and_commonjs_imports():
    got = [(i.module, i.name, i.alias) for i in JS.exts["main.js"].imports]
    assert got == [
        ("./lib/util", "module.exports", "util"),  # `require`: its module.exports, else the module
        ("./lib/util", "format", "fmt"),
        ("./lib/circle", "default", "Circle"),
    ]
    got = [(i.module, i.name, i.alias, i.export) for i in JS.exts["lib/circle.js"].imports]
    assert got == [
        ("./shapes.js", "Shape", "BaseShape", False),
        ("./shapes.js", "helper", None, False),
        ("./shapes", None, "shapes", False),
        ("path", "default", "path", False),
        ("", "Circle", "default", True),  # export default class Circle
    ]


def test_js_bad_files():
    assert JS.exts["broken.js"].has_errors and "broken.js#ok" in [s.id for s in JS.exts["broken.js"].symbols]
    assert JS.exts["bad.js"].invalid_utf8 and len(JS.exts["bad.js"].symbols) == 2
    assert JS.exts["empty.js"].skip_reason == "empty"


def test_ts_interfaces_enums_aliases_namespaces_and_overloads():
    assert JS.exts["main.js"].lang == "javascript" and TS.exts["src/view.tsx"].lang == "tsx"
    kinds = {s[0]: s[1] for s in TS.symbols("src/shapes.ts")}
    assert kinds["src/shapes.ts#HasArea"] == "interface"
    assert kinds["src/shapes.ts#HasArea.area"] == "method"
    assert kinds["src/shapes.ts#Id"] == "type_alias"
    assert kinds["src/shapes.ts#Color"] == "enum"
    assert kinds["src/shapes.ts#Shape.area"] == "method"
    assert [k for k in kinds if "scale" in k] == [
        "src/shapes.ts#scale", "src/shapes.ts#scale@2", "src/shapes.ts#scale@3"
    ]
    assert ("src/geo.ts#Geo.origin", "function", 6, 8) in TS.symbols("src/geo.ts")
    assert TS.symbol("src/shapes.ts#HasArea").doc == "Anything with an area."
    assert TS.symbol("src/shapes.ts#scale@3").signature == "function scale(x: any): any"


def test_tsx_file_extracts():
    assert TS.symbols("src/view.tsx") == [("src/view.tsx#SquareView", "function", 5, 8)]
    assert TS.symbol("src/view.tsx#SquareView").doc == "Renders a square."
