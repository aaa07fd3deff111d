"""Server memory under many distinct large GraphQL documents.

Starts `graphsvc serve` on a free loopback port, sends `--docs` distinct documents of
`--size` bytes each (`{ jobs(id: "<filler>") { id } }`, a cheap field with a long argument),
and prints the server's resident memory before, right after, and `--settle` seconds later.
The documents over `server.max_query_bytes` are refused; set
`GRAPHSVC_SERVER__MAX_QUERY_BYTES` above `--size` to measure what the caches keep.

    .venv/bin/python -m bench.query_memory --docs 600 --size 1900000
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
from collections import Counter

import httpx
import psutil


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> float:
    return psutil.Process(pid).memory_info().rss / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=600)
    parser.add_argument("--size", type=int, default=1_900_000, help="bytes per document")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds to wait before the last reading")
    args = parser.parse_args()

    port = free_port()
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    server = subprocess.Popen(
        [sys.executable, "-m", "graphsvc", "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                httpx.post(f"{url}/graphql", json={"query": "{ jobs { id } }"}, timeout=10)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the server did not start")
                time.sleep(0.3)
        before = rss_mb(server.pid)
        statuses: Counter = Counter()
        peak = before
        started = time.monotonic()
        with httpx.Client(timeout=120) as client:
            for i in range(args.docs):
                filler = f"{i:08d}" + "x" * max(0, args.size - 40)
                answer = client.post(f"{url}/graphql", json={"query": f'{{ jobs(id: "{filler}") {{ id }} }}'})
                statuses[answer.status_code] += 1
                if i % 20 == 0:
                    peak = max(peak, rss_mb(server.pid))
        elapsed = time.monotonic() - started
        after = rss_mb(server.pid)
        time.sleep(args.settle)
        settled = rss_mb(server.pid)
        print(f"documents: {args.docs} x {args.size} bytes in {elapsed:.1f} s; answers {dict(statuses)}")
        print(f"server RSS: before {before:.0f} MB, peak {max(peak, after):.0f} MB, after {after:.0f} MB, "
              f"{args.settle:g} s later {settled:.0f} MB")
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()
