"""TypeScript and JavaScript receivers whose type is proven: declared parameter, variable and
field types, ``new Foo()``, fields set through ``this``, declared results, inherited members."""

from __future__ import annotations

import pytest

from indexers.extract import extract_file
from indexers.languages import language_for_path
from indexers.resolve import SymbolTable, resolve_all
from tests.unit.symbols_helpers import incremental_equals_clean

_SHAPES = """
export class Shape {
  describe(): string { return "shape" }
  scale(k: number): Shape { return this }
}
export class Circle extends Shape {
  area(): number { return 3 }
  nothing(): void {}
}
export class Board {
  unrelated(): void {}
  area(): number { return 0 }
}
export function make(): Circle { return new Circle() }
export function maybe(): Circle | undefined { return undefined }
"""


def _calls(files: dict[str, str], src: str) -> dict[str, tuple[str, float]]:
    table = SymbolTable(extract_file(p, s.encode(), language_for_path(p).name) for p, s in files.items())
    return {e.dst: (e.reason, e.confidence) for e in resolve_all(table)[0] if e.type == "CALLS" and e.src == src}


def _app(body: str, head: str = "") -> dict[str, str]:
    return {"shapes.ts": _SHAPES,
            "app.ts": 'import { Circle, Shape, make, maybe } from "./shapes"\n' + head + body}


def test_declared_parameter_and_variable_types():
    files = _app("export function run(c: Circle, d?: Circle | undefined) {\n"
                 "  c.area()\n  d.describe()\n  let e: Shape\n  e.scale(2)\n}\n")
    assert _calls(files, "app.ts#run") == {
        "shapes.ts#Circle.area": ("type", 1.0), "shapes.ts#Shape.describe": ("type", 1.0),
        "shapes.ts#Shape.scale": ("type", 1.0)}


def test_constructor_calls_and_declared_results():
    files = _app("export function run() {\n  const c = new Circle()\n  c.area()\n"
                 "  make().describe()\n  const m = maybe()\n  m.area()\n  new Circle().scale(1).describe()\n}\n")
    assert _calls(files, "app.ts#run") == {
        "shapes.ts#Circle": ("import", 1.0), "shapes.ts#make": ("import", 1.0), "shapes.ts#maybe": ("import", 1.0),
        "shapes.ts#Circle.area": ("type", 1.0), "shapes.ts#Shape.describe": ("type", 1.0),
        "shapes.ts#Shape.scale": ("type", 1.0)}


def test_fields_declared_assigned_in_the_constructor_and_parameter_properties():
    files = _app("export class View {\n  private main: Circle\n  #spare: Circle = new Circle()\n"
                 "  constructor(private readonly outline: Shape, other: Circle) {\n    this.extra = make()\n  }\n"
                 "  draw() {\n    this.main.area()\n    this.#spare.nothing()\n    this.outline.describe()\n"
                 "    this.extra.area()\n  }\n}\n")
    assert _calls(files, "app.ts#View.draw") == {
        "shapes.ts#Circle.area": ("type", 1.0), "shapes.ts#Circle.nothing": ("type", 1.0),
        "shapes.ts#Shape.describe": ("type", 1.0)}


def test_a_known_type_without_the_member_is_not_a_guess_and_arrays_are_not_elements():
    files = _app("export function run(c: Circle, cs: Circle[]) {\n  c.unrelated()\n  cs.area()\n}\n")
    got = _calls(files, "app.ts#run")
    assert "shapes.ts#Board.unrelated" not in got
    assert all(conf < 1.0 for _, conf in got.values())


def test_javascript_fields_and_constructor_calls():
    files = {"shapes.js": "export class Circle { area() { return 3 } }\nexport class Board { area() { return 0 } }\n",
             "app.js": 'import { Circle } from "./shapes.js"\n'
                       "class View {\n  constructor() { this.main = new Circle() }\n  draw() { this.main.area() }\n}\n"}
    assert _calls(files, "app.js#View.draw") == {"shapes.js#Circle.area": ("type", 1.0)}


def test_overloaded_methods_and_merged_declarations_are_one_callee():
    files = {"obs.ts": "export interface Failure { code: number }\n"
                       "export const Failure: FailureCtor = makeError()\n"
                       "export class Obs {\n  sub(): void\n  sub(x: number): void\n  sub(x?: number) {}\n"
                       "  run() { this.sub(1); new Failure() }\n}\n"}
    assert _calls(files, "obs.ts#Obs.run") == {"obs.ts#Obs.sub@3": ("self", 1.0), "obs.ts#Failure@2": ("scope", 1.0)}


