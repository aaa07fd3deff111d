"""The `graphsvc events|turns|episodes|prune` verbs: the main flow in-process, errors and a
corrupt store as a user meets them (a separate process, its exit code and stderr)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from graphsvc.cli import main
from graphsvc.context import store as store_module
from graphsvc.settings import reload_settings


@pytest.fixture
def cli(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHSVC_HOME", str(tmp_path / "home"))
    reload_settings()
    store_module.reset_store()
    runner = CliRunner()

    def run(*args: str, input: str | None = None):
        result = runner.invoke(main, list(args), input=input, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result

    yield run
    store_module.reset_store()
    monkeypatch.undo()
    reload_settings()


@pytest.fixture
def cli_process(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHSVC_", "NEO4J_"))}
    env["GRAPHSVC_HOME"] = str(tmp_path / "home")

    def run(*args: str, input: str | None = None, ok: bool = True) -> subprocess.CompletedProcess:
        proc = subprocess.run(
            [sys.executable, "-c", "from graphsvc.cli import run; run()", *args],
            env=env, input=input, capture_output=True, text=True, timeout=120,
        )
        if ok:
            assert proc.returncode == 0, proc.stderr
        return proc

    return run


def test_turns_events_and_episodes_from_the_command_line(cli, tmp_path):
    opened = json.loads(cli("turns", "open", "-w", "/ws", "--id", "t1", "--session", "s1",
                            "--key", "goal=fix the lexer", "--json").stdout)
    assert opened["family_id"] == "t1" and opened["keys"] == {"goal": "fix the lexer"}
    cli("turns", "open", "-w", "/ws", "--id", "t2", "--parent", "t1")
    cli("turns", "touch", "t2", "src/lexer.py")
    cli("turns", "set-keys", "t1", "plan=1. read", "goal=")
    assert "sticky to cloud" in cli("turns", "stick", "t1", "cloud").output

    resolved = json.loads(cli("turns", "resolve", "--session", "s1", "--meta", "kind=summary", "--record", "--json",
                              "what we did so far").stdout)
    assert (resolved["family_id"], resolved["route"], resolved["reason"]) == ("t1", "cloud", "summary-continues-session")
    text = cli("turns", "resolve", "lexer.py crashes").output
    assert text.startswith("family t1, sticky route cloud") and "working-set" in text

    shown = json.loads(cli("turns", "show", "t1", "--json").stdout)
    assert shown["keys"] == {"plan": "1. read"} and shown["sticky"]["route"] == "cloud"
    assert [t["id"] for t in json.loads(cli("turns", "list", "--json").stdout)] == ["t2", "t1"]

    appended = json.loads(cli("events", "append", "FulfilledLocal", "--turn", "t2", "-p", '{"ms": 5}', "--json").stdout)
    assert appended["workspace"] == "/ws"
    assert json.loads(cli("events", "append", "Piped", "-p", "-", "--json", input='{"a": [1]}').stdout)["payload"] == {"a": [1]}
    recent = json.loads(cli("events", "recent", "--type", "FulfilledLocal", "--json").stdout)
    assert [e["payload"] for e in recent] == [{"ms": 5}]

    cli("episodes", "add", "s1", "lexer fixed")
    assert json.loads(cli("episodes", "list", "--json").stdout)[0]["summary"] == "lexer fixed"
    assert "lexer fixed" in cli("episodes", "pack", "--session", "s1", "--user-turn", "next?").output

    export = tmp_path / "log.jsonl"
    cli("events", "export", "-o", str(export))
    lines = export.read_text().splitlines()
    assert len(lines) == 8 and all(json.loads(line)["prov"] == "RUNTIME" for line in lines)
    report = json.loads(cli("events", "import", str(export), "--json").stdout)
    assert (report["imported"], report["skipped_existing"]) == (0, 8)
    assert json.loads(cli("prune", "--json").stdout)["removed"] == 0


def test_bad_input_is_one_line_on_stderr_with_a_nonzero_exit_and_stores_nothing(cli_process):
    bad = cli_process("events", "append", "lower", ok=False)
    assert bad.returncode == 2 and bad.stderr.startswith("error: type: 'lower'")
    bad = cli_process("turns", "open", "-w", "/ws", "--key", "nokey", ok=False)
    assert bad.returncode == 2 and "KEY=VALUE" in bad.stderr
    assert json.loads(cli_process("events", "recent", "--json").stdout) == []


def test_a_corrupt_store_is_reported_with_its_path(cli_process, tmp_path):
    path = tmp_path / "home" / "context" / "context.sqlite3"
    path.parent.mkdir(parents=True)
    path.write_text("garbage" * 100)
    bad = cli_process("events", "recent", ok=False)
    assert bad.returncode == 4 and str(path) in bad.stderr
    assert path.read_text() == "garbage" * 100


def test_errors_in_process_name_the_field(cli):
    runner = CliRunner()
    for args, message in [
        (["events", "append", "Foo", "-p", '{"a":'], "payload: invalid JSON"),
        (["turns", "show", "ghost"], "ghost"),
        (["turns", "stick", "ghost", "cloud"], "unknown turn family"),
    ]:
        result = runner.invoke(main, args)
        assert message in str(result.exception), args
