"""The content cache against a real SQLite store in a temporary directory."""

from __future__ import annotations

import sqlite3

import pytest

from graphsvc.context import db
from graphsvc.context.cache import RESET_SCOPES, ContentCache, content_hash, fts_query, make_ref
from graphsvc.context.continuity import Continuity
from graphsvc.errors import AmbiguousError, InputError, NotFoundError
from graphsvc.settings import Settings


class Clock:
    """Microseconds we move by hand, so freshness can expire inside a test."""

    def __init__(self, start: int = 1_700_000_000_000_000):
        self.now = start

    def __call__(self) -> int:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += int(seconds * 1_000_000)


@pytest.fixture
def settings(tmp_path) -> Settings:
    s = Settings(home=tmp_path / "home")
    s.context.dir = tmp_path / "context"
    s.cache.max_bytes = 10_000
    s.cache.freshness_s = 60
    s.cache.index_cap_bytes = 2_000
    return s


@pytest.fixture
def conn(settings):
    c = db.connect(db.store_path(settings))
    yield c
    c.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def cache(conn, settings, clock) -> ContentCache:
    return ContentCache(conn, settings, clock=clock)


def tick(clock: Clock, cache: ContentCache, text: str, **kw):
    clock.advance(0.001)
    return cache.store(text, **kw)


# -- store and references -----------------------------------------------------------------


def test_first_store_sends_content_and_a_repeat_sends_a_reference(cache):
    first = cache.store("def main():\n    return 1\n", label="app.py")
    assert first.sent == "full"
    assert first.payload == "def main():\n    return 1\n"
    assert first.hash == content_hash(b"def main():\n    return 1\n")
    again = cache.store("def main():\n    return 1\n")
    assert again.sent == "ref"
    assert again.payload == make_ref(first.hash) == f"§ref:{first.hash[:16]}§"
    assert cache.stats().hits == 1


def test_reference_expires_after_the_freshness_window(cache, clock):
    cache.store("body")
    clock.advance(30)
    assert cache.store("body").sent == "ref"
    clock.advance(29)
    assert cache.store("body").sent == "ref"  # 59 s after the full send
    clock.advance(2)
    # A ref does not renew the promise: 61 s after the full send, the body goes again.
    assert cache.store("body").sent == "full"
    assert cache.store("body").sent == "ref"


def test_compaction_marker_makes_earlier_references_stale(cache, clock):
    cache.store("body")
    clock.advance(1)
    cache.mark_compaction()
    clock.advance(1)
    assert cache.store("body").sent == "full"
    clock.advance(1)
    assert cache.store("body").sent == "ref"


def test_pins_do_not_extend_freshness(cache, clock):
    cache.store("pinned body", pin=True)
    clock.advance(120)
    assert cache.store("pinned body").sent == "full"


def test_derived_form_is_what_a_full_send_carries_and_expand_returns_the_original(cache):
    result = cache.store("a long original text\n" * 10, derived="a short summary")
    assert result.payload == "a short summary"
    assert cache.expand(result.hash[:8]).content == b"a long original text\n" * 10
    assert cache.expand(result.hash[:8], derived=True).content == b"a short summary"


# -- expand -------------------------------------------------------------------------------


def test_expand_line_ranges(cache):
    text = "".join(f"line {i}\n" for i in range(1, 11))
    ref = cache.store(text).ref
    assert cache.expand(ref).content == text.encode()
    part = cache.expand(ref, "3-5")
    assert part.content == b"line 3\nline 4\nline 5\n"
    assert (part.first_line, part.last_line, part.total_lines) == (3, 5, 10)
    assert cache.expand(ref, "9-").content == b"line 9\nline 10\n"
    assert cache.expand(ref, "7").content == b"line 7\n"
    assert cache.expand(ref, (8, 99)).content == b"line 8\nline 9\nline 10\n"
    with pytest.raises(InputError, match="starts at 11"):
        cache.expand(ref, "11-12")
    with pytest.raises(InputError, match="line range"):
        cache.expand(ref, "5-2")
    with pytest.raises(InputError, match="line range"):
        cache.expand(ref, "x")


