"""Every resolved edge of three corpora, dumped as text, to prove a change leaves them alone.

    .venv/bin/python bench/resolution_digest.py --out before.txt [--jobs N]
    .venv/bin/python bench/resolution_digest.py --out after.txt --compare before.txt

Extracts and resolves without a database, as the indexer does (the parser processes and the
index state's encoding included): the standard library (without site-packages) as one
workspace, each language directory of tests/fixtures/symbols and each case of PyCG's
micro-benchmark (tests/fixtures/third_party/pycg) as one of its own. The dump holds, per
corpus, every symbol, every edge (type, ends, prov,
confidence, reason, line, count) and every unresolved-call record; one sha256 per corpus is
printed. ``--compare`` exits 1 and shows the first differing lines when the dumps differ.
It also prints the CPU seconds of extraction and of resolution, as a rough guide.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import STDLIB, cpu_seconds  # noqa: E402
from graphsvc.indexing.pool import parse_files  # noqa: E402
from indexers.extract import FileExtraction  # noqa: E402
from indexers.languages import language_for_path  # noqa: E402
from indexers.resolve import SymbolTable, resolve_all  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "symbols"
PYCG = ROOT / "tests" / "fixtures" / "third_party" / "pycg"
SKIP_DIRS = {"site-packages", "__pycache__"}


def _cpu() -> float:
    # The parser processes are children of the forkserver, not of this process.
    return cpu_seconds(psutil.Process())


def _files(root: Path) -> list[tuple[str, str]]:
    out = []
    for dirpath, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(names):
            spec = language_for_path(name)
            if spec is not None:
                out.append((Path(dirpath, name).relative_to(root).as_posix(), spec.name))
    return sorted(out)


def _extract(root: Path, jobs: int) -> dict[str, FileExtraction]:
    return {ext.path: ext for ext, _ in parse_files(str(root), _files(root), jobs, None)}


def _dump(exts: dict[str, FileExtraction]) -> Iterator[str]:
    table = SymbolTable(exts.values())
    edges, stats = resolve_all(table)
    for path in sorted(exts):
        for s in exts[path].symbols:
            yield f"S {s!r}"
    # Sorted: the order of a call's candidates follows string hashing, which varies by process.
    yield from sorted(f"E {e.type} {e.src} {e.dst} {e.prov} {e.confidence!r} {e.reason} {e.line} {e.count}"
                      for e in edges)
    yield from sorted(f"U {u.id} {u.unresolved_calls} {u.unresolved_sites!r}" for u in stats.unresolved_sites)
    yield f"STATS {stats.as_dict()!r}"


def corpora() -> Iterator[tuple[str, Path]]:
    yield "stdlib", STDLIB
    for d in sorted(p for p in FIXTURES.iterdir() if p.is_dir()):
        yield f"fixtures/{d.name}", d
    for d in sorted(p for p in PYCG.glob("*/*") if p.is_dir()):
        yield f"pycg/{d.relative_to(PYCG).as_posix()}", d


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="where to write the dump")
    parser.add_argument("--compare", type=Path, help="an earlier dump that this one must equal")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", help="only the corpora whose name starts with this")
    args = parser.parse_args()
    extract_s = resolve_s = 0.0
    overall = hashlib.sha256()
    with args.out.open("w") as out:
        for name, root in corpora():
            if args.only and not name.startswith(args.only):
                continue
            t0 = _cpu()
            exts = _extract(root, args.jobs)
            t1 = _cpu()
            digest = hashlib.sha256()
            out.write(f"# {name}\n")
            for line in _dump(exts):
                out.write(line + "\n")
                digest.update(line.encode() + b"\n")
                overall.update(line.encode() + b"\n")
            t2 = _cpu()
            extract_s, resolve_s = extract_s + t1 - t0, resolve_s + t2 - t1
            if name == "stdlib" or args.only:
                print(f"{name}: {digest.hexdigest()[:16]}  extract {t1 - t0:.1f} s CPU, resolve {t2 - t1:.1f} s CPU")
    print(f"all corpora: {overall.hexdigest()[:16]}  extract {extract_s:.1f} s CPU, resolve {resolve_s:.1f} s CPU; dump in {args.out}")
    if args.compare:
        sys.exit(_compare(args.compare, args.out))


def _compare(before: Path, after: Path) -> int:
    a, b = before.read_text().splitlines(), after.read_text().splitlines()
    if a == b:
        print(f"identical to {before} ({len(a):,} lines)")
        return 0
    diff = list(difflib.unified_diff(a, b, str(before), str(after), n=1, lineterm=""))
    print("\n".join(diff[:60]))
    print(f"DIFFERENT from {before}: {sum(1 for d in diff if d[:1] in '+-') - 2} lines changed")
    return 1


if __name__ == "__main__":
    main()
