"""What one change costs incremental resolution on the standard library, without Neo4j.

Builds the symbol table of the running Python's standard library (without site-packages)
once, then times four changes, each undone before the next: adding a module, deleting
one, adding a top-level variable ``x = 1`` and adding a function. For each it prints how many files
``affected_files`` names and the time to find and re-resolve them.

    python bench/affected_files.py [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from indexers.extract import extract_file
from indexers.languages import language_for_path
from indexers.resolve import SymbolTable, affected_files, resolve_file


# What bench/index_symbols.py adds for its one-file edit.
_ADDED_FUNCTION = b"\n\ndef added_by_benchmark(s):\n    return JSONDecoder().decode(s)\n"


def _extract_stdlib(root: Path) -> dict:
    exts = {}
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root).as_posix()
        spec = language_for_path(rel)
        if spec is not None and not rel.startswith("site-packages/"):
            exts[rel] = extract_file(rel, p.read_bytes(), spec.name)
    return exts


def _change(table: SymbolTable, path: str, old, new) -> tuple[int, float]:
    started = time.perf_counter()
    if new is not None:
        table.add_file(new)
    else:
        table.remove_file(path)
    got = affected_files([path], {path: old} if old else {}, {path: new} if new else {}, table)
    for p in got:
        resolve_file(table.files[p], table)
    seconds = time.perf_counter() - started
    if old is not None:
        table.add_file(old)
    else:
        table.remove_file(path)
    return len(got), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    root = Path(os.__file__).parent
    started = time.perf_counter()
    exts = _extract_stdlib(root)
    table = SymbolTable(exts.values())
    print(f"{len(exts)} files extracted and tabled in {time.perf_counter() - started:.1f} s")
    variable = "json/decoder.py"
    changes = {
        "add email/added_mod.py": ("email/added_mod.py", None,
                                   extract_file("email/added_mod.py", b"def f():\n    return 1\n", "python")),
        "delete json/tool.py": ("json/tool.py", exts["json/tool.py"], None),
        f"add `x = 1` to {variable}": (variable, exts[variable],
                                       extract_file(variable, (root / variable).read_bytes() + b"\nx = 1\n", "python")),
        f"add a function to {variable}": (variable, exts[variable], extract_file(
            variable, (root / variable).read_bytes() + _ADDED_FUNCTION, "python")),
    }
    for label, (path, old, new) in changes.items():
        runs = [_change(table, path, old, new) for _ in range(args.repeat)]
        times = ", ".join(f"{s:.2f}" for _, s in runs)
        print(f"{label:36} {runs[0][0]:5d} files re-resolved in {times} s")


if __name__ == "__main__":
    main()