def test_expand_accepts_a_reference_or_a_prefix_and_rejects_unknown_and_short(cache):
    result = cache.store("some content")
    assert cache.expand(result.ref).hash == result.hash
    assert cache.expand(result.hash[:4].upper()).hash == result.hash
    with pytest.raises(NotFoundError):
        cache.expand("ffffffffffff" if not result.hash.startswith("f") else "000000000000")
    with pytest.raises(InputError, match="too short"):
        cache.expand(result.hash[:3])
    with pytest.raises(InputError, match="not a hash prefix"):
        cache.expand("not-hex")


def test_ambiguous_prefix_lists_the_candidates(cache):
    # Store contents until two hashes share their first four hex digits.
    seen: dict[str, str] = {}
    i = 0
    while True:
        h = content_hash(f"item {i}".encode())
        if h[:4] in seen:
            break
        seen[h[:4]] = h
        i += 1
    other = seen[h[:4]]
    for text in (f"item {i}", f"item {list(seen.values()).index(other)}"):
        cache.store(text)
    with pytest.raises(AmbiguousError) as info:
        cache.expand(h[:4])
    assert sorted(c.split()[0] for c in info.value.candidates) == sorted([h, other])
    assert cache.expand(h[:12]).hash == h  # more digits resolve it


def test_binary_and_nul_and_oversized_content_stay_expandable_but_not_searchable(cache):
    binary = cache.store(b"\x89PNG\x00\xff\xfe")
    assert binary.kind == "binary" and not binary.searchable
    assert "not UTF-8" in binary.index_note
    nul = cache.store("text with a \x00 NUL byte and a word zebra")
    assert not nul.searchable and "NUL" in nul.index_note
    big = cache.store("zebra " * 1000)  # 6000 bytes > index cap 2000
    assert not big.searchable and "index_cap_bytes" in big.index_note
    assert cache.expand(binary.hash).content == b"\x89PNG\x00\xff\xfe"
    assert cache.expand(nul.hash).content == "text with a \x00 NUL byte and a word zebra".encode()
    assert cache.expand(big.hash).content == ("zebra " * 1000).encode()
    assert cache.recall("zebra") == []
    assert cache.info(big.hash).index_note == big.index_note


def test_an_index_failure_is_reported_not_swallowed(cache, conn):
    # Make the index refuse writes; the entry must still be stored and the failure reported.
    conn.execute(
        "CREATE TRIGGER refuse_index BEFORE INSERT ON cache_search_docsize "
        "BEGIN SELECT RAISE(ABORT, 'index refused'); END"
    )
    result = cache.store("a searchable sentence about giraffes")
    assert not result.searchable
    assert result.index_note.startswith("indexing failed: ")
    assert cache.stats().counters["index_failures"] == 1
    assert cache.expand(result.hash).text == "a searchable sentence about giraffes"


# -- recall -------------------------------------------------------------------------------


def test_recall_ranks_by_bm25_and_returns_snippets_with_refs(cache, clock):
    tick(clock, cache, "the parser reads tokens; the parser builds a tree; parser errors", label="parser.py")
    tick(clock, cache, "the lexer splits text into tokens", label="lexer.py")
    tick(clock, cache, "a note that mentions the parser once among many other words here", label="notes.md")
    hits = cache.recall("parser")
    assert [h.label for h in hits] == ["parser.py", "notes.md"]
    assert hits[0].score > hits[1].score
    assert "[parser]" in hits[0].snippet
    assert hits[0].ref == make_ref(hits[0].hash)
    # A rarer term decides: "lexer" appears once, "tokens" twice.
    assert cache.recall("lexer tokens")[0].label == "lexer.py"


def test_recall_limit_is_clamped(cache, clock):
    for i in range(60):
        tick(clock, cache, f"common word entry {i}")
    assert len(cache.recall("common", limit=0)) == 1
    assert len(cache.recall("common", limit=-5)) == 1
    assert len(cache.recall("common", limit=500)) == 50
    assert len(cache.recall("common", limit=7)) == 7


