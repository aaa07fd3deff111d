"""Python calls: our ``CALLS`` edges against PyCG's micro-benchmark.

    .venv/bin/python bench/accuracy/pycg.py [--json] [--cases]

PyCG (Salis et al., ICSE 2021) ships 119 small programs in 17 categories, each with the call
graph it expects (``callgraph.json``); a copy is in ``tests/fixtures/third_party/pycg/`` (see its NOTICE).
Every case is extracted and resolved in-process, as the indexer does, without a database.

Names. PyCG names a function by module and qualified name (``main.Class.method``; a package
``pkg/__init__.py`` is ``pkg``), top-level code by the module (``main``), and an external
name by its import path (``ext.function``). Ours map the same way: a symbol id
``main.py#Class.method`` is ``main.Class.method`` (redefinition suffixes ``@n`` dropped), a file
is its module, an ``ext:mod#name`` node is ``mod.name``. Calling a class runs its constructor:
PyCG records the ``__init__`` that runs (``main.A.__init__``, inherited ones too) and nothing
when there is none, so an edge to a class is scored as an edge to the first ``__init__`` on
its bases (our ``INHERITS`` edges, in order; an external base's comes first when it comes
first) and left out when there is none. PyCG names a lambda by its order in its module
(``main.<lambda1>``); a module variable defined as a lambda (``x = lambda: ...``), which the
graph calls for that lambda, is scored under that name (the module's lambdas counted in
source order with ``ast``, as PyCG visits them).

Scored edges. PyCG's expected graphs also hold calls of builtins and of methods of builtin
types (``<builtin>.print``, ``<**PyStr**>.join``); the graph does not model the interpreter,
so edges to those are left out of the expected side (our side has none: builtins are not
resolved to nodes). Everything else counts, external names included.

Measures, per category and in total: expected edges; *confident* edges are ours with
confidence at or above the query default (``DEFAULT_MIN_CONFIDENCE``), the edges a query
returns unless asked for more; their precision and recall; recall counting every edge,
candidates and name guesses too.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.accuracy.common import Score, ratio  # noqa: E402
from graphsvc.model import DEFAULT_MIN_CONFIDENCE, EXTERNAL_PREFIX  # noqa: E402
from indexers.extract import extract_file  # noqa: E402
from indexers.languages import language_for_path  # noqa: E402
from indexers.records import EdgeRecord  # noqa: E402
from indexers.resolve import SymbolTable, resolve_all  # noqa: E402

SNIPPETS = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "third_party" / "pycg"
_INTERPRETER = ("<builtin>.", "<**")  # PyCG's prefixes for builtins and builtin types
_SUFFIX = re.compile(r"@\d+(?=\.|$)")

Edge = tuple[str, str]  # (caller, callee) in PyCG's names


@dataclass(slots=True)
class CaseResult:
    name: str  # category/case
    expected: set[Edge]
    confident: set[Edge]
    any_edge: set[Edge]  # every edge, candidates too

    @property
    def category(self) -> str:
        return self.name.split("/", 1)[0]

    @property
    def false_positives(self) -> set[Edge]:
        return self.confident - self.expected

    @property
    def missed(self) -> set[Edge]:
        return self.expected - self.confident


@dataclass(slots=True)
class Tally:
    cases: int = 0
    # expected edges (oracle), edges at the threshold (ours), those expected (found, confirmed)
    at_threshold: Score = field(default_factory=Score)
    any_found: int = 0  # expected edges among all of ours, candidates too
    failing: list[str] = field(default_factory=list)  # cases not matched exactly at the threshold

    def add(self, r: CaseResult) -> None:
        self.cases += 1
        right = len(r.confident & r.expected)
        self.at_threshold.oracle += len(r.expected)
        self.at_threshold.ours += len(r.confident)
        self.at_threshold.found += right
        self.at_threshold.confirmed += right
        self.any_found += len(r.any_edge & r.expected)
        if r.confident != r.expected:
            self.failing.append(r.name)

    @property
    def expected(self) -> int:
        return self.at_threshold.oracle

    @property
    def confident(self) -> int:
        return self.at_threshold.ours

    @property
    def precision(self) -> float | None:
        return self.at_threshold.precision

    @property
    def recall(self) -> float | None:
        return self.at_threshold.recall

    @property
    def recall_any(self) -> float | None:
        return ratio(self.any_found, self.expected)

    def to_dict(self) -> dict:
        return {"cases": self.cases, "expected": self.expected, "confident": self.confident,
                "confident_right": self.at_threshold.found, "any_found": self.any_found,
                "precision": self.precision, "recall": self.recall, "recall_any": self.recall_any,
                "failing": self.failing}


def case_dirs(root: Path = SNIPPETS) -> list[Path]:
    """Every case directory (one holding a ``callgraph.json``), by category and name."""
    return sorted(p.parent for p in root.glob("*/*/callgraph.json"))


def expected_edges(callgraph: dict[str, list[str]]) -> set[Edge]:
    return {
        (src, dst) for src, dsts in callgraph.items() for dst in dsts
        if not dst.startswith(_INTERPRETER) and not src.startswith(_INTERPRETER)
    }


def module_name(path: str) -> str:
    """``pkg/__init__.py`` -> ``pkg``, ``pkg/mod.py`` -> ``pkg.mod``."""
    parts = path.removesuffix(".py").split("/")
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def pycg_name(node_id: str) -> str:
    """Our node id as PyCG names it: a file, a workspace symbol or an ``ext:`` node."""
    if node_id.startswith(EXTERNAL_PREFIX):
        module, _, name = node_id[len(EXTERNAL_PREFIX):].partition("#")
        return f"{module}.{name}" if name else module
    path, _, qual = node_id.partition("#")
    module = module_name(path)
    return f"{module}.{_SUFFIX.sub('', qual)}" if qual else module


def resolve_case(case: Path) -> tuple[SymbolTable, list[EdgeRecord]]:
    """Extract and resolve one case's files, as the indexer does, without a database."""
    exts = []
    for p in sorted(case.rglob("*.py")):
        rel = p.relative_to(case).as_posix()
        spec = language_for_path(rel)
        if spec is not None:
            exts.append(extract_file(rel, p.read_bytes(), spec.name))
    table = SymbolTable(exts)
    edges, _ = resolve_all(table)
    return table, edges


