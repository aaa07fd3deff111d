"""The records the indexers emit: the graph model's node and edge records (`graphsvc.model`),
under the names the indexers use. Plain data; no database in here."""

from __future__ import annotations

import marshal
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import fields
from itertools import starmap
from operator import itemgetter

from graphsvc.model import CodeEdge as EdgeRecord
from graphsvc.model import DirectoryNode as DirRecord
from graphsvc.model import FileNode as FileRecord
from graphsvc.model import SymbolNode as SymbolRecord

__all__ = [
    "DirRecord", "EdgeRecord", "Encoded", "FileRecord", "SymbolRecord", "encoded", "forget_decoded", "packed_rows",
    "resolution_signature",
]


# Rows decoded last, kept for their next readings: a file's resolution reads its calls,
# values and bindings several times over (about ten decodings a file when each reading
# decoded), and other files' now and then (the callers of a function, the fields of a type),
# which evicted a file's own rows when a few dozen lists were kept: 11,900 decodings of the
# standard library's 4,900 lists, 1.2 s of resolution's CPU. Bounded by rows (a row and a
# record built from one count one each: about 55 MB a million), and the last lists at least.
DECODED_LISTS = 32
DECODED_ROWS = 2_000_000
# blob -> [record class, its rows, the records built from them or None until read as records, rows and records kept]
_decoded: dict[bytes, list] = {}
_kept = [0]  # rows and records the lists kept hold
_FIELD_ORDER: dict[type, dict[str, int]] = {}  # record class -> field name -> position in a row


class Encoded(Sequence):
    """Records of one kind of a file (its calls, values or bindings), kept marshalled and
    compressed (`packed_rows`); the rows decoded last are kept (`DECODED_LISTS`), every
    other reading decodes them again.

    They are most of an extraction and are read while their own file resolves; other files
    look at them seldom (what callers pass for a parameter, what a type's fields hold), and
    the symbol table keeps an index of a bounded number of files' bindings. So a decoded
    extraction holds them as bytes: the Linux kernel's 4.5 M call sites and their functions'
    bindings as objects took gigabytes for the whole run, for a pass or two each. The bytes
    are compressed (zlib's fastest level): a fifth of the marshalled size, about 110 bytes
    less a symbol for two decompressions a file (the symbol table's pass, resolution's)."""

    __slots__ = ("_cls", "_blob", "_len")

    def __init__(self, cls: type, blob: bytes, length: int):
        self._cls, self._blob, self._len = cls, blob, length

    def __iter__(self) -> Iterator:
        if not self._len:
            return iter(())
        found = self._decoded()
        if found[2] is None:
            found[2] = list(starmap(self._cls, found[1]))
            found[3] += self._len
            _kept[0] += self._len
        return iter(found[2])

    def __len__(self) -> int:
        return self._len

    def rows(self) -> list[tuple]:
        """Every record as the tuple of its fields in order, without building the records:
        the loops over every call of a file read them so (a record is a frozen dataclass,
        whose construction costs more than reading the tuple)."""
        return self._decoded()[1] if self._len else []

    def columns(self, *names: str) -> list:
        """Some fields of every record, as ``attrgetter(*names)`` reads them, from the rows
        (a pass that needs a few fields of every file's records builds none)."""
        if not self._len:
            return []
        order = _FIELD_ORDER.get(self._cls)
        if order is None:
            order = _FIELD_ORDER[self._cls] = {f.name: i for i, f in enumerate(fields(self._cls))}
        return list(map(itemgetter(*(order[n] for n in names)), self._decoded()[1]))

    def _decoded(self) -> list:
        """The cache entry of these records (`_decoded`), decoded now if it was not kept."""
        blob = self._blob
        # Keyed by the blob: the records are frozen, so equal blobs may share one list.
        found = _decoded.pop(blob, None)
        if found is None or found[0] is not self._cls:
            if found is not None:
                _kept[0] -= found[3]
            found = [self._cls, unpacked_rows(blob), None, self._len]
            _kept[0] += self._len
            while len(_decoded) >= DECODED_LISTS and _kept[0] > DECODED_ROWS:
                _kept[0] -= _decoded.pop(next(iter(_decoded)))[3]
        _decoded[blob] = found  # the most recent last
        return found

    def packed(self) -> tuple[int, bytes]:
        """How many records, and their rows as `packed_rows` gives them."""
        return self._len, self._blob

    def __getitem__(self, index):
        return list(self)[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Encoded, list)):
            return list(self) == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"Encoded({list(self)!r})"


def forget_decoded() -> None:
    """Let go of every decoded list kept (at the end of a run's resolution)."""
    _decoded.clear()
    _kept[0] = 0


def encoded(cls: type, rows: list[tuple]) -> Encoded:
    """Records of ``cls`` given as rows of its fields in order, kept marshalled: what extraction
    emits for a file's calls, values and bindings, which the index state stores as they are."""
    return Encoded(cls, packed_rows(rows), len(rows))


def packed_rows(rows: list[tuple]) -> bytes:
    """Rows as `Encoded` keeps them: marshalled, then compressed at zlib's fastest level."""
    return zlib.compress(marshal.dumps(rows), 1)


def unpacked_rows(blob: bytes) -> list[tuple]:
    """The rows `packed_rows` gave ``blob`` for."""
    return marshal.loads(zlib.decompress(blob))


_STATIC = "static"


def resolution_signature(signature: str) -> str:
    """What resolution reads of a symbol's signature: whether it starts with ``static`` (a C
    definition no other file links to, `resolve.modules.include`), kept as that word alone."""
    return _STATIC if signature.lstrip().startswith(_STATIC) else ""