@pytest.mark.parametrize(
    "query, found",
    [('"unbalanced', False), ("AND OR NOT", True), ("NEAR(a b", True), ("col:value", True),
     ("a* ^b", False), ("((( parser", True), ("-x +y", False), ("label:parser", True)],
)
def test_recall_treats_fts_syntax_as_data(cache, query, found):
    # Never an FTS5 syntax error: operators are words, punctuation is nothing. A query finds
    # exactly the entry holding one of its words; `a*` is no prefix search ("an", "about").
    stored = cache.store("AND OR NOT are words; NEAR too; value and parser and col")
    cache.store("an answer about lexers, bytes")
    assert [hit.ref for hit in cache.recall(query)] == ([stored.ref] if found else [])


def test_recall_without_words_is_an_input_error(cache):
    with pytest.raises(InputError, match="no words"):
        cache.recall('"" ** ()')
    assert fts_query('say "hi"') == '"say" OR "hi"'


# -- pins and eviction --------------------------------------------------------------------


def test_byte_ceiling_holds_counting_originals_and_derived_forms(cache, clock, conn):
    for i in range(40):
        tick(clock, cache, f"{i:04d}" + "o" * 396, derived="d" * 100)  # 500 bytes each
        stats = cache.stats()
        assert stats.bytes <= 10_000
        actual = conn.execute(
            "SELECT coalesce(sum(length(original) + coalesce(length(derived), 0)), 0) FROM cache_entries"
        ).fetchone()[0]
        assert actual == stats.bytes  # the accounting is the real size of both forms
    assert cache.stats().entries == 20
    assert cache.stats().evictions == 20


def test_eviction_is_least_recently_used(cache, clock):
    first = tick(clock, cache, "A" * 4000)
    tick(clock, cache, "B" * 4000)
    clock.advance(1)
    cache.expand(first.hash)  # touching A makes B the least recently used
    tick(clock, cache, "C" * 4000)
    kept = {e for e in ("A", "B", "C") if _has(cache, e * 4000)}
    assert kept == {"A", "C"}


def test_pins_survive_eviction(cache, clock):
    pinned = tick(clock, cache, "P" * 3000, pin=True)
    other = tick(clock, cache, "Q" * 3000)
    cache.pin(other.hash[:10])
    for i in range(30):
        tick(clock, cache, f"filler {i} " + "x" * 990)
    assert _has(cache, "P" * 3000) and _has(cache, "Q" * 3000)
    assert {p.hash for p in cache.pins()} == {pinned.hash, other.hash}
    assert cache.stats().bytes <= 10_000
    cache.unpin(other.hash)
    tick(clock, cache, "R" * 4000)
    tick(clock, cache, "S" * 2500)
    assert not _has(cache, "Q" * 3000)  # unpinned and least recently used: evicted
    assert _has(cache, "P" * 3000)


def test_when_everything_else_is_pinned_the_pins_still_win(cache, clock):
    tick(clock, cache, "P" * 6000, pin=True)
    big = tick(clock, cache, "N" * 5000)  # over the ceiling, nothing unpinned to evict
    assert _has(cache, "P" * 6000) and _has(cache, "N" * 5000)
    assert big.evicted == 0


def test_content_larger_than_the_ceiling_is_refused(cache):
    with pytest.raises(InputError, match="cache.max_bytes"):
        cache.store("x" * 9000, derived="y" * 2000)


def test_pin_of_unknown_hash_is_not_found(cache):
    with pytest.raises(NotFoundError):
        cache.pin("abcdef12")


# -- stats and reset ----------------------------------------------------------------------


def test_stats_count_entries_bytes_hits_and_evictions(cache, clock):
    tick(clock, cache, "one")
    tick(clock, cache, "one")
    tick(clock, cache, b"\x00\x01")
    stats = cache.stats()
    assert (stats.entries, stats.bytes, stats.hits) == (2, 5, 1)
    assert stats.counters["stores"] == 3 and stats.counters["misses"] == 2
    assert stats.searchable_entries == 1


def _populate(cache, clock, continuity_record):
    tick(clock, cache, "alpha text", pin=True)
    tick(clock, cache, "beta text")
    tick(clock, cache, "beta text")
    cache.mark_compaction()
    cache.recall("alpha")
    continuity_record.record_turn("/ws", "s1", "a user turn")
    continuity_record.conn.execute(
        "INSERT INTO continuity_log (workspace, at, action, entries) VALUES ('/ws', 1, 'compacted', 1)"
    )


