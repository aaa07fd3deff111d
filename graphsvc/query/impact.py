"""`impact`: the blast radius of a change, as the graph knows it.

The change is a symbol (with everything it contains), every symbol of some files, or the
symbols whose lines a unified diff touches. What depends on it is walked against the
CALLS, REFERENCES, INHERITS, IMPLEMENTS and OVERRIDES edges, hop by hop up to `depth`
(`reads.reach`), and answered grouped by hop, with the files reached, the tests among the
entities reached (by each language's conventions, `LanguageSpec.tests`) and the call sites
the index left unresolved that could be more dependents. Every list is cut to `limit`.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from graphsvc.errors import InputError
from graphsvc.graph import reads
from graphsvc.graph.driver import Graph, get_graph
from graphsvc.model import Rel
from graphsvc.query import symbols
from graphsvc.query.calls import unresolved_by_name
from graphsvc.query.arguments import confidence_floor, resolve_scope, result_limit
from graphsvc.query.hierarchy import reached
from graphsvc.query.parser import MAX_DEPTH
from graphsvc.query.results import Count, CountList, IdList, ImpactLevel, ImpactResult
from indexers.languages import LANGUAGES

DEPENDS = [r.value for r in (Rel.CALLS, Rel.REFERENCES, Rel.INHERITS, Rel.IMPLEMENTS, Rel.OVERRIDES)]
# Each list of an answer holds at most this many by default: a typical answer stays under 8 KB.
DEFAULT_LIMIT = 10
# Entities walked per hop and symbols taken as changed: beyond them the answer is incomplete.
WALK_CAP = 5000
CHANGED_CAP = 2000
MAX_DIFF_CHARS = 5_000_000
# Kinds whose names are not called: their name says nothing about unresolved call sites.
_NOT_CALLED = {"file", "dir", "workspace", "module", "external_module"}


def impact(
    ref: str | None = None,
    *,
    workspace: str,
    files: list[str] | None = None,
    diff: str | None = None,
    depth: int = 2,
    min_confidence: float | None = None,
    limit: int | None = None,
    graph: Graph | None = None,
) -> ImpactResult:
    """What depends on `ref` (and what it contains), on every symbol of `files`, or on the
    symbols whose lines the unified `diff` changes, up to `depth` hops (1-4) away.

    A diff's lines are read on its old side: the index is taken to hold the files as they
    were before it (a path is matched to the workspace's file ids, also when it has a prefix).
    """
    given = [name for name, value in (("ref", ref), ("files", files), ("diff", diff)) if value]
    if len(given) != 1:
        raise InputError("give exactly one of ref, files or diff" + (f" (got {', '.join(given)})" if given else ""))
    if not 1 <= depth <= MAX_DEPTH:
        raise InputError(f"depth must be 1..{MAX_DEPTH}, got {depth}")
    if diff is not None and len(diff) > MAX_DIFF_CHARS:
        raise InputError(f"a diff of {len(diff)} characters: give at most {MAX_DIFF_CHARS}")
    ws = resolve_scope(workspace).workspace
    limit = result_limit(limit, DEFAULT_LIMIT)
    floor = confidence_floor(min_confidence)
    graph = graph or get_graph()
    if ref:
        changed, not_indexed = _held(graph, ws, [symbols.resolve(graph, ws, ref)]), []
    elif files:
        changed, not_indexed = file_symbols(graph, ws, files)
    else:
        changed, not_indexed = diff_symbols(graph, ws, changed_lines(diff))
    return reach_from(graph, ws, changed, not_indexed, depth=depth, min_conf=floor, limit=limit)


def reach_from(
    graph: Graph, ws: str, changed: list[dict], not_indexed: list[str], *, depth: int, min_conf: float, limit: int
) -> ImpactResult:
    """The answer of `impact` for the `changed` entities (rows as `reads.held` gives them)."""
    levels = reads.reach(graph, ws, [n["eid"] for n in changed[:CHANGED_CAP]], True, DEPENDS, min_conf, depth, WALK_CAP)
    return _answer(graph, ws, changed, not_indexed, levels, depth, limit)


def file_symbols(graph: Graph, ws: str, paths: list[str]) -> tuple[list[dict], list[str]]:
    """Every entity of the files `paths` name (the files themselves included), and the paths
    naming no file of the workspace."""
    found, not_indexed = _files(graph, ws, paths)
    return _held(graph, ws, list({f["eid"]: f for f in found.values()}.values())), not_indexed


def _held(graph: Graph, ws: str, nodes: list[dict]) -> list[dict]:
    """`nodes` and everything they contain (a class's methods, a file's symbols)."""
    return reads.held(graph, ws, [n["eid"] for n in nodes], CHANGED_CAP) if nodes else []


def _files(graph: Graph, ws: str, paths: list[str]) -> tuple[dict[str, dict], list[str]]:
    """Per path, the workspace's file it names; and the paths naming none (or several)."""
    named = reads.files_named(graph, ws, sorted({p.strip().removeprefix("./") for p in paths if p.strip()}))
    found = {path: files[0] for path, files in named.items() if len(files) == 1}
    return found, sorted(path for path, files in named.items() if len(files) != 1)


# --- diffs -------------------------------------------------------------------------------

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass
class FileDiff:
    """One file of a unified diff: its path on each side (None: the side has no such file,
    the diff creates or deletes it) and the spans of each side's lines it changes. On a side,
    a line of its own that changed is `(n, n)`; lines only the other side has, inserted
    between its lines n and n + 1, are `(n, n + 1)`."""

    old_path: str | None
    new_path: str | None
    old: list[tuple[int, int]] = field(default_factory=list)
    new: list[tuple[int, int]] = field(default_factory=list)

    def add(self, old: int, removed: int, new: int, added: int) -> None:
        """A run of changed lines: `removed` lines from line `old` replaced by `added` from `new`."""
        self.old += [(n, n) for n in range(old, old + removed)] or [(old - 1, old)]
        self.new += [(n, n) for n in range(new, new + added)] or [(new - 1, new)]


def parse_diff(diff: str) -> list[FileDiff]:
    """The files of a unified diff (git's or diff -u's), in order. Paths lose git's `a/`, `b/`."""
    out: list[FileDiff] = []
    old_path: str | None = None
    old = new = left_old = left_new = 0  # each side's line, and the hunk's lines still to come
    removed = added = 0  # the run of changed lines being read, which ends at a line both sides have

    def run_ends() -> None:
        nonlocal removed, added
        if removed or added:
            out[-1].add(old - removed, removed, new - added, added)
        removed = added = 0

    for line in diff.splitlines():
        if line.startswith("\\"):  # "\ No newline at end of file"
            continue
        if left_old or left_new:
            tag = line[:1] or " "
            if tag == " ":
                run_ends()
            removed += tag == "-"
            added += tag == "+"
            old += tag != "+"
            new += tag != "-"
            left_old -= tag != "+"
            left_new -= tag != "-"
            if not (left_old or left_new):
                run_ends()
        elif line.startswith("--- "):
            old_path = _diff_path(line, "a/")
        elif line.startswith("+++ "):
            out.append(FileDiff(old_path, _diff_path(line, "b/")))
        elif (m := _HUNK.match(line)) and out:
            old, left_old = int(m.group(1)), int(m.group(2) or 1)
            new, left_new = int(m.group(3)), int(m.group(4) or 1)
            old += left_old == 0  # nothing on this side: the hunk's lines come after line `old`
            new += left_new == 0
    return out


def _diff_path(header: str, prefix: str) -> str | None:
    name = header[4:].split("\t", 1)[0].strip()
    return None if name == "/dev/null" else name.removeprefix(prefix)


def changed_lines(diff: str) -> dict[str, list[tuple[int, int]]]:
    """Per file of a unified diff, the spans of its old side that the diff changes (see
    `FileDiff`); a file the diff creates has no old side and no span."""
    out: dict[str, list[tuple[int, int]]] = {}
    for f in parse_diff(diff):
        if f.old_path:
            out.setdefault(f.old_path, []).extend(f.old)
    return out


def diff_symbols(graph: Graph, ws: str, spans: dict[str, list[tuple[int, int]]]) -> tuple[list[dict], list[str]]:
    """The innermost symbol holding each span (the file itself for a span outside every
    symbol), and the diff's paths the workspace does not hold."""
    found, not_indexed = _files(graph, ws, list(spans))
    defined: dict[str, list[dict]] = {}
    for node in reads.symbols_in(graph, ws, sorted({f["id"] for f in found.values()})):
        defined.setdefault(node["file"], []).append(node)
    changed: dict[str, dict] = {}
    for path, f in sorted(found.items()):
        for first, last in spans[path]:
            holding = [s for s in defined.get(f["id"], []) if s["line"] <= first and last <= (s["end_line"] or s["line"])]
            node = max(holding, key=lambda s: (s["line"], -(s["end_line"] or 0)), default=f)
            changed.setdefault(node["eid"], node)
    return sorted(changed.values(), key=lambda n: n["id"]), not_indexed


# --- the answer --------------------------------------------------------------------------


def _is_test(node: dict) -> bool:
    spec = LANGUAGES.get(node.get("lang") or "")
    file = node.get("file") or node["id"]
    return spec is not None and spec.tests.holds(file, node.get("qualified_name"))


def _called(nodes: list[dict]) -> set[str]:
    """The names a call could be written with to reach one of `nodes`."""
    return {n["name"] for n in nodes if n["name"] and n["kind"] not in _NOT_CALLED}


def _ids(items: list[str], total: int, limit: int) -> IdList:
    return IdList(items=items[:limit], total=total, limit=limit, truncated=total > limit)


def _answer(
    graph: Graph,
    ws: str,
    changed: list[dict],
    not_indexed: list[str],
    levels: list[list[dict]],
    depth: int,
    limit: int,
) -> ImpactResult:
    by_name = unresolved_by_name(graph, ws)

    def sites(names: set[str]) -> int:
        return sum(len(by_name.get(n, ())) for n in names)

    asked = [changed]  # the entities whose dependents each hop looked for
    out, tests, files = [], [], Counter()
    for d in range(1, depth + 1):
        walked = levels[d - 1][:WALK_CAP] if d <= len(levels) else []
        out.append(ImpactLevel(
            depth=d, total=len(walked), entities=[reached(r, d) for r in walked[:limit]], limit=limit,
            truncated=len(walked) > limit, unresolved_sites=sites(_called(asked[-1])),
        ))
        asked.append([r["node"] for r in walked])
        files.update(r["node"]["file"] or r["node"]["id"] for r in walked)
        tests.extend(r["node"]["id"] for r in walked if _is_test(r["node"]))
    unresolved = sites(set().union(*(_called(nodes) for nodes in asked[:depth])))
    ranked = sorted(files.items(), key=lambda kv: (-kv[1], kv[0]))
    complete = len(changed) <= CHANGED_CAP and all(len(rows) <= WALK_CAP for rows in levels)
    result = ImpactResult(
        workspace=ws, summary="", changed=_ids([n["id"] for n in changed], len(changed), limit),
        not_indexed=_ids(not_indexed, len(not_indexed), limit), depth=depth, rels=DEPENDS, levels=out,
        files=CountList(items=[Count(name=f, count=c) for f, c in ranked[:limit]], total=len(ranked), limit=limit,
                        truncated=len(ranked) > limit),
        tests=_ids(tests, len(tests), limit), unresolved_sites=unresolved, complete=complete,
    )
    result.summary = _summary(result)
    return result


def _summary(r: ImpactResult) -> str:
    if not r.changed.total:
        what = f"{_n(r.not_indexed.total, 'file')} not indexed" if r.not_indexed.total else "nothing"
        return f"the change touches no indexed symbol ({what})"
    head = r.changed.items[0] + (f" and {r.changed.total - 1} more" if r.changed.total > 1 else "")
    at_least = "" if r.complete else "at least "
    per_hop = ", ".join(str(level.total) for level in r.levels)
    line = (f"changing {head} reaches {at_least}{_n(sum(level.total for level in r.levels), 'entity', 'entities')} "
            f"within {_n(r.depth, 'hop')} ({per_hop}) in {_n(r.files.total, 'file')}, {_n(r.tests.total, 'test')}")
    if r.unresolved_sites:
        line += f"; {_n(r.unresolved_sites, 'unresolved call site')} could add more"
    return line


def _n(count: int, word: str, plural: str | None = None) -> str:
    return f"{count} {word if count == 1 else plural or word + 's'}"
