"""Side by side with a peer, in one run on one tree: cold index, unchanged re-run, one-file edit.

    .venv/bin/python bench/peers.py [--project django==5.1.4] [--rounds 2] [--workspace peers-django]
        [--edit django/utils/text.py] [--api-edits 40] [--skip-peer] [--api-only]

The peer is `@colbymchenry/codegraph@1.6.1` (npm), installed by this script into
`bench/.cache/peers/npm/` (needs `npm`); the corpus is the project's source distribution from
PyPI (`pip download --no-binary`), unpacked into `bench/.cache/peers/`. Each tool gets its own
copy of the same tree under the system's temporary directory, outside any git checkout (the
peer leaves out what an enclosing repository ignores; it keeps its index in `.codegraph/`
inside the tree), and each is driven through its command line, as a user runs it:

- ours: `graphsvc index TREE -w WORKSPACE` (the workspace dropped first for the cold run), run as
  `python -m graphsvc` from this checkout;
- theirs: `codegraph init -y TREE` (its `.codegraph/` removed first), then `codegraph sync TREE`.

A round runs ours and theirs alternately (cold, unchanged, then one edited file: a function
appended to `--edit` in both copies). Then our command line's start (`graphsvc --version`,
`graphsvc --help`, five runs each) and the warm-server path for a one-file edit: `graphsvc
serve` with the tree's directory among its workspace roots, warmed by one edit indexed, then
`POST /api/context/index-symbols` after each edit, polled until the job is done
(client-observed, the job's own time and the server's CPU; p50 and p95 over the edits).
`--api-only` measures that path alone (the tree indexed once first, when the workspace does
not hold it yet), without the peer, the edited file first put back as the sdist has it (each
edit lengthens it: runs that started from an ever longer file were not comparable).
Each figure is wall seconds and the CPU seconds of the command's process tree (our Neo4j's
CPU is not in it: printed apart). The peer's telemetry is switched off
(`CODEGRAPH_TELEMETRY=0`). Uses NEO4J_URI when set, otherwise the managed Neo4j.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import httpx
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import cpu_seconds, drop_workspace, local_neo4j  # noqa: E402
from bench.load import free_port  # noqa: E402
from graphsvc.graph.driver import get_graph  # noqa: E402

PEER = "@colbymchenry/codegraph@1.6.1"
CACHE = Path(__file__).resolve().parent / ".cache" / "peers"
REPO_ROOT = Path(__file__).resolve().parent.parent
# This checkout's code, as `graphsvc` runs it (the console script does the same import).
GRAPHSVC = [sys.executable, "-m", "graphsvc"]
PEER_ENV = {"CODEGRAPH_TELEMETRY": "0", "CODEGRAPH_NO_DOWNLOAD": "1", "NO_COLOR": "1"}


def install_peer() -> Path:
    """The peer's command, installed once into the cache with npm."""
    prefix = CACHE / "npm"
    command = prefix / "node_modules" / ".bin" / "codegraph"
    package = prefix / "node_modules" / "@colbymchenry" / "codegraph" / "package.json"
    wanted = PEER.rsplit("@", 1)[1]
    if not (command.exists() and package.exists() and json.loads(package.read_text())["version"] == wanted):
        if shutil.which("npm") is None:
            sys.exit("npm is needed to install the peer (or pass --skip-peer)")
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(prefix), PEER], check=True)
    return command


def corpus(project: str) -> Path:
    """The project's sdist from PyPI, unpacked once (the pristine tree the copies come from)."""
    name, version = project.split("==")
    sdists = CACHE / "sdist"
    found = [p for p in sdists.glob("*.tar.gz") if p.name.lower().startswith(f"{name.lower()}-{version}")]
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", project,
                        "-d", str(sdists)], check=True)
        found = [p for p in sdists.glob("*.tar.gz") if p.name.lower().startswith(f"{name.lower()}-{version}")]
    archive = found[0]
    tree = CACHE / "src" / archive.name.removesuffix(".tar.gz")
    if not tree.exists():
        with tarfile.open(archive) as tar:
            tar.extractall(CACHE / "src", filter="data")
    return tree


def fresh_copy(tree: Path, name: str) -> Path:
    # Outside any git checkout: the peer leaves out what an enclosing repository ignores, and
    # this one ignores bench/.cache/.
    target = Path(tempfile.gettempdir()) / "graphsvc-peers" / name
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(tree, target, symlinks=True)
    return target


