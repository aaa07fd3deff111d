"""Search ranking within a workspace depends on that workspace alone.

One full-text index serves every workspace; its term statistics (how rare a word is, how
long a field is on average) must not leak from one workspace into another's order or scores.
"""

from __future__ import annotations

import uuid

import pytest

from graphsvc.query import engine
from graphsvc.indexing.pipeline import index_symbols

pytestmark = [pytest.mark.neo4j, pytest.mark.timeout(240)]

A_FILES = {
    "models.py": '''\
class QuerySet:
    """A lazy database lookup that can parse filters."""

    def filter(self, **kw):
        """Narrow the lookup."""

    def queryset(self):
        """Return a QuerySet of this manager's records."""


class Manager:
    """Queries for a model: parse, load and save records."""

    def parse(self, text):
        """Parse a record from text."""

    def load(self, key):
        """Load one record by key."""
''',
    "parsing.py": '''\
def parse(text):
    """Parse the text of a record into fields."""


def parse_header(line):
    """Parse one header line."""


def load_records(path):
    """Load every record of a file, parsing each."""
    return [parse(line) for line in open(path)]
''',
    "store.py": '''\
def save(record):
    """Save a record; see QuerySet for loading."""


def record_key(record):
    """The key of a record."""
''',
}

QUERIES = ["QuerySet", "parse", "record", "load record", "parse OR save", "queryset"]


def _skewed_file(i: int) -> str:
    # Many symbols named exactly like A's words, long docs full of them: every term
    # statistic of the shared index moves.
    body = []
    for j in range(40):
        words = " ".join(["parse record load save queryset"] * (1 + (i + j) % 7))
        body.append(f'def parse_{j}(record):\n    """{words}"""\n\n\nclass QuerySet{j}:\n    """{words} x"""\n')
        body.append(f'def record(x):\n    """record"""\n\n\ndef parse(x):\n    """parse {words}"""\n')
    return "\n\n".join(body)


def _unique(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"


def _top(ws: str, limit: int = 10) -> dict[str, list[tuple[str, float]]]:
    return {q: [(h.entity.id, h.score) for h in engine.search(q, workspace=ws, limit=limit).hits] for q in QUERIES}


def _top_of_few(ws: str, monkeypatch) -> dict[str, list[tuple[str, float]]]:
    """The top two when only three matches may be ranked: which three must not depend on B."""
    with monkeypatch.context() as m:
        m.setattr(engine, "SEARCH_CANDIDATES", 2)
        return _top(ws, limit=2)


@pytest.fixture
def home(private_graph):
    return private_graph


def test_another_workspace_changes_neither_order_nor_scores(home, tmp_path, monkeypatch):
    graph = home
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    for name, text in A_FILES.items():
        (a / name).write_text(text)
    for i in range(20):  # few enough to parse in-process
        (b / f"pkg{i % 3}").mkdir(parents=True, exist_ok=True)
        (b / f"pkg{i % 3}" / f"mod{i}.py").write_text(_skewed_file(i))
    ws_a, ws_b = _unique("isolation-a"), _unique("isolation-b")
    index_symbols(a, workspace=ws_a)
    graph.write("CALL db.awaitIndexes(60)")
    before, before_few = _top(ws_a), _top_of_few(ws_a, monkeypatch)
    assert all(before[q] for q in QUERIES), before

    index_symbols(b, workspace=ws_b)
    graph.write("CALL db.awaitIndexes(60)")
    # Lucene's near-real-time reader sees the new documents once refreshed; a query of B's
    # words makes sure it has been.
    assert engine.search("parse_39", workspace=ws_b).hits
    after, after_few = _top(ws_a), _top_of_few(ws_a, monkeypatch)
    for q in QUERIES:
        assert after[q] == before[q], q
        assert after_few[q] == before_few[q], q


def test_exact_case_sensitive_name_ranks_first(home, tmp_path):
    graph = home
    a = tmp_path / "a"
    a.mkdir()
    for name, text in A_FILES.items():
        (a / name).write_text(text)
    ws = _unique("isolation-case")
    index_symbols(a, workspace=ws)
    graph.write("CALL db.awaitIndexes(60)")
    assert engine.search("QuerySet", workspace=ws).hits[0].entity.id == "models.py#QuerySet"
    assert engine.search("queryset", workspace=ws).hits[0].entity.id == "models.py#QuerySet.queryset"
