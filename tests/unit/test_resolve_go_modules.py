"""Go import paths through go.mod: the module's own packages (its root too), nested modules,
local replacements; everything else from under a go.mod is external."""

from __future__ import annotations

from pathlib import Path

from indexers.extract import extract_file
from indexers.module_config import GoModules, read_go_modules
from indexers.resolve import SymbolTable, affected_files, resolve_all
from tests.unit.symbols_helpers import targets_by_source


def _project(root: Path, files: dict[str, str]) -> dict[str, dict[str, tuple[str, float]]]:
    """CALLS targets by caller: {src: {dst: (reason, confidence)}} after reading the go.mod files."""
    exts = []
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
        if rel.endswith(".go"):
            exts.append(extract_file(rel, text.encode(), "go"))
    table = SymbolTable(exts)
    go_modules, problems = read_go_modules(root, sorted(files))
    assert problems == []
    table.set_go_modules(go_modules)
    return targets_by_source(resolve_all(table)[0])


MODULE = {
    "go.mod": "module example.com/mod // the root\n\ngo 1.22\n",
    "run.go": "package app\n\nfunc Run() {}\n",
    "sub/sub.go": (
        'package sub\n\nimport (\n\t"example.com/mod"\n\t"github.com/other/util"\n)\n\n'
        "func Start() {\n\tapp.Run()\n\tutil.Help()\n}\n"
    ),
    "util/util.go": "package util\n\nfunc Help() {}\n",
    "cmd/main.go": 'package main\n\nimport "example.com/mod/sub"\n\nfunc main() { sub.Start() }\n',
}


def test_the_module_root_package_resolves_from_a_sub_package(tmp_path):
    calls = _project(tmp_path, MODULE)
    # The root package is named by its package clause (app), not by the import path.
    assert calls["sub/sub.go#Start"]["run.go#Run"] == ("import", 1.0)
    assert calls["cmd/main.go#main"] == {"sub/sub.go#Start": ("import", 1.0)}


def test_an_import_outside_the_module_is_external_even_when_a_directory_ends_it(tmp_path):
    calls = _project(tmp_path, MODULE)
    # github.com/other/util is another module: not the workspace's util/ directory.
    assert calls["sub/sub.go#Start"]["ext:github.com/other/util#Help"] == ("external", 1.0)
    assert "util/util.go#Help" not in calls["sub/sub.go#Start"]


def test_nested_modules_and_local_replacements(tmp_path):
    files = {
        "go.mod": "module example.com/a\n\nreplace (\n\texample.com/dep v1.0.0 => ./third_party/dep\n)\n"
                  "replace example.com/far => ../outside\n",
        "main.go": 'package main\n\nimport (\n\t"example.com/tools/lib"\n\t"example.com/dep/pkg"\n)\n\n'
                   "func main() { lib.Do(); pkg.Dep() }\n",
        "tools/go.mod": 'module "example.com/tools"\n',
        "tools/lib/lib.go": "package lib\n\nfunc Do() {}\n",
        "tools/cmd/cmd.go": 'package main\n\nimport "example.com/tools/lib"\n\nfunc main() { lib.Do() }\n',
        "third_party/dep/pkg/pkg.go": "package pkg\n\nfunc Dep() {}\n",
    }
    calls = _project(tmp_path, files)
    assert calls["main.go#main"] == {"tools/lib/lib.go#Do": ("import", 1.0), "third_party/dep/pkg/pkg.go#Dep": ("import", 1.0)}
    assert calls["tools/cmd/cmd.go#main"] == {"tools/lib/lib.go#Do": ("import", 1.0)}


def test_go_mod_paths_and_nearest_module():
    mods = GoModules((("example.com/a/b", "x"), ("example.com/a", "")), frozenset({"", "x"}))
    assert mods.directory("example.com/a") == ""
    assert mods.directory("example.com/a/c/d") == "c/d"
    assert mods.directory("example.com/a/b/e") == "x/e"
    assert mods.directory("example.com/ab") is None
    assert mods.module_dir("x/e/f.go") == "x" and mods.module_dir("c/f.go") == ""
    assert GoModules().module_dir("c/f.go") is None and GoModules().digest == ""


def test_a_first_file_of_the_root_package_re_resolves_its_importers(tmp_path):
    files = {k: v for k, v in MODULE.items() if k != "run.go"}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    table = SymbolTable(extract_file(rel, text.encode(), "go") for rel, text in files.items() if rel.endswith(".go"))
    table.set_go_modules(read_go_modules(tmp_path, sorted(files))[0])
    # Defines nothing sub.go calls: only the import's binding changes (external -> the package).
    new = extract_file("extra.go", b"package app\n\nfunc Other() {}\n", "go")
    table.add_file(new)
    assert "sub/sub.go" in affected_files({"extra.go"}, {}, {"extra.go": new}, table)
