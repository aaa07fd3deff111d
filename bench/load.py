"""Load: concurrent agents against a running `graphsvc serve`, with one re-index in the middle.

    .venv/bin/python bench/load.py --workspace stdlib [--clients 20] [--duration 180]
        [--url http://127.0.0.1:8080 | --start-server] [--token T] [--reindex PATH [--touch N]]
        [--json-out F]

Each client loops over a realistic mix until the duration is spent: `contextQuery` strings
of every kind (search, neigh, path, explain), event appends (`recordEvent`) and cache
recalls (`GET /api/cache/recall`). Halfway through, PATH is indexed again into the same
workspace (through the API when the server's workspace roots allow it, else with
`graphsvc index` in a subprocess) while the clients keep going; with `--touch N`, N of
its Python files get a new function first, so the re-index parses, re-resolves and rewrites
for real (this edits PATH: give it a copy). The report gives
requests/s, p50/p95/p99 per kind, the error count (target 0) and the server's resident
memory at start, after warm-up and at the end (target: end within 10 % of warm-up).

Traffic goes to loopback addresses only, and the run stops by itself.
`--start-server` runs `graphsvc serve` on a free loopback port with this environment's
settings (NEO4J_URI, or the managed server) and stops it afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

import httpx
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import server_pid  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parent.parent
WEIGHTS = {"search": 30, "neigh": 20, "path": 10, "explain": 10, "event": 20, "recall": 10}
KEYWORDS = ["parse", "decode", "encode", "read", "write", "open", "close", "request", "header", "socket",
            "thread", "lock", "format", "json", "path", "config", "error", "message", "timeout", "buffer"]
CONTEXT_QUERY = "query($q: String!) { contextQuery(query: $q) { operation elapsedMs search { hits { entity { id } } } " \
                "neighborhood { nodes { id } truncated } paths { paths { length } } explain { summary } } }"
RECORD_EVENT = "mutation($p: JSON, $ws: String) { recordEvent(type: \"FulfilledLocal\", payload: $p, workspace: $ws) { id } }"
SAMPLE_IDS = "query($t: String!, $ws: String) { search(text: $t, workspace: $ws, kinds: [\"function\", \"method\", \"class\"], limit: 40) { hits { entity { id } } } }"


def loopback_only(url: str) -> None:
    host = urlparse(url).hostname or ""
    if host == "localhost":
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    sys.exit(f"refusing {url}: the load script sends traffic to loopback addresses only")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int | None) -> float | None:
    if pid is None:
        return None
    try:
        return psutil.Process(pid).memory_info().rss / 2**20
    except psutil.NoSuchProcess:
        return None


def pct(samples: list[float], q: int) -> float:
    if len(samples) < 2:
        return samples[0] if samples else float("nan")
    return statistics.quantiles(samples, n=100, method="inclusive")[q - 1]


def touch_files(root: Path, count: int, seed: int) -> int:
    """Append a function to `count` Python files under `root` (seeded choice), so the
    re-index has real work: parse, re-resolve what depends on them, rewrite their edges."""
    if count <= 0:
        return 0
    files = sorted(p for p in root.rglob("*.py") if "site-packages" not in p.parts)
    chosen = random.Random(seed).sample(files, min(count, len(files)))
    stamp = int(time.time())
    for n, path in enumerate(chosen):
        with path.open("a", encoding="utf-8") as fh:
            fh.write(f"\n\ndef load_run_edit_{stamp}_{n}(value):\n    return repr(value)\n")
    return len(chosen)

class Load:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.url = args.url.rstrip("/")
        self.headers = {"Authorization": f"Bearer {args.token}"} if args.token else {}
        self.latency: dict[str, list[float]] = {k: [] for k in WEIGHTS}
        self.errors: dict[str, int] = {k: 0 for k in WEIGHTS}
        self.error_samples: list[str] = []
        self.ids: list[str] = []
        self.reindex: dict = {}
        self.rng = random.Random(args.seed)

    # -- setup ----------------------------------------------------------------------------

    async def sample(self, client: httpx.AsyncClient) -> None:
        for word in KEYWORDS:
            r = await client.post("/graphql", json={"query": SAMPLE_IDS, "variables": {"t": word, "ws": self.args.workspace}})
            hits = r.json().get("data", {}) or {}
            self.ids += [h["entity"]["id"] for h in (hits.get("search") or {}).get("hits", [])]
        self.ids = sorted(set(self.ids))
        if len(self.ids) < 10:
            sys.exit(f"workspace {self.args.workspace!r} has too few symbols: index it first")
        for i in range(20):  # something for recall to find
            text = f"cached tool output {i}: " + " ".join(self.rng.sample(KEYWORDS, 6)) + "\n" * 3
            await client.post("/api/cache/store", json={"content": text, "label": f"load-{i}"})

    # -- one request of each kind -----------------------------------------------------------

    def _request(self, kind: str, client_no: int, n: int) -> tuple[str, str, dict]:
        ws, rng = self.args.workspace, self.rng
        if kind == "search":
            words = rng.sample(KEYWORDS, 2)
            q = f"@{ws} {words[0]} OR {words[1]}" if rng.random() < 0.5 else f"@{ws} {words[0]}"
        elif kind == "neigh":
            q = f'@{ws} neigh="{rng.choice(self.ids)}" depth={rng.choice((1, 1, 2))}'
        elif kind == "path":
            a, b = rng.sample(self.ids, 2)
            q = f'@{ws} path="{a}"->"{b}" hops=4'
        elif kind == "explain":
            q = f'@{ws} explain="{rng.choice(self.ids)}"'
        elif kind == "event":
            payload = {"client": client_no, "n": n, "route": rng.choice(["local", "origin"])}
            return "POST", "/graphql", {"json": {"query": RECORD_EVENT, "variables": {"p": payload, "ws": ws}}}
        else:
            return "GET", "/api/cache/recall", {"params": {"q": " ".join(rng.sample(KEYWORDS, 2)), "limit": 10}}
        return "POST", "/graphql", {"json": {"query": CONTEXT_QUERY, "variables": {"q": q}}}

    async def client(self, client_no: int, deadline: float) -> None:
        kinds, weights = list(WEIGHTS), list(WEIGHTS.values())
        limits = httpx.Limits(max_connections=1)
        async with httpx.AsyncClient(base_url=self.url, headers=self.headers, timeout=60, limits=limits) as client:
            n = 0
            while time.monotonic() < deadline:
                kind = self.rng.choices(kinds, weights)[0]
                method, path, kw = self._request(kind, client_no, n)
                started = time.perf_counter()
                try:
                    r = await client.request(method, path, **kw)
                    ok = r.status_code == 200 and not (path == "/graphql" and r.json().get("errors"))
                    detail = r.text[:200]
                except (httpx.HTTPError, ValueError) as exc:
                    ok, detail = False, repr(exc)
                elapsed = (time.perf_counter() - started) * 1000
                self.latency[kind].append(elapsed)
                if not ok:
                    self.errors[kind] += 1
                    if len(self.error_samples) < 10:
                        self.error_samples.append(f"{kind}: {detail}")
                n += 1

    # -- the re-index in the middle ------------------------------------------------------------

    async def reindex_midway(self, start_at: float) -> None:
        if not self.args.reindex:
            return
        await asyncio.sleep(max(0.0, start_at - time.monotonic()))
        touched = touch_files(Path(self.args.reindex), self.args.touch, self.args.seed)
        started = time.perf_counter()
        via = "api"
        async with httpx.AsyncClient(base_url=self.url, headers=self.headers, timeout=60) as client:
            mutation = "mutation($p: String!, $ws: String) { indexSymbols(path: $p, workspace: $ws) { id } }"
            r = await client.post("/graphql", json={"query": mutation, "variables": {"p": self.args.reindex, "ws": self.args.workspace}})
            body = r.json()
            if body.get("errors"):
                via = "cli"
            else:
                job_id = body["data"]["indexSymbols"]["id"]
                state = "queued"
                while state not in ("done", "failed"):
                    await asyncio.sleep(1)
                    jobs = await client.post("/graphql", json={"query": "query($id: String) { jobs(id: $id) { state error } }",
                                                               "variables": {"id": job_id}})
                    job = jobs.json()["data"]["jobs"][0]
                    state = job["state"]
                self.reindex = {"via": via, "state": state, "error": job.get("error")}
        if via == "cli":
            cmd = [sys.executable, "-m", "graphsvc", "index", self.args.reindex, "--workspace", self.args.workspace,
                   "--exclude", "/site-packages/"]
            proc = await asyncio.create_subprocess_exec(*cmd, cwd=REPO_ROOT, stdout=asyncio.subprocess.PIPE,
                                                        stderr=asyncio.subprocess.PIPE)
            out, err = await proc.communicate()
            self.reindex = {"via": via, "exit": proc.returncode, "summary": out.decode().strip()[-300:],
                            "stderr": err.decode().strip()[-300:]}
        self.reindex["seconds"] = round(time.perf_counter() - started, 1)
        self.reindex["files_edited_before"] = touched

    # -- the run ------------------------------------------------------------------------------

    async def run(self) -> dict:
        pid = self.args.server_pid or server_pid(self.url)
        memory = {"start": rss_mb(pid)}
        async with httpx.AsyncClient(base_url=self.url, headers=self.headers, timeout=60) as c:
            await self.sample(c)
        start = time.monotonic()
        deadline = start + self.args.duration
        warm = start + min(self.args.warmup, self.args.duration / 3)

        series: list[tuple[int, float | None]] = []

        async def watch_memory() -> None:
            peak = 0.0
            warm_taken = False
            while time.monotonic() < deadline:
                now = rss_mb(pid)
                peak = max(peak, now or 0.0)
                if not warm_taken and time.monotonic() >= warm:
                    memory["after_warmup"], warm_taken = now, True
                second = int(time.monotonic() - start)
                if not series or second - series[-1][0] >= 10:
                    series.append((second, round(now, 1) if now else now))
                await asyncio.sleep(1)
            memory["peak"] = peak

        tasks = [asyncio.create_task(self.client(i, deadline)) for i in range(self.args.clients)]
        tasks.append(asyncio.create_task(watch_memory()))
        tasks.append(asyncio.create_task(self.reindex_midway(start + self.args.duration / 2)))
        await asyncio.gather(*tasks)
        wall = time.monotonic() - start
        memory["end"] = rss_mb(pid)
        total = sum(len(v) for v in self.latency.values())
        kinds = {
            k: {"requests": len(v), "errors": self.errors[k], "p50_ms": round(pct(v, 50), 1),
                "p95_ms": round(pct(v, 95), 1), "p99_ms": round(pct(v, 99), 1)}
            for k, v in self.latency.items()
        }
        growth = None
        if memory.get("after_warmup") and memory.get("end"):
            growth = round(100 * (memory["end"] - memory["after_warmup"]) / memory["after_warmup"], 1)
        return {
            "url": self.url, "workspace": self.args.workspace, "clients": self.args.clients,
            "duration_s": round(wall, 1), "requests": total, "requests_per_s": round(total / wall, 1),
            "errors": sum(self.errors.values()), "kinds": kinds, "error_samples": self.error_samples,
            "server_rss_mb": {k: (round(v, 1) if v else v) for k, v in memory.items()},
            "rss_growth_after_warmup_pct": growth, "rss_every_10s": series, "reindex": self.reindex,
            "cpu_count": os.cpu_count(), "load_average": os.getloadavg(),
        }


def print_report(report: dict) -> None:
    print(f"{report['clients']} clients x {report['duration_s']} s against {report['url']} "
          f"(workspace {report['workspace']}): {report['requests']} requests, "
          f"{report['requests_per_s']} req/s, {report['errors']} errors")
    print(f"{'kind':8} {'requests':>9} {'errors':>7} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}")
    for kind, k in report["kinds"].items():
        print(f"{kind:8} {k['requests']:>9} {k['errors']:>7} {k['p50_ms']:>8} {k['p95_ms']:>8} {k['p99_ms']:>8}")
    m = report["server_rss_mb"]
    print(f"server RSS MB: start {m.get('start')}, after warm-up {m.get('after_warmup')}, peak {m.get('peak')}, "
          f"end {m.get('end')} (growth after warm-up {report['rss_growth_after_warmup_pct']} %)")
    print("server RSS MB every 10 s: " + " ".join(f"{t}s:{v}" for t, v in report["rss_every_10s"]))
    print(f"re-index: {report['reindex']}")
    for sample in report["error_samples"]:
        print(f"  error: {sample}")


def start_server(token: str | None) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = dict(os.environ)
    if token:
        env["GRAPHSVC_SERVER__TOKEN"] = token
    proc = subprocess.Popen([sys.executable, "-m", "graphsvc", "serve", "--host", "127.0.0.1", "--port", str(port)],
                            cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"graphsvc serve exited with {proc.returncode}")
        try:
            if httpx.get(f"{url}/healthz", timeout=30).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGTERM)
    sys.exit("graphsvc serve did not become healthy within 300 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workspace", default="stdlib")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--duration", type=float, default=180.0, help="seconds of load (default 180)")
    parser.add_argument("--warmup", type=float, default=30.0, help="seconds before the warm-up memory sample")
    parser.add_argument("--url", default="http://127.0.0.1:8080")
    parser.add_argument("--start-server", action="store_true", help="run graphsvc serve on a free port for the run")
    parser.add_argument("--server-pid", type=int, default=None, help="default: the process listening on the port")
    parser.add_argument("--token", default=os.environ.get("GRAPHSVC_SERVER__TOKEN"))
    parser.add_argument("--reindex", default=None, metavar="PATH", help="index PATH again halfway through")
    parser.add_argument("--touch", type=int, default=0, metavar="N",
                        help="before the re-index, append a function to N .py files under PATH "
                             "(edits them: give a copy)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json-out", default=None)
    args = parser.parse_args()
    if not 1 <= args.clients <= 200 or not 1 <= args.duration <= 3600:
        sys.exit("--clients must be 1..200 and --duration 1..3600 s")
    server = None
    if args.start_server:
        server, args.url = start_server(args.token)
        args.server_pid = server.pid
    loopback_only(args.url)
    try:
        report = asyncio.run(Load(args).run())
    finally:
        if server is not None:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(60)
    print_report(report)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
