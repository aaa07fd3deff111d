"""The server and CLI jobs share the store file: no process may drop another's SQLite locks.

POSIX locks belong to a process and a file: closing *any* descriptor of the database file
releases all of that process's locks on it, SQLite's included. A CLI process that exits
then believes it is the database's last user, checkpoints and deletes the WAL, and the
server's later commits go to a WAL nobody reads again. These tests run a real `graphsvc
serve` and real CLI processes side by side and count, on disk afterwards, every write that
was acknowledged.
"""

from __future__ import annotations

import json
import subprocess

import httpx
import pytest

from graphsvc.context import db

from tests.reliability.conftest import REPO_ROOT, ServeProcess, store_env, stored_writes

pytestmark = pytest.mark.timeout(240)

GRAPHSVC = str(REPO_ROOT / ".venv" / "bin" / "graphsvc")
_RECORD = 'mutation($p: JSON) { recordEvent(type: "FulfilledLocal", payload: $p, workspace: "locks") { id } }'


def _cli(env: dict[str, str], *args: str, stdin: str | None = None) -> str:
    done = subprocess.run([GRAPHSVC, *args], env=env, input=stdin, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout


def test_server_writes_survive_cli_jobs_beside_it(tmp_path):
    home = tmp_path / "home"
    env = store_env(home)
    server = ServeProcess(env, tmp_path / "serve.log")
    events: list[str] = []
    hashes: list[str] = []
    try:
        server.wait_ready()
        with httpx.Client(base_url=server.url, timeout=60) as client:

            def server_writes(n: int) -> None:
                r = client.post("/graphql", json={"query": _RECORD, "variables": {"p": {"server": n}}})
                events.append(r.json()["data"]["recordEvent"]["id"])
                r = client.post("/api/cache/store", json={"content": f"server document {n}\n" * 20})
                assert r.status_code == 200, r.text
                hashes.append(r.json()["hash"])

            for n in range(2):
                server_writes(n)
                # Routes that open the store again (a reader connection, a new cache handle).
                for route in ("/api/context/export", "/api/cache/stats"):
                    r = client.get(route)
                    assert r.status_code == 200, (route, r.text)
                # CLI jobs that read and write the same file, then exit.
                _cli(env, "cache", "stats", "--json")
                appended = json.loads(_cli(env, "events", "append", "FulfilledLocal", "-w", "locks",
                                           "-p", json.dumps({"cli": n}), "--json"))
                events.append(appended["id"])
                stored = json.loads(_cli(env, "cache", "store", "-", "--json", stdin=f"cli document {n}\n" * 20))
                hashes.append(stored["hash"])
                _cli(env, "events", "recent", "--json")
                server_writes(100 + n)
    finally:
        server.stop()
    assert "Traceback" not in server.log(), server.log()[-3000:]

    stored_events, stored_hashes = stored_writes(home / "context" / db.DB_NAME)
    assert len(events) == 6 and len(hashes) == 6
    assert not set(events) - stored_events, f"{len(set(events) - stored_events)} of 6 acknowledged events lost"
    assert not set(hashes) - stored_hashes, f"{len(set(hashes) - stored_hashes)} of 6 acknowledged cache entries lost"


def test_cli_refuses_the_store_file_as_its_input_or_output(tmp_path):
    """`events export -o <store>` truncated the database; reading it as input dropped our locks."""
    home = tmp_path / "home"
    env = store_env(home)
    _cli(env, "events", "append", "FulfilledLocal", "-w", "locks", "-p", "{}")
    path = home / "context" / db.DB_NAME
    size = path.stat().st_size
    for args in (("events", "export", "-o", str(path)), ("cache", "store", str(path)),
                 ("events", "import", str(path))):
        done = subprocess.run([GRAPHSVC, *args], env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.startswith("error: ") and "context store's own file" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    assert path.stat().st_size == size
    assert json.loads(_cli(env, "events", "recent", "--json"))[0]["workspace"] == "locks"
