"""Every write the indexers make, and the communities write-back, as parameterised, batched Cypher.

Relationship types and labels in the statements come from `graphsvc.model` (never from
input); everything else travels as parameters in ``UNWIND`` batches.
"""

from __future__ import annotations

import json
import threading
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime
from enum import Enum
from typing import Any

from graphsvc import model
from graphsvc.errors import Neo4jUnavailable
from graphsvc.graph.driver import Graph
from graphsvc.graph import edge_rows
from graphsvc.graph.edge_rows import EdgeValues
from graphsvc.graph.element_ids import ElementIds
from graphsvc.graph.rows import BATCH, EXTERNAL_ROW, SYMBOL_ROW, SYMBOL_VALUES_ROW, Rows, batches, row, row_fields
from graphsvc.model import Label, Rel

# Index writes are ours, not user queries: allow them longer than the query limit (a batch
# takes seconds). A write Neo4j cannot finish fails after this plus the driver's
# STALL_GRACE_S, with a message, instead of waiting forever.
WRITE_TIMEOUT_S = 300.0

_TREE_STATE = """
MATCH (n:Entity {workspace: $ws})
WHERE n:File OR n:Directory OR n:Workspace
RETURN n.id AS id, labels(n) AS labels, n.size AS size, n.mtime_ns AS mtime_ns, n.hash AS hash,
       n.skip_reason AS skip_reason, n.lang AS lang, n.name AS name, n.root AS root,
       n.indexer AS indexer
"""

def _literal(value: object) -> str:
    """A model constant (never input) as Cypher text."""
    return json.dumps(value.value if isinstance(value, Enum) else value)


def _properties(record: type) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(property, Cypher value) of the constants and of the row values of `record`, key aside."""
    constants, values = [], []
    for f in model.stored_fields(record):
        if model.is_constant(f):
            constants.append((f.name, _literal(f.default)))
        elif f.name != "id":
            values += [(name, f"row.{f.name}") for name in (f.name, model.also(f)) if name]
    return constants, values


def _set(var: str, pairs: list[tuple[str, str]]) -> str:
    return ", ".join(f"{var}.{name} = {value}" for name, value in pairs)


def _labels(record: type) -> str:
    return ":".join(label.value for label in record.LABELS)


def created(record: type, var: str) -> str:
    """What a node of `record`'s kind gets when it is created: its labels and constants."""
    constants, _ = _properties(record)
    return f"{var}:{_labels(record)}, {_set(var, constants)}"


def merge_nodes(record: type, var: str, on_create_only: bool = False, workspace: str = "$ws") -> str:
    """MERGE each row's node by key; its labels and constants are set when it is created, its
    values every time (or then only). `workspace`: the Cypher of the nodes' workspace."""
    _, values = _properties(record)
    on_create = created(record, var) + (f", {_set(var, values)}" if on_create_only else "")
    text = f"""UNWIND $rows AS row
MERGE ({var}:{model.ENTITY} {{workspace: {workspace}, id: row.id}})
ON CREATE SET {on_create}
"""
    return text if on_create_only else text + f"SET {_set(var, values)}\n"


def _set_on(record: type, var: str, label: Label) -> str:
    """Set the row values of `record` on existing `label` nodes, found by id."""
    return f"""
UNWIND $rows AS row
MATCH ({var}:Entity {{workspace: $ws, id: row.id}}) USING INDEX SEEK {var}:Entity(workspace, id)
WHERE {var}:{label.value}
SET {_set(var, _properties(record)[1])}
"""


def _create_nodes(record: type, var: str) -> str:
    constants, values = _properties(record)
    props = ", ".join(f"{name}: {value}" for name, value in [("workspace", "$ws"), ("id", "row.id"), *constants, *values])
    return f"UNWIND $rows AS row\nCREATE ({var}:{model.ENTITY}:{_labels(record)} {{{props}}})\n"


# A tree edge is extracted, certain and read off the filesystem.
_TREE_EDGE = model.CodeEdge(src="", dst="", type=Rel.CONTAINS.value, prov=model.Prov.EXTRACTED.value)
_TREE_EDGE_PROPS = [(f.name, _literal(getattr(_TREE_EDGE, f.name))) for f in model.stored_fields(model.CodeEdge)
                    if f.name not in ("line", "count")]


