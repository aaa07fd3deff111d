"""Fixtures for the event log, turn index and episode tests: a real SQLite store per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from graphsvc.context.continuity import Continuity
from graphsvc.context.store import ContextStore
from graphsvc.settings import Settings


@pytest.fixture
def ctx_settings(tmp_path) -> Settings:
    s = Settings(home=tmp_path / "home")
    s.context.dir = tmp_path / "context"
    return s


@pytest.fixture
def store(ctx_settings) -> Iterator[ContextStore]:
    st = ContextStore(settings=ctx_settings)
    yield st
    st.close()


@pytest.fixture
def record(settings) -> Iterator[Continuity]:
    """A continuity record on the requesting module's own `settings` fixture."""
    r = Continuity(None, settings)
    yield r
    r.close()
    r.conn.close()


@pytest.fixture
def reopen(ctx_settings):
    """Close a store and open the same file again, as a restart would."""
    opened: list[ContextStore] = []

    def _reopen(old: ContextStore | None = None) -> ContextStore:
        if old is not None:
            old.close()
        st = ContextStore(settings=ctx_settings)
        opened.append(st)
        return st

    yield _reopen
    for st in opened:
        st.close()
