"""Python definitions against the standard library's own parser on a fixed sample of real
code (the full-library figure is measured by the accuracy benchmark)."""

from __future__ import annotations

import ast
import sysconfig
from pathlib import Path

import pytest

from indexers.extract import extract_file

STDLIB = Path(sysconfig.get_paths()["stdlib"])


def _sample() -> list[Path]:
    files = sorted(p for p in STDLIB.rglob("*.py") if "site-packages" not in p.parts)
    return files[::20]


def _oracle(tree: ast.AST) -> set[tuple[str, int]]:
    out = set()

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add((prefix + child.name, child.lineno))
                walk(child, prefix + child.name + ".")
            else:
                walk(child, prefix)

    walk(tree, "")
    return out


@pytest.mark.skipif(not STDLIB.is_dir(), reason="no standard library sources")
def test_definitions_match_ast_on_a_stdlib_sample():
    ours: set[tuple[str, str, int]] = set()
    oracle: set[tuple[str, str, int]] = set()
    for path in _sample():
        data = path.read_bytes()
        try:
            tree = ast.parse(data)
        except (SyntaxError, ValueError):
            continue  # test data with deliberate errors
        rel = path.relative_to(STDLIB).as_posix()
        oracle |= {(rel, q, line) for q, line in _oracle(tree)}
        for s in extract_file(rel, data, "python").symbols:
            if s.kind in ("class", "function", "method"):
                qual = ".".join(part.split("@")[0] for part in s.qualified_name.split("."))
                ours.add((rel, qual, s.start_line))
    assert len(oracle) > 2000
    hits = len(ours & oracle)
    assert hits / len(oracle) >= 0.99, sorted(oracle - ours)[:20]
    assert hits / len(ours) >= 0.99, sorted(ours - oracle)[:20]
