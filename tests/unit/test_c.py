"""C: extraction and resolution over tests/fixtures/symbols/c."""

from tests.unit.symbols_helpers import load_project, outline

C = load_project("c")


def test_definitions_structs_typedefs_enums_macros_and_globals():
    assert C.outline("include/shapes.h") == outline("""
        SHAPES_H constant 2
        PI constant 4
        shape struct 7-10
        shape_t type_alias 10
        color enum 12
    """)
    assert C.symbol("include/shapes.h#shape").doc == "A shape with an area function."
    assert C.outline("src/util.c") == outline("""
        counter variable 3
        square function 5-7
        helper function 9-11
    """)
    area = C.symbol("src/shapes.c#shape_area")
    assert area.signature == "double shape_area(const shape_t *s)" and area.doc == "Area of a circle."


def test_includes_relative_then_unique_basename_and_system_headers():
    assert C.targets("IMPORTS", "src/main.c") == {
        "ext:stdio.h": ("external", 1.0),
        "include/shapes.h": ("import", 1.0),  # found by its unique basename
    }
    assert C.targets("IMPORTS", "src/shapes.c") == {
        "include/shapes.h": ("import", 1.0),
        "src/util.h": ("import", 1.0),  # next to the including file
    }


def test_calls_through_headers_reach_the_implementing_source():
    assert C.targets("CALLS", "src/shapes.c#shape_area") == {"src/util.c#square": ("import", 1.0)}
    main = C.targets("CALLS", "src/main.c#main")
    assert main == {"src/shapes.c#shape_area": ("import", 1.0), "src/main.c#ambiguous": ("scope", 1.0)}
    assert C.stats.builtin >= 1  # printf


def test_static_functions_with_one_name_local_scope_wins_else_candidates():
    assert C.targets("CALLS", "src/other.c#helper_user") == {"src/other.c#helper": ("scope", 1.0)}
    assert C.targets("CALLS", "src/main.c#ambiguous") == {
        "src/other.c#helper": ("candidate", 0.5),
        "src/util.c#helper": ("candidate", 0.5),
    }


def test_syntax_error_file_keeps_what_parses():
    ext = C.exts["src/broken.c"]
    assert ext.has_errors and ext.error_count >= 1
    assert "src/broken.c#after" in [s.id for s in ext.symbols]
    assert C.edge("CALLS", "src/broken.c#after", "src/broken.c#ok").reason == "scope"
