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

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from bench.accuracy import corpora, ts_calls  # noqa: E402

SUFFIXES = (".js", ".cjs")


def main() -> None:
    ts_calls.report(corpora.javascript_call_corpora(), SUFFIXES, "tsc-js", __doc__, "request, express, mocha, ...")


if __name__ == "__main__":
    main()
