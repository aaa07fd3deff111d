"""What every accuracy measure shares: scores, the graph reads, indexing a corpus."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_SUFFIX = re.compile(r"@\d+(?=\.|$)")


@dataclass(slots=True)
class Score:
    """Agreement of our records with an oracle over one set of keys."""

    oracle: int = 0  # keys the oracle has
    ours: int = 0  # keys we have
    found: int = 0  # oracle keys we have (recall numerator)
    confirmed: int = 0  # our keys the oracle confirms (precision numerator)

    @property
    def recall(self) -> float | None:
        return self.found / self.oracle if self.oracle else None

    @property
    def precision(self) -> float | None:
        return self.confirmed / self.ours if self.ours else None

    def to_dict(self) -> dict:
        return {"oracle": self.oracle, "ours": self.ours, "found": self.found, "confirmed": self.confirmed,
                "recall": self.recall, "precision": self.precision}


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f} %"


@dataclass(slots=True, frozen=True)
class Sym:
    file: str
    qual: str  # as stored, with @n suffixes of redefinitions
    name: str
    kind: str
    start: int
    end: int

    @property
    def base_qual(self) -> str:
        """The qualified name without redefinition suffixes: ``f@2.g`` -> ``f.g``."""
        return _SUFFIX.sub("", self.qual)


@dataclass(slots=True, frozen=True)
class CallEdge:
    src: str
    dst: str
    reason: str
    confidence: float
    line: int | None
    count: int
    external: bool


@dataclass(slots=True)
class FileState:
    skip_reason: str | None = None
    has_errors: bool = False
    note: str | None = None


@dataclass(slots=True)
class GraphView:
    """What the graph holds for one workspace, as plain records."""

    symbols: list[Sym] = field(default_factory=list)
    files: dict[str, FileState] = field(default_factory=dict)
    calls: list[CallEdge] = field(default_factory=list)


_READ_SYMBOLS = """
MATCH (s:Entity {workspace: $ws})
WHERE s:Symbol AND s.file IS NOT NULL AND NOT s:External
RETURN s.file AS file, s.qualified_name AS qual, s.name AS name, s.kind AS kind,
       s.start_line AS start, s.end_line AS end
"""

_READ_FILES = """
MATCH (f:Entity {workspace: $ws})
WHERE f:File
RETURN f.id AS id, f.skip_reason AS skip_reason, f.has_errors AS has_errors, f.parse_note AS note
"""

_READ_CALLS = """
MATCH (a:Entity {workspace: $ws})-[r:CALLS]->(b:Entity)
RETURN a.id AS src, b.id AS dst, r.reason AS reason, r.confidence AS confidence, r.line AS line,
       r.count AS count, b:External AS external
"""


def read_graph(graph, workspace: str, calls: bool = False) -> GraphView:
    view = GraphView()
    for r in graph.read(_READ_SYMBOLS, ws=workspace):
        view.symbols.append(Sym(r["file"], r["qual"], r["name"], r["kind"], r["start"], r["end"]))
    for r in graph.read(_READ_FILES, ws=workspace):
        view.files[r["id"]] = FileState(r["skip_reason"], bool(r["has_errors"]), r["note"])
    if calls:
        for r in graph.read(_READ_CALLS, ws=workspace):
            view.calls.append(CallEdge(r["src"], r["dst"], r["reason"], float(r["confidence"]), r["line"],
                                       int(r["count"] or 1), bool(r["external"])))
    return view


def index_corpus(graph, root: Path, workspace: str, exclude: list[str], cold: bool = True):
    """Index ``root`` into ``workspace`` (dropped first when ``cold``); the index-symbols summary."""
    from graphsvc.indexing.pipeline import index_symbols
    from graphsvc.indexing.workspaces import drop_workspace

    if cold:
        drop_workspace(workspace, graph, missing_ok=True)
    return index_symbols(root, workspace=workspace, graph=graph, exclude=exclude)


def file_problem(files: dict[str, FileState], path: str) -> str | None:
    """Why a file may legitimately disagree with an oracle, or None."""
    state = files.get(path)
    if state is None:
        return "file not in the graph"
    if state.skip_reason:
        return f"file skipped: {state.skip_reason}"
    if state.note and state.note.split(":")[0] not in ("invalid-utf8",):
        return f"file note: {state.note}"
    if state.has_errors:
        return "file has syntax errors for tree-sitter"
    return None


def resolve_in_process(root: Path, exclude: list[str] | None = None) -> GraphView:
    """What indexing ``root`` would write, computed without a database: for quick runs while
    working on the resolver. The figures that count come from the graph (``read_graph``)."""
    from indexers.extract import extract_file
    from indexers.languages import language_for_path
    from indexers.module_config import read_go_modules, read_js_paths
    from indexers.resolve import SymbolTable, resolve_all
    from indexers.tree import scan_tree

    scan = scan_tree(root, max_file_bytes=8 * 1024 * 1024, exclude=exclude or [])
    exts = []
    view = GraphView()
    for f in scan.files:
        spec = language_for_path(f.id) if f.skip_reason is None else None
        if spec is None:
            continue
        ext = extract_file(f.id, (scan.root / f.id).read_bytes(), spec.name)
        exts.append(ext)
        view.files[f.id] = FileState(ext.skip_reason, ext.has_errors, ext.skip_reason)
        view.symbols.extend(Sym(s.file, s.qualified_name, s.name, s.kind, s.start_line, s.end_line)
                            for s in ext.symbols)
    table = SymbolTable(exts)
    readable = [f.id for f in scan.files if f.skip_reason is None]
    table.set_js_paths(read_js_paths(scan.root, readable)[0])
    table.set_go_modules(read_go_modules(scan.root, readable)[0])
    edges, _ = resolve_all(table)
    view.calls = [CallEdge(e.src, e.dst, e.reason, e.confidence, e.line, e.count, e.dst.startswith("ext:"))
                  for e in edges if e.type == "CALLS"]
    return view
