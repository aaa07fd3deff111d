"""`callers`, `callees` and `callPath`: walks along CALLS that say how complete they are.

Every CALLS edge says how it was resolved; by default the walks follow all but candidate
guesses (`reason` candidate: one of k same-named targets), at any confidence. Each answer also
says what the graph does not know: the calls of the target's name left unresolved (callers),
the ref's own unresolved calls (callees), where a chain of calls stops (callPath).
"""

from __future__ import annotations

import re
import threading

from graphsvc.errors import InputError
from graphsvc.graph import code_reads
from graphsvc.graph.code_reads import MAX_CALL_HOPS
from graphsvc.graph.driver import Graph, get_graph
from graphsvc.query.arguments import confidence_floor, resolve_scope, result_limit
from graphsvc.query.results import (
    CalleesResult,
    CallersResult,
    CallPathResult,
    CallSite,
    DepthCount,
    FrontierEntry,
    SymbolMatch,
    UnresolvedSite,
)
from graphsvc.query.symbols import resolve

DEFAULT_LIMITS = {"calls": 30, "frontier": 10, "unresolved": 5}
MAX_CALL_DEPTH = 5
LEVEL_CAP = 5000  # edges read per level of a walk
FRONTIER_CAP = 2000  # entities a call path's frontier is looked for among
SHOWN_PER_ENTRY = 3
# The name a call as written calls: `x.y.name()` -> name.
_CALLED_NAME = re.compile(r"([A-Za-z_$][\w$]*)\s*\(\)\s*$")
_SITE = re.compile(r"^(\d+):\s*(.*)$")


def _check(workspace: str, depth: int, min_confidence: float | None) -> tuple[str, float]:
    if not 1 <= depth <= MAX_CALL_DEPTH:
        raise InputError(f"depth must be 1..{MAX_CALL_DEPTH}, got {depth}")
    floor = 0.0 if min_confidence is None else confidence_floor(min_confidence)
    return resolve_scope(workspace).workspace, floor


def _match(node: dict) -> SymbolMatch:
    return SymbolMatch(id=node["id"], kind=node.get("kind"), file=node.get("file") or node.get("path"),
                       line=node.get("start_line"), match=node["match"])


def _walk(graph: Graph, ws: str, node: dict, depth: int, outgoing: bool, floor: float, candidates: bool, limit: int):
    """Sites of the walk (the first `limit`), counts per depth, total, truncated."""
    levels = code_reads.call_levels(graph, ws, node["eid"], depth, outgoing, floor, candidates, limit, LEVEL_CAP)
    sites = [
        CallSite(caller=row["caller"], callee=row["callee"], kind=row["kind"], file=row["file"], line=row["line"],
                 count=row["count"], reason=row["reason"], confidence=row["confidence"], depth=d)
        for d, level in enumerate(levels, start=1) for row in level["rows"]
    ]
    by_depth = [DepthCount(depth=d, count=level["total"]) for d, level in enumerate(levels, start=1)]
    total = sum(level["total"] for level in levels)
    cut = any(level["cut"] for level in levels[:-1])
    return sites, by_depth, total, cut or total > len(sites)


def _site(caller: str, file: str | None, recorded: str) -> UnresolvedSite:
    m = _SITE.match(recorded)
    return UnresolvedSite(caller=caller, file=file, line=int(m[1]) if m else None, text=m[2] if m else recorded)


