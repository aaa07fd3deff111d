"""What every accuracy measure shares: scores, the graph reads, indexing a corpus."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable
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
        return ratio(self.found, self.oracle)

    @property
    def precision(self) -> float | None:
        return ratio(self.confirmed, self.ours)

    def to_dict(self) -> dict:
        return {"oracle": self.oracle, "ours": self.ours, "found": self.found, "confirmed": self.confirmed,
                "recall": self.recall, "precision": self.precision}


def ratio(part: int, whole: int) -> float | None:
    """``part / whole``, or None when there is nothing to divide by."""
    return part / whole if whole else None


# Confidence bands of our edges, and the thresholds at which precision and recall are reported.
BANDS = (("1.0", 1.0, 1.01), ("0.51-0.99", 0.51, 1.0), ("0.50", 0.5, 0.51), ("<0.5", 0.0, 0.5))
CUMULATIVE = {"confidence = 1": {"1.0"}, "confidence >= 0.51 (query default)": {"1.0", "0.51-0.99"},
              "any edge (candidates too)": {b for b, _, _ in BANDS}}


def band_of(conf: float) -> str:
    for name, lo, hi in BANDS:
        if lo <= conf < hi:
            return name
    return BANDS[-1][0]


def thresholds_of(band: str) -> list[str]:
    """The precision groups (``at <threshold>``) an edge of ``band`` counts in."""
    return [f"at {label}" for label, bands in CUMULATIVE.items() if band in bands]


def count_outcome(judged: dict[str, Score], groups: list[str], outcome: str) -> None:
    """Count one edge judged ``right``, ``wrong`` or ``not judged`` in each precision group."""
    for group in groups:
        sc = judged[group]
        if outcome != "not judged":
            sc.ours += 1
            sc.confirmed += outcome == "right"


def recall_at_thresholds(pairs: set, have_by_band: dict[str, set]) -> dict[str, dict]:
    """Recall of the oracle ``pairs`` among our edges at or above each threshold."""
    recall = {}
    for label, bands in CUMULATIVE.items():
        have = set().union(*(have_by_band[b] for b in bands))
        recall[label] = Score(oracle=len(pairs), found=len(pairs & have)).to_dict()
    return recall


def judge_by_line(at_line: dict, edge: CallEdge, target: Sym | None, band: str, definite: tuple[str, ...],
                  wrong_examples: list[str], oracle_says: Callable[[list], str]) -> str:
    """``wrong`` or ``not judged``, for an edge the oracle's pairs do not hold: wrong when the
    oracle has a definite verdict ``(name, verdict, targets)`` at the edge's call line (those
    naming the edge's target, or all on the line when none does and the oracle has a verdict
    for every one: else the edge may come from the call it has none for, `f(x)(y)` with `f` a
    parameter). A wrong edge becomes an example."""
    here = at_line.get((edge.src, edge.line), [])
    named = [v for v in here if target is not None and v[0] == target.name]
    if not named and any(v[1] not in definite for v in here):
        return "not judged"
    verdicts = [v for v in named or here if v[1] in definite]
    if not verdicts:
        return "not judged"
    add_wrong_example(wrong_examples, edge, band, oracle_says(verdicts))
    return "wrong"


def add_wrong_example(examples: list[str], edge: CallEdge, band: str, oracle_says: str) -> None:
    """Keep every wrong edge of confidence 1 and the first 60 others."""
    if band == "1.0" or len(examples) < 60:
        examples.append(f"{edge.src} -> {edge.dst} (line {edge.line}, {edge.reason} {edge.confidence:.2f}; "
                        f"{oracle_says})")


def _outcomes_by_band_reason(outcomes: Counter) -> dict[str, dict]:
    """``{(band…, reason, outcome): n}`` as ``{"band… / reason": {outcome: n}}``."""
    table: dict[str, dict] = defaultdict(dict)
    for (*band, reason, outcome), n in sorted(outcomes.items()):
        table[f"{' '.join(band)} / {reason}"][outcome] = n
    return dict(table)


def targets_report(oracle: str, caller_missing: int, target_missing: Counter) -> dict:
    """The report's figures of the oracle's call sites our graph cannot place."""
    return {"sites_whose_caller_is_not_our_symbol": caller_missing,
            f"{oracle}_targets_not_in_graph": sum(target_missing.values()),
            f"{oracle}_targets_not_in_graph_examples": [k for k, _ in target_missing.most_common(10)]}


def scores_report(judged: dict[str, Score], outcomes: Counter, pairs: set, have_by_band: dict[str, set]) -> dict:
    """The report's scores: precision by group, our edges' outcomes by band and reason, recall
    of the oracle ``pairs`` at each threshold."""
    return {"precision": {k: v.to_dict() for k, v in sorted(judged.items())},
            "edges_by_band_reason": _outcomes_by_band_reason(outcomes),
            "recall": recall_at_thresholds(pairs, have_by_band)}


def largest_first(table: dict[str, Counter]) -> dict[str, dict]:
    """Counters by key, the key with the largest total first."""
    return {k: dict(v) for k, v in sorted(table.items(), key=lambda kv: -sum(kv[1].values()))}


def receiver_form(receiver: str, this: str, name: str | None = None) -> str:
    """How a method call's receiver is written: ``call().m()``, ``x[i].m()``, ``<this>.m()``,
    ``<this>.attr.m()``, ``a.b.m()`` or ``name.m()``. ``this`` is the language's word for the
    object itself; ``name``, the dotted name the receiver ends in where that is not all of it."""
    if receiver.endswith(")"):
        return "call().m()"
    if receiver.endswith("]"):
        return "x[i].m()"
    name = receiver if name is None else name
    if name == this:
        return f"{this}.m()"
    if name.startswith(this + "."):
        return f"{this}.attr.m()"
    return "a.b.m()" if "." in name else "name.m()"


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
    # (subtype id, base id, confidence) of INHERITS edges to workspace types
    inherits: list[tuple[str, str, float]] = field(default_factory=list)
    resolver_stats: dict = field(default_factory=dict)  # the resolver's counts (in-process runs only)
    # per language: the resolver's counts of call sites and of those left unresolved (the same)
    sites_by_lang: dict[str, dict[str, int]] = field(default_factory=dict)


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


_READ_INHERITS = """
MATCH (a:Entity {workspace: $ws})-[r:INHERITS]->(b:Entity)
WHERE NOT b:External
RETURN a.id AS src, b.id AS dst, r.confidence AS confidence
"""


def read_graph(graph, workspace: str, calls: bool = False, inherits: bool = False) -> GraphView:
    view = GraphView()
    for r in graph.read(_READ_SYMBOLS, ws=workspace):
        view.symbols.append(Sym(r["file"], r["qual"], r["name"], r["kind"], r["start"], r["end"]))
    for r in graph.read(_READ_FILES, ws=workspace):
        view.files[r["id"]] = FileState(r["skip_reason"], bool(r["has_errors"]), r["note"])
    if calls:
        for r in graph.read(_READ_CALLS, ws=workspace):
            view.calls.append(CallEdge(r["src"], r["dst"], r["reason"], float(r["confidence"]), r["line"],
                                       int(r["count"] or 1), bool(r["external"])))
    if inherits:
        view.inherits = [(r["src"], r["dst"], float(r["confidence"])) for r in graph.read(_READ_INHERITS, ws=workspace)]
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


def unresolved_share(resolver_stats: dict) -> float | None:
    """Call sites the resolver left without any edge, over all call sites it saw."""
    total = resolver_stats.get("calls") or 0
    return resolver_stats.get("unresolved", 0) / total if total else None


def resolve_in_process(root: Path, exclude: list[str] | None = None) -> GraphView:
    """What indexing ``root`` would write, computed without a database: for quick runs while
    working on the resolver. The figures that count come from the graph (``read_graph``)."""
    from indexers.extract import extract_file
    from indexers.languages import language_for_path
    from indexers.module_config import read_go_modules, read_js_paths
    from indexers.resolve import SymbolTable, resolve_all
    from indexers.tree import Skip, scan_tree

    scan = scan_tree(root, max_file_bytes=8 * 1024 * 1024, exclude=exclude or [])
    exts = []
    view = GraphView()
    for f in scan.files:
        # An empty file is extracted too, as the index does: an empty `__init__.py` makes a package.
        spec = language_for_path(f.id) if f.skip_reason is None or f.skip_reason == Skip.EMPTY else None
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
    edges, stats = resolve_all(table)
    view.resolver_stats = stats.as_dict()
    lang_of = {ext.path: ext.lang for ext in exts}
    for ext in exts:
        counts = view.sites_by_lang.setdefault(ext.lang, {"calls": 0, "unresolved": 0})
        counts["calls"] += len(ext.calls)
    for site in stats.unresolved_sites:
        view.sites_by_lang[lang_of[site.id.partition("#")[0]]]["unresolved"] += site.unresolved_calls
    view.calls = [CallEdge(e.src, e.dst, e.reason, e.confidence, e.line, e.count, e.dst.startswith("ext:"))
                  for e in edges if e.type == "CALLS"]
    view.inherits = [(e.src, e.dst, e.confidence) for e in edges
                     if e.type == "INHERITS" and not e.dst.startswith("ext:")]
    return view
