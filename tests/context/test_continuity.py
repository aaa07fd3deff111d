"""The continuity record and the delegate block, against a real SQLite store."""

from __future__ import annotations

import stat
import time

import pytest

from graphsvc.context import db
from graphsvc.context.continuity import (
    HEADING,
    OTHER_VENDOR_FILE,
    Continuity,
    context_file_for,
    terms,
    write_delegate_context,
)
from graphsvc.context.summary import SUMMARY_MARK
from graphsvc.context.tokens import ESTIMATE_METHOD, estimate_tokens, get_counter, truncate_middle
from graphsvc.errors import InputError
from graphsvc.settings import Settings

WS = "/home/dev/project"
GO_TURN = "TestParseConfig in config_test.go fails: nil pointer dereference in parseConfig"
CSS_TURNS = [
    "make the header button padding 8px in styles.css",
    "the sidebar links need a darker hover colour in styles.css",
    "centre the modal dialog with flexbox, it sits too low",
    "the footer overlaps the content on mobile, fix the css grid",
    "use the brand font for headings and shrink the nav bar",
]
GO_TASK = "Fix the nil pointer dereference in the Go config parser so TestParseConfig passes"


@pytest.fixture
def settings(tmp_path) -> Settings:
    s = Settings(home=tmp_path / "home")
    s.context.dir = tmp_path / "context"
    s.context.background.tokenizer = "estimate"
    return s


def seqs(block) -> list[int]:
    return [e.seq for e in block.entries]


# -- recording ------------------------------------------------------------------------------


def test_every_turn_is_recorded_flagged_or_not_and_outcomes_under_the_calling_session(record):
    record.record_turn(WS, "claude-1", "why does the login test fail?")
    record.record_turn(WS, "claude-1", "fix it", flagged=True)
    record.record_outcome(WS, "claude-1", "cursor-agent", "patched auth/session.py: token expiry check")
    entries = record.entries(WS)
    assert [(e.seq, e.kind, e.flagged) for e in entries] == [
        (1, "turn", False),
        (2, "turn", True),
        (3, "outcome", True),
    ]
    assert entries[2].session == "claude-1" and entries[2].delegate == "cursor-agent"
    assert record.entries("/other/workspace") == []


def test_empty_text_and_missing_identity_are_refused(record):
    with pytest.raises(InputError):
        record.record_turn(WS, "s", "   ")
    with pytest.raises(InputError):
        record.record_turn(WS, "", "text")
    with pytest.raises(InputError, match="delegate"):
        record.record_outcome(WS, "s", "", "did things")


