"""CPU of symbol extraction in this process, and its records, for a fixed set of files.

    .venv/bin/python bench/extract.py --lang python --files 300 [--runs 5]
    .venv/bin/python bench/extract.py --lang c --files 300 --root /path/to/linux/fs
    .venv/bin/python bench/extract.py --lang c --files 0 --root DIR --dump records.txt

The files are every k-th file of the language under ``--root`` (the standard library by
default) in path order, so a run of N files covers the tree evenly and the same N pick the
same files. Each run extracts them all (`extract_file`) in one process and prints the CPU
seconds (``time.process_time``) of the whole extraction and of three parts of it: the
tree-sitter parse, the query matching (`grouped_matches`) and what is left (Python work
per match). The median of the runs is printed last. ``--dump`` writes every record of every
file as text instead, to compare the output of two revisions with ``diff``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import STDLIB  # noqa: E402
from indexers import extract as extract_module  # noqa: E402
from indexers.extract import extract_file  # noqa: E402
from indexers.languages import get_language, language_for_path  # noqa: E402

SKIP_DIRS = {"site-packages", "__pycache__"}


def pick_files(root: Path, lang: str, count: int) -> list[tuple[str, bytes]]:
    """Every k-th file of ``lang`` under ``root`` (all of them for ``count`` 0), with its bytes."""
    paths = []
    for dirpath, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(names):
            spec = language_for_path(name)
            if spec is not None and spec.name == lang:
                paths.append(Path(dirpath, name))
    paths.sort()
    if count and count < len(paths):
        step = len(paths) / count
        paths = [paths[int(i * step)] for i in range(count)]
    return [(p.relative_to(root).as_posix(), p.read_bytes()) for p in paths]


class PartClock:
    """CPU seconds spent in the parser and in the query matching, by wrapping both."""

    def __init__(self) -> None:
        self.parse = 0.0
        self.match = 0.0
        self._grouped = extract_module.grouped_matches
        self._parser_for = extract_module.parser_for
        extract_module.grouped_matches = self._timed_matches
        extract_module.parser_for = self._timed_parser

    def _timed_matches(self, *args):
        start = time.process_time()
        try:
            return self._grouped(*args)
        finally:
            self.match += time.process_time() - start

    def _timed_parser(self, lang: str):
        clock, parser = self, self._parser_for(lang)

        class Timed:
            def parse(self, *args):
                start = time.process_time()
                try:
                    return parser.parse(*args)
                finally:
                    clock.parse += time.process_time() - start

        return Timed()


def run_once(files: list[tuple[str, bytes]], lang: str, parts: bool) -> tuple[float, float, float]:
    clock = PartClock() if parts else None
    start = time.process_time()
    for rel, data in files:
        extract_file(rel, data, lang)
    total = time.process_time() - start
    if clock is None:
        return total, 0.0, 0.0
    extract_module.grouped_matches, extract_module.parser_for = clock._grouped, clock._parser_for
    return total, clock.parse, clock.match


def dump(files: list[tuple[str, bytes]], lang: str, out: Path) -> None:
    with out.open("w") as fh:
        for rel, data in files:
            ext = extract_file(rel, data, lang)
            fh.write(f"== {rel} lang={ext.lang} skip={ext.skip_reason} errors={ext.error_count} "
                     f"package={ext.package} problems={ext.problems}\n")
            for name in ("symbols", "imports", "calls", "values", "bindings", "params", "inherits"):
                for record in getattr(ext, name):
                    fh.write(f"{name[:4]} {tuple(record) if isinstance(record, tuple) else record!r}\n")
            fh.write(f"decl {ext.declared}\nshad {ext.shadowed}\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lang", default="python")
    ap.add_argument("--root", type=Path, default=STDLIB)
    ap.add_argument("--files", type=int, default=300, help="how many files (0: all)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--whole", action="store_true", help="time the whole extraction only, not its parts")
    ap.add_argument("--dump", type=Path, help="write every record to this file instead of timing")
    args = ap.parse_args()
    get_language(args.lang).query()  # the compile is paid once per process, not per run
    files = pick_files(args.root, args.lang, args.files)
    if args.dump:
        dump(files, args.lang, args.dump)
        print(f"{len(files)} files dumped to {args.dump}")
        return
    print(f"{len(files)} {args.lang} files, {sum(len(d) for _, d in files) / 1e6:.1f} MB")
    extract_file(*files[0], args.lang)  # warm caches (grammar, query roles)
    results = []
    for i in range(args.runs):
        total, parse, match = run_once(files, args.lang, not args.whole)
        results.append((total, parse, match))
        print(f"run {i + 1}: total {total:.3f} s  parse {parse:.3f}  match {match:.3f}  rest {total - parse - match:.3f}")
    total, parse, match = (statistics.median(r[i] for r in results) for i in range(3))
    print(f"median: total {total:.3f} s  parse {parse:.3f}  match {match:.3f}  rest {total - parse - match:.3f}")


if __name__ == "__main__":
    main()
