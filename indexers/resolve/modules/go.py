"""Go: an import path names a directory; its package name is bound.

Below a workspace module (``go.mod``: ``module example.com/mod``, or a ``replace`` by a local
directory) the import path names its directory exactly: ``example.com/mod`` is the module's
root, ``example.com/mod/sub`` its ``sub``. From a file under a ``go.mod``, any other import is
external (the standard library, dependencies), unless the module vendors it. Without a
``go.mod`` above the importer, the longest workspace directory that ends the import path is
taken, as for code checked out by import path.
"""

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
        self.go_mod = table.go_modules
        self._found: dict[tuple, tuple[str, ...]] = {}  # (module, module dir[, "test"]) -> files

    def _find(self, module: str, importer: str) -> tuple[str, ...]:
        key = (module, self.go_mod.module_dir(importer))
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = self._search(module, key[1])
        if found and importer.endswith("_test.go") and posixpath.dirname(importer) == posixpath.dirname(found[0]):
            # An external test package (`package x_test`) is built with the package's own
            # test files: it sees their definitions (`redis.DialDefaultServer` of test_test.go).
            test_key = (*key, "test")
            with_tests = self._found.get(test_key)
            if with_tests is None:
                files = self.table.files
                package = files[found[0]].package if found[0] in files else None
                with_tests = self._found[test_key] = tuple(sorted({*found, *(
                    p for p in self.dirs.get(posixpath.dirname(importer), ())
                    if p.endswith("_test.go") and p in files and files[p].package == package)}))
            found = with_tests
        return found

    def _search(self, module: str, module_dir: str | None) -> tuple[str, ...]:
        directory = self.go_mod.directory(module)
        if directory is None and module_dir is not None:
            vendored = posixpath.join(module_dir, "vendor", module)
            directory = vendored if vendored in self.dirs else None
            if directory is None:
                return ()
        if directory is None:
            directory = self._by_suffix(module)
        if directory is None:
            return ()
        return tuple(sorted(p for p in self.dirs.get(directory, ()) if not p.endswith("_test.go")))

    def _by_suffix(self, module: str) -> str | None:
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
                    return tail
        return best

    def bind(self, ext: FileExtraction, imp: ImportRef, ctx: ImportContext) -> None:
        if imp.alias in ("_",):
            return
        files = self._find(imp.module, ext.path)
        if not files:
            self._bind_external(ctx, imp.alias or _package_name(imp.module), imp.module, None, imp.line)
            return
        if imp.alias == ".":
            self._bind_module(ctx, None, files, imp.line)
            ctx.stars.append((("mod", files), None))
            return
        package = next((self.table.files[f].package for f in files if self.table.files[f].package), None)
        self._bind_module(ctx, imp.alias or package or imp.module.rsplit("/", 1)[-1], files, imp.line)


def _package_name(import_path: str) -> str:
    """The name an external package is most likely declared with: the last element of its
    path, without a major version (``chi/v5`` is ``chi``, ``gopkg.in/yaml.v3`` is ``yaml``)."""
    parts = import_path.split("/")
    last = parts[-1]
    if len(parts) > 1 and last[:1] == "v" and last[1:].isdigit():
        last = parts[-2]
    if import_path.startswith("gopkg.in/"):
        last = last.split(".v", 1)[0]
    return last
