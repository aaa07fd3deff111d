"""Cross-file resolution: raw references of every file's extraction become graph edges.

Language-agnostic. What differs between languages is how an import string names files (a
module system, picked by ``LanguageSpec.module_system``) and a few scope facts from the
language table; the order of resolution is the same for all of them:

1. local scope, then enclosing scopes (class bodies only where the language makes members
   visible unqualified),
2. ``self``/``this`` members, through the resolved class hierarchy,
3. explicit imports (aliases, relative imports, re-exports of a package),
4. star imports, includes, the same package,
5. a unique workspace-wide definition (confidence from the language table),
6. otherwise several candidates (``reason='candidate'``, confidence ``1/k``) or nothing.

Confidence 1.0 is kept for certain resolutions (scope, self, explicit import). Calls on an
object of unknown type (``obj.save()``) are matched by method name only: a unique method gets
``METHOD_NAME_CONFIDENCE`` (0.5), several get candidate edges, too many are left unresolved;
all of these fall below the default query threshold.
"""

from __future__ import annotations

import gc
import posixpath
import re
from collections import Counter, defaultdict
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterable

from graphsvc.model import (
    EXTERNAL_PREFIX,
    TYPE_KINDS,
    Prov,
    Reason,
    Rel,
    SymbolKind,
    external_module_id,
    external_symbol_id,
)
from indexers.extract import (
    RECEIVER_NAME,
    RECEIVER_NONE,
    RECEIVER_SELF,
    RECEIVER_SUPER,
    CallRef,
    FileExtraction,
    ImportRef,
)
from indexers.languages import LANGUAGES, LanguageSpec
from indexers.module_config import JsPaths
from indexers.records import EdgeRecord, SymbolRecord

METHOD_NAME_CONFIDENCE = 0.5
MAX_CANDIDATES = 8  # more same-named targets than this say nothing; leave the call unresolved
MAX_HIERARCHY = 12
MAX_REEXPORT_HOPS = 4

_TYPE_KINDS = frozenset(str(k) for k in TYPE_KINDS)
_CALLABLE_KINDS = frozenset({"function", "class", "struct"})
_LOCAL_REASONS = frozenset({Reason.SCOPE, Reason.SELF, Reason.SYNTAX})
# Definitions whose bodies are scopes for unqualified names.
_SCOPE_KINDS = frozenset({"function", "method", "module"})
_SUFFIX = re.compile(r"@\d+$")
_SPLIT = re.compile(r"\.|::|->")


def _base(qual: str) -> str:
    """``f@2.g@3`` -> ``f@2.g``: the lookup key of a possibly redefined name."""
    return _SUFFIX.sub("", qual) if "@" in qual else qual


# An entity a name can stand for while resolving.
#   ("mod", files)        a workspace module or package (one or more files)
#   ("sym", ids)          workspace symbols (several when redefined or overloaded)
#   ("ext", module, name) something outside the workspace; name None for the module itself
Entity = tuple


@dataclass(slots=True)
class ResolveStats:
    calls: int = 0
    by_reason: Counter = field(default_factory=Counter)  # resolved calls by reason
    candidate_calls: int = 0  # calls that became candidate edges
    external: int = 0
    builtin: int = 0
    unresolved: int = 0
    imports_internal: int = 0
    imports_external: int = 0
    imports_unresolved: int = 0

    def merge(self, other: ResolveStats) -> None:
        self.calls += other.calls
        self.by_reason.update(other.by_reason)
        self.candidate_calls += other.candidate_calls
        self.external += other.external
        self.builtin += other.builtin
        self.unresolved += other.unresolved
        self.imports_internal += other.imports_internal
        self.imports_external += other.imports_external
        self.imports_unresolved += other.imports_unresolved

    def as_dict(self) -> dict:
        return {
            "calls": self.calls,
            "resolved_by_reason": {str(k): v for k, v in sorted(self.by_reason.items())},
            "candidate_calls": self.candidate_calls,
            "external": self.external,
            "builtin": self.builtin,
            "unresolved": self.unresolved,
            "imports": {
                "internal": self.imports_internal,
                "external": self.imports_external,
                "unresolved": self.imports_unresolved,
            },
        }


@dataclass(slots=True)
class _ImportContext:
    names: dict[str, list[Entity]] = field(default_factory=dict)
    # star imports, includes, wildcards; with the names they are known to provide (None: any)
    stars: list[tuple[Entity, frozenset[str] | None]] = field(default_factory=list)
    edges: dict[str, tuple[str, int]] = field(default_factory=dict)  # target id -> (reason, line)
    unresolved: int = 0


def _tail(qual: str) -> str:
    """The last segment of a qualified name, without its redefinition suffix."""
    return _base(qual).rpartition(".")[2]


