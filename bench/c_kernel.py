"""C as the Linux kernel writes it: syntax errors, definitions against ctags, calls.

    .venv/bin/python bench/c_kernel.py /path/to/linux/fs [--examples 10] [--json out.json]

Extracts every ``.c`` and ``.h`` file under the given directory (a kernel subtree, e.g. the
``fs/`` of Debian's ``linux-source-6.1``) in this process, resolves the calls against a symbol
table of those files, and prints: files, the share reported with syntax errors, definitions
recall and precision against Universal Ctags (``bench/accuracy/ctags_defs.py``, the same rules
as ``bench/accuracy.py``), the resolved calls by reason, and CPU seconds for extraction and
resolution. No Neo4j: what is measured is the C front end, not the writes.
Needs ``ctags`` (Debian: universal-ctags).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.accuracy import ctags_defs  # noqa: E402
from bench.accuracy.common import FileState, Sym  # noqa: E402
from bench.accuracy.corpora import Corpus  # noqa: E402
from indexers.extract import FileExtraction, extract_file  # noqa: E402
from indexers.tree import language_of  # noqa: E402


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def measure(root: Path, examples: int = 10) -> dict:
    corpus = Corpus("c", f"{root.name}/ ({root})", root)
    paths = ctags_defs.corpus_files(corpus)
    t0, c0 = time.perf_counter(), _cpu()
    exts: dict[str, FileExtraction] = {}
    for rel in paths:
        exts[rel] = extract_file(rel, (root / rel).read_bytes(), language_of(rel))
    t1, c1 = time.perf_counter(), _cpu()

    from indexers.resolve import SymbolTable, resolve_file
    from indexers.resolve.common import ResolveStats

    table = SymbolTable(exts.values())
    stats = ResolveStats()
    reasons: Counter = Counter()
    for ext in exts.values():
        for edge in resolve_file(ext, table, stats):
            if edge.type == "CALLS":
                reasons[f"{edge.reason} {'1.0' if edge.confidence >= 1 else '<1'}"] += edge.count
    t2, c2 = time.perf_counter(), _cpu()

    with_errors = sorted(rel for rel, e in exts.items() if e.has_errors)
    syms = [Sym(s.file, s.qualified_name, s.name, s.kind, s.start_line, s.end_line)
            for e in exts.values() for s in e.symbols]
    files = {e.file_id: FileState(e.skip_reason, e.has_errors, ",".join(e.problems) or None)
             for e in exts.values()}
    defs = ctags_defs.measure(corpus, syms, files)
    by_errors = sorted(with_errors, key=lambda r: -exts[r].error_count)
    return {
        "root": str(root),
        "files": len(paths),
        "syntax_error_files": len(with_errors),
        "syntax_error_share": len(with_errors) / len(paths) if paths else None,
        "skipped": dict(Counter(e.skip_reason for e in exts.values() if e.skip_reason)),
        "most_errors": [f"{r} ({exts[r].error_count})" for r in by_errors[:examples]],
        "definitions": defs["score"],
        "definitions_missed": defs["missed"],
        "definitions_extra": defs["extra"],
        "definitions_examples": {k: v[:examples] for k, v in defs["examples"].items()},
        "calls": sum(len(e.calls) for e in exts.values()),
        "call_edges_by_reason": dict(reasons.most_common()),
        "seconds": {"extract_wall": round(t1 - t0, 1), "extract_cpu": round(c1 - c0, 1),
                    "resolve_wall": round(t2 - t1, 1), "resolve_cpu": round(c2 - c1, 1)},
        "ctags": ctags_defs.ctags_version(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", type=Path, help="a kernel subtree, e.g. /tmp/linux/fs")
    ap.add_argument("--examples", type=int, default=10, help="examples of each disagreement")
    ap.add_argument("--json", type=Path, help="write the full report here")
    args = ap.parse_args()
    if not args.root.is_dir():
        sys.exit(f"c_kernel: {args.root} is not a directory")
    report = measure(args.root.resolve(), args.examples)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    d = report["definitions"]
    s = report["seconds"]
    print(f"| tree | files | syntax errors | defs recall | defs precision | calls resolved | extract s | resolve s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    resolved = sum(report["call_edges_by_reason"].values())
    print(f"| {args.root} | {report['files']} | {report['syntax_error_files']} "
          f"({report['syntax_error_share']:.1%}) | {d['recall']:.2%} | {d['precision']:.2%} "
          f"| {resolved}/{report['calls']} | {s['extract_cpu']} | {s['resolve_cpu']} |")
    print("\nCPU seconds (wall):", s, "; ctags:", report["ctags"])
    print("most errors:", *report["most_errors"], sep="\n  ")
    print("definitions missed:", json.dumps(report["definitions_missed"], indent=1))
    print("definitions extra:", json.dumps(report["definitions_extra"], indent=1))
    print("call edges by reason:", json.dumps(report["call_edges_by_reason"], indent=1))


if __name__ == "__main__":
    main()
