"""Python: packages, relative imports, and a script's directory on ``sys.path``."""

from __future__ import annotations

import posixpath
from collections import defaultdict

from graphsvc.model import Reason
from indexers.extract import FileExtraction, ImportRef
from indexers.resolve.common import ImportContext
from indexers.resolve.modules.base import Files, ModuleSystem


class PythonModules(ModuleSystem):
    system = "python"

    def __init__(self, table: Files):
        super().__init__(table)
        (self.init,) = self.package_files  # __init__
        init = self.init
        self.index: dict[str, list[str]] = defaultdict(list)
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
            init = self.init
            for cand in (f"{stem}.py", f"{stem}/{init}.py", f"{stem}.pyi", f"{stem}/{init}.pyi"):
                if cand in self.path_set:
                    return (cand,)
            return ()
        found = self.index.get(module)
        if found:
            return tuple(found)
        # A script directory is on sys.path when the script runs: try next to the importer.
        stem = posixpath.join(posixpath.dirname(importer), module.replace(".", "/"))
        for cand in (f"{stem}.py", f"{stem}/{self.init}.py"):
            if cand in self.path_set:
                return (cand,)
        return ()

    def submodule(self, files: tuple[str, ...], name: str) -> tuple[str, ...] | None:
        for f in files:
            if posixpath.basename(f).startswith(f"{self.init}."):
                d = posixpath.dirname(f)
                for cand in (f"{d}/{name}.py", f"{d}/{name}/{self.init}.py", f"{d}/{name}.pyi"):
                    if cand in self.path_set:
                        return (cand,)
        return None

    def _defines(self, files: tuple[str, ...], name: str) -> bool:
        """Whether a module defines ``name`` at its top level: ``from pkg import name`` then
        gets that definition, not the submodule ``pkg/name.py`` (Python looks the attribute
        up on the package first)."""
        return any(s.qualified_name == name for f in files if f in self.table.files
                   for s in self.table.files[f].symbols)

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
            ctx.stars.append((("mod", files), None))
            return
        local = imp.alias or imp.name
        sub = None if self._defines(files, imp.name) else self.submodule(files, imp.name)
        if sub:
            self._bind_module(ctx, local, sub, imp.line)
            return
        for f in files:
            ctx.edges.setdefault(f, (Reason.IMPORT, imp.line))
        ctx.names.setdefault(local, []).append(("member", files, imp.name))
