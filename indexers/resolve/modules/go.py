"""Go: an import path names a directory; its package name is bound."""

from __future__ import annotations

import posixpath
from collections import defaultdict

from indexers.extract import FileExtraction, ImportRef
from indexers.resolve.common import ImportContext
from indexers.resolve.modules.base import Files, ModuleSystem


class GoModules(ModuleSystem):
    system = "go"

    def __init__(self, table: Files):
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

    def bind(self, ext: FileExtraction, imp: ImportRef, ctx: ImportContext) -> None:
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
