"""C and C++: ``#include`` of a header, and the source file that implements it."""

from __future__ import annotations

import posixpath
from collections import defaultdict

from indexers.extract import FileExtraction, ImportRef
from indexers.languages import LANGUAGES
from indexers.records import resolution_signature
from indexers.resolve.common import Entity, ImportContext
from indexers.resolve.modules.base import Files, ModuleSystem


class IncludeModules(ModuleSystem):
    system = "include"

    def __init__(self, table: Files):
        super().__init__(table)
        self._headers: dict[str, tuple[frozenset[str], ...]] = {}  # importer -> what the files it includes declare
        self._declared: dict[str, frozenset[str]] = {}  # included file -> the names it declares
        self.by_base: dict[str, list[str]] = defaultdict(list)
        self.by_stem: dict[str, list[str]] = defaultdict(list)
        self.sources_by_name: dict[str, list[str]] = defaultdict(list)
        # Every tail of every path after a "/" (and the whole path): the first path in sorted
        # order ending in an include string, found in one look-up instead of a scan of every
        # path per include (on the Linux kernel, 600 k includes times 55 k paths).
        self.by_tail: dict[str, str] = {}
        for p in self.paths:
            self.by_tail.setdefault(p, p)
            for i, c in enumerate(p):
                if c == "/":
                    self.by_tail.setdefault(p[i + 1 :], p)
            self.by_base[posixpath.basename(p)].append(p)
            self.by_stem[posixpath.splitext(p)[0]].append(p)
            spec = LANGUAGES[table.files[p].lang]
            stem, ext = posixpath.splitext(posixpath.basename(p))
            if ext in spec.source_extensions:
                self.sources_by_name[stem].append(p)

    def forget_contents(self) -> None:
        self._headers.clear()
        self._declared.clear()

    def _find(self, importer: str, module: str) -> tuple[str, ...]:
        cand = posixpath.normpath(posixpath.join(posixpath.dirname(importer), module))
        if cand in self.path_set:
            return (cand,)
        found = self.by_tail.get(module)  # include paths: a path ending in the include string
        if found is not None:
            return (found,)
        same = self.by_base.get(posixpath.basename(module), [])
        return (same[0],) if len(same) == 1 else ()

    def bind(self, ext: FileExtraction, imp: ImportRef, ctx: ImportContext) -> None:
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

    def implicit(self, importer: str, name: str) -> Entity | None:
        """A function declared by an included header and defined, not ``static``, in exactly
        one source file anywhere (``include/linux/x.h`` declares it, ``fs/x/y.c`` defines it):
        the linker's one target."""
        declared = self._headers.get(importer)
        if declared is None:
            ctx = self.table.import_context(importer)  # type: ignore[attr-defined]
            headers = [f for ent, provides in ctx.stars if provides is None and ent[0] == "mod" for f in ent[1]]
            declared = self._headers[importer] = tuple(self._declared_in(f) for f in headers)
        # One set per header, shared by its importers: a kernel file includes dozens.
        if not any(name in names for names in declared):
            return None
        ids = [i for i in self.table.by_name(self.system, "callable", name)  # type: ignore[attr-defined]
               if self._linked(i)]
        return ("sym", tuple(ids)) if len(ids) == 1 else None

    def _declared_in(self, path: str) -> frozenset[str]:
        declared = self._declared.get(path)
        if declared is None:
            declared = self._declared[path] = frozenset(self.table.files[path].declared)
        return declared

    def _linked(self, sid: str) -> bool:
        """A definition the linker sees: in a source file, not ``static``."""
        sym = self.table.symbols[sid]  # type: ignore[attr-defined]
        lang = self.table.files[sym.file].lang
        return (posixpath.splitext(sym.file)[1] in LANGUAGES[lang].source_extensions
                and not resolution_signature(sym.signature))
