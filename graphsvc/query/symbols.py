"""`symbol`: what a ref names. Every verb resolves its `ref` (and `from`, `to`) here.

A ref is, tried in this order:

- an id: ``src/app.py#App.run``, ``src/app.py``, ``ext:os.path#join``;
- ``file:line``: the innermost entity spanning that line (the file itself between
  definitions); the file may be a unique suffix of its path (``app.py:42``);
- a dotted name with its module path, ``pkg.mod.Class.method``: the module part is the
  defining file's path without its extension (a package file such as ``pkg/__init__.py`` or
  ``index.ts`` stands for its directory), or the directory holding it (Go and Java packages);
  leading directories may be left out (``src/``; the fewer the better) and ``/`` separates as well as ``.``
  (``pkg/mod.Class``); or a module that imports the defining file, directly or through a
  package file, as ``pkg/__init__.py`` re-exports ``pkg.Class``;
- a qualified name (``Class.method``) or a name;
- a module path alone (``pkg.mod``): the file;
- a unique suffix of an id (``util.py#helper``).

The best-ranked matches win (an id before a module path, a re-export, a directory, a
qualified name or name, a suffix; code in the workspace before an external). One is the answer;
several are candidates: `symbol` lists them, and the other verbs refuse the ref with
`AmbiguousError` listing their ids, best first.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from typing import Any, TypeVar

from graphsvc.errors import AmbiguousError, InputError, NotFoundError
from graphsvc.graph import code_reads, reads
from graphsvc.graph.driver import Graph, get_graph
from graphsvc.model import Label
from graphsvc.query.arguments import check_length, resolve_scope, result_limit
from graphsvc.query.engine import to_entity
from graphsvc.query.results import SymbolMatch, SymbolResult
from indexers.languages import LANGUAGES, language_for_path

T = TypeVar("T")

DEFAULT_CANDIDATES = 10
# Matches read for one ref at most: a name shared by more is refused as too common.
MATCH_CAP = 500
ERROR_CANDIDATES = 10

_FILE_LINE = re.compile(r"^(?P<file>[^#]+):(?P<line>\d+)$")
# File stems that stand for their directory, in every language (`__init__.`, `index.`).
_PACKAGE_STEMS = sorted({stem + "." for spec in LANGUAGES.values() for stem in spec.package_files})

# How each kind of match ranks (lower wins); an external entity ranks half a step lower, a
# module path a hundredth lower for each leading directory it leaves out (up to MAX_OMITTED).
MAX_OMITTED = 9
RANKS = {
    "id": 0.0,
    "file:line": 1.0,
    "module path": 1.0,
    "re-export": 2.0,
    "package": 2.5,
    "qualified name": 3.0,
    "name": 3.0,
    "suffix": 4.0,
}


def module_path(file: str) -> str:
    """The module a file is, as a path: without its extension, a package file as its directory;
    a dot left in a name separates as `/` does (`test/clinic.test.c` is `test/clinic/test`), as
    in a dotted ref."""
    stem, _ = posixpath.splitext(file)
    spec = language_for_path(file)
    head, base = posixpath.split(stem)
    if spec is not None and base in spec.package_files:
        stem = head
    return stem.replace(".", "/")


def _names_module(path: str, module: str) -> bool:
    return path == module or path.endswith("/" + module)


def _omitted(path: str, module: str) -> int:
    """How many leading directories of `path` a module path it names leaves out."""
    return path.count("/") - module.count("/")


def _splits(ref: str) -> list[tuple[str, str]]:
    """(module as a path, qualified name) for every way a dotted `ref` divides."""
    dotted = ref.replace("::", ".")
    parts = dotted.split(".")
    out = []
    for i in range(1, len(parts)):
        module, qual = ".".join(parts[:i]), ".".join(parts[i:])
        if module and qual and all(parts[i:]):
            out.append((module.replace(".", "/").strip("/"), qual))
    return out


class _Found:
    """Matches collected for one ref: the best rank each entity reached."""

    def __init__(self) -> None:
        self.by_eid: dict[str, tuple[float, str, dict]] = {}
        self.token: str | None = None  # the workspace's symbols token, when a read gave it

    def add(self, node: dict, match: str, omitted: int = 0) -> None:
        """`omitted`: leading directories the module path left out; fewer rank higher."""
        rank = RANKS[match] + (0.5 if Label.EXTERNAL.value in (node.get("labels") or []) else 0.0)
        rank += min(omitted, MAX_OMITTED) * 0.01
        old = self.by_eid.get(node["eid"])
        if old is None or rank < old[0]:
            self.by_eid[node["eid"]] = (rank, match, node)

    def best(self) -> list[tuple[float, str, dict]]:
        """The entities of the best rank, by id."""
        if not self.by_eid:
            return []
        top = min(r for r, _, _ in self.by_eid.values())
        return sorted((m for m in self.by_eid.values() if m[0] == top), key=lambda m: m[2]["id"])

    @property
    def best_rank(self) -> float:
        return min((r for r, _, _ in self.by_eid.values()), default=float("inf"))


def _by_file_line(graph: Graph, ws: str, ref: str, found: _Found) -> None:
    m = _FILE_LINE.match(ref)
    if not m:
        return
    line = int(m["line"])
    files = [m["file"]]
    file_node, node = code_reads.innermost_at(graph, ws, files[0], line)
    if file_node is None:
        files = code_reads.files_ending(graph, ws, "/" + m["file"].lstrip("/"), 2)
        if len(files) != 1:
            return
        file_node, node = code_reads.innermost_at(graph, ws, files[0], line)
    if file_node is not None:
        found.add(node or file_node, "file:line")


def _by_name(graph: Graph, ws: str, ref: str, found: _Found) -> None:
    splits = _splits(ref)
    quals = sorted({ref, *(q for _, q in splits)})
    rows, found.token = code_reads.symbol_matches(graph, ws, ref, quals, MATCH_CAP)
    if len(rows) >= MATCH_CAP:
        raise InputError(f"ref {ref!r} matches over {MATCH_CAP} entities in {ws!r}: give its module path or id")
    by_qual: dict[str, list[dict]] = {}
    for row in rows:
        node, vias = row["node"], row["vias"]
        if "id" in vias:
            found.add(node, "id")
        if "name" in vias or ("qualified_name" in vias and node.get("qualified_name") == ref):
            found.add(node, "qualified name" if node.get("qualified_name") == ref else "name")
        if "qualified_name" in vias and node.get("file"):
            by_qual.setdefault(node["qualified_name"], []).append(node)
    for module, qual in splits:
        for node in by_qual.get(qual, []):
            path, folder = module_path(node["file"]), posixpath.dirname(node["file"]).replace(".", "/")
            if _names_module(path, module):
                found.add(node, "module path", _omitted(path, module))
            elif _names_module(folder, module):
                found.add(node, "package", _omitted(folder, module))
    if splits and found.best_rank > RANKS["module path"]:
        _by_reexport(graph, ws, splits, by_qual, found)


def _by_reexport(graph: Graph, ws: str, splits: list[tuple[str, str]], by_qual: dict[str, list[dict]], found: _Found):
    """Definitions named by a module that imports their file (`pkg.Class` re-exported by
    `pkg/__init__.py`)."""
    wanted = [(module, node) for module, qual in splits for node in by_qual.get(qual, [])]
    modules = _module_files(graph, ws, found.token)
    importers = {fid: module for module, _ in wanted for fid in modules.get(module, ())}
    if not importers:
        return
    files = sorted({node["file"] for _, node in wanted})
    imports: dict[str, set[str]] = {}
    for row in code_reads.imported(graph, ws, sorted(importers), files, _PACKAGE_STEMS):
        imports.setdefault(row["file"], set()).add(importers[row["importer"]])
    for module, node in wanted:
        if module in imports.get(node["file"], ()):
            found.add(node, "re-export")


# (what, graph uri, workspace) -> (symbols token, what `build` made of the workspace)
_PER_RUN: dict[tuple[str, str, str], tuple[str | None, Any]] = {}


def per_index_run(what: str, graph: Graph, ws: str, build: Callable[[Graph, str], T], token: str | None = None) -> T:
    """`build(graph, ws)`, kept until the workspace's next symbol index run (its token).
    `token`: the workspace's token when the caller read it already (`resolve` does), which
    saves a round trip to Neo4j."""
    key = (what, graph.uri, ws)
    token = token or code_reads.symbols_token(graph, ws)
    cached = _PER_RUN.get(key)
    if cached is not None and token is not None and cached[0] == token:
        return cached[1]
    made = build(graph, ws)
    _PER_RUN[key] = (token, made)
    return made


def _module_files(graph: Graph, ws: str, token: str | None) -> dict[str, list[str]]:
    """The workspace's files by module path and by every tail of it (`src/flask/app` is also
    `flask/app` and `app`), read again after each symbol index run."""
    return per_index_run("modules", graph, ws, _read_module_files, token)


def _read_module_files(graph: Graph, ws: str) -> dict[str, list[str]]:
    by_module: dict[str, list[str]] = {}
    for fid in code_reads.file_ids(graph, ws):
        parts = module_path(fid).split("/")
        for i in range(len(parts)):
            by_module.setdefault("/".join(parts[i:]), []).append(fid)
    return by_module


def _find(graph: Graph, ws: str, ref: str) -> _Found:
    found = _Found()
    _by_file_line(graph, ws, ref, found)
    if not found.by_eid:
        _by_name(graph, ws, ref, found)
    if not found.by_eid and ("." in ref or "/" in ref):
        module = ref.replace("::", ".").replace(".", "/").strip("/")
        for node in code_reads.files_containing(graph, ws, module, MATCH_CAP):
            path = module_path(node["id"])
            if _names_module(path, module):
                found.add(node, "module path", _omitted(path, module))
    if not found.by_eid:
        for row in reads.find_entities(graph, ws, ref):
            found.add(row["node"], "suffix")
    return found


def _not_found(graph: Graph, ws: str, ref: str, argument: str) -> NotFoundError:
    if not reads.workspace_exists(graph, ws):
        return NotFoundError(f"workspace {ws!r} has no entities: index it with `graphsvc index-symbols`")
    return NotFoundError(
        f"{argument} {ref!r}: nothing in workspace {ws!r} is named so; give an id (src/app.py#App.run), "
        "a module path (pkg.mod.Class.method), file:line, a qualified name or a unique suffix, or search for it"
    )


def _check_ref(ref: str, argument: str) -> None:
    if not ref or not ref.strip():
        raise InputError(f"{argument} is empty: give an id, a module path, file:line or a name")
    check_length(ref, argument)


def resolve(graph: Graph, workspace: str, ref: str, argument: str = "ref") -> dict:
    """The node `ref` names (as `reads._node` projects it, with `match`: how, and `token`: the
    workspace's symbols token when the lookup read it, for `per_index_run`), or an error naming
    `argument`: `NotFoundError`, or `AmbiguousError` with the candidates' ids, best first."""
    _check_ref(ref, argument)
    found = _find(graph, workspace, ref)
    best = found.best()
    if not best:
        raise _not_found(graph, workspace, ref, argument)
    if len(best) > 1:
        ids = [node["id"] for _, _, node in best]
        shown = ids[:ERROR_CANDIDATES]
        raise AmbiguousError(
            f"{argument} {ref!r} names {len(ids)} entities in {workspace!r} ({best[0][1]}); give one of their ids: "
            + ", ".join(shown) + (" …" if len(ids) > len(shown) else ""),
            ids[:20],
        )
    return {**best[0][2], "match": best[0][1], "token": found.token}


def symbol(ref: str, *, workspace: str, limit: int | None = None, graph: Graph | None = None) -> SymbolResult:
    """What `ref` names: an id, `file:line`, a dotted name with its module path
    (`pkg.mod.Class.method`, also as re-exported, `pkg.Class`), a qualified name or name, or a
    unique suffix of an id. One entity, or the candidates that match equally well, best first."""
    _check_ref(ref, "ref")
    ws = resolve_scope(workspace).workspace
    limit = result_limit(limit, DEFAULT_CANDIDATES)
    graph = graph or get_graph()
    best = _find(graph, ws, ref).best()
    if not best:
        raise _not_found(graph, ws, ref, "ref")
    if len(best) == 1:
        _, match, node = best[0]
        return SymbolResult(ref=ref, workspace=ws, entity=to_entity(node), match=match, candidates=[], total=1,
                            truncated=False)
    candidates = [
        SymbolMatch(id=node["id"], kind=node.get("kind"), file=node.get("file"), line=node.get("start_line"), match=match)
        for _, match, node in best[:limit]
    ]
    return SymbolResult(ref=ref, workspace=ws, entity=None, match=None, candidates=candidates, total=len(best),
                        truncated=len(best) > limit)
