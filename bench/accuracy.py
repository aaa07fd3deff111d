"""Edge and definition accuracy of the graph against independent oracles.

    .venv/bin/python bench/accuracy.py [--only python-defs,ctags,python-calls] [--seed 7]

Indexes real code nobody here wrote into fresh ``acc-*`` workspaces of the configured Neo4j
(NEO4J_URI, otherwise the managed server), reads the symbols and edges back from the graph
and compares them with:

- Python definitions: the ``ast`` module over the standard library of the running Python;
- other languages: Universal Ctags over pinned packages fetched into ``bench/.cache/``;
- Python calls: Jedi's goto-definition over a seeded sample of standard-library call sites;
- Go calls: go/types (golang.org/x/tools/go/packages) over every call site of pinned modules;
- TypeScript calls: the TypeScript checker over every call site of npm packages that ship
  their TypeScript sources;
- INHERITS closures: the interpreter's ``__mro__`` over Django's classes (its modules
  imported), the TypeScript checker's base types over rxjs's.

Prints a Markdown table (the one in docs/accuracy.md) and writes every detail, with
examples of each kind of disagreement, to ``bench/.cache/accuracy.json``.
Needs the ``bench`` extra (Jedi), ``ctags`` (Debian: universal-ctags), npm, go, cargo and mvn.
``--only go-calls`` runs the Go call oracle alone (go and the Go module proxy).
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.accuracy import corpora, ctags_defs, go_calls, inherits, python_calls, python_defs, ts_calls  # noqa: E402
from bench.accuracy.common import index_corpus, pct, read_graph, unresolved_share  # noqa: E402

STDLIB = Path(sysconfig.get_paths()["stdlib"])
STDLIB_EXCLUDE = ["/site-packages/"]
PARTS = ("python-defs", "ctags", "python-calls", "go-calls", "ts-calls", "inherits")
TARGETS = {"python-defs": 0.99, "ctags": 0.95, "calls-precision": 0.95, "calls-recall": 0.80}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _stdlib_view(graph, state: dict, calls: bool):
    if "stdlib" not in state:
        t0 = time.perf_counter()
        summary = index_corpus(graph, STDLIB, "acc-stdlib", STDLIB_EXCLUDE, cold=state["cold"])
        log(f"indexed {STDLIB} in {time.perf_counter() - t0:.1f} s: {summary.symbols} symbols")
        state["stdlib"] = summary
    return read_graph(graph, "acc-stdlib", calls=calls)


def _version(package: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return None


def _revision() -> str | None:
    """The commit the code under test comes from, ``-dirty`` with uncommitted changes."""
    try:
        done = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=Path(__file__).parent,
                              capture_output=True, text=True, timeout=10)
    except OSError:
        return None
    return done.stdout.strip() or None


def run(parts: list[str], seed: int, min_sites: int, languages: list[str], cold: bool = True) -> dict:
    from graphsvc.graph.driver import get_graph

    graph = get_graph()
    report: dict = {
        "conditions": {
            "python": platform.python_version(),
            "stdlib": str(STDLIB),
            "neo4j": graph.uri,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "revision": _revision(),
            "tree_sitter": {pkg: _version(pkg) for pkg in ("tree-sitter", "tree-sitter-python", "tree-sitter-typescript",
                                                          "tree-sitter-go", "tree-sitter-rust", "tree-sitter-java",
                                                          "tree-sitter-c")},
        },
    }
    state: dict = {"cold": cold}
    if "python-defs" in parts:
        log("python definitions: indexing the standard library ...")
        view = _stdlib_view(graph, state, calls="python-calls" in parts)
        report["python_defs"] = python_defs.measure(STDLIB, view.symbols, view.files)
        state["view"] = view
    if "python-calls" in parts:
        import jedi

        log(f"python calls: Jedi {jedi.__version__} over a sample with seed {seed} ...")
        view = state.get("view") or _stdlib_view(graph, state, calls=True)
        data = python_calls.oracle(STDLIB, seed, min_sites, corpora.CACHE / "jedi", progress=log)
        report["python_calls"] = python_calls.measure(data, view.symbols, view.calls, STDLIB)
        report["python_calls"]["jedi"] = data["jedi"]
        report["python_calls"]["seed"] = seed
        report["python_calls"]["resolver_stats_whole_stdlib"] = state["stdlib"].calls
    if "go-calls" in parts:
        report["go_calls"] = _go_calls(graph, state["cold"])
    if "ts-calls" in parts:
        report["ts_calls"] = _ts_calls(graph, state["cold"])
    if "inherits" in parts:
        report["inherits"] = _inherits(graph, state["cold"])
    if "ctags" in parts:
        report["conditions"]["ctags"] = ctags_defs.ctags_version()
        report["conditions"]["typescript_arbiter"] = "npm typescript@5.4.5"
        report["ctags"] = {}
        for lang in languages:
            log(f"{lang}: fetching and indexing ...")
            try:
                corpus = corpora.FETCHERS[lang]()
            except corpora.FetchError as exc:
                report["ctags"][lang] = {"error": str(exc)}
                log(f"{lang}: {exc}")
                continue
            ws = f"acc-{lang}"
            summary = index_corpus(graph, corpus.root, ws, list(corpus.exclude), cold=state["cold"])
            view = read_graph(graph, ws)
            result = ctags_defs.measure(corpus, view.symbols, view.files)
            result["index"] = {"symbols": summary.symbols, "syntax_error_files": summary.syntax_error_files,
                               "skipped": summary.skipped}
            report["ctags"][lang] = result
    return report


def _go_calls(graph, cold: bool) -> dict:
    out: dict = {}
    for module, version in go_calls.MODULES:
        log(f"go calls: {module}@{version}: fetching, go/types, indexing ...")
        try:
            corpus = corpora.go_module(module, version)
            data = go_calls.oracle(module, version, corpus.root, corpora.CACHE / "go-oracle")
        except corpora.FetchError as exc:
            out[module] = {"error": str(exc)}
            log(f"{module}: {exc}")
            continue
        ws = "acc-go-" + [p for p in module.split("/") if not re.fullmatch(r"v\d+", p)][-1]
        summary = index_corpus(graph, corpus.root, ws, [], cold=cold)
        view = read_graph(graph, ws, calls=True)
        result = go_calls.measure(data, view.symbols, view.calls)
        result.update(corpus=corpus.label, go=data["go"], tools=data["tools"], resolver_stats=summary.calls)
        out[module] = result
    return out


def _ts_calls(graph, cold: bool) -> dict:
    out: dict = {}
    try:
        compiler = corpora.typescript_compiler()
        projects = corpora.typescript_call_corpora()
    except corpora.FetchError as exc:
        log(f"typescript calls: {exc}")
        return {"error": str(exc)}
    for corpus in projects:
        name = corpus.label.split()[1]
        log(f"typescript calls: {name}: indexing and asking the checker ...")
        ws = "acc-ts-" + name.lstrip("@").replace("/", "-").rpartition("@")[0]
        summary = index_corpus(graph, corpus.root, ws, list(corpus.exclude), cold=cold)
        view = read_graph(graph, ws, calls=True)
        data = ts_calls.oracle(corpus.root, compiler, corpora.CACHE / "tsc", corpus.exclude)
        result = ts_calls.measure(data, view.symbols, view.calls)
        result.update(corpus=corpus.label, typescript=data["typescript"], resolver_stats=summary.calls,
                      unresolved_share=unresolved_share(summary.calls))
        out[name] = result
    return out


def _inherits(graph, cold: bool) -> dict:
    out: dict = {}
    try:
        projects = list(inherits.corpora_for_inherits(["python", "typescript"]))
    except corpora.FetchError as exc:
        log(f"inherits: {exc}")
        return {"error": str(exc)}
    for name, corpus, oracle_of in projects:
        log(f"inherits: {name}: indexing and asking the oracle ...")
        ws = f"acc-inherits-{name}"
        index_corpus(graph, corpus.root, ws, list(corpus.exclude), cold=cold)
        view = read_graph(graph, ws, inherits=True)
        result = inherits.measure(oracle_of(), view.symbols, view.inherits, inherits.FOCUS.get(name, ()))
        result["corpus"] = corpus.label
        out[name] = result
    return out


def _ok(value: float | None, target: float) -> str:
    return "" if value is None else (" ✓" if value >= target else " ✗")


def table(report: dict) -> str:
    rows = ["| measure | oracle | corpus | oracle items | ours | recall | precision |",
            "|---|---|---|---:|---:|---:|---:|"]
    t = TARGETS
    if "python_defs" in report:
        d = report["python_defs"]
        for label, key in (("Python definitions (def/class/method)", "definitions"),
                           ("Python top-level variables", "top_level_variables")):
            s = d[key]["score"]
            mark = key == "definitions"
            rows.append(f"| {label} | ast | stdlib, {d['files']} files | {s['oracle']:,} | {s['ours']:,} | "
                        f"{pct(s['recall'])}{_ok(s['recall'], t['python-defs']) if mark else ''} | "
                        f"{pct(s['precision'])}{_ok(s['precision'], t['python-defs']) if mark else ''} |")
    for lang, r in report.get("ctags", {}).items():
        if "error" in r:
            rows.append(f"| {lang} definitions | ctags | fetch failed | | | | |")
            continue
        s = r["score"]
        rows.append(f"| {lang} definitions | ctags | {r['corpus']}, {r['files']} files | {s['oracle']:,} | "
                    f"{s['ours']:,} | {pct(s['recall'])}{_ok(s['recall'], t['ctags'])} | "
                    f"{pct(s['precision'])}{_ok(s['precision'], t['ctags'])} "
                    f"(raw {pct(r['raw_score']['precision'])}) |")
    if "python_calls" in report:
        c = report["python_calls"]
        rows.append("")
        rows.append(f"Python calls against Jedi {c['jedi']}: standard-library sample with seed {c['seed']}, "
                    f"{c['sample_files']} files, {c['call_sites']:,} call sites, {c['oracle_pairs']:,} "
                    f"(caller, callee) pairs that Jedi resolves inside the workspace.")
        rows.append("")
        rows.append("| CALLS edges | recall of Jedi's pairs | edges judged | right | precision |")
        rows.append("|---|---:|---:|---:|---:|")
        for label, r in c["recall"].items():
            p = c["precision"].get(f"at {label}", {})
            target = label == "confidence = 1"
            rows.append(f"| {label} | {pct(r['recall'])}{_ok(r['recall'], t['calls-recall']) if target else ''} | "
                        f"{p.get('ours', 0):,} | {p.get('confirmed', 0):,} | {pct(p.get('precision'))}"
                        f"{_ok(p.get('precision'), t['calls-precision']) if target else ''} |")
        for group, s in c["precision"].items():
            if not group.startswith("at "):
                rows.append(f"| {group} | | {s['ours']:,} | {s['confirmed']:,} | {pct(s['precision'])} |")
    if "go_calls" in report:
        rows += ["", _go_table(report["go_calls"])]
    if "ts_calls" in report:
        rows += ["", _ts_table(report["ts_calls"])]
    if "inherits" in report:
        rows += ["", _inherits_table(report["inherits"])]
    return "\n".join(rows)


def _inherits_table(projects: dict) -> str:
    if "error" in projects:
        return f"INHERITS closures: {projects['error']}"
    t = inherits.TARGETS
    rows = ["INHERITS closures: pairs (class, ancestor) inside the corpus, the graph's transitive closure "
            "against the oracle's (Python: the interpreter's __mro__; TypeScript: the checker's base types).", "",
            "| corpus | oracle | classes | oracle pairs | edges | recall | precision | same closure |",
            "|---|---|---:|---:|---|---:|---:|---:|"]
    for name, r in projects.items():
        oracle = "TypeScript checker" if name == "rxjs" else "import, __mro__"
        for label in ("confident", "any edge"):
            p = r[label]["pairs"]
            rows.append(f"| {r['corpus']} | {oracle} | {r['classes_compared']:,} | {p['oracle']:,} | {label} | "
                        f"{pct(p['recall'])}{_ok(p['recall'], t['recall'])} | "
                        f"{pct(p['precision'])}{_ok(p['precision'], t['precision'])} | "
                        f"{r[label]['classes_with_the_same_closure']:,} |")
    return "\n".join(rows)


def _go_table(results: dict) -> str:
    t = go_calls.TARGETS
    tools = next((r["tools"] for r in results.values() if "tools" in r), "?")
    rows = [f"Go calls against go/types (golang.org/x/tools {tools}): every call site of each module, tests "
            "included; pairs (caller, callee) of static and interface calls to the module's own code.", "",
            "| module | call sites | oracle pairs | precision, confidence = 1 | recall, confidence = 1 | "
            "recall, any edge | sites without an edge |",
            "|---|---:|---:|---:|---:|---:|---:|"]
    for module, r in results.items():
        if "error" in r:
            rows.append(f"| {module} | fetch or oracle failed | | | | | |")
            continue
        s = go_calls.summary_row(r["corpus"], r)
        rows.append(f"| {r['corpus'].removeprefix('Go module ')} | {s['sites']:,} | {s['pairs']:,} | "
                    f"{pct(s['precision'])}{_ok(s['precision'], t['precision'])} ({s['right']:,}/{s['judged']:,}) | "
                    f"{pct(s['recall'])}{_ok(s['recall'], t['recall'])} | "
                    f"{pct(s['recall_candidates'])}{_ok(s['recall_candidates'], t['recall-candidates'])} | "
                    f"{pct(s['unresolved'])} |")
    return "\n".join(rows)


def _ts_table(projects: dict) -> str:
    t = ts_calls.TARGETS
    if "error" in projects:
        return f"TypeScript calls: {projects['error']}"
    version = next((r["typescript"] for r in projects.values()), "?")
    rows = [f"TypeScript calls against the TypeScript {version} checker: every call site of each package's "
            "sources; pairs (caller, callee) that the checker resolves inside the package.", "",
            "| package | files | call sites | oracle pairs | precision, confidence = 1 | recall, confidence = 1 "
            "| recall, any edge | sites without an edge |",
            "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in projects.values():
        p = r["precision"].get("at confidence = 1", {})
        conf = r["recall"]["confidence = 1"]["recall"]
        anyr = r["recall"]["any edge (candidates too)"]["recall"]
        rows.append(f"| {r['corpus'].removeprefix('npm ')} | {r['files']} | {r['call_sites']:,} | {r['oracle_pairs']:,} | "
                    f"{pct(p.get('precision'))}{_ok(p.get('precision'), t['precision'])} "
                    f"({p.get('confirmed', 0):,}/{p.get('ours', 0):,}) | "
                    f"{pct(conf)}{_ok(conf, t['recall'])} | {pct(anyr)}{_ok(anyr, t['recall-candidates'])} | "
                    f"{pct(r['unresolved_share'])} |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default=",".join(PARTS), help=f"comma-separated subset of {', '.join(PARTS)}")
    parser.add_argument("--languages", default=",".join(corpora.FETCHERS), help="languages for the ctags part")
    parser.add_argument("--seed", type=int, default=7, help="seed of the call-site sample")
    parser.add_argument("--min-sites", type=int, default=3000, help="call sites in the sample, at least")
    parser.add_argument("--incremental", action="store_true",
                        help="keep the acc-* workspaces and index incrementally (for work on the harness; "
                             "after a change to the extractors, run cold)")
    parser.add_argument("--json", type=Path, default=corpora.CACHE / "accuracy.json", help="where the details go")
    args = parser.parse_args()
    parts = [p for p in args.only.split(",") if p]
    unknown = set(parts) - set(PARTS)
    if unknown:
        parser.error(f"unknown part(s): {', '.join(sorted(unknown))}")
    started = time.perf_counter()
    report = run(parts, args.seed, args.min_sites, [x for x in args.languages.split(",") if x],
                 cold=not args.incremental)
    report["conditions"]["index"] = "incremental" if args.incremental else "cold"
    report["conditions"]["seconds"] = round(time.perf_counter() - started, 1)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2, default=str))
    print(table(report))
    print(f"\ndetails: {args.json}  ({report['conditions']['seconds']} s)")


if __name__ == "__main__":
    main()
