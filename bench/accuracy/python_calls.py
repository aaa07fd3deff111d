"""Python calls: our ``CALLS`` edges against Jedi's goto-definition.

Oracle. A seeded shuffle of the corpus' Python files is taken in order until the sample holds
at least ``min_sites`` call sites (every ``ast.Call`` whose callee is a name or an attribute).
For each site Jedi's ``goto(follow_imports=True)`` gives the verdict: a function or class
defined in the workspace (mapped to our symbol by file, line and name), something else in the
workspace (a variable, a parameter; a top-level variable is a target too when it is one of our
symbols: ``Lock = _allocate_lock``), something outside (builtins, C modules), or nothing.
A variable that Jedi infers to hold workspace functions or classes (``a = func; a()``,
``factory = Config``) stands for them: the call calls what the variable holds. Jedi's dynamic
parameter inference is off: it searches the whole workspace for call sites and turns minutes
into hours; without it Jedi just answers less often. A call of a parameter is the exception:
for that site alone Jedi searches the callers for what they pass, and a parameter it finds
nothing for is no verdict (as for the Go oracle's calls of func values). ``x.__class__(...)``
Jedi reads as the builtin property; the call makes an instance of the class Jedi infers ``x``
to be one of, and that class is the verdict. No verdict either where Jedi reads a method as
the object of its decorator (a ``classmethod`` of an ``Enum``: ``builtins.classmethod``) or
a function as the ``typing.dataclass_transform`` its stub is decorated with, nor where a
variable holds a decorated function (``for f in [group_a, group_b]: f(x)``): Jedi's inference
gives the decorator's wrapper where its goto, a direct call's verdict, gives the function. A ``src``
layout's packages are on Jedi's path.
Jedi bundles stubs for Django and reads them for any package named ``django``; when the corpus
defines that package itself they are turned off, so the verdicts come from the source under
test (the stubs describe an installed Django to its users: they declare methods on other
classes than the runtime does, ``objects`` on every model, and send ``django.test`` "outside").

Comparison. The graph keeps one ``CALLS`` edge per (caller, callee) with the first call line
and a count, so the comparison is at the level of pairs: the caller of a site is the
innermost enclosing ``def``/``class`` by line (or the file), the oracle pairs are
(caller, Jedi's target) over all sites. Recall: oracle pairs we have as an edge. Precision: an
edge is right when its pair is an oracle pair; wrong when Jedi gave a definite verdict for
the call sites on the edge's line (of the callee's name) and none of them is the edge's
target; otherwise Jedi had no opinion and the edge is not judged. Nor is an edge to a protocol
method that no call on its line names (``__iter__`` of ``for x in obj``, ``__add__`` of
``a + b``), nor an edge on a decorator's line to what no call there names (``@make(x)`` calls
what ``make(x)`` returns): Jedi is asked about call sites only (counted as
``implicit_protocol_edges_not_judged``).
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import random
import re
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from bench.accuracy.common import (CallEdge, Score, Sym, band_of, count_outcome, judge_by_line, largest_first,
                                   receiver_form, scores_report, targets_report, thresholds_of)
from bench.accuracy.python_defs import definitions, parse, python_files

IN_WORKSPACE = "workspace-def"  # a function or class of the workspace
WORKSPACE_OTHER = "workspace-other"  # a variable, parameter or module of the workspace
OUTSIDE = "outside"  # builtins, C modules, site-packages
NONE = "none"  # Jedi found nothing
DEFINITE = (IN_WORKSPACE, OUTSIDE, WORKSPACE_OTHER)  # verdicts that say where a call goes

ORACLE_VERSION = 16  # part of the cache key: bump when the way verdicts are read changes


@dataclass(slots=True, frozen=True)
class Site:
    file: str
    line: int
    col: int  # character column of the callee's name, as Jedi counts
    name: str
    caller: tuple[str, str, int] | None  # (file, qualified name, line) of the enclosing def; None: module


def call_sites(rel: str, tree: ast.Module, source: bytes) -> list[Site]:
    lines = source.split(b"\n")
    spans: list[tuple[int, int, str]] = []  # (first line, last line, qualified name)

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = f"{prefix}.{child.name}" if prefix else child.name
                spans.append((child.lineno, child.end_lineno or child.lineno, qual))
                walk(child, qual)
            else:
                walk(child, prefix)

    walk(tree, "")
    sites = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name):
            line, byte_col, name = f.lineno, f.col_offset, f.id
        elif isinstance(f, ast.Attribute) and f.end_lineno is not None and f.end_col_offset is not None:
            line, byte_col, name = f.end_lineno, f.end_col_offset - len(f.attr.encode()), f.attr
        else:
            continue
        col = len(lines[line - 1][:byte_col].decode("utf-8", "replace"))
        # Innermost enclosing definition by line: the latest-starting span that contains it.
        caller = None
        for first, last, qual in spans:
            if first <= line <= last and (caller is None or first >= caller[2]):
                caller = (rel, qual, first)
        sites.append(Site(rel, line, col, name, caller))
    sites.sort(key=lambda s: (s.line, s.col))
    return sites


def sample_files(root: Path, seed: int, min_sites: int) -> tuple[list[str], dict[str, list[Site]]]:
    files = python_files(root)
    random.Random(seed).shuffle(files)
    chosen: list[str] = []
    sites: dict[str, list[Site]] = {}
    total = 0
    for rel in files:
        if total >= min_sites:
            break
        tree = parse(root, rel)
        if tree is None:
            continue
        found = call_sites(rel, tree, (root / rel).read_bytes())
        if not found:
            continue
        chosen.append(rel)
        sites[rel] = found
        total += len(found)
    return chosen, sites


class _SourceDefs:
    """Definitions of workspace modules by qualified name, read with ``ast``: Jedi answers some
    calls with a typeshed stub, which names the real definition but not its line."""

    def __init__(self, root: Path):
        self.root = root
        self.modules: dict[str, dict[str, int] | None] = {}

    def find(self, module: str, qual: str) -> tuple[str, int] | None:
        base = self.root / module.replace(".", "/")
        for path in (base.with_suffix(".py"), base / "__init__.py"):
            if path.is_file():
                rel = path.relative_to(self.root).as_posix()
                break
        else:
            return None
        if rel not in self.modules:
            tree = parse(self.root, rel)
            defs = definitions(rel, tree)[0] if tree is not None else []
            table: dict[str, int] = {}
            for d in defs:
                table.setdefault(d.qual, d.line)
            self.modules[rel] = table
        line = (self.modules[rel] or {}).get(qual)
        return (rel, line) if line is not None else None


def _jedi_verdicts(root: Path, rel: str, sites: list[Site], project, sources: _SourceDefs):
    import jedi

    path = root / rel
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = text.splitlines()
    script = jedi.Script(text, path=str(path), project=project)
    out = []
    for s in sites:
        try:
            names = script.goto(s.line, s.col, follow_imports=True)
        except Exception:  # Jedi gives up on some constructs; that is "no verdict"
            names = []
        if names and all(n.type == "instance" and n.full_name in _DESCRIPTORS for n in names):
            out.append((NONE, []))  # a method Jedi reads as its decorator's object (an Enum's classmethod)
            continue
        # (file, line, name, Jedi's type): Jedi's targets inside the workspace
        targets: list[tuple[str, int, str, str]] = []
        verdict = NONE
        receiver = lines[s.line - 1][: s.col] if s.line <= len(lines) else ""
        for n in names:
            mp = Path(n.module_path) if n.module_path is not None else None
            where = _where(root, n, sources, receiver)
            if where is not None:
                targets.append((where[0], where[1], n.name, n.type))
                verdict = IN_WORKSPACE if n.type in ("function", "class") else (
                    verdict if verdict == IN_WORKSPACE else WORKSPACE_OTHER)
            elif mp is not None and _inside(root, mp) and verdict == NONE:
                verdict = WORKSPACE_OTHER
            elif verdict == NONE:
                verdict = OUTSIDE
        if s.name == "__class__" and verdict == OUTSIDE and receiver.endswith("."):
            # `self.__class__(...)`: Jedi reads the builtin property (`type`); the call makes
            # an instance of the class Jedi infers the receiver to be one of.
            made = _instance_classes(script, s.line, len(receiver) - 2, root)
            if made:
                out.append((IN_WORKSPACE, made))
                continue
        if any(t[3] == "statement" for t in targets) or any(n.type == "param" for n in names):
            # A variable holding a function or class (`a = func; a()`, `factory = Config`), a
            # parameter that does (`cls(...)` in a classmethod): the call calls what it holds
            # when Jedi can say what that is (parameters are not inferred from their callers).
            held, outside = _held(script, s, root, sources, receiver, lines)
            if outside is None:
                out.append((NONE, []))
                continue
            params = [n for n in names if n.type == "param"]
            if not held and not outside and params:
                # A parameter: what its callers pass, searched for this site alone (the
                # search is too slow for every site); none found is no verdict.
                held, outside = _held(_searching_callers(text, path, project), s, root, sources, receiver, lines)
                if not held and not outside and len(params) == len(names):
                    out.append((NONE, []))
                    continue
            if held:
                targets = [t for t in targets if t[3] != "statement"] + held
                verdict = IN_WORKSPACE
            elif outside and all(t[3] == "statement" for t in targets):
                # It holds a builtin or an outside function (`_obj_setattr = object.__setattr__`):
                # the call calls that, as the TypeScript oracle judges such variables.
                targets, verdict = [], OUTSIDE
        out.append((verdict, targets))
    return out


def _instance_classes(script, line: int, col: int, root: Path) -> list[tuple[str, int, str, str]]:
    """The workspace classes Jedi infers the expression ending at (line, col) to be an instance of."""
    try:
        names = script.infer(line, col)
    except Exception:
        return []
    return [(Path(n.module_path).resolve().relative_to(root.resolve()).as_posix(), n.line, n.name, "class")
            for n in names if n.type == "instance" and n.module_path is not None and n.line is not None
            and _inside(root, Path(n.module_path))]


def _searching_callers(text: str, path: Path, project):
    """A script whose parameters are inferred from the calls of their functions."""
    import jedi

    jedi.settings.dynamic_params = jedi.settings.dynamic_params_for_other_modules = True
    try:
        return _Inferred(jedi.Script(text, path=str(path), project=project))
    finally:
        jedi.settings.dynamic_params = jedi.settings.dynamic_params_for_other_modules = False


class _Inferred:
    """A script whose ``infer`` runs with the callers searched (the setting is read then)."""

    def __init__(self, script):
        self.script = script

    def infer(self, line: int, col: int):
        import jedi

        jedi.settings.dynamic_params = jedi.settings.dynamic_params_for_other_modules = True
        try:
            return self.script.infer(line, col)
        finally:
            jedi.settings.dynamic_params = jedi.settings.dynamic_params_for_other_modules = False


def _where(root: Path, n, sources: _SourceDefs, receiver: str) -> tuple[str, int] | None:
    """The workspace file and line of a name Jedi found, or None when it is outside."""
    mp = Path(n.module_path) if n.module_path is not None else None
    where: tuple[str, int] | None = None
    if n.type in ("function", "class") and mp is not None and n.full_name and n.module_name:
        qual = n.full_name.removeprefix(n.module_name + ".")
        if "typeshed" in mp.parts:
            # A stub of a standard-library module: the definition is in the source.
            where = sources.find(n.module_name, qual)
        elif (mp.name == "ntpath.py" and n.full_name.startswith("os.path.") and os.name == "posix"
              and not receiver.endswith("ntpath.")):
            # Jedi reads os.path as ntpath; on POSIX the runtime binds posixpath.
            where = sources.find("posixpath", n.full_name.removeprefix("os.path."))
    if where is None and mp is not None and _inside(root, mp) and n.line is not None \
            and n.type not in ("module", "param"):
        where = (mp.resolve().relative_to(root.resolve()).as_posix(), n.line)
    return where


_DESCRIPTORS = frozenset({"builtins.classmethod", "builtins.staticmethod"})
# Jedi infers a function whose stub is decorated with this (an identity at run time) as the
# decorator itself (`attr.s`).
_IDENTITY_DECORATOR = "typing.dataclass_transform"


def _held(script, s: Site, root: Path, sources: _SourceDefs, receiver: str,
          lines: list[str]) -> tuple[list[tuple[str, int, str, str]], bool | None]:
    """Functions and classes of the workspace that Jedi infers a called variable to hold, and
    whether it infers it to hold only functions and classes outside the workspace (None: no verdict)."""
    try:
        names = script.infer(s.line, s.col)
    except Exception:
        return [], False
    held = []
    outside = bool(names)
    if any(n.full_name == _IDENTITY_DECORATOR for n in names):
        return [], None  # what Jedi makes of a function the stubs decorate with it: no verdict
    if any(_decorator_wrapper(n, lines) for n in names):
        return [], None  # a decorated function held: its decorator's wrapper to Jedi, where goto gives the function
    for n in names:
        where = _where(root, n, sources, receiver) if n.type in ("function", "class") else None
        if where is not None:
            held.append((where[0], where[1], n.name, n.type))
        # (A class made at run time, `namedtuple(...)`'s or `type(...)`'s, is not outside.)
        outside = outside and n.type in ("function", "class") and where is None and (
            n.module_path is not None and not _inside(root, Path(n.module_path))) and n.full_name != "builtins.type"
    return held, outside


def _decorator_wrapper(n, lines: list[str]) -> bool:
    """Whether Jedi infers a held value to be a function defined inside a function that the
    calling file applies as a decorator (`@recurse(...)` over `def recurse(): def wrap(f): def
    wrapped_f`): Jedi's inference runs the decorator, its goto (a direct call's verdict) does
    not, and the graph's edge goes to the decorated function either way."""
    if n.type != "function":
        return False
    enclosing = []
    try:
        parent = n.parent()
        while parent is not None and parent.type == "function":
            enclosing.append(parent.name)
            parent = parent.parent()
    except Exception:  # Jedi fails to find some definitions' parents: what it found is kept
        pass
    return any(line.strip()[1:].partition("(")[0].rpartition(".")[2] in enclosing  # `@recurse(...)`, `@utils.recurse`
               for line in lines if line.lstrip().startswith("@"))


