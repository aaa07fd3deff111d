"""The Linux kernel (or one of its directories) indexed end to end, with its costs.

    apt-get install -y linux-source-6.1
    mkdir -p /tmp/linux && tar -xJf /usr/src/linux-source-6.1.tar.xz -C /tmp/linux --strip-components=1
    .venv/bin/python bench/kernel.py /tmp/linux fs            # one directory
    .venv/bin/python bench/kernel.py /tmp/linux               # the whole tree
    .venv/bin/python bench/kernel.py /tmp/linux drivers/net --no-db

Indexes with the top-level ``.gitignore`` overridden (Debian's package ignores everything
outside ``debian/``), into a workspace ``kernel-<dir>`` dropped first, so every run is a
full one. Prints the wall time and its stages, peak resident memory of our processes (this
one, the forkserver and the parser processes, sampled every 0.1 s) and of Neo4j (when it
runs on this machine), nodes and relationships written, the share of files with syntax
errors and the CPU time per stage. Then ``--edit`` C files (100 by default, spread over the
tree) get a new function appended and are indexed again in the same process, as a server
would (the edits are undone afterwards), and the workspace is dropped (``--keep`` keeps it).

``--no-db`` extracts and resolves without a database (as ``bench/resolution_digest.py``
does): the cost of parsing and resolution alone, per 100 k call sites and per symbol.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import threading
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import CpuTimeline, TreeRss, cpu_seconds, drop_workspace, local_neo4j  # noqa: E402
from graphsvc.graph.driver import get_graph  # noqa: E402
from graphsvc.indexing.pipeline import index_symbols  # noqa: E402
from graphsvc.indexing.pool import parse_files  # noqa: E402
from graphsvc.indexing.spool import EdgeSpool  # noqa: E402
from indexers.languages import language_for_path  # noqa: E402
from indexers.resolve import ResolveStats, SymbolTable, paused_gc, resolve_file  # noqa: E402


class PeakRss:
    """Peak resident memory of one other process (Neo4j), sampled."""

    def __init__(self, proc: psutil.Process | None, interval_s: float = 0.5):
        self.proc, self.interval_s, self.peak_mb = proc, interval_s, 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while self.proc is not None and not self._stop.is_set():
            try:
                self.peak_mb = max(self.peak_mb, self.proc.memory_info().rss / 2**20)
            except psutil.Error:
                return
            self._stop.wait(self.interval_s)

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _own_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _source_files(root: Path) -> list[tuple[str, str]]:
    out = []
    for dirpath, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            spec = language_for_path(name)
            if spec is not None:
                out.append((Path(dirpath, name).relative_to(root).as_posix(), spec.name))
    return out


def without_database(root: Path, jobs: int) -> None:
    files = _source_files(root)
    me = psutil.Process()
    with TreeRss() as rss:
        t0, c0, a0 = time.perf_counter(), _own_cpu(), cpu_seconds(me)
        with paused_gc():
            # As an index run does: the symbols without their signatures and docs.
            exts = {ext.path: ext for ext, _ in parse_files(str(root), files, jobs, None, texts=False)}
        t1, c1, a1 = time.perf_counter(), _own_cpu(), cpu_seconds(me)
        table = SymbolTable(exts.values())
        c2 = _own_cpu()
        # As an index run does: each file's edges to disk as it is resolved.
        edges, stats = EdgeSpool(), ResolveStats()
        with paused_gc():
            for path in sorted(exts):
                edges.add(resolve_file(exts[path], table, stats))
                edges.add_unresolved(stats.unresolved_sites)
                stats.unresolved_sites.clear()
        t3, c3 = time.perf_counter(), _own_cpu()
        edges.close()
    symbols = sum(len(e.symbols) for e in exts.values())
    errors = sum(1 for e in exts.values() if e.has_errors)
    print(f"{root}: {len(files):,} files, {symbols:,} symbols, {stats.calls:,} call sites, {edges.count:,} edges; "
          f"syntax errors in {errors / max(len(exts), 1):.1%} of files")
    print(f"  parse   {t1 - t0:7.1f} s wall, {a1 - a0:7.1f} s CPU (parser processes included)")
    print(f"  table   {c2 - c1:7.1f} s CPU")
    print(f"  resolve {c3 - c2:7.1f} s CPU = {(c3 - c2) / max(stats.calls, 1) * 1e5:.2f} s per 100 k call sites")
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  wall {t3 - t0:.1f} s; peak memory: this process {own:,.0f} MB ({own * 2**20 / max(symbols, 1):,.0f} B "
          f"per symbol), with its parser processes {rss.peak_mb:,.0f} MB")


def with_database(root: Path, subdir: str, jobs: int | None, edit: int, keep: bool) -> None:
    workspace = "kernel-" + (subdir.strip("/").replace("/", "-") or "all")
    drop_workspace(workspace)
    try:
        _full_run(root, workspace, jobs)
        if edit:
            _edited_run(root, workspace, jobs, edit)
    finally:
        if not keep:
            drop_workspace(workspace)


def _full_run(root: Path, workspace: str, jobs: int | None) -> None:
    graph = get_graph()
    neo4j = local_neo4j(graph.uri)
    me = psutil.Process()
    neo4j_cpu0, our_cpu0 = cpu_seconds(neo4j), cpu_seconds(me)
    with TreeRss() as rss, PeakRss(neo4j) as neo4j_rss, CpuTimeline(me, neo4j) as cpu:
        t0, m0 = time.perf_counter(), time.monotonic()
        s = index_symbols(root, workspace=workspace, graph=graph, jobs=jobs, ignore_files=False)
        wall = time.perf_counter() - t0
    edges = sum(s.edges_written.values())
    tree_nodes = (s.tree.directories + s.tree.files) if s.tree else 0
    print(f"{root} as {workspace}: {s.files:,} source files, wall {wall:.1f} s "
          f"(tree {s.tree.seconds if s.tree else 0:.1f}, parse {s.parse_seconds:.1f}, "
          f"resolve {s.resolve_seconds:.1f} beside the symbol writes, then writes {s.write_seconds:.1f})")
    print(f"  nodes {s.symbols + tree_nodes:,} ({s.symbols:,} symbols, {tree_nodes:,} directories and files), "
          f"relationships {edges:,} ({', '.join(f'{k} {v:,}' for k, v in sorted(s.edges_written.items()))}) "
          f"besides CONTAINS of the tree")
    print(f"  syntax errors in {s.syntax_error_files / max(s.files, 1):.1%} of source files; "
          f"{s.calls.get('calls', 0):,} call sites, {s.calls.get('candidate_calls', 0):,} left as candidates, "
          f"{s.calls.get('unresolved', 0):,} unresolved")
    print(f"  peak memory: our processes {rss.peak_mb:,.0f} MB (parser processes included), "
          f"Neo4j {neo4j_rss.peak_mb:,.0f} MB" + ("" if neo4j else " (not on this machine)"))
    print(f"  CPU: ours {cpu_seconds(me) - our_cpu0:,.1f} s, Neo4j {cpu_seconds(neo4j) - neo4j_cpu0:,.1f} s")
    _print_phase_cores(s, cpu, m0, wall)


def _print_phase_cores(s, cpu: CpuTimeline, m0: float, wall: float) -> None:
    """Cores used by each side per stage (the stages follow each other; what falls between
    them, such as building the symbol table, counts as "other")."""
    stages = [("tree", s.tree.seconds if s.tree else 0.0), ("parse", s.parse_seconds),
              ("resolve", s.resolve_seconds), ("writes after", s.write_seconds)]
    parts, t = [], m0
    for name, seconds in stages:
        ours, theirs = cpu.cores(t, t + seconds)
        parts.append(f"{name} {ours:.2f} + {theirs:.2f}")
        t += seconds
    ours, theirs = cpu.cores(m0, m0 + wall)
    print(f"  cores used, ours + Neo4j: {', '.join(parts)}; whole run {ours:.2f} + {theirs:.2f}")


def _edited_run(root: Path, workspace: str, jobs: int | None, count: int) -> None:
    """``count`` C files, evenly spread over the sorted tree, each with a function appended
    that calls one the kernel defines everywhere; indexed again, then restored."""
    sources = sorted(p for p in root.rglob("*.c") if p.is_file() and not p.is_symlink())
    picked = sources[:: max(1, len(sources) // count)][:count]
    originals = {p: p.read_bytes() for p in picked}
    graph = get_graph()
    neo4j = local_neo4j(graph.uri)
    me = psutil.Process()
    try:
        for i, p in enumerate(picked):
            added = f"\nstatic void graphsvc_bench_edit_{i}(void)\n{{\n\tkfree(NULL);\n}}\n"
            p.write_bytes(originals[p] + added.encode())
        neo4j_cpu0, our_cpu0 = cpu_seconds(neo4j), cpu_seconds(me)
        with TreeRss() as rss:
            t0 = time.perf_counter()
            s = index_symbols(root, workspace=workspace, graph=graph, jobs=jobs, ignore_files=False)
            wall = time.perf_counter() - t0
    finally:
        for p, data in originals.items():
            p.write_bytes(data)
    print(f"  {len(picked)} files edited: wall {wall:.1f} s ({s.mode}; parsed {s.parsed:,}, re-resolved "
          f"{s.resolved_files:,} files, {sum(s.edges_written.values()):,} relationships written); "
          f"CPU ours {cpu_seconds(me) - our_cpu0:,.1f} s, Neo4j {cpu_seconds(neo4j) - neo4j_cpu0:,.1f} s; "
          f"peak memory of our processes {rss.peak_mb:,.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree", type=Path, help="the extracted kernel source")
    parser.add_argument("subdir", nargs="?", default="", help="a directory of it (default: all of it)")
    parser.add_argument("--no-db", action="store_true", help="extract and resolve only, no Neo4j")
    parser.add_argument("--jobs", type=int, default=None, help="parser processes (default: one per core)")
    parser.add_argument("--edit", type=int, default=100, metavar="N",
                        help="C files to edit and index again after the full run (0: none; default 100)")
    parser.add_argument("--keep", action="store_true", help="keep the workspace in Neo4j afterwards")
    args = parser.parse_args()
    root = (args.tree / args.subdir).resolve()
    if not root.is_dir():
        parser.error(f"{root} is not a directory")
    if args.no_db:
        without_database(root, args.jobs or os.cpu_count() or 1)
    else:
        with_database(root, args.subdir, args.jobs, args.edit, args.keep)


if __name__ == "__main__":
    main()
