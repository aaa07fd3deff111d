"""Every language in the table has a query file that compiles against its installed grammar."""

import pytest
import tree_sitter

from indexers.extract import extract_file
from indexers.languages import LANGUAGES, GrammarError, LanguageSpec, get_language, language_for_path


@pytest.mark.parametrize("name", sorted(LANGUAGES))
def test_query_file_compiles_against_its_grammar(name):
    spec = LANGUAGES[name]
    assert spec.query_path.is_file()
    query = spec.query()
    assert isinstance(spec.load(), tree_sitter.Language)
    captures = {query.capture_name(i) for i in range(query.capture_count)}
    assert "name" in captures
    assert any(c.startswith("definition.") for c in captures)
    assert "reference.call" in captures and "reference.import" in captures


def test_extensions_map_to_languages():
    expected = {
        "a.py": "python", "a.pyi": "python", "a.js": "javascript", "a.mjs": "javascript",
        "a.jsx": "javascript", "a.ts": "typescript", "a.tsx": "tsx", "a.go": "go", "a.rs": "rust",
        "A.java": "java", "a.c": "c", "a.h": "c", "a.cpp": "cpp", "a.hpp": "cpp", "a.cc": "cpp",
    }
    assert {p: language_for_path(p).name for p in expected} == expected
    assert language_for_path("README.md") is None
    assert language_for_path("Makefile") is None


def test_a_grammar_that_fails_to_load_names_language_and_package():
    broken = LanguageSpec(name="cobol", extensions=(".cob",), package="tree_sitter_cobol", function="language", module_system="python")
    LANGUAGES["cobol"] = broken
    try:
        with pytest.raises(GrammarError) as info:
            broken.load()
        assert "cobol" in str(info.value) and "tree-sitter-cobol" in str(info.value)
    finally:
        del LANGUAGES["cobol"]
    with pytest.raises(GrammarError):
        get_language("cobol")


def test_extraction_results_pickle_small():
    import pickle

    ext = extract_file("m.py", b"class A:\n    def f(self):\n        return g()\n", "python")
    again = pickle.loads(pickle.dumps(ext))
    assert again.symbols[1].id == "m.py#A.f" and again.calls[0].name == "g"


def test_extraction_results_pickle_every_field():
    import pickle

    ext = extract_file("m.py", b"def f(): pass\ndef f(): pass\nclass A(\n", "python")
    assert ext.shadowed and ext.has_errors
    assert pickle.loads(pickle.dumps(ext)) == ext


@pytest.mark.parametrize("name,shared", [("javascript", "ecma"), ("typescript", "ecma"), ("tsx", "ecma"),
                                         ("c", "c-common"), ("cpp", "c-common")])
def test_shared_query_blocks_are_inherited_once(name, shared):
    from indexers.languages import QUERY_DIR, query_source

    block = (QUERY_DIR / f"{shared}.scm").read_text()
    source = query_source(name)
    assert source.count(block) == 1


def test_query_inheritance_refuses_loops_and_paths(tmp_path, monkeypatch):
    from indexers import languages

    (tmp_path / "a.scm").write_text("; inherits: b\n")
    (tmp_path / "b.scm").write_text("; inherits: a\n")
    (tmp_path / "python.scm").write_text("; inherits: ../secret\n")
    monkeypatch.setattr(languages, "QUERY_DIR", tmp_path)
    with pytest.raises(GrammarError, match="loop"):
        languages.query_source("a")
    monkeypatch.setattr(LanguageSpec, "query_path", property(lambda self: tmp_path / f"{self.name}.scm"))
    with pytest.raises(GrammarError, match="names no query file"):
        languages.query_source("python")


def test_value_chains_keep_literal_subscripts_as_keyed_elements():
    from indexers.text import value_chain

    assert value_chain('d["k"](x).m') == "d[s:k]().m"
    assert value_chain("a[0][i]") == "a[i:0][]"
    assert value_chain("a[1:3]") == "a[i:]"  # a slice of names and numbers
    assert value_chain("self.hooks[:].pop") == "self.hooks[i:].pop"
    assert value_chain("a[x ? 0 : 1]") is None  # a colon in anything else is no chain


def test_value_chains_longer_than_kept_are_none_with_or_without_white_space():
    from indexers.text import MAX_VALUE, value_chain

    assert value_chain(" = \\\n    ".join(f"a{i}" for i in range(MAX_VALUE))) is None
    assert value_chain("f(" + " " * 4 * MAX_VALUE + "x) . g") == "f().g"
    assert value_chain("a" + " . b" * (MAX_VALUE // 3)) == "a" + ".b" * (MAX_VALUE // 3)
