"""The context_query grammar: every clause, OR/|, and errors that point at the problem."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphsvc.errors import InputError
from graphsvc.query.parser import QueryParseError, parse, parse_keywords


def test_turn_scope_and_key():
    q = parse("t-42 key=goal")
    assert (q.turn_id, q.workspace, q.operation, q.key) == ("t-42", None, "key", "goal")


def test_workspace_scope_alone_is_an_overview():
    q = parse("@myrepo")
    assert (q.workspace, q.turn_id, q.operation) == ("myrepo", None, "overview")


def test_keywords_with_or_and_pipe():
    assert parse("@ws Model OR QuerySet").terms == [["Model", "QuerySet"]]
    assert parse("@ws a|b c").terms == [["a", "b"], ["c"]]
    assert parse("@ws a | b | c d").terms == [["a", "b", "c"], ["d"]]
    assert parse("@ws save").operation == "search"


def test_quoted_terms_are_phrases_and_data():
    q = parse('@ws "lazy database" "OR" x')
    assert q.terms == [["lazy database"], ["OR"], ["x"]]
    assert parse(r'@ws "say \"hi\""').terms == [['say "hi"']]
    assert parse('@ws "kind=file"').terms == [["kind=file"]]


def test_every_clause():
    q = parse("@ws neigh=src/app.py#App.run depth=3 rel=CALLS,imports prov=inferred min_conf=0.3 limit=7 kind=symbol|class")
    assert q.operation == "neigh" and q.target == "src/app.py#App.run"
    assert (q.depth, q.rels, q.provs, q.min_confidence, q.limit) == (3, ["CALLS", "IMPORTS"], ["INFERRED"], 0.3, 7)
    assert q.kinds == ["symbol", "class"]
    p = parse("@ws path=src/a.py#f->src/b-c.py#g hops=4 directed=1")
    assert (p.operation, p.path_from, p.path_to, p.hops, p.directed) == ("path", "src/a.py#f", "src/b-c.py#g", 4, True)
    e = parse("@ws explain=App.run")
    assert (e.operation, e.target) == ("explain", "App.run")
    c = parse("t1 communities=1 resolution=0.5 seed=7 objective=CPM")
    assert (c.operation, c.resolution, c.seed, c.objective) == ("communities", 0.5, 7, "cpm")
    assert parse("@ws communities=1 algorithm=LeidenAlg").algorithm == "leidenalg"
    assert parse('@ws neigh="src/my file.py"').target == "src/my file.py"


@pytest.mark.parametrize(
    ("text", "position", "expected"),
    [
        ("", 0, "a turn id or @workspace"),
        ("kind=file x", 0, "a turn id or @workspace"),
        ("@ x", 1, "a workspace name after @"),
        ("@ws OR x", 4, "a keyword before OR"),
        ("@ws x OR", 8, "a keyword after OR"),
        ("@ws x OR OR y", 9, "a keyword before OR"),
        ('@ws "open', 4, 'a closing "'),
        ("@ws limit=0", 10, "an integer 1..1000000"),
        ("@ws limit=ten", 10, "an integer 1..1000000"),
        ("@ws neigh=x depth=5", 18, "an integer 1..4"),
        ("@ws kind=gizmo", 9, None),
        ("@ws prov=GUESSED", 9, "EXTRACTED, INFERRED, RUNTIME"),
        ("@ws rel=LIKES", 8, None),
        ("@ws path=a", 10, "'->' and a target id"),
        ("@ws path=a->", 12, "a target id after '->'"),
        ("@ws path=->b", 9, "<from>-><to>"),
        ("@ws neigh=", 10, "an entity id"),
        ("@ws neigh=a explain=b", 12, "one operation per query"),
        ("@ws neigh=a foo", 12, "keywords only in a search"),
        ("@ws limit=1 limit=2", 12, "each clause at most once"),
        ("@ws bogus=1", 4, None),
        ("@ws min_conf=2", 13, "a number 0..1"),
        ("@ws communities=yes-please", 16, "1"),
        ("@ws objective=louvain", 14, "modularity or cpm"),
        ("@ws algorithm=louvain", 14, "igraph or leidenalg"),
    ],
)
def test_errors_name_position_and_expected(text, position, expected):
    with pytest.raises(QueryParseError) as info:
        parse(text)
    err = info.value
    assert isinstance(err, InputError)
    assert err.position == position
    if expected is not None:
        assert err.expected == expected
    assert f"position {position}" in str(err)


def test_parse_keywords_for_typed_search():
    assert parse_keywords("a b OR c") == [["a"], ["b", "c"]]
    with pytest.raises(QueryParseError):
        parse_keywords("OR")


def _parses_or_says_where(text: str) -> None:
    """A query with one scope and a known operation, or a parse error that points into the text."""
    try:
        q = parse(text)
    except QueryParseError as err:
        assert 0 <= err.position <= len(text)
        assert err.expected
    else:
        assert q.operation in ("search", "key", "path", "neigh", "explain", "communities", "overview")
        assert (q.turn_id is None) != (q.workspace is None)


@settings(max_examples=400, deadline=None)
@given(st.text())
def test_any_string_parses_or_raises_query_parse_error(text):
    _parses_or_says_where(text)


_pieces = st.sampled_from(
    ["@ws", "t1", "OR", "|", "a|b", '"x y"', "neigh=a", "path=a->b", "limit=3", "depth=2", "kind=file",
     "prov=RUNTIME", "rel=CALLS", "key=goal", "communities=1", "=", "->", '"', "\\", "min_conf=0.5", "x=", "@"]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_pieces, max_size=8).map(" ".join))
def test_grammar_shaped_strings_never_raise_anything_else(text):
    _parses_or_says_where(text)