def _row_counts(conn) -> dict[str, int]:
    tables = [
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    ]
    return {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}


def _is_fts_shadow(table: str) -> bool:
    return any(table == f"cache_search_{suffix}" for suffix in ("data", "idx", "content", "docsize", "config"))


@pytest.mark.parametrize("scope", sorted(RESET_SCOPES))
def test_reset_clears_exactly_its_scope(cache, clock, conn, settings, scope):
    record = Continuity(conn, settings)
    _populate(cache, clock, record)
    before = _row_counts(conn)
    for table in RESET_SCOPES[scope]:
        assert before[table] > 0, f"{table} should hold rows before the reset"
    removed = cache.reset(scope)
    after = _row_counts(conn)
    assert set(removed) == set(RESET_SCOPES[scope])
    for table, count in after.items():
        if table in RESET_SCOPES[scope]:
            assert count == 0, f"reset {scope} left rows in {table}"
            assert removed[table] == before[table]
        elif _is_fts_shadow(table):
            continue  # FTS5 internals; the index itself is checked through cache_search
        else:
            assert count == before[table], f"reset {scope} touched {table}"
    if "cache_entries" in RESET_SCOPES[scope]:
        assert conn.execute("SELECT count(*) FROM cache_search_docsize").fetchone()[0] == 0
        assert cache.recall("alpha") == []
        assert cache.stats().bytes == 0


def test_reset_scopes_name_every_cache_and_continuity_table(conn):
    ours = {
        t for t in _row_counts(conn)
        if (t.startswith("cache_") or t.startswith("continuity_")) and not _is_fts_shadow(t)
    }
    assert ours == set(RESET_SCOPES["everything"])


def test_reset_of_unknown_scope_is_refused(cache):
    with pytest.raises(InputError, match="cache, stats, everything"):
        cache.reset("all")


def test_cache_works_after_reset(cache, clock):
    tick(clock, cache, "content")
    cache.reset("everything")
    assert tick(clock, cache, "content").sent == "full"
    assert cache.stats().entries == 1


def test_a_path_opens_its_own_store(settings, tmp_path):
    cache = ContentCache(tmp_path / "own.sqlite3", settings)
    cache.store("x")
    assert sqlite3.connect(tmp_path / "own.sqlite3").execute(
        "SELECT count(*) FROM cache_entries"
    ).fetchone()[0] == 1


def _has(cache: ContentCache, text: str) -> bool:
    try:
        cache.expand(content_hash(text.encode()))
    except NotFoundError:
        return False
    return True


def test_recall_scores_rare_words_first_when_a_common_word_is_everywhere(cache, clock, monkeypatch):
    import graphsvc.context.cache as cache_module

    monkeypatch.setattr(cache_module, "RECALL_SCAN", 5)
    for i in range(12):
        tick(clock, cache, f"common filler number {i}")
    rare = tick(clock, cache, "common words around the rare flamingo")
    hits = cache.recall("common flamingo", limit=5)
    assert hits[0].hash == rare.hash
    assert not hits.exhaustive and '"common"' in hits.note
    # A query of only the everywhere-word ranks the newest RECALL_SCAN matches.
    only_common = cache.recall("common", limit=50)
    assert len(only_common) == 5
    assert not only_common.exhaustive and "newest 5" in only_common.note
    newest = {content_hash(f"common filler number {i}".encode()) for i in range(8, 12)} | {rare.hash}
    assert {h.hash for h in only_common} == newest


def test_recall_is_exhaustive_within_the_scan_bound(cache, clock):
    for i in range(5):
        tick(clock, cache, f"entry about otters {i}")
    hits = cache.recall("otters")
    assert len(hits) == 5 and hits.exhaustive and hits.note is None


def test_recall_matches_folded_words_and_highlights_them(cache):
    cache.store("Le café est fermé; the CAFE reopens at noon")
    (hit,) = cache.recall("cafe")
    assert "[café]" in hit.snippet and "[CAFE]" in hit.snippet
    assert cache.recall("nonexistentword") == []
