"""The grep index's word lookup is a prefilter: for every pattern it must read at least the
chunks that hold a match (grep checks each candidate line itself), and it should read fewer
than all of them when the pattern names a word. Checked against the real matcher over lines
that stress where words start and end, case and non-ASCII text."""

from __future__ import annotations

import re
import sqlite3

import pytest

from graphsvc.context import grep_index
from graphsvc.context.grep_index import FileText, GrepIndex, chunk_place
from graphsvc.context.grep_terms import Run, runs, words
from graphsvc.query.grep import _matcher

# One file per line: a chunk is then a line, and a candidate a line the index lets through.
LINES = [
    "p = kmalloc_array(n, sizeof(*p));",
    "x->next = NULL;",
    "foo(bar);",
    "a.b = c.d;",
    "struct inode *inode = file_inode(file);",
    "return -ENOMEM;",
    "#define EXT4_FEATURE_COMPAT 0x0200",
    "/* TODO: later */",
    "mutex_lock(&lock); spin_lock(&other_lock);",
    "Content-Language: en",
    "straße = 'Müller'",
    "\u212aelvin = 1",  # KELVIN SIGN: str.lower() and re.IGNORECASE pair it with 'k'
    "\u0130stanbul = 2",  # CAPITAL I WITH DOT: lower() gives 'i' + U+0307
    "d\u0131sk = 3",  # DOTLESS I: re.IGNORECASE pairs it with 'i'
    "cla\u017fs = 4",  # LONG S: re.IGNORECASE pairs it with 's'
    "tab\there = 1;;",
    "x = a && b || c;",
    "NUL\0inside = 1",
    "emoji_\U0001f600_name = 5",
    "get_unaligned_le32(ptr)",
    "if (!ret) goto out;",
]

LITERALS = [
    "alloc", "kmalloc_array", "malloc_arr", "_array(", "->next", "next", "foo(bar", "a.b", "c.d;", "= c.d",
    "inode *", "*inode", "struct ino", "-ENOMEM;", "EXT4_", "0x02", "TODO:", "&lock", "_lock(",
    "lock(&", "Content-Language", "content-language", "straße", "STRASSE", "Müller", "müller", "kelvin",
    "KELVIN", "istanbul", "i\u0307stanbul", "disk", "d\u0131sk", "class", "tab\there", ";;", "->", "&&",
    "||", "*/", " = ", "\0in", "emoji_", "\U0001f600", "le32(", "goto out", "!ret", "zzz", "1",
]

REGEXES = [
    r"k\w*alloc", r"(kmalloc|vmalloc)_array", r"(?i)CONTENT-language", r"\bnext\b", r"foo\(bar\)",
    r"mutex_(un)?lock\(&", r"TODO|FIXME", r"(?i)kelvin", r"(?i)disk", r"(?i)class", r"(?i:istanbul)",
    r"x(?i:ELVIN)", r"return -E[A-Z]+;", r"\w+->\w+", r"^\s*#define", r"(?i)straSSe", r"le(16|32)\(",
]


@pytest.fixture
def store(tmp_path):
    index = GrepIndex(tmp_path / "store.db")
    ws = index.open_workspace("g", "w", "indexer")
    index.write(ws.id, [FileText(f"f{i}.c", str(i), line) for i, line in enumerate(LINES)])
    yield index, ws.id
    index.close()


def _check(index: GrepIndex, ws_id: int, pattern: str, regex: bool, ignore_case: bool) -> set[str]:
    """The candidate lines; fails when a matching line is not among them."""
    lines_of, condition, folds = _matcher(pattern, regex, ignore_case)
    files = index.files(ws_id)
    matching = {files[chunk_place(r)[0]] for r, text in index.chunks(ws_id, None) if lines_of(text)}
    candidates = {files[chunk_place(r)[0]] for r, _ in index.chunks(ws_id, condition, folds)}
    assert matching <= candidates, (pattern, regex, ignore_case, matching - candidates)
    return candidates


@pytest.mark.parametrize("ignore_case", [False, True])
@pytest.mark.parametrize("literal", LITERALS)
def test_every_line_holding_a_literal_is_a_candidate(store, literal, ignore_case):
    _check(*store, literal, False, ignore_case)


@pytest.mark.parametrize("ignore_case", [False, True])
@pytest.mark.parametrize("pattern", REGEXES)
def test_every_line_a_regex_matches_is_a_candidate(store, pattern, ignore_case):
    _check(*store, pattern, True, ignore_case)


@pytest.mark.parametrize(("pattern", "regex", "ignore_case", "expected"), [
    ("alloc", False, False, {"f0.c"}),  # inside a word
    ("->next", False, False, {"f1.c"}),  # a word's start
    ("foo(bar", False, False, {"f2.c"}),  # a word's end, then a word's start
    ("KMALLOC_ARRAY", False, True, {"f0.c"}),
    ("kelvin", False, True, {"f11.c"}),  # the KELVIN SIGN folds to 'k'
    ("disk", True, True, {"f13.c"}),  # the DOTLESS I matches 'i' in re
    ("zzz", False, False, set()),  # no word holds it: nothing is read
    (r"(kmalloc|vmalloc)_array", True, False, {"f0.c"}),
])
def test_the_words_narrow_the_candidates(store, pattern, regex, ignore_case, expected):
    assert _check(*store, pattern, regex, ignore_case) == expected


def test_punctuation_only_reads_everything(store):
    assert len(_check(*store, "->", False, False)) == len(LINES)


