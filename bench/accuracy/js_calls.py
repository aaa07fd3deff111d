"""JavaScript calls: our ``CALLS`` edges against the TypeScript checker on CommonJS packages.

    .venv/bin/python -m bench.accuracy.js_calls [--only request,express] [--missed] [--json FILE]

The packages of ``corpora.JS_CALL_PACKAGES`` are fetched from npm and indexed from their root
(tests, benchmarks and bundles left out); the checker reads the same ``.js`` files with
``allowJs`` (``bench/accuracy/ts_calls.js``): it follows ``require``, ``module.exports`` and
prototype assignments (``Router.prototype.use = function``) as Node runs them. The comparison
is ``ts_calls.measure``'s: (caller, callee) pairs, precision of our confident edges, recall
at confidence 1 and with candidates. A call of a variable or object property holding a
function is judged against what it holds; a site where the checker has no symbol for the
callee (``var extname = path.extname`` without Node's types) has no verdict.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from bench.accuracy import corpora, ts_calls  # noqa: E402
from bench.accuracy.common import resolve_in_process  # noqa: E402

SUFFIXES = (".js", ".cjs")


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="comma-separated package names (request, express, ...)")
    parser.add_argument("--missed", action="store_true", help="list every pair without a confident edge")
    parser.add_argument("--json", type=Path, default=None, help="where the details go")
    args = parser.parse_args()
    only = {x for x in args.only.split(",") if x}
    compiler = corpora.typescript_compiler()
    out = {}
    for corpus in corpora.javascript_call_corpora():
        name = corpus.label.split()[1].rpartition("@")[0]
        if only and name not in only:
            continue
        view = resolve_in_process(corpus.root, list(corpus.exclude))
        data = ts_calls.oracle(corpus.root, compiler, corpora.CACHE / "tsc-js", corpus.exclude, SUFFIXES)
        result = out[name] = ts_calls.measure(data, view.symbols, view.calls, examples=10**6 if args.missed else 15)
        confident, recall = result["precision"].get("at confidence = 1", {}), result["recall"]
        print(f"{corpus.label}: precision at confidence 1 {100 * (confident.get('precision') or 0):.2f} % "
              f"({confident.get('confirmed', 0)}/{confident.get('ours', 0)}), recall at confidence 1 "
              f"{100 * recall['confidence = 1']['recall']:.2f} %, with candidates "
              f"{100 * recall['any edge (candidates too)']['recall']:.2f} % of {result['oracle_pairs']} pairs",
              flush=True)
        for pair in (p for ps in result["not_confident_examples"].values() for p in ps) if args.missed else ():
            print("  " + " ".join(pair.split()))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
