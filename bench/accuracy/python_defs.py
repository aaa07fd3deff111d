"""Python definitions: our ``:Symbol`` nodes against the ``ast`` module of the running Python.

The oracle is every ``FunctionDef``, ``AsyncFunctionDef`` and ``ClassDef`` at any depth, with
the qualified name formed by the enclosing definitions (``if``/``try``/``with`` blocks add
nothing) and the line of the ``def``/``class`` keyword. A definition matches when file,
qualified name (redefinition suffixes ``@n`` removed) and line agree. Top-level variables are
scored separately against module-level ``Assign``/``AnnAssign`` name targets.
"""

from __future__ import annotations

import ast
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bench.accuracy.common import FileState, Score, Sym, file_problem

DEF_KINDS = frozenset({"class", "function", "method"})
VARIABLE_KINDS = frozenset({"variable", "constant", "type_alias"})


@dataclass(slots=True, frozen=True)
class OracleDef:
    file: str
    qual: str
    name: str
    kind: str  # class, function, method, variable
    line: int


@dataclass(slots=True)
class PythonCorpus:
    root: Path
    files: list[str] = field(default_factory=list)  # parsed by ast
    unparsable: list[str] = field(default_factory=list)


def python_files(root: Path) -> list[str]:
    out = []
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if "site-packages/" in rel + "/" or "__pycache__" in rel:
            continue
        if p.suffix in (".py", ".pyi") and p.is_file() and not p.is_symlink():
            out.append(rel)
    return out


def parse(root: Path, rel: str) -> ast.Module | None:
    try:
        data = (root / rel).read_bytes()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(data, filename=rel)
    except (SyntaxError, ValueError, OSError):
        return None


def definitions(rel: str, tree: ast.Module) -> tuple[list[OracleDef], list[OracleDef]]:
    """(functions, classes and methods; top-level variables) of one module."""
    defs: list[OracleDef] = []

    def walk(node: ast.AST, prefix: str, in_class: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = f"{prefix}.{child.name}" if prefix else child.name
                is_class = isinstance(child, ast.ClassDef)
                kind = "class" if is_class else ("method" if in_class else "function")
                defs.append(OracleDef(rel, qual, child.name, kind, child.lineno))
                walk(child, qual, is_class)
            else:
                walk(child, prefix, in_class)

    walk(tree, "", False)
    variables = []
    for stmt in tree.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
        for t in targets:
            if isinstance(t, ast.Name):
                variables.append(OracleDef(rel, t.id, t.id, "variable", t.lineno))
    return defs, variables


@dataclass(slots=True)
class DefsResult:
    score: Score
    missed: Counter  # category -> count
    extra: Counter
    kind_mismatch: int
    examples: dict[str, list[str]]

    def to_dict(self) -> dict:
        return {"score": self.score.to_dict(), "missed": dict(self.missed.most_common()),
                "extra": dict(self.extra.most_common()), "kind_mismatch": self.kind_mismatch,
                "examples": self.examples}


def _compare(oracle: list[OracleDef], ours: list[Sym], files: dict[str, FileState]) -> DefsResult:
    want = {(d.file, d.qual, d.line): d for d in oracle}
    have: dict[tuple[str, str, int], Sym] = {}
    for s in ours:
        have.setdefault((s.file, s.base_qual, s.start), s)
    score = Score(oracle=len(want), ours=len(have))
    found = want.keys() & have.keys()
    score.found = score.confirmed = len(found)
    kind_mismatch = sum(1 for k in found if want[k].kind != have[k].kind and want[k].kind != "variable")
    want_by_line = {(f, ln): q for (f, q, ln) in want}
    want_by_qual = {(f, q) for (f, q, _) in want}
    have_by_line = {(f, ln): q for (f, q, ln) in have}
    have_by_qual = {(f, q) for (f, q, _) in have}
    examples: dict[str, list[str]] = {}

    def categorize(key, by_line, by_qual, side: str) -> str:
        f, q, ln = key
        problem = file_problem(files, f)
        if problem:
            return problem
        if (f, ln) in by_line:
            return f"same line, other qualified name ({side} {by_line[(f, ln)]!r})"[:60]
        if (f, q) in by_qual:
            return "same qualified name, other line"
        return "absent"

    def tally(keys, by_line, by_qual, side: str, label: str) -> Counter:
        counts: Counter = Counter()
        for key in keys:
            cat = categorize(key, by_line, by_qual, side)
            cat = cat if not cat.startswith("same line") else "same line, other qualified name"
            counts[cat] += 1
            examples.setdefault(f"{label}: {cat}", []).append(f"{key[0]}:{key[2]} {key[1]}")
        return counts

    missed = tally(want.keys() - found, have_by_line, have_by_qual, "ours", "missed")
    extra = tally(have.keys() - found, want_by_line, want_by_qual, "ast", "extra")
    examples = {k: sorted(v)[:8] for k, v in examples.items()}
    return DefsResult(score, missed, extra, kind_mismatch, examples)


def measure(root: Path, ours: list[Sym], files: dict[str, FileState]) -> dict:
    """Score our symbols of ``root`` against ``ast``; files ast cannot parse are left out on both sides."""
    corpus = PythonCorpus(root)
    oracle_defs: list[OracleDef] = []
    oracle_vars: list[OracleDef] = []
    for rel in python_files(root):
        tree = parse(root, rel)
        if tree is None:
            corpus.unparsable.append(rel)
            continue
        corpus.files.append(rel)
        d, v = definitions(rel, tree)
        oracle_defs.extend(d)
        oracle_vars.extend(v)
    in_corpus = set(corpus.files)
    mine = [s for s in ours if s.file in in_corpus]
    defs = _compare(oracle_defs, [s for s in mine if s.kind in DEF_KINDS], files)
    variables = _compare(oracle_vars, [s for s in mine if s.kind in VARIABLE_KINDS], files)
    other_kinds = Counter(s.kind for s in mine if s.kind not in DEF_KINDS | VARIABLE_KINDS)
    return {
        "files": len(corpus.files),
        "unparsable_by_ast": sorted(corpus.unparsable),
        "definitions": defs.to_dict(),
        "top_level_variables": variables.to_dict(),
        "other_kinds": dict(other_kinds),
    }