def timed(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU seconds (user + system of the process and every descendant it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, env=os.environ | (env or {}), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, cwd=REPO_ROOT)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stdout[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def edit(tree: Path, relative: str, n: int) -> None:
    with (tree / relative).open("a") as f:
        f.write(f"\n\ndef _bench_added_{n}(value):\n    return str(value).strip()\n")


class Tools:
    def __init__(self, ours: Path, theirs: Path | None, workspace: str, peer: Path | None):
        self.ours, self.theirs, self.workspace, self.peer = ours, theirs, workspace, peer

    def ours_index(self) -> tuple[float, float]:
        return timed([*GRAPHSVC, "index", str(self.ours), "-w", self.workspace])

    def ours_cold(self) -> tuple[float, float]:
        drop_workspace(self.workspace)
        return self.ours_index()

    def theirs_cold(self) -> tuple[float, float]:
        shutil.rmtree(self.theirs / ".codegraph", ignore_errors=True)
        took = timed([str(self.peer), "init", "-y", str(self.theirs)], PEER_ENV)
        status = subprocess.run([str(self.peer), "status", str(self.theirs)], env=os.environ | PEER_ENV,
                                capture_output=True, text=True).stdout
        files = re.search(r"Files:\s+([\d,]+)", status)
        if not files or files[1] in ("0", ""):
            sys.exit(f"the peer indexed no files of {self.theirs}:\n{status}")
        self.peer_files = files[1]
        return took

    def theirs_sync(self) -> tuple[float, float]:
        return timed([str(self.peer), "sync", str(self.theirs)], PEER_ENV)


def cell(samples: list[tuple[float, float]]) -> str:
    if not samples:
        return "-"
    walls = ", ".join(f"{w:.2f}" for w, _ in samples)
    cpus = ", ".join(f"{c:.2f}" for _, c in samples)
    return f"{walls} s (CPU {cpus})"


def api_edits(tree: Path, workspace: str, relative: str, count: int, first: int) -> list[tuple[float, float, float]]:
    """(client-observed, job's own, the server's CPU) seconds of `count` one-file edits indexed
    by a warm server."""
    port = free_port()
    env = os.environ | {"GRAPHSVC_SERVER__WORKSPACE_ROOTS": json.dumps([str(tree.parent)])}
    server = subprocess.Popen([*GRAPHSVC, "serve", "--host", "127.0.0.1", "--port", str(port)], env=env, cwd=REPO_ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    out = []
    try:
        with httpx.Client(base_url=url, timeout=120) as client:
            deadline = time.monotonic() + 300
            while True:
                try:
                    if client.get("/healthz").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline or server.poll() is not None:
                    sys.exit("graphsvc serve did not start")
                time.sleep(0.2)

            process = psutil.Process(server.pid)

            def index() -> tuple[float, float, float]:
                cpu = cpu_seconds(process)
                started = time.perf_counter()
                answer = client.post("/api/context/index-symbols", json={"path": str(tree), "workspace": workspace})
                if answer.status_code != 202:
                    sys.exit(f"index-symbols: {answer.status_code} {answer.text}")
                job = answer.json()
                while job["state"] in ("queued", "running"):
                    time.sleep(0.002)
                    job = client.get(f"/api/context/jobs/{job['id']}").json()
                wall = time.perf_counter() - started
                if job["state"] != "done":
                    sys.exit(f"index job {job['state']}: {job.get('error')}")
                return wall, job["finished_at"] - job["started_at"], cpu_seconds(process) - cpu

            # Warm: the server's first run that has something to do loads the index state (a
            # run that finds nothing changed does not), and its statements are planned.
            edit(tree, relative, first)
            index()
            for n in range(1, count + 1):
                edit(tree, relative, first + n)
                out.append(index())
    finally:
        os.killpg(server.pid, signal.SIGTERM)
    return out


def percentile(values: list[float], p: float) -> float:
    """The nearest-rank percentile (p in 0..100)."""
    ranked = sorted(values)
    return ranked[max(0, min(len(ranked) - 1, round(p / 100 * len(ranked) + 0.5) - 1))]


def api_cell(api: list[tuple[float, float, float]]) -> str:
    clients = [w * 1000 for w, _, _ in api]
    jobs = [j * 1000 for _, j, _ in api]
    cpus = [c * 1000 for _, _, c in api]
    return (f"p50 {percentile(clients, 50):.0f} ms, p95 {percentile(clients, 95):.0f} ms over {len(api)} edits "
            f"(the job itself: p50 {percentile(jobs, 50):.0f}, p95 {percentile(jobs, 95):.0f} ms; "
            f"the server's CPU: p50 {percentile(cpus, 50):.0f}, p95 {percentile(cpus, 95):.0f} ms)")


def api_only(args: argparse.Namespace) -> None:
    """The warm server's one-file edits alone, on a copy of the tree indexed once if needed."""
    tree = Path(tempfile.gettempdir()) / "graphsvc-peers" / "api"
    pristine = corpus(args.project)
    if not tree.exists():
        fresh_copy(pristine, "api")
    shutil.copyfile(pristine / args.edit, tree / args.edit)
    graph = get_graph()
    print(f"{args.project}: warm-server one-file edits of {args.edit}; Neo4j at {graph.uri}; "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    timed([*GRAPHSVC, "index", str(tree), "-w", args.workspace])  # a no-op when it is indexed already
    first = sum(1 for line in (tree / args.edit).read_text().splitlines() if line.startswith("def _bench_added_"))
    api = api_edits(tree, args.workspace, args.edit, args.api_edits, first + 1)
    print(f"one edited file through a warm server's API: {api_cell(api)}; load average {os.getloadavg()[0]:.1f}")


def cli_start() -> dict[str, list[tuple[float, float]]]:
    return {args: [timed([*GRAPHSVC, args]) for _ in range(5)] for args in ("--version", "--help")}


def compile_checkout() -> None:
    """Byte-compile this checkout's modules, as installing a wheel does (and `make setup`): with
    PYTHONDONTWRITEBYTECODE set, each command would otherwise compile them again."""
    for package in ("graphsvc", "indexers"):
        compileall.compile_dir(REPO_ROOT / package, quiet=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--project", default="django==5.1.4", help="NAME==VERSION of a PyPI project with an sdist")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workspace", default="peers-django")
    parser.add_argument("--edit", default="django/utils/text.py", help="the file edited, relative to the tree")
    # A nearest-rank p95 of 20 edits is their second slowest: one stall on a shared machine.
    parser.add_argument("--api-edits", type=int, default=40)
    parser.add_argument("--skip-peer", action="store_true")
    parser.add_argument("--api-only", action="store_true",
                        help="only the warm server's one-file edits (implies --skip-peer)")
    args = parser.parse_args()
    compile_checkout()
    if args.api_only:
        api_only(args)
        return

    peer = None if args.skip_peer else install_peer()
    pristine = corpus(args.project)
    ours_tree = fresh_copy(pristine, "ours")
    theirs_tree = None if peer is None else fresh_copy(pristine, "theirs")
    files = sum(1 for p in pristine.rglob("*.py"))
    size = sum(p.stat().st_size for p in pristine.rglob("*") if p.is_file()) / 1e6
    graph = get_graph()
    neo4j = local_neo4j(graph.uri)
    print(f"{args.project}: {files} .py files, {size:.1f} MB; peer {PEER if peer else '(skipped)'}; "
          f"Neo4j at {graph.uri}; load average {os.getloadavg()[0]:.1f}", flush=True)

    tools = Tools(ours_tree, theirs_tree, args.workspace, peer)
    rows = {k: ([], []) for k in ("cold index", "unchanged re-run", "one edited file")}
    neo4j_cpu = 0.0
    edits = 0
    for _ in range(args.rounds):
        steps = [("cold index", tools.ours_cold, tools.theirs_cold),
                 ("unchanged re-run", tools.ours_index, tools.theirs_sync),
                 ("one edited file", tools.ours_index, tools.theirs_sync)]
        for label, ours, theirs in steps:
            if label == "one edited file":
                edits += 1
                edit(ours_tree, args.edit, edits)
                if theirs_tree is not None:
                    edit(theirs_tree, args.edit, edits)
            before = cpu_seconds(neo4j)
            rows[label][0].append(ours())
            neo4j_cpu += cpu_seconds(neo4j) - before
            if peer is not None:
                rows[label][1].append(theirs())
            print(f"  {label}: ours {cell(rows[label][0][-1:])}; theirs {cell(rows[label][1][-1:])}", flush=True)

    starts = cli_start()
    api = api_edits(ours_tree, args.workspace, args.edit, args.api_edits, edits + 1)

    print(f"\n| measure | graphsvc | {PEER if peer else 'peer'} |\n|---|---|---|")
    for label, (ours, theirs) in rows.items():
        print(f"| {label} | {cell(ours)} | {cell(theirs)} |")
    for flag, samples in starts.items():
        walls = sorted(w for w, _ in samples)
        print(f"| `graphsvc {flag}` | {walls[0]:.2f}-{walls[-1]:.2f} s (median {statistics.median(walls):.2f}) | |")
    print(f"| one edited file through a warm server's API | {api_cell(api)} | |")
    if peer is not None:
        print(f"\nthe peer's index holds {tools.peer_files} files")
    print(f"Neo4j's CPU during our command-line runs: {neo4j_cpu:.1f} s (not in the CPU figures above)")


if __name__ == "__main__":
    main()
