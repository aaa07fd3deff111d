"""How long a saved file takes to show in query results while `graphsvc watch` runs, on the
standard library.

    .venv/bin/python bench/watch.py [--edits 20] [--warm-up 2] [--seed 1]

Works on a private copy of the standard library (without site-packages): indexes it, starts
the watcher (in this process, as `graphsvc serve --watch` runs it), then edits one file at a
time, each time adding a new function and a caller of it, and polls `callers` of the new
function and `search` for its name until both show it. Prints the latency of each edit (the
file written to both answers showing it), the watcher's own run time for it, the CPU time
of this process and of Neo4j until the run is done (the steadier figure on a busy machine),
and the p50 / p95 / max over the measured edits. The first `--warm-up` edits are not counted: a Neo4j that
has just started plans each incremental statement once. Uses NEO4J_URI when set, otherwise
the managed Neo4j; the workspace is deleted at the end.
"""

from __future__ import annotations

import argparse
import math
import random
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import copy_stdlib, cpu_seconds, drop_workspace, local_neo4j  # noqa: E402
from graphsvc.errors import NotFoundError  # noqa: E402
from graphsvc.graph.driver import get_graph  # noqa: E402
from graphsvc.indexing.watch import WatchBatch, watch  # noqa: E402
from graphsvc.query.engine import search  # noqa: E402
from graphsvc.query.verbs import VERBS  # noqa: E402

TIMEOUT_S = 60.0
POLL_S = 0.02
callers = next(v.fn for v in VERBS if v.name == "callers")


def _visible(ws: str, rel: str, name: str) -> bool:
    try:
        sites = callers(f"{rel}#{name}", workspace=ws).sites
    except NotFoundError:
        return False
    return bool(sites) and any(h.entity.name == name for h in search(name, workspace=ws, limit=5).hits)


def _pick_files(root: Path, count: int, rng: random.Random) -> list[str]:
    """Python files of ordinary size outside the test suites, where a function can be appended."""
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                   if 2_000 < p.stat().st_size < 60_000 and "test" not in str(p.relative_to(root)))
    return rng.sample(files, count)


def percentile(values: list[float], p: float) -> float:
    """Nearest rank."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--warm-up", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workspace", default="bench-watch")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    ws = args.workspace
    drop_workspace(ws)
    with tempfile.TemporaryDirectory(prefix="graphsvc-bench-watch-") as tmp:
        root = copy_stdlib(Path(tmp) / "stdlib")
        print(f"corpus: private copy of the standard library at {root}; Neo4j at {get_graph().uri}", flush=True)
        stop, ready, runs = threading.Event(), threading.Event(), []

        def on_batch(batch: WatchBatch) -> None:
            runs.append(batch)
            if not batch.files or batch.error:
                print("  " + batch.line(), flush=True)

        watcher = threading.Thread(target=watch, args=(root, ws), daemon=True,
                                   kwargs={"stop": stop, "on_ready": ready.set, "on_batch": on_batch})
        started = time.perf_counter()
        watcher.start()
        if not ready.wait(600):
            sys.exit("the first index did not finish in 10 minutes")
        print(f"indexed and watching after {time.perf_counter() - started:.1f} s", flush=True)
        latencies, cpus = [], []
        neo4j = local_neo4j(get_graph().uri)
        for i, rel in enumerate(_pick_files(root, args.warm_up + args.edits, rng)):
            name = f"watch_probe_{i}"
            seen_runs = len(runs)
            path = root / rel
            cpu_start = _own_cpu(), cpu_seconds(neo4j)
            with path.open("a") as fh:  # as an editor saves: the whole file, with two new functions
                fh.write(f"\n\ndef {name}():\n    return {i}\n\n\ndef {name}_caller():\n    return {name}()\n")
            written = time.perf_counter()
            while not _visible(ws, rel, name):
                if time.perf_counter() - written > TIMEOUT_S:
                    sys.exit(f"{rel}: {name} not visible after {TIMEOUT_S} s")
                time.sleep(POLL_S)
            latency = time.perf_counter() - written
            # Let the run finish before the next edit, so each edit's CPU time is its own.
            while len(runs) == seen_runs or runs[-1].pending:
                time.sleep(POLL_S)
            cpu = _own_cpu() - cpu_start[0], cpu_seconds(neo4j) - cpu_start[1]
            run_s = sum(b.seconds for b in runs[seen_runs:])
            warm = i < args.warm_up
            if not warm:
                latencies.append(latency)
                cpus.append(cpu)
            print(f"  {'warm-up' if warm else 'edit'} {i:3d}  {rel:<45} visible after {latency * 1000:6.0f} ms "
                  f"(watcher's runs {run_s * 1000:5.0f} ms; CPU {cpu[0]:.2f} s here, {cpu[1]:.2f} s Neo4j)",
                  flush=True)
        stop.set()
        watcher.join(60)
    drop_workspace(ws)
    print(f"saved file -> visible in callers and search, {len(latencies)} edits: "
          f"p50 {percentile(latencies, 50) * 1000:.0f} ms, p95 {percentile(latencies, 95) * 1000:.0f} ms, "
          f"max {max(latencies) * 1000:.0f} ms; target: p95 < 1 s")
    print(f"CPU per edit (the watcher's run and the polling queries), p50 / p95: this process "
          f"{percentile([c[0] for c in cpus], 50):.2f} / {percentile([c[0] for c in cpus], 95):.2f} s, "
          f"Neo4j {percentile([c[1] for c in cpus], 50):.2f} / {percentile([c[1] for c in cpus], 95):.2f} s")


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    main()