def test_destructured_members_and_a_declared_this():
    files = _app("export class View {\n  private main: Circle\n"
                 "  draw() {\n    const { main } = this\n    main.area()\n  }\n}\n"
                 "export function bound(this: Shape, k: number) {\n  return this.scale(k)\n}\n")
    assert _calls(files, "app.ts#View.draw") == {"shapes.ts#Circle.area": ("type", 1.0)}
    assert _calls(files, "app.ts#bound") == {"shapes.ts#Shape.scale": ("type", 1.0)}


def test_a_union_of_generic_types_is_not_its_first_member():
    files = _app("export function run(c: Circle<number> | Board<number>) {\n  c.area()\n}\n",
                 head='import { Board } from "./shapes"\n')
    assert all(conf < 1.0 for _, conf in _calls(files, "app.ts#run").values())


def test_for_of_over_a_declared_array_binds_its_elements():
    files = _app("export function run(cs: Circle[], more: Array<Shape>, keys: Circle[]) {\n"
                 "  for (const c of cs) { c.area() }\n  for (const s of more) { s.describe() }\n"
                 "  for (const k in keys) { k.nothing() }\n}\n")
    got = _calls(files, "app.ts#run")
    assert got["shapes.ts#Circle.area"] == ("type", 1.0)
    assert got["shapes.ts#Shape.describe"] == ("type", 1.0)
    assert got.get("shapes.ts#Circle.nothing", ("", 0.0))[1] < 1.0  # `in` gives the keys


def test_callback_parameters_have_the_types_the_called_function_declares():
    files = _app("export function operate(init: (this: Board, shape: Shape, circle: Circle) => void): void {}\n"
                 "export class Frame {\n  constructor(paint?: (c: Circle) => void) {}\n}\n"
                 "export function run() {\n"
                 "  operate((shape, circle) => { shape.describe(); circle.area() })\n"
                 "  new Frame(function (c) { c.nothing() })\n"
                 "  operate((s) => s.scale(1))\n}\n")
    assert _calls(files, "app.ts#run") == {
        "app.ts#operate": ("scope", 1.0), "app.ts#Frame": ("scope", 1.0),
        "shapes.ts#Shape.describe": ("type", 1.0), "shapes.ts#Circle.area": ("type", 1.0),
        "shapes.ts#Circle.nothing": ("type", 1.0), "shapes.ts#Shape.scale": ("type", 1.0)}


def test_callbacks_of_array_methods_get_elements_and_of_other_builtins_nothing_builtin():
    files = _app("export function run(cs: Circle[], n: number) {\n"
                 "  cs.forEach((c) => c.nothing())\n  cs.find(c => c.area())\n"
                 "  setTimeout((b) => b.unrelated(), n)\n}\n")
    got = _calls(files, "app.ts#run")
    assert got["shapes.ts#Circle.nothing"] == ("type", 1.0) and got["shapes.ts#Circle.area"] == ("type", 1.0)
    assert got["shapes.ts#Board.unrelated"][1] < 1.0  # unknown, so a guess, not "builtin"


def test_a_declared_type_initialised_to_null_and_generic_constructor_calls():
    files = _app("export function run() {\n  let c: Circle | null = null\n  c?.area()\n"
                 "  const s = new Array<Shape>()\n  const d = make<Circle>()\n  d.nothing()\n}\n")
    got = _calls(files, "app.ts#run")
    assert got["shapes.ts#Circle.area"] == ("type", 1.0) and got["shapes.ts#Circle.nothing"] == ("type", 1.0)


def test_parameters_of_callbacks_and_function_types_are_their_own():
    files = _app("export function run(effect: (c: Shape) => void) {\n"
                 "  const c = new Circle()\n  c.nothing()\n"
                 "  effect(new Circle())\n  [1].forEach((c) => c.toFixed())\n  c.area()\n}\n")
    got = _calls(files, "app.ts#run")
    assert got["shapes.ts#Circle.nothing"] == ("type", 1.0) and got["shapes.ts#Circle.area"] == ("type", 1.0)


def test_a_method_of_an_object_literal_is_no_name_in_the_function_around_it():
    files = {"slice.ts": "export function update(x: number) {}\nexport function detect(n: number) { return n }\n",
             "app.ts": 'import { update, detect } from "./slice"\n'
                       "export function build(dispatch: (a: number) => void) {\n"
                       "  const { reset } = dispatch\n"
                       "  return Object.assign(dispatch, {\n"
                       "    detect() { return detect(1) },\n"
                       "    reset() { reset() },\n  })\n}\n"}
    assert _calls(files, "app.ts#build.detect") == {"slice.ts#detect": ("import", 1.0)}
    assert "app.ts#build.reset" not in _calls(files, "app.ts#build.reset")


