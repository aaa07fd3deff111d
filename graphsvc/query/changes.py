"""`changes`: what a change touches and what depends on it, before it is committed or merged.

The change is the workspace's files as they are now (staged or not, and the new files git
does not track yet) against a git ref, or a unified diff given as text. Its lines are mapped
to the innermost symbols holding them and `impact` runs on those: the same walk, levels,
files and tests. A risk line sums it up.

Which side of a file's diff the graph's lines are is read from the file itself: when the
graph holds the file's content as it is now (it was indexed after the change, or is kept
fresh while files change) the new side's lines are used; otherwise the graph is taken to
hold the file as the ref had it, and the old side's lines are. A diff given as text is read
on its old side, as `impact` reads one. Lines a change deletes count for the symbols the
graph has there, so a deleted function is a changed symbol (while the graph still has it).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from graphsvc import errors
from graphsvc.graph import reads
from graphsvc.graph.driver import Graph, get_graph
from graphsvc.query import git
from graphsvc.query.arguments import confidence_floor, resolve_scope, result_limit
from graphsvc.query.impact import (
    CHANGED_CAP, DEFAULT_LIMIT, DEPENDS, MAX_DIFF_CHARS, FileDiff, diff_symbols, file_symbols, parse_diff, reach_from,
)
from graphsvc.query.parser import MAX_DEPTH
from graphsvc.query.results import ChangedSymbol, ChangesResult, IdList, ImpactResult

# Direct dependents that make a changed entity a hub (a high risk), and half-way (medium).
HUB_DEPENDENTS = 20
BUSY_DEPENDENTS = 5
# Entities reached within `depth` hops that make a change high, or medium, risk.
WIDE_REACH = 100
SOME_REACH = 10


def changes(
    *,
    workspace: str,
    since: str = "HEAD",
    depth: int = 2,
    min_confidence: float | None = None,
    limit: int | None = None,
    graph: Graph | None = None,
) -> ChangesResult:
    """What changed since `since` and what depends on it, up to `depth` hops (1-4): `since` is
    a git ref (`HEAD`, a branch, a commit) compared with the workspace's files as they are now,
    staged or not, new untracked files included; or a unified diff as text (read on its old
    side: the files as indexed)."""
    if not 1 <= depth <= MAX_DEPTH:
        raise errors.InputError(f"depth must be 1..{MAX_DEPTH}, got {depth}")
    if not since.strip():
        raise errors.InputError("since is empty: give a git ref such as HEAD, or a unified diff")
    ws = resolve_scope(workspace).workspace
    limit = result_limit(limit, DEFAULT_LIMIT)
    floor = confidence_floor(min_confidence)
    if "\n" in since.strip() and len(since) > MAX_DIFF_CHARS:
        raise errors.InputError(f"a diff of {len(since)} characters: give at most {MAX_DIFF_CHARS}")
    graph = graph or get_graph()
    if "\n" in since.strip():  # no ref holds a line break: this is a diff
        label, commit, untracked = "diff", None, []
        files = parse_diff(since)
        spans = _graph_sides(files, fresh=set())
    else:
        root = _root(graph, ws)
        git.check_repository(root)
        label, commit = since.strip(), git.commit_of(root, since.strip())
        files = parse_diff(git.diff_against(root, commit, MAX_DIFF_CHARS))
        untracked = git.untracked(root)
        spans = _graph_sides(files, _fresh(graph, ws, root, [f.new_path for f in files if f.new_path]))
    changed, not_indexed = diff_symbols(graph, ws, spans)
    if untracked:
        new, new_not_indexed = file_symbols(graph, ws, untracked)
        changed = sorted({n["eid"]: n for n in changed + new}.values(), key=lambda n: n["id"])
        not_indexed = sorted(set(not_indexed) | set(new_not_indexed))
    touched = sorted({p for f in files for p in (f.old_path, f.new_path) if p} | set(untracked))
    counts = reads.dependents(graph, ws, [n["eid"] for n in changed[:CHANGED_CAP]], DEPENDS, floor)
    symbols = sorted(
        (ChangedSymbol(id=n["id"], kind=n["kind"], file=n["file"] or n["id"], line=n["line"], end_line=n["end_line"],
                       dependents=counts.get(n["id"], 0)) for n in changed),
        key=lambda c: (-c.dependents, c.id),
    )
    result = ChangesResult(
        workspace=ws, since=label, commit=commit, summary="", risk="", changed=symbols[:limit],
        changed_total=len(symbols), files=_ids(touched, limit), untracked=_ids(untracked, limit),
        impact=reach_from(graph, ws, changed, not_indexed, depth=depth, min_conf=floor, limit=limit),
    )
    result.risk, why = _risk(symbols, result.impact)
    # A file stands for its lines outside every symbol (imports, module code): not a symbol.
    result.summary = _summary(result, sum(c.kind != "file" for c in symbols), why)
    return result


def _root(graph: Graph, ws: str) -> Path:
    root = reads.workspace_root(graph, ws)
    if root is None:
        raise errors.NotFoundError(f"no workspace {ws!r}: index it first (`graphsvc index PATH -w {ws}`)")
    return Path(root)


def _fresh(graph: Graph, ws: str, root: Path, paths: list[str]) -> set[str]:
    """The `paths` whose content the graph holds as the files are now."""
    fresh = set()
    for path, indexed in reads.file_hashes(graph, ws, paths).items():
        try:
            if indexed and hashlib.sha256((root / path).read_bytes()).hexdigest() == indexed:
                fresh.add(path)
        except OSError:
            continue  # gone or unreadable now: the graph holds an older content
    return fresh


def _graph_sides(files: list[FileDiff], fresh: set[str]) -> dict[str, list[tuple[int, int]]]:
    """Per path, the spans of the side the graph holds: the new one for `fresh` paths, else the
    old one (a file the change creates has none: it is indexed, or it is not)."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for f in files:
        if f.new_path in fresh:
            spans.setdefault(f.new_path, []).extend(f.new)
        elif f.old_path:
            spans.setdefault(f.old_path, []).extend(f.old)
        elif f.new_path:
            spans.setdefault(f.new_path, [])
    return spans


