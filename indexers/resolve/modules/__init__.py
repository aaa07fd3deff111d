"""Module systems, one per family of languages; ``LanguageSpec.module_system`` picks one."""

from __future__ import annotations

from indexers.resolve.modules.base import FileSet, Files, ModuleSystem
from indexers.resolve.modules.go import GoModules
from indexers.resolve.modules.include import IncludeModules
from indexers.resolve.modules.java import JavaModules
from indexers.resolve.modules.js import JsModules
from indexers.resolve.modules.python import PythonModules
from indexers.resolve.modules.rust import RustModules

MODULE_SYSTEMS: dict[str, type[ModuleSystem]] = {
    cls.system: cls for cls in (PythonModules, JsModules, GoModules, RustModules, JavaModules, IncludeModules)
}

__all__ = ["MODULE_SYSTEMS", "FileSet", "Files", "ModuleSystem"]