def test_elements_from_array_methods_map_lookups_and_non_null_assertions():
    files = _app("export function run(cs: Circle[], byName: Map<string, Shape>) {\n"
                 "  cs.shift()!.area()\n  for (const c of cs.slice()) { c.nothing() }\n"
                 "  byName.get('a')!.describe()\n  byName.set('b', new Circle())\n}\n")
    got = _calls(files, "app.ts#run")
    assert got["shapes.ts#Circle.area"] == ("type", 1.0) and got["shapes.ts#Circle.nothing"] == ("type", 1.0)
    assert got["shapes.ts#Shape.describe"] == ("type", 1.0)


def test_instanceof_narrows_a_name_inside_the_if_block_only():
    files = _app("export function run(s: Shape) {\n"
                 "  if (s instanceof Circle) { s.area() } else { s.nothing() }\n  s.describe()\n}\n")
    got = _calls(files, "app.ts#run")
    assert got["shapes.ts#Circle.area"] == ("type", 1.0) and got["shapes.ts#Shape.describe"] == ("type", 1.0)
    assert "shapes.ts#Circle.nothing" not in got  # a Shape has no `nothing`: not a guess either


def test_this_in_an_arrow_function_of_a_method_is_the_instance():
    files = _app("export class Painter extends Shape {\n"
                 "  paint() {\n    const later = () => { this.describe(); this.finish() }\n    later()\n  }\n"
                 "  finish() {}\n}\n"
                 "export function draw(this: Circle) {\n  function inner(this: Circle) { this.area() }\n}\n")
    assert _calls(files, "app.ts#Painter.paint.later") == {
        "shapes.ts#Shape.describe": ("self", 1.0), "app.ts#Painter.finish": ("self", 1.0)}
    # A function nested in a function (no type around it): its own `this` declaration.
    assert _calls(files, "app.ts#draw.inner") == {"shapes.ts#Circle.area": ("type", 1.0)}


def test_this_in_a_field_initializer_is_the_instance():
    # Calls in a field's initializer are the class's own; `this` there is an instance of it.
    files = _app("export class Gesture { constructor(o: object) {} }\n"
                 "export class Scroller extends Shape {\n"
                 "  private gesture = new Gesture({ now: () => this.now(), size: () => this.describe() })\n"
                 "  private now = () => Date.now()\n"
                 "  #update = () => { this.now() }\n}\n")
    assert _calls(files, "app.ts#Scroller") == {
        "app.ts#Gesture": ("scope", 1.0), "app.ts#Scroller.now": ("self", 1.0),
        "shapes.ts#Shape.describe": ("self", 1.0)}
    # A private field holding a function is a method of its own, as a private method is.
    assert _calls(files, "app.ts#Scroller.#update") == {"app.ts#Scroller.now": ("self", 1.0)}


def test_a_type_alias_has_the_members_of_the_type_it_stands_for():
    files = _app("export type AnyShape = Shape\nexport type AnyCircle = AnyShape\n"
                 "export function use(s: AnyShape, c: AnyCircle) {\n  s.describe()\n  c.scale(2)\n}\n")
    assert _calls(files, "app.ts#use") == {
        "shapes.ts#Shape.describe": ("type", 1.0), "shapes.ts#Shape.scale": ("type", 1.0)}


def test_a_field_of_the_class_hides_a_method_of_its_bases():
    files = {"clock.ts": "export interface Clock { now(): number }\n"
                         "export class Base { tick(): void {} }\n"
                         "export class Timer extends Base implements Clock {\n"
                         "  public now: () => number\n  tick = 5 as any\n"
                         "  constructor(now: () => number) { super(); this.now = now }\n"
                         "  run() { this.now(); this.tick() }\n}\n"}
    got = _calls(files, "clock.ts#Timer.run")
    assert "clock.ts#Clock.now" not in got and "clock.ts#Base.tick" not in got


def test_a_cast_to_a_named_type_is_an_instance_of_it():
    files = _app("export class Holder { inner: Circle }\n"
                 "export function run(x: unknown, y: any) {\n"
                 "  (x as Circle).area();\n  (y as unknown as Holder).inner.nothing();\n"
                 "  const d = (x as Shape).scale(2);\n  d.describe();\n  (x as any).unrelated();\n}\n")
    got = _calls(files, "app.ts#run")
    assert got["shapes.ts#Circle.area"] == ("type", 1.0) and got["shapes.ts#Circle.nothing"] == ("type", 1.0)
    assert got["shapes.ts#Shape.scale"] == ("type", 1.0) and got["shapes.ts#Shape.describe"] == ("type", 1.0)
    assert got["shapes.ts#Board.unrelated"][1] < 1.0  # `as any` proves nothing: a guess


