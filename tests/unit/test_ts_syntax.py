"""TypeScript the grammar cannot read, rewritten byte for byte before a second parse: the
file's definitions after such syntax are found, at their own lines."""

import pytest

from indexers.extract import extract_file
from indexers.ts_syntax import readable, without_variance

SOURCES = {
    "variance": b"export interface Store<in out T, out U> { a: T }\n"
                b"export interface Obj<\n  /** @ts-ignore */\n  out Shape extends object = {},\n> { s: Shape }\n"
                b"export const pick = <const L extends ReadonlyArray<string>>(...l: L) =>\n  <I>(s: I): L => l\n"
                b"for (const k in obj) { }\nexport const after = make()\n",
    "call-signatures": b"export interface Factory {\n  name: string\n  <T>(fn: T): T\n  <\n    R,\n    A = void,\n  >(a: A): R\n"
                       b"  withTypes<T>(): Factory\n}\nexport const after = make()\n",
    # overloads documented one by one (effect's): a JSDoc block between the member and the signature
    "documented-signatures": b"export const add: {\n  /**\n   * Adds.\n   * @see http://example.org\n   */\n"
                             b"  <T>(tag: T): (self: T) => T\n  /**\n   * Adds.\n   *\n   * ```ts\n   * add(x)\n"
                             b"   * ```\n   */\n  <S, T>(self: S, tag: T): S\n} = internal.add\nexport const after = make()\n",
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_rewritten_files_parse_and_keep_their_definitions(name):
    data = SOURCES[name]
    assert len(readable(data)) == len(data)
    ext = extract_file("a.ts", data, "typescript")
    assert not ext.has_errors
    lines = {s.qualified_name: s.start_line for s in ext.symbols}
    assert lines["after"] == data[:data.index(b"export const after")].count(b"\n") + 1


def test_what_is_not_such_syntax_stays_as_written():
    # A generic arrow function on the line after `=`, a comment before it, a `for ... in`
    text = (b"const f =\n  <T>(x: T) => x\nconst g = wrap(\n  // a comment\n  <T>(x: T) => x,\n)\n"
            b"for (const k in obj) {}\nif (a < out && b) {}\n")
    assert readable(text) == text
    assert without_variance(b"<in T>") == b"<   T>"
    ext = extract_file("a.ts", text, "typescript")
    assert not ext.has_errors


def test_a_declared_class_member_is_what_its_prototype_assignment_implements():
    # A `declare class` beside a constructor function whose prototype gets the methods: the type's
    # member is what calls through the type reach (the assignment stays a node)
    from indexers.resolve import SymbolTable, resolve_all
    src = (b"declare class Signal {\n  _refresh(): boolean;\n  _subscribe(node: unknown): void;\n}\n"
           b"function Signal(this: Signal) {}\n"
           b"Signal.prototype._refresh = function () { return true; };\n"
           b"Signal.prototype._subscribe = function (node) { this._refresh(); };\n"
           b"export function addDependency(signal: Signal) { signal._subscribe(null); }\n")
    ext = extract_file("s.ts", src, "typescript")
    assert {"s.ts#Signal._refresh@2", "s.ts#Signal._subscribe@2"} <= set(ext.shadowed)
    edges, _ = resolve_all(SymbolTable([ext]))
    calls = {(e.src, e.dst): e.confidence for e in edges if e.type == "CALLS"}
    assert calls[("s.ts#addDependency", "s.ts#Signal._subscribe")] == 1.0
    assert calls[("s.ts#Signal._subscribe@2", "s.ts#Signal._refresh")] == 1.0


def test_a_tree_too_broken_to_query_is_parsed_again_from_the_rewrite():
    # Read raw, a `<const P>` may leave one error node with thousands of children (too costly to
    # query: the file was skipped as unparseable before the rewrite was tried).
    from indexers.languages import parser_for
    from indexers.syntax_errors import parsed_again

    data = SOURCES["variance"]
    parser = parser_for("typescript")
    root, source, errors, pathological = parsed_again(parser, data, readable(data), parser.parse(data), 1,
                                                      pathological=True)
    assert (source, errors, pathological, root.has_error) == (readable(data), 0, False, False)
    # The rewrite changing nothing keeps what the first parse said.
    assert parsed_again(parser, b"a <", b"a <", parser.parse(b"a <"), 1, pathological=True)[3] is True
