"""Java: packages, single-type, on-demand and static imports."""

from __future__ import annotations

import posixpath
from collections import defaultdict

from graphsvc.model import Reason
from indexers.extract import FileExtraction, ImportRef
from indexers.resolve.common import ImportContext
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

    def bind(self, ext: FileExtraction, imp: ImportRef, ctx: ImportContext) -> None:
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