def _upsert_tree_nodes(record: type) -> str:
    # Rows with a `parent` are new: the node and its CONTAINS edge are created together.
    return merge_nodes(record, "n") + f"""WITH n, row WHERE row.parent IS NOT NULL
MATCH (p:Entity {{workspace: $ws, id: row.parent}}) USING INDEX SEEK p:Entity(workspace, id)
MERGE (p)-[r:{Rel.CONTAINS.value}]->(n)
ON CREATE SET {_set("r", _TREE_EDGE_PROPS)}
"""


_UPSERT_WORKSPACE = merge_nodes(model.WorkspaceNode, "w")
_UPSERT_DIRS = _upsert_tree_nodes(model.DirectoryNode)
_UPSERT_FILES = _upsert_tree_nodes(model.FileNode)

# Deletes return the external nodes they stopped referring to: the candidates for
# `_DELETE_ORPHAN_EXTERNALS` (checking those is cheaper than a sweep of every external).
def _delete_nodes(key: str, values: str) -> str:
    return f"""
UNWIND ${values} AS value
MATCH (n:Entity {{workspace: $ws, {key}: value}}) USING INDEX SEEK n:Entity(workspace, {key})
WITH n, [(n)-->(x:External) | x.id] AS released
DETACH DELETE n
WITH released UNWIND released AS x
RETURN collect(DISTINCT x) AS released
"""


_DELETE_BY_FILE = _delete_nodes("file", "files")
_DELETE_BY_ID = _delete_nodes("id", "ids")

_SYMBOL_IDS = """
MATCH (s:Entity {workspace: $ws})
WHERE s:Symbol AND s.file IS NOT NULL
RETURN s.id AS id
"""

_UPSERT_SYMBOLS = merge_nodes(model.SymbolNode, "s") + "RETURN collect(elementId(s)) AS eids\n"

# A workspace with no symbols yet (a first index) needs no MERGE: creating each node with
# its labels and properties at once costs a fraction of a MERGE followed by SETs.
_CREATE_SYMBOLS = _create_nodes(model.SymbolNode, "s") + "RETURN collect(elementId(s)) AS eids\n"

_UPSERT_EXTERNALS = (
    merge_nodes(model.ExternalNode, "s", on_create_only=True) + "RETURN collect(elementId(s)) AS eids\n"
)

_ELEMENT_IDS = """
UNWIND $ids AS id
MATCH (n:Entity {workspace: $ws, id: id}) USING INDEX SEEK n:Entity(workspace, id)
RETURN id, elementId(n) AS eid
"""

_MARK_FILES = _set_on(model.FileParse, "f", Label.FILE)

_SET_UNRESOLVED = f"""
UNWIND $rows AS row
MATCH (n:Entity {{workspace: $ws, id: row.id}}) USING INDEX SEEK n:Entity(workspace, id)
SET {_set("n", _properties(model.UnresolvedCalls)[1])}
"""

# Resolving a file records its unresolved calls again, as it writes its outgoing edges again.
_UNRESOLVED = [name for name, _ in _properties(model.UnresolvedCalls)[1]]
_UNRESOLVED_PROPS = ", ".join(f"n.{name}" for name in _UNRESOLVED)
_CLEAR_UNRESOLVED = f"""
UNWIND $files AS file
CALL (file) {{
  MATCH (n:Entity {{workspace: $ws, file: file}}) USING INDEX SEEK n:Entity(workspace, file)
  WHERE n.{_UNRESOLVED[0]} IS NOT NULL
  REMOVE {_UNRESOLVED_PROPS}
}}
CALL (file) {{
  MATCH (n:Entity {{workspace: $ws, id: file}}) USING INDEX SEEK n:Entity(workspace, id)
  WHERE n.{_UNRESOLVED[0]} IS NOT NULL
  REMOVE {_UNRESOLVED_PROPS}
}}
"""

# An external node exists while something refers to it, as after a clean index.
_DELETE_ORPHAN_EXTERNALS = """
UNWIND $ids AS id
MATCH (x:Entity {workspace: $ws, id: id}) USING INDEX SEEK x:Entity(workspace, id)
WITH x WHERE x:External AND NOT (x)<--()
DETACH DELETE x
"""

# A full run also removes orphans that no run released (left by an older indexer).
_DELETE_ALL_ORPHAN_EXTERNALS = """
MATCH (x:External {workspace: $ws})
WHERE NOT (x)<--()
DETACH DELETE x
"""

