"""Incremental runs against a clean index, on a real project: the graph after random edits
must be the graph of a clean index of the same tree.

    .venv/bin/python bench/incremental_equals_clean.py PATH [PATH ...] [--seeds 3] [--steps 4]

Each PATH is copied; the copy is indexed, then edited at random (`Editor` of the test suite:
function bodies, imports added and removed, calls into other files, renames, deletions, new
files, directory moves), re-indexed incrementally after every step and compared, as multisets
of nodes and relationships with all their properties, with a clean index of the same tree in
another workspace. Prints one line per step and the first differences on failure. Uses
NEO4J_URI when set, otherwise the managed Neo4j; the workspaces it writes are deleted at the end.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import drop_workspace  # noqa: E402
from graphsvc.graph.driver import get_graph  # noqa: E402
from graphsvc.indexing.pipeline import index_symbols  # noqa: E402
from tests.graph_compare import difference, dump  # noqa: E402
from tests.indexing.test_incremental_equals_clean import Editor  # noqa: E402

def run(source: Path, seed: int, steps: int, tmp: Path) -> bool:
    graph = get_graph()
    repo = tmp / f"{source.name}-{seed}"
    shutil.copytree(source, repo)
    ws = f"iec-{source.name}-{seed}"
    started = time.perf_counter()
    first = index_symbols(repo, workspace=ws)
    print(f"{source.name} seed {seed}: {first.parsed} files, {first.symbols} symbols "
          f"in {time.perf_counter() - started:.1f} s", flush=True)
    editor = Editor(repo, seed)
    written = [ws]
    ok = True
    for step in range(1, steps + 1):
        for _ in range(editor.rng.randint(2, 4)):
            editor.step()
        started = time.perf_counter()
        summary = index_symbols(repo, workspace=ws)
        incremental_s = time.perf_counter() - started
        clean = f"{ws}-clean{step}"
        written.append(clean)
        index_symbols(repo, workspace=clean)
        got, want = dump(graph.read, ws), dump(graph.read, clean)
        diff = difference(got, want, ("incremental", "clean"))
        print(f"  step {step} ({summary.mode}, {summary.parsed} parsed, {incremental_s:.2f} s): "
              f"{got.summary()} -> {'same as clean' if not diff else 'DIFFERENT'}", flush=True)
        if diff:
            print("    after: " + "; ".join(editor.log) + "\n" + diff)
            ok = False
            break
    for name in written:
        drop_workspace(name)
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=4)
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="graphsvc-iec-") as tmp:
        for path in args.paths:
            for seed in range(1, args.seeds + 1):
                results.append(run(path.resolve(), seed, args.steps, Path(tmp)))
    print(f"{sum(results)} of {len(results)} sequences equal a clean index after every step")
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