class SymbolTable:
    """Every file's symbols, indexed for resolution; add and remove files one at a time."""

    def __init__(self, exts: Iterable[FileExtraction] = ()):
        self.files: dict[str, FileExtraction] = {}
        self.symbols: dict[str, SymbolRecord] = {}
        self._quals: dict[str, dict[str, list[str]]] = {}  # file -> base qual -> ids
        # (module system, name group, name) -> ids; groups: _name_groups()
        self._by_name: dict[tuple[str, str, str], list[str]] = defaultdict(list)
        self._refs: dict[str, set[str]] = defaultdict(set)  # referenced name -> files
        self._dirs: dict[str, set[str]] = defaultdict(set)  # directory -> files
        self._members: dict[tuple[str, str], dict[str, list[str]]] = {}
        # (system, last segment of an owner's qualified name) -> {(scope key, owner)}: where
        # members of a type of that name are defined, for languages with members_anywhere.
        self._owners: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
        self.js_paths = JsPaths()  # import aliases of tsconfig/jsconfig files (set by the job)
        self._types: dict[tuple[str, str], list[str]] = defaultdict(list)  # (system, qual) -> type ids
        self._module_index: dict[str, _ModuleSystem] = {}
        self._dirty = True
        self._ctx_cache: dict[str, _ImportContext] = {}
        self._recursive = _RecursiveCache()  # base types and members found anywhere
        with _paused_gc():
            for ext in exts:
                self.add_file(ext)

    # -- maintenance -------------------------------------------------------------------

    def add_file(self, ext: FileExtraction) -> None:
        if ext.path in self.files:
            self.remove_file(ext.path)
        self.files[ext.path] = ext
        self._dirs[posixpath.dirname(ext.path)].add(ext.path)
        spec = LANGUAGES.get(ext.lang) if ext.lang else None
        system = spec.module_system if spec else ""
        quals: dict[str, list[str]] = {}
        scope_key = self._scope_key(ext.path, spec)
        symbols, by_name, members = self.symbols, self._by_name, self._members
        for sym in ext.symbols:
            sid, kind, qual = sym.id, sym.kind, sym.qualified_name
            symbols[sid] = sym
            base = _base(qual)
            if base in quals:
                quals[base].append(sid)
            else:
                quals[base] = [sid]
            for group in _name_groups(kind):
                by_name[(system, group, sym.name)].append(sid)
            if kind in _TYPE_KINDS or kind == "module":
                self._types[(system, base)].append(sid)
            if "." in qual and kind != "constant" and kind != "variable":
                key = (scope_key, qual.rpartition(".")[0])
                members.setdefault(key, {}).setdefault(sym.name, []).append(sid)
                if spec is not None and spec.members_anywhere:
                    self._owners[(system, _tail(key[1]))].add(key)
        self._quals[ext.path] = quals
        for name in _referenced_names(ext):
            self._refs[name].add(ext.path)
        self._touch()

    def remove_file(self, path: str) -> FileExtraction | None:
        ext = self.files.pop(path, None)
        if ext is None:
            return None
        self._dirs[posixpath.dirname(path)].discard(path)
        spec = LANGUAGES.get(ext.lang) if ext.lang else None
        system = spec.module_system if spec else ""
        for sym in ext.symbols:
            self.symbols.pop(sym.id, None)
            if sym.kind in _TYPE_KINDS or sym.kind == "module":
                _discard(self._types.get((system, _base(sym.qualified_name)), []), sym.id)
            for group in _name_groups(sym.kind):
                ids = self._by_name.get((system, group, sym.name))
                if ids is not None:
                    _discard(ids, sym.id)
                    if not ids:
                        del self._by_name[(system, group, sym.name)]
            owner = sym.qualified_name.rpartition(".")[0]
            if owner:
                key = (self._scope_key(path, spec), owner)
                members = self._members.get(key)
                if members is not None and sym.name in members:
                    _discard(members[sym.name], sym.id)
                    if not members[sym.name]:
                        del members[sym.name]
                    if not members:
                        self._owners.get((system, _tail(owner)), set()).discard(key)
        self._quals.pop(path, None)
        for name in _referenced_names(ext):
            files = self._refs.get(name)
            if files is not None:
                files.discard(path)
        self._touch()
        return ext

    def set_js_paths(self, js_paths: JsPaths) -> None:
        if js_paths != self.js_paths:
            self.js_paths = js_paths
            self._touch()

    def _touch(self) -> None:
        self._dirty = True
        self._ctx_cache.clear()
        self._recursive = _RecursiveCache()

    @staticmethod
    def _scope_key(path: str, spec: LanguageSpec | None) -> str:
        # Go methods and Java package members may live in another file of the same directory.
        return posixpath.dirname(path) + "/" if spec is not None and spec.directory_scope else path

    def modules(self, system: str) -> _ModuleSystem:
        if self._dirty:
            self._module_index = {name: cls(self) for name, cls in _MODULE_SYSTEMS.items()}
            self._dirty = False
        return self._module_index[system]

    # -- lookups -----------------------------------------------------------------------

    def defs_in(self, path: str, qual: str) -> list[str]:
        return self._quals.get(path, {}).get(qual, [])

    def by_name(self, system: str, group: str, name: str) -> list[str]:
        """Definitions named ``name`` in a group: "callable", "type" or "method"."""
        return self._by_name.get((system, group, name), [])

    def types_named(self, system: str, qual: str) -> list[str]:
        """Types and namespaces with this qualified name anywhere in the workspace."""
        return self._types.get((system, qual), [])

    def members_of(self, type_id: str) -> dict[str, list[str]]:
        """Members defined with the type (in its file, or its directory where that is the scope)."""
        sym = self.symbols.get(type_id)
        if sym is None:
            return {}
        spec = LANGUAGES.get(sym.lang)
        return self._members.get((self._scope_key(sym.file, spec), sym.qualified_name), {})

    def members_elsewhere(self, type_id: str) -> list[tuple[FileExtraction, str, dict[str, list[str]]]]:
        """(file, owner as written, members) of the members defined, in files other than the
        type's, for a type of the same name (languages with ``members_anywhere``)."""
        sym = self.symbols.get(type_id)
        spec = LANGUAGES.get(sym.lang) if sym is not None else None
        if spec is None or not spec.members_anywhere:
            return []
        own = (self._scope_key(sym.file, spec), sym.qualified_name)
        found = []
        for key in sorted(self._owners.get((spec.module_system, _tail(sym.qualified_name)), ())):
            ext, members = self.files.get(key[0]), self._members.get(key)
            if key != own and ext is not None and members:
                found.append((ext, key[1], members))
        return found

    def importers_of(self, path: str) -> set[str]:
        """Files whose imports resolve to ``path`` now. Only files naming the module (its stem
        or its directory, for packages) are examined."""
        stem = posixpath.splitext(posixpath.basename(path))[0]
        candidates = self.referencing_files(stem) | self.referencing_files(posixpath.basename(posixpath.dirname(path)))
        out = set()
        for f in candidates:
            ext = self.files.get(f)
            if ext is not None and ext.lang in LANGUAGES and f != path:
                if path in _Resolver(ext, self, ResolveStats()).context(f).edges:
                    out.add(f)
        return out

    def referencing_files(self, name: str) -> set[str]:
        return self._refs.get(name, set())

    def files_in_dir(self, directory: str) -> set[str]:
        return self._dirs.get(directory, set())


class _RecursiveCache:
    """Answers of lookups that may recurse into themselves (a type's bases, its members
    defined elsewhere), cached so that no answer depends on which lookup came first.

    A lookup met again while it is still being answered gets a provisional answer. What was
    computed from the provisional answer of an *enclosing* lookup is not cached: asked first,
    it would have seen the full answer. Files resolve alike whichever were resolved before.
    """

    __slots__ = ("values", "active", "lowest")

    def __init__(self):
        self.values: dict[tuple, object] = {}
        self.active: dict[tuple, tuple[int, object]] = {}  # key -> (depth, provisional answer)
        self.lowest: list[int] = []  # per open lookup: the lowest depth whose provisional answer it used

    def get(self, key: tuple, provisional, compute):
        value = self.values.get(key)
        if value is not None:
            return value
        active = self.active.get(key)
        if active is not None:
            depth, value = active
            if self.lowest:
                self.lowest[-1] = min(self.lowest[-1], depth)
            return value
        depth = len(self.lowest)
        self.active[key] = (depth, provisional)
        self.lowest.append(depth)
        try:
            value = compute()
        finally:
            lowest = self.lowest.pop()
            del self.active[key]
        if lowest >= depth:
            self.values[key] = value
        elif self.lowest:
            self.lowest[-1] = min(self.lowest[-1], lowest)
        return value


def _groups_of(kind: str) -> tuple[str, ...]:
    groups = []
    if kind in _CALLABLE_KINDS:
        groups.append("callable")
    if kind in _TYPE_KINDS:
        groups.append("type")
    if kind == "method":
        groups.append("method")
    return tuple(groups)


_GROUPS = {str(k): _groups_of(str(k)) for k in SymbolKind}


def _name_groups(kind: str) -> tuple[str, ...]:
    groups = _GROUPS.get(kind)
    return groups if groups is not None else _groups_of(kind)


