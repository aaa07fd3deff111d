"""JavaScript and TypeScript modules as values: namespace imports, re-exports (``export *``,
``export {a as b} from``, chains through ``index.ts``), default exports and ``require``
objects resolve to the defining symbol; external only outside the workspace."""

from __future__ import annotations

from indexers.extract import extract_file
from indexers.languages import language_for_path
from indexers.resolve import SymbolTable, affected_files, resolve_all


def _table(files: dict[str, str]) -> SymbolTable:
    return SymbolTable(extract_file(p, src.encode(), language_for_path(p).name) for p, src in files.items())


def _calls(files: dict[str, str], src: str) -> dict[str, tuple[str, float]]:
    return {e.dst: (e.reason, e.confidence) for e in resolve_all(_table(files))[0]
            if e.type == "CALLS" and e.src == src}


_LIB = {
    "src/internal/clock.ts": "export function now(): number { return 1 }\nexport class Timer {}\n",
    "src/internal/format.ts": "export function pad(s: string) { return s }\nfunction hidden() {}\n",
    "src/internal/index.ts": 'export * from "./clock"\nexport { pad as leftPad } from "./format"\n',
    "src/index.ts": 'export { now, Timer, leftPad } from "./internal/index"\nexport * as fmt from "./internal/format"\n',
}


def test_names_pass_through_namespaces_export_star_renames_and_index_chains():
    files = {**_LIB, "src/app.ts": 'import { now, leftPad } from "./index"\nimport * as lib from "."\n'
                                   'import * as clock from "./internal/clock"\n'
                                   "export function run() { now(); leftPad('x'); lib.fmt.pad('y'); lib.now() }\n"
                                   "export function tick() { clock.now(); return new clock.Timer() }\n"}
    assert _calls(files, "src/app.ts#run") == {
        "src/internal/clock.ts#now": ("import", 1.0), "src/internal/format.ts#pad": ("import", 1.0)}
    assert _calls(files, "src/app.ts#tick") == {
        "src/internal/clock.ts#now": ("import", 1.0), "src/internal/clock.ts#Timer": ("import", 1.0)}
    # export * passes on what a module exports, not what it imports
    files["src/hub.ts"] = 'export * from "./app"\n'
    files["src/user.ts"] = 'import { now } from "./hub"\nexport function use() { now() }\n'
    assert "src/internal/clock.ts#now" not in _calls(files, "src/user.ts#use")


def test_an_imported_name_exported_by_an_export_list_is_what_the_import_binds():
    # zod's index: `import * as z from "./external"; export { z, z as default }`
    files = {**_LIB,
             "src/ns.ts": 'import * as clock from "./internal/clock"\nimport { pad } from "./internal/format"\n'
                          "export { clock, clock as default, pad as padded }\n",
             "src/app.ts": 'import { clock, padded } from "./ns"\nimport c from "./ns"\n'
                           "export function run() { clock.now(); c.now(); padded('x') }\n"}
    assert _calls(files, "src/app.ts#run") == {
        "src/internal/clock.ts#now": ("import", 1.0), "src/internal/format.ts#pad": ("import", 1.0)}


def test_default_exports_resolve_whatever_the_importer_calls_them():
    files = {
        "shapes/circle.ts": "export default class Circle { area() { return 1 } }\n",
        "shapes/make.ts": "function make() { return 1 }\nexport default make\n",
        "app.ts": 'import Round from "./shapes/circle"\nimport build from "./shapes/make"\n'
                  "export function run() { new Round(); build() }\n",
    }
    assert _calls(files, "app.ts#run") == {
        "shapes/circle.ts#Circle": ("import", 1.0), "shapes/make.ts#make": ("import", 1.0)}


def test_require_objects_and_commonjs_exports():
    files = {
        "lib/util.js": "exports.helper = function () { return 1 }\n"
                       "module.exports.other = () => 2\n",
        "main.js": 'const util = require("./lib/util")\nfunction run() { util.helper(); util.other() }\n',
    }
    assert _calls(files, "main.js#run") == {
        "lib/util.js#helper": ("import", 1.0), "lib/util.js#other": ("import", 1.0)}


def test_re_exports_of_packages_outside_stay_external():
    files = {
        "src/index.ts": 'export { map } from "rxjs"\n',
        "src/app.ts": 'import { map } from "./index"\nexport function run() { map() }\n',
    }
    assert _calls(files, "src/app.ts#run") == {"ext:rxjs#map": ("external", 1.0)}


def test_a_changed_re_export_re_resolves_importers_through_the_hub():
    files = {**_LIB, "src/app.ts": 'import { leftPad } from "./index"\nexport function run() { leftPad("x") }\n'}
    table = _table(files)
    old = {p: table.files[p] for p in table.files}
    new = extract_file("src/internal/index.ts", b'export * from "./clock"\n', "typescript")
    table.add_file(new)
    assert "src/app.ts" in affected_files(["src/internal/index.ts"], old, {"src/internal/index.ts": new}, table)


def test_calls_misread_as_signatures_after_a_parse_error_are_not_definitions():
    # The grammar fails on generic call signatures written one per line; its recovery read the
    # function expression and the call below as method signatures of the interface. The
    # rewrite before a second parse (`ts_syntax`) separates them: no error is left.
    src = ("export interface Factory extends Decorator {\n"
           "    <T extends Function | undefined>(fn: T): T\n"
           "    <T extends Function | undefined>(name: string, fn: T): T\n\n"
           "    (customName: string): Decorator &\n        Annotation\n\n"
           "    bound: Annotation & Decorator\n}\n\n"
           "function createFactory(auto: boolean): Factory {\n"
           "    const res: Factory = function action(arg1, arg2?): any {\n"
           "        return create(arg1, auto)\n    }\n    return res\n}\n")
    ext = extract_file("a.ts", src.encode(), "typescript")
    assert not ext.has_errors
    assert not [s.qualified_name for s in ext.symbols if s.name in ("action", "create")]
    assert {s.qualified_name for s in ext.symbols} == {"Factory", "createFactory", "createFactory.res"}


