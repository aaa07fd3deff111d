"""Neo4j dies under a running `graphsvc index` or `graphsvc serve` (a private server, SIGKILLed)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path

import httpx
import neo4j
import pytest

from .conftest import REPO_ROOT, ServeProcess, graph_checksum, kill_neo4j, neo4j_env

pytestmark = [pytest.mark.neo4j, pytest.mark.timeout(540)]

STDLIB = Path(sysconfig.get_paths()["stdlib"])


def _driver(server) -> neo4j.Driver:
    info = server.connection_info()
    return neo4j.GraphDatabase.driver(info.uri, auth=(info.user, info.password))


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
        with _driver(own_neo4j) as driver:
            deadline = time.monotonic() + 300
            # Kill Neo4j once the run has written part of the graph, before it can finish.
            while time.monotonic() < deadline and proc.poll() is None:
                n = driver.execute_query("MATCH (f:File {workspace: $ws}) RETURN count(f) AS n", ws=ws).records[0]["n"]
                if n > 0:
                    break
                time.sleep(0.05)
        assert proc.poll() is None, "the index run finished before Neo4j could be killed"
        kill_neo4j(own_neo4j)
        out, err = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    lines = [line for line in err.splitlines() if line.strip()]
    assert proc.returncode != 0, (out, err)
    assert "Traceback" not in err, err
    assert lines and lines[-1].startswith("error: ") and "Neo4j" in lines[-1], err
    assert len([line for line in lines if line.startswith("error: ")]) == 1, err

    own_neo4j.start()
    rerun = _index(env, repo, ws)
    assert rerun.returncode == 0, rerun.stderr
    clean = _index(env, repo, ws + "-clean")
    assert clean.returncode == 0, clean.stderr
    with _driver(own_neo4j) as driver:
        resumed, fresh = graph_checksum(driver, ws), graph_checksum(driver, ws + "-clean")
    assert resumed[0] > 500 and resumed == fresh


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
    # Outage errors are logged (with their traceback); nothing may be an unexpected error.
    assert "unexpected error" not in log, log[-3000:]
