"""Definitions in other languages: our ``:Symbol`` nodes against Universal Ctags.

A ctags entry is matched by (file, name, line). Ctags kinds that name something we model map
to our kinds; the others (struct fields, enum members, macros, impl blocks, packages, ...) are
excluded and reported by kind, not silently dropped. Ctags gives the line of the name, we
give the first line of the declaration: when the two differ because annotations, decorators
or a multi-line signature come first, the pair still matches and is counted as such.

Recall: mapped ctags entries we have. Precision: our symbols that ctags confirms at the same
(file, name, line), by any kind (a confirmation by an excluded kind is counted separately),
over our symbols less the *explained* ones: overloads and redefinitions (ctags lists one per
name), definitions inside function bodies, what a language's rules below say ctags does not
list, and for TypeScript what the TypeScript compiler's parser confirms. The raw score keeps
everything.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from bench.accuracy.common import FileState, Score, Sym, file_problem
from bench.accuracy.corpora import Corpus
from indexers.languages import LANGUAGES

# Lines a declaration may start above its name (annotations, decorators, signatures).
MAX_LEAD_LINES = 12

TOP = "top"  # mapped only when the entry has no enclosing scope


@dataclass(frozen=True, slots=True)
class CtagsLanguage:
    ctags: str  # ctags' language name
    options: tuple[str, ...]
    mapped: dict[str, str]  # ctags kind -> our kind
    top_level: frozenset[str]  # mapped kinds that count only outside any scope
    excluded: dict[str, str]  # ctags kind -> why we do not model it
    not_names: dict[str, str] = field(default_factory=dict)  # names that are syntax, not definitions
    # (ctags kind, pattern on the entry's source line, why): entries that are not definitions
    # we model. A pattern with a group "decl" excludes the entry when the declared name differs.
    not_entries: tuple[tuple[str, str, str], ...] = ()
    # (our kind, pattern on our symbol's first line, why): symbols ctags does not list.
    unlisted: tuple[tuple[str, str, str], ...] = ()
    one_per_overload: bool = False  # ctags lists one entry for all overload signatures


CTAGS_LANGUAGES: dict[str, CtagsLanguage] = {
    "typescript": CtagsLanguage(
        "TypeScript", (),
        {"class": "class", "interface": "interface", "enum": "enum", "function": "function",
         "generator": "function", "method": "method", "alias": "type_alias", "namespace": "module",
         "constant": "constant", "variable": "variable"},
        frozenset({"constant", "variable"}),
        {"property": "class, interface and object-literal properties",
         "enumerator": "enum members"},
        {"new": "construct signatures `new (...)` of an interface"},
        one_per_overload=True,
    ),
    "go": CtagsLanguage(
        "Go", (),
        {"func": "function", "struct": "struct", "interface": "interface", "type": "type_alias",
         "talias": "type_alias", "const": "constant", "var": "variable"},
        frozenset({"const", "var"}),
        {"member": "struct fields", "anonMember": "embedded struct fields",
         "methodSpec": "interface method specifications", "package": "package clauses",
         "packageName": "imported package names", "unknown": "references to other packages"},
    ),
    "rust": CtagsLanguage(
        "Rust", (),
        {"module": "module", "struct": "struct", "interface": "trait", "function": "function",
         "method": "method", "enum": "enum", "typedef": "type_alias", "variable": "variable"},
        frozenset({"variable"}),
        {"implementation": "impl blocks (a scope for methods, not a symbol)",
         "macro": "macro_rules! definitions", "field": "struct fields", "enumerator": "enum variants"},
        not_entries=(
            ("module", r";\s*$", "`mod x;` declarations: the module is the file x.rs"),
            ("variable", r"^\s*(pub(\([^)]*\))?\s+)?(static|const)\s+(mut\s+)?(?P<decl>\w+)",
             "ctags takes a word of the type for the name of a const/static item"),
        ),
        unlisted=(
            ("constant", r"^\s*(pub(\([^)]*\))?\s+)?const\s", "const items: ctags' Rust parser does not list them"),
        ),
    ),
    "java": CtagsLanguage(
        "Java", (),
        {"class": "class", "interface": "interface", "enum": "enum", "annotation": "interface",
         "method": "method"},
        frozenset(),
        {"field": "fields", "enumConstant": "enum constants", "package": "package clauses"},
    ),
    "c": CtagsLanguage(
        "C", ("--map-C++=-.h", "--map-C=+.h"),
        {"function": "function", "struct": "struct", "union": "struct", "enum": "enum",
         "typedef": "type_alias", "variable": "variable"},
        frozenset({"variable"}),
        {"macro": "preprocessor macros", "enumerator": "enum constants",
         "member": "struct and union members", "header": "included headers"},
        # The Linux kernel's annotation macros: ctags takes `} __packed;` and
        # `static int x __read_mostly;` for declarations of a variable named after the macro.
        {name: "an annotation macro ctags takes for the declared name"
         for name in sorted(LANGUAGES["c"].macros.annotations)},
        not_entries=(
            ("function", r"^\s*(COMPAT_)?SYSCALL_DEFINE\d\(",
             "system calls: ctags names them after the macro (ours: sys_<name>)"),
        ),
        unlisted=(
            ("function", r"^\s*(COMPAT_)?SYSCALL_DEFINE\d\(", "system calls: ctags lists the macro's name"),
            ("variable", r"^\s*static\s+(DEFINE|DECLARE)_\w+\(|^\s*static\s+LIST_HEAD\(",
             "variables defined by DEFINE_*/DECLARE_*/LIST_HEAD macros"),
        ),
    ),
}


@dataclass(frozen=True, slots=True)
class Tag:
    file: str
    name: str
    line: int
    kind: str
    scoped: bool  # inside a function, type or module (a Go package does not count)
    scope_kind: str | None = None


def corpus_files(corpus: Corpus) -> list[str]:
    """Files of the corpus in the corpus' language, minus its exclusions."""
    exts = LANGUAGES[corpus.lang].extensions
    spec = pathspec.GitIgnoreSpec.from_lines(list(corpus.exclude))
    out = []
    for p in sorted(corpus.root.rglob("*")):
        rel = p.relative_to(corpus.root).as_posix()
        if p.is_file() and p.suffix in exts and not spec.match_file(rel):
            out.append(rel)
    return out