_MARK_WORKSPACE = _set_on(model.WorkspaceIndexed, "w", Label.WORKSPACE)

# The incremental runs since the last full one, kept on the workspace for readers' caches.
MAX_LOGGED_RUNS = 20
MAX_LOGGED_FILES = 2000

_GET_RUN_LOG = """
MATCH (w:Entity {workspace: $ws, id: $id}) USING INDEX SEEK w:Entity(workspace, id)
RETURN w.symbols_token AS token, w.run_from AS run_from, w.run_file_counts AS run_file_counts,
       w.run_files AS run_files
"""

_MARK_TREE = _set_on(model.WorkspaceTreeSynced, "w", Label.WORKSPACE)

_GET_TOKENS = """
MATCH (w:Entity {workspace: $ws, id: $id}) USING INDEX SEEK w:Entity(workspace, id)
RETURN w.tree_token AS tree, w.symbols_token AS symbols, w.symbols_token AS token, w.run_from AS run_from,
       w.run_file_counts AS run_file_counts, w.run_files AS run_files
"""

_GET_WORKSPACE_TOKEN = """
MATCH (w:Entity {workspace: $ws, id: $id}) USING INDEX SEEK w:Entity(workspace, id)
RETURN w.symbols_token AS token
"""


def _delete_outgoing(rel_types: Sequence[Rel]) -> str:
    # Every edge of these types leaving the file or its symbols: resolving the file writes
    # them all again (IMPORTS to other files included; the tree's CONTAINS edges leave
    # directories, never files).
    types = "|".join(r.value for r in rel_types)
    return f"""
UNWIND $files AS file
CALL (file) {{
  MATCH (n:Entity {{workspace: $ws, file: file}})-[r:{types}]->(x) USING INDEX SEEK n:Entity(workspace, file)
  DELETE r
  RETURN collect(CASE WHEN x:External THEN x.id END) AS from_symbols
}}
CALL (file) {{
  MATCH (f:Entity {{workspace: $ws, id: file}})-[r:{types}]->(x) USING INDEX SEEK f:Entity(workspace, id)
  DELETE r
  RETURN collect(CASE WHEN x:External THEN x.id END) AS from_file
}}
WITH from_symbols + from_file AS released UNWIND released AS x
RETURN collect(DISTINCT x) AS released
"""


_EDGE_PROPS = ", ".join(f"{name}: row.{name}" for name in row_fields(model.CodeEdge))


def _create_edges(rel: Rel) -> str:
    # Endpoints come as element ids (a direct lookup, no index seek); the workspace check
    # refuses an id that another workspace's node took over meanwhile.
    return f"""
UNWIND $rows AS row
MATCH (a) WHERE elementId(a) = row.src AND a.workspace = $ws
MATCH (b) WHERE elementId(b) = row.dst AND b.workspace = $ws
CREATE (a)-[r:{rel.value} {{{_EDGE_PROPS}}}]->(b)
"""


_DELETE_CODE_EDGES = _delete_outgoing(model.CODE_RELS)
_CREATE_EDGES = {rel: _create_edges(rel) for rel in model.CODE_RELS}

# The edges of a small run, of every type in one statement: ends found by key (a run that
# sends all its writes in one transaction knows no element id of a node it creates there).
_CREATE_EDGES_BY_KEY = """
UNWIND $rows AS row
MATCH (a:Entity {workspace: $ws, id: row.src}) USING INDEX SEEK a:Entity(workspace, id)
MATCH (b:Entity {workspace: $ws, id: row.dst}) USING INDEX SEEK b:Entity(workspace, id)
""" + "".join(
    f"FOREACH (_ IN CASE WHEN row.type = '{rel.value}' THEN [1] ELSE [] END |\n"
    f"  CREATE (a)-[:{rel.value} {{{_EDGE_PROPS}}}]->(b))\n"
    for rel in model.CODE_RELS
)


def _counted(items: Iterable[Any], total: int | None) -> tuple[Iterable[Any], int]:
    """`items` and how many there are: counted by making a list of them when not given."""
    if total is not None:
        return items, total
    items = items if isinstance(items, Sequence) else list(items)
    return items, len(items)


# A write kept for `GraphWriter.commit`: it gets run(cypher, **params) -> records.
Run = Callable[..., list[dict]]
Write = Callable[[Run], None]


