"""The managed Neo4j against real processes: the session server plus one extra instance."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import httpx
import neo4j
import psutil
import pytest
from neo4j.exceptions import AuthError

from graphsvc.errors import ConfigError
from graphsvc.neo4j import ConnectionInfo, ManagedNeo4j, free_port
from graphsvc.neo4j.managed import INDEX_RESAMPLE_PERCENT
from graphsvc.settings import get_settings


def _quiet(settings_home: Path | None = None, **kwargs: object) -> ManagedNeo4j:
    """An instance of the default install with progress messages off."""
    settings = get_settings().neo4j
    if settings_home is not None:
        settings = settings.model_copy(update={"home": settings_home})
    return ManagedNeo4j(settings, progress=None, **kwargs)  # type: ignore[arg-type]


def _servers_of(instance: ManagedNeo4j) -> list[psutil.Process]:
    flag = f"--config-dir={instance.conf_dir}"
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        if flag in (proc.info["cmdline"] or []):
            found.append(proc)
    return found


def test_status_of_a_never_started_instance_is_stopped(tmp_path: Path) -> None:
    status = _quiet(instance_dir=tmp_path / "inst").status()
    assert status.state == "stopped"
    assert status.pid is None
    assert status.instance_dir == tmp_path / "inst"
    assert status.to_dict()["password_file"] == str(tmp_path / "inst" / "password")


def test_session_server_is_running_and_reports_where(neo4j_instance: ManagedNeo4j, neo4j_server: ConnectionInfo) -> None:
    status = neo4j_instance.status()
    assert status.state == "running"
    assert status.bolt_uri == neo4j_server.uri == os.environ["NEO4J_URI"]
    assert status.browser_url == f"http://127.0.0.1:{status.http_port}/browser/"
    assert _servers_of(neo4j_instance)[0].pid == status.pid
    # A fresh object for the same instance dir sees the same truth (what the CLI does).
    again = ManagedNeo4j(neo4j_instance.settings, instance_dir=neo4j_instance.instance_dir, progress=None)
    assert again.status().pid == status.pid
    assert again.status().bolt_port == status.bolt_port


def test_starting_twice_keeps_one_server(neo4j_instance: ManagedNeo4j) -> None:
    before = neo4j_instance.status().pid
    after = neo4j_instance.start()
    assert after.state == "running"
    assert after.pid == before
    assert len(_servers_of(neo4j_instance)) == 1


def test_lost_pid_file_does_not_hide_the_server(neo4j_instance: ManagedNeo4j) -> None:
    pid = neo4j_instance.status().pid
    neo4j_instance.pid_file.unlink()
    status = neo4j_instance.status()
    assert (status.state, status.pid) == ("running", pid)
    assert neo4j_instance.start().pid == pid
    assert neo4j_instance.pid_file.read_text().strip() == str(pid)
    assert len(_servers_of(neo4j_instance)) == 1


def test_password_file_is_private_and_is_the_only_way_in(neo4j_instance: ManagedNeo4j, neo4j_server: ConnectionInfo) -> None:
    mode = stat.S_IMODE(neo4j_instance.password_file.stat().st_mode)
    assert mode == 0o600
    password = neo4j_instance.password_file.read_text().strip()
    assert password == neo4j_server.password and password != "neo4j" and len(password) >= 20
    with neo4j.GraphDatabase.driver(neo4j_server.uri, auth=(neo4j_server.user, password)) as driver:
        assert driver.execute_query("RETURN 1 AS one").records[0]["one"] == 1
    with neo4j.GraphDatabase.driver(neo4j_server.uri, auth=("neo4j", "neo4j")) as driver:
        with pytest.raises(AuthError):
            driver.verify_connectivity()


def test_server_listens_on_loopback_only(neo4j_instance: ManagedNeo4j) -> None:
    conf = (neo4j_instance.conf_dir / "neo4j.conf").read_text()
    assert "server.default_listen_address=127.0.0.1" in conf
    assert "server.https.enabled=false" in conf
    assert "dbms.security.auth_enabled=true" in conf
    status = neo4j_instance.status()
    listening = {
        (c.laddr.ip, c.laddr.port)
        for c in psutil.Process(status.pid).net_connections(kind="tcp")
        if c.status == psutil.CONN_LISTEN
    }
    assert {port for _, port in listening} >= {status.bolt_port, status.http_port}
    for ip, port in listening:
        assert ip in ("127.0.0.1", "::ffff:127.0.0.1"), f"port {port} listens on {ip}"


def test_indexes_are_resampled_after_large_changes_only(neo4j_server: ConnectionInfo) -> None:
    # Neo4j's own 5 % rescans every entity index again and again while a first index grows.
    with neo4j.GraphDatabase.driver(neo4j_server.uri, auth=(neo4j_server.user, neo4j_server.password)) as driver:
        records = driver.execute_query(
            "SHOW SETTINGS YIELD name, value WHERE name = 'db.index_sampling.update_percentage' RETURN value"
        ).records
    assert [r["value"] for r in records] == [str(INDEX_RESAMPLE_PERCENT)]


def test_browser_is_served(neo4j_instance: ManagedNeo4j) -> None:
    response = httpx.get(neo4j_instance.status().browser_url, timeout=30)
    assert response.status_code == 200
    assert "<title>Neo4j Browser</title>" in response.text


def test_logs_show_the_server_start(neo4j_instance: ManagedNeo4j) -> None:
    tail = neo4j_instance.log_tail(200)
    assert any(line.rstrip().endswith("Started.") for line in tail)
    assert len(neo4j_instance.log_tail(3)) == 3


def test_stale_pid_file_is_reported_and_cleared(tmp_path: Path) -> None:
    server = _quiet(instance_dir=tmp_path / "inst")
    server.pid_file.parent.mkdir(parents=True)
    # A live process that is not a Neo4j of this instance: ourselves.
    server.pid_file.write_text(f"{os.getpid()}\n")
    assert server.status().state == "stale"
    # A process that is gone.
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    server.pid_file.write_text(f"{gone.pid}\n")
    status = server.status()
    assert status.state == "stale" and status.pid == gone.pid
    assert server.stop() is False
    assert not server.pid_file.exists()
    assert server.status().state == "stopped"


def test_busy_port_is_named_in_the_error(tmp_path: Path) -> None:
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        busy = squatter.getsockname()[1]
        server = _quiet(instance_dir=tmp_path / "inst", bolt_port=busy, http_port=free_port())
        with pytest.raises(ConfigError, match=rf"port {busy} \(Bolt\)"):
            server.start()
    assert server.status().state == "stopped"


def test_missing_java_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-jdk"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    with pytest.raises(ConfigError, match="Java 17") as excinfo:
        _quiet(instance_dir=tmp_path / "inst").start()
    assert "\n" not in str(excinfo.value)
    assert not (tmp_path / "inst").exists()


def test_missing_maven_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    with pytest.raises(ConfigError, match="Maven") as excinfo:
        _quiet(settings_home=tmp_path / "fresh-home").install()
    assert "\n" not in str(excinfo.value)
    assert not (tmp_path / "fresh-home" / "lib").exists()


def test_cli_status_json_of_a_stopped_instance(tmp_path: Path) -> None:
    env = {**os.environ, "GRAPHSVC_HOME": str(tmp_path / "home")}
    for key in ("NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD"):
        env.pop(key, None)
    out = subprocess.run(
        [sys.executable, "-c", "from graphsvc.cli import run; run()", "neo4j", "status", "--json"],
        capture_output=True, text=True, env=env, timeout=120, check=True,
    )  # fmt: skip
    status = json.loads(out.stdout)
    assert status["state"] == "stopped"
    assert status["instance_dir"] == str(tmp_path / "home" / "neo4j")
    assert status["bolt_uri"] == "bolt://127.0.0.1:7687"


def test_extra_instance_starts_and_stops_cleanly(neo4j_instance: ManagedNeo4j, tmp_path: Path) -> None:
    """The one extra start of the suite: a fresh instance gets its own password and stops for real."""
    settings = neo4j_instance.settings
    server = ManagedNeo4j(
        settings, instance_dir=tmp_path / "inst", bolt_port=free_port(), http_port=free_port(), progress=None
    )
    try:
        status = server.start(free_ports=True)
        assert status.state == "running"
        info = server.connection_info()
        assert info.password != neo4j_instance.connection_info().password
        with neo4j.GraphDatabase.driver(info.uri, auth=(info.user, info.password)) as driver:
            driver.verify_connectivity()
        pid = status.pid
        assert pid is not None
        assert server.stop() is True
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
        assert not server.pid_file.exists()
        assert server.status().state == "stopped"
        assert server.stop() is False
    finally:
        server.stop(timeout_s=10)


def test_initial_password_may_start_with_a_dash(neo4j_instance: ManagedNeo4j, tmp_path: Path) -> None:
    """The admin tool must not read a password such as '-0QuT…' as an option (it once failed one
    start in 64): a password file that starts with '-' is set as it is, and a generated one is hex."""
    from graphsvc.neo4j import find_java

    settings = neo4j_instance.settings
    given = ManagedNeo4j(settings, instance_dir=tmp_path / "given", progress=None)
    given.instance_dir.mkdir(parents=True)
    given.password_file.write_text("-0QuTf99cOqDHDy1T33RPnfdlNrML0HN\n")
    assert given._prepare_instance(find_java()) == "-0QuTf99cOqDHDy1T33RPnfdlNrML0HN"
    assert (given.data_dir / "dbms" / "auth.ini").exists()

    generated = ManagedNeo4j(settings, instance_dir=tmp_path / "generated", progress=None)
    password = generated._prepare_instance(find_java())
    assert len(password) == 48 and all(c in "0123456789abcdef" for c in password)
