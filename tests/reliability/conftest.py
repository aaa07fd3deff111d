"""Fixtures for the fault, fuzz and exposure tests.

Destructive tests (killing or restarting Neo4j) never touch the session's shared server:
they get `own_neo4j`, a second throwaway `ManagedNeo4j` on free ports in a temporary
directory, stopped at the end of the package. Helpers start `graphsvc` as a real process
(`python -m graphsvc ...`) so a SIGKILL hits exactly what a user would run.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import neo4j
import psutil
import pytest

from graphsvc.neo4j import ManagedNeo4j, free_port
from graphsvc.neo4j import managed
from graphsvc.settings import get_settings

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="package")
def own_neo4j(neo4j_instance) -> Iterator[ManagedNeo4j]:
    """A private Neo4j these tests may kill and restart (the session's one keeps running)."""
    settings = neo4j_instance.settings.model_copy(update={"start_timeout_s": 300.0})
    instance_dir = Path(tempfile.mkdtemp(prefix="graphsvc-fault-neo4j-"))
    server = ManagedNeo4j(settings, instance_dir=instance_dir, bolt_port=free_port(), http_port=free_port())
    try:
        server.start(free_ports=True)
        yield server
    finally:
        server.stop(timeout_s=60)
        shutil.rmtree(instance_dir, ignore_errors=True)


def kill_neo4j(server: ManagedNeo4j) -> int:
    """SIGKILL the server (no shutdown, no checkpoint) and reap it; returns its pid."""
    pid = server.status().pid
    assert pid is not None, "Neo4j is not running"
    os.kill(pid, signal.SIGKILL)
    child = managed._CHILDREN.pop(pid, None)
    if child is not None:
        child.wait(30)
    else:
        try:
            psutil.Process(pid).wait(30)
        except psutil.NoSuchProcess:
            pass
    return pid


def neo4j_env(server: ManagedNeo4j, home: Path) -> dict[str, str]:
    """Environment for a graphsvc process that talks to `server` and keeps its state in `home`."""
    info = server.connection_info()
    env = dict(os.environ)
    for key in list(env):
        if key.startswith("GRAPHSVC_"):
            del env[key]
    env.update(
        NEO4J_URI=info.uri,
        NEO4J_USER=info.user,
        NEO4J_PASSWORD=info.password,
        GRAPHSVC_HOME=str(home),
        # A Neo4j just (re)started on a busy machine plans its first queries slowly.
        GRAPHSVC_NEO4J__TRANSACTION_TIMEOUT_S="180",
        PYTHONUNBUFFERED="1",
    )
    return env


def graph_checksum(driver: neo4j.Driver, workspace: str | None = None) -> tuple[int, int, str]:
    """(nodes, relationships, sha256 over sorted node ids and edge triples) of a workspace, or
    of the whole database when `workspace` is None."""
    database = get_settings().neo4j.database
    # Keys leave the workspace name out when comparing two workspaces indexed from one tree.
    where = "WHERE n.workspace = $ws" if workspace is not None else ""
    prefix = "" if workspace is not None else "coalesce(n.workspace, '') + '|' + "
    nodes, _, _ = driver.execute_query(
        f"MATCH (n) {where} RETURN {prefix}coalesce(n.id, elementId(n)) AS k",
        ws=workspace, database_=database,
    )
    rel_where = "WHERE a.workspace = $ws" if workspace is not None else ""
    rels, _, _ = driver.execute_query(
        f"MATCH (a)-[r]->(b) {rel_where} RETURN coalesce(a.id, '') + '|' + type(r) + '|' + "
        "coalesce(b.id, '') + '|' + toString(coalesce(r.confidence, 1.0)) AS k",
        ws=workspace, database_=database,
    )
    node_keys = sorted(r["k"] for r in nodes)
    rel_keys = sorted(r["k"] for r in rels)
    digest = hashlib.sha256("\n".join(node_keys + ["--"] + rel_keys).encode()).hexdigest()
    return len(node_keys), len(rel_keys), digest


def store_env(home: Path) -> dict[str, str]:
    """The environment of a server or CLI process that uses only the context store under
    `home`: events without a turn and cache writes never need Neo4j, so it points nowhere
    and nothing starts one."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHSVC_", "NEO4J_"))}
    env.update(GRAPHSVC_HOME=str(home), NEO4J_URI="bolt://127.0.0.1:9", NEO4J_PASSWORD="unused",
               PYTHONUNBUFFERED="1")
    return env


def stored_writes(path: Path) -> tuple[set[str], set[str]]:
    """The event ids and cache hashes a store file holds, once SQLite finds it intact."""
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        events = {r[0] for r in conn.execute("SELECT id FROM events")}
        hashes = {r[0] for r in conn.execute("SELECT hash FROM cache_entries")}
    finally:
        conn.close()
    return events, hashes


def port_free() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServeProcess:
    """`python -m graphsvc serve` as a child process with its output in a log file."""

    def __init__(self, env: dict[str, str], log_path: Path, host: str = "127.0.0.1"):
        self.port = port_free()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self._log = open(log_path, "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "graphsvc", "serve", "--host", host, "--port", str(self.port)],
            env=env, cwd=REPO_ROOT, stdout=self._log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )

    def wait_ready(self, timeout_s: float = 120.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"graphsvc serve exited ({self.proc.returncode}): {self.log()[-2000:]}")
            try:
                httpx.get(f"{self.url}/openapi.json", timeout=5)
                return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise RuntimeError(f"graphsvc serve did not answer within {timeout_s:g} s: {self.log()[-2000:]}")

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()
        self._log.close()

    def log(self) -> str:
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text(errors="replace")