def test_a_conditional_expression_is_known_when_its_branches_agree():
    files = {**_app("export function run(flag: boolean) {\n"
                    "  const s = flag ? new Circle() : make();\n  s.nothing();\n"
                    "  const u = flag ? new Circle() : null;\n  u.describe();\n"
                    "  const t = flag ? new Circle() : new Board();\n  t.unrelated();\n}\n"),
             "board.ts": "export class Board { unrelated(): void {} }\n"}
    files["app.ts"] = 'import { Board } from "./board"\n' + files["app.ts"]
    got = _calls(files, "app.ts#run")
    assert got["shapes.ts#Circle.nothing"] == ("type", 1.0) and got["shapes.ts#Shape.describe"] == ("type", 1.0)
    assert all(conf < 1.0 for dst, (_, conf) in got.items() if dst.endswith(".unrelated"))


def test_properties_of_an_interface_are_its_fields_and_function_types_are_no_methods():
    files = _app("export interface Record { readonly window: Circle; later?: Shape; unrelated: () => void }\n"
                 "export function run(r: Record) {\n"
                 "  r.window.area();\n  r.later.describe();\n  r.unrelated();\n}\n")
    got = _calls(files, "app.ts#run")
    assert got["shapes.ts#Circle.area"] == ("type", 1.0) and got["shapes.ts#Shape.describe"] == ("type", 1.0)
    assert "shapes.ts#Board.unrelated" not in got  # a property holding a function: not a method's name


def test_properties_of_an_object_type_written_out():
    files = _app("export function close(record: { window: Circle; subs?: Shape; f: (a: number, b: number) => void }) {\n"
                 "  const { window, subs } = record;\n  window.area();\n  subs.describe();\n"
                 "  record.window.nothing();\n}\n")
    got = _calls(files, "app.ts#close")
    assert got["shapes.ts#Circle.area"] == ("type", 1.0) and got["shapes.ts#Shape.describe"] == ("type", 1.0)
    assert got["shapes.ts#Circle.nothing"] == ("type", 1.0)


def test_callbacks_in_the_branches_of_a_conditional_argument():
    files = _app("export function operate(init: (shape: Shape, circle: Circle) => void): void {}\n"
                 "export function run(flag: boolean) {\n"
                 "  operate(flag ? (shape, circle) => { circle.area() } : (s) => { s.describe() });\n}\n")
    got = _calls(files, "app.ts#run")
    assert got["shapes.ts#Circle.area"] == ("type", 1.0) and got["shapes.ts#Shape.describe"] == ("type", 1.0)


def test_properties_of_an_alias_of_an_object_type_are_its_fields():
    files = _app("type Match = { observer: Circle; options: number }\n"
                 "export function run(matches: Array<Match>) {\n"
                 "  matches.forEach((match) => match.observer.area());\n}\n")
    assert _calls(files, "app.ts#run") == {"shapes.ts#Circle.area": ("type", 1.0)}


def test_this_of_a_function_argument_is_what_the_callee_declares_it_passes():
    files = _app("export interface Scheduler { schedule(work: (this: Circle, state?: Shape) => void): void }\n"
                 "export function run(s: Scheduler) {\n"
                 "  s.schedule(function (state) { this.area(); state.describe() });\n"
                 "  s.schedule(() => { this.nothing() });\n}\n")
    got = _calls(files, "app.ts#run")
    assert got["shapes.ts#Circle.area"] == ("type", 1.0) and got["shapes.ts#Shape.describe"] == ("type", 1.0)
    assert "shapes.ts#Circle.nothing" not in got  # an arrow function's `this` is the one around it


def test_a_comment_with_a_quote_among_the_arguments_leaves_the_value_known():
    files = _app("export function run() {\n"
                 "  const c = new Circle(\n    // it's one circle\n    1,\n  );\n"
                 "  const later = () => c.area();\n}\n")
    assert _calls(files, "app.ts#run.later") == {"shapes.ts#Circle.area": ("type", 1.0)}


