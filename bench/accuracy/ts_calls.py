"""TypeScript calls: our ``CALLS`` edges against the TypeScript checker.

Oracle. Every TypeScript file of the corpus is a root file of one program (npm
``typescript``, pinned; ``bench/accuracy/ts_calls.js``). Every call or ``new`` whose callee
is a name or a property access is a site; the checker's symbol at the callee's name, aliases
followed (and a name destructured from an object, `const { run } = make()`, standing for that
object's property, as the language service's go-to-definition takes it; a holder initialised
with a call standing for the one function that call's callee returns, `memo()` returning its
`memoizedFunction`, as Jedi infers it for Python; a property of a declared type called on a
constant initialised with an object literal standing for the literal's member, which is what
runs), gives its declarations: in the project (mapped to our symbol by file, name and the
line of the declaration or of its name), outside (the standard library's ``lib.*.d.ts``,
packages that are not there), or none (the checker has no symbol: ``any``, unresolved
imports).

Comparison. As for Python, at the level of (caller, callee) pairs: the caller of a site is
the innermost enclosing named function, method, accessor, constructor, class, namespace or
function-valued variable/property (or the file), the callee the checker's symbol. A symbol
with several declarations (overloads, merged declarations, a method of a union type) is one
callee: an edge to any of its declarations is an edge to it. Recall: oracle pairs we have as
an edge at a confidence threshold. Precision: an edge is right when its pair is an oracle
pair; wrong when the checker gave a definite verdict for the sites of the callee's name on the
edge's line and none of them is the edge's target; otherwise not judged. The share of call
sites left unresolved is the resolver's own count over the whole corpus (sites without any
edge, external, builtin or workspace).

    .venv/bin/python bench/accuracy.py --only ts-calls        # through the graph
    .venv/bin/python bench/accuracy/ts_calls.py [--only rxjs]  # in-process, no database

In-process, the packages of ``bench/accuracy.py`` and immer (a check on code the resolver was
not tuned on) are measured, and the pairs without a confident edge listed with ``--missed``.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path, PurePosixPath

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.accuracy.common import (CallEdge, Score, Sym, band_of, count_outcome, judge_by_line,  # noqa: E402
                                   largest_first, receiver_form, scores_report, targets_report, thresholds_of)
from bench.accuracy.python_calls import DEFINITE, IN_WORKSPACE, NONE, OUTSIDE, WORKSPACE_OTHER  # noqa: E402

TARGETS = {"precision": 0.99, "recall": 0.85, "recall-candidates": 0.98}
ORACLE_VERSION = 7  # part of the cache key: bump when the way verdicts are read changes
SCRIPT = Path(__file__).with_suffix(".js")
SUFFIXES = (".ts", ".tsx", ".mts", ".cts")
# Declarations the graph models as symbols; a workspace target of another kind (a parameter,
# a property, a local) is "something else of the workspace".
MODELLED = frozenset({"FunctionDeclaration", "MethodDeclaration", "MethodSignature", "ClassDeclaration",
                      "Constructor", "GetAccessor", "SetAccessor", "ModuleDeclaration"})


def typescript_files(root: Path, exclude: tuple[str, ...] = (), suffixes: tuple[str, ...] = SUFFIXES) -> list[str]:
    files = []
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and p.name.endswith(suffixes) and not any(PurePosixPath(rel).match(x) or x in f"/{rel}"
                                                                    for x in exclude):
            files.append(rel)
    return files


def oracle(root: Path, typescript_js: Path, cache_dir: Path, exclude: tuple[str, ...] = (),
           suffixes: tuple[str, ...] = SUFFIXES) -> dict:
    """The checker's verdict for every call site of the corpus (its files of ``suffixes``);
    cached by content and version."""
    files = typescript_files(root, exclude, suffixes)
    digest = hashlib.sha256(SCRIPT.read_bytes())
    for rel in files:
        digest.update(rel.encode() + b"\0" + (root / rel).read_bytes())
    version = typescript_js.parent.parent.joinpath("package.json")
    ts_version = json.loads(version.read_text())["version"] if version.is_file() else "unknown"
    cache = cache_dir / f"tsc-{ts_version}-v{ORACLE_VERSION}-{digest.hexdigest()[:16]}.json"
    if cache.is_file():
        return json.loads(cache.read_text())
    done = subprocess.run(["node", str(SCRIPT), str(typescript_js), str(root)], input="\n".join(files),
                          capture_output=True, text=True, timeout=1800, check=True)
    sites = [json.loads(line) for line in done.stdout.splitlines() if line]
    result = {"typescript": ts_version, "files": files, "sites": sites}
    cache_dir.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(result))
    return result


def call_form(receiver: str | None) -> str:
    """How the callee is written: ``f()``, ``this.m()``, ``name.m()``, ``f().m()``, ..."""
    if receiver is None:
        return "f()"
    if receiver == "super":
        return "super.m()"
    return receiver_form(receiver, "this")


class _Symbols:
    """Our symbols looked up by what the checker says of a declaration."""

    def __init__(self, symbols: list[Sym]):
        self.at: dict[tuple[str, int], list[Sym]] = defaultdict(list)
        for s in symbols:
            self.at[(s.file, s.start)].append(s)

    def find(self, file: str, name: str, *lines: int) -> Sym | None:
        for line in dict.fromkeys(lines):
            for s in self.at.get((file, line), ()):
                if s.name == name:
                    return s
        return None


def _id(s: Sym) -> str:
    return f"{s.file}#{s.qual}"


def measure(oracle_data: dict, symbols: list[Sym], calls: list[CallEdge], examples: int = 15) -> dict:
    """Recall and precision of our edges from the corpus' files against the checker's."""
    files = set(oracle_data["files"])
    ours = _Symbols(symbols)
    sym_by_id = {_id(s): s for s in symbols}
    verdicts: Counter = Counter()
    caller_missing = 0
    target_missing: Counter = Counter()
    # our symbol id -> the checker symbols it is a declaration of (a method is also part of
    # the symbol of a union type's member)
    keys_of: dict[str, set[tuple]] = defaultdict(set)
    pairs: set[tuple[str, tuple]] = set()
    pair_form: dict[tuple[str, tuple], str] = {}
    pair_site: dict[tuple[str, tuple], str] = {}
    # (caller id, line) -> the sites there: (name, verdict, keys)
    at_line: dict[tuple[str, int], list[tuple[str, str, set[tuple]]]] = defaultdict(list)
    for site in oracle_data["sites"]:
        if site["caller"] is None:
            caller = site["file"]
        else:
            c = site["caller"]
            sym = ours.find(site["file"], c["name"], c["start"], c["line"])
            if sym is None:
                caller_missing += 1
                continue
            caller = _id(sym)
        targets = site["targets"]
        keys: set[tuple] = set()
        if targets is None:
            verdict = NONE
        elif all(t["file"] is None for t in targets):
            verdict = OUTSIDE
        else:
            key = tuple(sorted((t["file"] or "", t["line"], t["name"] or "") for t in targets))
            for t in targets:
                if t["file"] is None:
                    continue
                sym = ours.find(t["file"], t["name"] or "", t["start"], t["line"])
                if sym is not None:
                    keys_of[_id(sym)].add(key)
                    keys.add(key)
                elif t["kind"] in MODELLED:
                    target_missing[f"{t['file']}:{t['line']} {t['name']} ({t['kind']})"] += 1
            verdict = IN_WORKSPACE if keys else WORKSPACE_OTHER
        verdicts[verdict] += 1
        for key in keys:
            pairs.add((caller, key))
            pair_form.setdefault((caller, key), call_form(site["receiver"]))
            pair_site.setdefault((caller, key), f"{site['file']}:{site['line']} "
                                                f"{(site['receiver'] + '.') if site['receiver'] else ''}{site['name']}()")
        at_line[(caller, site["line"])].append((site["name"], verdict, keys))

    mine = [e for e in calls if e.src.partition("#")[0] in files]
    internal = [e for e in mine if not e.external]
    judged: dict[str, Score] = defaultdict(Score)
    outcomes: Counter = Counter()
    wrong_examples: list[str] = []
    have_by_band: dict[str, set[tuple[str, tuple]]] = defaultdict(set)
    for e in internal:
        band = band_of(e.confidence)
        have = {(e.src, key) for key in keys_of.get(e.dst, ())}
        have_by_band[band].update(have)
        outcome = "right" if have & pairs else judge_by_line(
            at_line, e, sym_by_id.get(e.dst), band, DEFINITE, wrong_examples,
            lambda definite: f"checker: {sorted({v[1] for v in definite})} "
                             f"{sorted(k[0] for v in definite for k in v[2])[:2]}")
        outcomes[(band, e.reason, outcome)] += 1
        if outcome != "not judged":  # groups with no judged edge stay out of the report
            count_outcome(judged, [f"band {band}", f"reason {e.reason}", *thresholds_of(band)], outcome)

    confident = have_by_band["1.0"]
    anywhere = set().union(*have_by_band.values())
    by_form: dict[str, Counter] = defaultdict(Counter)
    missed: dict[str, list[str]] = defaultdict(list)
    for pair in sorted(pairs):
        form = pair_form[pair]
        state = "confident" if pair in confident else "candidate" if pair in anywhere else "missed"
        by_form[form][state] += 1
        if state != "confident" and len(missed[form]) < examples:
            missed[form].append(f"{pair_site[pair]} -> {pair[1][0][0]}:{pair[1][0][1]} {pair[1][0][2]} ({state})")
    return {
        "files": len(files),
        "call_sites": sum(verdicts.values()) + caller_missing,
        "checker_verdicts": dict(verdicts.most_common()),
        **targets_report("checker", caller_missing, target_missing),
        "oracle_pairs": len(pairs),
        "our_edges": len(mine),
        "our_external_edges": len(mine) - len(internal),
        **scores_report(judged, outcomes, pairs, have_by_band),
        "oracle_pairs_by_call_form": largest_first(by_form),
        "not_confident_examples": dict(missed),
        "wrong_examples": wrong_examples,
    }


def main() -> None:
    """In-process: the resolver's CALLS edges, without a database, for quick runs."""
    from bench.accuracy import corpora

    report(corpora.typescript_call_corpora() + corpora.typescript_check_corpora(), SUFFIXES, "tsc", __doc__,
           "rxjs, mobx, query-core, immer")


def report(corpora_list: list, suffixes: tuple[str, ...], cache: str, doc: str | None, names: str) -> None:
    """Measure each corpus (``--only`` some, by package name) and print a line per corpus;
    ``--missed`` lists every pair without a confident edge, ``--json`` writes the details."""
    import argparse

    from bench.accuracy import corpora
    from bench.accuracy.common import resolve_in_process

    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help=f"comma-separated package names ({names})")
    parser.add_argument("--missed", action="store_true", help="list every pair without a confident edge")
    parser.add_argument("--json", type=Path, default=None, help="where the details go")
    args = parser.parse_args()
    only = {x for x in args.only.split(",") if x}
    compiler = corpora.typescript_compiler()
    out = {}
    for corpus in corpora_list:
        name = corpus.label.split()[1].rpartition("@")[0].rpartition("/")[2]
        if only and name not in only:
            continue
        view = resolve_in_process(corpus.root, list(corpus.exclude))
        data = oracle(corpus.root, compiler, corpora.CACHE / cache, corpus.exclude, suffixes)
        result = out[name] = measure(data, view.symbols, view.calls, examples=10**6 if args.missed else 15)
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