def test_the_record_lives_in_the_context_dir_not_the_repository(settings, record, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    record.record_turn(WS, "s", "hello")
    path = db.store_path(settings)
    assert path.parent == settings.context.dir
    assert path.exists()
    assert not (tmp_path / "AGENTS.md").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["context"]


def test_the_ring_keeps_sixty_entries_and_logs_what_left(settings, record):
    settings.context.background.compact_above = 1000  # ring only, no compaction
    for i in range(65):
        record.record_turn(WS, "s", f"turn {i}")
    entries = record.entries(WS)
    assert len(entries) == 60
    assert entries[0].text == "turn 5"
    dropped = [row for row in record.log(WS) if row["action"] == "ring_dropped"]
    assert sum(row["entries"] for row in dropped) == 5


# -- the block ------------------------------------------------------------------------------


def test_bm25_ranking_beats_recency_css_then_go(settings, record):
    settings.context.background.max_entries = 3
    record.record_turn(WS, "s", GO_TURN)
    for text in CSS_TURNS:
        record.record_turn(WS, "s", text)
    block = record.block(WS, GO_TASK)
    # The Go turn from long ago, plus the protected tail (the two newest turns).
    assert seqs(block) == [1, 5, 6]
    assert GO_TURN in block.text
    for text in CSS_TURNS[:3]:
        assert text not in block.text
    # With room for everything, irrelevant CSS turns still stay out.
    settings.context.background.max_entries = 20
    assert seqs(record.block(WS, GO_TASK)) == [1, 5, 6]


def test_rare_terms_weigh_more(settings, record):
    settings.context.background.max_entries = 3
    record.record_turn(WS, "s", "the cache is slow; the cache misses; cache cache")
    record.record_turn(WS, "s", "the tokenizer splits words wrongly")
    for i in range(4):
        record.record_turn(WS, "s", f"cache eviction idea number {i}")
    record.record_turn(WS, "s", "unrelated tail one")
    record.record_turn(WS, "s", "unrelated tail two")
    block = record.block(WS, "tokenizer cache")
    # "tokenizer" occurs once in the record, "cache" six times: the tokenizer turn wins.
    assert seqs(block) == [2, 7, 8]


def test_at_equal_relevance_a_delegate_outcome_beats_a_turn(settings, record):
    settings.context.background.max_entries = 3
    record.record_outcome(WS, "s", "agy", "renamed the billing module to invoices")
    record.record_turn(WS, "s", "renamed the billing module to invoices")
    record.record_turn(WS, "s", "tail one")
    record.record_turn(WS, "s", "tail two")
    block = record.block(WS, "billing module")
    assert seqs(block) == [1, 3, 4]
    assert block.entries[0].kind == "outcome"
    # Order the other way round: still the outcome.
    record2 = Continuity(record.conn, settings)
    record2.record_turn("/ws2", "s", "renamed the billing module to invoices")
    record2.record_outcome("/ws2", "s", "agy", "renamed the billing module to invoices")
    record2.record_turn("/ws2", "s", "tail one")
    record2.record_turn("/ws2", "s", "tail two")
    assert [e.kind for e in record2.block("/ws2", "billing module").entries][0] == "outcome"


def test_outcomes_without_a_match_are_still_eligible_and_turns_are_not(record):
    record.record_outcome(WS, "s", "cursor-agent", "moved the deploy scripts into ops/")
    record.record_turn(WS, "s", "what is the weather like")
    record.record_turn(WS, "s", "tail one")
    record.record_turn(WS, "s", "tail two")
    assert seqs(record.block(WS, "fix the flaky database migration")) == [1, 3, 4]


def test_the_two_newest_entries_are_always_included(settings, record):
    settings.context.background.max_entries = 2
    record.record_turn(WS, "s", GO_TURN)
    record.record_turn(WS, "s", "completely unrelated chat about lunch")
    record.record_turn(WS, "s", "more unrelated chat")
    block = record.block(WS, GO_TASK)
    assert seqs(block) == [2, 3]
    assert all(e.protected for e in block.entries)


def test_the_protected_tail_survives_a_tiny_budget(settings, record):
    settings.context.background.token_budget = 120
    record.record_turn(WS, "s", "relevant parser words " * 5)
    record.record_turn(WS, "s", "A" * 2000 + "the end of the newest turn")
    record.record_turn(WS, "s", "B" * 2000 + "the end of the last turn")
    block = record.block(WS, "parser")
    assert [e.seq for e in block.entries if e.protected] == [2, 3]
    assert block.entries[-1].text.endswith("last turn")  # the end survives the cut
    assert block.entries[-1].truncated


def test_over_long_entries_lose_their_middle(settings, record):
    settings.context.background.max_entry_chars = 400
    long_text = "OBJECTIVE: fix the parser. " + "noise " * 500 + "CONDITION: all tests pass."
    record.record_turn(WS, "s", long_text)
    block = record.block(WS, "parser")
    (entry,) = block.entries
    assert entry.truncated
    assert len(entry.text) <= 400
    assert entry.text.startswith("OBJECTIVE: fix the parser.")
    assert entry.text.endswith("CONDITION: all tests pass.")
    assert "characters cut" in entry.text


def test_truncate_middle_keeps_both_ends():
    text = "".join(chr(65 + i % 26) for i in range(1000))
    cut, was_cut = truncate_middle(text, 100)
    assert was_cut and len(cut) <= 100
    head, _, tail = cut.partition("\n[…")
    assert text.startswith(head) and text.endswith(tail.split("…]\n")[1])
    assert truncate_middle("short", 100) == ("short", False)


def test_budget_and_entry_ceilings_hold_and_smaller_items_are_still_tried(settings, record):
    bg = settings.context.background
    bg.protected_tail = 0
    bg.token_budget = 700
    bg.max_entry_chars = 4000
    record.record_turn(WS, "s", "parser " * 3 + "x" * 2400)  # most relevant, about 800 tokens
    record.record_turn(WS, "s", "parser parser short note")  # less relevant, small
    record.record_turn(WS, "s", "parser one more small note")
    block = record.block(WS, "parser")
    assert 1 not in seqs(block) and 1 in block.left_out
    assert seqs(block) == [2, 3]
    assert block.tokens <= bg.token_budget
    bg.max_entries = 1
    assert len(record.block(WS, "parser").entries) == 1


def test_block_reports_tokens_and_method(settings, record):
    record.record_turn(WS, "s", "hello parser")
    block = record.block(WS, "parser")
    assert block.text.startswith(f"## {HEADING}\n")
    assert block.token_method == ESTIMATE_METHOD
    assert block.tokens == estimate_tokens(block.text)


def test_real_tokenizer_is_used_when_installed(settings, record):
    pytest.importorskip("bpe_openai")
    settings.context.background.tokenizer = "auto"
    record.record_turn(WS, "s", "hello parser")
    block = record.block(WS, "parser")
    assert block.token_method.startswith("bpe-openai")
    assert block.tokens == get_counter().count(block.text)
    assert block.tokens < estimate_tokens(block.text)


def test_terms_split_identifiers():
    assert {"parseconfig", "parse", "config"} <= set(terms("parseConfig"))
    assert {"test_parse_config", "test", "parse", "config"} <= set(terms("test_parse_config"))
    assert "the" not in terms("the parser")


# -- delegate files -------------------------------------------------------------------------


def test_delegate_context_is_written_to_a_private_directory_and_removed(record, tmp_path):
    record.record_turn(WS, "s", GO_TURN)
    with record.write_delegate_context(WS, GO_TASK, "cursor-agent", parent=tmp_path) as run:
        assert run.path.name == "AGENTS.md"
        assert stat.S_IMODE(run.directory.stat().st_mode) == 0o700
        assert stat.S_IMODE(run.path.stat().st_mode) == 0o600
        content = run.path.read_text()
        assert f"## {HEADING}" in content and GO_TURN in content
        directory = run.directory
    assert not directory.exists()


def test_delegate_directory_is_removed_even_on_error(record, tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    record.record_turn(WS, "s", "hello")
    with pytest.raises(RuntimeError, match="delegate crashed"):
        with record.write_delegate_context(WS, "task", "claude", parent=runs) as run:
            directory = run.directory
            assert run.path.name == OTHER_VENDOR_FILE
            raise RuntimeError("delegate crashed")
    assert not directory.exists()
    assert list(runs.iterdir()) == []


def test_vendor_files():
    assert context_file_for("cursor-agent") == "AGENTS.md"
    assert context_file_for("agy") == "AGENTS.md"
    assert context_file_for("claude") == "graphsvc-context.md"


def test_module_level_helpers_open_the_configured_store(settings, monkeypatch, tmp_path):
    monkeypatch.setenv("GRAPHSVC_HOME", str(tmp_path / "home2"))
    from graphsvc.settings import reload_settings

    reload_settings()
    try:
        own = Continuity()
        own.record_turn(WS, "s", "hello from the default store")
        own.conn.close()
        with write_delegate_context(WS, "hello", "codex") as run:
            assert "hello from the default store" in run.path.read_text()
        assert (tmp_path / "home2" / "context" / "context.sqlite3").exists()
    finally:
        monkeypatch.delenv("GRAPHSVC_HOME")
        reload_settings()
