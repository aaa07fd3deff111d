"""What a module system is: how one family of languages maps import strings to files."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from graphsvc.model import Reason, external_module_id
from indexers.extract import FileExtraction, ImportRef
from indexers.languages import LANGUAGES
from indexers.module_config import GoModules, JsPaths
from indexers.resolve.common import Entity, ImportContext


class Files(Protocol):
    """What a module system reads: the files by path, the project's import aliases and Go
    module paths."""

    files: dict[str, FileExtraction]
    js_paths: JsPaths
    go_modules: GoModules


@dataclass(slots=True)
class FileSet:
    """``Files`` other than a table's: what a table held before a change."""

    files: dict[str, FileExtraction]
    js_paths: JsPaths
    go_modules: GoModules


class ModuleSystem:
    """How one family of languages maps import strings to workspace files."""

    system = ""
    # Whether a file reaches another module's names by a path without importing it (Rust's
    # `crate::a::X`): then no import says which files can see a name.
    paths_reach_modules = False
    # Whether a module's star imports make the names they give its own (Python's
    # ``from .impl import *`` in a package, Rust's ``pub use a::*``) for those importing it.
    star_reexports = False
    # Whether every name a module imports is a member of it for those importing it (Python);
    # otherwise only what it exports is (JavaScript: `export`).
    imports_are_members = True

    def __init__(self, table: Files):
        self.table = table
        # A module of this system has no submodules and nothing outside the workspace: its
        # members are what its files define, import or export.
        self.members_are_files = (type(self).submodule is ModuleSystem.submodule
                                  and type(self).outside is ModuleSystem.outside)
        # Sorted: which of several same-named files comes first must not depend on the order
        # in which files entered the table (a clean run and an incremental one differ there).
        self.paths = sorted(p for p, e in table.files.items() if e.lang and LANGUAGES[e.lang].module_system == self.system)
        self.path_set = set(self.paths)
        specs = [s for s in LANGUAGES.values() if s.module_system == self.system]
        self.package_files = frozenset(stem for s in specs for stem in s.package_files)
        self.import_extensions = tuple(dict.fromkeys(e for s in specs for e in s.import_extensions))

    def bind(self, ext: FileExtraction, imp: ImportRef, ctx: ImportContext) -> None:
        raise NotImplementedError

    def forget_contents(self) -> None:
        """Drop what was learnt from the files' contents: some changed, while the paths and
        what the index was built from stayed the same."""

    def submodule(self, files: tuple[str, ...], name: str) -> tuple[str, ...] | None:
        return None

    def outside(self, files: tuple[str, ...], name: str) -> Entity | None:
        """What a workspace module's missing ``name`` is when the module continues outside
        the workspace (Python namespace packages); None: the name does not exist."""
        return None

    def implicit(self, importer: str, name: str) -> Entity | None:
        """A name visible in every file without an import (Rust ``crate``, ``super``, and
        modules declared with ``mod``)."""
        return None

    def place(self, importer: str) -> object:
        """Where the importer sits for ``implicit`` (Rust: its crate and module path)."""
        return None

    # helpers shared by the systems
    def _bind_module(self, ctx: ImportContext, local: str | None, files: tuple[str, ...], line: int) -> None:
        for f in files:
            if not f.endswith("/"):  # a directory (namespace package) has no file to import
                ctx.edges.setdefault(f, (Reason.IMPORT, line))
        if local:
            ctx.names.setdefault(local, []).append(("mod", files))

    def _bind_external(self, ctx: ImportContext, local: str | None, module: str, name: str | None, line: int) -> None:
        ctx.edges.setdefault(external_module_id(module), (Reason.EXTERNAL, line))
        if local:
            ctx.names.setdefault(local, []).append(("ext", module, name))
