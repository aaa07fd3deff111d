"""The architecture holds: the import layers of `.importlinter`, and no production module or
function so long that it hides its structure unless it says why at its top."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("graphsvc", "indexers")
MAX_MODULE_LINES = 800
MAX_FUNCTION_LINES = 100
# A module or function may be longer if the first line of its docstring, or a comment line
# right under its `def` (before any code), starts with this and gives the reason.
REASON = "Long because"
_REASON_COMMENT = re.compile(rf"^\s*#\s*{REASON}\b")


@pytest.mark.timeout(120)
def test_imports_follow_the_layers_of_importlinter():
    lint_imports = Path(sys.executable).with_name("lint-imports")
    run = subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=110
    )
    assert run.returncode == 0, f"lint-imports failed:\n{run.stdout}\n{run.stderr}"


def _says_why(node: ast.AST, lines: list[str]) -> bool:
    doc = ast.get_docstring(node, clean=True)
    if doc and doc.splitlines()[0].startswith(REASON):
        return True
    body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if not body:
        return False
    start = node.lineno if not isinstance(node, ast.Module) else 1
    return any(_REASON_COMMENT.match(line) for line in lines[start : body[0].lineno - 1])


def too_long(paths: list[Path]) -> list[str]:
    """`path: N lines` for each module over the bound, `path:line name: N lines` for each
    function, that does not say why."""
    found = []
    for path in paths:
        source = path.read_text()
        lines = source.splitlines()
        tree = ast.parse(source)
        where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        if len(lines) > MAX_MODULE_LINES and not _says_why(tree, lines):
            found.append(f"{where}: {len(lines)} lines")
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES and not _says_why(node, lines):
                    found.append(f"{where}:{node.lineno} {node.name}: {length} lines")
    return found


def test_the_length_check_finds_long_code_and_accepts_a_reason(tmp_path):
    body = "    x = 1\n" * MAX_FUNCTION_LINES
    cases = {
        "plain.py": f"def f():\n{body}",
        "commented.py": f"def f():\n    # {REASON}: a table of cases.\n{body}",
        "documented.py": f'def f():\n    """{REASON}: a table of cases."""\n{body}',
        "module.py": '"""A module."""\n' + "x = 1\n" * MAX_MODULE_LINES,
        "long_module.py": f'"""{REASON}: generated."""\n' + "x = 1\n" * MAX_MODULE_LINES,
        "late_comment.py": f"def f():\n    x = 0\n    # {REASON}: too late.\n{body}",
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
    found = too_long(sorted(tmp_path.glob("*.py")))
    assert [line.split(tmp_path.name + "/")[1] for line in found] == [
        f"late_comment.py:1 f: {MAX_FUNCTION_LINES + 3} lines",
        f"module.py: {MAX_MODULE_LINES + 1} lines",
        f"plain.py:1 f: {MAX_FUNCTION_LINES + 1} lines",
    ]


@pytest.mark.timeout(60)
def test_no_module_or_function_is_long_without_saying_why():
    found = too_long([path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))])
    assert not found, (
        f"over {MAX_MODULE_LINES} lines per module or {MAX_FUNCTION_LINES} per function: split "
        f"along a seam, or start its docstring (or a comment under its def) with "
        f"'{REASON} …':\n" + "\n".join(found)
    )
