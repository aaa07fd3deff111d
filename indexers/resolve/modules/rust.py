"""Rust: crates rooted at ``lib.rs``/``main.rs``, ``mod`` files, ``use`` paths."""

from __future__ import annotations

import posixpath

from graphsvc.model import Reason
from indexers.extract import FileExtraction, ImportRef
from indexers.resolve.common import Entity, ImportContext
from indexers.resolve.modules.base import Files, ModuleSystem


class RustModules(ModuleSystem):
    system = "rust"
    paths_reach_modules = True
    star_reexports = True

    def __init__(self, table: Files):
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
            if parts[-1] in self.package_files:
                parts = parts[:-1]
            self.index[(root, "::".join(parts))] = p

    def module_path(self, path: str) -> list[str]:
        root = self.crate_of.get(path, "")
        rel = path[len(root) + 1 :] if root else path
        parts = posixpath.splitext(rel)[0].split("/")
        if parts[-1] in self.package_files:
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

    def bind(self, ext: FileExtraction, imp: ImportRef, ctx: ImportContext) -> None:
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
        entity: Entity = ("member", files, rest[0]) if len(rest) == 1 else ("path", files, tuple(rest))
        if imp.name == "*":  # `use crate::prelude::*` of an inline module, `use Kind::*`
            ctx.stars.append((entity, None))
        elif local:
            ctx.names.setdefault(local, []).append(entity)

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
