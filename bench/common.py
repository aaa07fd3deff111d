"""Shared pieces of the benchmark scripts: the corpus, the graph, memory figures."""

from __future__ import annotations

import resource
import shutil
import sysconfig
import time
from pathlib import Path
from urllib.parse import urlparse

import psutil

from graphsvc.graph.driver import get_graph

STDLIB = Path(sysconfig.get_paths()["stdlib"])
EXCLUDE = ["/site-packages/"]


def peak_rss_mb() -> tuple[float, float]:
    """Peak resident memory of this process and of its finished children, in MB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, children


def drop_workspace(workspace: str) -> None:
    """Remove a workspace from the graph so the next run is cold."""
    graph = get_graph()
    graph.autocommit(
        "MATCH (n:Entity {workspace: $ws}) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS",
        timeout_s=600,
        ws=workspace,
    )


def copy_stdlib(target: Path) -> Path:
    """A private copy of the standard library (without site-packages) that a benchmark may edit."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(STDLIB, target, ignore=shutil.ignore_patterns("site-packages", "__pycache__"), symlinks=True)
    return target


def local_neo4j(uri: str) -> psutil.Process | None:
    """The Neo4j process serving `uri` when it runs on this machine (to read its CPU time)."""
    port = urlparse(uri).port or 7687
    if urlparse(uri).hostname not in ("127.0.0.1", "localhost"):
        return None
    for proc in psutil.process_iter(["name"]):
        if proc.info["name"] != "java":
            continue
        try:
            if any(c.laddr.port == port and c.status == psutil.CONN_LISTEN for c in proc.net_connections("tcp")):
                return proc
        except psutil.Error:
            continue
    return None


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


class Timer:
    def __enter__(self) -> Timer:
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.start
