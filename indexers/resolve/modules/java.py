"""Java: packages, single-type, on-demand and static imports, fully qualified names."""

from __future__ import annotations

import posixpath
from collections import defaultdict

from graphsvc.model import Reason
from indexers.extract import FileExtraction, ImportRef
from indexers.resolve.common import Entity, ImportContext
from indexers.resolve.modules.base import Files, ModuleSystem


class JavaModules(ModuleSystem):
    system = "java"

    def __init__(self, table: Files):
        super().__init__(table)
        self.fqn: dict[str, str] = {}
        self.packages: dict[str, list[str]] = defaultdict(list)
        for p in self.paths:
            pkg = table.files[p].package or ""
            stem = posixpath.splitext(posixpath.basename(p))[0]
            self.fqn[f"{pkg}.{stem}" if pkg else stem] = p
            self.packages[pkg].append(p)
        # every package and every package above one: `a.b.C.m()` is written from the first
        self.prefixes = {".".join(parts[:i]) for pkg in self.packages if pkg
                         for parts in [pkg.split(".")] for i in range(1, len(parts) + 1)}

    def _package(self, name: str) -> tuple[str, ...] | None:
        """A package as a module: its files, or ``"a.b."`` when it has none (only packages below)."""
        if name not in self.prefixes:
            return None
        return tuple(self.packages[name]) if name in self.packages else (name + ".",)

    def implicit(self, importer: str, name: str) -> Entity | None:
        found = self._package(name)  # the first name of a fully qualified one
        return ("mod", found) if found else None

    def submodule(self, files: tuple[str, ...], name: str) -> tuple[str, ...] | None:
        f = files[0]
        package = f[:-1] if f.endswith(".") else self.table.files[f].package if f in self.table.files else None
        return self._package(f"{package}.{name}") if package else None

    def _in_class(self, dotted: str) -> tuple[str, tuple[str, ...]] | None:
        """The file of the longest class prefix of a dotted name and the path from that class:
        ``a.b.D.Inner.k`` -> (``a/b/D.java``, ("D", "Inner", "k"))."""
        parts = dotted.split(".")
        for i in range(len(parts), 0, -1):
            p = self.fqn.get(".".join(parts[:i]))
            if p is not None:
                return p, tuple(parts[i - 1 :])
        return None

    def bind(self, ext: FileExtraction, imp: ImportRef, ctx: ImportContext) -> None:
        module, name = imp.module, imp.name
        if name == "*":
            files = tuple(self.packages.get(module, ()))
            if files:
                self._bind_module(ctx, None, files, imp.line)
                ctx.stars.append((("mod", files), None))
                return
        found = self._in_class(module if name == "*" else f"{module}.{name}" if module else name)
        if found is None:
            self._bind_external(ctx, None if name == "*" else name, module, None if name == "*" else name, imp.line)
            return
        # import a.b.C, import a.b.C.Inner, import static a.b.C.m, import static a.b.C.*
        p, path = found
        ctx.edges.setdefault(p, (Reason.IMPORT, imp.line))
        entity = ("member", (p,), path[0]) if len(path) == 1 else ("path", (p,), path)
        if name == "*":
            ctx.stars.append((entity, None))
        else:
            ctx.names.setdefault(imp.alias or name, []).append(entity)
