"""grep latency on an indexed workspace, and what its index costs in the store.

    .venv/bin/python bench/grep.py WORKSPACE [--requests 300] [--url http://127.0.0.1:8080]

Literals are names of the workspace's own symbols (three characters or more, sampled with
`--seed`), as an agent would grep for an identifier; regexes are a fixed set of everyday
forms. Each is sent `--requests` times directly (the library function) and through GraphQL
over HTTP (`graphsvc serve` started as a separate process on a free port unless `--url`), and
p50/p95/p99 are printed in milliseconds. Then the two ways to find a literal's candidate
chunks are timed side by side (the word index's lookup, which `grep` uses, and LIKE over
every chunk), and the bytes the workspace's grep tables take are counted.
Target: literal p95 < 50 ms over HTTP on a 5 MB code base.
"""

from __future__ import annotations

import argparse
import atexit
import os
import random
import re
import signal
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.load import start_server  # noqa: E402
from bench.queries import percentiles, timed  # noqa: E402
from graphsvc.context.grep_index import GrepIndex, _table, _terms  # noqa: E402
from graphsvc.graph.driver import get_graph  # noqa: E402
from graphsvc.query.grep import grep  # noqa: E402
from graphsvc.settings import get_settings  # noqa: E402

GQL = """query($p: String!, $ws: String!, $regex: Boolean!) {
  grep(pattern: $p, workspace: $ws, regex: $regex) { total truncated complete hits { file line text symbol } }
}"""
REGEXES = [r"def \w+_cache\(", r"raise \w+Error\(", r"self\.\w+ = None", r"import (os|sys)$", r"TODO|FIXME",
           r"\bif not \w+:", r"^class \w+\(.*Mixin", r"return \[\w+ for"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("workspace")
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--url", help="an already running graphsvc server")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    ws, n = args.workspace, args.requests
    graph = get_graph()
    index = GrepIndex(settings=get_settings())
    held = index.workspace(graph.uri, ws)
    if held is None:
        sys.exit(f"workspace {ws!r} has no grep index: index it first")
    names = sorted({r[0] for r in index.conn.execute(
        "SELECT DISTINCT s.qualified_name FROM grep_symbols s JOIN grep_files f ON f.id = s.file "
        "WHERE f.workspace = ?", (held.id,))})
    names = sorted({name.rsplit(".", 1)[-1] for name in names if len(name.rsplit(".", 1)[-1]) >= 3})
    if not names:  # text indexed without symbols: the identifiers of a sample of its chunks
        rows = index.conn.execute(f"SELECT text FROM {_table(held.id)} WHERE rowid % 7 = 0").fetchall()
        names = sorted({w for (text,) in rows for w in re.findall(r"\b[A-Za-z_]\w{2,}\b", text)})
    rng = random.Random(args.seed)
    literals = [rng.choice(names) for _ in range(n)]
    regexes = [REGEXES[i % len(REGEXES)] for i in range(n)]
    print(f"workspace {ws}: {len(held.hashes)} files, {len(names)} distinct names; {n} requests per operation")

    url = args.url
    if url is None:
        server, url = start_server(None)
        atexit.register(os.killpg, server.pid, signal.SIGTERM)
    client = httpx.Client(base_url=url, timeout=60)

    def gql(pattern: str, regex: bool):
        def call() -> object:
            r = client.post("/graphql", json={"query": GQL, "variables": {"p": pattern, "ws": ws, "regex": regex}})
            body = r.json()
            if r.status_code != 200 or body.get("errors"):
                raise RuntimeError(body)
            return body
        return call

    operations = {
        "literal": ([lambda p=p: grep(p, workspace=ws, graph=graph) for p in literals],
                    [gql(p, False) for p in literals]),
        "regex": ([lambda p=p: grep(p, workspace=ws, regex=True, graph=graph) for p in regexes],
                  [gql(p, True) for p in regexes]),
    }
    print(f"\nlatency in ms (direct = library call; http = GraphQL over HTTP at {url})")
    for op, (direct, http) in operations.items():
        for mode, calls in (("direct", direct), ("http", http)):
            timed(calls[: min(20, n)])
            samples, errors = timed(calls)
            failed = f"  errors {errors}" if errors else ""
            print(f"  grep {op:8s} {mode:6s} {percentiles(samples)}{failed}")

    table = _table(held.id)
    print("\ncandidate chunks of the literals, all of them read (ms)")
    for how, read in (
        ("words", lambda p: sum(1 for _ in index.chunks(held.id, [[[p]]]))),
        ("LIKE", lambda p: len(index.conn.execute(f"SELECT rowid, text FROM {table} WHERE text LIKE ?",
                                                  (f"%{p}%",)).fetchall())),
    ):
        samples = []
        for p in literals:
            started = time.perf_counter()
            read(p)
            samples.append((time.perf_counter() - started) * 1000)
        print(f"  {how:5s} {percentiles(samples)}")

    pages = index.conn.execute("PRAGMA page_size").fetchone()[0]
    data = index.conn.execute(f"SELECT count(*), sum(length(block)) FROM {table}_data").fetchone()
    content = index.conn.execute(f"SELECT count(*), sum(length(c0)) FROM {table}_content").fetchone()
    terms = index.conn.execute(f"SELECT count(*), sum(length(CAST(terms AS BLOB))) FROM {_terms(held.id)}").fetchone()
    print(f"\nstore: page size {pages} B; {content[0]} chunks, "
          f"text {content[1] / 1e6:.1f} MB, word index {(data[1] or 0) / 1e6:.1f} MB, "
          f"vocabulary {terms[0]} rows {(terms[1] or 0) / 1e6:.1f} MB; "
          f"store file {os.path.getsize(_store_file(index)) / 1e6:.1f} MB")
    index.close()


def _store_file(index: GrepIndex) -> str:
    return index.conn.execute("PRAGMA database_list").fetchone()[2]


if __name__ == "__main__":
    main()