def _inside(root: Path, path: Path) -> bool:
    try:
        rel = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return False
    return "site-packages/" not in rel


def oracle(root: Path, seed: int, min_sites: int, cache_dir: Path, progress=print) -> dict:
    """Jedi's verdict for every call site of the sample; cached by corpus content and settings."""
    import jedi

    files, sites = sample_files(root, seed, min_sites)
    digest = hashlib.sha256()
    for rel in files:
        digest.update(rel.encode() + b"\0" + (root / rel).read_bytes())
    key = f"jedi-{jedi.__version__}-v{ORACLE_VERSION}-seed{seed}-min{min_sites}-{digest.hexdigest()[:16]}"
    cache = cache_dir / f"{key}.json"
    if cache.is_file():
        return json.loads(cache.read_text())
    _source_over_bundled_stubs(root)
    jedi.settings.dynamic_params = False
    jedi.settings.dynamic_params_for_other_modules = False
    jedi.settings.dynamic_array_additions = False
    # Only the corpus on the path: a virtualenv's site-packages would shadow parts of it
    # (setuptools' copy of distutils). A `src` layout's packages are imported from `src`.
    paths = [root, *((root / "src",) if (root / "src").is_dir() else ()), root / "lib-dynload"]
    project = jedi.Project(path=str(root), sys_path=[str(p) for p in paths], smart_sys_path=False)
    sources = _SourceDefs(root)
    result = {"jedi": jedi.__version__, "seed": seed, "files": files, "sites": []}
    started = time.perf_counter()
    done = 0
    total = sum(len(v) for v in sites.values())
    for rel in files:
        for s, (verdict, targets) in zip(sites[rel], _jedi_verdicts(root, rel, sites[rel], project, sources)):
            result["sites"].append({"file": s.file, "line": s.line, "col": s.col, "name": s.name,
                                    "caller": list(s.caller) if s.caller else None,
                                    "verdict": verdict, "targets": targets})
        done += len(sites[rel])
        progress(f"  jedi: {done}/{total} call sites, {time.perf_counter() - started:.0f} s")
    result["seconds"] = time.perf_counter() - started
    cache_dir.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(result))
    return result


