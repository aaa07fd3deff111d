"""`graphsvc turns mirror` when Neo4j cannot be reached: it says so, keeps the rows pending
and fails, in a process of its own as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "from graphsvc.cli import run; run()", *args],
        env=env, capture_output=True, text=True, timeout=120,
    )


@pytest.mark.timeout(300)
def test_mirror_with_neo4j_down_fails_and_keeps_the_turns_pending(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHSVC_", "NEO4J_"))}
    env.update(GRAPHSVC_HOME=str(tmp_path / "home"), NEO4J_URI="bolt://127.0.0.1:9", NEO4J_PASSWORD="unused")
    opened = _cli(env, "turns", "open", "-w", "/ws", "--id", "t1")
    assert opened.returncode == 0, opened.stderr
    touched = _cli(env, "turns", "touch", "t1", "src/app.py")
    assert touched.returncode == 0, touched.stderr

    mirrored = _cli(env, "turns", "mirror")
    assert mirrored.returncode != 0
    assert "1 turns and 1 touched edges still pending" in mirrored.stderr, mirrored.stderr
    assert "Traceback" not in mirrored.stderr
