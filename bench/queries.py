"""Query latency and communities timing on an indexed workspace.

    .venv/bin/python bench/queries.py WORKSPACE [--requests 300] [--url http://127.0.0.1:8080]

For each operation (search, neighborhood depth 1 and 2, paths, explain, impact depth 2, symbol,
callers depth 1 and 3, callPath) it sends
`--requests` queries directly (the engine function) and through GraphQL over HTTP (`graphsvc serve`
started as a separate process on a free port unless `--url` is given), and prints p50/p95/p99 in
milliseconds; over HTTP also the server's CPU time per request (user + system, all its threads),
which a loaded machine disturbs far less than wall time. Then it runs Leiden over the whole workspace and prints nodes, edges and the
seconds for fetch, Leiden and write-back. Targets: search and depth-1 p95 < 20 ms over HTTP,
depth-2 and paths p95 < 60 ms, explain and impact depth 2 < 150 ms, communities < 15 s; symbol
< 10 ms, callers depth 1 < 20 ms, depth 3 < 100 ms. symbol, callers and callPath are given dotted
module paths (`json.decoder.JSONDecoder.decode`), as an agent writes them.
"""

from __future__ import annotations

import argparse
import atexit
import dataclasses
import json
import os
import random
import resource
import signal
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import server_pid  # noqa: E402
from bench.load import start_server  # noqa: E402
from graphsvc.query.communities import compute_communities  # noqa: E402
from graphsvc.graph.driver import get_graph  # noqa: E402
from graphsvc.query import engine  # noqa: E402
from graphsvc.query.calls import call_path, callers  # noqa: E402
from graphsvc.query.impact import impact  # noqa: E402
from graphsvc.query.symbols import module_path, symbol  # noqa: E402
from graphsvc.settings import get_settings  # noqa: E402

SAMPLE = """
MATCH (n:Symbol {workspace: $ws}) WHERE NOT n:External AND n.kind IN ['function', 'method', 'class']
WITH n ORDER BY n.id
RETURN collect({id: n.id, name: n.name, dotted: n.qualified_name, file: n.file}) AS symbols
"""

GQL = {
    "search": "query($t: String!, $ws: String) { search(text: $t, workspace: $ws, limit: 20) { hits { entity { id kind } score matched } } }",
    "neighborhood d1": "query($id: String!, $ws: String) { neighborhood(id: $id, workspace: $ws, depth: 1, limit: 200) { nodes { id kind level } edges { type source target confidence } truncated } }",
    "neighborhood d2": "query($id: String!, $ws: String) { neighborhood(id: $id, workspace: $ws, depth: 2, limit: 200) { nodes { id kind level } edges { type source target confidence } truncated } }",
    "paths": "query($a: String!, $b: String!, $ws: String) { paths(source: $a, target: $b, workspace: $ws, maxHops: 4, limit: 3) { paths { length nodes { id } } } }",
    "explain": "query($id: String!, $ws: String) { explain(id: $id, workspace: $ws) { summary hubsByDegree { entity { id } degree } hubsByPagerank { entity { id } pagerank } pathToHub { length } } }",
    "impact d2": "query($id: String!, $ws: String!) { impact(ref: $id, workspace: $ws, depth: 2) { summary levels { depth total unresolvedSites entities { id kind line rel via confidence reason } } files { items { name count } total } tests { items total } } }",
    "symbol": "query($id: String!, $ws: String!) { symbol(ref: $id, workspace: $ws) { entity { id kind file startLine } match candidates { id match } total } }",
    "callers d1": "query($id: String!, $ws: String!) { callers(ref: $id, workspace: $ws) { sites { caller line reason confidence depth } byDepth { depth count } total truncated unresolvedSites } }",
    "callers d3": "query($id: String!, $ws: String!) { callers(ref: $id, workspace: $ws, depth: 3) { sites { caller callee line reason depth } byDepth { depth count } total truncated unresolvedSites } }",
    "callPath": "query($a: String!, $b: String!, $ws: String!) { callPath(from: $a, to: $b, workspace: $ws, maxHops: 4) { found steps { caller callee line } frontier { id depth unresolvedCalls skipped } frontierTotal } }",
}


def dotted(row: dict) -> str:
    """The symbol's module path and qualified name: `json/decoder.py#JSONDecoder.decode` ->
    `json.decoder.JSONDecoder.decode`."""
    return module_path(row["file"]).replace("/", ".") + "." + row["dotted"]


def percentiles(samples: list[float]) -> str:
    if not samples:
        return "no samples"
    qs = statistics.quantiles(samples, n=100, method="inclusive")
    return f"p50 {qs[49]:7.2f}  p95 {qs[94]:7.2f}  p99 {qs[98]:7.2f}  (n={len(samples)})"


def timed(calls: list[Callable[[], object]]) -> tuple[list[float], int]:
    out, errors = [], 0
    for call in calls:
        started = time.perf_counter()
        try:
            call()
        except Exception:
            errors += 1
            continue
        out.append((time.perf_counter() - started) * 1000)
    return out, errors