def _ids(items: list[str], limit: int) -> IdList:
    return IdList(items=items[:limit], total=len(items), limit=limit, truncated=len(items) > limit)


def _risk(symbols: list[ChangedSymbol], impact: ImpactResult) -> tuple[str, str]:
    """How risky the change is, and why, from its busiest changed entity and how far it reaches."""
    if not symbols:
        return "none", "nothing indexed changed"
    hub, reached = symbols[0], sum(level.total for level in impact.levels)
    if hub.dependents >= HUB_DEPENDENTS:
        return "high", f"a hub with {hub.dependents} direct dependents changed: {hub.id}"
    if reached >= WIDE_REACH:
        return "high", f"{reached} entities depend on it"
    if hub.dependents >= BUSY_DEPENDENTS:
        return "medium", f"{hub.id} has {hub.dependents} direct dependents"
    if reached >= SOME_REACH:
        return "medium", f"{reached} entities depend on it"
    return "low", f"at most {hub.dependents} direct dependents each"


def _summary(r: ChangesResult, count: int, why: str) -> str:
    if not r.changed_total:
        shown = f" ({_n(r.impact.not_indexed.total, 'file')} not indexed)" if r.impact.not_indexed.total else ""
        return f"{_n(r.files.total, 'file')} changed, no indexed symbol among them{shown}; risk: none"
    reached = sum(level.total for level in r.impact.levels)
    at_least = "" if r.impact.complete else "at least "
    line = (f"{_n(count, 'symbol')} changed in {_n(r.files.total, 'file')}; {at_least}"
            f"{_n(reached, 'dependent')} within {_n(r.impact.depth, 'hop')} in {_n(r.impact.files.total, 'file')}; ")
    tests = r.impact.tests.total
    line += f"{_n(tests, 'test')} {'reaches' if tests == 1 else 'reach'} them" if tests else "no test reaches them"
    return line + f"; risk: {r.risk} ({why})"


def _n(count: int, word: str) -> str:
    return f"{count} {word if count == 1 else word + 's'}"
