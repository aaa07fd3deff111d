"""The query fixture is written the way an index run writes a workspace (through the writer)."""

from __future__ import annotations

import pytest

from graphsvc.query import engine

from tests.query.conftest import WS

pytestmark = pytest.mark.neo4j


def test_symbols_carry_what_the_indexer_stores(graph):
    # A hand-written fixture once left out the symbols' `path`, which every index run sets.
    e = engine.entity("src/app.py#App.run", workspace=WS)
    assert (e.label, e.kind, e.prov, e.file, e.path, e.lang) == ("Symbol", "method", "EXTRACTED", "src/app.py",
                                                                 "src/app.py", "python")
    ext = engine.entity("ext:os.path#join", workspace=WS)
    assert (set(ext.labels), ext.name, ext.qualified_name, ext.prov) == ({"Symbol", "External"}, "join",
                                                                         "os.path.join", "INFERRED")
    assert engine.entity("src/pkg/", workspace=WS).path == "src/pkg"


def test_symbols_return_their_doc(graph):
    assert engine.entity("src/app.py#App.run", workspace=WS).doc == "Run the application until stopped."
    assert engine.entity("src/app.py", workspace=WS).doc is None
