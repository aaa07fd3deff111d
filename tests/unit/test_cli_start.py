"""`graphsvc --version` and `--help` start without the driver, the web stack or the parsers."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from graphsvc.cli import manifest

HEAVY = ("neo4j", "strawberry", "fastapi", "tree_sitter", "pydantic", "igraph", "indexers")
# Printed by an exit handler: a command that succeeded ends without tearing the interpreter
# down (`graphsvc.cli._leave`), but its exit handlers run.
PROBE = """
import atexit
import sys
from graphsvc.cli import run
sys.argv = ["graphsvc", *sys.argv[1:]]
atexit.register(lambda: print("MODULES " + " ".join(sorted({m.split(".")[0] for m in sys.modules})),
                              file=sys.stderr))
run()
"""


def _run(*args: str) -> tuple[str, set[str]]:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    line = next(ln for ln in done.stderr.splitlines() if ln.startswith("MODULES "))
    return done.stdout, set(line.split()[1:])


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_start_imports_nothing_heavy(flag):
    out, modules = _run(flag)
    assert out.strip()
    assert not modules & set(HEAVY), f"{flag} imported {sorted(modules & set(HEAVY))}"


def test_help_lists_every_command_with_its_one_line_help():
    out, _ = _run("--help")
    listed = out.split("Commands:", 1)[1]
    commands = manifest.build()
    assert len(commands) > 20
    for name, entry in commands.items():
        if entry.get("hidden"):
            continue
        line = next((ln for ln in listed.splitlines() if ln.startswith(f"  {name} ")), None)
        assert line is not None, f"{name} is missing from --help"
        words = (entry.get("short_help") or entry["help"]).split()[:3]
        assert " ".join(words) in line, f"{name}: {line!r}"


def test_manifest_matches_the_commands():
    assert json.loads(manifest.MANIFEST.read_text()) == json.loads(manifest.text()), (
        "graphsvc/cli/commands.json is out of date: run `python -m graphsvc.cli.manifest`")


def test_a_command_still_runs_and_shows_its_help():
    out, modules = _run("callers", "--help")
    assert "Usage: graphsvc callers" in out and "--depth" in out


def test_a_stale_manifest_is_not_used(tmp_path, monkeypatch):
    from graphsvc.cli import LazyGroup

    stale = tmp_path / "commands.json"
    stale.write_text(json.dumps({"sources": "0", "commands": {"gone": {"module": "x", "help": "Gone."}}}))
    monkeypatch.setattr("graphsvc.cli.MANIFEST", stale)
    assert LazyGroup().manifest() == {}
