"""The edges of a run, kept on disk from resolution until the writer takes them.

Edges are written once the symbols they join are (`graphsvc.indexing.pipeline`), so a run
holds every resolved edge until then: the Linux kernel's 8 M as records, then as parameter
rows, took several gigabytes. Each file's edges go to a temporary file as soon as the file
is resolved (marshalled tuples, a few tens of bytes each) and come back in batches of one
relationship type. Only the external nodes they point at stay in memory (a few thousand).
The calls each caller left unresolved (`UnresolvedCalls`, a count and the first sites as
written: about 100 B per unresolved call, over half of the kernel's 4.5 M call sites) are
spooled beside them the same way.

Edges of different files never share a source (every edge leaves the file or one of its
symbols), and a file's resolver counts the repeats of its own (`Resolver.edge`): each
(type, source, target) is one row already, as the writer wants it.
"""

from __future__ import annotations

import marshal
import tempfile
from collections.abc import Iterator

from graphsvc.model import UnresolvedCalls
from indexers.records import EdgeRecord, SymbolRecord
from indexers.resolve import external_nodes

# Rows of one relationship type handed to the writer at a time: it looks up the element
# ids of their ends per call, so a call per few batches costs nothing noticeable.
ROWS_PER_CALL = 50_000


class EdgeSpool:
    """Resolved edges, file by file, on disk; `rows()` reads them back grouped by type."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile(prefix="graphsvc-edges-")
        self._unresolved = tempfile.TemporaryFile(prefix="graphsvc-unresolved-")
        self._writing = True
        self.count = 0
        self.externals: dict[str, SymbolRecord] = {}  # the `ext:` nodes an edge points at

    def add(self, edges: list[EdgeRecord]) -> None:
        """One file's edges."""
        if not edges:
            return
        targets = {e.dst for e in edges}
        for x in external_nodes(edges):
            # Only externals an edge points at: an unreferenced one is never kept.
            if x.id in targets and x.id not in self.externals:
                self.externals[x.id] = x
        marshal.dump([(e.src, e.dst, e.type, e.prov, e.confidence, e.reason, e.line, e.count) for e in edges],
                     self._file)
        self.count += len(edges)

    def add_unresolved(self, records: list[UnresolvedCalls]) -> None:
        """One file's calls left unresolved, per caller."""
        if records:
            marshal.dump([(r.id, r.unresolved_calls, r.unresolved_sites) for r in records], self._unresolved)

    def unresolved(self) -> Iterator[UnresolvedCalls]:
        """The unresolved calls added, in order; read once, before or after `rows`."""
        for values in _chunks(self._unresolved):
            yield UnresolvedCalls(id=values[0], unresolved_calls=values[1], unresolved_sites=values[2])

    def rows(self, per_call: int = ROWS_PER_CALL) -> Iterator[tuple[str, list[EdgeRecord]]]:
        """(relationship type, edges of it), in the order they were added within a type;
        read once."""
        if not self._writing:
            raise RuntimeError("the spooled edges were read already")
        self._writing = False
        pending: dict[str, list[EdgeRecord]] = {}
        for values in _chunks(self._file):
            rows = pending.setdefault(values[2], [])
            rows.append(EdgeRecord(*values))
            if len(rows) >= per_call:
                yield values[2], rows
                pending[values[2]] = []
        for rel, rows in pending.items():
            if rows:
                yield rel, rows

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
