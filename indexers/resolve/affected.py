"""Which files an incremental run re-resolves after some files changed."""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from typing import Iterable

from indexers.bindings import CALLBACK
from indexers.extract import RECEIVER_NAME, RECEIVER_NONE, RESULT, FileExtraction
from indexers.languages import LANGUAGES
from indexers.resolve.common import (MAX_REEXPORT_HOPS, SPLIT, TYPE_KIND_NAMES, ImportContext, ResolveStats, last_segment,
                                     record_fields)
from indexers.resolve.modules import MODULE_SYSTEMS, FileSet, ModuleSystem
from indexers.resolve.parameters import parameter_values, reaches_parameters
from indexers.resolve.resolver import Resolver
from indexers.resolve.table import SymbolTable
from indexers.text import NAME


def _import_keys(ext: FileExtraction) -> set[tuple]:
    return {(i.module, i.name, i.alias, i.level, i.export) for i in ext.imports}


def with_shared_sources(
    files: Iterable[str], table: SymbolTable, old_exts: dict[str, FileExtraction]
) -> set[str]:
    """``files`` and every file that must be re-resolved with them because their edges share
    sources.

    An edge normally leaves the file it was resolved in; a relation written outside its type
    (Rust's ``impl Trait for Type``) leaves the type, in another file. Since a file's edges
    are replaced as a whole (every edge leaving its nodes), the type's file and each file
    writing such relations about its types are resolved together. ``files`` may include
    deleted files (with their extractions in ``old_exts``). Types are matched by name: a few
    files too many are resolved, never one too few. Returns the files still in the table.
    """
    seeds = set(files)
    # type name -> files relating a type of that name from outside, before or after the change
    relating: dict[str, set[str]] = defaultdict(set)
    for ext in [*(table.files[p] for p in table.relating_files), *old_exts.values()]:
        for ref in ext.inherits:
            if ref.type_id is None:
                relating[last_segment(ref.subject)].add(ext.path)
    if not relating:
        return {p for p in seeds if p in table.files}
    exts = [*table.files.values(), *old_exts.values()]
    defining: dict[str, set[str]] = defaultdict(set)  # such a name -> files defining it
    subjects: dict[str, set[str]] = defaultdict(set)  # file -> names it relates from outside
    defined: dict[str, set[str]] = defaultdict(set)  # file -> such names it defines
    for ext in exts:
        for sym in ext.symbols:
            if sym.name in relating:
                defining[sym.name].add(ext.path)
                defined[ext.path].add(sym.name)
        for ref in ext.inherits:
            if ref.type_id is None:
                subjects[ext.path].add(last_segment(ref.subject))
    out, frontier = set(seeds), list(seeds)
    while frontier:
        path = frontier.pop()
        linked = set()
        for name in subjects.get(path, ()):
            linked |= defining.get(name, set())
        for name in defined.get(path, ()):
            linked |= relating[name]
        for other in linked - out:
            out.add(other)
            frontier.append(other)
    return {p for p in out if p in table.files}


