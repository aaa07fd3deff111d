"""Neo4j's CPU per node and per relationship written by a first (cold) index.

    .venv/bin/python bench/neo4j_writes.py [--corpus stdlib|PATH] [--runs 3] [--uri bolt://…]

Neo4j's share of a cold index is CPU spent on the server, which wall time on a loaded machine
hides, so this reads the server process's own CPU time (user + system, all its threads) around
each of the writer's calls, split by phase: the tree (directories and files), the symbols, the
relationships (with the external nodes they point at) and the rest. After the run it waits
for the server to settle (background index work such as an eventually consistent full-text
index's refresh counts too), then drops the workspace (not counted).

Without ``--uri`` a private Neo4j is started (the jars of the default install, free ports, a
temporary directory, a bounded heap and page cache) so that nobody else's queries are counted,
and stopped at the end. Each run indexes the corpus into a fresh workspace of the same server;
a first index of the whole corpus comes first and is not counted (a server compiles its write
paths over its first large indexes: a small warm-up left the first counted run at twice the
CPU of the third). Medians over the runs are printed, with the CPU by JVM thread group of the
last run.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import EXCLUDE, copy_stdlib  # noqa: E402
from graphsvc.neo4j import ManagedNeo4j, free_port  # noqa: E402
from graphsvc.settings import reload_settings  # noqa: E402

_TICKS = os.sysconf("SC_CLK_TCK")
# The writer's calls by phase; any other Neo4j CPU during the run counts as "other".
PHASES = {
    "tree": ("upsert_workspace", "upsert_dirs", "upsert_files", "delete_entries"),
    "symbols": ("create_symbols", "upsert_symbols", "delete_symbols", "delete_file_symbols"),
    "relationships": ("create_edges", "create_edge_stream", "upsert_externals", "delete_outgoing_code_edges"),
    "unresolved": ("set_unresolved_calls",),
    "file marks": ("mark_files",),
    "externals gc": ("delete_orphan_externals",),
}
# The server is settled once a second passes with less than this much CPU in it.
SETTLED_CPU_S = 0.05
SETTLE_LIMIT_S = 60.0


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of a process, all its threads, from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


def thread_cpu(pid: int) -> Counter[str]:
    """CPU seconds by thread group (the thread's name without its number) of a live process."""
    groups: Counter[str] = Counter()
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            text = (task / "stat").read_text()
        except OSError:
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        fields = text.rsplit(")", 1)[1].split()
        groups[re.sub(r"[-#\s]*\d+$", "", name) or name] += (int(fields[11]) + int(fields[12])) / _TICKS
    return groups


class PhaseClock:
    """Neo4j CPU spent inside each of the writer's calls, summed by phase. Calls of one phase
    may overlap (its batches go over concurrent transactions), so a phase's clock runs from
    the first of its calls to start until the last to end."""

    def __init__(self, pid: int):
        self.pid = pid
        self.cpu: Counter[str] = Counter()
        self._open: Counter[str] = Counter()
        self._since: dict[str, float] = {}
        self._lock = threading.Lock()

    @contextmanager
    def measure(self, phase: str) -> Iterator[None]:
        with self._lock:
            if not self._open[phase]:
                self._since[phase] = process_cpu(self.pid)
            self._open[phase] += 1
        try:
            yield
        finally:
            with self._lock:
                self._open[phase] -= 1
                if not self._open[phase]:
                    self.cpu[phase] += process_cpu(self.pid) - self._since.pop(phase)

    def wrap(self, cls: type) -> Callable[[], None]:
        """Time the writer's calls of every phase; returns what undoes it."""
        saved = {}
        for phase, names in PHASES.items():
            for name in names:
                saved[name] = original = getattr(cls, name)
                setattr(cls, name, self._timed(phase, original))
        return lambda: [setattr(cls, name, original) for name, original in saved.items()]

    def _timed(self, phase: str, method: Callable) -> Callable:
        @functools.wraps(method)
        def timed(*args, **kwargs):
            with self.measure(phase):
                return method(*args, **kwargs)

        return timed


@dataclass
class Run:
    symbols: int
    relationships: int
    files: int
    seconds: float
    during: float  # Neo4j CPU from the start of the index to its end
    settle: float  # Neo4j CPU after it, until the server settled
    phases: dict[str, float] = field(default_factory=dict)
    threads: Counter[str] = field(default_factory=Counter)

    @property
    def total(self) -> float:
        return self.during + self.settle


def settle(pid: int, graph) -> float:
    """Wait for the server's background work on what was written; the CPU it took."""
    start = process_cpu(pid)
    graph.write("CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()")
    deadline = time.monotonic() + SETTLE_LIMIT_S
    last = process_cpu(pid)
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = process_cpu(pid)
        if now - last < SETTLED_CPU_S:
            break
        last = now
    return process_cpu(pid) - start


def index_once(corpus: Path, workspace: str, pid: int, jobs: int) -> Run:
    from graphsvc.graph.driver import get_graph
    from graphsvc.graph.writer import GraphWriter
    from graphsvc.indexing.pipeline import index_symbols
    from graphsvc.indexing.workspaces import drop_workspace

    graph = get_graph()
    drop_workspace(workspace, graph, missing_ok=True)
    settle(pid, graph)
    clock = PhaseClock(pid)
    undo = clock.wrap(GraphWriter)
    threads_before = thread_cpu(pid)
    before = process_cpu(pid)
    started = time.perf_counter()
    try:
        summary = index_symbols(corpus, workspace=workspace, jobs=jobs, exclude=EXCLUDE)
    finally:
        undo()
    seconds = time.perf_counter() - started
    during = process_cpu(pid) - before
    settled = settle(pid, graph)
    threads = thread_cpu(pid)
    threads.subtract(threads_before)
    phases = dict(clock.cpu)
    phases["other"] = during - sum(phases.values())
    phases["after"] = settled
    run = Run(summary.symbols, sum(summary.edges_written.values()), summary.files, seconds, during, settled,
              phases, threads)
    drop_workspace(workspace, graph, missing_ok=True)
    return run


def report(corpus: Path, runs: list[Run]) -> None:
    def med(values) -> float:
        return statistics.median(values)

    last = runs[-1]
    print(f"\n{corpus}: {last.files:,} files, {last.symbols:,} symbols, {last.relationships:,} relationships; "
          f"{len(runs)} runs, medians")
    total = med(r.total for r in runs)
    print(f"  Neo4j CPU: {total:6.1f} s in all ({med(r.during for r in runs):.1f} s during the index, "
          f"{med(r.settle for r in runs):.1f} s after); wall {med(r.seconds for r in runs):.1f} s")
    for phase in [*PHASES, "other", "after"]:
        values = [r.phases.get(phase, 0.0) for r in runs]
        print(f"    {phase:14} {med(values):6.1f} s   runs: " + " ".join(f"{v:.1f}" for v in values))
    sym = med(r.phases.get("symbols", 0.0) / max(r.symbols, 1) for r in runs) * 1e6
    rel = med(r.phases.get("relationships", 0.0) / max(r.relationships, 1) for r in runs) * 1e6
    per_symbol_all = med(r.total / max(r.symbols, 1) for r in runs) * 1e6
    print(f"  per symbol node (symbol phase): {sym:6.0f} µs   per relationship (relationship phase): {rel:5.0f} µs")
    print(f"  whole run over symbols: {per_symbol_all:6.0f} µs of Neo4j CPU per symbol")
    print("  last run's Neo4j CPU by thread group: " + ", ".join(
        f"{name} {cpu:.1f}" for name, cpu in last.threads.most_common(8) if cpu >= 0.05))


@contextmanager
def private_neo4j(work: Path, heap: str, pagecache: str) -> Iterator[str]:
    """A throwaway Neo4j in `work` on free ports; yields its Bolt URI with the environment set."""
    base = reload_settings().neo4j
    settings = base.model_copy(update={"heap": heap, "pagecache": pagecache, "start_timeout_s": 600.0,
                                       "transaction_timeout_s": 600.0})
    server = ManagedNeo4j(settings, instance_dir=work / "neo4j", bolt_port=free_port(), http_port=free_port())
    try:
        server.start(free_ports=True)
        info = server.connection_info()
        os.environ.update(NEO4J_URI=info.uri, NEO4J_USER=info.user, NEO4J_PASSWORD=info.password)
        yield info.uri
    finally:
        server.stop(timeout_s=90)


def bench(corpus: Path, uri: str, runs: int, jobs: int, workspace: str, warm_up: bool) -> list[Run]:
    from bench.common import server_pid
    from graphsvc.graph.driver import get_graph
    from graphsvc.graph.schema import apply_schema

    reload_settings()
    apply_schema(get_graph())
    pid = server_pid(uri)
    if pid is None:
        raise SystemExit(f"no process on this machine listens at {uri}: its CPU cannot be read")
    print(f"Neo4j at {uri} (pid {pid}); corpus {corpus}; {jobs} parser processes")
    if warm_up:
        w = index_once(corpus, workspace + "-warm-up", pid, jobs)
        print(f"warm-up (not counted): {w.symbols:,} symbols, Neo4j CPU {w.total:.1f} s")
    done = []
    for i in range(runs):
        run = index_once(corpus, f"{workspace}-{i}", pid, jobs)
        print(f"run {i + 1}: Neo4j CPU {run.total:.1f} s (" + ", ".join(
            f"{k} {v:.1f}" for k, v in run.phases.items()) + f"); wall {run.seconds:.1f} s")
        done.append(run)
    return done


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="stdlib", help="'stdlib' (a private copy) or a directory")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--uri", help="a Neo4j on this machine to use instead of starting one (its CPU is read)")
    ap.add_argument("--workspace", default="bench-neo4j-writes")
    ap.add_argument("--heap", default="1g")
    ap.add_argument("--pagecache", default="1g")
    ap.add_argument("--no-warm-up", action="store_true")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="graphsvc-neo4j-writes-"))
    try:
        corpus = copy_stdlib(work / "stdlib") if args.corpus == "stdlib" else Path(args.corpus).resolve()
        if args.uri:
            os.environ["NEO4J_URI"] = args.uri
            os.environ["GRAPHSVC_HOME"] = str(work / "home")
            runs = bench(corpus, args.uri, args.runs, args.jobs, args.workspace, not args.no_warm_up)
        else:
            with private_neo4j(work, args.heap, args.pagecache) as uri:
                # Index state and the grep store of these runs stay in the temporary directory.
                os.environ["GRAPHSVC_HOME"] = str(work / "home")
                runs = bench(corpus, uri, args.runs, args.jobs, args.workspace, not args.no_warm_up)
        report(corpus, runs)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
