"""How many write transactions an index opens beside resolution (pipeline)."""

from __future__ import annotations

import os

from graphsvc.indexing import pipeline


def test_one_transaction_beside_resolution_only_for_a_local_neo4j_on_two_cores(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert pipeline._transactions_beside_resolution("bolt://127.0.0.1:7687") == 1
    assert pipeline._transactions_beside_resolution("neo4j://localhost:7687") == 1
    assert pipeline._transactions_beside_resolution("neo4j+s://db.example.org:7687") is None

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    assert pipeline._transactions_beside_resolution("bolt://127.0.0.1:7687") is None


def test_without_affinity_the_machine_s_cores_decide(monkeypatch):
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert pipeline._transactions_beside_resolution("bolt://127.0.0.1:7687") == 1
    monkeypatch.setattr(os, "cpu_count", lambda: 16)
    assert pipeline._transactions_beside_resolution("bolt://127.0.0.1:7687") is None