def affected_files(
    changed_paths: Iterable[str],
    old_exts: dict[str, FileExtraction],
    new_exts: dict[str, FileExtraction],
    table: SymbolTable,
) -> set[str]:
    """Files whose outgoing edges must be re-resolved after ``changed_paths`` changed.

    ``old_exts``/``new_exts`` hold the extractions before and after (a deleted file has no
    new one, an added file no old one). Call it after the table was updated with the new
    extractions. The answer: the changed files that still exist, every file referring to a
    name whose definitions changed, importers of changed files, and files whose types
    inherit from types whose bases changed.
    """
    changed = set(changed_paths)
    affected = {p for p in changed if p in table.files}
    names: set[str] = set()
    for path in changed:
        old = old_exts.get(path)
        new = new_exts.get(path)
        old_defs = {(s.name, s.id, s.kind) for s in old.symbols} if old else set()
        new_defs = {(s.name, s.id, s.kind) for s in new.symbols} if new else set()
        differ = old_defs ^ new_defs
        near = _scoped_names(differ, old or new, table)
        names.update(n for n, _, _ in differ if n not in near)
        old_bases = {(r.subject, r.base) for r in old.inherits} if old else set()
        new_bases = {(r.subject, r.base) for r in new.inherits} if new else set()
        names.update(SPLIT.split(s)[-1] for s, _ in old_bases ^ new_bases)
        # What other files may read of this one's bindings: module-level variables, fields,
        # results of functions. Callers find them by the variable's, field's or function's name.
        scoped = _names_are_scoped(old or new, table)
        for scope, name, *_ in _outward_bindings(old) ^ _outward_bindings(new):
            if "#" not in scope and scoped:
                near.add(name)  # a module-level variable: see _scoped_names
                names.update(_based_on(name, table))  # a base read through it (`plain = Fancy`)
                continue
            names.add(name if name != RESULT else last_segment(scope.partition("#")[2]))
            if "#" in scope:
                names.add(last_segment(scope.partition("#")[2]))
        if near:
            affected |= _readers(path, (old or new).lang, near, table)
        if old is not None and new is not None and (old.variant != new.variant or old.package != new.package):
            # In the default build or out of it now (`//go:build`), or in another package of its
            # directory (Go's `package x_test`): what its names are changes for whoever names them.
            names.update(s.name for ext in (old, new) for s in ext.symbols)
        if (old is None) != (new is None):
            # Created or deleted: whoever names the module (its stem, or its directory for
            # packages) may now import something else.
            stem = posixpath.splitext(posixpath.basename(path))[0]
            names.add(stem)
            ext = old or new
            spec = LANGUAGES.get(ext.lang) if ext.lang else None
            if spec is not None and (stem in spec.package_files or spec.directory_scope):
                names.add(posixpath.basename(posixpath.dirname(path)))
        elif old is not None and new is not None and (
            _import_keys(old) != _import_keys(new) or old.declared != new.declared
        ):
            # What this file re-exports (by import, star import, `__all__`) may have changed for
            # files importing it and for those importing them through a package; what its types
            # inherit, and which type its out-of-line members (C++ `A::m`, Rust `impl`) belong
            # to, for files using them.
            affected |= _reexport_importers(path, table)
            names.update(s.name for ext in (old, new) for s in ext.symbols
                         if s.kind in TYPE_KIND_NAMES or "." in s.qualified_name)
    for name in names:
        affected |= table.referencing_files(name)
    affected |= _through_variables(affected, names, table)
    rebound = _rebound_files(changed, old_exts, new_exts, table)
    affected |= rebound
    returning: set[str] = set()  # functions returning a parameter that now holds something else
    affected |= _receiving_files(changed, affected, names, rebound, old_exts, new_exts, table, returning)
    if returning:
        affected |= _through_variables(set().union(*map(table.referencing_files, returning)), returning, table)
    return {p for p in affected if p in table.files}


def _through_variables(paths: set[str], names: set[str], table: SymbolTable) -> set[str]:
    """The files and readers of their top-level variables bound through a changed name
    (`api = build()` when what build returns changed): they hold something else now."""
    out = set(paths)
    for path in sorted(paths):
        if path in table.files and (through := _bound_through(table, path, names)):
            out |= _readers(path, table.files[path].lang, through, table)
    return out


MAX_VALUE_HOPS = 8  # module-level variables bound through one another, followed at most