class GraphWriter:
    """Writes index records for one workspace.

    Symbol and edge batches go to Neo4j over `write_workers` concurrent transactions: one
    transaction leaves a core idle while Neo4j works and the driver waits (on 2 cores, two
    made symbol writes about 1.35x and edge writes 1.5-2x as fast). Their rows never depend
    on each other's: nodes have distinct ids, and a deadlock between two edge batches is
    retried by the driver (a failed batch is rolled back whole).

    A small run (a server's one-file edit) has its writes kept from `defer` to `commit` and
    sent in one transaction: a transaction per statement cost a round trip or two each, most
    of such a run's time on a loaded machine. Writes past `batch_size` rows stop the deferral.
    """

    def __init__(
        self,
        graph: Graph,
        workspace: str,
        batch_size: int = BATCH,
        write_workers: int = 1,
        progress: Callable[[int, int | None, str], None] | None = None,
    ):
        self.graph = graph
        self.ws = workspace
        self.batch_size = batch_size
        self.write_workers = max(1, write_workers)
        # progress(rows written, rows, "writing <what>: ...") after each symbol and edge batch
        self.progress = progress
        # Element ids of nodes this writer created, merged or looked up: edge endpoints.
        self._eids = ElementIds()
        # External nodes that lost a reference to a delete: orphans unless still referred to.
        self._released: set[str] = set()
        self._deferred: list[Write] | None = None  # writes kept for `commit`, while deferring
        self._deferred_rows = 0
        self._deferred_edges: list[dict] | None = None  # edge rows of the deferred edge write
        self._after_commit: list[Callable[[], None]] = []
        self._run_log: dict | None = None  # the workspace's run log as `tokens` read it
        self._open = threading.Condition()  # write transactions open now, and how many may be
        self._open_count, self._open_limit = 0, self.write_workers

    def limit_transactions(self, most: int | None) -> None:
        """Open at most `most` write transactions at once from now on (None: `write_workers`):
        two cost Neo4j 15-18 % more CPU per node than one (docs/scaling.md)."""
        with self._open:
            self._open_limit = self.write_workers if most is None else max(1, min(most, self.write_workers))
            self._open.notify_all()

    def _write_one(self, cypher: str, chunk: list[dict]) -> list[dict]:
        with self._open:
            while self._open_count >= self._open_limit:
                self._open.wait()
            self._open_count += 1
        try:
            return self.graph.write(cypher, timeout_s=WRITE_TIMEOUT_S, ws=self.ws, rows=chunk)
        finally:
            with self._open:
                self._open_count -= 1
                self._open.notify_all()

    # -- one transaction for a small run ------------------------------------------------------
    def defer(self) -> None:
        """Keep the writes from now on for `commit` (reads still go at once)."""
        if self._deferred is None:
            self._deferred, self._deferred_rows = [], 0

    @property
    def deferring(self) -> bool:
        return self._deferred is not None

    def commit(self) -> None:
        """Send the writes kept since `defer` in one transaction (retried whole on a transient
        error), stop deferring, then call what waited for them (`after_commit`)."""
        kept, self._deferred, self._deferred_edges = self._deferred, None, None
        if kept:
            def work(tx) -> None:
                def run(cypher: str, **params: Any) -> list[dict]:
                    return tx.run(cypher, ws=self.ws, **params).data()

                for write in kept:
                    write(run)

            self.graph.write_transaction(work, timeout_s=WRITE_TIMEOUT_S)
        waiting, self._after_commit = self._after_commit, []
        for call in waiting:
            call()

    def after_commit(self, call: Callable[[], None]) -> None:
        """Call `call` once the writes made so far are committed: now, unless deferring."""
        if self._deferred is None:
            call()
        else:
            self._after_commit.append(call)

    def _write(self, write: Write, rows: int = 1) -> None:
        """Run a write in a transaction of its own, or keep it while deferring; past
        `batch_size` rows kept, they are sent and the deferral ends."""
        if self._deferred is None:
            write(self._run_now)
            return
        self._deferred.append(write)
        self._deferred_rows += rows
        if self._deferred_rows > self.batch_size:
            self.commit()

    def _run_now(self, cypher: str, **params: Any) -> list[dict]:
        return self.graph.write(cypher, timeout_s=WRITE_TIMEOUT_S, ws=self.ws, **params)

    def _run_batched(self, cypher: str, key: str, rows: Iterable[Any]) -> None:
        for chunk in batches(rows, self.batch_size):
            self._write(lambda run, chunk=chunk: run(cypher, **{key: chunk}), len(chunk))

    def _delete_batched(self, cypher: str, key: str, rows: Sequence[Any]) -> None:
        """Run a delete that returns the external nodes it `released`, and remember them."""
        def delete(run: Run, chunk: list) -> None:
            for record in run(cypher, **{key: chunk}):
                self._released.update(record["released"])

        for chunk in batches(rows, self.batch_size):
            self._write(lambda run, chunk=chunk: delete(run, chunk), len(chunk))

    def _run_concurrently(
        self,
        cypher: str,
        rows: Iterable[dict],
        handle: Callable[[list[dict], list[dict]], None] | None = None,
        what: str = "rows",
        total: int | None = None,
    ) -> None:
        """Run independent ``$rows`` batches over `write_workers` transactions; `handle` gets
        each batch and its records, in batch order, on this thread. The first error is raised
        once the batches already running have ended; the others are not started. Progress
        counts the rows of `what` written so far (of ``total``, by default ``len(rows)``).

        Rows are taken from ``rows`` only as batches are sent, two per transaction ahead: a
        caller that builds them lazily never holds more than those (the Linux kernel's 8 M
        relationships as parameter dicts took gigabytes). While deferring, batches are kept."""
        if self._deferred is not None:
            for chunk in batches(rows, self.batch_size):
                self._write(lambda run, chunk=chunk: (handle or _ignore)(chunk, run(cypher, rows=chunk)), len(chunk))
            return
        total = len(rows) if total is None else total  # type: ignore[arg-type]
        self._send(((cypher, chunk, what) for chunk in batches(rows, self.batch_size)), handle, {what: total})

    def _send(self, work: Iterable[tuple[str, list[dict], str]], handle: Callable[[list[dict], list[dict]], None] | None,
              totals: dict[str, int]) -> None:
        """`_run_concurrently`'s sending: each (statement, batch, what) of `work`, taken as
        sent; progress counts the rows of each `what` against ``totals[what]``, which the
        caller may raise as it takes more."""
        ahead = 2 * self.write_workers
        pool = ThreadPoolExecutor(self.write_workers, thread_name_prefix="neo4j-writer")
        pending: deque[tuple[list[dict], str, Future]] = deque()
        done: Counter[str] = Counter()

        def finish() -> None:
            chunk, what, future = pending.popleft()
            records = future.result()
            if handle is not None:
                handle(chunk, records)
            done[what] += len(chunk)
            if self.progress is not None:
                self.progress(done[what], totals[what], f"writing {what}: {done[what]:,} of {totals[what]:,}")
            # The driver leaves a transaction's parameters in reference cycles, which only the
            # cyclic collector frees, and resolution pauses it while symbols and edges are
            # written beside it: emptied, a batch's rows go at once (kept, the Linux kernel's
            # took gigabytes until resolution ended).
            chunk.clear()

        try:
            for cypher, chunk, what in work:
                pending.append((chunk, what, pool.submit(self._write_one, cypher, chunk)))
                if len(pending) >= ahead:
                    finish()
            while pending:
                finish()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def _write_nodes(self, cypher: str, rows: Iterable[dict], what: str, total: int | None = None) -> None:
        """Run a node write that returns its nodes' element ids in row order (one record per
        batch: a record per row cost as much Python time as the rows' parameters), and
        remember them."""

        def remember(chunk: list[dict], records: list[dict]) -> None:
            eids = records[0]["eids"]
            if len(eids) != len(chunk):
                raise RuntimeError(f"a node batch of {len(chunk)} rows returned {len(eids)} element ids")
            self._eids.update(zip((row["id"] for row in chunk), eids))

        self._run_concurrently(cypher, rows, remember, what, total)

    # -- tree -------------------------------------------------------------------------------
    def tree_state(self) -> dict[str, dict]:
        return {row["id"]: row for row in self.graph.read(_TREE_STATE, ws=self.ws)}

    def upsert_workspace(self, root: str, skip_reason: str | None, indexer: str) -> None:
        """`indexer`: the fingerprint of the indexer that classified the tree's files."""
        node = model.WorkspaceNode(name=self.ws, root=root, skip_reason=skip_reason, indexer=indexer)
        self._write(lambda run: run(_UPSERT_WORKSPACE, rows=[row(node)]))

    def upsert_dirs(self, rows: Sequence[dict]) -> None:
        """`rows`: a DirectoryNode's `row` with its `parent` id when it is new, else None."""
        self._run_batched(_UPSERT_DIRS, "rows", rows)

    def upsert_files(self, rows: Sequence[dict]) -> None:
        """`rows`: a FileNode's `row` with its `parent` id when it is new, else None."""
        self._run_batched(_UPSERT_FILES, "rows", rows)

    def delete_entries(self, ids: Sequence[str]) -> None:
        """Delete files/directories, everything defined in those files, and the external
        nodes nothing refers to any more."""
        self._delete_batched(_DELETE_BY_FILE, "files", ids)
        self._delete_batched(_DELETE_BY_ID, "ids", ids)
        self.delete_orphan_externals()

    # -- symbols ----------------------------------------------------------------------------
    def symbol_ids(self) -> set[str]:
        return {row["id"] for row in self.graph.read(_SYMBOL_IDS, ws=self.ws)}

    def upsert_symbols(self, symbols: Iterable[model.SymbolNode | tuple], total: int | None = None,
                       as_values: bool = False) -> None:
        """`total`: how many `symbols` gives, for progress; with it, `symbols` is read lazily,
        a batch at a time (a list of the Linux kernel's 3.5 M symbols is not built). With
        `as_values`, each symbol is given as its fields' values in their order."""
        symbols, total = _counted(symbols, total)
        rows = map(SYMBOL_VALUES_ROW if as_values else SYMBOL_ROW, symbols)
        self._write_nodes(_UPSERT_SYMBOLS, rows, "symbols", total)

    def create_symbols(self, symbols: Iterable[model.SymbolNode | tuple], total: int | None = None,
                       as_values: bool = False) -> None:
        """Create symbols known to be new: the workspace holds no symbol with these ids.
        `total` and `as_values` as for `upsert_symbols`."""
        symbols, total = _counted(symbols, total)
        rows = map(SYMBOL_VALUES_ROW if as_values else SYMBOL_ROW, symbols)
        self._write_nodes(_CREATE_SYMBOLS, rows, "symbols", total)

    def upsert_externals(self, externals: Iterable[Any]) -> None:
        """`externals`: records with the fields of an ExternalNode."""
        self._write_nodes(_UPSERT_EXTERNALS, list(map(EXTERNAL_ROW, externals)), "external symbols")

    def delete_symbols(self, ids: Sequence[str]) -> None:
        self._delete_batched(_DELETE_BY_ID, "ids", ids)

    def delete_file_symbols(self, files: Sequence[str]) -> None:
        self._delete_batched(_DELETE_BY_FILE, "files", files)

    def delete_outgoing_code_edges(self, files: Sequence[str]) -> None:
        """Remove every code edge leaving these files and their symbols, and the unresolved
        calls recorded on them."""
        self._delete_batched(_DELETE_CODE_EDGES, "files", files)
        self._run_batched(_CLEAR_UNRESOLVED, "files", files)

    def create_edges(self, rel: Rel, edges: Sequence[model.CodeEdge | EdgeValues]) -> None:
        """Create edges of type `rel`; an edge whose endpoint does not exist is skipped."""
        self.create_edge_stream([(rel, edges)])

    def create_edge_stream(self, calls: Iterable[tuple[Rel, Sequence[model.CodeEdge | EdgeValues]]]) -> None:
        """`create_edges` for each (type, edges) of `calls`, taken as needed, their batches
        sent without a pause between two calls (waiting for a call's last batches before the
        next left a transaction idle, 160 times over the Linux kernel's edges). Edges are
        records or, as a large run keeps them, their values (`graphsvc.graph.edge_rows`)."""
        if self._deferred is not None:
            for rel, edges in calls:
                self._defer_edges(rel, edge_rows.values_of(edges))
            return

        totals: Counter[str] = Counter()

        def work() -> Iterator[tuple[str, list[dict], str]]:
            for rel, edges in calls:
                values = edge_rows.values_of(edges)
                self._look_up(edge_rows.ends(values))
                count, rows = edge_rows.keyed_rows(self._eids, values)
                what = f"{rel.value} edges"
                totals[what] += count
                for chunk in batches(rows, self.batch_size):
                    yield _CREATE_EDGES[rel], chunk, what

        self._send(work(), None, totals)

    def _look_up(self, node_ids: set[str]) -> None:
        """Learn the element ids of those nodes this writer has not written or seen."""
        for chunk in batches(sorted(self._eids.absent(node_ids)), self.batch_size):
            found = self.graph.read(_ELEMENT_IDS, timeout_s=WRITE_TIMEOUT_S, ws=self.ws, ids=chunk)
            self._eids.update((f["id"], f["eid"]) for f in found)

    def _defer_edges(self, rel: Rel, edges: list[EdgeValues]) -> None:
        """Keep the edges for one statement that creates those of every type, kept at the
        place of the first."""
        if self._deferred_edges is None:
            kept = self._deferred_edges = []

            def create(run: Run) -> None:
                for chunk in batches(kept, self.batch_size):
                    run(_CREATE_EDGES_BY_KEY, rows=chunk)

            self._write(create, 0)
        self._deferred_edges.extend(edge_rows.typed_rows(rel.value, edges))
        self._deferred_rows += len(edges)
        if self._deferred_rows > self.batch_size:
            self.commit()

    def set_unresolved_calls(self, records: Iterable[model.UnresolvedCalls]) -> None:
        self._run_batched(_SET_UNRESOLVED, "rows", map(row, records))

    def mark_files(self, parses: Iterable[model.FileParse]) -> None:
        self._run_batched(_MARK_FILES, "rows", [row(p) for p in parses])

    def delete_orphan_externals(self, everywhere: bool = False) -> None:
        """Delete the external nodes the deletes so far released that nothing refers to now
        (`everywhere`: every such node of the workspace)."""
        def delete(run: Run) -> None:
            released, self._released = sorted(self._released), set()
            for chunk in batches(released, self.batch_size):
                run(_DELETE_ORPHAN_EXTERNALS, ids=chunk)
            if everywhere:
                run(_DELETE_ALL_ORPHAN_EXTERNALS)

        # Kept, it reads what the deletes before it released when it runs.
        if self._deferred is None:
            delete(self._run_now)
        else:
            self._write(delete)

    def tokens(self) -> tuple[str | None, str | None]:
        """The workspace's tree token and symbols token, in one read (None, None: no workspace)."""
        rows = self.graph.read(_GET_TOKENS, ws=self.ws, id=model.WORKSPACE_ID)
        self._run_log = rows[0] if rows else {}
        return (rows[0]["tree"], rows[0]["symbols"]) if rows else (None, None)

    def set_tree_token(self, token: str | None) -> None:
        synced = row(model.WorkspaceTreeSynced(tree_token=token))
        self._write(lambda run: run(_MARK_TREE, rows=[synced]))

    def symbols_token(self) -> str | None:
        rows = self.graph.read(_GET_WORKSPACE_TOKEN, ws=self.ws, id=model.WORKSPACE_ID)
        return rows[0]["token"] if rows else None

    def set_symbols_token(self, token: str | None, rewritten: list[str] | None = None) -> None:
        """Record that the graph matches index state `token`, as of now; `rewritten`: the files
        whose calls were resolved again since the token before (None: all of them), added to
        the log of recent runs that readers apply to what they read before."""
        log = {"run_from": None, "run_file_counts": None, "run_files": None}
        if rewritten is not None:
            before = self._logged_runs()
            if before.get("token") is not None:
                starts = [*(before.get("run_from") or []), before["token"]][-MAX_LOGGED_RUNS:]
                counts = [*(before.get("run_file_counts") or []), len(rewritten)][-MAX_LOGGED_RUNS:]
                files = [*(before.get("run_files") or []), *rewritten][-sum(counts):] if sum(counts) else []
                if len(files) <= MAX_LOGGED_FILES:
                    log = {"run_from": starts, "run_file_counts": counts, "run_files": files}
        indexed = row(model.WorkspaceIndexed(symbols_token=token, indexed_at=datetime.now(UTC), **log))
        self._write(lambda run: run(_MARK_WORKSPACE, rows=[indexed]))

    def _logged_runs(self) -> dict:
        """The run log as `tokens` read it (only a symbol run, which holds the workspace's
        lock, changes it), or else read now."""
        if self._run_log is not None:
            return self._run_log
        rows = self.graph.read(_GET_RUN_LOG, ws=self.ws, id=model.WORKSPACE_ID)
        return rows[0] if rows else {}


