"""Go calls: our ``CALLS`` edges against go/types.

Oracle. ``go_oracle/`` is a small Go program on golang.org/x/tools/go/packages: it loads a
module's packages (``./...``, tests included; the files of the running GOOS/GOARCH) and lists
every call site with the top-level function or method it is written in and what go/types
says it calls: a ``static`` function or concrete method (promoted ones as their declaration
in the embedded type), an ``interface`` method (the target is the interface's method), a
``dynamic`` call of a func value, a ``builtin`` or a type ``conversion``. Targets are located
by file and line when they are declared inside the module.

Comparison, as for Python calls (``python_calls``): pairs (caller, callee), because the graph
keeps one ``CALLS`` edge per pair with the first line and a count. Oracle pairs are the
static and interface calls whose target is one of our symbols.

- **Recall** at a confidence threshold = oracle pairs that are edges at or above it.
- **Precision** of an edge from a file the oracle read: *right* when its pair is an oracle
  pair (for an external target: the oracle's site there calls that package's name); *wrong*
  when the oracle has a definite verdict (static, interface, builtin, conversion) for the
  sites of the callee's name on the edge's line and none of them is the edge's target; *not
  judged* otherwise (a dynamic call: go/types cannot say what a func value holds).
- **Unresolved sites**: oracle call sites (any kind but builtin and conversion) whose caller
  has no ``CALLS`` edge at all to something of the called name.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections import Counter, defaultdict
from pathlib import Path

from bench.accuracy import corpora
from bench.accuracy.common import (CallEdge, Score, Sym, add_wrong_example, band_of, count_outcome,
                                   largest_first, scores_report, targets_report, thresholds_of)

ORACLE_DIR = Path(__file__).resolve().parent / "go_oracle"
ORACLE_VERSION = 1
# Real modules from the Go module proxy, pinned (module, version).
MODULES = (
    ("github.com/gin-gonic/gin", "v1.10.0"),
    ("github.com/spf13/cobra", "v1.8.0"),
    ("github.com/go-chi/chi/v5", "v5.1.0"),
    ("github.com/gorilla/mux", "v1.8.1"),
    ("github.com/sirupsen/logrus", "v1.9.3"),
    ("github.com/urfave/cli/v2", "v2.27.5"),
)
WORKSPACE_KINDS = ("static", "interface")
DEFINITE = frozenset({"static", "interface", "builtin", "conversion"})
TARGETS = {"precision": 0.99, "recall": 0.90, "recall-candidates": 0.98}


def _go(args: list[str], cwd: Path, timeout: int = 900) -> str:
    try:
        done = subprocess.run(["go", *args], cwd=cwd, env={**os.environ, **corpora.GO_ENV}, capture_output=True,
                              text=True, timeout=timeout)
    except FileNotFoundError as exc:
        raise corpora.FetchError("go is not installed; it is needed for the Go call oracle") from exc
    if done.returncode != 0:
        raise corpora.FetchError(f"go {' '.join(args)} failed in {cwd}:\n{done.stderr.strip()[-2000:]}")
    return done.stdout


def _oracle_source_digest() -> str:
    h = hashlib.sha256()
    for name in ("main.go", "go.mod", "go.sum"):
        h.update((ORACLE_DIR / name).read_bytes())
    return h.hexdigest()[:16]


def oracle_binary() -> Path:
    """The oracle, built once per version of its source into the cache."""
    out = corpora.CACHE / "go" / f"go_oracle-{_oracle_source_digest()}"
    if not out.is_file():
        out.parent.mkdir(parents=True, exist_ok=True)
        _go(["build", "-o", str(out), "."], ORACLE_DIR)
    return out


def oracle(module: str, version: str, root: Path, cache_dir: Path) -> dict:
    """go/types' verdict for every call site of the module; cached by module and oracle."""
    binary = oracle_binary()
    cache = cache_dir / f"{module.replace('/', '_')}@{version}-v{ORACLE_VERSION}-{binary.name}.json"
    if cache.is_file():
        return json.loads(cache.read_text())
    env = {**os.environ, **corpora.GO_ENV, "GOFLAGS": "-modcacherw -mod=mod"}
    done = subprocess.run([str(binary), "-dir", str(root)], cwd=root, env=env, capture_output=True, text=True,
                          timeout=1800)
    if done.returncode != 0:
        raise corpora.FetchError(f"go_oracle failed on {root}:\n{done.stderr.strip()[-2000:]}")
    data = json.loads(done.stdout)
    data["go"] = _go(["env", "GOVERSION"], ORACLE_DIR).strip()
    data["tools"] = _tools_version()
    cache_dir.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(data))
    return data