def test_an_array_literal_of_one_element_type_is_a_container_of_it():
    files = _app("export function run() {\n"
                 "  let circles = [new Circle()];\n  circles.push(new Circle());\n"
                 "  for (const c of circles) { c.area() }\n  circles.shift()!.nothing();\n"
                 "  const mixed = [new Circle(), make(), new Shape()];\n  for (const m of mixed) { m.describe() }\n}\n")
    got = _calls(files, "app.ts#run")
    assert got["shapes.ts#Circle.area"] == ("type", 1.0) and got["shapes.ts#Circle.nothing"] == ("type", 1.0)
    assert got["shapes.ts#Shape.describe"][1] < 1.0  # elements that differ: not proven


def test_a_union_of_classes_is_one_of_them():
    """`x: Circle | Shape`: a method both have (Circle inherits Shape's) is called with
    confidence; members only one of them has are the candidates; a union of primitives is a
    builtin; a union with a primitive says nothing."""
    files = {"shapes.ts": _SHAPES, "app.ts": (
        'import { Board, Circle, Shape } from "./shapes"\n'
        "export function shared(x: Circle | Shape) { x.describe() }\n"
        "export function either(x: Circle | Board | undefined) { x!.area() }\n"
        "export function prim(x: string | number) { x.describe() }\n"
        "export function mixed(x: Circle | string) { x.nothing() }\n")}
    assert _calls(files, "app.ts#shared") == {"shapes.ts#Shape.describe": ("type", 1.0)}
    assert _calls(files, "app.ts#either") == {"shapes.ts#Circle.area": ("candidate", 0.5),
                                              "shapes.ts#Board.area": ("candidate", 0.5)}
    assert _calls(files, "app.ts#prim") == {}
    assert all(conf < 1.0 for _, conf in _calls(files, "app.ts#mixed").values())


_GENERIC = """
export class Base { parse(): number { return 1 } }
interface Def<T extends Base = Base> { inner: T }
export class Optional<T extends Base> extends Base {
  _def: Def<T>
  item: T
  run(x: T) { x.parse() }
  field() { this.item.parse() }
  nested() { this._def.inner.parse() }
  each<U extends Base>(xs: U[]) { for (const u of xs) u.parse() }
}
export function loose<U>(u: U) { u.parse() }
"""


def test_a_value_of_a_type_parameter_has_the_members_of_its_constraint():
    files = {"generic.ts": _GENERIC}
    for caller in ("Optional.run", "Optional.field", "Optional.nested", "Optional.each"):
        assert _calls(files, f"generic.ts#{caller}") == {"generic.ts#Base.parse": ("type", 1.0)}, caller
    # Without a constraint the parameter may be anything: a name guess at most.
    assert _calls(files, "generic.ts#loose").get("generic.ts#Base.parse", ("", 0.0))[1] < 1.0


def test_a_type_name_is_the_interface_a_const_of_that_name_shadows_as_a_value():
    # zod's `export interface ZodString ...` beside `export const ZodString: $constructor<...>`:
    # as a type the name is the interface, whose members (inherited too) a value of it has.
    files = {"schemas.ts": (
        "export interface $constructor<T> { new (def: any): T }\n"
        "export interface ZodType { optional(): ZodOptional<this>; check(...c: any[]): this }\n"
        "export const ZodType: $constructor<ZodType> = make('ZodType')\n"
        "export interface ZodString extends ZodType { min(n: number): this }\n"
        "export const ZodString: $constructor<ZodString> = make('ZodString')\n"
        "export interface ZodOptional<T> extends ZodType { unwrap(): T }\n"
        "export interface Other { min(n: number): void; unwrap(): void; check(): void }\n"
        "export function string(): ZodString { return new ZodString({}) }\n"),
        "app.ts": ('import { string, ZodString } from "./schemas"\n'
                   "export function run(s: ZodString) {\n"
                   "  s.min(1)\n  string().optional().unwrap()\n  string().min(3).check()\n}\n")}
    calls = _calls(files, "app.ts#run")
    for target in ("ZodString.min", "ZodType.optional", "ZodOptional.unwrap", "ZodType.check"):
        assert calls[f"schemas.ts#{target}"] == ("type", 1.0)
    assert not any(dst.startswith("schemas.ts#Other") for dst in calls)


def test_a_field_holding_a_function_does_not_bind_its_name_inside_it():
    # @tanstack/react-router's `useLoaderData: UseLoaderDataRoute = (opts) => useLoaderData(...)`:
    # the call is of the imported function; a field's name is no name inside its own value.
    files = {"hooks.ts": "export function useLoaderData(opts: any) { return 1 }\n",
             "route.ts": ('import { useLoaderData } from "./hooks"\n'
                          "export class Route {\n  options: any\n"
                          "  useLoaderData: (o: any) => number = (opts) => {\n"
                          "    return useLoaderData({ ...opts, from: this.options.id } as any)\n  }\n}\n")}
    assert _calls(files, "route.ts#Route.useLoaderData") == {"hooks.ts#useLoaderData": ("import", 1.0)}


