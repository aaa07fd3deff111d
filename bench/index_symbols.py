"""Full index (tree + symbols) of the standard library, against the bound of parsing alone.

    .venv/bin/python bench/index_symbols.py [--jobs N] [--workspace NAME] [--no-warm-up]

Works on a private copy of the standard library (without site-packages) so that it can edit
one file for the incremental figure. Uses NEO4J_URI when set, otherwise the managed Neo4j.

A Neo4j that has just started compiles its write paths during the first large index (the
first run after a start measured about half again as long here). Unless `--no-warm-up` is
given, one package (`email`) is indexed into a throwaway workspace first, then one of its
files is edited and re-indexed (Neo4j plans the incremental statements once: that first edit
took about 1 s more than the next ones here). Both times are printed; the cold figure is a
first index of this corpus on a running server, the edit figure a server's usual edit.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import (  # noqa: E402
    Timer,
    TreeRss,
    copy_stdlib,
    cpu_seconds,
    drop_workspace,
    local_neo4j,
    peak_rss_mb,
)
from graphsvc.graph.driver import get_graph  # noqa: E402
from graphsvc.settings import get_settings  # noqa: E402
from indexers.languages import language_for_path, parser_for  # noqa: E402
from graphsvc.indexing.pipeline import index_symbols  # noqa: E402
from graphsvc.indexing.state import state_path  # noqa: E402


def _parse_only(job: tuple[str, str]) -> int:
    path, lang = job
    with open(path, "rb") as fh:
        data = fh.read()
    parser_for(lang).parse(data)
    return len(data)


def parse_bound(root: Path, jobs: int) -> tuple[float, int, int]:
    """Seconds to read and tree-sitter-parse every supported file with `jobs` processes."""
    work = []
    for dirpath, _, names in os.walk(root):
        for name in names:
            spec = language_for_path(name)
            if spec is not None:
                work.append((os.path.join(dirpath, name), spec.name))
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["indexers.languages"])
    with ctx.Pool(jobs) as pool:
        pool.map(_parse_only, work[:jobs])  # start the workers before the clock
        with Timer() as t:
            total = sum(pool.imap_unordered(_parse_only, work, chunksize=8))
    return t.seconds, len(work), total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workspace", default="bench-stdlib")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-warm-up", action="store_true", help="measure a server that has written nothing yet")
    args = parser.parse_args()
    graph = get_graph()
    with tempfile.TemporaryDirectory(prefix="graphsvc-bench-") as tmp:
        corpus = copy_stdlib(Path(tmp) / "stdlib")
        print(f"corpus: private copy of the standard library at {corpus}; Neo4j at {graph.uri}; "
              f"{args.jobs} parser processes")
        drop_workspace(args.workspace)
        state_path(get_settings().home, args.workspace, graph.uri).unlink(missing_ok=True)

        if not args.no_warm_up:
            warm_ws = args.workspace + "-warm-up"
            drop_workspace(warm_ws)
            state_path(get_settings().home, warm_ws, graph.uri).unlink(missing_ok=True)
            with Timer() as warm:
                index_symbols(corpus / "email", workspace=warm_ws, jobs=args.jobs)
            edited = corpus / "email" / "quoprimime.py"
            original = edited.read_text()
            edited.write_text(original + "\n\ndef added_by_warm_up(s):\n    return header_decode(s)\n")
            with Timer() as warm_edit:
                index_symbols(corpus / "email", workspace=warm_ws, jobs=args.jobs)
            edited.write_text(original)
            drop_workspace(warm_ws)
            state_path(get_settings().home, warm_ws, graph.uri).unlink(missing_ok=True)
            print(f"warm-up: indexed email/ into a throwaway workspace in {warm.seconds:.2f} s, "
                  f"then one edited file in {warm_edit.seconds:.2f} s")

        bound, nfiles, nbytes = parse_bound(corpus, args.jobs)
        print(f"parse-only bound: {bound:6.2f} s for {nfiles} files, {nbytes / 1e6:.1f} MB "
              f"({args.jobs} processes, read + tree-sitter parse)")

        neo4j = local_neo4j(graph.uri)
        own = psutil.Process()
        cpu_before = cpu_seconds(own), cpu_seconds(neo4j)
        with TreeRss() as tree_rss, Timer() as cold:
            first = index_symbols(corpus, workspace=args.workspace, jobs=args.jobs)
        ours, theirs = cpu_seconds(own) - cpu_before[0], cpu_seconds(neo4j) - cpu_before[1]
        edges = sum(first.edges_written.values())
        print(f"cold index: {cold.seconds:6.2f} s  {first.files / cold.seconds:6,.0f} files/s  "
              f"{first.symbols:,} symbols  {edges:,} edges  = {cold.seconds / bound:.1f}x the parse-only bound")
        print("  " + first.line().replace("\n", "\n  "))
        cores = os.cpu_count() or 1
        if neo4j is not None:
            # On a machine this small the run is CPU-bound: the CPU time spent, spread over every
            # core, is a floor for the wall time, and Neo4j's share of it is a floor of its own.
            print(f"  CPU: {ours:.1f} s graphsvc (parsers included) + {theirs:.1f} s Neo4j = "
                  f"{(ours + theirs) / cores:.1f} s on {cores} cores if perfectly spread; Neo4j's alone "
                  f"= {theirs / cores / bound:.1f}x the parse-only bound")
        else:
            print(f"  CPU: {ours:.1f} s graphsvc (parsers included); Neo4j is not on this machine")

        with Timer() as unchanged:
            index_symbols(corpus, workspace=args.workspace, jobs=args.jobs)
        print(f"unchanged re-run: {unchanged.seconds:6.2f} s")

        target = corpus / "json" / "decoder.py"
        target.write_text(target.read_text() + "\n\ndef added_by_benchmark(s):\n    return JSONDecoder().decode(s)\n")
        with Timer() as edit:
            third = index_symbols(corpus, workspace=args.workspace, jobs=args.jobs)
        print(f"one-file edit:    {edit.seconds:6.2f} s  (parsed {third.parsed}, re-resolved {third.resolved_files} "
              f"files, wrote {sum(third.edges_written.values())} edges)")
        own, _ = peak_rss_mb()
        print(f"peak RSS: {own:,.0f} MB this process; {tree_rss.peak_mb:,.0f} MB this process and its parser "
              f"processes together during the cold index (sampled every 100 ms)")
        print("targets: cold < 45 s and <= 4x the parse-only bound; unchanged < 3 s; one-file edit < 1 s; "
              "peak < 2 GB")
        drop_workspace(args.workspace)


if __name__ == "__main__":
    main()