def _readers(path: str, lang: str, names: set[str], table: SymbolTable) -> set[str]:
    """Files that may read the top-level variables ``names`` of ``path``, found only through
    scope and imports (only files that see the file's names); then, in turn, readers of the
    top-level variables of those files bound through them (``debug = log.debug`` holds
    something else when ``log`` does)."""
    out: set[str] = set()
    done: set[tuple[str, str]] = set()
    frontier = [(path, names)]
    for _ in range(MAX_VALUE_HOPS):
        onward = []
        for source, changed in frontier:
            done.update((source, n) for n in changed)
            seeing = {source} | _reexport_importers(source, table)
            if source not in table.files:  # deleted: its importers no longer import it
                seeing |= table.referencing_files(posixpath.splitext(posixpath.basename(source))[0])
            if LANGUAGES[table.files[source].lang if source in table.files else lang].directory_scope:
                seeing |= table.files_in_dir(posixpath.dirname(source))
            for reader in set().union(*(table.referencing_files(n) for n in changed)) & seeing:
                out.add(reader)
                if through := {n for n in _bound_through(table, reader, changed) if (reader, n) not in done}:
                    onward.append((reader, through))
        if not onward:
            break
        frontier = onward
    return out


def _bound_through(table: SymbolTable, path: str, names: set[str]) -> set[str]:
    """The top-level variables of a file bound to a value that names one of ``names``."""
    ext = table.files.get(path)
    return {name for scope, name, value in record_fields(ext.bindings, "scope", "name", "value")
            if scope == path and value and not names.isdisjoint(NAME.findall(value))} if ext is not None else set()



def _based_on(name: str, table: SymbolTable) -> set[str]:
    """Names of the types whose bases name ``name`` (a module's variable bound to a class):
    their files and their subclasses' read members through it."""
    return {last_segment(ref.subject) for path in table.referencing_files(name) if path in table.files
            for ref in table.files[path].inherits if SPLIT.split(ref.base)[-1] == name}


def _receiving_files(
    changed: set[str], affected: set[str], names: set[str], rebound: set[str],
    old_exts: dict[str, FileExtraction], new_exts: dict[str, FileExtraction], table: SymbolTable,
    returning: set[str],
) -> set[str]:
    """Files defining functions whose parameters may now hold something else (a parameter
    that is called holds what the callers pass, evaluated in the callers' files): callees of
    calls whose arguments changed, or name something that changed or is bound anew; then, in
    turn, callees to which those functions pass their own parameters. By name: a few files
    too many, never one too few. The names of such functions that return a parameter are
    added to ``returning``."""
    callees: set[tuple[str, str]] = set()  # (module system, callee name)
    methods: set[str] = set()  # methods called: by what their calls resolve to, not by name
    for path in changed:
        exts = [e for e in (old_exts.get(path), new_exts.get(path)) if e is not None]
        # Only calls whose arguments reach parameters: `f(s)`, `obj.m(s)`.
        sides = [{c for c in e.calls if reaches_parameters(c)} for e in exts]
        if not exts or exts[0].lang not in LANGUAGES:
            continue
        system = LANGUAGES[exts[0].lang].module_system
        differ = sides[0] ^ sides[1] if len(sides) == 2 else sides[0]
        methods.update(_methods_called(table, path, differ))
        for call in differ if len(sides) == 2 else ():  # `@make()` gone: any function `make` defines it may have called
            if not call.name and call.receiver and call.receiver.endswith("()"):
                methods.update(i for sid in table.by_name(system, "callable", last_segment(call.receiver[:-2]))
                               for ids in table.members_of(sid).values() for i in ids if table.symbols[i].kind == "function")
        for caller, name in {(c.caller, c.name) for c in differ if c.receiver_kind in _BY_NAME}:
            callees.add((system, name))
            for e in exts:
                # Called through a name bound to a function (`c = run; c(h)`) or through a
                # parameter: what the name holds, or what the caller's callers pass for it.
                callees.update((system, last_segment(b.value)) for b in e.bindings if b.name == name and b.value)
                if any(p.function == caller and p.name == name for p in e.params):
                    callees.update((system, last_segment(v)) for f in table.referencing_files(last_segment(caller))
                                   if f in table.files for c in table.files[f].calls
                                   if c.name == last_segment(caller) for _, v in c.args)
    for path in affected - changed:
        ext = table.files.get(path)
        if ext is not None and ext.lang in LANGUAGES:
            system = LANGUAGES[ext.lang].module_system
            passing = [c for c in ext.calls if reaches_parameters(c) and (
                path in rebound or any(seg in names for _, v in c.args for seg in SPLIT.split(v)))]
            callees.update((system, c.name) for c in passing if c.receiver_kind in _BY_NAME)
            methods.update(_methods_called(table, path, passing))
    # Layer by layer: the functions of those names whose parameters are called or passed on;
    # those whose parameters now hold something else name their files, and the callees they
    # pass their parameters to are the next layer. A function whose parameters hold what they
    # held has nothing new to pass on.
    out: set[str] = set()
    seen: set[tuple[str, str]] = set()
    visited: set[str] = set()
    while callees or methods:
        seen |= callees
        layer = []
        named = {sid for system, name in callees for sid in table.by_name(system, "callable", name)}
        for sid in sorted(named | methods):
            if sid in visited:
                continue
            visited.add(sid)
            # Only functions' and methods' parameters are followed (parameters.py): not a class's.
            if table.symbols[sid].kind in ("function", "method") and _receives(table.files[table.symbols[sid].file], sid):
                layer.append(sid)
        callees, methods = set(), set()
        # A method called with other arguments re-resolves its file without comparing what
        # its parameters held: the comparison reads every call of its name, methods' names
        # being the common ones (`decode`, `get`).
        differing = _values_differ([s for s in layer if table.symbols[s].kind == "function"], changed, old_exts,
                                   new_exts, table) + [s for s in layer if table.symbols[s].kind == "method"]
        for sid in differing:
            path = table.symbols[sid].file
            ext = table.files[path]
            out.add(path)
            if _returns_parameter(ext, sid):
                returning.add(table.symbols[sid].name)
            system = LANGUAGES[ext.lang].module_system
            passing = {(p.function, p.name) for p in ext.params if p.function == sid or p.function.startswith(sid + ".")}
            onward = [c for c in ext.calls if reaches_parameters(c) and any((c.caller, v) in passing for _, v in c.args)]
            callees.update((system, c.name) for c in onward if c.receiver_kind in _BY_NAME and (system, c.name) not in seen)
            methods.update(m for m in _methods_called(table, path, onward) if m not in visited)
    return out


