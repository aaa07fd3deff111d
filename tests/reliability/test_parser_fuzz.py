"""The context_query parser under hostile input.

tests/query/test_parser.py already checks that arbitrary text parses or raises
`QueryParseError` with a position; these add what an attacker would try: an alphabet of
grammar and injection characters (NUL, quotes, backslashes, confusables, odd whitespace),
quoted values that must come back as exactly the data that went in, and megabyte inputs.
"""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from graphsvc.query.parser import QueryParseError, parse

_HOSTILE_CHARS = st.sampled_from(
    list("@=->|\"\\'`{}()[];:/*#.,$ \t\n")
    + ["\x00", "\u00a0", "\u2028", "\u3000", "\u202e", "ＭＡＴＣＨ"[0], "а", "ѕ", "ﬁ", "\U0001f600"]
    + ["OR", "MATCH", "DETACH", "DELETE", "neigh", "path", "limit", "kind", "key"]
)
_hostile_text = st.lists(_HOSTILE_CHARS, max_size=60).map("".join)


def _check(text: str) -> None:
    try:
        q = parse(text)
    except QueryParseError as err:
        assert 0 <= err.position <= len(text), (text, err.position)
        assert f"at position {err.position}" in str(err) and err.expected
    else:
        assert (q.turn_id is None) != (q.workspace is None)
        assert q.operation in ("search", "key", "path", "neigh", "explain", "communities", "overview")


@settings(max_examples=600, deadline=None)
@given(_hostile_text)
def test_hostile_alphabet_parses_or_raises_query_parse_error(text):
    _check(text)


@settings(max_examples=300, deadline=None)
@given(_hostile_text, _hostile_text)
def test_hostile_scope_and_clause_combinations(scope, rest):
    for text in (f"@{scope} {rest}", f"{scope} neigh={rest}", f"@w path={scope}->{rest}", f"@w {scope}={rest}"):
        _check(text)


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


@settings(max_examples=400, deadline=None)
@given(st.text(min_size=1))
def test_quoted_values_come_back_as_the_same_data(value):
    """Whatever a caller quotes is one keyword or one id, character for character."""
    q = parse("@ws " + _quote(value))
    if value.strip():
        assert q.operation == "search" and q.terms == [[value]]
    else:
        assert q.operation == "overview" and q.terms == []
    n = parse("@ws neigh=" + _quote(value))
    assert n.operation == "neigh" and n.target == value
    e = parse(_quote(value) + " explain=" + _quote(value))
    assert e.turn_id == value and e.target == value


def test_megabyte_queries_are_answered_quickly():
    mb = 1_000_000
    cases = [
        "@ws " + "x" * mb,
        "@ws " + "a " * (mb // 2),
        "@ws " + "a OR " * (mb // 5) + "b",
        "@ws " + '"' + "q" * mb,  # unterminated quote at the end of a megabyte
        "@ws neigh=" + "\x00" * mb,
        "@" + "w" * mb,
        "|" * mb,
    ]
    for text in cases:
        started = time.monotonic()
        _check(text)
        assert time.monotonic() - started < 20, text[:30]