def _constructor(cls: str, table: SymbolTable, bases: dict[str, list[str]]) -> str | None:
    """The ``__init__`` that calling ``cls`` runs: the class's own, else its bases' in order;
    an external base's, as PyCG names it (``ext.parent.__init__``), when it comes first."""
    seen: set[str] = set()
    todo = [cls]
    while todo:
        c = todo.pop(0)
        if c in seen:
            continue
        seen.add(c)
        init = f"{c}.__init__"
        if init in table.symbols or c.startswith(EXTERNAL_PREFIX):
            return init
        todo.extend(bases.get(c, ()))
    return None


def module_lambdas(case: Path) -> dict[tuple[str, int], str]:
    """PyCG's name of each lambda written at the top level of a case's modules (outside any
    function, class or other lambda), by (file, line): ``main.<lambda1>`` and on."""
    out: dict[tuple[str, int], str] = {}
    for p in sorted(case.rglob("*.py")):
        rel = p.relative_to(case).as_posix()
        count = 0
        todo: list[ast.AST] = [ast.parse(p.read_bytes())]
        while todo:
            node = todo.pop(0)
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.Lambda):
                    count += 1
                    out.setdefault((rel, child.lineno), f"{module_name(rel)}.<lambda{count}>")
                elif not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    todo.append(child)
    return out


def our_edges(table: SymbolTable, edges: list[EdgeRecord], lambdas: dict[tuple[str, int], str] | None = None
              ) -> dict[Edge, float]:
    """Our ``CALLS`` edges in PyCG's names, with the highest confidence of each pair;
    ``lambdas``: `module_lambdas` of the case."""
    bases: dict[str, list[str]] = defaultdict(list)
    for e in edges:
        if e.type == "INHERITS":
            bases[e.src].append(e.dst)
    out: dict[Edge, float] = {}
    for e in edges:
        if e.type != "CALLS":
            continue
        dst = e.dst
        sym = table.symbols.get(dst)
        if sym is not None and sym.kind == "class":
            dst = _constructor(dst, table, bases)
            if dst is None:
                continue
        lambda_name = (lambdas or {}).get((sym.file, sym.start_line)) if sym is not None and sym.kind in (
            "variable", "constant") else None
        pair = (pycg_name(e.src), lambda_name or pycg_name(dst))
        out[pair] = max(out.get(pair, 0.0), e.confidence)
    return out


def score_case(case: Path) -> CaseResult:
    expected = expected_edges(json.loads((case / "callgraph.json").read_text()))
    table, edges = resolve_case(case)
    ours = our_edges(table, edges, module_lambdas(case))
    return CaseResult(
        name=f"{case.parent.name}/{case.name}",
        expected=expected,
        confident={p for p, c in ours.items() if c >= DEFAULT_MIN_CONFIDENCE},
        any_edge=set(ours),
    )


def score_all(root: Path = SNIPPETS) -> list[CaseResult]:
    return [score_case(c) for c in case_dirs(root)]


def tally(results: list[CaseResult]) -> dict[str, Tally]:
    """Per category, and ``total`` over all cases."""
    out: dict[str, Tally] = defaultdict(Tally)
    for r in results:
        out[r.category].add(r)
        out["total"].add(r)
    return dict(sorted(out.items(), key=lambda kv: (kv[0] == "total", kv[0])))


def _pct(v: float | None) -> str:
    return "n/a" if v is None else f"{100 * v:.1f} %"


def table_markdown(tallies: dict[str, Tally]) -> str:
    rows = [
        "| category | cases | expected edges | confident edges | confident precision "
        "| confident recall | recall with candidates |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, t in tallies.items():
        label = f"**{name}**" if name == "total" else name
        rows.append(f"| {label} | {t.cases} | {t.expected} | {t.confident} | {_pct(t.precision)} "
                    f"| {_pct(t.recall)} | {_pct(t.recall_any)} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print every figure and each case's differences as JSON")
    ap.add_argument("--cases", action="store_true", help="list each case's missed and false edges")
    args = ap.parse_args(argv)
    results = score_all()
    tallies = tally(results)
    if args.json:
        print(json.dumps({
            "threshold": DEFAULT_MIN_CONFIDENCE,
            "tallies": {k: t.to_dict() for k, t in tallies.items()},
            "cases": {r.name: {"missed": sorted(r.missed), "false_positives": sorted(r.false_positives),
                               "candidates_only": sorted((r.any_edge - r.confident) & r.expected)}
                      for r in results},
        }, indent=2))
        return 0
    print(table_markdown(tallies))
    if args.cases:
        for r in results:
            if r.missed or r.false_positives:
                print(f"\n{r.name}")
                for src, dst in sorted(r.missed):
                    print(f"  missed  {src} -> {dst}" + ("  (candidate)" if (src, dst) in r.any_edge else ""))
                for src, dst in sorted(r.false_positives):
                    print(f"  wrong   {src} -> {dst}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