# Calls whose callee is looked up by name when what they pass changes (functions, `mod.run(f)`);
# methods called (`obj.m(f)`, `self.m(f)`) are found by what the call resolves to.
_BY_NAME = (RECEIVER_NONE, RECEIVER_NAME)


def _methods_called(table: SymbolTable, path: str, calls: Iterable) -> set[str]:
    """The methods the calls of a file with a receiver resolve to, for certain (a method's
    parameters hold what such calls pass: `parameters.py`), and the functions a call of what a
    call returns does (`@make()`: what `make()` returns)."""
    calls = [c for c in calls if c.receiver_kind != RECEIVER_NONE]
    ext = table.files.get(path)
    if not calls or ext is None:
        return set()
    r = table.resolvers.get(path) or Resolver(ext, table, ResolveStats())
    found = set()
    for call in calls:
        target = r.resolved(call, r.memo_key(call))
        if isinstance(target, tuple) and target[0][0] == "sym" and target[2] == 1.0:
            found.update(i for i in target[0][1] if table.symbols[i].kind == "method" or not call.name)
    return found


MAX_COMPARED = 200  # functions whose parameters are compared before and after; past that, all count


def _values_differ(
    sids: list[str], changed: set[str], old_exts: dict[str, FileExtraction], new_exts: dict[str, FileExtraction],
    table: SymbolTable,
) -> list[str]:
    """The functions whose parameters hold other values now than before the change: the table
    is put back as it was for the comparison, then as it is."""
    if not sids or len(sids) > MAX_COMPARED:
        return sids
    now = _parameter_values(sids, table)
    _apply(changed, old_exts, table)
    try:
        before = _parameter_values([s for s in sids if s in table.symbols], table)
    finally:
        _apply(changed, new_exts, table)
    return [s for s in sids if before.get(s) != now[s]]