_MERGED = {
    "schemas.ts": ("export interface ZodString { min(n: number): this }\n"
                   "export const ZodString = make()\nexport function string(): ZodString { return make() }\n"),
    "app.ts": 'import { string, ZodString } from "./schemas"\nexport function run(s: ZodString) { s.min(1); string().min(2) }\n',
}


@pytest.mark.parametrize("new", [
    "export interface ZodString { min(n: number): this }\nexport function string(): ZodString { return make() }\n",
    "export const ZodString = make()\nexport function string(): ZodString { return make() }\n",
    None,
], ids=["the-const-goes", "the-interface-goes", "the-file-goes"])
def test_incremental_equals_clean_when_a_shadowed_interface_changes(new):
    assert "app.ts" in incremental_equals_clean(_MERGED, "schemas.ts", new)


_INFERRED = """\
export class Foo { run(): void {} }
export const make = () => new Foo()
export function build() { return make() }
export function each() { return [1].map((x) => new Foo()) }
"""


@pytest.mark.parametrize("path", ["inferred.ts", "inferred.js"])
def test_results_inferred_from_returns_and_expression_bodies(path):
    src = _INFERRED.replace("(): void", "()") if path.endswith(".js") else _INFERRED
    files = {path: src + "export function use() { make().run(); build().run() }\n"}
    assert _calls(files, f"{path}#use")[f"{path}#Foo.run"] == ("type", 1.0)


def test_a_callbacks_return_is_not_the_functions_result():
    files = {"inferred.ts": _INFERRED + "export function use() { each().run() }\n"}
    assert _calls(files, "inferred.ts#use").get("inferred.ts#Foo.run", ("", 0.0))[1] < 1.0


def test_methods_of_an_object_literal_a_constant_holds():
    files = {"v.ts": "export const validators = {\n  validate<T>(value: T) { return value },\n"
                     "  async validateAsync(value: number) { return value },\n}\n"
                     "export let swapped = { run() {} }\nswapped.run = () => 1\n"
                     "export function use() {\n  validators.validate(1)\n  swapped.run()\n}\n",
             "f.ts": 'import { validators } from "./v"\nexport function go() { validators.validateAsync(2) }\n'}
    assert _calls(files, "v.ts#use")["v.ts#validators.validate"] == ("scope", 1.0)
    # A member assigned elsewhere in the file: what the literal defines may be replaced.
    assert all(conf < 1.0 for dst, (_, conf) in _calls(files, "v.ts#use").items() if dst.startswith("v.ts#swapped"))
    assert _calls(files, "f.ts#go") == {"v.ts#validators.validateAsync": ("import", 1.0)}


def test_a_property_type_read_through_its_owner_type():
    files = _app("export interface Opts { shape: Circle; many: Circle[] }\n"
                 "export class Field {\n  shape: Opts['shape']\n  other: Opts[\"shape\"]\n"
                 "  many: Opts['many']\n  fn: Opts['nothing']\n"
                 "  go() { this.shape.area(); this.other.describe(); this.many[0].area() }\n}\n")
    assert _calls(files, "app.ts#Field.go") == {
        "shapes.ts#Circle.area": ("type", 1.0), "shapes.ts#Shape.describe": ("type", 1.0)}


_LITERAL = "export const validators = {\n  validate(value: number) { return value },\n}\n"


@pytest.mark.parametrize("new", [
    _LITERAL + "validators.validate = (value: number) => value + 1\n",
    _LITERAL.replace("const", "let") + "export function reset() { validators = { validate(v: number) { return v } } }\n",
    _LITERAL.replace("validate(", "check("),
    None,
], ids=["a-member-assigned", "the-variable-assigned", "the-method-renamed", "the-file-goes"])
def test_incremental_equals_clean_when_an_object_literals_methods_change(new):
    files = {"v.ts": _LITERAL, "f.ts": 'import { validators } from "./v"\nexport function go() { validators.validate(2) }\n'}
    assert "f.ts" in incremental_equals_clean(files, "v.ts", new)


@pytest.mark.parametrize("new", ["export interface Opts { shape: Board }\n", "export interface Opts { other: Circle }\n"],
                         ids=["the-property-type-changes", "the-property-goes"])
