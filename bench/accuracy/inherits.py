"""INHERITS closures: every class's ancestors in the graph against an oracle's.

Oracles. Python: the interpreter itself. ``python_mro.py`` runs in a subprocess with the
corpus (and its dependencies) on ``sys.path``, imports every module of the package (for
Django with settings configured and the contrib apps installed), and gives each class its
``__mro__``; modules that do not import (database drivers, GDAL) are listed and their
classes left out. TypeScript: the checker's base types (``ts_inherits.js``), transitively.

Comparison. A class is keyed by file and qualified name (Python; redefinition suffixes
``@2`` dropped) or by file, name and line (TypeScript). For each class the oracle knows and
the graph has, the pairs (class, ancestor) with both inside the corpus: the oracle's from
its MRO or base types, ours from the transitive closure of ``INHERITS`` edges between
workspace symbols. Recall: oracle pairs we have; precision: our pairs the oracle has. The
report adds, for a few named base classes, all their subclasses on both sides.

    .venv/bin/python bench/accuracy/inherits.py            # in-process, no database
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.accuracy.common import Score, Sym, ratio  # noqa: E402

SCRIPT_PY = Path(__file__).with_name("python_mro.py")
SCRIPT_TS = Path(__file__).with_name("ts_inherits.js")
# Base classes whose subclasses the report lists, by corpus.
FOCUS = {"django": ("django/forms/fields.py::Field", "django/db/models/fields/__init__.py::Field",
                    "django/views/generic/base.py::View", "django/forms/widgets.py::Widget",
                    "django/db/models/base.py::Model", "django/core/management/base.py::BaseCommand"),
         "rxjs": ("internal/Observable.ts::Observable", "internal/Subscription.ts::Subscription",
                  "internal/Subject.ts::Subject")}
TARGETS = {"precision": 0.99, "recall": 0.99}


def python_oracle(root: Path, package: str, paths: list[Path], cache_dir: Path, django: bool = False) -> dict:
    """The interpreter's MRO of every class of ``root/package``; cached by the script and sources."""
    digest = hashlib.sha256(SCRIPT_PY.read_bytes() + str(django).encode())
    for p in sorted((root / package).rglob("*.py")):
        digest.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes())
    cache = cache_dir / f"mro-{package}-{digest.hexdigest()[:16]}.json"
    if cache.is_file():
        return json.loads(cache.read_text())
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in [root, *paths])}
    cmd = [sys.executable, str(SCRIPT_PY), str(root), package, *(["--django"] if django else [])]
    done = subprocess.run(cmd, cwd=cache_dir.parent, env=env, capture_output=True, text=True, timeout=1800,
                          check=True)
    data = json.loads(done.stdout)
    cache_dir.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(data))
    return data


def ts_oracle(root: Path, typescript_js: Path, files: list[str]) -> dict:
    """The checker's ancestors of every named class and interface, keyed as ``key_of_ts``."""
    done = subprocess.run(["node", str(SCRIPT_TS), str(typescript_js), str(root)], input="\n".join(files),
                          capture_output=True, text=True, timeout=1800, check=True)
    classes: dict[str, list[str]] = {}
    for line in done.stdout.splitlines():
        c = json.loads(line)
        key = _ts_key(c)
        classes[key] = sorted(set(classes.get(key, [])) | {_ts_key(a) for a in c["ancestors"] if a["file"]})
    return {"classes": classes, "failed": {}}


def _ts_key(c: dict) -> str:
    return f"{c['file']}::{c['name']}"


def key_of(s: Sym) -> str:
    return f"{s.file}::{s.base_qual}"


