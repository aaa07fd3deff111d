"""The indexed files' text and symbol ranges, for `grep` (`graphsvc.query.grep`).

Derived data the indexer keeps beside the graph (`graphsvc.indexing.grep_sync`): per
workspace of a graph, each file's content hash, its text in an FTS5 table of words and its
symbols' line ranges. The text is stored in chunks of `CHUNK_LINES` lines, the chunk's
rowid being ``file id << 16 | chunk number``: a file's chunks are one rowid range (deleted
with one range), and a hit's line follows from the chunk's rowid and the line's place in it.
Whole lines in chunks rather than one row per line, and detail=none (the index says which
chunks hold a term, not where): building the index is the part of an index run that costs,
and this is its cheapest form that still finds lines fast (`bench/grep.py`).

Words (identifiers, `graphsvc.context.grep_terms`) rather than trigrams: a trigram index
costs several times as much CPU per character to build (`docs/scaling.md`). A literal then
names whole terms, starts and ends of terms, and parts of terms; the latter two are looked
up in the workspace's vocabulary, every term its text has held in blocks of lines
(`grep_terms_<id>`, written with the text: a term of a file since deleted stays, which only
widens a lookup; blocks rather than a row per term, since Python finds a part of a term in
a few long strings much faster than SQLite tests many rows). A part of a term becomes the
shortest term prefixes holding it (`"kmalloc"*` for `alloc` in `kmalloc_array`); one that
would take more than `TERMS_AT_MOST` of them says nothing, as does a literal of separators
only: `chunks` then reads more, never fewer, chunks than match.
The table's layout is `TEXT_FORMAT`; a workspace written in another is read whole until
the next index run rewrites it.

Each write is one transaction per batch of files: a file's text, symbols and hash change
together, so every file holds one version of itself (the one its hash names). A batch's
rows go in as one JSON array per table: SQLite then builds the index without coming back to
Python (and its GIL) once per row, and FTS5 merges segments when 16 share a level rather
than 4, since an index run adds one per batch.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from graphsvc.context import db
from graphsvc.context.grep_terms import Run, caseless, runs, words
from graphsvc.settings import Settings

CHUNK_LINES = 64
_CHUNK_BITS = 16
_AUTOMERGE = 16  # FTS5's default is 4
# Text per write transaction: short enough that other writers of the store wait little.
BATCH_CHARS = 512 * 1024
# The layout of a workspace's grep tables (`grep_workspaces.format`): 1 was a trigram index,
# 2 a vocabulary of one row per term.
TEXT_FORMAT = 3
# The format of a workspace being written for the first time, whose vocabulary is made at
# the end (`GrepIndex.write`): read whole meanwhile, rewritten by a run after one that stopped.
_VOCABULARY_PENDING = -TEXT_FORMAT
_TEXT_TABLE = "USING fts5(text, tokenize = \"ascii tokenchars '_'\", detail = 'none', columnsize = 0)"
# FTS5 tests every alternative of an OR for each row it returns: past about a thousand,
# reading every chunk costs less (`bench/grep.py`).
TERMS_AT_MOST = 1024
# Terms a write call remembers having added to the vocabulary (`_NewTerms`).
_KNOWN_AT_MOST = 500_000
# The vocabulary is appended to, a block per batch (sorted inserts would rewrite most of its
# pages): each write call adds its files' terms again, and once it has grown past twice its
# characters at the last compaction plus this, the call leaves each term once.
_COMPACT_AFTER = 200_000
_BLOCK_TERMS = 4096  # terms per block of a compacted vocabulary


def chunk_rowid(file_id: int, chunk: int) -> int:
    return file_id << _CHUNK_BITS | min(chunk, (1 << _CHUNK_BITS) - 1)


def chunk_place(rowid: int) -> tuple[int, int]:
    """The file id and the first line (1-based) of the chunk with `rowid`."""
    return rowid >> _CHUNK_BITS, (rowid & ((1 << _CHUNK_BITS) - 1)) * CHUNK_LINES + 1


def _table(workspace_id: int) -> str:
    return f"grep_text_{int(workspace_id)}"


def _terms(workspace_id: int) -> str:
    return f"grep_terms_{int(workspace_id)}"


def chunks(text: str) -> list[str]:
    """`text` as the store keeps it: lines split on '\\n' only (as editors and the parser
    count them), `CHUNK_LINES` per chunk; a file's last chunk takes any lines past the
    rowid's range."""
    lines = text.split("\n")
    most = (1 << _CHUNK_BITS) - 1
    out = ["\n".join(lines[i:i + CHUNK_LINES]) for i in range(0, min(len(lines), most * CHUNK_LINES), CHUNK_LINES)]
    if len(lines) > most * CHUNK_LINES:
        out.append("\n".join(lines[most * CHUNK_LINES:]))
    return out