class _UnresolvedIndex:
    """A workspace's recorded unresolved calls by the name they call, as of one symbols token,
    kept by file so that a run which resolved a few files again is applied by reading only
    those."""

    def __init__(self, token: str | None) -> None:
        self.token = token
        self._by_file: dict[str, list[tuple[str, UnresolvedSite]]] = {}
        self._by_name: dict[str, dict[str, list[UnresolvedSite]]] = {}

    def replace(self, files: list[str] | None, rows: list[dict], token: str | None) -> None:
        """Forget what `files` held (every file when None) and add `rows` instead."""
        if files is None:
            self._by_file, self._by_name = {}, {}
        for f in files or ():
            for name, _ in self._by_file.pop(f, ()):
                self._by_name.get(name, {}).pop(f, None)
        for row in rows:
            for recorded in row["sites"] or []:
                site = _site(row["id"], row["file"], recorded)
                m = _CALLED_NAME.search(site.text)
                if m:
                    self._by_file.setdefault(row["file"], []).append((m[1], site))
                    self._by_name.setdefault(m[1], {}).setdefault(row["file"], []).append(site)
        self.token = token

    def get(self, name: str, default: list | tuple = ()) -> list[UnresolvedSite]:
        """The recorded calls of `name`, by file and line."""
        with _UNRESOLVED_LOCK:
            by_file = self._by_name.get(name)
            sites = [s for file_sites in by_file.values() for s in file_sites] if by_file else None
        if not sites:
            return list(default)
        return sorted(sites, key=lambda s: (s.file or "", s.line or 0))

    def names(self) -> set[str]:
        with _UNRESOLVED_LOCK:
            return {name for name, by_file in self._by_name.items() if by_file}


# (graph uri, workspace) -> its unresolved calls as of a symbols token; the lock keeps the
# server's request threads from reading an index while another applies a run to it.
_UNRESOLVED: dict[tuple[str, str], _UnresolvedIndex] = {}
_UNRESOLVED_LOCK = threading.Lock()


def unresolved_by_name(graph: Graph, ws: str, token: str | None = None) -> _UnresolvedIndex:
    """Every recorded unresolved call of the workspace by the name it calls (`.get(name)`).
    Reading them all costs more than a walk, so they are kept, and after a symbol index run
    (only those write them) only the files the runs since the token kept here resolved again
    are read, as the workspace's log of recent runs lists them. `token`: the workspace's symbols token, when known (`resolve`
    gives it)."""
    key = (graph.uri, ws)
    token = token or code_reads.symbols_token(graph, ws)
    with _UNRESOLVED_LOCK:
        kept = _UNRESOLVED.get(key)
        if kept is not None and token is not None and kept.token == token:
            return kept
        if kept is not None and kept.token is not None:
            now, files = code_reads.files_since(graph, ws, kept.token)
            if now == token and files is not None:
                kept.replace(files, code_reads.unresolved_sites(graph, ws, files=files), token)
                return kept
        fresh = _UnresolvedIndex(token)
        fresh.replace(None, code_reads.unresolved_sites(graph, ws), token)
        _UNRESOLVED[key] = fresh
        return fresh


def callers(
    ref: str,
    *,
    workspace: str,
    depth: int = 1,
    min_confidence: float | None = None,
    include_candidates: bool = False,
    limit: int | None = None,
    graph: Graph | None = None,
) -> CallersResult:
    """Who calls `ref`, to `depth` levels (1-5): one row per calling entity and callee, with the
    first call's line, counts per depth, and how many calls of `ref`'s name the index left
    unresolved. Candidate guesses only with `include_candidates`; `min_confidence` (default
    any) applies to the rest."""
    ws, floor = _check(workspace, depth, min_confidence)
    limit = result_limit(limit, DEFAULT_LIMITS["calls"])
    graph = graph or get_graph()
    node = resolve(graph, ws, ref)
    sites, by_depth, total, truncated = _walk(graph, ws, node, depth, False, floor, include_candidates, limit)
    unresolved = unresolved_by_name(graph, ws, node["token"]).get(node["name"], []) if node.get("name") else []
    return CallersResult(
        target=_match(node), depth=depth, sites=sites, by_depth=by_depth, total=total, truncated=truncated,
        limit=limit, unresolved_sites=len(unresolved), unresolved=unresolved[: DEFAULT_LIMITS["unresolved"]],
    )