def ctags_version() -> str:
    out = subprocess.run(["ctags", "--version"], capture_output=True, text=True, check=True).stdout
    return out.splitlines()[0].strip()


def run_ctags(corpus: Corpus, files: list[str]) -> list[Tag]:
    lang = CTAGS_LANGUAGES[corpus.lang]
    cmd = ["ctags", "--output-format=json", "--fields=+nKsZ", f"--languages={lang.ctags}",
           *lang.options, "-L", "-", "-f", "-"]
    done = subprocess.run(cmd, cwd=corpus.root, input="\n".join(files) + "\n", capture_output=True,
                          text=True, check=True)
    tags = []
    for line in done.stdout.splitlines():
        entry = json.loads(line)
        if entry.get("_type") != "tag" or entry["name"].startswith("__anon"):
            continue
        tags.append(Tag(entry["path"].removeprefix("./"), entry["name"], int(entry["line"]), entry["kind"],
                        bool(entry.get("scope")) and entry.get("scopeKind") != "package", entry.get("scopeKind")))
    return tags


def typescript_declarations(corpus: Corpus, files: list[str]) -> set[tuple[str, str, int]]:
    """(file, name, line) of every named declaration, by the TypeScript compiler's parser; both
    the name line and the first line of the declaration are included."""
    from bench.accuracy.corpora import typescript_compiler

    script = Path(__file__).with_name("ts_declarations.js")
    done = subprocess.run(["node", str(script), str(typescript_compiler()), str(corpus.root)],
                          input="\n".join(files) + "\n", capture_output=True, text=True, check=True)
    out = set()
    for line in done.stdout.splitlines():
        if line.strip():
            d = json.loads(line)
            out.add((d["file"], d["name"], d["line"]))
            out.add((d["file"], d["name"], d["start"]))
    return out