# What a matching chunk holds: every clause; of a clause, one of its alternatives; of an
# alternative, every literal.
Condition = list[list[list[str]]]

# An FTS5 query, or: ANYTHING (no test, every chunk may match), NOTHING (no chunk can).
Expression = str | None
ANYTHING: Expression = None
NOTHING: Expression = ""


def _all(parts: list[Expression]) -> Expression:
    if NOTHING in parts:
        return NOTHING
    parts = [p for p in parts if p]
    return None if not parts else parts[0] if len(parts) == 1 else " AND ".join(f"({p})" for p in parts)


def _any(parts: list[Expression]) -> Expression:
    if ANYTHING in parts:
        return ANYTHING
    parts = [p for p in parts if p]
    return NOTHING if not parts else parts[0] if len(parts) == 1 else " OR ".join(f"({p})" for p in parts)


def _quoted(term: str) -> str:
    # A term has no '"' (a separator): quoted, FTS5's keywords (AND, NEAR) are plain words.
    return f'"{term}"'


class _Vocabulary:
    """A condition as an FTS5 query over a workspace's terms, inside the caller's read
    transaction (the vocabulary and the text it describes are then of one moment)."""

    def __init__(self, conn, workspace_id: int, ignore_case: bool):
        self.conn, self.table, self.ignore_case = conn, _terms(workspace_id), ignore_case
        self._caseless: list[tuple[str, str]] | None = None

    def expression(self, condition: Condition) -> Expression:
        return _all([_any([_all([self._run(r) for lit in alt for r in runs(lit, self.ignore_case)])
                           for alt in clause]) for clause in condition])

    def _run(self, run: Run) -> Expression:
        if run.starts:
            items = [_quoted(run.text) + ("" if run.ends else "*")]
        else:
            prefixes = self._prefixes(run)
            if prefixes is None:
                return ANYTHING
            items = [_quoted(p) + "*" for p in prefixes]
        if self.ignore_case:
            items += [_quoted(term) for term, folded in self._caseless_terms() if run.allows(folded)]
        return " OR ".join(items)

    def _prefixes(self, run: Run) -> list[str] | None:
        """The shortest prefixes of the terms that end with (`run.ends`) or hold `run.text`,
        each up to the first place it holds it: every term with one of them holds it too.
        None when more than `TERMS_AT_MOST`."""
        text, found = run.text, set()
        needle = text + "\n" if run.ends else text  # a term ending with it is followed by a newline
        for row in self.conn.execute(f"SELECT terms FROM {self.table}"):
            block = row[0] + "\n"
            at = block.find(needle)
            while at >= 0:
                start = block.rfind("\n", 0, at) + 1
                found.add(block[start:block.find(text, start) + len(text)])
                if len(found) > 4 * TERMS_AT_MOST:
                    return None
                at = block.find(needle, block.find("\n", at + len(text) - 1))
        shortest: list[str] = []
        for prefix in sorted(found):
            if not shortest or not prefix.startswith(shortest[-1]):
                shortest.append(prefix)
        return shortest if len(shortest) <= TERMS_AT_MOST else None

    def _caseless_terms(self) -> list[tuple[str, str]]:
        """Terms holding a letter that case-insensitive matching pairs with an ASCII one."""
        if self._caseless is None:
            self._caseless = [(row[0], row[1]) for row in self.conn.execute(
                f"SELECT terms, caseless FROM {self.table} WHERE caseless IS NOT NULL")]
        return self._caseless


