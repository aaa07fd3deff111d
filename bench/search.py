"""Search latency on a workspace the size of the standard library.

    .venv/bin/python bench/search.py [--files 0] [--rounds 6]

Starts a throwaway Neo4j (jars of the default install, free ports, a temporary directory),
indexes the standard library (or its first ``--files`` source files), then runs the 20
queries of `QUERIES` ``--rounds`` times through `engine.search` (the first round warms up and
is not counted) and prints p50/p95/max in milliseconds, with the top hit of each query.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import EXCLUDE, STDLIB  # noqa: E402
from graphsvc.neo4j import ManagedNeo4j, free_port  # noqa: E402
from graphsvc.settings import reload_settings  # noqa: E402

QUERIES = [
    "parse", "join", "HTTPConnection", "read", "socket", "decode", "Thread", "os path", "json dumps",
    "Request", "get", "encode utf", "TestCase", "open", "Path", "getLogger", "compile", "datetime",
    "sort key", "a",
]


def _subset(target: Path, files: int) -> Path:
    """The first `files` .py files of the standard library (sorted paths), copied."""
    chosen = sorted(p for p in STDLIB.rglob("*.py") if "site-packages" not in p.parts)[:files]
    for src in chosen:
        dst = target / src.relative_to(STDLIB)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
    return target


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", type=int, default=0, help="index only this many files (0: all)")
    ap.add_argument("--rounds", type=int, default=6)
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="graphsvc-search-bench-"))
    base = reload_settings().neo4j
    settings = base.model_copy(update={"heap": "1g", "pagecache": "512m", "start_timeout_s": 600.0})
    server = ManagedNeo4j(settings, instance_dir=work / "neo4j", bolt_port=free_port(), http_port=free_port())
    try:
        server.start(free_ports=True)
        info = server.connection_info()
        os.environ.update(NEO4J_URI=info.uri, NEO4J_USER=info.user, NEO4J_PASSWORD=info.password,
                          GRAPHSVC_HOME=str(work / "home"))
        reload_settings()
        from graphsvc.graph.driver import get_graph
        from graphsvc.graph.schema import apply_schema
        from graphsvc.query import engine
        from graphsvc.indexing.pipeline import index_symbols

        apply_schema(get_graph())
        root = _subset(work / "corpus", args.files) if args.files else STDLIB
        t = time.perf_counter()
        summary = index_symbols(root, workspace="stdlib", exclude=EXCLUDE)
        print(f"indexed {summary.files} files, {summary.symbols} symbols in {time.perf_counter() - t:.1f} s")

        times: list[float] = []
        per_query: dict[str, list[float]] = {q: [] for q in QUERIES}
        top: dict[str, str] = {}
        for round_no in range(args.rounds):
            for q in QUERIES:
                t = time.perf_counter()
                result = engine.search(q, workspace="stdlib")
                ms = (time.perf_counter() - t) * 1000
                if round_no:
                    times.append(ms)
                    per_query[q].append(ms)
                top[q] = result.hits[0].entity.id if result.hits else "-"
        times.sort()
        p95 = times[int(0.95 * (len(times) - 1))]
        print(f"search over {len(QUERIES)} queries x {args.rounds - 1} rounds: "
              f"p50 {statistics.median(times):.1f} ms, p95 {p95:.1f} ms, max {times[-1]:.1f} ms")
        for q in QUERIES:
            print(f"  {q!r:18} median {statistics.median(per_query[q]):7.1f} ms  top {top[q]}")
    finally:
        server.stop(timeout_s=90)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
