"""A damaged store is named as corrupt on every surface: CLI, REST, GraphQL and /healthz.

Three kinds of damage: a file of random bytes, a database cut short, and a database whose
middle pages were overwritten (found only when a read reaches them). Each surface must say
which file and what to do, never give a traceback, and never replace the file.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from graphsvc.context import db
from graphsvc.context.cache import ContentCache
from graphsvc.context.store import ContextStore

from tests.reliability.conftest import REPO_ROOT, ServeProcess

pytestmark = pytest.mark.timeout(240)

GRAPHSVC = str(REPO_ROOT / ".venv" / "bin" / "graphsvc")
CORRUPT = "is not a SQLite database or is corrupt; move it away"
KINDS = ("random_bytes", "truncated", "middle_pages_overwritten")

# Commands that use the store, each as a user would run it.
COMMANDS = (
    ("events", "recent"),
    ("events", "append", "FulfilledLocal", "-w", "w"),
    ("events", "export"),
    ("prune", "--dry-run"),
    ("turns", "list"),
    ("episodes", "list"),
    ("cache", "stats"),
    ("cache", "store", "-"),
    ("cache", "recall", "document"),
    ("cache", "pins"),
    ("continuity", "show", "-w", "w"),
)
# Damaged middle pages are found when a read reaches them: commands that read events or
# cache entries (a command reading only sound pages answers from them). A file that is not
# a database, or is cut short, fails every command when it opens the store, so a few suffice.
READERS = (COMMANDS[0], COMMANDS[1], COMMANDS[6], COMMANDS[7])


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHSVC_", "NEO4J_"))}
    env.update(GRAPHSVC_HOME=str(home), NEO4J_URI="bolt://127.0.0.1:9", NEO4J_PASSWORD="unused",
               PYTHONUNBUFFERED="1")
    return env


@pytest.fixture(scope="module")
def healthy_store(tmp_path_factory) -> Path:
    """A store of a few hundred pages, events and cache entries interleaved."""
    path = tmp_path_factory.mktemp("healthy") / db.DB_NAME
    store = ContextStore(path)
    cache = ContentCache(store.conn)
    for n in range(300):
        store.events.append("FulfilledLocal", workspace="w", payload={"n": n, "text": "event payload " * 8})
        cache.store(f"cached document {n}\n" + f"line {n} of cached tool output\n" * 20)
    store.close()
    assert not path.with_name(path.name + "-wal").exists()
    return path


def damage(healthy: Path, home: Path, kind: str) -> Path:
    path = home / "context" / db.DB_NAME
    path.parent.mkdir(parents=True)
    if kind == "random_bytes":
        path.write_bytes(os.urandom(64 * 1024))
        return path
    shutil.copy(healthy, path)
    size = path.stat().st_size
    if kind == "truncated":
        os.truncate(path, size * 2 // 5 // db.PAGE_SIZE * db.PAGE_SIZE)
    else:
        first, last = size * 3 // 10 // db.PAGE_SIZE, size * 7 // 10 // db.PAGE_SIZE
        with open(path, "r+b") as fh:
            fh.seek(first * db.PAGE_SIZE)
            fh.write(os.urandom((last - first) * db.PAGE_SIZE))
    return path


@pytest.mark.parametrize("kind", KINDS)
def test_every_cli_command_names_the_corrupt_store(healthy_store, tmp_path, kind):
    home = tmp_path / "home"
    path = damage(healthy_store, home, kind)
    before = path.read_bytes()
    env = _env(home)

    def run(args: tuple[str, ...]) -> subprocess.CompletedProcess:
        return subprocess.run([GRAPHSVC, *args], env=env, input="new content\n", capture_output=True,
                              text=True, timeout=60)

    commands = COMMANDS if kind == "random_bytes" else READERS
    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(run, commands))
    for args, done in zip(commands, results):
        lines = done.stderr.splitlines()
        assert done.returncode == 4, (args, done.returncode, done.stderr[-2000:])
        assert len(lines) == 1 and lines[0].startswith("error: "), (args, done.stderr[-2000:])
        assert str(path) in lines[0] and CORRUPT in lines[0], (args, lines[0])
    assert path.read_bytes() == before


@pytest.mark.parametrize("kind", KINDS)
def test_rest_graphql_and_healthz_name_the_corrupt_store(healthy_store, tmp_path, kind):
    home = tmp_path / "home"
    path = damage(healthy_store, home, kind)
    server = ServeProcess(_env(home), tmp_path / "serve.log")
    try:
        server.wait_ready()
        with httpx.Client(base_url=server.url, timeout=60) as client:
            for method, route, body in (
                ("GET", "/api/context/recent", None),
                ("GET", "/api/context/export", None),
                ("GET", "/api/cache/stats", None),
                ("POST", "/api/cache/store", {"content": "new content\n"}),
            ):
                r = client.request(method, route, json=body)
                assert r.status_code == 503, (route, r.status_code, r.text)
                assert r.json()["code"] == "STORE_CORRUPT", (route, r.text)
                assert str(path) in r.json()["error"] and CORRUPT in r.json()["error"], (route, r.text)
            r = client.post("/graphql", json={"query": "{ events(limit: 5) { id } }"})
            error = r.json()["errors"][0]
            assert error["extensions"]["code"] == "STORE_CORRUPT" and CORRUPT in error["message"], r.text
            r = client.post("/graphql", json={
                "query": 'mutation { recordEvent(type: "FulfilledLocal", workspace: "w") { id } }'})
            error = r.json()["errors"][0]
            assert error["extensions"]["code"] == "STORE_CORRUPT" and CORRUPT in error["message"], r.text
            health = client.get("/healthz")
            assert health.status_code == 503 and health.json()["status"] == "degraded", health.text
            assert health.json()["store"]["ok"] is False and CORRUPT in health.json()["store"]["error"], health.text
    finally:
        server.stop()
    log = server.log()
    assert "Traceback" not in log, log[-3000:]
    assert path.exists()


def test_healthz_reports_a_sound_store_as_ok(healthy_store, tmp_path):
    home = tmp_path / "home"
    (home / "context").mkdir(parents=True)
    shutil.copy(healthy_store, home / "context" / db.DB_NAME)
    server = ServeProcess(_env(home), tmp_path / "serve.log")
    try:
        server.wait_ready()
        health = httpx.get(f"{server.url}/healthz", timeout=60).json()
    finally:
        server.stop()
    # Neo4j is pointed nowhere here: only the store's part is under test.
    assert health["store"] == {"ok": True}, health
