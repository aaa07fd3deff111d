"""Go: extraction and resolution over tests/fixtures/symbols/go (module example.com/demo)."""

from tests.unit.symbols_helpers import load_project, outline

G = load_project("go")


def test_definitions_methods_are_qualified_by_receiver_type():
    assert G.outline("shapes/shape.go") == outline("""
        Shape interface 4-6
        Shape.Area method 5
        Base struct 9-11
        Base.Describe method 14-16
        Base.suffix method 18-20
        Pi constant 22
    """)
    d = G.symbol("shapes/shape.go#Base.Describe")
    assert d.parent == "shapes/shape.go#Base"
    assert d.signature == "func (b *Base) Describe() string"
    assert d.doc == "Describe names the shape."
    assert G.exts["shapes/shape.go"].package == "shapes"


def test_imports_resolve_by_import_path_suffix_and_package_name():
    assert G.targets("IMPORTS", "shapes/circle.go") == {"util/util.go": ("import", 1.0)}
    main = G.targets("IMPORTS", "cmd/app/main.go")
    assert main["ext:fmt"] == ("external", 1.0) and main["ext:strings"] == ("external", 1.0)
    assert {"other/other.go", "shapes/circle.go", "shapes/shape.go"} <= set(main)


def test_calls_aliased_import_package_and_same_package_scope():
    assert G.targets("CALLS", "shapes/circle.go#Circle.Area") == {"util/util.go#Helper": ("import", 1.0)}
    main = G.targets("CALLS", "cmd/app/main.go#main")
    assert main["other/other.go#Same"] == ("import", 1.0)  # not util.Same: same name, other package
    assert main["ext:fmt#Println"] == ("external", 1.0)
    assert main["cmd/app/main.go#local"] == ("scope", 1.0)
    print_ = G.targets("CALLS", "shapes/circle.go#Circle.Print")
    assert print_["shapes/circle.go#helperHere"] == ("scope", 1.0)


def test_receiver_calls_through_embedding_across_files():
    e = G.edge("CALLS", "shapes/circle.go#Circle.Print", "shapes/shape.go#Base.Describe")
    assert (e.reason, e.confidence, e.prov) == ("self", 1.0, "INFERRED")
    e = G.edge("CALLS", "shapes/shape.go#Base.Describe", "shapes/shape.go#Base.suffix")
    assert (e.reason, e.prov) == ("self", "EXTRACTED")
    e = G.edge("INHERITS", "shapes/circle.go#Circle", "shapes/shape.go#Base")
    assert (e.prov, e.confidence) == ("INFERRED", 1.0)


def test_receiver_of_a_composite_literal_is_of_its_type():
    main = G.targets("CALLS", "cmd/app/main.go#main")
    # c := &shapes.Circle{R: 1}; c.Area(): not a guess between Circle.Area and Shape.Area.
    assert main["shapes/circle.go#Circle.Area"] == ("type", 1.0)
    assert "shapes/shape.go#Shape.Area" not in main
    assert G.stats.builtin >= 1  # len


def test_syntax_error_file():
    ext = G.exts["broken/broken.go"]
    assert ext.has_errors
    assert [s.name for s in ext.symbols] == ["ok", "bad", "after"]
    assert G.edge("CALLS", "broken/broken.go#after", "broken/broken.go#ok") is not None