def _tools_version() -> str:
    for line in (ORACLE_DIR / "go.mod").read_text().splitlines():
        parts = line.split()
        if parts[:1] == ["golang.org/x/tools"] or parts[1:2] == ["golang.org/x/tools"]:
            return parts[-1]
    return "?"


def _symbol_at(by_file_name: dict, file: str, name: str, line: int) -> Sym | None:
    """Our symbol declared at (file, line) under that name: the innermost whose range holds it."""
    best = None
    for s in by_file_name.get((file, name), ()):
        if s.start <= line <= s.end and (best is None or s.start >= best.start):
            best = s
    return best


def _sid(s: Sym) -> str:
    return f"{s.file}#{s.qual}"


def _edge_name(dst: str, sym_by_id: dict[str, Sym]) -> str:
    sym = sym_by_id.get(dst)
    if sym is not None:
        return sym.name
    return dst.rpartition("#")[2].rpartition(".")[2]


def measure(data: dict, symbols: list[Sym], calls: list[CallEdge]) -> dict:
    """Scores of our edges against the oracle's sites; the structure of ``python_calls.measure``."""
    files = set(data["files"])
    by_file_name: dict[tuple[str, str], list[Sym]] = defaultdict(list)
    for s in symbols:
        by_file_name[(s.file, s.name)].append(s)
    sym_by_key = {(s.file, s.base_qual, s.start): s for s in symbols}
    sym_by_id = {_sid(s): s for s in symbols}

    kinds: Counter = Counter()
    caller_missing = 0
    target_missing: Counter = Counter()
    pairs: set[tuple[str, str]] = set()
    pair_kind: dict[tuple[str, str], str] = {}
    pair_form: dict[tuple[str, str], str] = {}
    # (caller id, line) -> the sites there: (name, kind, target id or None, package, callee,
    # whether the target is declared inside the module)
    at_line: dict[tuple[str, int], list[tuple[str, str, str | None, str, str, bool]]] = defaultdict(list)
    sites_by_caller: list[tuple[str, dict]] = []
    for site in data["sites"]:
        kinds[site["kind"]] += 1
        c = site["caller"]
        if c is None:
            caller = site["file"]
        else:
            sym = sym_by_key.get((site["file"], c["name"], c["line"]))
            if sym is None:
                caller_missing += 1
                continue
            caller = _sid(sym)
        target = None
        if site["kind"] in (*WORKSPACE_KINDS, "conversion") and site.get("decl_file"):
            sym = _symbol_at(by_file_name, site["decl_file"], site["callee"], site["decl_line"])
            if sym is None:
                target_missing[f"{site['decl_file']}:{site['decl_line']} {site['callee']}"] += 1
            else:
                target = _sid(sym)
            if target is not None and site["kind"] != "conversion":
                pair = (caller, target)
                pairs.add(pair)
                pair_kind.setdefault(pair, site["kind"] + (" (promoted)" if site.get("promoted") else ""))
                pair_form.setdefault(pair, site.get("form", "?"))
        at_line[(caller, site["line"])].append((site["name"], site["kind"], target, site.get("pkg", ""),
                                                site.get("callee", ""), bool(site.get("decl_file"))))
        sites_by_caller.append((caller, site))

    mine = [e for e in calls if e.src.partition("#")[0] in files]
    judged: dict[str, Score] = defaultdict(Score)
    verdicts: Counter = Counter()
    wrong_examples: list[str] = []
    have_by_band: dict[str, set[tuple[str, str]]] = defaultdict(set)
    named_from: dict[str, set[str]] = defaultdict(set)  # caller -> names it has edges to
    for e in mine:
        name = _edge_name(e.dst, sym_by_id)
        named_from[e.src].add(name)
        band = band_of(e.confidence)
        if not e.external:
            have_by_band[band].add((e.src, e.dst))
        here = [v for v in at_line.get((e.src, e.line), []) if v[0] == name]
        definite = [v for v in here if v[1] in DEFINITE]
        if e.external:
            module = e.dst.removeprefix("ext:").partition("#")[0]
            # `base64.StdEncoding.EncodeToString()` is kept as ext:encoding/base64.StdEncoding#EncodeToString.
            right = any(not v[5] and (module == v[3] or module.startswith(v[3] + ".")) and v[4] == name
                        for v in definite)
        else:
            right = (e.src, e.dst) in pairs
        if right:
            outcome = "right"
        elif any(v[1] == "conversion" and v[2] == e.dst for v in definite):
            outcome = "not judged"  # `T(x)` kept as a call of the type: go/types says conversion
        else:
            outcome = "wrong" if definite else "not judged"
        if outcome == "wrong":
            add_wrong_example(wrong_examples, e, band,
                              f"oracle: {sorted({(v[1], v[2] or v[3] + '.' + v[4]) for v in definite})[:2]}")
        where = "external" if e.external else "workspace"
        verdicts[(where, band, e.reason, outcome)] += 1
        groups = [f"{where} band {band}", f"{where} reason {e.reason}"]
        if not e.external:
            groups += thresholds_of(band)
        elif band == "1.0":
            groups.append("external at confidence = 1")
        count_outcome(judged, groups, outcome)

    confident = have_by_band["1.0"]
    anything = set().union(*have_by_band.values())
    by_form: dict[str, Counter] = defaultdict(Counter)
    by_kind: dict[str, Counter] = defaultdict(Counter)
    fate: Counter = Counter()
    edge_at = {(e.src, e.dst): e for e in mine if not e.external}
    missed_examples: list[str] = []
    for pair in sorted(pairs):
        state = "confident" if pair in confident else ("candidate" if pair in anything else "missed")
        by_form[pair_form.get(pair, "?")][state] += 1
        by_kind[pair_kind.get(pair, "?")][state] += 1
        if state != "confident":
            e = edge_at.get(pair)
            fate[f"kept below confidence 1 ({e.reason}, {band_of(e.confidence)})" if e else
                 "no edge to the target (unresolved, external or another target)"] += 1
            if len(missed_examples) < 400:
                missed_examples.append(f"{pair[0]} -> {pair[1]} [{pair_form.get(pair)}; {state}]")
    unresolved = Counter()
    for caller, site in sites_by_caller:
        if site["kind"] in ("builtin", "conversion"):
            continue
        unresolved["sites"] += 1
        if site["name"] not in named_from.get(caller, ()):
            unresolved["without an edge"] += 1
    return {
        "module": data.get("module"),
        "files": len(files),
        "call_sites": sum(kinds.values()),
        "oracle_kinds": dict(kinds.most_common()),
        **targets_report("oracle", caller_missing, target_missing),
        "oracle_pairs": len(pairs),
        "our_edges_from_oracle_files": len(mine),
        **scores_report(judged, verdicts, pairs, have_by_band),
        "unresolved_sites": {**unresolved, "share": unresolved["without an edge"] / unresolved["sites"]
                             if unresolved["sites"] else None},
        "oracle_pairs_not_confident": dict(fate.most_common()),
        "oracle_pairs_by_call_form": largest_first(by_form),
        "oracle_pairs_by_kind": {k: dict(v) for k, v in sorted(by_kind.items())},
        "wrong_examples": wrong_examples,
        "missed_examples": missed_examples,
    }


