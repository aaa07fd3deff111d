"""Fault: the managed Neo4j's data directory on a nearly full filesystem.

    sudo .venv/bin/python bench/faults_disk.py [--size-mb 1024] [--free-mb 6] [--json-out F]

Needs root (it mounts a tmpfs of `--size-mb` and unmounts it at the end). A throwaway
`ManagedNeo4j` (jars of the default install) gets its instance directory on that mount;
after it starts, a filler file takes all but `--free-mb` of the space. Then:

1. `graphsvc index` of a copy of a few standard-library packages runs into the full disk:
   we record its exit code, its last line of output and how long it took;
2. Neo4j is asked a query (does it still answer, or did it stop the database?);
3. the filler is removed, Neo4j is restarted (recovery from its transaction log), the same
   index is run again and must complete, and the workspace must equal a clean index of
   the same tree (node/edge counts and a checksum of ids) — no corruption.

A JSON report goes to stdout (and `--json-out`). Every step has a time bound; the mount
and the server are removed whatever happens.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import neo4j

from graphsvc.neo4j import ManagedNeo4j, free_port
from graphsvc.settings import get_settings

REPO_ROOT = Path(__file__).resolve().parent.parent
STDLIB = Path(sysconfig.get_paths()["stdlib"])
PACKAGES = ("email", "json", "logging", "http", "asyncio", "xml", "unittest")


def checksum(driver: neo4j.Driver, ws: str) -> tuple[int, int, str]:
    nodes = sorted(r["id"] for r in driver.execute_query(
        "MATCH (n {workspace: $ws}) RETURN n.id AS id", ws=ws).records)
    rels = sorted(r["k"] for r in driver.execute_query(
        "MATCH (a {workspace: $ws})-[r]->(b) RETURN a.id + '|' + type(r) + '|' + coalesce(b.id, '') AS k", ws=ws).records)
    return len(nodes), len(rels), hashlib.sha256("\n".join(nodes + ["--"] + rels).encode()).hexdigest()[:16]


def index(env: dict, repo: Path, ws: str, timeout: float) -> dict:
    started = time.monotonic()
    try:
        p = subprocess.run([sys.executable, "-m", "graphsvc", "index", str(repo), "--workspace", ws],
                           env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=timeout)
        lines = [line for line in (p.stderr + p.stdout).splitlines() if line.strip()]
        return {"exit": p.returncode, "last_line": lines[-1][:400] if lines else "", "seconds": round(time.monotonic() - started, 1),
                "traceback": "Traceback" in p.stderr}
    except subprocess.TimeoutExpired:
        return {"exit": None, "last_line": f"no exit within {timeout:g} s", "seconds": timeout}


def fill(mount: Path, leave_mb: float) -> int:
    st = os.statvfs(mount)
    free = st.f_bavail * st.f_frsize
    size = max(0, int(free - leave_mb * 2**20))
    with open(mount / "filler", "wb") as fh:
        chunk = b"\0" * 2**20
        written = 0
        while written + len(chunk) <= size:
            fh.write(chunk)
            written += len(chunk)
        fh.write(b"\0" * (size - written))
    return size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--free-mb", type=float, default=6.0)
    parser.add_argument("--timeout", type=float, default=600.0, help="bound for each index run")
    parser.add_argument("--json-out", default=None)
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("needs root to mount a tmpfs (run with sudo)")
    work = Path(tempfile.mkdtemp(prefix="graphsvc-disk-"))
    mount = work / "disk"
    mount.mkdir()
    report: dict = {"size_mb": args.size_mb, "free_mb_left": args.free_mb}
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={args.size_mb}m", "tmpfs", str(mount)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        sys.exit(f"mount -t tmpfs failed: {mounted.stderr.strip()} (a sandbox without CAP_SYS_ADMIN cannot run this)")
    settings = get_settings().neo4j.model_copy(update={"heap": "512m", "pagecache": "128m", "start_timeout_s": 600.0})
    server = ManagedNeo4j(settings, instance_dir=mount / "neo4j", bolt_port=free_port(), http_port=free_port())
    try:
        t = time.monotonic()
        server.start(free_ports=True)
        report["neo4j_start_s"] = round(time.monotonic() - t, 1)
        report["used_after_start_mb"] = round(shutil.disk_usage(mount).used / 2**20, 1)
        info = server.connection_info()
        env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHSVC_")}
        env.update(NEO4J_URI=info.uri, NEO4J_USER=info.user, NEO4J_PASSWORD=info.password,
                   GRAPHSVC_HOME=str(work / "home"))
        repo = work / "repo"
        for pkg in PACKAGES:
            shutil.copytree(STDLIB / pkg, repo / pkg, ignore=shutil.ignore_patterns("__pycache__"))
        report["filler_mb"] = round(fill(mount, args.free_mb) / 2**20, 1)

        report["index_on_full_disk"] = index(env, repo, "disk", args.timeout)
        report["free_mb_after"] = round(shutil.disk_usage(mount).free / 2**20, 2)
        try:
            with neo4j.GraphDatabase.driver(info.uri, auth=(info.user, info.password)) as d:
                n = d.execute_query("MATCH (n {workspace: 'disk'}) RETURN count(n) AS n").records[0]["n"]
            report["neo4j_answers_while_full"] = {"ok": True, "nodes": n}
        except Exception as exc:  # what Neo4j does on a full disk is the finding
            report["neo4j_answers_while_full"] = {"ok": False, "error": f"{type(exc).__name__}: {str(exc)[:300]}"}
        report["neo4j_log_errors"] = [line[:300] for line in server.log_tail(400)
                                      if "No space left" in line or "ERROR" in line][-5:]

        (mount / "filler").unlink()
        server.stop(timeout_s=120)
        t = time.monotonic()
        server.start()
        report["restart_after_freeing_s"] = round(time.monotonic() - t, 1)
        report["rerun"] = index(env, repo, "disk", args.timeout)
        report["clean"] = index(env, repo, "disk-clean", args.timeout)
        with neo4j.GraphDatabase.driver(info.uri, auth=(info.user, info.password)) as d:
            a, b = checksum(d, "disk"), checksum(d, "disk-clean")
            consistency = d.execute_query("SHOW DATABASES YIELD name, currentStatus RETURN name, currentStatus").records
            indexes = d.execute_query("SHOW INDEXES YIELD name, state RETURN name, state").records
        # Only meaningful when both runs completed and wrote something.
        completed = report["rerun"]["exit"] == 0 and report["clean"]["exit"] == 0 and a[0] > 0
        report["rerun_equals_clean"] = completed and a == b
        report["index_states"] = {r["name"]: r["state"] for r in indexes}
        report["checksums"] = {"disk": a, "disk-clean": b}
        report["databases"] = {r["name"]: r["currentStatus"] for r in consistency}
    finally:
        try:
            server.stop(timeout_s=120)
        finally:
            subprocess.run(["umount", "-l", str(mount)], check=False)
            shutil.rmtree(work, ignore_errors=True)
    text = json.dumps(report, indent=2)
    print(text)
    if args.json_out:
        Path(args.json_out).write_text(text + "\n")


if __name__ == "__main__":
    main()