def test_the_root_directory_is_imported_as_its_index_file():
    files = {"index.ts": "export function make(): number { return 1 }\n",
             "tests/make.test.ts": 'import { make } from ".."\nexport function run() { make() }\n',
             "app.ts": 'import { make } from "."\nexport function start() { make() }\n'}
    assert _calls(files, "tests/make.test.ts#run") == {"index.ts#make": ("import", 1.0)}
    assert _calls(files, "app.ts#start") == {"index.ts#make": ("import", 1.0)}


_OBJECT_LIB = {
    "src/schemas.ts": "export function any() { return 1 }\nexport function never() { return 2 }\n",
    "src/checks.ts": "export function regex() { return 3 }\nexport function any() { return 4 }\n",
    "src/iso.ts": "export function datetime() { return 5 }\n",
    "src/z.ts": ('import * as _schemas from "./schemas"\nimport * as _checks from "./checks"\n'
                 'import * as _iso from "./iso"\nfunction local() {}\n'
                 "const z = { ..._schemas, ..._checks, iso: _iso, local }\n"
                 "const w = { ..._schemas, run() { return 1 } }\n"
                 "const m = { a: local }\nm.a = _schemas.never\n"
                 "export function f() { z.never(); z.any(); z.regex(); z.iso.datetime(); z.local(); w.any(); m.a() }\n"),
}


def test_an_object_literal_s_members_are_its_entries_and_the_members_of_its_spreads():
    # The last entry or spread that has the name wins (`_checks.any` over `_schemas.any`); an
    # object with a member not written (`run() {}`) or assigned later (`m.a = ...`) is not read.
    assert _calls(_OBJECT_LIB, "src/z.ts#f") == {
        "src/schemas.ts#never": ("type", 1.0), "src/checks.ts#any": ("type", 1.0), "src/checks.ts#regex": ("type", 1.0),
        "src/iso.ts#datetime": ("type", 1.0), "src/z.ts#local": ("type", 1.0)}


def test_a_spread_module_losing_a_member_re_resolves_the_reader():
    table = _table(_OBJECT_LIB)
    old = {p: table.files[p] for p in table.files}
    new = extract_file("src/checks.ts", b"export function regex() { return 3 }\n", "typescript")
    table.add_file(new)
    assert "src/z.ts" in affected_files(["src/checks.ts"], old, {"src/checks.ts": new}, table)
    calls = {e.dst for e in resolve_all(table)[0] if e.type == "CALLS" and e.src == "src/z.ts#f"}
    assert "src/schemas.ts#any" in calls and "src/checks.ts#any" not in calls


def test_a_function_s_returned_object_literal_gives_its_members():
    src = ("export function make() {\n"
           "  const createPromise = () => 1\n"
           "  function resolveOldest() { return 2 }\n"
           "  return { createPromise, resolveOldest }\n"
           "}\n"
           "const made = make()\n"
           "export function use() { made.createPromise(); make().resolveOldest() }\n")
    assert _calls({"src/f.ts": src}, "src/f.ts#use") == {
        "src/f.ts#make": ("scope", 1.0), "src/f.ts#make.createPromise": ("type", 1.0),
        "src/f.ts#make.resolveOldest": ("type", 1.0)}


def test_a_name_destructured_under_another_name_is_the_member_it_is_taken_from():
    # Bundlers rename (`{createError: createError$1} = errors$2`) and alias (`errors$1 = errors$2`);
    # an alias whose member is assigned changes the object it names.
    src = ("function raise2() {}\nfunction g() {}\n"
           "var errors$2 = { createError: raise2 }\nvar errors$1 = errors$2\n"
           "const { createError: createError$1 } = errors$2\n"
           "var m = { a: g }\nvar n = m\nn.a = raise2\n"
           "export function f() { createError$1(); m.a() }\n")
    calls = _calls({"src/b.js": src}, "src/b.js#f")
    assert calls["src/b.js#raise2"] == ("type", 1.0)
    assert calls.get("src/b.js#g", ("", 0.5))[1] < 1.0


def test_a_require_inside_a_function_binds_a_name_of_that_function_only():
    files = {"src/make.ts": "export function make() { return 1 }\n",
             "src/other.ts": "export function make() { return 2 }\n",
             "src/t.test.ts": "import { make } from './other'\n"
                              "export function top() { make() }\n"
                              "describe('x', () => {\n  it('y', () => {\n    const { make } = require('./make')\n"
                              "    make()\n  })\n})\n"
                              "function lazy() {\n  const m = require('./make')\n  m.make()\n}\n"}
    table = _table(files)
    edges, _ = resolve_all(table)
    calls = {(e.src, e.dst, e.line) for e in edges if e.type == "CALLS"}
    assert ("src/t.test.ts#top", "src/other.ts#make", 2) in calls  # the module's own import
    assert ("src/t.test.ts", "src/make.ts#make", 6) in calls  # the callback's require
    assert ("src/t.test.ts#lazy", "src/make.ts#make", 11) in calls
    assert not any(dst == "src/make.ts#make" and src.endswith("#top") for src, dst, _ in calls)
