"""Every answer of the query verbs, `search` and `context_query` says whether the graph is
behind the files, through one mechanism: the result classes share `Freshness`, and each
verb's function is wrapped once where the verbs are declared."""

from __future__ import annotations

import inspect
import typing

from graphsvc.graph.freshness import forget, freshness, set_pending
from graphsvc.query import calls, engine
from graphsvc.query.results import ContextResult, Freshness, SearchResult
from graphsvc.query.verbs import VERBS


def test_every_verb_answers_with_freshness_and_keeps_its_signature():
    for verb in VERBS:
        result = typing.get_type_hints(verb.fn)["return"]
        assert issubclass(result, Freshness), verb.name
        assert inspect.signature(verb.fn) == inspect.signature(verb.fn.__wrapped__), verb.name
    assert issubclass(SearchResult, Freshness) and issubclass(ContextResult, Freshness)
    callers = next(v for v in VERBS if v.name == "callers")
    assert callers.fn.__wrapped__ is calls.callers and callers.fn.__doc__ == calls.callers.__doc__
    assert typing.get_type_hints(engine.search)["return"] is SearchResult


def test_freshness_is_unknown_unless_a_watcher_reports_it():
    assert freshness("nobody-watches") == (None, 0)
    assert freshness(None) == (None, 0)
    set_pending("watched", 3)
    try:
        assert freshness("watched") == (True, 3)
        set_pending("watched", 0)
        assert freshness("watched") == (False, 0)
    finally:
        forget("watched")
    assert freshness("watched") == (None, 0)
