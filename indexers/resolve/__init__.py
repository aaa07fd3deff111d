"""Cross-file resolution: raw references of every file's extraction become graph edges.

Language-agnostic. What differs between languages is how an import string names files (a
module system, picked by ``LanguageSpec.module_system``) and a few scope facts from the
language table; the order of resolution is the same for all of them:

1. local scope, then enclosing scopes (class bodies only where the language makes members
   visible unqualified),
2. ``self``/``this`` members, through the resolved class hierarchy,
3. explicit imports (aliases, relative imports, re-exports of a package),
4. star imports, includes, the same package,
5. a unique workspace-wide definition (confidence from the language table),
6. otherwise several candidates (``reason='candidate'``, confidence ``1/k``) or nothing;
   a callee whose value is not proven but whose readable bindings name targets gets those
   as candidates (``possible``).

Confidence 1.0 is kept for certain resolutions (scope, self, explicit import). Calls on an
object of unknown type (``obj.save()``) are matched by method name only: a unique method gets
``METHOD_NAME_CONFIDENCE`` (0.5), several get candidate edges, too many are left unresolved;
all of these fall below the default query threshold.

Where things are: ``table`` (the symbol table, updated one file at a time), ``modules/``
(one module system per family of languages), ``resolver`` (one file's references),
``structure`` (what contains, imports and inherits what),
``types`` (what an expression is), ``possible`` (what it may be),
``affected`` (what an incremental run re-resolves), ``common`` (what they share).
"""

from __future__ import annotations

from typing import Iterable

from graphsvc.model import EXTERNAL_PREFIX, SymbolKind, external_module_id
from indexers.extract import FileExtraction
from indexers.languages import LANGUAGES
from indexers.records import EdgeRecord, SymbolRecord
from indexers.resolve.affected import affected_files, with_shared_sources
from indexers.resolve.common import MAX_CANDIDATES, METHOD_NAME_CONFIDENCE, ResolveStats, paused_gc
from indexers.resolve.references import iteration_calls, overrides, references, unresolved_calls
from indexers.resolve.resolver import Resolver
from indexers.resolve.structure import contains, imports, inherits
from indexers.resolve.table import SymbolTable

__all__ = [
    "MAX_CANDIDATES", "METHOD_NAME_CONFIDENCE", "ResolveStats", "SymbolTable", "affected_files", "external_nodes",
    "paused_gc", "resolve_all", "resolve_file", "with_shared_sources",
]


def resolve_file(ext: FileExtraction, table: SymbolTable, stats: ResolveStats | None = None) -> list[EdgeRecord]:
    """Edges going out of one file: CONTAINS, IMPORTS, INHERITS/IMPLEMENTS, CALLS, REFERENCES,
    OVERRIDES. The calls left unresolved are added to ``stats.unresolved_sites``.

    The table must hold every file of the workspace (including this one). External targets
    are ``ext:`` ids; ``external_nodes(edges)`` gives the nodes to create for them.
    """
    if ext.lang is None or ext.lang not in LANGUAGES:
        return []
    stats = stats if stats is not None else ResolveStats()
    # The resolver other files asked about this one, when there is one: what it answered
    # them (calls resolved while looking for a function's callers, values of names) is the
    # same here, and not computed again.
    r = table.resolvers.get(ext.path)
    if r is None:
        r = Resolver(ext, table, stats)
    r.stats = stats
    try:
        contains(r)
        imports(r)
        inherits(r)
        r.calls()
        iteration_calls(r)
        references(r)
        overrides(r)
        stats.unresolved_sites.extend(unresolved_calls(r))
        return r.records()
    finally:
        # What stays with it is the answers for other files.
        r.edges, r.missed, r.stats = {}, [], ResolveStats()


def resolve_all(table: SymbolTable, paths: Iterable[str] | None = None) -> tuple[list[EdgeRecord], ResolveStats]:
    """Resolve every file of the table (or the given paths); edges plus summed statistics."""
    stats = ResolveStats()
    edges: list[EdgeRecord] = []
    with paused_gc():
        for path in sorted(paths if paths is not None else table.files):
            ext = table.files.get(path)
            if ext is not None:
                edges.extend(resolve_file(ext, table, stats))
    return edges, stats


def external_nodes(edges: Iterable[EdgeRecord]) -> list[SymbolRecord]:
    """The ``ext:`` nodes the edges point at, to be merged by the writer."""
    out: dict[str, SymbolRecord] = {}
    for e in edges:
        dst = e.dst
        if not dst.startswith(EXTERNAL_PREFIX) or dst in out:
            continue
        body = dst[len(EXTERNAL_PREFIX) :]
        module, _, name = body.partition("#")
        if name:
            out[dst] = SymbolRecord(
                id=dst, name=name.rsplit(".", 1)[-1], qualified_name=f"{module}.{name}",
                kind=SymbolKind.EXTERNAL_SYMBOL, file="", parent=external_module_id(module),
                start_line=0, end_line=0, lang="",
            )
            mid = external_module_id(module)
            if mid not in out:
                out[mid] = _external_module(module)
        else:
            out[dst] = _external_module(module)
    return list(out.values())


def _external_module(module: str) -> SymbolRecord:
    return SymbolRecord(
        id=external_module_id(module), name=module, qualified_name=module,
        kind=SymbolKind.EXTERNAL_MODULE, file="", parent="", start_line=0, end_line=0, lang="",
    )
