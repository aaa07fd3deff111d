"""Java: extraction and resolution over tests/fixtures/symbols/java (packages com.acme.*)."""

from tests.unit.symbols_helpers import load_project

J = load_project("java")
S = "src/main/java/com/acme/"


def test_types_methods_constructors_overloads_and_nested_classes():
    assert J.symbols(S + "shapes/Base.java") == [
        (S + "shapes/Base.java#Base", "class", 3, 20),
        (S + "shapes/Base.java#Base.describe", "method", 9, 11),
        (S + "shapes/Base.java#Base.suffix", "method", 13, 15),
        (S + "shapes/Base.java#Base.scale", "method", 17, 17),
        (S + "shapes/Base.java#Base.scale@2", "method", 19, 19),
    ]
    ids = [s[0] for s in J.symbols(S + "shapes/Circle.java")]
    assert S + "shapes/Circle.java#Circle.Inner.go" in ids
    assert J.symbol(S + "shapes/Shape.java#Shape").kind == "interface"
    assert J.symbol(S + "shapes/Shape.java#Shape").doc == "Anything with an area."
    assert J.symbol(S + "shapes/Base.java#Base.describe").doc == "Describe the shape."
    assert J.exts[S + "shapes/Base.java"].package == "com.acme.shapes"


def test_imports_single_type_wildcard_static_and_external():
    imports = J.targets("IMPORTS", S + "app/Main.java")
    assert imports[S + "util/Other.java"] == ("import", 1.0)
    assert {S + "shapes/Circle.java", S + "shapes/Base.java", S + "shapes/Shape.java"} <= set(imports)
    assert imports["ext:java.util"] == ("external", 1.0)
    assert not any(k == "ext:com.acme" for k in imports)
    assert J.targets("IMPORTS", S + "shapes/Circle.java") == {S + "util/MathUtil.java": ("import", 1.0)}


def test_calls_static_import_static_method_and_implicit_this():
    area = J.targets("CALLS", S + "shapes/Circle.java#Circle.area")
    assert area == {S + "util/MathUtil.java#MathUtil.square": ("import", 1.0)}  # helper() stays unresolved
    main = J.targets("CALLS", S + "app/Main.java#Main.main")
    assert main[S + "util/Other.java#Other.helper"] == ("import", 1.0)  # Other.helper(), not MathUtil's
    assert main[S + "shapes/Circle.java#Circle"] == ("import", 1.0)  # new Circle() via wildcard import
    assert main["ext:java.util.List#of"] == ("external", 1.0)
    # unqualified calls inside a class reach its members and the inherited ones
    e = J.edge("CALLS", S + "shapes/Base.java#Base.describe", S + "shapes/Base.java#Base.suffix")
    assert (e.reason, e.prov) == ("self", "EXTRACTED")
    print_ = J.targets("CALLS", S + "shapes/Circle.java#Circle.print")
    assert print_ == {S + "shapes/Base.java#Base.describe": ("self", 1.0)}  # describe() and super.describe()
    assert J.targets("CALLS", S + "shapes/Circle.java#Circle.Inner.go") == {
        S + "shapes/Circle.java#Circle.print": ("self", 1.0)
    }


def test_this_call_reaches_interface_method_through_hierarchy():
    e = J.edge("CALLS", S + "shapes/Base.java#Base.describe", S + "shapes/Shape.java#Shape.area")
    assert (e.reason, e.confidence) == ("self", 1.0)


def test_inheritance_same_package_without_import():
    e = J.edge("INHERITS", S + "shapes/Circle.java#Circle", S + "shapes/Base.java#Base")
    assert (e.prov, e.confidence) == ("INFERRED", 1.0)
    e = J.edge("IMPLEMENTS", S + "shapes/Base.java#Base", S + "shapes/Shape.java#Shape")
    assert e is not None and e.confidence == 1.0


def test_unknown_receiver_gives_candidates_and_syntax_errors_are_marked():
    main = J.targets("CALLS", S + "app/Main.java#Main.main")
    assert main[S + "shapes/Circle.java#Circle.area"] == ("candidate", 0.5)
    assert main[S + "shapes/Shape.java#Shape.area"] == ("candidate", 0.5)
    broken = J.exts[S + "app/Broken.java"]
    assert broken.has_errors and S + "app/Broken.java#Broken.after" in [s.id for s in broken.symbols]


def test_a_method_of_an_anonymous_class_calls_its_sibling_by_name():
    from indexers.extract import extract_file
    from indexers.resolve import SymbolTable, resolve_all

    src = (b"class Outer {\n  void go() {\n    Runnable r = new Runnable() {\n"
           b"      public void run() { helper(); }\n      void helper() {}\n    };\n  }\n}\n")
    edges = resolve_all(SymbolTable([extract_file("Outer.java", src, "java")]))[0]
    calls = {(e.src, e.dst, e.confidence) for e in edges if e.type == "CALLS"}
    assert calls == {("Outer.java#Outer.go.run", "Outer.java#Outer.go.helper", 1.0)}