def test_incremental_equals_clean_when_an_indexed_property_type_changes(new):
    files = _app("import { Opts } from './opts'\nexport class Field {\n  shape: Opts['shape']\n"
                 "  go() { this.shape.area() }\n}\n")
    files["opts.ts"] = "import { Circle } from './shapes'\nexport interface Opts { shape: Circle }\n"
    new = new if "Board" not in new else "import { Board } from './shapes'\n" + new
    assert "app.ts" in incremental_equals_clean(files, "opts.ts", new)
    assert _calls(files, "app.ts#Field.go") == {"shapes.ts#Circle.area": ("type", 1.0)}


def test_destructured_parameters_of_a_declared_type():
    files = _app("export interface Opts<T> { circle: Circle; check?(n: T): boolean; other(): void }\n"
                 "export function run({ circle, check, other: renamed }: Opts<number> = {} as any,\n"
                 "                    { area }: { area(): number }) {\n"
                 "  circle.area()\n  check(1)\n  renamed()\n  area()\n}\n")
    assert _calls(files, "app.ts#run") == {
        "shapes.ts#Circle.area": ("type", 1.0), "app.ts#Opts.check": ("type", 1.0), "app.ts#Opts.other": ("type", 1.0)}


def test_types_named_through_values():
    files = _app("export function client() {\n  function request(n: number) { return n }\n  return { request }\n}\n"
                 "export function formatter() { function format() {}; return format }\n"
                 "export const circle = new Circle()\nexport type Client = ReturnType<typeof client>\n"
                 "export function run(a: Client, b: InstanceType<typeof Circle>, c: typeof circle,\n"
                 "                    d: typeof Circle, e: ReturnType<typeof formatter>, f: typeof formatter) {\n"
                 "  a.request(1)\n  b.area()\n  c.describe()\n  new d()\n  e()\n  f()\n}\n")
    calls = _calls(files, "app.ts#run")
    assert {k: v for k, v in calls.items() if v[1] == 1.0} == {
        "app.ts#client.request": ("type", 1.0), "shapes.ts#Circle.area": ("type", 1.0),
        "shapes.ts#Shape.describe": ("type", 1.0)}
    # A class or function a type names is any of that type: `new d()`, `e()`, `f()` are no proof.
    assert "app.ts#formatter.format" not in calls and calls.get("app.ts#formatter", ("", 0))[1] < 1.0


def test_array_from_gives_the_elements_of_its_argument():
    files = _app("export function run(shapes: Set<Circle>) {\n"
                 "  const sorted = Array.from(shapes).sort((a, b) => 0)\n"
                 "  for (const c of sorted) { c.area() }\n  Array.from(shapes)[0].describe()\n}\n")
    assert _calls(files, "app.ts#run") == {
        "shapes.ts#Circle.area": ("type", 1.0), "shapes.ts#Shape.describe": ("type", 1.0)}


@pytest.mark.parametrize("generic", ["<A extends Array<A>>", "<A extends B, B extends A>"])
def test_a_type_parameter_bounded_by_itself_leaves_the_call_unresolved(generic):
    # Following the bound led back to it until Python's recursion limit stopped the whole run.
    files = {"a.ts": f"export function f{generic}(a: A) {{ return a.run() }}\n"}
    edges, stats = resolve_all(SymbolTable(extract_file(p, s.encode(), "typescript") for p, s in files.items()))
    assert not [e for e in edges if e.type == "CALLS"] and stats.unresolved == 1


_DUAL = {
    "core.ts": (
        "export const dual = (arity: number, body: any): any => body\n"
        "export const map: {\n  <A, B>(f: (a: A) => B): (self: A[]) => B[]\n} = dual(2, (self: any, f: any) => self)\n"
        "export function plain(x: number) { return x }\n"
    ),
    "Effect.ts": (
        'import * as core from "./core"\nimport { map as m2 } from "./core"\n'
        "export const map: {\n  <A, B>(f: (a: A) => B): (self: A[]) => B[]\n} = core.map\n"
        "export const mapped = m2\nexport const plain: (x: number) => number = core.plain\n"
    ),
    "use.ts": 'import * as Effect from "./Effect"\nexport function run() {\n  Effect.map(f)\n}\n'
              "export function other() {\n  Effect.mapped(f)\n  Effect.plain(1)\n}\n",
}


