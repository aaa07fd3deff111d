"""Benchmark of the event log, the turn index and retention (a script, not a test).

    .venv/bin/python bench/events.py [--events 1000000] [--dir DIR]

Prints: single-event append throughput (one thread, and many threads sharing commits),
batched appends, recent-events and turn queries at the stored size (p50/p95/p99),
resolveTurn latency, prune time, and peak memory. Every append is acknowledged only after
its transaction committed (WAL, synchronous=NORMAL).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import tempfile
import threading
import time
import timeit
from datetime import UTC, datetime, timedelta
from pathlib import Path

from graphsvc.context.store import ContextStore
from graphsvc.context.turns import Message
from graphsvc.settings import Settings

TYPES = ["RouteDecided", "FulfilledLocal", "OriginPassthrough", "CacheHit", "ToolCall"]
WORKSPACES = [f"/work/repo{i}" for i in range(8)]
WORDS = "parser lexer tokenizer scheduler cache router index graph query writer reader".split()


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def show_latency(name: str, measured: tuple[list[float], float]) -> None:
    samples, cpu = measured
    ms = [s * 1000 for s in samples]
    print(
        f"  {name:<44} p50 {pct(ms, .5):7.3f} ms  p95 {pct(ms, .95):7.3f} ms  "
        f"p99 {pct(ms, .99):7.3f} ms  CPU {cpu * 1e3 / len(ms):6.3f} ms/op  (n={len(ms)})"
    )


def timed(fn, n: int) -> tuple[list[float], float]:
    """Wall-clock latency of each call, and the process CPU time of all of them."""
    out = []
    cpu = time.process_time()
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out, time.process_time() - cpu


def open_store(directory: Path) -> ContextStore:
    s = Settings(home=directory / "home")
    s.context.dir = directory / "context"
    return ContextStore(settings=s)


def bench_single(store: ContextStore, n: int) -> None:
    payload = {"route": "local", "model": "qwen2.5-coder", "tokens": 812, "ms": 143}
    t, cpu = time.perf_counter(), time.process_time()
    for i in range(n):
        store.events.append("FulfilledLocal", None, "/work/repo0", payload)
    dt, cpu = time.perf_counter() - t, time.process_time() - cpu
    print(f"  single appends, 1 thread                     {n / dt:10,.0f} events/s  "
          f"({dt * 1e6 / n:.0f} µs each, {cpu * 1e6 / n:.0f} µs of them on the CPU)")


def bench_threads(store: ContextStore, n: int, threads: int) -> None:
    payload = {"route": "cloud", "tokens": 90}
    per = n // threads

    def worker() -> None:
        for _ in range(per):
            store.events.append("RouteDecided", None, "/work/repo1", payload)

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    t, cpu = time.perf_counter(), time.process_time()
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    dt, cpu = time.perf_counter() - t, time.process_time() - cpu
    print(f"  single appends, {threads:>2} threads (group commit)    {per * threads / dt:10,.0f} events/s  "
          f"({per * threads / cpu:,.0f} per CPU-second)")


def bench_batches(store: ContextStore, n: int, size: int) -> None:
    batch = [{"type": "ToolCall", "workspace": "/work/repo2", "payload": {"tool": "grep", "i": i}} for i in range(size)]
    t, cpu = time.perf_counter(), time.process_time()
    for _ in range(n // size):
        store.events.append_many(batch)
    dt, cpu = time.perf_counter() - t, time.process_time() - cpu
    print(f"  batches of {size:<5}                             {n // size * size / dt:10,.0f} events/s  "
          f"({n // size * size / cpu:,.0f} per CPU-second)")


def fill(store: ContextStore, total: int, turns: list[str], days: int) -> None:
    """Bring the log to `total` events spread over `days` days (newest last)."""
    rng = random.Random(7)
    have = store.events.count()
    start = datetime.now(UTC) - timedelta(days=days)
    span = days * 86_400_000_000
    todo = total - have
    if todo <= 0:
        # The throughput runs alone may have stored more than asked for.
        print(f"  nothing to fill: the log already holds {have:,} events (--events {total:,})")
        return
    t = time.perf_counter()
    done = 0
    while done < todo:
        size = min(5000, todo - done)
        batch = []
        for k in range(size):
            frac = (done + k) / todo
            turn = rng.choice(turns) if rng.random() < 0.5 else None
            batch.append(
                {
                    "type": rng.choice(TYPES),
                    "turn_id": turn,
                    "workspace": None if turn else rng.choice(WORKSPACES),
                    "payload": {"n": done + k, "w": rng.choice(WORDS)},
                    "at": start + timedelta(microseconds=int(frac * span)),
                }
            )
        store.events.append_many(batch)
        done += size
    dt = time.perf_counter() - t
    print(f"  filled {todo:,} events in {dt:.1f} s ({todo / dt:,.0f} events/s, batches of 5000)")


def make_turns(store: ContextStore, families: int, per_family: int) -> list[str]:
    rng = random.Random(3)
    ids = []
    t = time.perf_counter()
    for f in range(families):
        ws = WORKSPACES[f % len(WORKSPACES)]
        root = store.turns.open_turn(ws, f"f{f}-t0", session_id=f"s{f}", keys={"goal": f"goal {f}"},
                                     at=datetime.now(UTC) - timedelta(days=20))
        ids.append(root.id)
        parent = root.id
        for k in range(1, per_family):
            parent = store.turns.open_turn(ws, f"f{f}-t{k}", parent_id=parent,
                                           at=datetime.now(UTC) - timedelta(days=20)).id
            ids.append(parent)
        files = [f"src/{rng.choice(WORDS)}/{rng.choice(WORDS)}_{f}.py" for _ in range(4)]
        store.turns.touched(parent, files + [f"{files[0]}#Class{f}.method_{f}"])
        if f % 3 == 0:
            store.turns.bind_sticky(root.id, "cloud" if f % 2 else "local")
    dt = time.perf_counter() - t
    print(f"  opened {len(ids):,} turns in {families:,} families in {dt:.1f} s")
    return ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000, help="stored events for the query figures")
    parser.add_argument("--appends", type=int, default=20_000, help="events per append-throughput run")
    parser.add_argument("--families", type=int, default=2_000)
    parser.add_argument("--dir", type=Path, help="where to build the store (default: a temporary directory)")
    parser.add_argument("--keep", action="store_true", help="keep the store afterwards")
    args = parser.parse_args()

    directory = args.dir or Path(tempfile.mkdtemp(prefix="graphsvc-bench-events-"))
    reference = min(timeit.repeat("sum(range(1000))", number=2000, repeat=5)) / 2000
    print(f"store: {directory}   cores: {os.cpu_count()}   load average: {os.getloadavg()[0]:.1f}   "
          f"reference loop sum(range(1000)): {reference * 1e6:.1f} µs (about 10 µs on an idle modern core)")
    try:
        store = open_store(directory)
        print("append throughput (each call returns after its commit)")
        bench_single(store, args.appends)
        bench_threads(store, args.appends * 2, 8)
        bench_threads(store, args.appends * 2, 64)
        bench_batches(store, args.appends * 5, 100)
        bench_batches(store, args.appends * 5, 1000)

        print("building the stored log")
        turns = make_turns(store, args.families, 5)
        fill(store, args.events, turns, days=20)
        store.close()

        t = time.perf_counter()
        store = open_store(directory)
        total = store.events.count()
        print(f"  reopened in {time.perf_counter() - t:.2f} s: {total:,} events, ring {len(store.ring)}, "
              f"{store.turns.count():,} turns")

        rng = random.Random(11)
        print(f"queries at {total:,} stored events")
        show_latency("recent(50)", timed(lambda: store.events.recent(50), 3000))
        show_latency("recent(50, type=…)", timed(lambda: store.events.recent(50, type=rng.choice(TYPES)), 3000))
        show_latency("recent(50, workspace=…)",
                     timed(lambda: store.events.recent(50, workspace=rng.choice(WORKSPACES)), 3000))
        show_latency("recent(50, turn_id=…) (database)",
                     timed(lambda: store.events.recent(50, turn_id=rng.choice(turns)), 3000))
        since = datetime.now(UTC) - timedelta(days=3)
        show_latency("recent(50, since=3 days ago, type=…)",
                     timed(lambda: store.events.recent(50, since=since, type=rng.choice(TYPES)), 3000))
        show_latency("recent(1000) (database)", timed(lambda: store.events.recent(1000), 300))
        show_latency("turns.get(id)", timed(lambda: store.turns.get(rng.choice(turns)), 20000))
        show_latency("turns.list(family=…)",
                     timed(lambda: store.turns.list(10, family_id=f"f{rng.randrange(args.families)}-t0"), 5000))

        print("resolveTurn")
        f = args.families
        messages = [
            lambda: Message("continue", turn_id=rng.choice(turns)),
            lambda: Message("[session summary] we refactored the parser", session_id=f"s{rng.randrange(f)}"),
            lambda: Message("sub task", parent_id=rng.choice(turns), metadata={"kind": "subagent"}),
            lambda: Message(f"please fix src/{rng.choice(WORDS)}/{rng.choice(WORDS)}_{rng.randrange(f)}.py, "
                            "the test fails with a KeyError in the handler " * 3),
            lambda: Message("write a function that reverses a linked list in Go, with tests " * 5),
        ]
        made = [messages[i % len(messages)]() for i in range(20000)]
        it = iter(made)
        show_latency("resolve (mixed messages)", timed(lambda: store.turns.resolve(next(it)), len(made)))
        it = iter(made[3::5])
        show_latency("resolve (text with file names, ~300 chars)", timed(lambda: store.turns.resolve(next(it)), len(made[3::5])))

        print("retention")
        dry = store.events.prune(dry_run=True)
        report = store.events.prune()
        print(f"  prune removed {report.removed:,} of {total:,} events in {report.seconds:.2f} s "
              f"({report.remaining:,} remain; dry run took {dry.seconds:.2f} s)")
        size = sum(p.stat().st_size for p in (directory / "context").glob("context.sqlite3*"))
        print(f"  database files: {size / 1e6:,.0f} MB")
        print(f"peak memory (RSS): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB")
        store.close()
    finally:
        if not args.keep and args.dir is None:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
