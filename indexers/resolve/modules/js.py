"""JavaScript and TypeScript: relative specifiers, ``index`` files, tsconfig/jsconfig aliases."""

from __future__ import annotations

import posixpath
import re

from graphsvc.model import Reason
from indexers.extract import FileExtraction, ImportRef
from indexers.resolve.common import ImportContext
from indexers.resolve.modules.base import ModuleSystem


class JsModules(ModuleSystem):
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
        exts = self.import_extensions
        for cand in [base + e for e in exts] + [f"{stem}/{index}{e}" for index in sorted(self.package_files) for e in exts]:
            if cand in self.path_set:
                return (cand,)
        return ()

    def bind(self, ext: FileExtraction, imp: ImportRef, ctx: ImportContext) -> None:
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
