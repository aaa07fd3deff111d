"""What the last completed symbol run saw, kept beside the graph for incremental runs.

One small SQLite file per workspace under ``<home>/index/``: each file's content hash and
extraction (as marshalled tuples: an order of magnitude faster than pickling dataclasses).
Rows are written only after the graph writes of a run have committed, together with a token
that the run also writes to the workspace node: if the two disagree (a run died between
them, the database was replaced, another machine indexed it) the next run is a full one.
A state that cannot be read is treated the same way: it is derived data. So is a state
written by another version of the indexer (`graphsvc.indexing.fingerprint`): its extractions and the
edges in the graph are what that version computed, and the next run redoes them all.

A file beside it (`tree_path`) keeps what the graph holds of the tree (each directory's and
file's size, mtime, hash, skip reason), with the token the last tree sync wrote on the
workspace node: while the two agree, a run compares the disk with these rows instead of
reading them back from Neo4j. One marshalled blob, replaced whole by a rename and never
synced to disk: SQLite's commit and checkpoint took several times longer, and a file lost
or torn by a crash only makes the next run read the rows from Neo4j. A process that wrote
the file last appends the rows a sync changed (with its token) instead of writing them all
again, until the appended records outgrow the whole.
"""

from __future__ import annotations

import hashlib
import io
import marshal
import os
import re
import sqlite3
import sys
import uuid
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, fields
from itertools import starmap
from operator import attrgetter, itemgetter
from pathlib import Path

from graphsvc.context.kept import KeptConnections, file_identity
from indexers.extract import Binding, CallRef, FileExtraction, ImportRef, InheritRef, ParamRef
from indexers.records import Encoded, SymbolRecord, packed_rows, resolution_signature

FORMAT = "7"
TREE_FORMAT = "2"

_SYM = tuple(f.name for f in fields(SymbolRecord) if f.init)
_IMP = tuple(f.name for f in fields(ImportRef))
_CALL = tuple(f.name for f in fields(CallRef))
_INH = tuple(f.name for f in fields(InheritRef))
_BIND = tuple(f.name for f in fields(Binding))
_PAR = tuple(f.name for f in fields(ParamRef))
_LISTS = ("symbols", "imports", "calls", "inherits", "values", "bindings", "params")
# Every field but the record lists; derived from the class so a new field is never dropped.
_EXT = tuple(f.name for f in fields(FileExtraction) if f.name not in _LISTS)


def _plain(value):
    # StrEnum members and other str subclasses are not marshallable.
    return str(value) if isinstance(value, str) and type(value) is not str else value


# Names repeat across files (`kfree` is called from thousands): interned here, they are
# marked so in the encoding and every decoded copy is one shared string.
_INTERNED = frozenset({"name", "receiver", "receiver_kind", "kind", "lang"})


def _row(obj, names: tuple[str, ...]) -> tuple:
    return tuple(_interned(_plain(getattr(obj, n))) if n in _INTERNED else _plain(getattr(obj, n)) for n in names)


def _interned(value):
    return sys.intern(value) if type(value) is str else value


# The reference records hold plain strings, numbers and tuples of them only (marshal refuses
# anything else, so a str subclass would fail loudly): read whole, without `_row`'s check,
# which took most of the encoding time of a file's hundreds of calls and bindings.
_imp_row, _call_row, _inh_row, _bind_row, _par_row = (attrgetter(*n) for n in (_IMP, _CALL, _INH, _BIND, _PAR))


_sym_row = attrgetter(*_SYM)
_SIGNATURE, _DOC = _SYM.index("signature"), _SYM.index("doc")
_SYM_INTERNED = tuple(i for i, n in enumerate(_SYM) if n in _INTERNED)


def _symbol_row(sym: SymbolRecord) -> tuple:
    # Only the interned fields are looked at one by one (`kind` may be a SymbolKind); marshal
    # refuses a str subclass in any other.
    row = list(_sym_row(sym))
    for i in _SYM_INTERNED:
        row[i] = _interned(_plain(row[i]))
    return tuple(row)


