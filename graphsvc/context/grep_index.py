"""The indexed files' text and symbol ranges, for `grep` (`graphsvc.query.grep`).

Derived data the indexer keeps beside the graph (`graphsvc.indexing.grep_sync`): per
workspace of a graph, each file's content hash, its text in an FTS5 trigram table and its
symbols' line ranges. The text is stored in chunks of `CHUNK_LINES` lines, the chunk's
rowid being ``file id << 16 | chunk number``: a file's chunks are one rowid range (deleted
with one range), and a hit's line follows from the chunk's rowid and the line's place in it.
Whole lines in chunks rather than one row per line, and detail=none (the index says which
chunks hold a trigram, not where): the trigram index is the part of an index run that
costs, and this is its cheapest form that still finds lines fast (`bench/grep.py`).

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
from graphsvc.settings import Settings

CHUNK_LINES = 64
_CHUNK_BITS = 16
_AUTOMERGE = 16  # FTS5's default is 4
# Text per write transaction: short enough that other writers of the store wait little.
BATCH_CHARS = 512 * 1024


def chunk_rowid(file_id: int, chunk: int) -> int:
    return file_id << _CHUNK_BITS | min(chunk, (1 << _CHUNK_BITS) - 1)


def chunk_place(rowid: int) -> tuple[int, int]:
    """The file id and the first line (1-based) of the chunk with `rowid`."""
    return rowid >> _CHUNK_BITS, (rowid & ((1 << _CHUNK_BITS) - 1)) * CHUNK_LINES + 1


def _table(workspace_id: int) -> str:
    return f"grep_text_{int(workspace_id)}"


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
# alternative, every literal (of three characters or more).
Condition = list[list[list[str]]]


def match_expression(condition: Condition) -> str:
    """`condition` as an FTS5 query over trigrams. Each trigram is quoted: FTS5's syntax ('"',
    '*', AND, '-') is then plain text."""
    def every(literals: list[str]) -> str:
        grams = sorted({lit[i:i + 3] for lit in literals for i in range(len(lit) - 2)})
        return " AND ".join('"' + g.replace('"', '""') + '"' for g in grams)

    clauses = []
    for clause in condition:
        alternatives = [every(a) for a in clause]
        clauses.append(alternatives[0] if len(alternatives) == 1 else
                       "(" + " OR ".join(f"({a})" for a in alternatives) + ")")
    return " AND ".join(clauses)


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


class GrepIndex(db.Connected):
    """The grep tables of the context store."""

    what = "the grep index"

    # -- the indexer's side ------------------------------------------------------------------

    def workspace(self, graph: str, name: str) -> GrepWorkspace | None:
        with self._read() as conn:
            row = conn.execute("SELECT id, indexer FROM grep_workspaces WHERE graph = ? AND name = ?",
                               (graph, name)).fetchone()
            if row is None:
                return None
            hashes = dict(conn.execute("SELECT path, hash FROM grep_files WHERE workspace = ?", (row["id"],)))
        return GrepWorkspace(row["id"], row["indexer"], hashes)

    def open_workspace(self, graph: str, name: str, indexer: str) -> GrepWorkspace:
        """The workspace's rows, created when missing; emptied when another indexer wrote
        them (its symbols may differ from this one's)."""
        with self._write() as conn:
            row = conn.execute("SELECT id, indexer FROM grep_workspaces WHERE graph = ? AND name = ?",
                               (graph, name)).fetchone()
            if row is None:
                ws_id = conn.execute("INSERT INTO grep_workspaces (graph, name, indexer) VALUES (?, ?, ?)",
                                     (graph, name, indexer)).lastrowid
            else:
                ws_id = row["id"]
                if row["indexer"] != indexer:
                    conn.execute(f"DROP TABLE IF EXISTS {_table(ws_id)}")
                    conn.execute("DELETE FROM grep_files WHERE workspace = ?", (ws_id,))
                    conn.execute("UPDATE grep_workspaces SET indexer = ? WHERE id = ?", (indexer, ws_id))
            conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {_table(ws_id)} "
                         "USING fts5(text, tokenize = 'trigram', detail = 'none')")
            # Kept in the table's own config (tables written before it get it here too).
            conn.execute(f"INSERT INTO {_table(ws_id)} ({_table(ws_id)}, rank) VALUES ('automerge', ?)",
                         (_AUTOMERGE,))
        found = self.workspace(graph, name)
        assert found is not None
        return found

    def write(self, workspace_id: int, files: Iterable[FileText]) -> int:
        """Replace the text and symbols of `files` (new ones are added), in batches; returns
        how many were written."""
        batch: list[FileText] = []
        size = written = 0
        for f in files:
            batch.append(f)
            size += len(f.text)
            if size >= BATCH_CHARS:
                self._write_batch(workspace_id, batch)
                written += len(batch)
                batch, size = [], 0
        if batch:
            self._write_batch(workspace_id, batch)
            written += len(batch)
        return written

    def _write_batch(self, workspace_id: int, files: list[FileText]) -> None:
        table = _table(workspace_id)
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
            conn.execute(f"DROP TABLE IF EXISTS {_table(row['id'])}")
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

    def chunks(self, workspace_id: int, condition: Condition | None) -> Iterator[tuple[int, str]]:
        """(rowid, text) of the chunks that may meet `condition` (their trigrams say so,
        case-insensitively), in rowid order, or of every chunk when None. Read lazily: the
        caller may stop early."""
        table = _table(workspace_id)
        where, args = "", ()
        if condition:
            where, args = f"WHERE {table} MATCH ?", (match_expression(condition),)
        with self._read() as conn:
            cursor = conn.execute(f"SELECT rowid, text FROM {table} {where} ORDER BY rowid", args)
            while rows := cursor.fetchmany(64):
                yield from rows

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
