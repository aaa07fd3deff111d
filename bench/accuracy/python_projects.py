"""Python calls against Jedi on PyPI projects, resolved in-process (no database).

    .venv/bin/python -m bench.accuracy.python_projects [--project django] [--seed 11] [--min-sites 2500]

Each project is its sdist from PyPI (``pip download --no-binary``), pinned, unpacked into
``bench/.cache/pypi/``; the whole sdist is the workspace (tests and docs included, as a user
would index a checkout). The Jedi verdicts are cached under ``bench/.cache/jedi/`` by corpus
content and oracle version, so a second run only extracts and resolves. The figures and the
examples of each disagreement go to ``bench/.cache/python-projects.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tarfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from bench.accuracy import corpora, python_calls  # noqa: E402
from bench.accuracy.common import pct, resolve_in_process, unresolved_share  # noqa: E402

# name: (requirement, seed, minimum call sites of the Jedi sample)
PROJECTS = {
    "django": ("Django==5.1.4", 11, 2500),
    "flask": ("flask==3.0.3", 7, 600),
    "requests": ("requests==2.32.3", 7, 600),
    "click": ("click==8.1.7", 7, 600),
    "isort": ("isort==5.13.2", 7, 600),
    # Added on 5 December 2026, chosen for typed and async code (generics, Protocols,
    # properties, `await`), none of them read while the resolver was written.
    "jinja2": ("Jinja2==3.1.4", 7, 600),
    "werkzeug": ("Werkzeug==3.0.6", 7, 600),
    "rich": ("rich==13.9.4", 7, 600),
    "attrs": ("attrs==24.2.0", 7, 600),
    "httpx": ("httpx==0.28.1", 7, 600),
    "black": ("black==24.10.0", 7, 600),
    "marshmallow": ("marshmallow==3.23.1", 7, 600),
    "pygments": ("Pygments==2.18.0", 7, 600),
    "starlette": ("starlette==0.41.3", 7, 600),
    "pluggy": ("pluggy==1.5.0", 7, 600),
    "tqdm": ("tqdm==4.67.1", 7, 600),
    "typer": ("typer==0.15.1", 7, 600),
    "fastapi": ("fastapi==0.115.6", 7, 600),
    "pytest": ("pytest==8.3.4", 7, 800),
    "aiohttp": ("aiohttp==3.11.10", 7, 800),
}


def sdist_root(requirement: str) -> Path:
    sdist = corpora._pypi(requirement, binary=False)
    with tarfile.open(sdist) as tar:
        root = sdist.parent / tar.getnames()[0].split("/")[0]
        if not root.is_dir():
            tar.extractall(sdist.parent, filter="data")
    return root


def run(name: str, seed: int | None = None, min_sites: int | None = None) -> dict:
    requirement, default_seed, default_min = PROJECTS[name]
    seed = default_seed if seed is None else seed
    min_sites = default_min if min_sites is None else min_sites
    root = sdist_root(requirement)
    data = python_calls.oracle(root, seed, min_sites, corpora.CACHE / "jedi",
                               progress=lambda m: print(m, file=sys.stderr, flush=True))
    started = time.perf_counter()
    view = resolve_in_process(root)
    result = python_calls.measure(data, view.symbols, view.calls, root)
    result.update(project=requirement, seed=seed, jedi=data["jedi"], resolve_seconds=time.perf_counter() - started,
                  unresolved_share=unresolved_share(view.sites_by_lang.get("python", {})))
    return result


def summary(r: dict) -> str:
    conf = r["precision"].get("at confidence = 1", {})
    return (f"{r['project']} (seed {r['seed']}, {r['call_sites']:,} sites, {r['oracle_pairs']:,} Jedi pairs): "
            f"confident precision {pct(conf.get('precision'))} ({conf.get('confirmed', 0)}/{conf.get('ours', 0)}), "
            f"confident recall {pct(r['recall']['confidence = 1']['recall'])}, "
            f"recall with candidates {pct(r['recall']['any edge (candidates too)']['recall'])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--project", default=",".join(PROJECTS), help=f"comma-separated subset of {', '.join(PROJECTS)}")
    parser.add_argument("--seed", type=int, help="seed of the call-site sample (default: the project's)")
    parser.add_argument("--min-sites", type=int, help="call sites in the sample, at least (default: the project's)")
    parser.add_argument("--json", type=Path, default=corpora.CACHE / "python-projects.json")
    args = parser.parse_args()
    names = [p for p in args.project.split(",") if p]
    unknown = set(names) - set(PROJECTS)
    if unknown:
        parser.error(f"unknown project(s): {', '.join(sorted(unknown))}")
    results = {}
    for name in names:
        results[name] = run(name, args.seed, args.min_sites)
        print(summary(results[name]), flush=True)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2, default=str))
    print(table(results.values()))
    print(f"details: {args.json}")


def table(results) -> str:
    """The projects side by side, and the lowest of each figure."""
    rows = ["| project | call sites | Jedi pairs | confident precision | confident recall | with candidates "
            "| Python sites unresolved (whole project) |", "|---|---:|---:|---:|---:|---:|---:|"]
    lows: list[list[float]] = [[], [], []]
    for r in results:
        conf = r["precision"].get("at confidence = 1", {})
        figures = (conf.get("precision"), r["recall"]["confidence = 1"]["recall"],
                   r["recall"]["any edge (candidates too)"]["recall"])
        for low, value in zip(lows, figures):
            if value is not None:
                low.append(value)
        rows.append(f"| {r['project']} | {r['call_sites']:,} | {r['oracle_pairs']:,} | "
                    + " | ".join(pct(v) for v in figures) + f" | {pct(r.get('unresolved_share'))} |")
    rows.append("| **lowest** | | | " + " | ".join(pct(min(v)) if v else "n/a" for v in lows) + " | |")
    return "\n".join(rows)


if __name__ == "__main__":
    main()