class _NewTerms:
    """The terms one write call has added to the vocabulary: each goes in once per call (as
    long as the call remembers it), and whether the vocabulary then holds each once."""

    def __init__(self, vocabulary_empty: bool):
        self._added: set[bytes] = set()
        self.each_once = vocabulary_empty

    def of(self, files: list[FileText]) -> set[bytes]:
        return words("\n".join(f.text for f in files)) - self._added

    def added(self, terms: set[bytes]) -> None:
        if len(self._added) + len(terms) > _KNOWN_AT_MOST:
            self._added.clear()
            self.each_once = False
        self._added |= terms


def _vocabulary_blocks(terms: list[str], caseless_terms: Iterable[str]) -> Iterator[tuple[str, str | None]]:
    """Rows of the vocabulary: `terms` in blocks of lines, then a row of its own for each
    term with a `caseless` form (found by the partial index)."""
    for start in range(0, len(terms), _BLOCK_TERMS):
        yield "\n".join(terms[start:start + _BLOCK_TERMS]), None
    for term in caseless_terms:
        form = caseless(term)
        if form is not None:
            yield term, form


@dataclass(frozen=True, slots=True)
class FileText:
    """One file's text and its symbols' (start line, end line, id, kind, qualified name)."""

    path: str
    hash: str
    text: str
    symbols: list[tuple[int, int, str, str, str]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class GrepWorkspace:
    id: int
    indexer: str | None
    hashes: dict[str, str]  # path -> content hash of the text held
    format: int  # of its tables: rows in another than `TEXT_FORMAT` are rewritten

    def current(self, indexer: str) -> bool:
        """Whether a run of `indexer` may add to these rows (else it writes them anew)."""
        return self.indexer == indexer and self.format == TEXT_FORMAT


class GrepIndex(db.Connected):
    """The grep tables of the context store."""

    what = "the grep index"

    # -- the indexer's side ------------------------------------------------------------------

    def workspace(self, graph: str, name: str) -> GrepWorkspace | None:
        with self._read() as conn:
            row = conn.execute("SELECT id, indexer, format FROM grep_workspaces WHERE graph = ? AND name = ?",
                               (graph, name)).fetchone()
            if row is None:
                return None
            hashes = dict(conn.execute("SELECT path, hash FROM grep_files WHERE workspace = ?", (row["id"],)))
        return GrepWorkspace(row["id"], row["indexer"], hashes, row["format"])

    def open_workspace(self, graph: str, name: str, indexer: str) -> GrepWorkspace:
        """The workspace's rows, created when missing; emptied when another indexer wrote
        them (its symbols may differ from this one's) or they are of another `TEXT_FORMAT`."""
        with self._write() as conn:
            row = conn.execute("SELECT id, indexer, format FROM grep_workspaces WHERE graph = ? AND name = ?",
                               (graph, name)).fetchone()
            if row is None:
                ws_id = conn.execute("INSERT INTO grep_workspaces (graph, name, indexer, format) VALUES (?, ?, ?, ?)",
                                     (graph, name, indexer, TEXT_FORMAT)).lastrowid
            else:
                ws_id = row["id"]
                if row["indexer"] != indexer or row["format"] != TEXT_FORMAT:
                    self._drop_tables(conn, ws_id)
                    conn.execute("DELETE FROM grep_files WHERE workspace = ?", (ws_id,))
                    conn.execute("UPDATE grep_workspaces SET indexer = ?, format = ?, terms_compacted = 0 "
                                 "WHERE id = ?", (indexer, TEXT_FORMAT, ws_id))
            table, terms = _table(ws_id), _terms(ws_id)
            conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {table} {_TEXT_TABLE}")
            # Kept in the table's own config (tables written before it get it here too).
            conn.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('automerge', ?)", (_AUTOMERGE,))
            conn.execute(f"CREATE TABLE IF NOT EXISTS {terms} (terms TEXT NOT NULL, caseless TEXT)")
            conn.execute(f"CREATE INDEX IF NOT EXISTS {terms}_caseless ON {terms} (caseless) "
                         "WHERE caseless IS NOT NULL")
        found = self.workspace(graph, name)
        assert found is not None
        return found

    @staticmethod
    def _drop_tables(conn, workspace_id: int) -> None:
        conn.execute(f"DROP TABLE IF EXISTS {_table(workspace_id)}")
        conn.execute(f"DROP TABLE IF EXISTS {_terms(workspace_id)}")

    def write(self, workspace_id: int, files: Iterable[FileText]) -> int:
        """Replace the text and symbols of `files` (new ones are added), in batches; returns
        how many were written.

        A workspace's first write leaves its vocabulary to SQLite: FTS5 lists the terms it
        has indexed (`fts5vocab`), once, after the last batch, where finding each batch's
        terms in Python took more of the run's interpreter than the rest of the grep index
        (the Linux kernel: about a gigabyte of text). Meanwhile the workspace is of format
        `_VOCABULARY_PENDING`: readers read its chunks whole, and a run that stops before the
        end leaves it to be written anew by the next."""
        batch: list[FileText] = []
        size = written = 0
        first = self._unwritten(workspace_id)
        terms = None if first else _NewTerms(self._vocabulary_chars(workspace_id) == 0)
        if first:
            self._set_format(workspace_id, _VOCABULARY_PENDING)
        for f in files:
            batch.append(f)
            size += len(f.text)
            if size >= BATCH_CHARS:
                self._write_batch(workspace_id, batch, terms)
                written += len(batch)
                batch, size = [], 0
        if batch:
            self._write_batch(workspace_id, batch, terms)
            written += len(batch)
        if first:
            self._vocabulary_from_index(workspace_id)
        elif written:
            self._compact_terms(workspace_id, terms.each_once)
        return written

    def _unwritten(self, workspace_id: int) -> bool:
        with self._read() as conn:
            return (conn.execute("SELECT 1 FROM grep_files WHERE workspace = ? LIMIT 1", (workspace_id,)).fetchone()
                    is None and conn.execute(f"SELECT 1 FROM {_terms(workspace_id)} LIMIT 1").fetchone() is None)

    def _set_format(self, workspace_id: int, text_format: int) -> None:
        with self._write() as conn:
            conn.execute("UPDATE grep_workspaces SET format = ? WHERE id = ?", (text_format, workspace_id))

    def _vocabulary_from_index(self, workspace_id: int) -> None:
        """Fill the empty vocabulary with the terms FTS5 holds, in blocks made by SQLite
        (terms with a non-ASCII character, few, pass through Python for their `caseless`
        form), and make the workspace's format `TEXT_FORMAT` in the same transaction."""
        vocab, terms = f"grep_vocab_{int(workspace_id)}", _terms(workspace_id)
        with self._write() as conn:
            conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{vocab} "
                         f"USING fts5vocab(main, {_table(workspace_id)}, 'row')")
            try:
                conn.execute(f"INSERT INTO {terms} (terms) SELECT group_concat(term, char(10)) FROM "
                             f"(SELECT term, (row_number() OVER (ORDER BY term) - 1) / ? AS block FROM temp.{vocab}) "
                             "GROUP BY block", (_BLOCK_TERMS,))
                # A character past ASCII takes more than one byte in UTF-8.
                odd = [row[0] for row in conn.execute(
                    f"SELECT term FROM temp.{vocab} WHERE length(term) <> length(CAST(term AS BLOB))")]
                conn.executemany(f"INSERT INTO {terms} (terms, caseless) VALUES (?, ?)", _vocabulary_blocks([], odd))
                conn.execute(f"UPDATE grep_workspaces SET format = ?, terms_compacted = "
                             f"(SELECT coalesce(sum(length(terms)), 0) FROM {terms}) WHERE id = ?",
                             (TEXT_FORMAT, workspace_id))
            finally:
                conn.execute(f"DROP TABLE IF EXISTS temp.{vocab}")

    def _write_batch(self, workspace_id: int, files: list[FileText], terms: _NewTerms | None) -> None:
        table = _table(workspace_id)
        new_terms = terms.of(files) if terms is not None else set()
        with self._write() as conn:
            self._delete(conn, workspace_id, [f.path for f in files])
            texts, symbols = [], []
            for f in files:
                file_id = conn.execute("INSERT INTO grep_files (workspace, path, hash) VALUES (?, ?, ?)",
                                       (workspace_id, f.path, f.hash)).lastrowid
                texts.extend((chunk_rowid(file_id, i), c) for i, c in enumerate(chunks(f.text)))
                symbols.extend((file_id, *s) for s in f.symbols)
            # SQLite's JSON ends a string at an escaped NUL: such chunks go in one by one.
            odd = [row for row in texts if "\0" in row[1]]
            conn.execute(f"INSERT INTO {table} (rowid, text) SELECT value ->> 0, value ->> 1 FROM json_each(?)",
                         (json.dumps([r for r in texts if "\0" not in r[1]] if odd else texts, ensure_ascii=False),))
            conn.executemany(f"INSERT INTO {table} (rowid, text) VALUES (?, ?)", odd)
            conn.execute("INSERT INTO grep_symbols (file, start_line, end_line, id, kind, qualified_name) "
                         "SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5 "
                         "FROM json_each(?)", (json.dumps(symbols, ensure_ascii=False),))
            # In the text's transaction: a reader never sees a term the vocabulary lacks.
            added = [t.decode() for t in new_terms]
            conn.executemany(f"INSERT INTO {_terms(workspace_id)} (terms, caseless) VALUES (?, ?)",
                             _vocabulary_blocks(added, (t for t in added if not t.isascii())))
        if terms is not None:
            terms.added(new_terms)

    def _vocabulary_chars(self, workspace_id: int) -> int:
        with self._read() as conn:
            return conn.execute(f"SELECT sum(length(terms)) FROM {_terms(workspace_id)}").fetchone()[0] or 0

    def _compact_terms(self, workspace_id: int, each_once: bool) -> None:
        """Record the vocabulary's size; first leave each term once, in sorted blocks, when
        appends have doubled it since it last was (`_COMPACT_AFTER`)."""
        terms = _terms(workspace_id)
        with self._read() as conn:
            kept = conn.execute("SELECT terms_compacted FROM grep_workspaces WHERE id = ?",
                                (workspace_id,)).fetchone()[0]
        if not each_once and self._vocabulary_chars(workspace_id) <= 2 * kept + _COMPACT_AFTER:
            return
        with self._write() as conn:
            if not each_once:
                held = sorted({term for row in conn.execute(f"SELECT terms FROM {terms} WHERE caseless IS NULL")
                               for term in row[0].split("\n")})
                conn.execute(f"DELETE FROM {terms}")
                conn.executemany(f"INSERT INTO {terms} (terms, caseless) VALUES (?, ?)",
                                 _vocabulary_blocks(held, (t for t in held if not t.isascii())))
            conn.execute(f"UPDATE grep_workspaces SET terms_compacted = (SELECT sum(length(terms)) FROM {terms}) "
                         "WHERE id = ?", (workspace_id,))

    def remove(self, workspace_id: int, paths: list[str]) -> None:
        """Forget files that are gone (or no longer indexed)."""
        for start in range(0, len(paths), 500):
            with self._write() as conn:
                self._delete(conn, workspace_id, paths[start:start + 500])

    @staticmethod
    def _delete(conn, workspace_id: int, paths: list[str]) -> None:
        table = _table(workspace_id)
        for path in paths:
            row = conn.execute("SELECT id FROM grep_files WHERE workspace = ? AND path = ?",
                               (workspace_id, path)).fetchone()
            if row is None:
                continue
            conn.execute(f"DELETE FROM {table} WHERE rowid BETWEEN ? AND ?",
                         (chunk_rowid(row["id"], 0), chunk_rowid(row["id"] + 1, 0) - 1))
            conn.execute("DELETE FROM grep_files WHERE id = ?", (row["id"],))  # and its symbols

    def drop(self, graph: str, name: str) -> bool:
        """Remove everything held for a workspace; False when nothing was."""
        with self._write() as conn:
            row = conn.execute("SELECT id FROM grep_workspaces WHERE graph = ? AND name = ?",
                               (graph, name)).fetchone()
            if row is None:
                return False
            self._drop_tables(conn, row["id"])
            conn.execute("DELETE FROM grep_workspaces WHERE id = ?", (row["id"],))  # files, symbols
        return True

    # -- the query's side ----------------------------------------------------------------------

    def workspace_id(self, graph: str, name: str) -> int | None:
        with self._read() as conn:
            row = conn.execute("SELECT id FROM grep_workspaces WHERE graph = ? AND name = ?", (graph, name)).fetchone()
        return None if row is None else row["id"]

    def files(self, workspace_id: int) -> dict[int, str]:
        """File id -> path."""
        with self._read() as conn:
            return dict(conn.execute("SELECT id, path FROM grep_files WHERE workspace = ?", (workspace_id,)))

    def paths(self, file_ids: Iterable[int]) -> dict[int, str]:
        ids = sorted(set(file_ids))
        with self._read() as conn:
            return dict(conn.execute(f"SELECT id, path FROM grep_files WHERE id IN ({','.join('?' * len(ids))})", ids))

    def chunks(self, workspace_id: int, condition: Condition | None,
               ignore_case: bool = False) -> Iterator[tuple[int, str]]:
        """(rowid, text) of the chunks that may meet `condition` (their terms say so; matched
        ignoring case when `ignore_case`, else ASCII case only), in rowid order, or of every
        chunk when None. Read lazily: the caller may stop early."""
        table = _table(workspace_id)
        with self._read() as conn:
            conn.execute("BEGIN")  # the vocabulary and the text of one moment
            cursor = None
            try:
                expression = ANYTHING
                if condition and conn.execute("SELECT format FROM grep_workspaces WHERE id = ?",
                                              (workspace_id,)).fetchone()[0] == TEXT_FORMAT:
                    expression = _Vocabulary(conn, workspace_id, ignore_case).expression(condition)
                if expression == NOTHING:
                    return
                where, args = ("", ()) if expression is ANYTHING else (f"WHERE {table} MATCH ?", (expression,))
                cursor = conn.execute(f"SELECT rowid, text FROM {table} {where} ORDER BY rowid", args)
                while rows := cursor.fetchmany(64):
                    yield from rows
            finally:
                if cursor is not None:
                    cursor.close()
                conn.execute("COMMIT")

    def enclosing(self, places: Iterable[tuple[int, int]]) -> dict[tuple[int, int], tuple[str, str, str]]:
        """The innermost symbol spanning each (file id, line): (id, kind, qualified name)."""
        out = {}
        with self._read() as conn:
            for file_id, line in set(places):
                row = conn.execute(
                    "SELECT id, kind, qualified_name FROM grep_symbols WHERE file = ? AND start_line <= ? "
                    "AND end_line >= ? ORDER BY start_line DESC, end_line ASC LIMIT 1",
                    (file_id, line, line)).fetchone()
                if row is not None:
                    out[file_id, line] = (row["id"], row["kind"], row["qualified_name"])
        return out

    def close(self) -> None:
        self.conn.close()


_readers = threading.local()


def reader(settings: Settings) -> GrepIndex:
    """This thread's connection for queries (a server's worker threads keep theirs): opening
    one costs more than a typical grep."""
    cached = getattr(_readers, "by_path", None)
    if cached is None:
        cached = _readers.by_path = {}
    path = db.store_path(settings)
    if path not in cached:
        cached[path] = GrepIndex(path, settings)
    return cached[path]
