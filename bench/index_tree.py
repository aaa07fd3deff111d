"""index-tree on the standard library of the running Python: cold, then an unchanged re-run.

    .venv/bin/python bench/index_tree.py [--workspace NAME]

Uses NEO4J_URI when set, otherwise the managed Neo4j.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import EXCLUDE, STDLIB, Timer, drop_workspace, peak_rss_mb  # noqa: E402
from graphsvc.graph.driver import get_graph  # noqa: E402
from graphsvc.indexing.pipeline import index_tree  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workspace", default="bench-stdlib-tree")
    args = parser.parse_args()
    graph = get_graph()
    print(f"corpus: {STDLIB} (without site-packages); Neo4j at {graph.uri}")
    drop_workspace(args.workspace)
    with Timer() as cold:
        first = index_tree(STDLIB, workspace=args.workspace, exclude=EXCLUDE)
    with Timer() as warm:
        second = index_tree(STDLIB, workspace=args.workspace, exclude=EXCLUDE)
    own, _ = peak_rss_mb()
    files = first.files + first.directories
    print(f"cold:      {cold.seconds:6.2f} s  {files / cold.seconds:8,.0f} entries/s  ({first.line()})")
    print(f"unchanged: {warm.seconds:6.2f} s  {files / warm.seconds:8,.0f} entries/s  ({second.line()})")
    print(f"read:      {first.bytes_read / 1e6:,.1f} MB hashed cold, {second.bytes_read / 1e6:,.1f} MB re-run")
    print(f"peak RSS:  {own:,.0f} MB (this process)")
    print("targets:   cold < 10 s, unchanged re-run < 2 s")


if __name__ == "__main__":
    main()
