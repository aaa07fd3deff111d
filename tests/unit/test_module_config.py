"""Import aliases from tsconfig/jsconfig files: reading them, and resolving through them."""

from __future__ import annotations

from pathlib import Path

from indexers.extract import extract_file
from indexers.module_config import JsPaths, read_js_paths
from indexers.resolve import SymbolTable, resolve_all

BASE = """{
  // shared by the packages
  "compilerOptions": {
    "baseUrl": ".",
    "paths": {
      "@lib/*": ["packages/app/src/lib/*", "packages/shared/*"],
      "@lib/special": ["packages/app/src/special.ts"],
      "@config": ["packages/app/src/config.ts"],  /* trailing commas too */
    },
  },
}
"""

FILES = {
    "tsconfig.base.json": BASE,
    "packages/app/tsconfig.json": '{ "extends": "../../tsconfig.base.json", "include": ["src"] }',
    "packages/app/src/lib/math.ts": "export function add(a: number, b: number) { return a + b; }\n",
    "packages/shared/strings.ts": "export function pad(s: string) { return ' ' + s; }\n",
    "packages/app/src/config.ts": "export function load() { return 1; }\n",
    "packages/app/src/feature/main.ts": (
        'import { add } from "@lib/math";\n'
        'import { pad } from "@lib/strings";\n'
        'import { load } from "@config";\n'
        'import { thing } from "lodash";\n'
        "export function run() { load(); pad('x'); return add(1, 2); }\n"
    ),
    # Outside packages/app: no config applies, the alias means nothing here.
    "tools/cli.ts": 'import { add } from "@lib/math";\nexport function cli() { return add(1, 1); }\n',
}


def _write(root: Path, files: dict[str, str]) -> list[str]:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return sorted(files)


def test_paths_follow_extends_and_the_nearest_config(tmp_path):
    js_paths, problems = read_js_paths(tmp_path, _write(tmp_path, FILES))
    assert problems == []
    main = "packages/app/src/feature/main.ts"
    assert js_paths.candidates(main, "@lib/math") == ["packages/app/src/lib/math", "packages/shared/math", "@lib/math"]
    assert js_paths.candidates(main, "@lib/special")[0] == "packages/app/src/special.ts"  # exact beats a wildcard
    assert js_paths.candidates(main, "lodash") == ["lodash"]  # baseUrl only
    assert js_paths.candidates("tools/cli.ts", "@lib/math") == []


def test_imports_and_calls_resolve_through_aliases(tmp_path):
    ids = _write(tmp_path, FILES)
    js_paths, _ = read_js_paths(tmp_path, ids)
    table = SymbolTable(extract_file(rel, (tmp_path / rel).read_bytes(), "typescript") for rel in ids if rel.endswith(".ts"))
    table.set_js_paths(js_paths)
    edges, _ = resolve_all(table)
    got = {(e.type, e.src, e.dst, e.reason) for e in edges if e.type in ("IMPORTS", "CALLS")}
    main = "packages/app/src/feature/main.ts"
    assert ("IMPORTS", main, "packages/app/src/lib/math.ts", "import") in got
    assert ("IMPORTS", main, "packages/shared/strings.ts", "import") in got  # the second target
    assert ("CALLS", f"{main}#run", "packages/app/src/config.ts#load", "import") in got
    assert ("CALLS", f"{main}#run", "packages/app/src/lib/math.ts#add", "import") in got
    assert ("IMPORTS", main, "ext:lodash", "external") in got
    # Without a config over it, tools/cli.ts's alias stays an external module: nothing guessed.
    assert ("IMPORTS", "tools/cli.ts", "ext:@lib/math", "external") in got

    table.set_js_paths(JsPaths())
    edges, _ = resolve_all(table)
    assert not [e for e in edges if e.src == main and e.dst == "packages/app/src/lib/math.ts"]


def test_an_unreadable_config_is_reported_not_fatal(tmp_path):
    ids = _write(tmp_path, {"tsconfig.json": "{ not json", "a/jsconfig.json": '{"compilerOptions": {"baseUrl": "src"}}'})
    js_paths, problems = read_js_paths(tmp_path, ids)
    assert len(problems) == 1 and problems[0].startswith("tsconfig.json: not usable for import aliases")
    assert js_paths.candidates("a/x.js", "util") == ["a/src/util"]


def test_packages_of_the_workspace_imported_by_name_are_not_external(tmp_path):
    files = {
        "packages/util/package.json": '{"name": "@org/util", "main": "dist/index.js"}',
        "packages/util/src/index.ts": 'export { pad } from "./strings"\n',
        "packages/util/src/strings.ts": "export function pad(s: string) { return s }\n",
        "packages/app/package.json": '{"name": "app"}',
        "packages/app/src/main.ts": ('import { pad } from "@org/util"\nimport { pad as p2 } from "@org/util/strings"\n'
                                     'import { chunk } from "lodash"\n'
                                     "export function run() { pad('x'); p2('y'); chunk() }\n"),
    }
    ids = _write(tmp_path, files)
    js_paths, problems = read_js_paths(tmp_path, ids)
    assert problems == []
    exts = [extract_file(f, (tmp_path / f).read_bytes(), "typescript") for f in ids if f.endswith(".ts")]
    table = SymbolTable(exts)
    table.set_js_paths(js_paths)
    run = {e.dst: (e.reason, e.confidence) for e in resolve_all(table)[0]
           if e.type == "CALLS" and e.src == "packages/app/src/main.ts#run"}
    assert run == {"packages/util/src/strings.ts#pad": ("import", 1.0), "ext:lodash#chunk": ("external", 1.0)}