def _source_over_bundled_stubs(root: Path) -> None:
    """Jedi reads its bundled django-stubs for a top-level ``django``, whatever the sys.path
    says (``jedi/inference/gradual/typeshed.py``); no setting turns that off, so the path it
    reads them from is pointed at nothing when the corpus is Django itself."""
    from jedi.inference.gradual import typeshed

    if (root / "django" / "__init__.py").is_file():
        typeshed.DJANGO_INIT_PATH = root / "django" / "no-bundled-stubs" / "__init__.pyi"


_CHAIN = re.compile(r"[\w.]+$")


def call_form(line_text: str, col: int) -> str:
    """How the callee is written: ``f()``, ``self.m()``, ``name.m()``, ``f().m()``, ..."""
    before = line_text[:col]
    if not before.endswith("."):
        return "f()"
    receiver = before[:-1].rstrip()
    if receiver.endswith("super()"):
        return "super().m()"
    return receiver_form(receiver, "self", (_CHAIN.search(receiver) or [""])[0])


def _implicit(at_line: dict, edge: CallEdge, target: Sym | None, decorator_lines: set[tuple[str, int]]) -> bool:
    """An edge to a protocol method no call on its line names (``__iter__`` of a loop,
    ``__enter__`` of a ``with``, ``__add__`` of ``a + b``), or on a decorator's line to what
    no call there names (`@make(x)` calls what `make(x)` returns with the function): Jedi is
    asked about call sites, so it has no verdict on it, and the other calls on the line are
    not what it calls."""
    protocol = target is not None and target.name.startswith("__") and target.name.endswith("__")
    if target is None or not (protocol or (edge.src.partition("#")[0], edge.line) in decorator_lines):
        return False
    return not any(v[0] == target.name for v in at_line.get((edge.src, edge.line), ()))