def server_cpu_s(process: psutil.Process | None) -> float:
    if process is None:
        return 0.0
    times = process.cpu_times()
    return times.user + times.system


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("workspace")
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--url", help="an already running graphsvc server")
    parser.add_argument("--token", default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-communities", action="store_true")
    parser.add_argument("--only", action="append", metavar="OPERATION", help="measure only these (repeatable)")
    args = parser.parse_args()
    ws, n = args.workspace, args.requests

    graph = get_graph()
    symbols = graph.read(SAMPLE, timeout_s=300, ws=ws)[0]["symbols"]
    if len(symbols) < 10:
        sys.exit(f"workspace {ws!r} has {len(symbols)} functions/classes: index it first")
    rng = random.Random(args.seed)
    ids = [rng.choice(symbols)["id"] for _ in range(n)]
    names = [rng.choice(symbols)["name"] for _ in range(n)]
    pairs = [(rng.choice(symbols)["id"], rng.choice(symbols)["id"]) for _ in range(n)]
    refs = [dotted(rng.choice(symbols)) for _ in range(n)]
    ref_pairs = [(dotted(rng.choice(symbols)), dotted(rng.choice(symbols))) for _ in range(n)]
    print(f"workspace {ws}: {len(symbols)} functions/methods/classes sampled; {n} requests per operation")

    direct = {
        "search": [lambda t=t: engine.search(t, workspace=ws, limit=20) for t in names],
        "neighborhood d1": [lambda i=i: engine.neighborhood(i, workspace=ws, depth=1, limit=200) for i in ids],
        "neighborhood d2": [lambda i=i: engine.neighborhood(i, workspace=ws, depth=2, limit=200) for i in ids],
        "paths": [lambda a=a, b=b: engine.paths(a, b, workspace=ws, max_hops=4, limit=3) for a, b in pairs],
        "explain": [lambda i=i: engine.explain(i, workspace=ws) for i in ids],
        "impact d2": [lambda i=i: impact(i, workspace=ws, depth=2) for i in ids],
        "symbol": [lambda r=r: symbol(r, workspace=ws) for r in refs],
        "callers d1": [lambda r=r: callers(r, workspace=ws) for r in refs],
        "callers d3": [lambda r=r: callers(r, workspace=ws, depth=3) for r in refs],
        "callPath": [lambda a=a, b=b: call_path(a, b, workspace=ws, max_hops=4) for a, b in ref_pairs],
    }
    url = args.url
    if url is None:
        server, url = start_server(args.token)
        atexit.register(os.killpg, server.pid, signal.SIGTERM)
    pid = server.pid if args.url is None else server_pid(url)
    server_process = psutil.Process(pid) if pid is not None else None
    headers = {"Authorization": f"Bearer {args.token}"} if args.token else {}
    client = httpx.Client(base_url=url, headers=headers, timeout=60)

    def gql(op: str, variables: dict) -> Callable[[], object]:
        def call() -> object:
            r = client.post("/graphql", json={"query": GQL[op], "variables": variables | {"ws": ws}})
            body = r.json()
            if r.status_code != 200 or body.get("errors"):
                raise RuntimeError(body)
            return body

        return call

    http = {
        "search": [gql("search", {"t": t}) for t in names],
        "neighborhood d1": [gql("neighborhood d1", {"id": i}) for i in ids],
        "neighborhood d2": [gql("neighborhood d2", {"id": i}) for i in ids],
        "paths": [gql("paths", {"a": a, "b": b}) for a, b in pairs],
        "explain": [gql("explain", {"id": i}) for i in ids],
        "symbol": [gql("symbol", {"id": r}) for r in refs],
        "callers d1": [gql("callers d1", {"id": r}) for r in refs],
        "callers d3": [gql("callers d3", {"id": r}) for r in refs],
        "callPath": [gql("callPath", {"a": a, "b": b}) for a, b in ref_pairs],
        "impact d2": [gql("impact d2", {"id": i}) for i in ids],
    }
    print(f"\nlatency in ms (direct = engine call; http = GraphQL over HTTP at {url})")
    for op in direct:
        if args.only and op not in args.only:
            continue
        for mode, calls in (("direct", direct[op]), ("http", http[op])):
            timed(calls[: min(20, n)])  # warm the plan cache and the connection pool
            before = server_cpu_s(server_process)
            samples, errors = timed(calls)
            failed = f"  errors {errors}" if errors else ""
            cpu = ""
            if mode == "http" and server_process is not None:
                cpu = f"  server CPU {(server_cpu_s(server_process) - before) / len(calls) * 1000:.2f} ms/request"
            print(f"  {op:16s} {mode:6s} {percentiles(samples)}{failed}{cpu}")

    if not args.only or "impact d2" in args.only:
        sizes = sorted(len(json.dumps(dataclasses.asdict(impact(i, workspace=ws, depth=2)))) for i in ids)
        print(f"  impact d2 answer, bytes of JSON: p50 {sizes[len(sizes) // 2]}  p95 {sizes[int(len(sizes) * 0.95)]}  "
              f"max {sizes[-1]}  (target < 8192)")

    if not args.no_communities:
        print("\ncommunities (Leiden, modularity, whole workspace)")
        for title, kwargs in (
            ("igraph's Leiden", {}),
            ("igraph's Leiden, same seed again", {}),
            ("leidenalg's Leiden (reference)", {"algorithm": "leidenalg"}),
        ):
            started = time.perf_counter()
            res = compute_communities(workspace=ws, seed=args.seed, **kwargs)
            total = time.perf_counter() - started
            print(
                f"  {title}: {res.nodes} nodes, {res.edges} edges -> {res.community_count} communities "
                f"(modularity {res.modularity:.3f}, {res.unassigned} nodes in communities under 3)\n"
                f"    fetch {res.fetch_s:.2f} s  leiden {res.leiden_s:.2f} s  write-back {res.write_s:.2f} s  "
                f"total {total:.2f} s"
            )
        for c in res.communities[:5]:
            print(f"    {c.id:>14} {c.size:6d}  {c.label}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak memory of this process: {peak:.0f} MiB; transaction timeout {get_settings().neo4j.transaction_timeout_s:g} s")


if __name__ == "__main__":
    main()