@contextmanager
def _paused_gc():
    """Bulk building allocates hundreds of thousands of containers and no cycles; the
    cyclic collector would rescan the whole table again and again."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _discard(items: list, item) -> None:
    try:
        items.remove(item)
    except ValueError:
        pass


def _referenced_names(ext: FileExtraction) -> set[str]:
    names = {c.name for c in ext.calls}
    names.update(_SPLIT.split(r, 1)[0] for r in {c.receiver for c in ext.calls if c.receiver})
    for r in ext.inherits:
        names.add(_SPLIT.split(r.base)[-1])
        names.add(_SPLIT.split(r.subject)[-1])
    for imp in ext.imports:
        if imp.name:
            names.add(imp.name)
        if imp.module:
            names.add(_module_tail(imp.module))
    return names


def _module_tail(module: str) -> str:
    tail = re.split(r"[./:\\]+", module.strip("./"))[-1] if module.strip("./") else module
    return posixpath.splitext(tail)[0] if "/" in module or module.endswith((".h", ".hpp")) else tail


# -- module systems ----------------------------------------------------------------------


class _ModuleSystem:
    """How one family of languages maps import strings to workspace files."""

    system = ""

    def __init__(self, table: SymbolTable):
        self.table = table
        # Sorted: which of several same-named files comes first must not depend on the order
        # in which files entered the table (a clean run and an incremental one differ there).
        self.paths = sorted(p for p, e in table.files.items() if e.lang and LANGUAGES[e.lang].module_system == self.system)
        self.path_set = set(self.paths)

    def bind(self, ext: FileExtraction, imp: ImportRef, ctx: _ImportContext) -> None:
        raise NotImplementedError

    def submodule(self, files: tuple[str, ...], name: str) -> tuple[str, ...] | None:
        return None

    def implicit(self, importer: str, name: str) -> Entity | None:
        """A name visible in every file without an import (Rust ``crate``, ``super``, and
        modules declared with ``mod``)."""
        return None

    def place(self, importer: str) -> object:
        """Where the importer sits for ``implicit`` (Rust: its crate and module path)."""
        return None

    # helpers shared by the systems
    def _bind_module(self, ctx: _ImportContext, local: str | None, files: tuple[str, ...], line: int) -> None:
        for f in files:
            ctx.edges.setdefault(f, (Reason.IMPORT, line))
        if local:
            ctx.names.setdefault(local, []).append(("mod", files))

    def _bind_external(self, ctx: _ImportContext, local: str | None, module: str, name: str | None, line: int) -> None:
        ctx.edges.setdefault(external_module_id(module), (Reason.EXTERNAL, line))
        if local:
            ctx.names.setdefault(local, []).append(("ext", module, name))


class _PythonModules(_ModuleSystem):
    system = "python"

    def __init__(self, table: SymbolTable):
        super().__init__(table)
        self.index: dict[str, list[str]] = defaultdict(list)
        packages = {posixpath.dirname(p) for p in self.paths if posixpath.basename(p) in ("__init__.py", "__init__.pyi")}
        for p in sorted(self.paths, key=lambda p: p.endswith(".pyi")):  # .py before .pyi
            stem = posixpath.splitext(p)[0]
            parts = stem.split("/")
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if not parts:
                continue
            # The importable name starts below the topmost directory that is not a package.
            d = posixpath.dirname(p) if posixpath.basename(stem) != "__init__" else posixpath.dirname(posixpath.dirname(p))
            depth = 0
            while d and d in packages:
                depth += 1
                d = posixpath.dirname(d)
            names = {".".join(parts[-(depth + 1) :]), ".".join(parts)}
            for name in names:
                if p.endswith(".pyi") and self.index.get(name):
                    continue
                self.index[name].append(p)

    def _find(self, importer: str, module: str, level: int) -> tuple[str, ...]:
        if level:
            base = posixpath.dirname(importer)
            for _ in range(level - 1):
                base = posixpath.dirname(base)
            rel = module.replace(".", "/")
            stem = posixpath.join(base, rel) if rel else base
            for cand in (stem + ".py", stem + "/__init__.py", stem + ".pyi", stem + "/__init__.pyi"):
                if cand in self.path_set:
                    return (cand,)
            return ()
        found = self.index.get(module)
        if found:
            return tuple(found)
        # A script directory is on sys.path when the script runs: try next to the importer.
        stem = posixpath.join(posixpath.dirname(importer), module.replace(".", "/"))
        for cand in (stem + ".py", stem + "/__init__.py"):
            if cand in self.path_set:
                return (cand,)
        return ()

    def submodule(self, files: tuple[str, ...], name: str) -> tuple[str, ...] | None:
        for f in files:
            if posixpath.basename(f).startswith("__init__."):
                d = posixpath.dirname(f)
                for cand in (f"{d}/{name}.py", f"{d}/{name}/__init__.py", f"{d}/{name}.pyi"):
                    if cand in self.path_set:
                        return (cand,)
        return None

    def bind(self, ext: FileExtraction, imp: ImportRef, ctx: _ImportContext) -> None:
        if imp.name is None:  # import a.b.c [as x]
            files = self._find(ext.path, imp.module, 0)
            if not files:
                if imp.alias:
                    self._bind_external(ctx, imp.alias, imp.module, None, imp.line)
                    return
                # `import a.b` binds `a`; `a.b.f()` is then looked up as "a.b" first.
                self._bind_external(ctx, imp.module, imp.module, None, imp.line)
                top = imp.module.split(".")[0]
                if top != imp.module:
                    ctx.names.setdefault(top, []).append(("ext", top, None))
                return
            if imp.alias:
                self._bind_module(ctx, imp.alias, files, imp.line)
                return
            self._bind_module(ctx, None, files, imp.line)
            parts = imp.module.split(".")
            for i in range(1, len(parts) + 1):
                prefix = ".".join(parts[:i])
                pfiles = self._find(ext.path, prefix, 0) if i < len(parts) else files
                if pfiles:
                    ctx.names.setdefault(prefix, []).append(("mod", pfiles))
            return
        files = self._find(ext.path, imp.module, imp.level)
        if not files:
            if imp.level:
                ctx.unresolved += 1
                return
            self._bind_external(ctx, None if imp.name == "*" else imp.alias or imp.name, imp.module, None if imp.name == "*" else imp.name, imp.line)
            if imp.name == "*":
                ctx.stars.append((("ext", imp.module, None), None))
            return
        if imp.name == "*":
            self._bind_module(ctx, None, files, imp.line)
            ctx.stars.append((("mod", files), None))
            return
        local = imp.alias or imp.name
        sub = self.submodule(files, imp.name)
        if sub:
            self._bind_module(ctx, local, sub, imp.line)
            return
        for f in files:
            ctx.edges.setdefault(f, (Reason.IMPORT, imp.line))
        ctx.names.setdefault(local, []).append(("member", files, imp.name))


_JS_EXTS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".d.ts")


class _JsModules(_ModuleSystem):
    system = "js"

    def _find(self, importer: str, module: str) -> tuple[str, ...]:
        if module.startswith("."):
            return self._file(posixpath.normpath(posixpath.join(posixpath.dirname(importer), module)))
        # A bare name may be an alias of the project's tsconfig/jsconfig (`paths`, `baseUrl`).
        for stem in self.table.js_paths.candidates(importer, module):
            found = self._file(stem)
            if found:
                return found
        return ()

    def _file(self, stem: str) -> tuple[str, ...]:
        if stem in self.path_set:
            return (stem,)
        base = re.sub(r"\.(m|c)?js$", "", stem)  # TypeScript imports name the compiled .js file
        for cand in [base + e for e in _JS_EXTS] + [f"{stem}/index{e}" for e in _JS_EXTS]:
            if cand in self.path_set:
                return (cand,)
        return ()

    def bind(self, ext: FileExtraction, imp: ImportRef, ctx: _ImportContext) -> None:
        files = self._find(ext.path, imp.module)
        if not files:
            if imp.module.startswith("."):
                ctx.unresolved += 1
                return
            name = None if imp.name in (None, "*", "default") else imp.name
            self._bind_external(ctx, imp.alias or name, imp.module, name, imp.line)
            return
        if imp.name in (None, "*"):
            self._bind_module(ctx, imp.alias, files, imp.line)
            return
        for f in files:
            ctx.edges.setdefault(f, (Reason.IMPORT, imp.line))
        local = imp.alias or imp.name
        if imp.name == "default":
            # The default export's name is not in the import; the binding name usually is it.
            ctx.names.setdefault(local, []).append(("member", files, local))
        else:
            ctx.names.setdefault(local, []).append(("member", files, imp.name))


class _GoModules(_ModuleSystem):
    system = "go"

    def __init__(self, table: SymbolTable):
        super().__init__(table)
        self.dirs: dict[str, list[str]] = defaultdict(list)
        for p in self.paths:
            self.dirs[posixpath.dirname(p)].append(p)

    def _find(self, module: str) -> tuple[str, ...]:
        best = None
        for d in self.dirs:
            if d and (module == d or module.endswith("/" + d)) and (best is None or len(d) > len(best)):
                best = d
        if best is None:
            # The import path's tail below a module prefix: longest directory suffix match.
            parts = module.split("/")
            for i in range(1, len(parts)):
                tail = "/".join(parts[i:])
                if tail in self.dirs:
                    best = tail
                    break
        if best is None:
            return ()
        return tuple(sorted(p for p in self.dirs[best] if not p.endswith("_test.go")))

    def bind(self, ext: FileExtraction, imp: ImportRef, ctx: _ImportContext) -> None:
        if imp.alias in ("_",):
            return
        files = self._find(imp.module)
        if not files:
            self._bind_external(ctx, imp.alias or imp.module.rsplit("/", 1)[-1], imp.module, None, imp.line)
            return
        if imp.alias == ".":
            self._bind_module(ctx, None, files, imp.line)
            ctx.stars.append((("mod", files), None))
            return
        package = next((self.table.files[f].package for f in files if self.table.files[f].package), None)
        self._bind_module(ctx, imp.alias or package or imp.module.rsplit("/", 1)[-1], files, imp.line)


class _RustModules(_ModuleSystem):
    system = "rust"

    def __init__(self, table: SymbolTable):
        super().__init__(table)
        self.index: dict[tuple[str, str], str] = {}
        roots = sorted(
            {posixpath.dirname(p) for p in self.paths if posixpath.basename(p) in ("lib.rs", "main.rs")},
            key=len,
            reverse=True,
        )
        self.crate_of: dict[str, str] = {}
        for p in self.paths:
            root = next((r for r in roots if p == f"{r}/{posixpath.basename(p)}" or p.startswith(r + "/") or not r), None)
            if root is None:
                root = posixpath.dirname(p)
            self.crate_of[p] = root
            rel = p[len(root) + 1 :] if root else p
            stem = posixpath.splitext(rel)[0]
            parts = stem.split("/")
            if parts[-1] in ("mod", "lib", "main"):
                parts = parts[:-1]
            self.index[(root, "::".join(parts))] = p

    def module_path(self, path: str) -> list[str]:
        root = self.crate_of.get(path, "")
        rel = path[len(root) + 1 :] if root else path
        parts = posixpath.splitext(rel)[0].split("/")
        if parts[-1] in ("mod", "lib", "main"):
            parts = parts[:-1]
        return parts

    def resolve_path(self, importer: str, segments: list[str]) -> tuple[tuple[str, ...], list[str]] | None:
        """Longest module prefix of a ``use`` path -> (module files, remaining segments)."""
        root = self.crate_of.get(importer, "")
        segs = list(segments)
        if not segs:
            return None
        here = self.module_path(importer)
        if segs[0] == "crate":
            base: list[str] = []
            segs = segs[1:]
        elif segs[0] in ("self", "super"):
            base = list(here)
            while segs and segs[0] in ("self", "super"):
                if segs[0] == "super" and base:
                    base.pop()
                segs = segs[1:]
        else:
            # 2018 edition: a path starts at a crate or at a module declared next to us.
            base = list(here) if (root, "::".join(here + segs[:1])) in self.index else []
            if not base and (root, segs[0]) not in self.index:
                return None
        for i in range(len(segs), -1, -1):
            key = "::".join(base + segs[:i])
            p = self.index.get((root, key))
            if p is not None:
                return (p,), segs[i:]
        return None

    def bind(self, ext: FileExtraction, imp: ImportRef, ctx: _ImportContext) -> None:
        segments = [s for s in imp.module.split("::") if s] if imp.module else []
        if imp.name and imp.name not in ("*", "self"):
            segments.append(imp.name)
        local = imp.alias or (segments[-1] if segments else None)
        if imp.name == "self" and not imp.alias:
            local = segments[-1] if segments else None
        found = self.resolve_path(ext.path, segments)
        if found is None:
            if segments and segments[0] in ("crate", "self", "super"):
                ctx.unresolved += 1
                return
            module = "::".join(segments[:-1]) if imp.name and imp.name != "self" else "::".join(segments)
            name = segments[-1] if imp.name and imp.name not in ("*", "self") else None
            self._bind_external(ctx, None if imp.name == "*" else local, module or "::".join(segments), name, imp.line)
            return
        files, rest = found
        if imp.name == "*" and not rest:
            self._bind_module(ctx, None, files, imp.line)
            ctx.stars.append((("mod", files), None))
            return
        if not rest:
            self._bind_module(ctx, local, files, imp.line)
            return
        for f in files:
            ctx.edges.setdefault(f, (Reason.IMPORT, imp.line))
        entity: Entity = ("member", files, rest[0])
        if local:
            ctx.names.setdefault(local, []).append(entity if len(rest) == 1 else ("path", files, tuple(rest)))

    def implicit(self, importer: str, name: str) -> Entity | None:
        root = self.crate_of.get(importer, "")
        here = self.module_path(importer)
        if name == "crate":
            target = []
        elif name == "self":
            target = here
        elif name == "super":
            target = here[:-1]
        else:
            target = here + [name]
        p = self.index.get((root, "::".join(target)))
        return ("mod", (p,)) if p is not None else None

    def place(self, importer: str) -> object:
        return self.crate_of.get(importer, ""), tuple(self.module_path(importer))

    def submodule(self, files: tuple[str, ...], name: str) -> tuple[str, ...] | None:
        for f in files:
            root = self.crate_of.get(f, "")
            p = self.index.get((root, "::".join(self.module_path(f) + [name])))
            if p is not None:
                return (p,)
        return None


class _JavaModules(_ModuleSystem):
    system = "java"

    def __init__(self, table: SymbolTable):
        super().__init__(table)
        self.fqn: dict[str, str] = {}
        self.packages: dict[str, list[str]] = defaultdict(list)
        for p in self.paths:
            pkg = table.files[p].package or ""
            stem = posixpath.splitext(posixpath.basename(p))[0]
            self.fqn[f"{pkg}.{stem}" if pkg else stem] = p
            self.packages[pkg].append(p)

    def bind(self, ext: FileExtraction, imp: ImportRef, ctx: _ImportContext) -> None:
        module, name = imp.module, imp.name
        if name == "*":
            files = tuple(self.packages.get(module, ()))
            if files:
                self._bind_module(ctx, None, files, imp.line)
                ctx.stars.append((("mod", files), None))
                return
            p = self.fqn.get(module)  # import static a.B.*
            if p is not None:
                ctx.edges.setdefault(p, (Reason.IMPORT, imp.line))
                ctx.stars.append((("member", (p,), module.rsplit(".", 1)[-1]), None))
                return
            self._bind_external(ctx, None, module, None, imp.line)
            return
        full = f"{module}.{name}" if module else name
        p = self.fqn.get(full)
        if p is not None:  # import a.b.C
            ctx.edges.setdefault(p, (Reason.IMPORT, imp.line))
            ctx.names.setdefault(imp.alias or name, []).append(("member", (p,), name))
            return
        p = self.fqn.get(module)
        if p is not None:  # import static a.b.C.m
            ctx.edges.setdefault(p, (Reason.IMPORT, imp.line))
            ctx.names.setdefault(name, []).append(("path", (p,), (module.rsplit(".", 1)[-1], name)))
            return
        self._bind_external(ctx, name, module, name, imp.line)


class _IncludeModules(_ModuleSystem):
    system = "include"

    def __init__(self, table: SymbolTable):
        super().__init__(table)
        self.by_base: dict[str, list[str]] = defaultdict(list)
        self.by_stem: dict[str, list[str]] = defaultdict(list)
        self.sources_by_name: dict[str, list[str]] = defaultdict(list)
        for p in self.paths:
            self.by_base[posixpath.basename(p)].append(p)
            self.by_stem[posixpath.splitext(p)[0]].append(p)
            spec = LANGUAGES[table.files[p].lang]
            stem, ext = posixpath.splitext(posixpath.basename(p))
            if ext in spec.source_extensions:
                self.sources_by_name[stem].append(p)

    def _find(self, importer: str, module: str) -> tuple[str, ...]:
        cand = posixpath.normpath(posixpath.join(posixpath.dirname(importer), module))
        if cand in self.path_set:
            return (cand,)
        for p in self.paths:  # include paths: a path ending in the include string
            if p.endswith("/" + module) or p == module:
                return (p,)
        same = self.by_base.get(posixpath.basename(module), [])
        return (same[0],) if len(same) == 1 else ()

    def bind(self, ext: FileExtraction, imp: ImportRef, ctx: _ImportContext) -> None:
        files = self._find(ext.path, imp.module)
        if not files:
            self._bind_external(ctx, None, imp.module, None, imp.line)
            return
        self._bind_module(ctx, None, files, imp.line)
        ctx.stars.append((("mod", files), None))
        # A header's declarations are implemented in the source file with the same stem.
        impl = tuple(p for p in self.by_stem.get(posixpath.splitext(files[0])[0], []) if p != files[0] and p != ext.path)
        if not impl:  # include/x.h implemented by src/x.c: only when that name is unique
            same = self.sources_by_name.get(posixpath.splitext(posixpath.basename(files[0]))[0], [])
            impl = tuple(same) if len(same) == 1 and same[0] != ext.path else ()
        if impl:
            # Only what the header declares is visible through it.
            declared = frozenset(n for f in files for n in self.table.files[f].declared)
            ctx.stars.append((("mod", impl), declared))


_MODULE_SYSTEMS: dict[str, type[_ModuleSystem]] = {
    cls.system: cls for cls in (_PythonModules, _JsModules, _GoModules, _RustModules, _JavaModules, _IncludeModules)
}


# -- resolution ----------------------------------------------------------------------------


class _Resolver:
    def __init__(self, ext: FileExtraction, table: SymbolTable, stats: ResolveStats):
        self.ext = ext
        self.table = table
        self.stats = stats
        self.spec = LANGUAGES[ext.lang]
        self.system = self.spec.module_system
        self.edges: dict[tuple[str, str, str], list] = {}  # (src, dst, type) -> [prov, conf, reason, line, count]
        self._chains: dict[str, list] = {}
        self.prefix = ext.path + "#"
        self.quals = table._quals.get(ext.path, {})

    # edges
    def edge(self, src: str, dst: str, rel: str, prov: str, conf: float, reason: str, line: int | None) -> None:
        """Add an edge; repeats of (src, dst, type) are counted and keep the best confidence."""
        key = (src, dst, rel)
        old = self.edges.get(key)
        if old is None:
            self.edges[key] = [prov, conf, reason, line, 1]
            return
        old[4] += 1
        if conf > old[1]:
            old[0], old[1], old[2] = prov, conf, reason

    def records(self) -> list[EdgeRecord]:
        # Plain strings (not enum members) for the writer and for pickling across processes.
        return [
            EdgeRecord(src, dst, str(rel), str(prov), conf if conf == 1.0 else round(conf, 4), str(reason), line, n)
            for (src, dst, rel), (prov, conf, reason, line, n) in self.edges.items()
        ]

    def prov_for(self, dst: str, reason: str) -> str:
        if reason in _LOCAL_REASONS and dst.startswith(self.prefix):
            return Prov.EXTRACTED
        return Prov.INFERRED

    # entity helpers
    def context(self, path: str) -> _ImportContext:
        ctx = self.table._ctx_cache.get(path)
        if ctx is None:
            ext = self.table.files.get(path)
            ctx = _ImportContext()
            if ext is not None and ext.lang:
                modules = self.table.modules(LANGUAGES[ext.lang].module_system)
                for imp in ext.imports:
                    modules.bind(ext, imp, ctx)
            self.table._ctx_cache[path] = ctx
        return ctx

    def module_member(self, files: tuple[str, ...], name: str, hops: int = 0) -> Entity | None:
        ids = [i for f in files for i in self.table.defs_in(f, name)]
        if ids:
            return ("sym", tuple(ids))
        sub = self.table.modules(self.system).submodule(files, name)
        if sub:
            return ("mod", sub)
        if hops >= MAX_REEXPORT_HOPS:
            return None
        for f in files:  # re-exports: `from .impl import name` in a package's __init__
            bound = self.context(f).names.get(name)
            if bound:
                ent = self.realize(bound[0], hops + 1)
                if ent is not None:
                    return ent
        return None

    def realize(self, ent: Entity, hops: int = 0) -> Entity | None:
        kind = ent[0]
        if kind == "member":
            return self.module_member(ent[1], ent[2], hops)
        if kind == "path":
            cur: Entity | None = ("mod", ent[1])
            for seg in ent[2]:
                cur = self.member(cur, seg, hops) if cur is not None else None
            return cur
        return ent

    def member(self, ent: Entity, name: str, hops: int = 0) -> Entity | None:
        kind = ent[0]
        if kind == "mod":
            return self.module_member(ent[1], name, hops)
        if kind == "ext":
            module, sub = ent[1], ent[2]
            sep = "::" if "::" in module else "."
            return ("ext", f"{module}{sep}{sub}" if sub else module, name)
        if kind == "sym":
            ids = []
            for tid in ent[1]:
                sym = self.table.symbols.get(tid)
                if sym is None:
                    continue
                if sym.kind in _TYPE_KINDS:
                    ids.extend(self.find_in_hierarchy(tid, name, include_self=True))
                elif sym.kind == "module":
                    # Namespaces reopen across files: look in every one with this name.
                    for mid in self.table.types_named(self.system, _base(sym.qualified_name)) or [tid]:
                        ids.extend(self.table.members_of(mid).get(name, ()))
            return ("sym", tuple(dict.fromkeys(ids))) if ids else None
        return None

    def bases(self, type_id: str) -> list[tuple[str, str]]:
        """Resolved base types of a type: (base id, reason)."""
        return self.table._recursive.get(("bases", type_id), [], lambda: self._bases(type_id))

    def _bases(self, type_id: str) -> list[tuple[str, str]]:
        sym = self.table.symbols.get(type_id)
        out: list[tuple[str, str]] = []
        ext = self.table.files.get(sym.file) if sym else None
        if ext is not None:
            resolver = self if ext is self.ext else _Resolver(ext, self.table, ResolveStats())
            for ref in ext.inherits:
                if ref.type_id == type_id or (ref.type_id is None and ref.subject == sym.qualified_name):
                    found = resolver.resolve_type(ref.base, sym.qualified_name)
                    if found is not None and found[0][0] == "sym":
                        out.extend((b, found[1]) for b in found[0][1] if b != type_id)
        return out

    def find_in_hierarchy(self, type_id: str, name: str, include_self: bool) -> list[str]:
        seen = {type_id}
        frontier = [type_id] if include_self else [b for b, _ in self.bases(type_id)]
        for _ in range(MAX_HIERARCHY):
            found: list[str] = []
            nxt: list[str] = []
            for t in frontier:
                ids = self.members_of(t).get(name)
                if ids:
                    found.extend(ids)
                else:
                    for b, _ in self.bases(t):
                        if b not in seen:
                            seen.add(b)
                            nxt.append(b)
            if found:
                return found
            if not nxt:
                return []
            frontier = nxt
        return []

    def members_of(self, type_id: str) -> dict[str, list[str]]:
        """The type's members; where the language allows them anywhere (Rust `impl` blocks,
        C++ out-of-line definitions), also those of other files whose owner resolves to this
        type for certain (through scope or imports, not a guess by name)."""
        own = self.table.members_of(type_id)
        # While the owners below are resolved, a lookup of this type sees its own members.
        return self.table._recursive.get(("members", type_id), own, lambda: self._members_anywhere(type_id, own))

    def _members_anywhere(self, type_id: str, own: dict[str, list[str]]) -> dict[str, list[str]]:
        merged = own
        for ext, owner, members in self.table.members_elsewhere(type_id):
            resolver = self if ext is self.ext else _Resolver(ext, self.table, ResolveStats())
            target = resolver.resolve_type(owner, "")
            if target is None or target[0] != ("sym", (type_id,)) or target[2] < 1.0:
                continue
            if merged is own:
                merged = {name: list(ids) for name, ids in own.items()}
            for name, ids in members.items():
                have = merged.setdefault(name, [])
                have.extend(i for i in ids if i not in have)
        return merged

    def enclosing_type(self, qual: str) -> str | None:
        """The type (or Rust impl / Go receiver type) a qualified caller name belongs to."""
        parts = qual.split(".")
        for i in range(len(parts) - 1, 0, -1):
            owner = ".".join(parts[:i])
            for tid in self.quals.get(_base(owner), ()):
                if self.table.symbols[tid].kind in _TYPE_KINDS:
                    return tid
            if self.spec.directory_scope:
                for f in sorted(self.table.files_in_dir(posixpath.dirname(self.ext.path))):
                    for tid in self.table.defs_in(f, _base(owner)):
                        if self.table.symbols[tid].kind in _TYPE_KINDS:
                            return tid
            # A Rust impl or a method qualified by a type defined elsewhere.
            if i == len(parts) - 1:
                found = self.resolve_type(owner, "")
                if found is not None and found[0][0] == "sym" and len(found[0][1]) == 1:
                    return found[0][1][0]
                # `void geo::Circle::m()` in a .cpp, the class in a header: by full name.
                ids = [t for t in self.table.types_named(self.system, _base(owner)) if self.table.symbols[t].kind in _TYPE_KINDS]
                if len(ids) == 1:
                    return ids[0]
        return None

    def scope_chain(self, qual: str) -> list[tuple[str, bool, str | None, list[str]]]:
        """Enclosing scopes of ``qual``, innermost first, ending with the file's top level:
        (prefix, names-visible-inside, owner kind, owner ids)."""
        chain = self._chains.get(qual)
        if chain is None:
            chain = []
            parts = qual.split(".") if qual else []
            for i in range(len(parts), 0, -1):
                prefix = ".".join(parts[:i])
                owner_ids = self.quals.get(_base(prefix), ())
                owner_kind = self.table.symbols[owner_ids[0]].kind if owner_ids else None
                chain.append((prefix, owner_kind in _SCOPE_KINDS, owner_kind, owner_ids))
            chain.append(("", True, None, []))
            self._chains[qual] = chain
        return chain

    def lookup(self, name: str, qual: str) -> tuple[Entity, str, float] | None:
        """An unqualified name as seen from the scope ``qual`` of this file."""
        table = self.table
        path = self.ext.path
        spec = self.spec
        # 1. this scope and the enclosing ones
        for prefix, is_scope, owner_kind, owner_ids in self.scope_chain(qual):
            if not is_scope:
                # A type, or a scope without a definition here (impl block, receiver type,
                # out-of-line `A::m`): its members are visible only in some languages.
                if spec.members_visible:
                    ids = self.quals.get(f"{prefix}.{name}")
                    tid = owner_ids[0] if owner_kind in _TYPE_KINDS else self.enclosing_type(prefix + ".?")
                    if not ids and tid is not None:
                        ids = self.find_in_hierarchy(tid, name, include_self=True)
                    if ids:
                        return ("sym", tuple(ids)), Reason.SELF, 1.0
                continue
            key = f"{prefix}.{name}" if prefix else name
            ids = self.quals.get(key)
            if ids:
                bound = None if prefix else self.context(path).names.get(name)
                if not bound:
                    return ("sym", tuple(ids)), Reason.SCOPE, 1.0
                if all(table.symbols[i].kind in ("variable", "constant") for i in ids):
                    break  # `const util = require("./util")`: the import says more than the variable
                # Bound twice at top level (`try: from _c import f` / `except: def f()`):
                # either may be the one in effect.
                others = [e for e in (self.realize(b) for b in bound) if e is not None]
                targets = list(ids) + [i for e in others if e[0] == "sym" for i in e[1] if i not in ids]
                k = len(targets) + sum(1 for e in others if e[0] != "sym")
                return ("sym", tuple(targets)), Reason.CANDIDATE, 1.0 / k
        # 2. explicit imports
        ctx = self.context(path)
        bound = ctx.names.get(name)
        if bound:
            ents = [e for e in (self.realize(b) for b in bound) if e is not None]
            if ents:
                return _merge(ents), Reason.IMPORT, 1.0
            return ("unresolved",), Reason.IMPORT, 0.0
        # 3. star imports, includes, wildcard imports
        found: list[Entity] = []
        for star, provides in ctx.stars:
            if provides is not None and name not in provides:
                continue
            ent = self.realize(star)
            if ent is None:
                continue
            if ent[0] == "ext":
                continue
            m = self.member(ent, name)
            if m is not None and m[0] != "mod":
                found.append(m)
        if found:
            return _merge(found), Reason.IMPORT, 1.0
        implicit = table.modules(self.system).implicit(path, name)
        if implicit is not None:
            return implicit, Reason.IMPORT, 1.0
        # 4. the same package
        if spec.directory_scope:
            ids = [
                i
                for f in sorted(table.files_in_dir(posixpath.dirname(path)))
                if f != path and table.files[f].lang == self.ext.lang
                for i in table.defs_in(f, name)
            ]
            if ids:
                return ("sym", tuple(ids)), Reason.SCOPE, 1.0
        return None

    def resolve_type(self, written: str, qual: str) -> tuple[Entity, str, float] | None:
        """A type name as written in a base list or receiver: ``Base``, ``mod.Base``, ``a::B``."""
        segs = [s for s in _SPLIT.split(written) if s]
        if not segs:
            return None
        head = self.lookup(segs[0], qual)
        if head is None or head[0][0] == "unresolved":
            if len(segs) == 1:
                head = self.unique(segs[0], "type")
            if head is None:
                return None
        ent, reason, conf = head
        for seg in segs[1:]:
            ent = self.member(ent, seg)
            if ent is None:
                return None
        return ent, reason, conf

    def unique(self, name: str, group: str) -> tuple[Entity, str, float] | None:
        ids = self.table.by_name(self.system, group, name)
        if not ids:
            return None
        if len(ids) == 1:
            return ("sym", tuple(ids)), Reason.UNIQUE_NAME, self.spec.unique_name_confidence
        if len(ids) > MAX_CANDIDATES:
            return None
        return ("sym", tuple(ids)), Reason.CANDIDATE, 1.0 / len(ids)

    # the three kinds of references
    def calls(self) -> None:
        stats = self.stats
        memo: dict[tuple, object] = {}
        # Names defined below the top level of this file are the only ones whose meaning
        # depends on where the call is; every other call can share one answer per file.
        nested = {s.name for s in self.ext.symbols if "." in s.qualified_name}
        members_visible = self.spec.members_visible
        for call in self.ext.calls:
            stats.calls += 1
            rkind = call.receiver_kind
            if rkind == RECEIVER_SELF or rkind == RECEIVER_SUPER:
                key = (call.caller.rpartition(".")[0], call.name, rkind, None, False)
            else:
                head = call.name if call.receiver is None else _SPLIT.split(call.receiver, 1)[0]
                if members_visible or head in nested or (call.receiver is not None and call.name in nested):
                    key = (call.caller, call.name, rkind, call.receiver, call.local, call.receiver_type)
                else:
                    # A receiver's type is looked up from the caller's scope.
                    key = (call.caller if call.receiver_type else "", call.name, rkind, call.receiver, call.local,
                           call.receiver_type)
            result = memo.get(key, memo)
            if result is memo:
                result = memo[key] = self.resolve_call(call)
            if result is None:
                stats.unresolved += 1
                continue
            if result == "builtin":
                stats.builtin += 1
                continue
            ent, reason, conf = result
            if ent[0] == "ext":
                module, name = ent[1], ent[2]
                dst = external_symbol_id(module, name) if name else None
                if dst is None:
                    stats.unresolved += 1
                    continue
                stats.external += 1
                self.edge(call.caller, dst, Rel.CALLS, Prov.INFERRED, 1.0, Reason.EXTERNAL, call.line)
                continue
            if ent[0] != "sym":
                stats.unresolved += 1
                continue
            ids = list(ent[1])
            if len(ids) > 1:
                if len(ids) > MAX_CANDIDATES:
                    stats.unresolved += 1
                    continue
                stats.candidate_calls += 1
                stats.by_reason[Reason.CANDIDATE] += 1
                each = conf if reason == Reason.CANDIDATE else conf / len(ids)  # candidates are already split
                for dst in ids:
                    self.edge(call.caller, dst, Rel.CALLS, Prov.INFERRED, each, Reason.CANDIDATE, call.line)
                continue
            stats.by_reason[reason] += 1
            self.edge(call.caller, ids[0], Rel.CALLS, self.prov_for(ids[0], reason), conf, reason, call.line)

    def resolve_call(self, call: CallRef):
        qual = call.caller.partition("#")[2]
        name = call.name
        kind = call.receiver_kind
        if kind == RECEIVER_NONE and call.local:
            # A parameter or local variable; only a nested definition of that name can be meant.
            for prefix, is_scope, _, _ in self.scope_chain(qual):
                if prefix and is_scope:
                    ids = self.quals.get(f"{prefix}.{name}")
                    if ids:
                        return ("sym", tuple(ids)), Reason.SCOPE, 1.0
            return None
        if kind == RECEIVER_NONE:
            found = self.lookup(name, qual)
            if found is not None:
                return None if found[0][0] == "unresolved" else found
            if name in self.spec.builtins:
                return "builtin"
            return self.unique(name, "callable")
        if kind in (RECEIVER_SELF, RECEIVER_SUPER):
            owner = qual.rpartition(".")[0]
            if kind == RECEIVER_SELF and owner:
                # A sibling member defined next to the caller (out-of-line C++, Go, Rust impls).
                ids = self.quals.get(f"{owner}.{name}")
                if ids and self.table.symbols[ids[0]].kind == "method":
                    return ("sym", tuple(ids)), Reason.SELF, 1.0
            tid = self.enclosing_type(qual)
            if tid is None:
                return None
            ids = self.find_in_hierarchy(tid, name, include_self=kind == RECEIVER_SELF)
            if ids:
                return ("sym", tuple(ids)), Reason.SELF, 1.0
            return None
        if kind == RECEIVER_NAME and call.local and call.receiver_type:
            # `p = Parser(...)` then `p.parse()`: a method of that class or its bases.
            bound = self.resolve_receiver(call.receiver_type, qual)
            if bound is not None and bound[0][0] == "sym":
                types = [i for i in bound[0][1] if self.table.symbols[i].kind in _TYPE_KINDS]
                if len(types) == 1 and len(bound[0][1]) == 1:
                    ids = self.find_in_hierarchy(types[0], name, include_self=True)
                    if ids:
                        return ("sym", tuple(ids)), Reason.SCOPE, bound[2]
        if kind == RECEIVER_NAME and call.receiver and not call.local:
            target = self.resolve_receiver(call.receiver, qual)
            if target is not None:
                ent, reason, conf = target
                if ent[0] == "unresolved":
                    return None
                m = self.member(ent, name)
                if m is not None and m[0] in ("sym", "ext"):
                    return m, (Reason.EXTERNAL if m[0] == "ext" else reason), conf
                if ent[0] in ("mod", "ext"):
                    return None  # a module we know that lacks the name: do not guess
                if ent[0] == "sym" and all(
                    self.table.symbols[i].kind in _TYPE_KINDS or self.table.symbols[i].kind == "module"
                    for i in ent[1]
                    if i in self.table.symbols
                ):
                    return None  # a known type or namespace without that member: do not guess
        # An object of unknown type: match the method name alone, weakly.
        ids = self.table.by_name(self.system, "method", name)
        if not ids or len(ids) > MAX_CANDIDATES:
            return None
        if len(ids) == 1:
            return ("sym", tuple(ids)), Reason.UNIQUE_NAME, METHOD_NAME_CONFIDENCE
        return ("sym", tuple(ids)), Reason.CANDIDATE, 1.0 / len(ids)

    def resolve_receiver(self, receiver: str, qual: str):
        ctx = self.context(self.ext.path)
        segs = [s for s in _SPLIT.split(receiver) if s]
        # The longest dotted prefix bound by an import (`import a.b.c` binds "a.b.c").
        for i in range(len(segs), 0, -1):
            key = ".".join(segs[:i])
            if i > 1 and key not in ctx.names:
                continue
            if i == 1:
                head = self.lookup(key, qual)
            else:
                ents = [e for e in (self.realize(b) for b in ctx.names[key]) if e is not None]
                head = (_merge(ents) if ents else ("unresolved",)), Reason.IMPORT, 1.0
            if head is None:
                if i == 1 and segs[0][:1].isupper():
                    head = self.unique(segs[0], "type")
                if head is None:
                    return None
            ent, reason, conf = head
            if ent[0] == "unresolved":
                return head
            for seg in segs[i:]:
                nxt = self.member(ent, seg)
                if nxt is None:
                    return None if ent[0] == "sym" else (("unresolved",), reason, conf)
                ent = nxt
            return ent, reason, conf
        return None

    def contains(self) -> None:
        for sym in self.ext.symbols:
            self.edge(sym.parent, sym.id, Rel.CONTAINS, Prov.EXTRACTED, 1.0, Reason.SYNTAX, sym.start_line)

    def imports(self) -> None:
        ctx = self.context(self.ext.path)
        for dst, (reason, line) in ctx.edges.items():
            if dst == self.ext.path:
                continue
            if reason == Reason.EXTERNAL:
                self.stats.imports_external += 1
            else:
                self.stats.imports_internal += 1
            self.edge(self.ext.path, dst, Rel.IMPORTS, Prov.EXTRACTED, 1.0, reason, line)
        self.stats.imports_unresolved += ctx.unresolved

    def inherits(self) -> None:
        for ref in self.ext.inherits:
            rel = Rel.IMPLEMENTS if ref.kind == "implements" else Rel.INHERITS
            src = ref.type_id
            if src is None:
                found = self.resolve_type(ref.subject, "")
                if found is None or found[0][0] != "sym" or len(found[0][1]) != 1:
                    continue
                src = found[0][1][0]
            found = self.resolve_type(ref.base, ref.subject)
            if found is None:
                continue
            ent, reason, conf = found
            if ent[0] == "ext":
                dst = external_symbol_id(ent[1], ent[2]) if ent[2] else external_module_id(ent[1])
                self.edge(src, dst, rel, Prov.INFERRED, 1.0, Reason.EXTERNAL, ref.line)
                continue
            if ent[0] != "sym":
                continue
            ids = [i for i in ent[1] if i != src]
            if not ids:
                continue
            if len(ids) > 1:
                for dst in ids:
                    self.edge(src, dst, rel, Prov.INFERRED, 1.0 / len(ids), Reason.CANDIDATE, ref.line)
                continue
            if reason == Reason.SCOPE and ids[0].startswith(self.ext.path + "#"):
                self.edge(src, ids[0], rel, Prov.EXTRACTED, 1.0, Reason.SYNTAX, ref.line)
            else:
                self.edge(src, ids[0], rel, Prov.INFERRED, conf, reason, ref.line)


def _merge(ents: list[Entity]) -> Entity:
    if len(ents) == 1:
        return ents[0]
    syms = [i for e in ents if e[0] == "sym" for i in e[1]]
    if syms:
        return ("sym", tuple(dict.fromkeys(syms)))
    return ents[-1]


def resolve_file(ext: FileExtraction, table: SymbolTable, stats: ResolveStats | None = None) -> list[EdgeRecord]:
    """Edges going out of one file: CONTAINS, IMPORTS, INHERITS/IMPLEMENTS, CALLS.

    The table must hold every file of the workspace (including this one). External targets
    are ``ext:`` ids; ``external_nodes(edges)`` gives the nodes to create for them.
    """
    if ext.lang is None or ext.lang not in LANGUAGES:
        return []
    r = _Resolver(ext, table, stats if stats is not None else ResolveStats())
    r.contains()
    r.imports()
    r.inherits()
    r.calls()
    return r.records()


def resolve_all(table: SymbolTable, paths: Iterable[str] | None = None) -> tuple[list[EdgeRecord], ResolveStats]:
    """Resolve every file of the table (or the given paths); edges plus summed statistics."""
    stats = ResolveStats()
    edges: list[EdgeRecord] = []
    with _paused_gc():
        for path in sorted(paths if paths is not None else table.files):
            ext = table.files.get(path)
            if ext is not None:
                edges.extend(resolve_file(ext, table, stats))
    return edges, stats


def external_nodes(edges: Iterable[EdgeRecord]) -> list[SymbolRecord]:
    """The ``ext:`` nodes the edges point at, to be merged by the writer."""
    out: dict[str, SymbolRecord] = {}
    for e in edges:
        dst = e.dst
        if not dst.startswith(EXTERNAL_PREFIX) or dst in out:
            continue
        body = dst[len(EXTERNAL_PREFIX) :]
        module, _, name = body.partition("#")
        if name:
            out[dst] = SymbolRecord(
                id=dst, name=name.rsplit(".", 1)[-1], qualified_name=f"{module}.{name}",
                kind=SymbolKind.EXTERNAL_SYMBOL, file="", parent=external_module_id(module),
                start_line=0, end_line=0, lang="",
            )
            mid = external_module_id(module)
            if mid not in out:
                out[mid] = _external_module(module)
        else:
            out[dst] = _external_module(module)
    return list(out.values())


def _external_module(module: str) -> SymbolRecord:
    return SymbolRecord(
        id=external_module_id(module), name=module, qualified_name=module,
        kind=SymbolKind.EXTERNAL_MODULE, file="", parent="", start_line=0, end_line=0, lang="",
    )


# Files that stand for their directory when imported.
_PACKAGE_FILES = frozenset({"__init__", "mod", "lib", "main", "index"})


def _import_keys(ext: FileExtraction) -> set[tuple]:
    return {(i.module, i.name, i.alias, i.level) for i in ext.imports}


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
    exts = [*table.files.values(), *old_exts.values()]
    for ext in exts:
        for ref in ext.inherits:
            if ref.type_id is None:
                relating[_tail(ref.subject)].add(ext.path)
    if not relating:
        return {p for p in seeds if p in table.files}
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
                subjects[ext.path].add(_tail(ref.subject))
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
        names.update(n for n, _, _ in old_defs ^ new_defs)
        old_bases = {(r.subject, r.base) for r in old.inherits} if old else set()
        new_bases = {(r.subject, r.base) for r in new.inherits} if new else set()
        names.update(_SPLIT.split(s)[-1] for s, _ in old_bases ^ new_bases)
        if (old is None) != (new is None):
            # Created or deleted: whoever names the module (its stem, or its directory for
            # packages) may now import something else.
            stem = posixpath.splitext(posixpath.basename(path))[0]
            names.add(stem)
            ext = old or new
            spec = LANGUAGES.get(ext.lang) if ext.lang else None
            if stem in _PACKAGE_FILES or (spec is not None and spec.directory_scope):
                names.add(posixpath.basename(posixpath.dirname(path)))
        elif old is not None and new is not None and _import_keys(old) != _import_keys(new):
            # What this file re-exports may have changed for files importing it.
            affected |= table.importers_of(path)
    for name in names:
        affected |= table.referencing_files(name)
    affected |= _rebound_files(changed, old_exts, new_exts, table)
    return {p for p in affected if p in table.files}


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
    before_view = _Files(before, table.js_paths)
    out = set()
    for system in sorted(systems):
        now, then = table.modules(system), _MODULE_SYSTEMS[system](before_view)
        for path in now.paths:
            if path in changed:
                continue
            ext = table.files[path]
            if now.place(path) != then.place(path) or _bindings(now, ext) != _bindings(then, ext):
                out.add(path)
    return out


@dataclass(slots=True)
class _Files:
    """The files a module system reads: a table's, or what it held before a change."""

    files: dict[str, FileExtraction]
    js_paths: JsPaths


def _bindings(modules: _ModuleSystem, ext: FileExtraction) -> tuple:
    ctx = _ImportContext()
    for imp in ext.imports:
        modules.bind(ext, imp, ctx)
    return ctx.names, ctx.stars, ctx.edges, ctx.unresolved
