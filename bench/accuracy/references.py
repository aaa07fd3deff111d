"""Python ``REFERENCES`` and ``OVERRIDES`` edges against oracles that do not share our code.

    .venv/bin/python bench/accuracy/references.py ROOT [--package NAME]

``ROOT`` is a project's import root (``src/`` of an sdist). Every file is extracted and
resolved in-process, as the indexer does, without a database.

REFERENCES, judged by Jedi: each name used as a value that resolves to one confident target
(a function, method or class) is looked up with Jedi's ``goto`` at its position; the edge is
right when Jedi lands on the definition the edge points at, wrong when it lands elsewhere, and
not judged when Jedi finds nothing.

OVERRIDES, against the interpreter (``--package``: the project imports without anything that
is not installed): for every method, property, classmethod or staticmethod a class of the
package defines, the nearest class on its MRO defining the same name, when that class is in
the package. Precision and recall of our confident OVERRIDES edges against those pairs.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from graphsvc.model import DEFAULT_MIN_CONFIDENCE  # noqa: E402
from indexers.extract import RECEIVER_NONE, extract_file  # noqa: E402
from indexers.resolve import SymbolTable, resolve_all  # noqa: E402
from indexers.resolve.common import ResolveStats  # noqa: E402
from indexers.resolve.references import _referenced  # noqa: E402
from indexers.resolve.resolver import Resolver  # noqa: E402


def _extract(root: Path) -> dict:
    exts = {}
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root).as_posix()
        exts[rel] = extract_file(rel, p.read_bytes(), "python")
    return exts


def judge_references(root: Path, exts: dict, table: SymbolTable) -> tuple[Counter, list]:
    import jedi

    project = jedi.Project(root)
    tally: Counter = Counter()
    wrong = []
    for rel, ext in exts.items():
        if not ext.values:
            continue
        resolver = Resolver(ext, table, ResolveStats())
        lines = (root / rel).read_text(errors="replace").splitlines()
        script = jedi.Script(path=str(root / rel), project=project)
        seen = set()
        for v in ext.values:
            found = _referenced(resolver, v, resolver.memo_key(v), table.symbols)
            if not found or len(found[0]) != 1 or found[2] < DEFAULT_MIN_CONFIDENCE:
                continue
            if (v.line, v.name, v.receiver) in seen:
                continue
            seen.add((v.line, v.name, v.receiver))
            dotted = v.receiver_kind != RECEIVER_NONE
            m = re.search((r"\." if dotted else r"(?<![\w.])") + re.escape(v.name) + r"\b", lines[v.line - 1])
            if m is None:
                tally["no column"] += 1
                continue
            defs = script.goto(v.line, m.start() + dotted, follow_imports=True)
            if not defs:
                tally["not judged"] += 1
                continue
            sym = table.symbols[found[0][0]]
            places = {(_relative(d.module_path, root), d.line) for d in defs}
            if (sym.file, sym.start_line) in places:
                tally["right"] += 1
            else:
                tally["wrong"] += 1
                wrong.append((rel, v.line, v.name, sym.id))
    return tally, wrong


def _relative(path, root: Path) -> str | None:
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except (TypeError, ValueError):
        return None


def mro_overrides(root: Path, exts: dict, package: str) -> set[tuple[str, str]]:
    sys.path.insert(0, str(root))
    out = set()

    def sid(cls: type, name: str) -> str:
        return f"{_relative(sys.modules[cls.__module__].__file__, root)}#{cls.__qualname__}.{name}"

    kinds = (staticmethod, classmethod, property)
    for rel in exts:
        modname = rel[:-3].replace("/", ".").removesuffix(".__init__")
        try:
            mod = importlib.import_module(modname)
        except Exception:  # noqa: BLE001 - a module that needs what is not installed
            continue
        for _, cls in inspect.getmembers(mod, inspect.isclass):
            if cls.__module__ != modname:
                continue
            for name, value in vars(cls).items():
                if not (inspect.isfunction(value) or isinstance(value, kinds)):
                    continue
                for base in cls.__mro__[1:]:
                    if name in vars(base):
                        if base.__module__.split(".")[0] == package:
                            out.add((sid(cls, name), sid(base, name)))
                        break
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path)
    parser.add_argument("--package", help="also score OVERRIDES against the interpreter's MRO")
    args = parser.parse_args()
    root = args.root.resolve()
    exts = _extract(root)
    table = SymbolTable(exts.values())
    edges, _ = resolve_all(table)
    tally, wrong = judge_references(root, exts, table)
    judged = tally["right"] + tally["wrong"]
    print(f"REFERENCES judged by Jedi: {dict(tally)}; precision "
          + (f"{tally['right'] / judged:.1%}" if judged else "n/a"))
    for w in wrong:
        print("  wrong:", *w)
    if args.package:
        expected = mro_overrides(root, exts, args.package)
        ours = {(e.src.split("@")[0], e.dst.split("@")[0]) for e in edges
                if e.type == "OVERRIDES" and e.confidence >= DEFAULT_MIN_CONFIDENCE}
        right = len(ours & expected)
        print(f"OVERRIDES against the MRO: {len(expected)} expected, {len(ours)} ours, {right} right; "
              f"precision {right / len(ours):.1%}, recall {right / len(expected):.1%}" if ours and expected else "n/a")
        for pair in sorted(expected - ours):
            print("  missed:", *pair)
        for pair in sorted(ours - expected):
            print("  extra:", *pair)


if __name__ == "__main__":
    main()
