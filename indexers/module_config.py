"""Module resolution settings that live beside the code: `compilerOptions.paths` and
`baseUrl` of `tsconfig.json` / `jsconfig.json`, the names of the workspace's npm packages
(`package.json`), and the module paths of Go's `go.mod` files.

TypeScript projects import through aliases (``import { x } from "@app/util"`` with
``"paths": {"@app/*": ["src/*"]}``); without them those imports look external and the calls
through them stay unresolved. The job reads the config files (`read_js_paths`); resolution
asks for the candidate file stems of an import (`JsPaths.candidates`), as TypeScript does:
the nearest config above the importing file applies, an exact pattern beats a wildcard, the
longest wildcard prefix wins, and targets are tried in order, then ``baseUrl`` itself.
A package of the workspace imported by its name (a monorepo's ``@org/util``, a package
importing itself) is its sources: ``source``, ``src/index``, ``index``, then what ``module``,
``main`` and ``types`` name; ``@org/util/sub`` is ``src/sub`` or ``sub`` of the package.

Go imports name packages by import path: ``example.com/mod/sub`` is the directory ``sub``
of the module whose ``go.mod`` says ``module example.com/mod`` (`read_go_modules`;
`GoModules.directory`). A repository may hold several modules, and a ``replace`` directive
may point a module path at a directory of the workspace.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")
PACKAGE_JSON = "package.json"
_ENTRY_FIELDS = ("module", "main", "types", "typings")
_SCRIPT_SUFFIX = re.compile(r"(\.d)?\.[cm]?[jt]sx?$")
MAX_EXTENDS = 5  # `extends` chains followed (relative paths only)
MAX_CONFIG_BYTES = 1_000_000

# Strings are matched (and kept) so that what looks like a comment or comma inside one stays.
_COMMENT = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMA = re.compile(r'"(?:\\.|[^"\\])*"|,(?=\s*[}\]])')


@dataclass(frozen=True, slots=True)
class _Scope:
    directory: str  # the config's directory ("" for the workspace root); applies below it
    base: str | None  # baseUrl, resolved to a workspace-relative directory
    paths: tuple[tuple[str, tuple[str, ...]], ...]  # pattern -> target templates (resolved)


@dataclass(frozen=True, slots=True)
class JsPaths:
    scopes: tuple[_Scope, ...] = ()
    # (package name, its directory, the stems of its entry points in order) per package.json
    packages: tuple[tuple[str, str, tuple[str, ...]], ...] = ()

    @property
    def digest(self) -> str:
        """Changes whenever resolution through these settings may change."""
        return hashlib.sha256(repr((self.scopes, self.packages)).encode()).hexdigest()[:16]

    def candidates(self, importer: str, module: str) -> list[str]:
        """Workspace-relative stems a non-relative import may name, in the order to try."""
        out = self._aliases(importer, module)
        for name, directory, entries in self.packages:
            if module == name:
                out += entries
            elif module.startswith(name + "/"):
                sub = module[len(name) + 1 :]
                out += [posixpath.join(directory, "src", sub), posixpath.join(directory, sub)]
        return [posixpath.normpath(p) for p in out]

    def _aliases(self, importer: str, module: str) -> list[str]:
        scope = self._scope_of(importer)
        if scope is None:
            return []
        out: list[str] = []
        exact = [targets for pattern, targets in scope.paths if pattern == module]
        if exact:
            out += exact[0]
        else:
            best: tuple[int, tuple[str, ...], str] | None = None
            for pattern, targets in scope.paths:
                head, star, tail = pattern.partition("*")
                if star and module.startswith(head) and module.endswith(tail) and len(module) >= len(head) + len(tail):
                    if best is None or len(head) > best[0]:
                        best = (len(head), targets, module[len(head) : len(module) - len(tail)])
            if best is not None:
                out += [t.replace("*", best[2], 1) for t in best[1]]
        if scope.base is not None:
            out.append(posixpath.join(scope.base, module) if scope.base else module)
        return out

    def _scope_of(self, importer: str) -> _Scope | None:
        found = None
        for scope in self.scopes:
            if not scope.directory or importer.startswith(scope.directory + "/"):
                if found is None or len(scope.directory) > len(found.directory):
                    found = scope
        return found


def _load_jsonc(path: Path) -> dict:
    text = path.read_bytes()[:MAX_CONFIG_BYTES].decode("utf-8", "replace")
    for pattern in (_COMMENT, _TRAILING_COMMA):  # comments first: one may follow a trailing comma
        text = pattern.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)
    data = json.loads(text)
    return data if isinstance(data, dict) else {}


def _options(root: Path, rel: str, depth: int = 0) -> tuple[str | None, dict | None, str | None]:
    """(baseUrl resolved, paths, the directory `paths` are relative to) of one config, with
    what it `extends` (relative paths inside the workspace) filled in below its own."""
    data = _load_jsonc(root / rel)
    here = posixpath.dirname(rel)
    base, paths, paths_dir = None, None, None
    parent = data.get("extends")
    if isinstance(parent, str) and parent.startswith(".") and depth < MAX_EXTENDS:
        target = posixpath.normpath(posixpath.join(here, parent))
        if not target.endswith(".json"):
            target += ".json"
        if not target.startswith("..") and (root / target).is_file():
            base, paths, paths_dir = _options(root, target, depth + 1)
    opts = data.get("compilerOptions")
    if isinstance(opts, dict):
        if isinstance(opts.get("baseUrl"), str):
            base = posixpath.normpath(posixpath.join(here, opts["baseUrl"]))
        if isinstance(opts.get("paths"), dict):
            paths, paths_dir = opts["paths"], here
    return base, paths, paths_dir


def read_js_paths(root: str | Path, file_ids: list[str]) -> tuple[JsPaths, list[str]]:
    """The settings of every config file among `file_ids`, and a note per unreadable one."""
    root = Path(root)
    scopes, problems = [], []
    for rel in sorted(f for f in file_ids if posixpath.basename(f) in CONFIG_NAMES):
        try:
            base, paths, paths_dir = _options(root, rel)
        except (OSError, ValueError, RecursionError) as exc:
            problems.append(f"{rel}: not usable for import aliases ({exc})")
            continue
        rules = []
        for pattern, targets in (paths or {}).items():
            if isinstance(pattern, str) and isinstance(targets, list):
                anchor = base if base is not None else paths_dir or ""
                resolved = tuple(
                    posixpath.normpath(posixpath.join(anchor, t)) for t in targets if isinstance(t, str)
                )
                rules.append((pattern, resolved))
        if rules or base is not None:
            directory = posixpath.dirname(rel)
            scopes.append(_Scope("" if directory == "." else directory, base, tuple(rules)))
    packages = []
    # (installed dependencies are not the workspace's packages, even when they are indexed)
    for rel in sorted(f for f in file_ids if posixpath.basename(f) == PACKAGE_JSON and "node_modules/" not in f):
        try:
            found = _package(root, rel)
        except (OSError, ValueError) as exc:
            problems.append(f"{rel}: not usable for package imports ({exc})")
            continue
        if found is not None:
            packages.append(found)
    return JsPaths(tuple(scopes), tuple(packages)), problems


def _package(root: Path, rel: str) -> tuple[str, str, tuple[str, ...]] | None:
    data = _load_jsonc(root / rel)
    name = data.get("name")
    if not isinstance(name, str) or not name:
        return None
    directory = posixpath.dirname(rel)
    entries = [data["source"]] if isinstance(data.get("source"), str) else []
    entries += ["src/index", "index"] + [data[f] for f in _ENTRY_FIELDS if isinstance(data.get(f), str)]
    stems = (posixpath.normpath(posixpath.join(directory, _SCRIPT_SUFFIX.sub("", e))) for e in entries)
    return name, directory, tuple(s for s in dict.fromkeys(stems) if not s.startswith(".."))


GO_MOD = "go.mod"
_GO_COMMENT = re.compile(r"//.*")


@dataclass(frozen=True, slots=True)
class GoModules:
    """The workspace's Go modules: (module path, directory), longest module path first, and
    the directories holding a ``go.mod``."""

    roots: tuple[tuple[str, str], ...] = ()
    mod_dirs: frozenset[str] = frozenset()

    @property
    def digest(self) -> str:
        """Changes whenever resolution through these settings may change ("" when there are none)."""
        return hashlib.sha256(repr(self.roots).encode()).hexdigest()[:16] if self.roots else ""

    def directory(self, import_path: str) -> str | None:
        """The workspace directory an import path names, when it is below a workspace module."""
        for module, directory in self.roots:
            if import_path == module or import_path.startswith(module + "/"):
                rest = import_path[len(module) + 1 :]
                return posixpath.join(directory, rest) if directory and rest else directory or rest
        return None

    def module_dir(self, path: str) -> str | None:
        """The directory of the nearest ``go.mod`` above a file, or None."""
        d = posixpath.dirname(path)
        while True:
            if d in self.mod_dirs:
                return d
            if not d:
                return None
            d = posixpath.dirname(d)


def _go_mod(text: str) -> tuple[str | None, list[tuple[str, str]]]:
    """The ``module`` path of a go.mod and its replacements by local directories."""
    module = None
    replaces: list[tuple[str, str]] = []
    in_block = False
    for raw in text.splitlines():
        line = _GO_COMMENT.sub("", raw).strip()
        words = line.split()
        if not words:
            continue
        if words[0] == "module" and len(words) > 1:
            module = words[1].strip('"')
            continue
        if words[0] == "replace":
            if words[1:] == ["("]:
                in_block = True
                continue
            words = words[1:]
        elif in_block:
            if words[0] == ")":
                in_block = False
                continue
        else:
            continue
        if "=>" in words:
            i = words.index("=>")
            target = words[i + 1] if i + 1 < len(words) else ""
            if i >= 1 and (target.startswith(("./", "../")) or target in (".", "..")):
                replaces.append((words[0].strip('"'), target))
    return module, replaces


def read_go_modules(root: str | Path, file_ids: list[str]) -> tuple[GoModules, list[str]]:
    """The module paths of every ``go.mod`` among `file_ids`, and a note per unreadable one."""
    root = Path(root)
    found: dict[str, str] = {}
    dirs = set()
    problems = []
    for rel in sorted((f for f in file_ids if posixpath.basename(f) == GO_MOD), key=lambda f: (f.count("/"), f)):
        try:
            module, replaces = _go_mod((root / rel).read_bytes()[:MAX_CONFIG_BYTES].decode("utf-8", "replace"))
        except OSError as exc:
            problems.append(f"{rel}: not usable for import paths ({exc})")
            continue
        directory = posixpath.dirname(rel)
        dirs.add(directory)
        if module:
            found.setdefault(module, directory)  # the shallowest go.mod of a path wins
        for path, target in replaces:
            target_dir = posixpath.normpath(posixpath.join(directory, target))
            if target_dir == ".":
                target_dir = ""
            if not target_dir.startswith(".."):
                found.setdefault(path, target_dir)
    roots = tuple(sorted(found.items(), key=lambda kv: (-len(kv[0]), kv[0])))
    return GoModules(roots, frozenset(dirs)), problems
