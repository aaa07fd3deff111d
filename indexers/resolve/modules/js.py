"""JavaScript and TypeScript: relative specifiers, ``index`` files, tsconfig/jsconfig aliases."""

from __future__ import annotations

import posixpath
import re

from graphsvc.model import Reason
from indexers.extract import FileExtraction, ImportRef
from indexers.import_refs import REQUIRED
from indexers.resolve.common import ImportContext
from indexers.resolve.modules.base import ModuleSystem


class JsModules(ModuleSystem):
    system = "js"
    imports_are_members = False

    def _find(self, importer: str, module: str, level: int = 0) -> tuple[str, ...]:
        module = "." * level + module  # "." and ".." are read as Python's relative levels
        if module.startswith("."):
            stem = posixpath.normpath(posixpath.join(posixpath.dirname(importer), module))
            return self._file("" if stem == "." else stem)  # "" : the root directory (its index file)
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
        folder = f"{stem}/" if stem else ""
        for cand in [base + e for e in exts if stem] + [f"{folder}{index}{e}" for index in sorted(self.package_files) for e in exts]:
            if cand in self.path_set:
                return (cand,)
        return ()

    def bind(self, ext: FileExtraction, imp: ImportRef, ctx: ImportContext) -> None:
        if imp.export:
            self._bind_export(ext, imp, ctx)
            return
        files = self._find(ext.path, imp.module, imp.level)
        if not files:
            if imp.level or imp.module.startswith("."):
                ctx.unresolved += 1
                return
            name = None if imp.name in (None, "*", "default", REQUIRED) else imp.name
            self._bind_external(ctx, imp.alias or name, imp.module, name, imp.line)
            return
        # `const x = require("m")`: what `module.exports = ...` sets, else the module itself.
        if imp.name in (None, "*") or imp.name == REQUIRED and not self._has_default(files):
            self._bind_module(ctx, imp.alias, files, imp.line)
            return
        for f in files:
            ctx.edges.setdefault(f, (Reason.IMPORT, imp.line))
        local = imp.alias or imp.name
        name = "default" if imp.name == REQUIRED else imp.name
        if name == "default" and not self._has_default(files):
            # No default export written as such (`module.exports = ...`, a generated file):
            # the binding name usually is the exported one.
            name = local
        ctx.names.setdefault(local, []).append(("member", files, name))

    def _bind_export(self, ext: FileExtraction, imp: ImportRef, ctx: ImportContext) -> None:
        """``export ... from "m"`` and ``export {a as b}``: what importers of this file get."""
        exported = imp.alias or imp.name
        if not imp.module and not imp.level:  # a name of this module, under another name
            ctx.exports.setdefault(exported, []).append(("member", (ext.path,), imp.name))
            return
        files = self._find(ext.path, imp.module, imp.level)
        if files:
            for f in files:
                ctx.edges.setdefault(f, (Reason.IMPORT, imp.line))
            if imp.name == "*":
                ctx.export_stars.append(("mod", files))
            elif imp.name is None:
                ctx.exports.setdefault(exported, []).append(("mod", files))
            else:
                ctx.exports.setdefault(exported, []).append(("member", files, imp.name))
        elif imp.level or imp.module.startswith("."):
            ctx.unresolved += 1
        else:
            name = None if imp.name in (None, "*") else imp.name
            self._bind_external(ctx, None, imp.module, name, imp.line)
            if exported and imp.name != "*":
                ctx.exports.setdefault(exported, []).append(("ext", imp.module, name))

    def implicit(self, importer: str, name: str) -> tuple | None:
        """CommonJS's ``exports`` is the module itself: ``exports.f()`` calls its ``exports.f``."""
        return ("mod", (importer,)) if name == "exports" else None

    def _has_default(self, files: tuple[str, ...]) -> bool:
        return any(i.export and i.alias == "default" for f in files if f in self.table.files
                   for i in self.table.files[f].imports)
