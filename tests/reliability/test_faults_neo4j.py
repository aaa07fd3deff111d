"""Neo4j dies under a running `graphsvc index` or `graphsvc serve` (a private server, SIGKILLed)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path

import httpx
import neo4j
import pytest

from graphsvc.errors import Neo4jUnavailable
from graphsvc.graph import driver as graph_driver
from graphsvc.graph.driver import Graph
from graphsvc.settings import get_settings

from tests.graph_compare import assert_same_graph, reader

from tests.reliability.conftest import REPO_ROOT, ServeProcess, kill_neo4j, neo4j_env

pytestmark = [pytest.mark.neo4j, pytest.mark.timeout(540)]

STDLIB = Path(sysconfig.get_paths()["stdlib"])


def _driver(server) -> neo4j.Driver:
    info = server.connection_info()
    return neo4j.GraphDatabase.driver(info.uri, auth=(info.user, info.password))


def _wait_for_files(own_neo4j, proc: subprocess.Popen, ws: str) -> None:
    """Until the index run `proc` has written a file node of `ws` (or ended, or 300 s)."""
    with _driver(own_neo4j) as driver:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            n = driver.execute_query("MATCH (f:File {workspace: $ws}) RETURN count(f) AS n", ws=ws).records[0]["n"]
            if n > 0:
                return
            time.sleep(0.05)


def _index(env: dict, repo: Path, workspace: str, timeout: float = 400) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "graphsvc", "index", str(repo), "--workspace", workspace, "--jobs", "2"],
        env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=timeout,
    )


def _ensure_running(server) -> None:
    if server.status().state != "running":
        server.start()


def test_index_fails_cleanly_when_neo4j_dies_and_a_rerun_equals_a_clean_index(own_neo4j, tmp_path):
    repo = tmp_path / "repo"
    for pkg in ("email", "json", "http"):
        shutil.copytree(STDLIB / pkg, repo / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    env = neo4j_env(own_neo4j, tmp_path / "home")
    ws = "fault-index"
    cmd = [sys.executable, "-m", "graphsvc", "index", str(repo), "--workspace", ws, "--jobs", "2"]
    proc = subprocess.Popen(cmd, env=env, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        # Kill Neo4j once the run has written part of the graph, before it can finish.
        _wait_for_files(own_neo4j, proc, ws)
        assert proc.poll() is None, "the index run finished before Neo4j could be killed"
        kill_neo4j(own_neo4j)
        out, err = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    lines = [line for line in err.splitlines() if line.strip()]
    assert proc.returncode != 0, (out, err)
    # Exactly the one error line: no traceback, no log lines of the Neo4j driver before it.
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Neo4j" in lines[0], err

    own_neo4j.start()
    rerun = _index(env, repo, ws)
    assert rerun.returncode == 0, rerun.stderr
    clean = _index(env, repo, ws + "-clean")
    assert clean.returncode == 0, clean.stderr
    with _driver(own_neo4j) as driver:
        resumed = assert_same_graph(reader(driver, get_settings().neo4j.database), ws, ws + "-clean")
    assert sum(resumed.nodes.values()) > 500


def test_the_driver_log_is_shown_only_with_verbose(tmp_path):
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "a.py").write_text("x = 1\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHSVC_", "NEO4J_"))}
    env.update(GRAPHSVC_HOME=str(tmp_path / "home"), NEO4J_URI="bolt://127.0.0.1:9", NEO4J_PASSWORD="unused")
    runs = {
        flags: subprocess.run([sys.executable, "-m", "graphsvc", *flags, "index-tree", str(tmp_path / "repo")],
                              env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
        for flags in ((), ("--verbose",))
    }
    quiet, verbose = runs[()], runs[("--verbose",)]
    assert quiet.returncode == verbose.returncode == 3
    assert quiet.stderr.splitlines() == [verbose.stderr.splitlines()[-1]], quiet.stderr
    assert quiet.stderr.startswith("error: cannot reach Neo4j"), quiet.stderr
    assert any(" neo4j" in line and "DEBUG" in line for line in verbose.stderr.splitlines()), verbose.stderr


_SEARCH = 'query($q: String!) { contextQuery(query: $q) { operation search { hits { entity { id } } } } }'


class _Traffic:
    """Clients sending GraphQL searches and REST explains in a loop until stopped."""

    def __init__(self, url: str, token: str, ws: str, clients: int = 3):
        self.url, self.headers, self.ws = url, {"Authorization": f"Bearer {token}"}, ws
        self.answers: list[tuple[str, int, dict]] = []
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._loop, args=(i,), daemon=True) for i in range(clients)]

    def _loop(self, i: int) -> None:
        with httpx.Client(timeout=120, headers=self.headers) as client:
            while not self.stop.is_set():
                try:
                    if i % 2:
                        r = client.get(f"{self.url}/api/context/explain", params={"workspace": self.ws, "id": "dumps"})
                        self.answers.append(("rest", r.status_code, r.json()))
                    else:
                        r = client.post(f"{self.url}/graphql", json={"query": _SEARCH, "variables": {"q": f"@{self.ws} decoder"}})
                        self.answers.append(("graphql", r.status_code, r.json()))
                except Exception as exc:  # a dropped connection or a non-JSON answer is a defect too
                    self.answers.append(("transport", 0, {"error": repr(exc)}))
                time.sleep(0.05)

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join(150)


def _structured(kind: str, status: int, body: dict) -> bool:
    """A good answer, or an outage reported as such; never a 500, a traceback or a dropped connection."""
    if kind == "rest":
        return status == 200 or (status == 503 and body.get("code") == "NEO4J_UNAVAILABLE")
    if kind == "graphql":
        if status != 200:
            return False
        errors = body.get("errors") or []
        return all(e.get("extensions", {}).get("code") == "NEO4J_UNAVAILABLE" for e in errors)
    return False


def test_serve_reports_a_neo4j_outage_and_recovers_without_a_restart(own_neo4j, tmp_path):
    _ensure_running(own_neo4j)
    repo = tmp_path / "repo"
    shutil.copytree(STDLIB / "json", repo / "json", ignore=shutil.ignore_patterns("__pycache__"))
    env = neo4j_env(own_neo4j, tmp_path / "home")
    ws = "fault-serve"
    assert _index(env, repo, ws).returncode == 0
    token = "tok-" + "7f3a9c" * 4
    env["GRAPHSVC_SERVER__TOKEN"] = token
    password = own_neo4j.connection_info().password
    server = ServeProcess(env, tmp_path / "serve.log")
    auth = {"Authorization": f"Bearer {token}"}
    try:
        server.wait_ready()
        assert httpx.get(f"{server.url}/healthz", timeout=60).json()["status"] == "ok"
        ok = httpx.post(f"{server.url}/graphql", json={"query": _SEARCH, "variables": {"q": f"@{ws} decoder"}},
                        headers=auth, timeout=120).json()
        assert ok["data"]["contextQuery"]["search"]["hits"], ok

        with _Traffic(server.url, token, ws) as traffic:
            time.sleep(1.0)
            kill_neo4j(own_neo4j)
            # While Neo4j is down: the health probe says so, queries fail with a structured error.
            health = httpx.get(f"{server.url}/healthz", timeout=60)
            assert health.status_code == 503, health.text
            assert health.json()["status"] == "degraded" and health.json()["neo4j"]["reachable"] is False
            rest = httpx.get(f"{server.url}/api/context/explain", params={"workspace": ws, "id": "dumps"},
                             headers=auth, timeout=120)
            assert rest.status_code == 503 and rest.json()["code"] == "NEO4J_UNAVAILABLE", rest.text
            gql = httpx.post(f"{server.url}/graphql", json={"query": _SEARCH, "variables": {"q": f"@{ws} decoder"}},
                             headers=auth, timeout=120).json()
            assert gql["errors"][0]["extensions"]["code"] == "NEO4J_UNAVAILABLE", gql
            own_neo4j.start()
            # Back without restarting graphsvc.
            deadline = time.monotonic() + 180
            while True:
                r = httpx.get(f"{server.url}/healthz", timeout=60)
                if r.status_code == 200 or time.monotonic() > deadline:
                    break
                time.sleep(0.5)
            assert r.status_code == 200, r.text
            after = httpx.post(f"{server.url}/graphql", json={"query": _SEARCH, "variables": {"q": f"@{ws} decoder"}},
                               headers=auth, timeout=200).json()
            assert "errors" not in after and after["data"]["contextQuery"]["search"]["hits"], after
            time.sleep(1.0)
        answers = traffic.answers
        bad = [a for a in answers if not _structured(*a)]
        assert not bad, bad[:5]
        assert any(status == 200 and "errors" not in body for _, status, body in answers)
        assert any(status == 503 or "errors" in body for _, status, body in answers)
    finally:
        server.stop()
    log = server.log()
    assert token not in log and password not in log
    # Outage errors are logged as one line each; nothing may be an unexpected error.
    assert "unexpected error" not in log and "Traceback" not in log, log[-3000:]


def test_an_unreachable_neo4j_is_one_log_line_per_failed_request(tmp_path):
    """With Neo4j down, every GraphQL and REST query is a structured NEO4J_UNAVAILABLE and the
    server log gets one line for each, not a traceback."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHSVC_", "NEO4J_"))}
    env.update(GRAPHSVC_HOME=str(tmp_path / "home"), NEO4J_URI="bolt://127.0.0.1:9", NEO4J_PASSWORD="unused")
    server = ServeProcess(env, tmp_path / "serve.log")
    try:
        server.wait_ready()
        with httpx.Client(timeout=60) as client:
            for _ in range(3):
                gql = client.post(f"{server.url}/graphql", json={"query": _SEARCH, "variables": {"q": "@ws decoder"}})
                assert gql.json()["errors"][0]["extensions"]["code"] == "NEO4J_UNAVAILABLE", gql.text
                rest = client.get(f"{server.url}/api/context/explain", params={"workspace": "ws", "id": "dumps"})
                assert rest.status_code == 503 and rest.json()["code"] == "NEO4J_UNAVAILABLE", rest.text
    finally:
        server.stop()
    log = server.log()
    assert "Traceback" not in log, log[-3000:]
    outage_lines = [line for line in log.splitlines() if "NEO4J_UNAVAILABLE" in line]
    assert len(outage_lines) == 6, log[-3000:]