def _packed(records, row) -> tuple[int, bytes]:
    if isinstance(records, Encoded):  # as extraction emits them
        return records.packed()
    rows = list(map(row, records))
    return len(rows), packed_rows(rows)


def encode(ext: FileExtraction) -> bytes:
    return marshal.dumps((
        _row(ext, _EXT),
        list(map(_symbol_row, ext.symbols)),
        list(map(_imp_row, ext.imports)),
        _packed(ext.calls, _call_row),
        list(map(_inh_row, ext.inherits)),
        _packed(ext.values, _call_row),
        _packed(ext.bindings, _bind_row),
        list(map(_par_row, ext.params)),
    ))


def decode(blob: bytes, texts: bool = True) -> FileExtraction:
    """An extraction as resolution reads it: calls, values and bindings stay encoded (`Encoded`).
    Without `texts`, its symbols are as `_slim_symbol` makes them."""
    head, symbols, imports, calls, inherits, values, bindings, params = marshal.loads(blob)
    ext = FileExtraction(**dict(zip(_EXT, head)))
    ext.symbols = list(starmap(SymbolRecord, symbols)) if texts else list(map(_slim_symbol, symbols))
    ext.imports = list(starmap(ImportRef, imports))
    ext.calls = Encoded(CallRef, calls[1], calls[0])  # type: ignore[assignment]
    ext.inherits = list(starmap(InheritRef, inherits))
    ext.values = Encoded(CallRef, values[1], values[0])  # type: ignore[assignment]
    ext.bindings = Encoded(Binding, bindings[1], bindings[0])  # type: ignore[assignment]
    ext.params = list(starmap(ParamRef, params))
    return ext


def _slim_symbol(row: tuple) -> SymbolRecord:
    """A symbol as resolution reads it, for the whole run: without its doc, and its signature
    cut to what resolution reads of it (`resolution_signature`). Signature and doc took about
    120 bytes a symbol (400 MB for the Linux kernel); the writes read them from the run's
    staged extractions (`staged_symbols`)."""
    row = list(row)
    row[_SIGNATURE] = resolution_signature(row[_SIGNATURE])
    row[_DOC] = ""
    return SymbolRecord(*row)


@dataclass(slots=True)
class IndexState:
    token: str | None = None
    symbols: int = 0  # symbols in the workspace after the last run
    module_config: str | None = None  # digest of the import aliases the last run used
    indexer: str | None = None  # fingerprint of the indexer that wrote the state
    hashes: dict[str, str] = field(default_factory=dict)  # file id -> content hash
    blobs: dict[str, bytes] = field(default_factory=dict)  # file id -> encoded extraction

    def extraction(self, file_id: str, texts: bool = True) -> FileExtraction:
        """Decoded on demand (`decode`): an unchanged re-run never decodes anything."""
        return decode(self.blobs[file_id], texts)

    @staticmethod
    def new_token() -> str:
        return uuid.uuid4().hex


def full_run_reason(state: IndexState, graph_token: str | None, indexer: str) -> str | None:
    """Why a run must extract and resolve everything, or None when `state` can be trusted."""
    if state.token is None:
        return "first run" if graph_token is None else "no index state"
    if state.token != graph_token:
        return "graph changed"
    if state.indexer != indexer:
        return "indexer changed"
    return None