def measure(oracle_data: dict, symbols: list[Sym], inherits: list[tuple[str, str, float]],
            focus: tuple[str, ...] = ()) -> dict:
    """Pairs (class, ancestor) of the graph's INHERITS closure against the oracle's: through
    edges of confidence 1 (what a query follows by default) and through every edge."""
    keys = {f"{s.file}#{s.qual}": key_of(s) for s in symbols}
    ours_classes = {key_of(s) for s in symbols if s.kind in ("class", "interface")}
    oracle = {k: set(v) for k, v in oracle_data["classes"].items()}
    compared = sorted(k for k in oracle if k in ours_classes)
    result: dict = {"oracle_classes": len(oracle), "classes_compared": len(compared),
                    "oracle_classes_not_in_graph": sorted(k for k in oracle if k not in ours_classes)[:40],
                    "modules_not_imported": sorted(oracle_data.get("failed", {}))}
    for label, least in (("confident", 1.0), ("any edge", 0.0)):
        parents: dict[str, set[str]] = defaultdict(set)
        for src, dst, conf in inherits:
            if src in keys and dst in keys and conf >= least:
                parents[keys[src]].add(keys[dst])
        score = Score()
        missed: list[str] = []
        extra: list[str] = []
        closures = {}
        for cls in compared:
            mine = closures[cls] = _closure(cls, parents)
            want = oracle[cls]
            score.oracle += len(want)
            score.ours += len(mine)
            score.found += len(want & mine)
            score.confirmed += len(mine & want)
            missed += [f"{cls} -> {a}" for a in sorted(want - mine)]
            extra += [f"{cls} -> {a}" for a in sorted(mine - want)]
        subclasses = {}
        for base in focus:
            theirs = {c for c in compared if base in oracle[c]}
            mine = {c for c in compared if base in closures[c]}
            subclasses[base] = {"oracle": len(theirs), "ours": len(mine), "found": len(theirs & mine),
                                "missed": sorted(theirs - mine)[:20], "extra": sorted(mine - theirs)[:20]}
        result[label] = {"pairs": score.to_dict(),
                         "classes_with_the_same_closure": sum(1 for c in compared if closures[c] == oracle[c]),
                         "missed": missed[:200], "extra": extra[:200], "subclasses": subclasses}
    return result


def _closure(cls: str, parents: dict[str, set[str]]) -> set[str]:
    seen: set[str] = set()
    todo = list(parents.get(cls, ()))
    while todo:
        c = todo.pop()
        if c in seen or c == cls:
            continue
        seen.add(c)
        todo.extend(parents.get(c, ()))
    return seen


def summary(result: dict, label: str = "confident") -> str:
    r = result[label]
    p = r["pairs"]
    return (f"{label}: {result['classes_compared']:,} classes, {p['oracle']:,} oracle pairs, {p['ours']:,} ours: "
            f"recall {100 * (ratio(p['found'], p['oracle']) or 0):.2f} %, "
            f"precision {100 * (ratio(p['confirmed'], p['ours']) or 0):.2f} %; "
            f"{r['classes_with_the_same_closure']:,} classes with the same closure")


def main() -> None:
    """In-process: the resolver's INHERITS edges, without a database, for quick runs."""
    import argparse

    from bench.accuracy.common import resolve_in_process

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="python,typescript")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    out = {}
    for name, corpus, oracle_of in corpora_for_inherits(args.only.split(",")):
        view = resolve_in_process(corpus.root, list(corpus.exclude))
        result = measure(oracle_of(), view.symbols, view.inherits, FOCUS.get(name, ()))
        out[name] = result
        print(f"{corpus.label}:")
        for label in ("confident", "any edge"):
            print(f"  {summary(result, label)}")
        for base, s in result["confident"]["subclasses"].items():
            print(f"  subclasses of {base}: oracle {s['oracle']}, ours (confident) {s['ours']}, found {s['found']}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))


def corpora_for_inherits(languages: list[str]):
    """(name, corpus, oracle thunk) for each language asked for."""
    from bench.accuracy import corpora
    from bench.accuracy.ts_calls import typescript_files

    if "python" in languages:
        django, deps = corpora.django()
        yield "django", django, lambda: python_oracle(django.root, "django", [deps], corpora.CACHE / "mro",
                                                      django=True)
    if "typescript" in languages:
        rxjs = corpora.typescript()
        compiler = corpora.typescript_compiler()
        yield "rxjs", rxjs, lambda: ts_oracle(rxjs.root, compiler, typescript_files(rxjs.root, rxjs.exclude))


if __name__ == "__main__":
    main()