def test_an_infix_held_by_too_many_words_is_not_looked_up(store, monkeypatch):
    monkeypatch.setattr(grep_index, "TERMS_AT_MOST", 1)
    assert len(_check(*store, "lock", False, False)) == len(LINES)  # mutex_lock, spin_lock, ...
    assert _check(*store, "kmalloc_array", False, False) == {"f0.c"}


def test_words_are_the_terms_fts5_makes(tmp_path):
    text = "\n".join(LINES) + " ÀB_c9 x\x01y Ünïcödé\u00a0NBSP DOUBLE__UNDER \U0001f600\t"
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t {grep_index._TEXT_TABLE}")
    conn.execute("INSERT INTO t (text) VALUES (?)", (text,))
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, row)")
    assert {t.decode() for t in words(text)} == {row[0] for row in conn.execute("SELECT term FROM v")}


@pytest.mark.parametrize(("literal", "ignore_case", "expected"), [
    ("alloc", False, [Run("alloc", False, False)]),
    ("->Next", False, [Run("next", True, False)]),
    ("foo(bar", False, [Run("foo", False, True), Run("bar", True, False)]),
    (" x.y ", False, [Run("x", True, True), Run("y", True, True)]),
    ("straße(", False, [Run("straße", False, True)]),
    ("straße(", True, []),  # non-ASCII letters fold otherwise than the index does
    ("->", False, []),
])
def test_runs(literal, ignore_case, expected):
    assert runs(literal, ignore_case) == expected


def test_the_vocabulary_is_compacted_and_a_store_of_another_format_is_read_whole(store, monkeypatch):
    index, ws_id = store
    monkeypatch.setattr(grep_index, "_COMPACT_AFTER", 0)
    monkeypatch.setattr(grep_index, "_BLOCK_TERMS", 7)
    for i in range(30):  # each call adds its files' words again
        index.write(ws_id, [FileText("f0.c", str(i), LINES[0] + f" more_words{i}")])
    terms = [term for row in index.conn.execute(f"SELECT terms FROM {grep_index._terms(ws_id)} WHERE caseless IS NULL")
             for term in row[0].split("\n")]
    assert len(terms) <= 2 * len(set(terms)) and "more_words29" in terms
    assert _check(index, ws_id, "more_words", False, False) == {"f0.c"}

    index.conn.execute("UPDATE grep_workspaces SET format = 1 WHERE id = ?", (ws_id,))
    assert len(_check(index, ws_id, "more_words", False, False)) == len(LINES)
    assert not index.workspace("g", "w").current("indexer")
    reopened = index.open_workspace("g", "w", "indexer")
    assert reopened.current("indexer") and reopened.hashes == {}


def test_a_literal_in_a_word_of_a_late_batch_is_found(tmp_path, monkeypatch):
    monkeypatch.setattr(grep_index, "BATCH_CHARS", 1)  # one file per batch: terms added in steps
    index = GrepIndex(tmp_path / "store.db")
    ws = index.open_workspace("g", "w", "indexer")
    index.write(ws.id, [FileText("f0.c", "0", LINES[0])])  # the rest is not a first write
    index.write(ws.id, [FileText(f"f{i}.c", str(i), line) for i, line in enumerate(LINES) if i])
    for literal in ["alloc", "elvin", "le32", "inside"]:
        assert _check(index, ws.id, literal, False, False) != set(), literal
    assert re.search("le32", LINES[19])
    index.close()


def _vocabulary(index: GrepIndex, ws_id: int) -> tuple[set[str], set[tuple[str, str]]]:
    table = grep_index._terms(ws_id)
    plain = {term for row in index.conn.execute(f"SELECT terms FROM {table} WHERE caseless IS NULL")
             for term in row[0].split("\n")}
    odd = index.conn.execute(f"SELECT terms, caseless FROM {table} WHERE caseless IS NOT NULL")
    return plain, {tuple(row) for row in odd}


def test_a_first_write_takes_its_vocabulary_from_fts5_as_later_writes_find_it(tmp_path, monkeypatch):
    monkeypatch.setattr(grep_index, "_BLOCK_TERMS", 5)
    index = GrepIndex(tmp_path / "store.db")
    files = [FileText(f"f{i}.c", str(i), line) for i, line in enumerate(LINES)]
    first, stepwise = index.open_workspace("g", "first", "x"), index.open_workspace("g", "steps", "x")
    index.write(first.id, files)
    index.write(stepwise.id, files[:1])
    index.write(stepwise.id, files[1:])
    plain, odd = _vocabulary(index, first.id)
    assert plain == {t.decode() for t in words("\n".join(LINES))}
    assert (plain, odd) == _vocabulary(index, stepwise.id)
    assert ("\u212aelvin", "kelvin") in odd
    assert index.workspace("g", "first").current("x")
    index.close()


def test_a_first_write_that_stops_is_read_whole_and_written_anew(tmp_path, monkeypatch):
    monkeypatch.setattr(grep_index, "BATCH_CHARS", 1)  # the first file's batch commits before the failure
    index = GrepIndex(tmp_path / "store.db")
    ws = index.open_workspace("g", "w", "x")

    def files_then_a_failure():
        yield FileText("f0.c", "0", LINES[0])
        raise OSError("disk gone")

    with pytest.raises(OSError):
        index.write(ws.id, files_then_a_failure())
    assert _check(index, ws.id, "alloc", False, False) == {"f0.c"}  # read whole, still found
    assert not index.workspace("g", "w").current("x")
    assert index.open_workspace("g", "w", "x").hashes == {}
    index.close()
