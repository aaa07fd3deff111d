"""Compaction of the continuity record: summary sources, the digest fallback, no nesting.

The external summarisers are real: a small script run as a command and a local HTTP server.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from graphsvc.context.summary import SUMMARY_MARK, digest
from graphsvc.settings import Settings

WS = "/home/dev/project"


@pytest.fixture
def settings(tmp_path) -> Settings:
    s = Settings(home=tmp_path / "home")
    s.context.dir = tmp_path / "context"
    bg = s.context.background
    bg.tokenizer = "estimate"
    bg.summary_timeout_s = 30  # generous: a loaded machine starts interpreters slowly
    return s


def script(tmp_path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(body)
    return f"{sys.executable} {path}"


class Summariser(BaseHTTPRequestHandler):
    status = 200
    answer: bytes = b'{"summary": "the http summary"}'
    content_type = "application/json"
    received: list = []

    def do_POST(self):  # noqa: N802 (http.server's naming)
        length = int(self.headers["Content-Length"])
        type(self).received.append(json.loads(self.rfile.read(length)))
        self.send_response(self.status)
        self.send_header("Content-Type", self.content_type)
        self.end_headers()
        self.wfile.write(self.answer)

    def log_message(self, *args):
        pass


@pytest.fixture
def http_summariser():
    class Handler(Summariser):
        received = []

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/summarise", Handler
    server.shutdown()
    server.server_close()


def fill(record, n: int, start: int = 0, outcomes_every: int = 0) -> None:
    for i in range(start, start + n):
        if outcomes_every and i % outcomes_every == outcomes_every - 1:
            record.record_outcome(WS, "front-1", "cursor-agent", f"outcome {i}: changed file_{i}.py")
        else:
            record.record_turn(WS, "front-1", f"turn {i}: please look at module_{i}")


def test_compaction_with_every_summary_source_failing_writes_the_digest(settings, record, tmp_path):
    bg = settings.context.background
    bg.summary_sources = ["command", "http", "none"]
    bg.summary_command = script(tmp_path, "fail.py", "import sys; sys.stderr.write('no model'); sys.exit(3)")
    bg.summary_url = "http://127.0.0.1:9/unreachable"  # discard port: connection refused
    bg.compact_above = 1000  # fill first, compact by hand
    fill(record, 41, outcomes_every=5)
    bg.compact_above = 40
    result = record.compact_now(WS)
    assert result.source == "digest" and result.folded == 31
    assert any("exited 3" in f and "no model" in f for f in result.failures)
    assert any(f.startswith("http:") for f in result.failures)
    entries = record.entries(WS)
    assert len(entries) == 11
    summary = entries[0]
    assert summary.kind == "summary" and summary.text.startswith(SUMMARY_MARK)
    # The first turns and every delegate outcome survive; the rest is counted.
    for i in range(3):
        assert f"turn {i}: please look at module_{i}" in summary.text
    for i in range(4, 31, 5):
        assert f"outcome {i}: changed file_{i}.py" in summary.text
    assert "turn 5: please" not in summary.text
    assert "Left out: 22 later user turns" in summary.text
    # The tail is unchanged.
    assert [e.text for e in entries[1:]] == [e for e in _texts(range(31, 41), 5)]
    (logged,) = [row for row in record.log(WS) if row["action"] == "compacted"]
    assert logged["source"] == "digest" and "exited 3" in logged["note"]


def _texts(indices, every):
    for i in indices:
        if i % every == every - 1:
            yield f"outcome {i}: changed file_{i}.py"
        else:
            yield f"turn {i}: please look at module_{i}"


def test_a_timed_out_command_and_an_http_error_fall_through(settings, record, tmp_path, http_summariser):
    url, handler = http_summariser
    handler.status = 500
    bg = settings.context.background
    bg.summary_sources = ["command", "http"]
    bg.summary_command = script(tmp_path, "slow.py", "import time; time.sleep(10)")
    bg.summary_timeout_s = 0.5
    bg.summary_url = url
    result = _compact_full(record, settings)
    assert result.source == "digest"
    assert any("timed out" in f for f in result.failures)
    assert any("HTTP 500" in f for f in result.failures)


def test_the_command_source_summarises_from_stdin(settings, record, tmp_path):
    bg = settings.context.background
    bg.summary_sources = ["command", "http"]
    bg.summary_command = script(
        tmp_path,
        "summarise.py",
        "import sys; text = sys.stdin.read(); "
        "print('[session summary] the user asked about', text.count('[turn'), 'turns')",
    )
    result = _compact_full(record, settings)
    assert result.source == "command" and result.failures == []
    summary = record.entries(WS)[0]
    assert summary.text.count(SUMMARY_MARK) == 1  # the summariser's own mark is not doubled
    assert "the user asked about 31 turns" in summary.text


def test_the_http_source_receives_the_entries(settings, record, http_summariser):
    url, handler = http_summariser
    bg = settings.context.background
    bg.summary_sources = ["command", "http"]  # command not configured: skipped, noted
    bg.summary_url = url
    result = _compact_full(record, settings)
    assert result.source == "http"
    assert result.failures == ["command: not configured (context.background.summary_command)"]
    (request,) = handler.received
    assert request["workspace"] == WS and len(request["entries"]) == 31
    assert "the http summary" in record.entries(WS)[0].text


def test_none_stops_the_list(settings, record, http_summariser):
    url, handler = http_summariser
    bg = settings.context.background
    bg.summary_sources = ["none", "http"]
    bg.summary_url = url
    assert _compact_full(record, settings).source == "digest"
    assert handler.received == []


def test_repeated_compaction_never_nests_summaries(settings, record):
    bg = settings.context.background
    bg.compact_above = 1000
    fill(record, 41)
    bg.compact_above = 40
    record.compact_now(WS)
    first = record.entries(WS)[0]
    bg.compact_above = 1000
    fill(record, 35, start=41)
    bg.compact_above = 40
    record.compact_now(WS)
    entries = record.entries(WS)
    summaries = [e for e in entries if e.is_summary]
    assert len(summaries) == 2
    assert summaries[0] == first  # carried over untouched
    for s in summaries:
        assert s.text.count(SUMMARY_MARK) == 1
    assert "turn 0:" not in summaries[1].text  # the old summary was not folded into the new one
    assert "turn 31:" in summaries[1].text  # the old tail is what the second pass folded
    assert len(entries) == 2 + bg.keep_tail
    # Nothing left to fold: a third run changes nothing.
    assert record.compact_now(WS, force=True) is None


def test_a_host_summary_message_is_carried_over_as_a_summary(settings, record):
    bg = settings.context.background
    bg.compact_above = 1000
    record.record_turn(WS, "s", f"{SUMMARY_MARK} the host compacted its own context here")
    fill(record, 40)
    bg.compact_above = 40
    record.compact_now(WS)
    entries = record.entries(WS)
    assert entries[0].text == f"{SUMMARY_MARK} the host compacted its own context here"
    assert entries[1].is_summary and "the host compacted" not in entries[1].text


def test_compaction_runs_in_the_background_not_on_the_request_clock(settings, record, tmp_path):
    bg = settings.context.background
    bg.summary_sources = ["command"]
    bg.summary_command = script(tmp_path, "slow_ok.py", "import time; time.sleep(1.5); print('slow summary')")
    fill(record, 40)
    started = time.perf_counter()
    record.record_turn(WS, "front-1", "the 41st turn triggers compaction")
    assert time.perf_counter() - started < 1.0
    assert len(record.entries(WS)) == 41  # not compacted yet: the summariser is still running
    record.wait_idle(timeout=30)
    entries = record.entries(WS)
    assert entries[0].is_summary and "slow summary" in entries[0].text
    assert len(entries) == 1 + bg.keep_tail


def test_entries_added_during_compaction_are_kept(settings, record, tmp_path):
    bg = settings.context.background
    bg.summary_sources = ["command"]
    bg.summary_command = script(tmp_path, "slow_ok2.py", "import time; time.sleep(1); print('ok')")
    fill(record, 41)
    for i in range(5):
        record.record_turn(WS, "front-1", f"late turn {i}")
    record.wait_idle(timeout=30)
    texts = [e.text for e in record.entries(WS)]
    assert all(f"late turn {i}" in texts for i in range(5))


def test_digest_is_deterministic():
    from graphsvc.context.continuity import Entry

    entries = [
        Entry(i, WS, i, "outcome" if i == 7 else "turn", "s", "agy" if i == 7 else None, False, f"t{i}", 0)
        for i in range(1, 11)
    ]
    assert digest(entries, 3) == digest(list(entries), 3)
    assert "Left out: 6 later user turns" in digest(entries, 3)


def _compact_full(record, settings):
    bg = settings.context.background
    bg.compact_above = 1000
    fill(record, 41)
    bg.compact_above = 40
    return record.compact_now(WS)