def _parameter_values(sids: list[str], table: SymbolTable) -> dict[str, tuple]:
    out = {}
    for sid in sids:
        path = table.symbols[sid].file
        r = table.resolvers.get(path) or Resolver(table.files[path], table, ResolveStats())
        out[sid] = tuple(parameter_values(r, sid, p.name) for p in table.files[path].params if p.function == sid)
    return out


def _apply(changed: set[str], exts: dict[str, FileExtraction], table: SymbolTable) -> None:
    for path in sorted(changed):
        ext = exts.get(path)
        if ext is not None:
            table.add_file(ext)
        else:
            table.remove_file(path)


def _receives(ext: FileExtraction, sid: str) -> bool:
    """Whether what callers pass to ``sid`` (a function, or a class and its ``__init__``) can
    change its file's edges: one of its parameters is called, or passed on, in its body."""
    inside = sid + "."
    params = {(p.function, p.name) for p in ext.params if p.function == sid or p.function.startswith(inside)}
    if not params:
        return False
    names = {n for _, n in params}
    if _returns_parameter(ext, sid, names):
        return True
    for c in ext.calls:
        if c.caller == sid or c.caller.startswith(inside):
            if (c.receiver is None and c.name in names) or any(v in names for _, v in c.args):
                return True
    return False


def _returns_parameter(ext: FileExtraction, sid: str, names: set[str] | None = None) -> bool:
    """Whether the function ``sid`` returns one of its parameters (``names``: theirs), whose
    value its callers give (`def deco(cls): return cls`)."""
    if names is None:
        names = {p.name for p in ext.params if p.function == sid}
    return any(b.scope == sid and b.name == RESULT and b.value in names for b in ext.bindings)


def _outward_bindings(ext: FileExtraction | None) -> set[tuple]:
    """The bindings of a file other files may evaluate, without lines: all but function
    locals, those locals what a function returns reads (`V = deco(V); return V`), and what a
    function's declared parameter types say it is given or passes on (``CALLBACK``)."""
    if ext is None:
        return set()
    functions = {s.id for s in ext.symbols if s.kind in ("function", "method")}
    read = {(b.scope, n) for b in ext.bindings if b.name == RESULT and b.value for n in NAME.findall(b.value)}
    return {
        (b.scope, b.name, b.type, b.value, b.context) for b in ext.bindings
        if b.name == RESULT or b.scope not in functions or (b.scope, b.name) in read
        or CALLBACK.fullmatch(b.name)  # what the function passes to a callback, or is given
    }


def _scoped_names(differ: set[tuple[str, str, str]], ext: FileExtraction, table: SymbolTable) -> set[str]:
    """Names of changed top-level variables and constants. No lookup by name alone finds
    them (only scope, imports and the same package do), so adding ``x = 1`` need not
    re-resolve every file that mentions some ``x``. Not so where modules are reachable by
    path without an import (Rust's ``crate::a::X``)."""
    if not _names_are_scoped(ext, table):
        return set()
    scoped = {n for n, sid, kind in differ if kind in _SCOPED_KINDS and "." not in sid.partition("#")[2]}
    return scoped - {n for n, _, kind in differ if kind not in _SCOPED_KINDS}


_SCOPED_KINDS = frozenset({"variable", "constant"})


def _names_are_scoped(ext: FileExtraction, table: SymbolTable) -> bool:
    spec = LANGUAGES.get(ext.lang) if ext.lang else None
    return spec is not None and not table.modules(spec.module_system).paths_reach_modules


def _reexport_importers(path: str, table: SymbolTable) -> set[str]:
    """Importers of ``path``, and importers of those of them that pass names on to their own
    importers (package files such as ``__init__.py``, files with star imports)."""
    out: set[str] = set()
    frontier = [path]
    for _ in range(MAX_REEXPORT_HOPS):
        nxt = []
        for f in frontier:
            for importer in table.importers_of(f) - out:
                out.add(importer)
                ext = table.files[importer]
                spec = LANGUAGES.get(ext.lang) if ext.lang else None
                stem = posixpath.splitext(posixpath.basename(importer))[0]
                ctx = table.import_context(importer)
                if spec is not None and (stem in spec.package_files or ctx.stars or ctx.exports or ctx.export_stars):
                    nxt.append(importer)
        if not nxt:
            break
        frontier = nxt
    return out