def _ignore(chunk: list[dict], records: list[dict]) -> None:
    return None



# --- communities -------------------------------------------------------------------------

# The stored partition as it is now: each member's element id, id and community number.
_STORED_MEMBERSHIP = f"""
MATCH (c:{model.Label.COMMUNITY.value}:{model.ENTITY} {{workspace: $ws}})
RETURN [(c)<-[:{Rel.MEMBER_OF.value}]-(n) | [elementId(n), n.id, c.community]] AS members
"""

# Taken first: a second write-back of the workspace (from any process) waits for this one's
# commit, then reads the partition it left. Setting and removing a property locks the node
# without changing it.
_LOCK_WORKSPACE = """
MATCH (w:Entity {workspace: $ws, id: $id}) USING INDEX SEEK w:Entity(workspace, id)
SET w.communities_lock = true
REMOVE w.communities_lock
"""

_UPSERT_COMMUNITIES = merge_nodes(model.CommunityNode, "c")

_DROP_COMMUNITIES = f"""
MATCH (c:{model.Label.COMMUNITY.value}:{model.ENTITY} {{workspace: $ws}}) WHERE NOT c.id IN $keep
DETACH DELETE c
"""

# Members that changed community (or left every community: `cid` null) move in one pass; a
# node deleted (or replaced) since the graph was fetched no longer matches its row.
_MOVE_MEMBERS = f"""
UNWIND $rows AS row
MATCH (n) WHERE elementId(n) = row.eid AND n.workspace = $ws AND n.id = row.id
CALL (n) {{
  MATCH (n)-[old:{Rel.MEMBER_OF.value}]->(:{model.Label.COMMUNITY.value})
  DELETE old
}}
SET n.community = row.n
WITH n, row WHERE row.cid IS NOT NULL
MATCH (c:Entity {{workspace: $ws, id: row.cid}}) USING INDEX SEEK c:Entity(workspace, id)
CREATE (n)-[:{Rel.MEMBER_OF.value} {{prov: '{model.Prov.INFERRED.value}', confidence: 1.0,
  reason: '{model.Reason.LEIDEN.value}'}}]->(c)
"""

