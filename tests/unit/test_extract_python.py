from indexers.extract import RECEIVER_NAME, RECEIVER_SELF, RECEIVER_SUPER, extract_file

from tests.unit.symbols_helpers import load_project, outline

P = load_project("python")


def test_symbols_with_nested_qualified_names_kinds_and_lines():
    assert P.outline("pkg/models.py") == outline("""
        LIMIT constant 4
        Base class 7-15
        Base.save method 10-12
        Base.validate method 14-15
        Model class 18-25
        Model.run method 19-25
    """)
    assert P.outline("pkg/sub/deep.py") == outline("""
        Child class 5-15
        Child.Inner class 6-8
        Child.Inner.method method 7-8
        Child.run method 10-15
        Child.run.local function 11-12
    """)


def test_parents_signature_and_docstring():
    run = P.symbol("pkg/models.py#Model.run")
    assert run.parent == "pkg/models.py#Model"
    assert run.signature == "def run(self, x: int) -> bool"
    assert run.doc == "Run the model."
    base = P.symbol("pkg/models.py#Base")
    assert base.parent == "pkg/models.py"
    assert base.doc == "A base class."
    assert P.symbol("pkg/sub/deep.py#Child.run.local").parent == "pkg/sub/deep.py#Child.run"


def test_redefinitions_get_distinct_ids_in_source_order():
    assert [s[:3] for s in P.symbols("app.py")] == [
        ("app.py#dup", "function", 7),
        ("app.py#dup@2", "function", 11),
        ("app.py#main", "function", 15),
        ("app.py#ambiguous", "function", 25),
    ]


def test_raw_imports():
    imports = [(i.module, i.name, i.alias, i.level) for i in P.exts["app.py"].imports]
    assert imports == [
        ("os.path", None, None, 0),
        ("pkg.util", None, "u", 0),
        ("pkg.other", "helper", "other_helper", 0),
        ("pkg", "Model", None, 0),
    ]
    deep = [(i.module, i.name, i.alias, i.level) for i in P.exts["pkg/sub/deep.py"].imports]
    assert deep == [("util", "helper", "util_helper", 2), ("", "models", None, 2)]


def test_raw_calls_with_receivers_and_callers():
    calls = {(c.caller, c.name, c.receiver_kind, c.receiver, c.line) for c in P.exts["pkg/models.py"].calls}
    assert ("pkg/models.py#Base.save", "validate", RECEIVER_SELF, None, 11) in calls
    assert ("pkg/models.py#Model.run", "validate", RECEIVER_SUPER, None, 25) in calls
    app = {(c.caller, c.name, c.receiver_kind, c.receiver) for c in P.exts["app.py"].calls}
    assert ("app.py#main", "join", RECEIVER_NAME, "os.path") in app
    assert ("app.py", "main", "none", None) in app  # top-level code belongs to the file


def test_inheritance_refs():
    [ref] = P.exts["pkg/sub/deep.py"].inherits
    assert (ref.type_id, ref.base, ref.kind) == ("pkg/sub/deep.py#Child", "models.Model", "inherits")


def test_syntax_error_is_marked_and_the_rest_still_extracted():
    ext = P.exts["broken.py"]
    assert ext.has_errors and ext.error_count >= 1
    ids = [s.id for s in ext.symbols]
    assert "broken.py#ok" in ids and "broken.py#After.fine" in ids


def test_invalid_utf8_is_flagged_and_extracted():
    ext = P.exts["bad_utf8.py"]
    assert ext.invalid_utf8 and "invalid-utf8" in ext.problems
    assert ext.skip_reason is None
    assert [s.name for s in ext.symbols] == ["café_ok", "second"]


def test_empty_and_unknown_files_have_a_reason():
    assert P.exts["empty.py"].skip_reason == "empty"
    assert P.exts["empty.py"].symbols == []
    assert extract_file("x.unknown", b"abc", None).skip_reason == "unknown-language"
    assert extract_file("big.js", b"var a=1;" * 200_000, "javascript").skip_reason == "minified"


def test_garbage_never_raises():
    for data in (b"\x00\x01\x02" * 100, b"def (((((((" * 50, b"(" * 50_000, b"\xff" * 1000):
        ext = extract_file("g.py", data, "python")
        assert ext.path == "g.py"
    # Thousands of unbalanced brackets make one huge error node; queries over it are slow.
    assert extract_file("g.py", b"[" * 50_000, "python").skip_reason == "unparseable"


def test_async_functions_decorators_and_type_aliases():
    src = b"""
import typing
Alias: typing.TypeAlias = int
type Pair = tuple[int, int]

@decorator
async def fetch(url):
    '''Fetch it.'''
    await go(url)

class K:
    @property
    def value(self):
        return 1
"""
    ext = extract_file("m.py", src, "python")
    got = {(s.qualified_name, s.kind, s.start_line) for s in ext.symbols}
    assert got == {
        ("Alias", "type_alias", 3),
        ("Pair", "type_alias", 4),
        ("fetch", "function", 7),
        ("K", "class", 11),
        ("K.value", "method", 13),
    }
    fetch = next(s for s in ext.symbols if s.name == "fetch")
    assert fetch.signature == "async def fetch(url)" and fetch.doc == "Fetch it."


def test_doc_is_the_first_paragraph_of_a_docstring_or_comment():
    py = extract_file("d.py", b'''def send(request):
    """Constructs a request, prepares it
    and sends it.

    :param request: what to send.
    """
''', "python")
    assert py.symbols[0].doc == "Constructs a request, prepares it and sends it."
    go = extract_file("d.go", b"""package d

// Describe names the shape
// in a sentence.
//
// It never fails.
func Describe() string { return "" }
""", "go")
    assert go.symbols[0].doc == "Describe names the shape in a sentence."
    js = extract_file("d.js", b"""/**
 * Area of a shape.
 * @param s the shape
 */
function area(s) {}
""", "javascript")
    assert js.symbols[0].doc == "Area of a shape."
    long = extract_file("l.py", b'def f():\n    """' + b"word " * 200 + b'"""\n', "python").symbols[0].doc
    assert len(long) <= 500 and long.endswith("word…")
