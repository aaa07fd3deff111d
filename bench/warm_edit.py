"""One-file edits indexed by a warm process, as the server's index jobs run them, in process.

    .venv/bin/python bench/warm_edit.py TREE [--workspace NAME] [--edit REL] [--edits 10]
        [--profile FILE] [--keep] [--reuse]

Copies TREE (e.g. an unpacked Django sdist) to a private directory, indexes it once with
`index_symbols(..., watch_tree=True)` (the call a server's job makes), indexes one edit to
warm the process (the first edit loads the index state and has Neo4j plan its statements),
then appends a function to `--edit` and indexes it `--edits` times. Prints each edit's wall
and CPU milliseconds (this process and its children: the parser processes, if any), the
Neo4j calls it made (statements sent, and transactions), and the medians. `--profile FILE`
writes a cProfile of the measured edits (of this thread: the writes and the grep index that
run beside resolution are waited for, not profiled). The workspace and the copy are dropped
at the end unless `--keep`; `--reuse` starts from those a `--keep` run left (the first run
is then an unchanged one, and before/after comparisons skip the cold index).
Uses NEO4J_URI when set, otherwise the managed Neo4j.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import cpu_seconds, drop_workspace  # noqa: E402
from graphsvc.graph.driver import Graph, get_graph  # noqa: E402
from graphsvc.indexing.pipeline import index_symbols  # noqa: E402


class CallCounter:
    """Counts what the graph is asked: statements and transactions, by kind of call."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    def install(self) -> None:
        for name in ("read", "write", "autocommit", "write_transaction"):
            original = getattr(Graph, name)
            setattr(Graph, name, self._counted(name, original))

    def _counted(self, name, original):
        calls = self.calls

        def counted(graph, *args, **kwargs):
            calls[name] += 1
            return original(graph, *args, **kwargs)

        return counted

    def take(self) -> Counter[str]:
        taken = Counter(self.calls)
        self.calls.clear()
        return taken


def edit(tree: Path, relative: str, n: int) -> None:
    with (tree / relative).open("a") as f:
        f.write(f"\n\ndef _bench_added_{n}(value):\n    return str(value).strip()\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree", type=Path)
    parser.add_argument("--workspace", default="bench-warm-edit")
    parser.add_argument("--edit", default="django/utils/text.py", help="the file edited, relative to the tree")
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--profile", type=Path)
    parser.add_argument("--keep", action="store_true", help="keep the workspace and the copy")
    parser.add_argument("--reuse", action="store_true", help="start from the workspace and copy a --keep run left")
    args = parser.parse_args()

    copy = Path(tempfile.gettempdir()) / "graphsvc-warm-edit" / args.workspace
    graph = get_graph()
    if not (args.reuse and copy.exists()):
        if copy.exists():
            shutil.rmtree(copy)
        shutil.copytree(args.tree, copy, symlinks=True)
        drop_workspace(args.workspace)
    counter = CallCounter()
    counter.install()
    me = psutil.Process()
    try:
        started = time.perf_counter()
        summary = index_symbols(copy, workspace=args.workspace, graph=graph, watch_tree=True)
        print(f"first index: {time.perf_counter() - started:.1f} s, {summary.symbols} symbols; "
              f"load average {os.getloadavg()[0]:.2f}", flush=True)
        first = sum(1 for line in (copy / args.edit).read_text().splitlines() if line.startswith("def _bench_added_"))
        edit(copy, args.edit, first)
        index_symbols(copy, workspace=args.workspace, graph=graph, watch_tree=True)
        counter.take()
        walls, cpus = [], []
        profile = cProfile.Profile() if args.profile else None
        for n in range(first + 1, first + args.edits + 1):
            edit(copy, args.edit, n)
            cpu, started = cpu_seconds(me), time.perf_counter()
            if profile:
                profile.enable()
            summary = index_symbols(copy, workspace=args.workspace, graph=graph, watch_tree=True)
            if profile:
                profile.disable()
            walls.append((time.perf_counter() - started) * 1000)
            cpus.append((cpu_seconds(me) - cpu) * 1000)
            calls = counter.take()
            print(f"edit {n}: wall {walls[-1]:.0f} ms, CPU {cpus[-1]:.0f} ms, parsed {summary.parsed}, "
                  f"resolved {summary.resolved_files}; Neo4j {dict(calls)}", flush=True)
        print(f"p50 wall {statistics.median(walls):.0f} ms, p50 CPU {statistics.median(cpus):.0f} ms over "
              f"{len(walls)} edits; load average {os.getloadavg()[0]:.2f}")
        if profile:
            profile.dump_stats(args.profile)
    finally:
        if not args.keep:
            drop_workspace(args.workspace)
            shutil.rmtree(copy, ignore_errors=True)


if __name__ == "__main__":
    main()