def callees(
    ref: str,
    *,
    workspace: str,
    depth: int = 1,
    min_confidence: float | None = None,
    include_candidates: bool = False,
    limit: int | None = None,
    graph: Graph | None = None,
) -> CalleesResult:
    """What `ref` calls, to `depth` levels (1-5), as `callers`; and its own calls the index could
    not resolve, by line and text as written."""
    ws, floor = _check(workspace, depth, min_confidence)
    limit = result_limit(limit, DEFAULT_LIMITS["calls"])
    graph = graph or get_graph()
    node = resolve(graph, ws, ref)
    sites, by_depth, total, truncated = _walk(graph, ws, node, depth, True, floor, include_candidates, limit)
    file = node.get("file") or node.get("path")
    return CalleesResult(
        source=_match(node), depth=depth, sites=sites, by_depth=by_depth, total=total, truncated=truncated,
        limit=limit, unresolved_calls=node.get("unresolved_calls") or 0,
        unresolved=[_site(node["id"], file, s) for s in node.get("unresolved_sites") or []],
    )


def call_path(
    source: str,
    target: str,
    *,
    workspace: str,
    max_hops: int = 6,
    min_confidence: float | None = None,
    include_candidates: bool = False,
    limit: int | None = None,
    graph: Graph | None = None,
) -> CallPathResult:
    """The shortest chain of calls from `source` to `target` (directed, at most `max_hops`,
    1-10). When there is none, the frontier: the entities the calls from `source` reach that
    have unresolved calls or calls the filters left out, nearest first."""
    if not 1 <= max_hops <= MAX_CALL_HOPS:
        raise InputError(f"maxHops must be 1..{MAX_CALL_HOPS}, got {max_hops}")
    ws, floor = _check(workspace, 1, min_confidence)
    limit = result_limit(limit, DEFAULT_LIMITS["frontier"])
    graph = graph or get_graph()
    a = resolve(graph, ws, source, "from")
    b = resolve(graph, ws, target, "to")
    common = {"source": _match(a), "target": _match(b), "max_hops": max_hops}
    if a["eid"] == b["eid"]:
        return CallPathResult(**common, found=True, steps=[], reached=0, frontier=[], frontier_total=0, truncated=False)
    path = code_reads.call_path(graph, a["eid"], b["eid"], max_hops, floor, include_candidates)
    if path is not None:
        ids = path["ids"]
        steps = [
            CallSite(caller=ids[i], callee=ids[i + 1], kind=path["kinds"][i + 1], file=e["file"], line=e["line"], count=e["count"],
                     reason=e["reason"], confidence=e["confidence"], depth=i + 1)
            for i, e in enumerate(path["edges"])
        ]
        return CallPathResult(**common, found=True, steps=steps, reached=0, frontier=[], frontier_total=0,
                              truncated=False)
    frontier, reached = _frontier(graph, ws, a, max_hops, floor, include_candidates)
    return CallPathResult(**common, found=False, steps=[], reached=reached, frontier=frontier[:limit],
                          frontier_total=len(frontier), truncated=len(frontier) > limit)


def _frontier(graph: Graph, ws: str, start: dict, hops: int, floor: float, candidates: bool):
    """Entities reached from `start` that have unresolved or left-out calls, nearest first,
    and how many were reached."""
    levels = code_reads.call_levels(graph, ws, start["eid"], hops - 1, True, floor, candidates, 0, LEVEL_CAP)
    depth_of = {start["eid"]: 0}
    for d, level in enumerate(levels, start=1):
        for eid in level["eids"]:
            depth_of.setdefault(eid, d)
    eids = sorted(depth_of, key=depth_of.get)[:FRONTIER_CAP]
    entries = []
    for row in code_reads.reached(graph, eids, floor, candidates):
        eid = row["eid"]
        if row["unresolved_calls"] or row["skipped"]:
            entries.append(FrontierEntry(
                id=row["id"], depth=depth_of[eid], unresolved_calls=row["unresolved_calls"],
                unresolved=row["unresolved_sites"][:SHOWN_PER_ENTRY], skipped=sorted(row["skipped"])[:SHOWN_PER_ENTRY],
            ))
    entries.sort(key=lambda e: (e.depth, -(e.unresolved_calls + len(e.skipped)), e.id))
    return entries, len(depth_of) - 1