def test_a_variable_bound_to_another_name_calls_what_that_name_names():
    # `export const map: {...} = core.map`: the checker's callee is core's `map` (itself a
    # variable holding what `dual` makes), whatever type the re-export declares.
    assert _calls(_DUAL, "use.ts#run") == {"core.ts#map": ("import", 1.0)}
    assert _calls(_DUAL, "use.ts#other") == {"core.ts#map": ("import", 1.0), "core.ts#plain": ("import", 1.0)}


@pytest.mark.parametrize("path, new", [
    ("Effect.ts", _DUAL["Effect.ts"].replace("} = core.map", "} = core.plain")),
    ("core.ts", _DUAL["core.ts"].replace("export const map", "export const map2")),
])
def test_incremental_equals_clean_when_what_a_variable_names_changes(path, new):
    incremental_equals_clean(_DUAL, path, new)


_OPTIONS = {
    "api.ts": (
        "export interface Api { fork(): void; delay(ms: number): void }\n"
        "export interface Options {\n  effect: (action: string, api: Api) => void\n  run(action: string, api: Api): void\n}\n"
        "export function start(opts: Options) {}\n"
        "export type Handler = (action: string, api: Api) => void\n"
    ),
    "app.ts": (
        'import { Options, start } from "./api"\n'
        "export function viaArrow() { start({ effect: (action, api) => { api.delay(1) } }) }\n"
        "export function viaMethod() { start({ effect(action, api) { api.fork() } }) }\n"
        "export function viaFunction() { start({ run: function (action, api) { api.delay(3) } }) }\n"
        "export const declared: Options = { effect: async (action, api) => { api.delay(2) }, run(a, api) { api.fork() } }\n"
        'import { Handler } from "./api"\n'
        "export const arrow: Handler = (action, api) => { api.fork() }\n"
        "export const named: Handler = function (action, api) { api.delay(4) }\n"
    ),
}


@pytest.mark.parametrize("caller, target", [
    ("app.ts#viaArrow", "api.ts#Api.delay"), ("app.ts#viaMethod.effect", "api.ts#Api.fork"),
    ("app.ts#viaFunction", "api.ts#Api.delay"), ("app.ts", "api.ts#Api.delay"), ("app.ts#declared.run", "api.ts#Api.fork"),
    ("app.ts#arrow", "api.ts#Api.fork"), ("app.ts#named", "api.ts#Api.delay"),  # a function type's alias
])
def test_a_function_held_by_an_object_literal_member_is_given_what_the_declared_type_says(caller, target):
    # `start({ effect: (action, api) => ... })`: `api` is what `start`'s `Options` declares its
    # `effect` passes (a property of function type, or a method's parameter).
    assert _calls(_OPTIONS, caller)[target] == ("type", 1.0)


@pytest.mark.parametrize("new", [
    _OPTIONS["api.ts"].replace("api: Api) => void", "api: unknown) => void"),
    _OPTIONS["api.ts"].replace("start(opts: Options)", "start(opts: unknown)"),
    _OPTIONS["api.ts"].replace("(action: string, api: Api) => void\n", "(action: string, api: unknown) => void\n"),
])
def test_incremental_equals_clean_when_the_declared_member_type_changes(new):
    incremental_equals_clean(_OPTIONS, "api.ts", new)


def test_an_object_literal_that_satisfies_a_type_keeps_its_members():
    # `return {...} satisfies Info` (TypeScript 4.9): the literal, its members' values as written;
    # a member whose value is no name (`shouldRun: a || b`) leaves the others readable
    files = {"a.ts": "export const runCheck = (x: number) => x\n"
                     "export const info = (a: boolean, b: boolean) => {\n"
                     "  return { check: { shouldRun: a || b, run: runCheck } } satisfies Record<string, unknown>\n}\n"
                     "export function use() {\n  const { check } = info(true, false)\n  check.run(1)\n  check.shouldRun.run()\n}\n"}
    assert _calls(files, "a.ts#use") == {"a.ts#info": ("scope", 1.0), "a.ts#runCheck": ("type", 1.0)}


def test_a_union_type_alias_stands_for_its_members():
    # `type Node = Leaf | Branch`: a value of the alias is one of them (their methods are
    # candidates), and what they all inherit is certain
    files = {"a.ts": "class Base { walk() {} }\nexport class Leaf extends Base { show() {} }\n"
                     "export class Branch extends Base { show() {} }\nexport type Node = Leaf | Branch\n"
                     "export function f(n: Node) { n.show(); n.walk() }\n"}
    assert _calls(files, "a.ts#f") == {"a.ts#Leaf.show": ("candidate", 0.5), "a.ts#Branch.show": ("candidate", 0.5),
                                       "a.ts#Base.walk": ("type", 1.0)}