def _decorator_lines(root: Path | None, files: set[str]) -> set[tuple[str, int]]:
    """The lines of the sample's decorators, by file."""
    lines: set[tuple[str, int]] = set()
    for rel in sorted(files) if root is not None else ():
        tree = parse(root, rel)
        for node in ast.walk(tree) if tree is not None else ():
            lines.update((rel, d.lineno) for d in getattr(node, "decorator_list", ()))
    return lines


def measure(oracle_data: dict, symbols: list[Sym], calls: list[CallEdge], root: Path | None = None) -> dict:
    files = set(oracle_data["files"])
    sym_by_key = {(s.file, s.base_qual, s.start): s for s in symbols}
    sym_by_line: dict[tuple[str, int], list[Sym]] = defaultdict(list)
    for s in symbols:
        sym_by_line[(s.file, s.start)].append(s)
    sym_by_id = {f"{s.file}#{s.qual}": s for s in symbols}

    pair_form: dict[tuple[str, str], str] = {}
    texts: dict[str, list[str]] = {}

    def source_lines(rel: str) -> list[str]:
        if rel not in texts:
            texts[rel] = (root / rel).read_text(encoding="utf-8", errors="replace").splitlines()
        return texts[rel]

    site_counts: Counter = Counter()
    caller_missing = 0
    target_missing: Counter = Counter()
    pairs: set[tuple[str, str]] = set()
    # (caller id, line) -> verdicts of the sites there: list of (name, verdict, target ids)
    at_line: dict[tuple[str, int], list[tuple[str, str, set[str]]]] = defaultdict(list)
    for site in oracle_data["sites"]:
        site_counts[site["verdict"]] += 1
        if site["caller"] is None:
            caller = site["file"]
        else:
            f, qual, line = site["caller"]
            sym = sym_by_key.get((f, qual, line))
            if sym is None:
                caller_missing += 1
                continue
            caller = f"{sym.file}#{sym.qual}"
        ids: set[str] = set()
        for tfile, tline, tname, ttype in site["targets"]:
            match = [s for s in sym_by_line.get((tfile, tline), ()) if s.name == tname]
            if match:
                # A function, a class, or a top-level variable bound to a callable.
                ids.update(f"{s.file}#{s.qual}" for s in match)
            elif ttype in ("function", "class"):
                target_missing[f"{tfile}:{tline} {tname}"] += 1
        verdict = site["verdict"]
        if verdict == IN_WORKSPACE and not ids:
            verdict = "target-not-in-graph"
        for i in ids:
            pairs.add((caller, i))
            if root is not None and (caller, i) not in pair_form:
                text = source_lines(site["file"])
                pair_form[(caller, i)] = call_form(text[site["line"] - 1] if site["line"] <= len(text) else "",
                                                   site["col"])
        at_line[(caller, site["line"])].append((site["name"], verdict, ids))

    mine = [e for e in calls if e.src.partition("#")[0] in files]
    internal = [e for e in mine if not e.external]
    judged: dict[str, Score] = defaultdict(Score)  # by band and by reason
    verdicts: Counter = Counter()
    wrong_examples: list[str] = []
    have_by_band: dict[str, set[tuple[str, str]]] = defaultdict(set)
    implicit = 0
    decorator_lines = _decorator_lines(root, files)
    for e in internal:
        band = band_of(e.confidence)
        have_by_band[band].add((e.src, e.dst))
        if (e.src, e.dst) not in pairs and _implicit(at_line, e, sym_by_id.get(e.dst), decorator_lines):
            implicit += 1  # `for x in obj` calls `obj.__iter__()`, `@make()` what it returns: no site Jedi is asked about
            continue
        outcome = "right" if (e.src, e.dst) in pairs else judge_by_line(
            at_line, e, sym_by_id.get(e.dst), band, DEFINITE, wrong_examples,
            lambda definite: f"jedi: {sorted({v[1] for v in definite})} "
                             f"{sorted(i for v in definite for i in v[2])[:2]}")
        verdicts[(band, e.reason, outcome)] += 1
        count_outcome(judged, [f"band {band}", f"reason {e.reason}", *thresholds_of(band)], outcome)

    # What became of the oracle pairs we do not assert with confidence 1.
    confident = have_by_band["1.0"]
    fate: Counter = Counter()
    edge_at: dict[tuple[str, str], CallEdge] = {(e.src, e.dst): e for e in internal}
    by_form: dict[str, Counter] = defaultdict(Counter)
    for pair in pairs:
        by_form[pair_form.get(pair, "?")]["confident" if pair in confident else "missed"] += 1
    missed_examples: list[str] = []
    for pair in sorted(pairs - confident):
        e = edge_at.get(pair)
        if e is not None:
            fate[f"kept below confidence 1 ({e.reason}, {band_of(e.confidence)})"] += 1
        else:
            fate["no edge to the target (unresolved, external or another target)"] += 1
        missed_examples.append(f"{pair[0]} -> {pair[1]} ({pair_form.get(pair, '?')}; ours: "
                               + (f"{e.reason} {e.confidence:.2f}, line {e.line})" if e is not None else "no edge)"))
    return {
        "sample_files": len(files),
        "call_sites": sum(site_counts.values()),
        "jedi_verdicts": dict(site_counts.most_common()),
        **targets_report("jedi", caller_missing, target_missing),
        "oracle_pairs": len(pairs),
        "our_edges_from_sample": len(mine),
        "our_external_edges_from_sample": len(mine) - len(internal),
        "implicit_protocol_edges_not_judged": implicit,
        **scores_report(judged, verdicts, pairs, have_by_band),
        "oracle_pairs_not_confident": dict(fate.most_common()),
        "oracle_pairs_by_call_form": largest_first(by_form),
        "wrong_examples": wrong_examples,
        "missed_examples": missed_examples,
    }
