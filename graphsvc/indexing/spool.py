"""The edges of a run, kept on disk from resolution until the writer takes them.

Edges are written once the symbols they join are (`graphsvc.indexing.pipeline`), so a run
holds the resolved edges until then: the Linux kernel's 8 M as records, then as parameter
rows, took several gigabytes. Each file's edges go to a temporary file as soon as the file
is resolved (marshalled tuples, a few tens of bytes each) and come back in batches of one
relationship type, in a large run while resolution goes on. Only the external nodes they
point at stay in memory (a few thousand).
The calls each caller left unresolved (`UnresolvedCalls`, a count and the first sites as
written: about 100 B per unresolved call, over half of the kernel's 4.5 M call sites) are
spooled beside them the same way.

Edges of different files never share a source (every edge leaves the file or one of its
symbols), and a file's resolver counts the repeats of its own (`Resolver.edge`): each
(type, source, target) is one row already, as the writer wants it.
"""

from __future__ import annotations

import marshal
import os
import tempfile
import threading
from collections.abc import Iterator

from graphsvc.model import EDGE_FIELDS, UnresolvedCalls, edge_values
from indexers.records import EdgeRecord, SymbolRecord
from indexers.resolve import external_nodes

# Rows of one relationship type handed to the writer at a time: it looks up the element
# ids of their ends per call, so a call per few batches costs nothing noticeable.
ROWS_PER_CALL = 50_000
_TYPE = EDGE_FIELDS.index("type")


class EdgeSpool:
    """Resolved edges, file by file, on disk; `rows()` reads them back grouped by type, and
    with ``follow`` while they are still being added (from another thread), so a large run
    writes the edges of the files resolved so far while it resolves the rest."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile(prefix="graphsvc-edges-")
        self._unresolved = tempfile.TemporaryFile(prefix="graphsvc-unresolved-")
        self._reading = False
        # What `add` has written and flushed: (offset, length, the externals first seen there).
        self._spans: list[tuple[int, int, list[SymbolRecord]]] = []
        self._end = 0
        self._added = threading.Condition()
        self._finished = False
        self._aborted = False
        self._taken: list[SymbolRecord] = []  # externals of the spans read, not yet taken
        self.count = 0
        self.externals: dict[str, SymbolRecord] = {}  # the `ext:` nodes an edge points at

    def add(self, edges: list[EdgeRecord]) -> None:
        """One file's edges."""
        if not edges:
            return
        targets = {e.dst for e in edges}
        first_seen = []
        for x in external_nodes(edges):
            # Only externals an edge points at: an unreferenced one is never kept.
            if x.id in targets and x.id not in self.externals:
                self.externals[x.id] = x
                first_seen.append(x)
        data = marshal.dumps(list(map(edge_values, edges)))
        self._file.write(data)
        self._file.flush()  # a reader takes the span from the file itself
        with self._added:
            self._spans.append((self._end, len(data), first_seen))
            self._end += len(data)
            self._added.notify_all()
        self.count += len(edges)

    def finish(self) -> None:
        """No more edges come: a following reader ends after the last."""
        with self._added:
            self._finished = True
            self._added.notify_all()

    def abort(self) -> None:
        """The run failed: a following reader stops with an error."""
        with self._added:
            self._aborted = True
            self._added.notify_all()

    def add_unresolved(self, records: list[UnresolvedCalls]) -> None:
        """One file's calls left unresolved, per caller."""
        if records:
            marshal.dump([(r.id, r.unresolved_calls, r.unresolved_sites) for r in records], self._unresolved)

    def unresolved(self) -> Iterator[UnresolvedCalls]:
        """The unresolved calls added, in order; read once, before or after `rows`, and
        only once every file is added."""
        for values in _chunks(self._unresolved):
            yield UnresolvedCalls(id=values[0], unresolved_calls=values[1], unresolved_sites=values[2])

    def take_externals(self) -> list[SymbolRecord]:
        """The external nodes first pointed at by the edges `rows` has yielded so far and not
        taken before: the writer creates them before those edges."""
        taken, self._taken = self._taken, []
        return taken

    def rows(self, per_call: int = ROWS_PER_CALL, follow: bool = False) -> Iterator[tuple[str, list[tuple]]]:
        """(relationship type, edges of it as values: `model.edge_values`), in the order they
        were added within a type; read once. With `follow`, waits for edges still to come
        until `finish` (or `abort`, which raises)."""
        if self._reading:
            raise RuntimeError("the spooled edges were read already")
        self._reading = True
        pending: dict[str, list[tuple]] = {}
        for values in self._values(follow):
            rel = values[_TYPE]
            rows = pending.setdefault(rel, [])
            rows.append(values)
            if len(rows) >= per_call:
                yield rel, rows
                pending[rel] = []
        for rel, rows in pending.items():
            if rows:
                yield rel, rows

    def _values(self, follow: bool) -> Iterator[tuple]:
        fd = self._file.fileno()
        if not follow:
            self._file.flush()
        read = 0
        while True:
            with self._added:
                while follow and read == len(self._spans) and not (self._finished or self._aborted):
                    self._added.wait()
                if self._aborted:
                    raise RuntimeError("the run stopped before its edges were all resolved")
                spans = self._spans[read:]
            if not spans:
                return
            read += len(spans)
            for offset, length, first_seen in spans:
                self._taken.extend(first_seen)
                yield from marshal.loads(os.pread(fd, length, offset))

    def close(self) -> None:
        self._file.close()
        self._unresolved.close()


def _chunks(file) -> Iterator[tuple]:
    """Every value of the lists marshalled to ``file``, from its start; closes it at the end."""
    file.flush()
    file.seek(0)
    try:
        while True:
            try:
                chunk = marshal.load(file)
            except EOFError:
                return
            yield from chunk
    finally:
        file.close()
