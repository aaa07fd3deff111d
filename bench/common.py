"""Shared pieces of the benchmark scripts: the corpus, the graph, memory figures."""

from __future__ import annotations

import resource
import shutil
import threading
import sysconfig
import time
from pathlib import Path
from urllib.parse import urlparse

import psutil

from graphsvc.graph.driver import get_graph
from graphsvc.indexing import workspaces

STDLIB = Path(sysconfig.get_paths()["stdlib"])
EXCLUDE = ["/site-packages/"]


def peak_rss_mb() -> tuple[float, float]:
    """Peak resident memory of this process and of its finished children, in MB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, children


def drop_workspace(workspace: str) -> None:
    """Drop a workspace (its graph and index state), if it exists, so the next run is cold."""
    workspaces.drop_workspace(workspace, get_graph(), missing_ok=True)


def copy_stdlib(target: Path) -> Path:
    """A private copy of the standard library (without site-packages) that a benchmark may edit."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(STDLIB, target, ignore=shutil.ignore_patterns("site-packages", "__pycache__"), symlinks=True)
    return target


def server_pid(url: str) -> int | None:
    """The process listening on the port of `url` on this machine, if any."""
    port = urlparse(url).port
    for conn in psutil.net_connections("tcp"):
        if conn.status == psutil.CONN_LISTEN and conn.laddr.port == port and conn.pid:
            return conn.pid
    return None


def local_neo4j(uri: str) -> psutil.Process | None:
    """The Neo4j process serving `uri` when it runs on this machine (to read its CPU time)."""
    if urlparse(uri).hostname not in ("127.0.0.1", "localhost"):
        return None
    pid = server_pid(uri)
    return psutil.Process(pid) if pid is not None else None


def cpu_seconds(proc: psutil.Process | None) -> float:
    """CPU time (user + system) of a process and all its descendants, live or finished (a
    finished one counts in its parent's children times); 0 without a process."""
    if proc is None:
        return 0.0
    total = 0.0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            t = p.cpu_times()
        except psutil.Error:
            continue
        total += t.user + t.system + t.children_user + t.children_system
    return total


class TreeRss:
    """Peak resident memory of this process plus all its descendants (the parser processes
    are children of the forkserver, not ours, so getrusage never sees them), sampled."""

    # Finding the descendants reads every process of the machine: done this often only, so the
    # sampler's own CPU (counted as ours by the benchmarks) stays small beside the run's.
    REFRESH_S = 1.0

    def __init__(self, interval_s: float = 0.1):
        self.interval_s = interval_s
        self.peak_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="rss-sampler", daemon=True)

    def _sample(self) -> None:
        me = psutil.Process()
        procs, refreshed = [me], 0.0
        while not self._stop.is_set():
            if time.monotonic() - refreshed >= self.REFRESH_S:
                procs, refreshed = [me, *me.children(recursive=True)], time.monotonic()
            total = 0
            for p in procs:
                try:
                    total += p.memory_info().rss
                except psutil.Error:
                    pass
            self.peak_mb = max(self.peak_mb, total / 2**20)
            self._stop.wait(self.interval_s)

    def __enter__(self) -> TreeRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


class CpuTimeline:
    """CPU seconds of our processes and of Neo4j, sampled every `interval_s`, so that a run's
    phases can be told apart: how many cores each side kept busy while it parsed, resolved or
    only wrote."""

    def __init__(self, ours: psutil.Process, neo4j: psutil.Process | None, interval_s: float = 2.0):
        self.ours, self.neo4j, self.interval_s = ours, neo4j, interval_s
        self.samples: list[tuple[float, float, float]] = []  # (monotonic, ours, Neo4j)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="cpu-sampler", daemon=True)

    def _take(self) -> None:
        self.samples.append((time.monotonic(), cpu_seconds(self.ours), cpu_seconds(self.neo4j)))

    def _sample(self) -> None:
        while not self._stop.wait(self.interval_s):
            self._take()

    def cores(self, start: float, end: float) -> tuple[float, float]:
        """Average cores used by ours and by Neo4j between two monotonic times (the samples
        nearest them)."""
        def at(t: float) -> tuple[float, float, float]:
            return min(self.samples, key=lambda s: abs(s[0] - t))

        a, b = at(start), at(end)
        span = max(b[0] - a[0], 1e-9)
        return (b[1] - a[1]) / span, (b[2] - a[2]) / span

    def __enter__(self) -> CpuTimeline:
        self._take()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._take()


class Timer:
    def __enter__(self) -> Timer:
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.start