# `graphsvc index` with the write bounds shortened, so a stuck write is given up in seconds
# rather than after WRITE_TIMEOUT_S + STALL_GRACE_S.
_INDEX_SHORT_BOUNDS = """
import sys
from graphsvc.graph import driver, writer
writer.WRITE_TIMEOUT_S, driver.STALL_GRACE_S = 3.0, 5.0
from graphsvc.cli import run
sys.argv = ["graphsvc", "index", *sys.argv[1:]]
run()
"""


@pytest.mark.timeout(400)
def test_index_fails_with_a_message_when_neo4j_stops_answering_mid_write(own_neo4j, tmp_path):
    """Neo4j frozen (SIGSTOP) while `graphsvc index` writes: like a server that cannot write to a
    full disk, it keeps the connection open and never answers. The run must end on its own,
    non-zero, with one line saying what to check."""
    _ensure_running(own_neo4j)
    repo = tmp_path / "repo"
    for pkg in ("email", "json", "http"):
        shutil.copytree(STDLIB / pkg, repo / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    env = neo4j_env(own_neo4j, tmp_path / "home")
    env["GRAPHSVC_NEO4J__TRANSACTION_TIMEOUT_S"] = "20"  # reads and small writes: given up after 25 s
    ws = "fault-stuck"
    proc = subprocess.Popen([sys.executable, "-c", _INDEX_SHORT_BOUNDS, str(repo), "--workspace", ws, "--jobs", "2"],
                            env=env, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    pid = own_neo4j.status().pid
    frozen = False
    try:
        _wait_for_files(own_neo4j, proc, ws)
        assert proc.poll() is None, "the index run finished before Neo4j could be frozen: " + proc.stderr.read()[-3000:]
        os.kill(pid, signal.SIGSTOP)
        frozen = True
        started = time.monotonic()
        out, err = proc.communicate(timeout=120)
        waited = time.monotonic() - started
    finally:
        if frozen:
            os.kill(pid, signal.SIGCONT)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    lines = [line for line in err.splitlines() if line.strip()]
    assert proc.returncode == 3, (out, err)
    assert "Traceback" not in err, err
    # Whichever call was waiting when Neo4j froze (a batch write, or a read between batches).
    assert lines and lines[-1].startswith("error: ") and "has not answered" in lines[-1], err
    assert "disk" in lines[-1] and "graphsvc neo4j logs" in lines[-1], lines[-1]
    assert waited < 60, waited
    with _driver(own_neo4j) as driver:  # thawed, it works as before
        assert driver.execute_query("RETURN 1 AS one").records[0]["one"] == 1


@pytest.mark.timeout(300)
def test_a_write_neo4j_does_not_answer_is_given_up_after_its_bound(own_neo4j, monkeypatch):
    """Graph.write: the transaction limit plus STALL_GRACE_S, then Neo4jUnavailable saying what to check."""
    _ensure_running(own_neo4j)
    monkeypatch.setattr(graph_driver, "STALL_GRACE_S", 3.0)
    info = own_neo4j.connection_info()
    graph = Graph(neo4j.GraphDatabase.driver(info.uri, auth=(info.user, info.password)), "neo4j", info.uri, 2.0)
    pid = own_neo4j.status().pid
    try:
        graph.write("MERGE (:StallProbe {id: 1})")  # a pooled connection, as in a running index
        os.kill(pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            with pytest.raises(Neo4jUnavailable) as err:
                graph.write("MERGE (:StallProbe {id: 2})", timeout_s=4.0)
            waited = time.monotonic() - started
        finally:
            os.kill(pid, signal.SIGCONT)
        assert 4.0 + 3.0 - 0.5 <= waited < 30, waited
        assert "has not answered a write for 7 s" in str(err.value) and "disk" in str(err.value), str(err.value)
        graph.write("MATCH (n:StallProbe) DELETE n", timeout_s=120)  # thawed, the same driver works again
    finally:
        graph.close()


def test_a_connection_pool_that_stays_busy_is_an_outage_not_an_internal_error():
    """Every pooled connection busy past connection_acquisition_timeout: the driver raises a
    DriverError that used to pass through unmapped (a 500 and a traceback)."""
    from neo4j.exceptions import ConnectionAcquisitionTimeoutError

    class BusyPool:
        def execute_query(self, *args, **kwargs):
            raise ConnectionAcquisitionTimeoutError("failed to obtain a connection from the pool within 10.0s")

        session = execute_query  # reads run in a session of their own

    graph = Graph(BusyPool(), "neo4j", "bolt://127.0.0.1:7687", 5.0)
    for call in (graph.read, graph.write):
        with pytest.raises(Neo4jUnavailable, match="busy"):
            call("RETURN 1")