def _not_an_entry(lang: CtagsLanguage, t: Tag, line: str) -> str | None:
    for kind, pattern, why in lang.not_entries:
        if kind != t.kind:
            continue
        m = re.search(pattern, line)
        if m and ("decl" not in m.groupdict() or m.group("decl") != t.name):
            return why
    return None


def _unlisted(lang: CtagsLanguage, s: Sym, line: str) -> str | None:
    for kind, pattern, why in lang.unlisted:
        if kind == s.kind and re.search(pattern, line):
            return why
    return None


def measure(corpus: Corpus, ours: list[Sym], files: dict[str, FileState]) -> dict:
    lang = CTAGS_LANGUAGES[corpus.lang]
    paths = corpus_files(corpus)
    in_corpus = set(paths)
    tags = run_ctags(corpus, paths)
    # TypeScript: ctags 5.9 loses class members after some constructs (generic arrow
    # functions in property initialisers); the compiler's parser arbitrates our extras.
    arbiter = typescript_declarations(corpus, paths) if corpus.lang in ("typescript", "tsx") else set()
    excluded: Counter = Counter()
    unknown_kinds: Counter = Counter()
    oracle: list[Tag] = []
    sources: dict[str, list[str]] = {}

    def source_line(path: str, line: int) -> str:
        if path not in sources:
            sources[path] = (corpus.root / path).read_text(encoding="utf-8", errors="replace").splitlines()
        lines = sources[path]
        return lines[line - 1] if 0 < line <= len(lines) else ""

    for t in tags:
        if t.kind in lang.mapped and t.kind in lang.top_level and t.scope_kind is None \
                and source_line(t.file, t.line)[:1].isspace():
            # Every corpus is formatted (prettier, gofmt, rustfmt): an indented declaration is
            # a local or an object key whose scope ctags lost.
            excluded[f"{t.kind} on an indented line: a local ctags did not scope"] += 1
        elif (why := _not_an_entry(lang, t, source_line(t.file, t.line))) is not None:
            excluded[f"{t.kind}: {why}"] += 1
        elif t.kind in lang.mapped and not (t.kind in lang.top_level and t.scoped) and t.name not in lang.not_names:
            oracle.append(t)
        elif t.kind in lang.mapped and t.name in lang.not_names:
            excluded[f"{t.kind} named {t.name!r}: {lang.not_names[t.name]}"] += 1
        elif t.kind in lang.mapped:
            excluded[f"{t.kind} inside a function, type or block"] += 1
        elif t.kind in lang.excluded:
            excluded[f"{t.kind}: {lang.excluded[t.kind]}"] += 1
        else:
            unknown_kinds[t.kind] += 1
    mine = [s for s in ours if s.file in in_corpus]

    exact = {(t.file, t.name, t.line): t for t in oracle}
    have = {(s.file, s.name, s.start): s for s in mine}
    matched_tags: dict[tuple, Sym] = {}
    matched_syms: set[tuple] = set()
    for key, t in exact.items():
        if key in have:
            matched_tags[key] = have[key]
            matched_syms.add(key)
    # Second pass: the declaration starts a few lines above the name (annotations, decorators).
    by_name: dict[tuple[str, str], list[Sym]] = defaultdict(list)
    for key, s in have.items():
        if key not in matched_syms:
            by_name[(s.file, s.name)].append(s)
    lead = 0
    for key, t in sorted(exact.items()):
        if key in matched_tags:
            continue
        best = None
        for s in by_name.get((t.file, t.name), ()):
            if (s.file, s.name, s.start) in matched_syms:
                continue
            if s.start < t.line <= min(s.end, s.start + MAX_LEAD_LINES) and (best is None or s.start > best.start):
                best = s
        if best is not None:
            matched_tags[key] = best
            matched_syms.add((best.file, best.name, best.start))
            lead += 1

    kind_mismatch = Counter(
        f"ctags {t.kind} / ours {matched_tags[k].kind}" for k, t in exact.items()
        if k in matched_tags and lang.mapped[t.kind] != matched_tags[k].kind
    )
    missed: Counter = Counter()
    examples: dict[str, list[str]] = defaultdict(list)
    our_lines = {(s.file, s.start) for s in mine}
    for key, t in exact.items():
        if key in matched_tags:
            continue
        cat = file_problem(files, t.file) or (
            f"ctags {t.kind}: a symbol of ours starts on that line under another name"
            if (t.file, t.line) in our_lines else f"ctags {t.kind}: not extracted")
        missed[cat] += 1
        examples[cat].append(f"{t.file}:{t.line} {t.name}")

    # Precision: any ctags entry (mapped or excluded kind) at our (file, name, line) confirms.
    all_tags = {(t.file, t.name, t.line): t for t in tags}
    tag_lines_by_name: dict[tuple[str, str], list[int]] = defaultdict(list)
    for t in tags:
        tag_lines_by_name[(t.file, t.name)].append(t.line)
    confirmed = 0
    explained = 0
    group_size = Counter((s.file, s.base_qual) for s in mine)
    function_quals: dict[str, set[str]] = defaultdict(set)
    for s in mine:
        if s.kind in ("function", "method"):
            function_quals[s.file].add(s.qual)
    by_excluded: Counter = Counter()
    extra: Counter = Counter()
    for key, s in have.items():
        if key in matched_syms:
            confirmed += 1
            continue
        t = all_tags.get(key)
        if t is None:
            # The name line may be below the declaration start for excluded kinds too.
            lines = [ln for ln in tag_lines_by_name.get((s.file, s.name), ())
                     if s.start < ln <= min(s.end, s.start + MAX_LEAD_LINES)]
            if lines:
                t = all_tags[(s.file, s.name, min(lines))]
        if t is not None:
            confirmed += 1
            if t.kind not in lang.mapped or (t.kind in lang.top_level and t.scoped):
                by_excluded[f"ours {s.kind} = ctags {t.kind}"] += 1
            continue
        problem = file_problem(files, s.file)
        if problem:
            cat = problem
        elif (why := _unlisted(lang, s, source_line(s.file, s.start))) is not None:
            cat = f"ours {s.kind}: {why}"
            explained += 1
        elif key in arbiter:
            cat = f"ours {s.kind}: ctags misses it, the TypeScript compiler confirms it"
            explained += 1
        elif s.qual.rpartition(".")[0] in function_quals.get(s.file, ()):
            cat = f"ours {s.kind}: declared inside a function body (ctags does not list those)"
            explained += 1
        elif lang.one_per_overload and group_size[(s.file, s.base_qual)] > 1:
            cat = f"ours {s.kind}: overload signature or redefinition (ctags lists one per name)"
            explained += 1
        elif (s.file, s.name) in tag_lines_by_name:
            cat = f"ours {s.kind}: ctags has the name elsewhere in the file"
        else:
            cat = f"ours {s.kind}: ctags has no such name in the file"
        extra[cat] += 1
        examples["extra: " + cat].append(f"{s.file}:{s.start} {s.qual}")

    raw = Score(oracle=len(exact), ours=len(have), found=len(matched_tags), confirmed=confirmed)
    # Precision over the symbols ctags could be expected to list: the explained categories out.
    score = Score(oracle=len(exact), ours=len(have) - explained, found=len(matched_tags), confirmed=confirmed)
    return {
        "corpus": corpus.label,
        "files": len(paths),
        "score": score.to_dict(),
        "raw_score": raw.to_dict(),
        "explained_extra": explained,
        "matched_with_name_below_start": lead,
        "kind_mismatch": dict(kind_mismatch.most_common()),
        "excluded_ctags_kinds": dict(excluded.most_common()),
        "unmapped_ctags_kinds": dict(unknown_kinds.most_common()),
        "confirmed_by_excluded_kind": dict(by_excluded.most_common()),
        "missed": dict(missed.most_common()),
        "extra": dict(extra.most_common()),
        "examples": {k: sorted(v)[:8] for k, v in sorted(examples.items())},
    }
