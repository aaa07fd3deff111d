"""C++: extraction and resolution over tests/fixtures/symbols/cpp."""

from tests.unit.symbols_helpers import load_project, outline

from indexers.extract import extract_file
from indexers.languages import language_for_path
from indexers.resolve import SymbolTable, resolve_all

X = load_project("cpp")


def test_namespaces_classes_inline_and_out_of_line_methods():
    assert X.outline("include/shape.hpp") == outline("""
        geo module 4-26
        geo.Shape class 7-12
        geo.Shape.~Shape method 9
        geo.Shape.twice method 11
        geo.Circle class 14-22
    """)
    assert X.symbol("include/shape.hpp#geo.Shape").doc == "Anything with an area."
    assert X.outline("src/shape.cpp") == outline("""
        geo module 3-20
        geo.Circle.Circle method 5
        geo.Circle.area method 7-9
        geo.Circle.grow method 11-14
        geo.helper function 16
        geo.helper@2 function 18  # an overload
    """)
    assert X.symbol("src/main.cpp#Number").kind == "type_alias"
    assert X.symbol("src/util.cpp#identity").signature == "T identity(T v)"


def test_this_calls_inherited_members_and_overload_candidates():
    grow = X.targets("CALLS", "src/shape.cpp#geo.Circle.grow")
    assert grow["src/shape.cpp#geo.Circle.area"] == ("self", 1.0)  # this->area()
    assert grow["include/shape.hpp#geo.Shape.twice"] == ("self", 1.0)  # inherited, unqualified
    assert grow["src/shape.cpp#geo.helper"] == ("candidate", 0.5)
    assert grow["src/shape.cpp#geo.helper@2"] == ("candidate", 0.5)
    e = X.edge("INHERITS", "include/shape.hpp#geo.Circle", "include/shape.hpp#geo.Shape")
    assert (e.prov, e.reason) == ("EXTRACTED", "syntax")


def test_namespace_qualified_call_through_header_to_implementation():
    main = X.targets("CALLS", "src/main.cpp#main")
    assert main["src/util.cpp#util.twice"] == ("import", 1.0)  # declared in util.hpp
    # identity() is not declared by any included header: only a weaker workspace-wide match
    assert main["src/util.cpp#identity"] == ("unique-name", 0.8)
    assert main["src/shape.cpp#geo.Circle.grow"][1] < 1.0  # c.grow(): c's type is not tracked
    assert X.targets("IMPORTS", "src/main.cpp") == {
        "ext:iostream": ("external", 1.0),
        "include/shape.hpp": ("import", 1.0),
        "include/util.hpp": ("import", 1.0),
    }


def test_syntax_error_file():
    ext = X.exts["src/broken.cpp"]
    assert ext.has_errors and "src/broken.cpp#after" in [s.id for s in ext.symbols]


_DOT_H_PROJECT = {
    "circle.h": b"""#pragma once
namespace geo {
class Circle {
public:
    double area() const;
    static Circle unit();
private:
    double r_;
};
}
""",
    "circle.cpp": b"""#include "circle.h"
namespace geo {
double Circle::area() const { return 3.14 * r_ * r_; }
Circle Circle::unit() { return Circle(); }
}
""",
    "main.cpp": b"""#include "circle.h"
double run() {
    return geo::Circle::unit().area();
}
""",
    "plain.h": b"/* class names in prose; namespace with <stddef.h>'s symbols. */\nstruct point { int x; };\nint area(void);\n",
}


def test_a_dot_h_header_with_classes_is_cpp_and_its_methods_defined_elsewhere_resolve():
    exts = {path: extract_file(path, data, language_for_path(path).name) for path, data in _DOT_H_PROJECT.items()}
    assert exts["circle.h"].lang == "cpp"
    assert [s.id for s in exts["circle.h"].symbols] == ["circle.h#geo", "circle.h#geo.Circle"]
    assert exts["plain.h"].lang == "c"  # C, even with the words in a comment
    edges, _ = resolve_all(SymbolTable(exts.values()))
    calls = {(e.src, e.dst): (e.reason, e.confidence) for e in edges if e.type == "CALLS"}
    # `geo::Circle::unit()`: the class comes from the header, the method from circle.cpp.
    assert calls[("main.cpp#run", "circle.cpp#geo.Circle.unit")] == ("import", 1.0)