# One write-back per workspace at a time in this process, so they queue here rather than on
# Neo4j's lock (which still orders write-backs from other processes).
_COMMUNITY_LOCKS: dict[str, threading.Lock] = {}
_COMMUNITY_LOCKS_GUARD = threading.Lock()


def write_communities(
    graph: Graph,
    workspace: str,
    communities: list[model.CommunityNode],
    members: list[dict],
    timeout_s: float,
    batch: int = 10_000,
) -> None:
    """Make the stored partition the given one, in one transaction, touching only what changed.

    `members`: rows {eid, id, cid, n}. Readers see the previous partition or this one, never
    a mix. Community nodes are keyed by number, so a member whose number is unchanged keeps
    its edge.
    """
    rows = [row(c) for c in communities]
    with _COMMUNITY_LOCKS_GUARD:
        lock = _COMMUNITY_LOCKS.setdefault(workspace, threading.Lock())
    if not lock.acquire(timeout=timeout_s):
        raise Neo4jUnavailable(
            f"another community write-back of workspace {workspace!r} has not finished in "
            f"{timeout_s:g} s: Neo4j is overloaded or stuck; retry later"
        )
    try:
        graph.write_transaction(
            lambda tx: _write_partition(tx, workspace, rows, members, batch), timeout_s=timeout_s
        )
    finally:
        lock.release()


def _write_partition(tx, workspace: str, communities: list[dict], members: list[dict], batch: int) -> None:
    tx.run(_LOCK_WORKSPACE, ws=workspace, id=model.WORKSPACE_ID).consume()
    stored = tx.run(_STORED_MEMBERSHIP, ws=workspace).data()
    before = {eid: (ident, n) for row in stored for eid, ident, n in row["members"]}
    moves = [m for m in members if before.pop(m["eid"], (None, None))[1] != m["n"]]
    moves.extend({"eid": eid, "id": ident, "cid": None, "n": None} for eid, (ident, _) in before.items())
    for i in range(0, len(communities), batch):
        tx.run(_UPSERT_COMMUNITIES, rows=Rows(communities[i : i + batch]), ws=workspace).consume()
    for i in range(0, len(moves), batch):
        tx.run(_MOVE_MEMBERS, rows=Rows(moves[i : i + batch]), ws=workspace).consume()
    tx.run(_DROP_COMMUNITIES, ws=workspace, keep=[c["id"] for c in communities]).consume()


__all__ = ["GraphWriter", "batches", "created", "merge_nodes", "row", "write_communities"]
