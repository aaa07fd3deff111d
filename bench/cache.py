"""Benchmark the content cache and the continuity record on real text.

The corpus is the running interpreter's standard library source, cut into chunks of a few
lines (code nobody here wrote). Prints throughput, latency percentiles and peak memory:

    .venv/bin/python bench/cache.py [--entries 100000] [--queries 2000]

Targets: recall p95 under 20 ms with 100k entries; a delegate block for a full ring (60
entries) under 10 ms. Wall and process-CPU percentiles are both printed: on a shared machine
the CPU figure is the one that does not depend on other load.
"""

from __future__ import annotations

import argparse
import random
import re
import resource
import statistics
import sysconfig
import tempfile
import time
from pathlib import Path

from graphsvc.context import db
from graphsvc.context.cache import ContentCache
from graphsvc.context.continuity import Continuity
from graphsvc.context.tokens import get_counter
from graphsvc.settings import Settings


def corpus(n: int, lines_per_chunk: int) -> list[str]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    chunks: list[str] = []
    seen: set[str] = set()
    for path in sorted(stdlib.rglob("*.py")):
        try:
            lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        except (UnicodeDecodeError, OSError):
            continue
        rel = str(path.relative_to(stdlib))
        for start in range(0, len(lines), lines_per_chunk):
            body = "".join(lines[start : start + lines_per_chunk])
            if not body.strip() or body in seen:
                continue
            seen.add(body)
            chunks.append(f"# {rel}:{start + 1}\n{body}")
            if len(chunks) >= n:
                return chunks
    return chunks


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


class Timing(float):
    """Wall seconds, with the process CPU seconds of the same call in `.cpu`."""

    cpu: float = 0.0


def report(name: str, seconds: list[Timing]) -> None:
    ms = [s * 1000 for s in seconds]
    cpu = [getattr(s, "cpu", 0.0) * 1000 for s in seconds]
    total = sum(seconds)
    print(
        f"{name:<36} n={len(ms):>6} {len(ms) / total:>8.0f}/s  wall p50 {pct(ms, 50):6.2f} "
        f"p95 {pct(ms, 95):6.2f} p99 {pct(ms, 99):6.2f} ms | cpu p50 {pct(cpu, 50):6.2f} "
        f"p95 {pct(cpu, 95):6.2f} ms"
    )


def timed(fn, *args, **kwargs):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn(*args, **kwargs)
    t = Timing(time.perf_counter() - wall)
    t.cpu = time.process_time() - cpu
    return t, out


def bench_cache(settings: Settings, path: Path, texts: list[str], queries: int, rng: random.Random) -> None:
    cache = ContentCache(path, settings)
    print(f"corpus: {len(texts)} chunks, {sum(len(t.encode()) for t in texts) / 1e6:.1f} MB of stdlib source")

    store_times, hashes = [], []
    for i, text in enumerate(texts):
        seconds, result = timed(cache.store, text, label=text.split("\n", 1)[0][2:])
        store_times.append(seconds)
        hashes.append(result.hash)
    report("store (new content)", store_times)

    sample = rng.sample(range(len(texts)), min(5000, len(texts)))
    report("store (repeat -> ref)", [timed(cache.store, texts[i])[0] for i in sample])

    expand_times = [timed(cache.expand, hashes[i][:12])[0] for i in sample]
    report("expand (12-digit prefix)", expand_times)
    report("expand (prefix + lines 2-4)", [timed(cache.expand, hashes[i][:12], "2-4")[0] for i in sample])

    words = [w for t in rng.sample(texts, min(3000, len(texts))) for w in re.findall(r"[A-Za-z_]{4,}", t)]
    recall_times, empty = [], 0
    for _ in range(queries):
        query = " ".join(rng.sample(words, rng.choice((1, 2, 3))))
        seconds, hits = timed(cache.recall, query, 10)
        recall_times.append(seconds)
        empty += not hits
    report("recall (1-3 corpus words, limit 10)", recall_times)
    common = ["self", "return", "import", "def self return", "None"]
    report("recall (very common words)", [timed(cache.recall, q, 10)[0] for q in common * 20])
    print(f"recall queries with no hit: {empty} of {queries}")

    stats = cache.stats()
    size = sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))
    print(
        f"cache: {stats.entries} entries, {stats.bytes / 1e6:.1f} MB counted (originals + derived), "
        f"{stats.searchable_entries} searchable, database files {size / 1e6:.1f} MB"
    )
    cache.conn.close()


def bench_continuity(settings: Settings, path: Path, texts: list[str], rng: random.Random) -> None:
    bg = settings.context.background
    bg.compact_above = 10_000  # fill the ring without compaction first
    record = Continuity(path, settings)
    ws = "/bench/ring"
    for i in range(bg.ring_size):
        text = rng.choice(texts)
        if i % 6 == 5:
            record.record_outcome(ws, "front", "cursor-agent", "changed:\n" + text)
        else:
            record.record_turn(ws, "front", text * rng.choice((1, 1, 2, 8)))
    tasks = [" ".join(re.findall(r"[A-Za-z_]{4,}", rng.choice(texts))[:8]) or "fix it" for _ in range(200)]

    for method in ("estimate", "auto"):
        bg.tokenizer = method
        if method == "auto":
            seconds, counter = timed(get_counter)
            print(f"tokenizer load: {seconds * 1000:.0f} ms ({counter.method})")
        fresh = Continuity(path, settings)  # nothing memoised yet
        cold, _ = timed(fresh.block, ws, tasks[0])
        warm = [timed(record.block, ws, t)[0] for t in tasks]
        block = record.block(ws, tasks[1])
        report(f"continuity block ({method}), warm", warm)
        print(
            f"  first block on a fresh instance {cold * 1000:.2f} ms wall, {cold.cpu * 1000:.2f} ms cpu; "
            f"a block: {len(block.entries)} "
            f"entries, {block.tokens} tokens ({block.token_method})"
        )
        fresh.conn.close()

    bg.tokenizer = "estimate"
    bg.compact_above = 40
    bg.summary_sources = ["none"]
    times = []
    for round_ in range(20):
        ws = f"/bench/compact/{round_}"
        for i in range(41):
            record.record_turn(ws, "front", rng.choice(texts)) if i % 5 else record.record_outcome(
                ws, "front", "agy", rng.choice(texts)
            )
        record.wait_idle()  # the background pass already ran once; time a synchronous one
        for i in range(40):
            record.record_turn(ws, "front", rng.choice(texts))
        record.wait_idle()
        bg.compact_above = 10_000
        for i in range(35):
            record.record_turn(ws, "front", rng.choice(texts))
        bg.compact_above = 40
        seconds, result = timed(record.compact_now, ws)
        assert result is not None and result.source == "digest"
        times.append(seconds)
    report("compaction (digest fallback)", times)
    record.close()
    record.conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--lines", type=int, default=8, help="lines of source per cached chunk")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    texts = corpus(args.entries, args.lines)
    with tempfile.TemporaryDirectory(prefix="graphsvc-bench-") as tmp:
        settings = Settings(home=Path(tmp))
        settings.context.dir = Path(tmp)
        settings.cache.max_bytes = 4 * 1024**3
        path = db.store_path(settings)
        started = time.perf_counter()
        bench_cache(settings, path, texts, args.queries, rng)
        bench_continuity(settings, path, texts, rng)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"total {time.perf_counter() - started:.1f} s, peak RSS {peak:.0f} MB")
    print(f"median chunk: {statistics.median(len(t) for t in texts):.0f} characters")


if __name__ == "__main__":
    main()
