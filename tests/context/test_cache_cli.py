"""`graphsvc cache …` and `graphsvc continuity …` through click, against a real store."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from graphsvc.cli import main
from graphsvc.settings import reload_settings


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHSVC_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GRAPHSVC_CONTEXT__BACKGROUND__TOKENIZER", "estimate")
    reload_settings()
    runner = CliRunner()

    def invoke(*args: str, input: str | bytes | None = None):
        result = runner.invoke(main, list(args), input=input, catch_exceptions=False, standalone_mode=False)
        return result

    yield invoke
    monkeypatch.undo()
    reload_settings()


def test_store_is_a_filter_that_answers_repeats_with_a_ref(run, tmp_path):
    first = run("cache", "store", input="hello parser\nsecond line\n")
    assert first.output == "hello parser\nsecond line\n"
    again = run("cache", "store", input="hello parser\nsecond line\n")
    assert again.output.startswith("§ref:")
    info = json.loads(run("cache", "store", "--json", input="hello parser\nsecond line\n").output)
    assert info["sent"] == "ref"
    assert run("cache", "expand", info["hash"][:8], "--lines", "2").output == "second line\n"
    hits = json.loads(run("cache", "recall", "parser", "--json").output)
    assert hits[0]["hash"] == info["hash"]
    assert "pinned" in run("cache", "pin", info["hash"][:8]).output
    assert json.loads(run("cache", "pins", "--json").output)[0]["hash"] == info["hash"]
    run("cache", "unpin", info["hash"][:8])
    stats = json.loads(run("cache", "stats", "--json").output)
    assert stats["entries"] == 1 and stats["counters"]["hits"] == 2


def test_binary_store_notes_it_is_not_searchable(run, tmp_path):
    path = tmp_path / "blob.bin"
    path.write_bytes(b"\x00\xff\x00")
    result = run("cache", "store", str(path), "--json")
    data = json.loads(result.output)
    assert data["searchable"] is False and data["payload_encoding"] == "base64"


def test_reset_needs_confirmation_without_a_terminal(run):
    run("cache", "store", input="x")
    from graphsvc.errors import InputError

    with pytest.raises(InputError, match="--yes"):
        run("cache", "reset", "cache", input="")
    removed = json.loads(run("cache", "reset", "cache", "--yes", "--json").output)["removed"]
    assert removed["cache_entries"] == 1


def test_continuity_verbs(run, tmp_path):
    run("continuity", "add", "-w", "/ws", "-s", "front", "TestParseConfig fails with a nil pointer")
    run("continuity", "add", "-w", "/ws", "-s", "front", "css padding")
    run("continuity", "add", "-w", "/ws", "-s", "front", "--outcome", "-d", "agy", "added a nil check")
    shown = json.loads(run("continuity", "show", "-w", "/ws", "--json").output)
    assert [e["kind"] for e in shown["entries"]] == ["turn", "turn", "outcome"]
    block = json.loads(run("continuity", "block", "-w", "/ws", "nil pointer", "--json").output)
    assert block["text"].startswith("## Earlier in the calling session")
    assert block["token_method"].startswith("estimate")
    out = tmp_path / "seen.txt"
    result = run(
        "continuity", "run", "-w", "/ws", "-t", "nil pointer", "-v", "cursor-agent", "--",
        "sh", "-c", f'cat AGENTS.md > {out}; echo "$PWD" >> {out}',
    )
    seen = out.read_text()
    assert "TestParseConfig fails" in seen
    run_dir = seen.strip().splitlines()[-1]
    assert run_dir and not __import__("os").path.exists(run_dir)
    assert "nothing to compact" in run("continuity", "compact", "-w", "/ws").output