def state_path(home: Path, workspace: str, uri: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", workspace)[:60]
    digest = hashlib.sha256(f"{uri}\0{workspace}".encode()).hexdigest()[:12]
    return home / "index" / f"{safe}-{digest}.sqlite3"


def _open(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    # Used by one run at a time (the workspace's lock), from whichever thread runs it.
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
    conn.execute("CREATE TABLE IF NOT EXISTS files (id TEXT PRIMARY KEY, hash TEXT NOT NULL, ext BLOB NOT NULL)")
    # The rows of a run in progress (`Staging`); they become the state's when it is recorded.
    conn.execute("CREATE TABLE IF NOT EXISTS staged (id TEXT PRIMARY KEY, hash TEXT NOT NULL, ext BLOB NOT NULL)")
    return conn


def _open_or_replace(path: Path) -> sqlite3.Connection:
    try:
        return _open(path)
    except sqlite3.DatabaseError:
        # Derived data: an unreadable state file is replaced (a run that finds it so is a full one).
        path.unlink(missing_ok=True)
        return _open(path)


# Connections kept open between the runs of a process, by state file: closing the last one
# checkpoints the write-ahead log, and a one-file edit closed two. A state file is written by
# its own runs only, so a change a kept connection did not see (in WAL mode the database file
# itself changes only at checkpoints) is its removal, replacement or overwriting by something
# else: its size and last change are part of its identity.
_KEPT: KeptConnections[sqlite3.Connection] = KeptConnections(
    16, sqlite3.Connection.close, identity=lambda path: file_identity(path, content=True))


def close_kept(path: Path) -> None:
    """Close the connection kept to the state file at `path` (before it is removed)."""
    _KEPT.close(path)


def _state_db(path: Path) -> AbstractContextManager[sqlite3.Connection]:
    """A connection to the state file at `path`: the one kept from the last use while the
    file is as it left it (not removed by a drop, replaced or overwritten), kept again after
    this one unless it failed."""
    return _KEPT.use(path, lambda: _open_or_replace(path))


class Staging:
    """The encoded extractions of a run in progress, written to the state file as the parser
    processes return them instead of held until the run is recorded (the Linux kernel's
    took 1.7 GB). `save_state` makes them the state's; a run that fails leaves them
    unused, and the next run starts by removing them."""

    def __init__(self, path: Path):
        self._db = _state_db(path)
        self._conn = self._db.__enter__()
        try:
            self._conn.execute("DELETE FROM staged")
            self._conn.execute("BEGIN")
        except BaseException as exc:
            self._db.__exit__(type(exc), exc, exc.__traceback__)
            raise

    def add(self, file_id: str, content_hash: str, blob: bytes) -> None:
        self._conn.execute("INSERT OR REPLACE INTO staged (id, hash, ext) VALUES (?, ?, ?)",
                           (file_id, content_hash, blob))

    def close(self) -> None:
        """Commit what was staged (nothing of the state changes until `save_state`)."""
        try:
            if self._conn.in_transaction:
                self._conn.execute("COMMIT")
        except BaseException as exc:
            self._db.__exit__(type(exc), exc, exc.__traceback__)
            raise
        self._db.__exit__(None, None, None)

    def __enter__(self) -> Staging:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def staged_symbols(path: Path, exts: dict[str, FileExtraction]) -> Iterator[tuple]:
    """The symbols of the extractions staged for the run at `path` (`Staging`) whole, with
    signature and doc, as their fields' values in order (``SymbolRecord(*values)``); `exts`
    holds the same extractions decoded for resolution (`decode` without texts), whose ids the
    values share: a writer keeps the ids it wrote."""
    with _state_db(path) as conn:
        for fid, blob in conn.execute("SELECT id, ext FROM staged ORDER BY rowid"):
            held = exts[fid].symbols
            rows = marshal.loads(blob)[1]
            for sym, row in zip(held, rows, strict=True):
                yield (sym.id, *row[1:])


def load_state(path: Path, blobs: bool = True) -> IndexState:
    """The state of the last run; without the extractions when not `blobs` (a run that finds
    nothing changed reads no more than the hashes)."""
    try:
        if not path.exists():
            return IndexState()
        with _state_db(path) as conn:
            meta = dict(conn.execute("SELECT key, value FROM meta"))
            if meta.get("format") != FORMAT:
                return IndexState()
            state = IndexState(token=meta.get("token"), symbols=int(meta.get("symbols", 0)),
                               module_config=meta.get("module_config"), indexer=meta.get("indexer"))
            if blobs:
                for fid, h, blob in conn.execute("SELECT id, hash, ext FROM files"):
                    state.hashes[fid] = h
                    state.blobs[fid] = blob
            else:
                state.hashes = dict(conn.execute("SELECT id, hash FROM files"))
            return state
    except (sqlite3.Error, ValueError, TypeError, EOFError, OSError):
        return IndexState()


def save_state(path: Path, token: str, changed: dict[str, tuple[str, bytes]], deleted: list[str],
               full: bool, symbols: int, module_config: str | None = None, indexer: str | None = None) -> None:
    """Record a completed run: the changed files' (hash, encoded extraction), given here or
    staged (`Staging`), the deleted files, the new token."""
    with _state_db(path) as conn:
        _save(conn, token, changed, deleted, full, symbols, module_config, indexer)


def _save(conn: sqlite3.Connection, token: str, changed: dict[str, tuple[str, bytes]], deleted: list[str],
          full: bool, symbols: int, module_config: str | None, indexer: str | None) -> None:
    try:
        conn.execute("BEGIN IMMEDIATE")
        if full:
            conn.execute("DELETE FROM files")
        conn.executemany("DELETE FROM files WHERE id = ?", [(fid,) for fid in deleted])
        conn.execute("INSERT OR REPLACE INTO files (id, hash, ext) SELECT id, hash, ext FROM staged")
        conn.execute("DELETE FROM staged")
        conn.executemany(
            "INSERT OR REPLACE INTO files (id, hash, ext) VALUES (?, ?, ?)",
            [(fid, h, blob) for fid, (h, blob) in changed.items()],
        )
        conn.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                         [("format", FORMAT), ("token", token), ("symbols", str(symbols)),
                          ("module_config", module_config), ("indexer", indexer)])
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def tree_path(path: Path) -> Path:
    """Where the tree rows of the workspace whose index state is `path` are kept."""
    return path.with_name(path.name + "-tree")


def load_tree(path: Path) -> tuple[str | None, dict[str, dict]]:
    """The tree rows the last tree sync recorded (id -> the properties a sync compares), and
    the token it wrote on the workspace node; (None, {}) when there are none to trust. A
    record torn by a crash ends the file: the token before it is not the graph's."""
    try:
        data = io.BytesIO(tree_path(path).read_bytes())
        found = marshal.load(data)
        if not (isinstance(found, tuple) and len(found) == 3 and found[0] == TREE_FORMAT):
            return None, {}
        token, rows = found[1], found[2]
    except (ValueError, TypeError, EOFError, OSError):
        return None, {}
    while data.tell() < len(data.getbuffer()):
        try:
            token, changed, removed = marshal.load(data)
        except (ValueError, TypeError, EOFError):
            break
        for gone in removed:
            rows.pop(gone, None)
        rows.update(changed)
    return token, rows


# What this process last wrote of each tree file: (its inode, its size after, the size of
# the last whole record), to append to it only while nobody else has written it since.
_TREE_WRITES: dict[Path, tuple[int, int, int]] = {}


def save_tree(path: Path, token: str, rows: dict[str, dict], changed: dict[str, dict] | None = None,
              removed: Sequence[str] = ()) -> None:
    """Record the rows of the tree a sync left in the graph, with the token it wrote there;
    `changed` and `removed` (the rows a sync wrote and the ids it deleted) are appended
    instead while the file is as this process last wrote it."""
    target = tree_path(path)
    last = _TREE_WRITES.pop(target, None)
    if changed is not None and last is not None and last[1] < 2 * last[2] and _inode_size(target) == last[:2]:
        record = marshal.dumps((token, changed, list(removed)))
        with open(target, "ab") as fh:
            fh.write(record)
        _TREE_WRITES[target] = (last[0], last[1] + len(record), last[2])
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        partial.write_bytes(marshal.dumps((TREE_FORMAT, token, rows)))
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    found = _inode_size(target)
    if found is not None:
        _TREE_WRITES[target] = (*found, found[1])


def _inode_size(path: Path) -> tuple[int, int] | None:
    found = file_identity(path, content=True)
    return None if found is None else (found[1], found[2])
