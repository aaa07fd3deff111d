"""Python: packages, namespace packages (PEP 420), relative imports, ``__all__``, and the
importer's directories on ``sys.path``."""

from __future__ import annotations

import posixpath
from collections import defaultdict

from graphsvc.model import Reason
from indexers.extract import FileExtraction, ImportRef
from indexers.resolve.common import Entity, ImportContext
from indexers.resolve.modules.base import Files, ModuleSystem

_TEST_DIRS = frozenset({"test", "tests", "testing"})


class PythonModules(ModuleSystem):
    """A module is a file, a package (its ``__init__`` file) or a namespace package: a directory
    with Python files below it and no ``__init__``, written ``"dir/"`` since no file stands
    for it (its names are its submodules)."""

    system = "python"
    star_reexports = True

    def __init__(self, table: Files):
        super().__init__(table)
        self._top_names: dict[str, frozenset[str]] = {}  # file -> `_top_level`
        (self.init,) = self.package_files  # __init__
        init = self.init
        self.index: dict[str, list[str]] = defaultdict(list)
        # file -> the directory its importable name starts below, when that is in a test tree
        self.test_roots: dict[str, str] = {}
        packages = {posixpath.dirname(p) for p in self.paths if posixpath.basename(p) in (f"{init}.py", f"{init}.pyi")}
        for p in sorted(self.paths, key=lambda p: p.endswith(".pyi")):  # .py before .pyi
            stem = posixpath.splitext(p)[0]
            parts = stem.split("/")
            if parts[-1] == init:
                parts = parts[:-1]
            if not parts:
                continue
            # The importable name starts below the topmost directory that is not a package.
            d = posixpath.dirname(p) if posixpath.basename(stem) != init else posixpath.dirname(posixpath.dirname(p))
            depth = 0
            while d and d in packages:
                depth += 1
                d = posixpath.dirname(d)
            if _TEST_DIRS.intersection(d.split("/")):
                self.test_roots[p] = d
            names = {".".join(parts[-(depth + 1) :]), ".".join(parts)}
            for name in names:
                if p.endswith(".pyi") and self.index.get(name):
                    continue
                self.index[name].append(p)
        below: set[str] = set()  # directories with Python files below them
        for p in self.paths:
            d = posixpath.dirname(p)
            while d and d not in below:
                below.add(d)
                d = posixpath.dirname(d)
        self.namespaces = below - packages
        self.packages = packages

    def _at(self, stem: str) -> tuple[str, ...]:
        """The module a path names: a file, a package, or a namespace package."""
        init = self.init
        for cand in (f"{stem}.py", f"{stem}/{init}.py", f"{stem}.pyi", f"{stem}/{init}.pyi"):
            if cand in self.path_set:
                return (cand,)
        return (stem + "/",) if stem in self.namespaces else ()

    def _find(self, importer: str, module: str, level: int) -> tuple[str, ...]:
        if level:
            base = posixpath.dirname(importer)
            for _ in range(level - 1):
                base = posixpath.dirname(base)
            rel = module.replace(".", "/")
            return self._at(posixpath.join(base, rel) if rel else base)
        found = self.index.get(module)
        if found:
            # A test tree is on sys.path for its own files only: its `util` or `sphinx` is not
            # the one code elsewhere imports.
            here = posixpath.dirname(importer) + "/"
            found = [f for f in found if f not in self.test_roots or here.startswith(self.test_roots[f] + "/")]
            if found:
                return tuple(found)
        # Not a name below a regular package: a namespace package or a module next to the
        # importer, as seen from its directory or one above it that is not a package, all of
        # which may be on sys.path when it runs (a script's directory, the project root,
        # ``src``); nearest first. A package's own directory is not on it: `import json` in
        # `flask/config.py` is the standard library's, not `flask/json/`.
        rel = module.replace(".", "/")
        d = posixpath.dirname(importer)
        while True:
            if d not in self.packages:
                found = self._at(posixpath.join(d, rel) if d else rel)
                if found:
                    return found
            if not d:
                return ()
            d = posixpath.dirname(d)

    def submodule(self, files: tuple[str, ...], name: str) -> tuple[str, ...] | None:
        for f in files:
            if f.endswith("/"):
                d = f[:-1]
            elif posixpath.basename(f).startswith(f"{self.init}."):
                d = posixpath.dirname(f)
            else:
                continue
            found = self._at(f"{d}/{name}" if d else name)
            if found:
                return found
        return None

    def outside(self, files: tuple[str, ...], name: str) -> Entity | None:
        if not all(f.endswith("/") for f in files):
            return None
        # A namespace package spans directories (google/cloud/ of several distributions):
        # what it lacks here is outside. Its name starts below the directories that are not
        # namespace packages.
        parts = files[0][:-1].split("/")
        top = len(parts) - 1
        while top > 0 and "/".join(parts[:top]) in self.namespaces:
            top -= 1
        return ("ext", ".".join(parts[top:]), name)

    def _exported(self, files: tuple[str, ...]) -> frozenset[str] | None:
        """The names ``from module import *`` gives when the module lists them in ``__all__``."""
        names = [n for f in files if f in self.table.files for n in self.table.files[f].declared]
        # `__all__ = a.__all__ + [...]`, `__all__.extend(...)`: not known
        return frozenset(names) if names and all(n.isidentifier() for n in names) else None

    def _defines(self, files: tuple[str, ...], name: str) -> bool:
        """Whether a module defines ``name`` at its top level: ``from pkg import name`` then
        gets that definition, not the submodule ``pkg/name.py`` (Python looks the attribute
        up on the package first)."""
        if "." in name:
            return any(s.qualified_name == name for f in files if f in self.table.files
                       for s in self.table.files[f].symbols)
        return any(name in self._top_level(f) for f in files if f in self.table.files)

    def _top_level(self, path: str) -> frozenset[str]:
        """The names a file defines at its top level (asked for every ``from`` import of it)."""
        found = self._top_names.get(path)
        if found is None:
            found = self._top_names[path] = frozenset(
                s.qualified_name for s in self.table.files[path].symbols if "." not in s.qualified_name)
        return found

    def forget_contents(self) -> None:
        self._top_names.clear()

    def bind(self, ext: FileExtraction, imp: ImportRef, ctx: ImportContext) -> None:
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
            ctx.stars.append((("mod", files), self._exported(files)))
            return
        local = imp.alias or imp.name
        sub = None if self._defines(files, imp.name) else self.submodule(files, imp.name)
        if sub:
            self._bind_module(ctx, local, sub, imp.line)
            return
        if not imp.level and all(f.endswith("/") for f in files):
            # A namespace package spans directories: what it lacks here is elsewhere.
            self._bind_external(ctx, local, imp.module, imp.name, imp.line)
            return
        for f in files:
            ctx.edges.setdefault(f, (Reason.IMPORT, imp.line))
        ctx.names.setdefault(local, []).append(("member", files, imp.name))