def _module_facts(ext: FileExtraction | None) -> tuple:
    """What module systems read of a file besides its path."""
    return (ext.lang, ext.package, tuple(ext.declared)) if ext is not None else ()


def _rebound_files(
    changed: set[str], old_exts: dict[str, FileExtraction], new_exts: dict[str, FileExtraction], table: SymbolTable
) -> set[str]:
    """Unchanged files whose imports bind differently now that files came, went, or changed
    what module systems read of them (a package's ``__init__.py`` renames every module below
    it; a Rust crate root moves every module path)."""
    systems: set[str] = set()
    for path in changed:
        old, new = old_exts.get(path), new_exts.get(path)
        if _module_facts(old) != _module_facts(new):
            systems.update(LANGUAGES[e.lang].module_system for e in (old, new) if e is not None and e.lang in LANGUAGES)
    if not systems:
        return set()
    before = dict(table.files)
    for path in changed:
        if path in old_exts:
            before[path] = old_exts[path]
        else:
            before.pop(path, None)
    before_view = FileSet(before, table.js_paths, table.go_modules)
    words = _renamed_words(changed, old_exts, new_exts, before, table)
    out = set()
    for system in sorted(systems):
        now, then = table.modules(system), MODULE_SYSTEMS[system](before_view)
        for path in now.paths:
            if path in changed:
                continue
            ext = table.files[path]
            if now.place(path) != then.place(path):
                out.add(path)
            elif _may_name(ext, words) and _bindings(now, ext) != _bindings(then, ext):
                out.add(path)
    return out


def _renamed_words(
    changed: set[str], old_exts: dict[str, FileExtraction], new_exts: dict[str, FileExtraction],
    before: dict[str, FileExtraction], table: SymbolTable,
) -> frozenset[str]:
    """The words an import must mention to bind differently: the directory names and stems
    of the changed files and, below a changed package file (``__init__.py``, a Rust crate
    root), of every file whose module name it may change."""
    paths = set(changed)
    for path in changed:
        for ext in (old_exts.get(path), new_exts.get(path)):
            spec = LANGUAGES.get(ext.lang) if ext is not None and ext.lang else None
            if spec is not None and posixpath.splitext(posixpath.basename(path))[0] in spec.package_files:
                prefix = posixpath.dirname(path)
                prefix = prefix + "/" if prefix else ""
                paths.update(p for p in (*table.files, *before) if p.startswith(prefix))
    words = set()
    for path in paths:
        parts = path.split("/")
        words.update(parts[:-1])
        words.add(posixpath.splitext(parts[-1])[0])
    # A Go module's root package is imported by the module path alone.
    for module, directory in table.go_modules.roots:
        if any(posixpath.dirname(p) == directory for p in paths):
            words.add(module.rpartition("/")[2])
    return frozenset(words)


def _may_name(ext: FileExtraction, words: frozenset[str]) -> bool:
    """Whether one of the file's imports mentions one of ``words``, or is relative to the
    file's own package with no module named (``from . import x`` binds what is there)."""
    for imp in ext.imports:
        module = imp.module or ""
        if not module.strip("./"):
            return True
        if imp.name in words or any(w in words for w in _WORDS.split(module)):
            return True
    return False


_WORDS = re.compile(r"[./:\\@]+")


def _bindings(modules: ModuleSystem, ext: FileExtraction) -> tuple:
    ctx = ImportContext()
    for imp in ext.imports:
        modules.bind(ext, imp, ctx)
    return ctx.names, ctx.stars, ctx.edges, ctx.unresolved