def summary_row(label: str, r: dict) -> dict:
    """The four figures of one module: confident precision and recall, recall with candidates,
    unresolved share."""
    p = r["precision"].get("at confidence = 1", {})
    return {
        "corpus": label, "sites": r["call_sites"], "pairs": r["oracle_pairs"],
        "precision": p.get("precision"), "judged": p.get("ours", 0), "right": p.get("confirmed", 0),
        "recall": r["recall"]["confidence = 1"]["recall"],
        "recall_candidates": r["recall"]["any edge (candidates too)"]["recall"],
        "unresolved": r["unresolved_sites"]["share"],
        "external_precision": r["precision"].get("external at confidence = 1", {}).get("precision"),
    }


__all__ = ["MODULES", "TARGETS", "measure", "oracle", "oracle_binary", "summary_row"]


def main() -> None:
    """Quick runs without a database: ``python -m bench.accuracy.go_calls [module ...]``."""
    import sys

    from bench.accuracy.common import pct, resolve_in_process

    wanted = sys.argv[1:]
    for module, version in MODULES:
        if wanted and module not in wanted:
            continue
        corpus = corpora.go_module(module, version)
        view = resolve_in_process(corpus.root)
        r = measure(oracle(module, version, corpus.root, corpora.CACHE / "go-oracle"), view.symbols, view.calls)
        row = summary_row(corpus.label, r)
        print(f"{module}: {row['sites']} sites, {row['pairs']} pairs; confident precision {pct(row['precision'])} "
              f"({row['right']}/{row['judged']}), recall {pct(row['recall'])}, with candidates "
              f"{pct(row['recall_candidates'])}, unresolved {pct(row['unresolved'])}, "
              f"external precision {pct(row['external_precision'])}")
        out = corpora.CACHE / f"go-calls-{module.replace('/', '_')}.json"
        out.write_text(json.dumps(r, indent=2))


if __name__ == "__main__":
    main()
