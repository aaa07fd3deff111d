"""Rust: extraction and resolution over tests/fixtures/symbols/rust (crate root src/lib.rs)."""

from tests.unit.symbols_helpers import load_project, outline

from indexers.extract import extract_file
from indexers.resolve import SymbolTable, resolve_all

R = load_project("rust")


def test_items_impl_methods_and_trait_methods():
    assert R.outline("src/shapes/circle.rs") == outline("""
        Circle struct 5-7
        Circle.new method 10-13
        Circle.check method 15
        Circle.grow method 17-19
        Circle.area method 23-25
        Circle.name method 29-31
    """)
    assert R.symbol("src/shapes/circle.rs#Circle.new").parent == "src/shapes/circle.rs#Circle"
    assert R.symbol("src/shapes/mod.rs#Shape").kind == "trait"
    assert R.symbol("src/shapes/mod.rs#Shape").doc == "Anything with an area."
    assert R.symbol("src/lib.rs#build").doc == "Build a circle."
    assert ("src/lib.rs#inline.deep", "function", 22, 22) in R.symbols("src/lib.rs")
    assert ("src/util.rs#SCALE", "constant", 5, 5) in R.symbols("src/util.rs")
    assert [s[0] for s in R.symbols("src/other.rs")] == ["src/other.rs#helper", "src/other.rs#helper@2"]


def test_use_declarations_crate_super_and_external():
    assert R.targets("IMPORTS", "src/lib.rs") == {
        "src/shapes/circle.rs": ("import", 1.0),
        "src/util.rs": ("import", 1.0),
        "ext:std::collections": ("external", 1.0),
    }
    assert set(R.targets("IMPORTS", "src/shapes/circle.rs")) == {"src/shapes/mod.rs", "src/util.rs"}


def test_calls_through_use_alias_module_paths_and_self():
    build = R.targets("CALLS", "src/lib.rs#build")
    assert build["src/shapes/circle.rs#Circle.new"] == ("import", 1.0)  # Circle::new via use
    assert build["src/util.rs#helper"] == ("import", 1.0)  # use crate::util::helper as util_helper
    assert build["ext:std::collections::HashMap#new"] == ("external", 1.0)
    assert build["src/lib.rs#local"] == ("scope", 1.0)
    # `mod other;` then other::helper(): the module has two definitions of the name
    assert build["src/other.rs#helper"] == ("candidate", 0.5)
    assert R.targets("CALLS", "src/shapes/circle.rs#Circle.grow") == {"src/util.rs#helper": ("import", 1.0)}
    e = R.edge("CALLS", "src/shapes/circle.rs#Circle.new", "src/shapes/circle.rs#Circle.check")
    assert (e.reason, e.prov) == ("self", "EXTRACTED")  # Self::check


def test_unqualified_ambiguous_call_and_unknown_receiver_are_candidates():
    assert R.targets("CALLS", "src/lib.rs#local") == {
        "src/other.rs#helper": ("candidate", 0.3333),
        "src/other.rs#helper@2": ("candidate", 0.3333),
        "src/util.rs#helper": ("candidate", 0.3333),
    }
    build = R.targets("CALLS", "src/lib.rs#build")
    assert build["src/shapes/circle.rs#Circle.area"] == ("candidate", 0.5)


def test_trait_impls_and_supertraits():
    e = R.edge("IMPLEMENTS", "src/shapes/circle.rs#Circle", "src/shapes/mod.rs#Shape")
    assert (e.prov, e.reason, e.confidence) == ("INFERRED", "import", 1.0)
    assert R.edge("IMPLEMENTS", "src/shapes/circle.rs#Circle", "src/shapes/mod.rs#Named") is not None
    assert R.edge("INHERITS", "src/shapes/mod.rs#Shape", "src/shapes/mod.rs#Named").reason == "syntax"


_IMPL_ELSEWHERE = {
    "src/lib.rs": b"""pub mod shape;
pub mod area;
pub mod other;
use crate::shape::Square;

pub fn make() -> f64 {
    Square::new(2.0).side
}
""",
    "src/shape.rs": b"pub struct Square { pub side: f64 }\n",
    "src/area.rs": b"""use crate::shape::Square;

impl Square {
    pub fn new(side: f64) -> Square { Square { side } }
}
""",
    # Another crate-local type with the same name: its impl must not be taken for shape::Square's.
    "src/other.rs": b"""pub struct Square;

impl Square {
    pub fn new(side: f64) -> Square { Square }
}
""",
}


def _calls(table: SymbolTable) -> dict[tuple[str, str], tuple[str, float]]:
    edges, _ = resolve_all(table)
    return {(e.src, e.dst): (e.reason, e.confidence) for e in edges if e.type == "CALLS"}


def test_methods_of_an_impl_in_another_file_resolve_through_the_imported_type():
    table = SymbolTable(extract_file(path, data, "rust") for path, data in _IMPL_ELSEWHERE.items())
    calls = _calls(table)
    assert calls[("src/lib.rs#make", "src/area.rs#Square.new")] == ("import", 1.0)
    assert ("src/lib.rs#make", "src/other.rs#Square.new") not in calls

    # Without the impl the crate has no such method: nothing is guessed (the other Square's
    # `new` is not taken for it).
    table.remove_file("src/area.rs")
    assert not [dst for src, dst in _calls(table) if src == "src/lib.rs#make" and dst.endswith("Square.new")]
